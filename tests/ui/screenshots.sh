#!/usr/bin/env bash
# Photographs the demo under Xvfb: a private Tor network (tests/testnet), the echo contact
# (onionvoice-cli serve --echo) and the app as `onionvoice --testnet` runs it, driven by
# onionvoice-screenshots, which writes main-window.png, call-dashboard.png (mid-call),
# incoming-call.png, settings.png and sound-test.png into OUTDIR. Everything it starts stops when it exits.
#   tests/ui/screenshots.sh OUTDIR [BUILD_DIR]
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
out=$(mkdir -p "$1" && cd "$1" && pwd)
build=$(cd "${2:-$here/build}" && pwd)
work=$(mktemp -d /tmp/onionvoice-shots.XXXXXX)
cli="$build/app/cli/onionvoice-cli"
echo_pid=""
xvfb_pid=""

cleanup() {
    for pid in $echo_pid $xvfb_pid; do
        kill "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    done
    python3 "$here/tests/testnet/testnet.py" down "$work/network" >/dev/null 2>&1 || true
    sh "$here/tests/media/pulse_fixture.sh" stop "$work/pulse" >/dev/null 2>&1 || true
    rm -rf "$work"
}
trap cleanup EXIT

python3 "$here/tests/testnet/testnet.py" up "$work/network" --watch-pid $$ >"$work/testnet.log" 2>&1 ||
    { cat "$work/testnet.log" >&2; exit 1; }
# A PulseAudio null sink (as in tests/media), so that the sound test and the ringtone have devices.
sh "$here/tests/media/pulse_fixture.sh" start "$work/pulse"
export PULSE_SERVER="unix:$work/pulse/native" HOME="$work/pulse" XDG_RUNTIME_DIR="$work/pulse"
uri=$("$cli" id --data-dir "$work/echo" --name "Echo contact" --json |
    python3 -c 'import json, sys; print(json.load(sys.stdin)["uri"])')
"$cli" serve --echo --testnet "$work/network" --data-dir "$work/echo" >"$work/echo.log" 2>&1 &
echo_pid=$!
sh "$here/tests/media/make_speech.sh" "$work/speech.wav" >/dev/null 2>&1

display=":$((90 + RANDOM % 100))"
Xvfb "$display" -screen 0 1366x768x24 -nolisten tcp >"$work/xvfb.log" 2>&1 &
xvfb_pid=$!
sleep 1
DISPLAY="$display" QT_QPA_PLATFORM=xcb "$build/tests/ui/onionvoice-screenshots" --out "$out" \
    --testnet "$work/network" --data-dir "$work/app" --contact "$uri" --play "$work/speech.wav"
ls -l "$out"/*.png
