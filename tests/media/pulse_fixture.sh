#!/bin/sh
# CTest fixture for the real-audio tests: a private PulseAudio with a 48 kHz null sink, reachable
# only through a socket in DIR, and an ALSA configuration (DIR/.asoundrc, read because the tests
# run with HOME=DIR) that routes ALSA's default device, and so PortAudio's, to it.
#   pulse_fixture.sh start DIR    start it and wait until it answers
#   pulse_fixture.sh stop DIR     stop it (and nothing else) and remove DIR
# Runs as root too (CI does): pulseaudio only warns, and the socket keeps it private.
set -eu
action=$1
dir=$2

stop() {
    if [ -f "$dir/pid" ]; then
        pid=$(cat "$dir/pid")
        if kill "$pid" 2>/dev/null; then
            i=0
            while kill -0 "$pid" 2>/dev/null && [ $i -lt 50 ]; do
                sleep 0.1
                i=$((i + 1))
            done
            kill -9 "$pid" 2>/dev/null || true
        fi
        rm -f "$dir/pid"
    fi
}

case $action in
start)
    stop
    rm -rf "$dir"
    mkdir -p "$dir"
    chmod 700 "$dir"
    cat > "$dir/default.pa" <<PA
load-module module-null-sink sink_name=onionvoice_null rate=48000 channels=1
load-module module-native-protocol-unix auth-anonymous=1 socket=$dir/native
set-default-sink onionvoice_null
set-default-source onionvoice_null.monitor
PA
    cat > "$dir/.asoundrc" <<ALSA
pcm.!default { type pulse }
ctl.!default { type pulse }
ALSA
    HOME=$dir XDG_RUNTIME_DIR=$dir XDG_CONFIG_HOME=$dir/.config \
        pulseaudio -n --daemonize=no --exit-idle-time=-1 --disallow-exit --use-pid-file=no \
        -F "$dir/default.pa" --log-target="file:$dir/pulseaudio.log" \
        </dev/null >"$dir/pulseaudio.out" 2>&1 &
    echo $! > "$dir/pid"
    i=0
    until PULSE_SERVER="unix:$dir/native" HOME=$dir pactl info >/dev/null 2>&1; do
        i=$((i + 1))
        if [ $i -gt 100 ] || ! kill -0 "$(cat "$dir/pid")" 2>/dev/null; then
            echo "pulseaudio did not start:" >&2
            cat "$dir/pulseaudio.out" "$dir/pulseaudio.log" >&2 || true
            stop
            exit 1
        fi
        sleep 0.1
    done
    echo "pulseaudio $(cat "$dir/pid") serving unix:$dir/native"
    ;;
stop)
    stop
    rm -rf "$dir"
    ;;
*)
    echo "usage: $0 start|stop DIR" >&2
    exit 2
    ;;
esac
