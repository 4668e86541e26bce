#!/usr/bin/env bash
# Demo mode of `onionvoice-dev.sh start`, offline on this machine: a private Tor network on
# 127.0.0.1 (tests/testnet), the echo contact (`onionvoice-cli serve --echo`: a greeting, then
# what it hears comes back) and the OnionVoice window with that contact in its list. Closing the
# window stops everything the demo started (each tor is owned by its program or by the network's
# watchdog, which watches this script).
#   packaging/dev/demo.sh BUILD_DIR [onionvoice options...]
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "$1" && pwd)
shift
demo="$build/demo"
net="$demo/network"
cli="$build/app/cli/onionvoice-cli"
gui="$build/app/gui/onionvoice"
echo_pid=""

cleanup() {
    if [ -n "$echo_pid" ]; then
        kill "$echo_pid" 2>/dev/null || true
        wait "$echo_pid" 2>/dev/null || true
    fi
    python3 "$here/tests/testnet/testnet.py" down "$net" >/dev/null 2>&1 || true
}
trap cleanup EXIT
trap 'exit 130' INT TERM

if [ -z "${DISPLAY:-}" ] && [ -z "${WAYLAND_DISPLAY:-}" ]; then
    echo "No display: the demo opens a window. (tests/ui/screenshots.sh runs it under Xvfb.)" >&2
    exit 2
fi
mkdir -p "$demo"
echo "Starting a private Tor network on 127.0.0.1 (about 20 s)..."
python3 "$here/tests/testnet/testnet.py" up "$net" --watch-pid $$ >"$demo/testnet.log"
uri=$("$cli" id --data-dir "$demo/echo" --name "Echo contact" --json |
    python3 -c 'import json, sys; print(json.load(sys.stdin)["uri"])')
"$cli" serve --echo --testnet "$net" --data-dir "$demo/echo" >"$demo/echo.log" 2>&1 &
echo_pid=$!
echo "Echo contact: $uri"
echo "Opening OnionVoice: select \"Echo contact\" and press Call."
"$gui" --testnet "$net" --data-dir "$demo/gui" --contact "$uri" "$@"
