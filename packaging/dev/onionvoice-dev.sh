#!/usr/bin/env bash
# Developer entry point: installs the Debian packages the build needs, configures, builds, and
# either starts the program or runs every test (normal build, sanitizer build, fuzz runs).
#   packaging/dev/onionvoice-dev.sh start   build and start OnionVoice (demo mode, packaging/dev/demo.sh)
#   packaging/dev/onionvoice-dev.sh test    build and run every test
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
cd "$here"

packages=(cmake ninja-build pkg-config g++ qt6-base-dev qt6-charts-dev qt6-svg-dev qt6-tools-dev
    libopus-dev portaudio19-dev libsodium-dev libqrencode-dev libspeexdsp-dev
    libwebrtc-audio-processing-dev tor clang libclang-rt-14-dev python3 python3-venv python3-dev
    pulseaudio pulseaudio-utils libasound2-plugins espeak-ng sox procps time clang-format
    tor-geoipdb obfs4proxy snowflake-client dpkg-dev file lintian desktop-file-utils appstream
    librsvg2-bin patchelf mmdebstrap
    libqt6opengl6-dev libzbar-dev qt6-l10n-tools xvfb xauth strace iproute2 dbus-daemon)

install_packages() {
    local missing=()
    for p in "${packages[@]}"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    local sudo=()
    [ "$(id -u)" -ne 0 ] && sudo=(sudo)
    echo "Installing: ${missing[*]}"
    "${sudo[@]}" apt-get update -q
    DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
}

# Every build stages the tor that tor-bundle/manifest pins by SHA-256 (Debian 12's build) and
# refuses any other. Said here, before a build that would stop at it: on Ubuntu, or once Debian
# ships a newer tor, the installed one differs.
check_pinned_tor() {
    local pinned installed
    for pinned in $(awk '$1 == "linux" && $3 == "required" { print $6 }' tor-bundle/manifest | sort -u); do
        installed=$(dpkg-query -W -f='${Version}' "${pinned%%=*}" 2>/dev/null || true)
        if [ "$installed" != "${pinned#*=}" ]; then
            echo "tor-bundle/manifest pins ${pinned}, but ${pinned%%=*} ${installed:-(none)} is installed:" >&2
            echo "the build refuses any other tor. Install the pinned version, or check the new one" >&2
            echo "and re-pin it with tor-bundle/update-manifest.sh." >&2
            exit 1
        fi
    done
}

configure() { # configure DIR [cmake options...]
    local dir=$1
    shift
    cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@" >/dev/null
}

build() { # build DIR [cmake options...]
    configure "$@"
    cmake --build "$1" -j "$(nproc)"
}

case "${1:-}" in
start)
    install_packages
    check_pinned_tor
    build build
    shift
    exec packaging/dev/demo.sh build "$@"
    ;;
test)
    install_packages
    check_pinned_tor
    build build
    # Unit tests again under AddressSanitizer + UndefinedBehaviorSanitizer, and the fuzz targets,
    # in build-asan/. Only what those tests run is built there: 412 of the tree's 515 build steps,
    # 359 s instead of 446 s on 2 cores (ninja -j2, no ccache). It is built while the tests of
    # build/ run, on the CPU they leave idle: under SCHED_IDLE a compiler gets a core only when no
    # test wants it (caches, memory and disk are still shared: its disk access is idle class too).
    # After the tests it took 5 of a run's 30 minutes. Its configure comes first, so a sanitizer
    # build that cannot be configured fails the command before the tests run.
    configure build-asan -DONIONVOICE_SANITIZE=ON -DONIONVOICE_FUZZ=ON \
        -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++
    idle=(chrt --idle 0) # where the scheduler refuses SCHED_IDLE (a container's), the lowest nice
    "${idle[@]}" true 2>/dev/null || idle=(nice -n 19)
    ionice -c3 true 2>/dev/null && idle+=(ionice -c3)
    started=$SECONDS
    setsid --wait "${idle[@]}" cmake --build build-asan -j "$(nproc)" \
        --target onionvoice_sanitized_tests >build-asan/build.log 2>&1 &
    # cmake and ninja in a process group of their own (setsid; ninja stops its compilers when it
    # is stopped): stopped when the script ends early, whether the tests failed or it was stopped.
    sanitizer_build=$!
    stop_sanitizer_build() {
        kill -- "-$sanitizer_build" 2>/dev/null || kill "$sanitizer_build" 2>/dev/null || true
    }
    trap stop_sanitizer_build EXIT
    trap 'exit 130' INT
    trap 'exit 143' TERM
    (cd build && ctest --output-on-failure --no-tests=error -j 2 --timeout 900)
    wait "$sanitizer_build" || {
        cat build-asan/build.log
        exit 1
    }
    trap - EXIT INT TERM
    echo "sanitizer build done (built beside the tests; started $((SECONDS - started)) s ago)"
    (cd build-asan && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
        ctest --output-on-failure --no-tests=error -j 2 -L 'unit|fuzz' --timeout 900)
    ;;
*)
    echo "usage: $0 start|test" >&2
    exit 2
    ;;
esac
