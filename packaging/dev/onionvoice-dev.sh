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
    libwebrtc-audio-processing-dev tor clang python3 python3-venv python3-dev
    pulseaudio-utils libasound2-plugins espeak-ng sox procps time clang-format
    tor-geoipdb obfs4proxy snowflake-client dpkg-dev file lintian desktop-file-utils appstream
    librsvg2-bin patchelf mmdebstrap debian-archive-keyring
    libqt6opengl6-dev libzbar-dev qt6-l10n-tools xvfb xauth strace iproute2 dbus-daemon)

sudo=()
[ "$(id -u)" -ne 0 ] && sudo=(sudo)

installed() {
    dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"
}

# The sound server: the tests start a private PulseAudio daemon (tests/media/pulse_fixture.sh).
# Where PipeWire is the system's (GNOME on Debian 12 and Ubuntu), the pulseaudio package
# conflicts with pipewire-audio, and installing it would remove PipeWire and the desktop's
# metapackages with it; the app itself plays through PipeWire's PulseAudio service as it is.
sound_server() { # sound_server start|test
    if ! installed pipewire-audio && ! installed pipewire-pulse; then
        packages+=(pulseaudio)
    elif [ "$1" = test ]; then
        echo "PipeWire is this machine's sound server. The tests need a private PulseAudio daemon," >&2
        echo "and installing pulseaudio would remove PipeWire (and the desktop's metapackages)." >&2
        echo "Run the tests in a container or virtual machine (CI runs them on a plain Debian 12)." >&2
        exit 1
    fi
}

# The sanitizer build's runtime belongs to the distribution's clang (Debian 12's 14, Ubuntu
# 24.04's 18), which the clang package names: another clang first on PATH has no such package.
clang_runtime() {
    local major
    major=$(dpkg-query -W -f='${Depends}' clang | sed -n 's/.*clang-\([0-9][0-9]*\).*/\1/p')
    packages+=("libclang-rt-$major-dev")
}

install_packages() {
    local missing=() p had_tor=yes
    installed tor || had_tor=no
    for p in "${packages[@]}"; do
        installed "$p" || missing+=("$p")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    echo "Installing: ${missing[*]}"
    "${sudo[@]}" apt-get update -q
    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive \
        apt-get install -y -q --no-install-recommends "${missing[@]}"
    # The tor package is here for its files (staged into the build, run by the test network);
    # Debian enables its system service, which would connect this machine to the Tor network at
    # every boot, through a tor OnionVoice never uses.
    if [ "$had_tor" = no ] && [ -d /run/systemd/system ]; then
        echo "Disabling the system tor service the tor package enabled (OnionVoice runs its own)."
        "${sudo[@]}" systemctl disable --now tor.service || true
    fi
}

# Every build stages the tor its manifest pins by SHA-256, and refuses any other. The tracked pin,
# tor-bundle/manifest, is Debian 12's build; where the installed tor differs (Debian has shipped
# a newer one since, or another distribution is in use), this build stages the installed tor,
# pinned in a manifest of its own, and says so. Release packages are built from the tracked pin.
tor_manifest=()
choose_tor_manifest() {
    local kind name need source sha package differs=""
    # Every file the build would stage, by hash: the optional pluggable transports too (Debian
    # rebuilds Go packages now and then, and a rebuilt obfs4proxy stopped every build as well).
    while read -r kind name need source sha package; do
        [ "$kind" = linux ] || continue
        if [ ! -e "$source" ]; then
            [ "$need" = optional ] || differs+=" $name (missing: $source);"
            continue
        fi
        [ "$(sha256sum "$source" | cut -d' ' -f1)" = "$sha" ] && continue
        differs+=" ${package%%=*} $(dpkg-query -W -f='${Version}' "${package%%=*}" 2>/dev/null ||
            echo '(not from a package)') (pinned: ${package#*=});"
    done < tor-bundle/manifest
    if [ -z "$differs" ]; then
        tor_manifest=(-DONIONVOICE_TOR_MANIFEST="$(pwd -P)/tor-bundle/manifest")
        return 0
    fi
    mkdir -p build
    tor-bundle/update-manifest.sh --out build/tor-manifest.local
    echo "tor-bundle/manifest pins other files than the ones installed:${differs%;}." >&2
    echo "This build stages the installed ones (build/tor-manifest.local). To ship them, check them" >&2
    echo "and re-pin with tor-bundle/update-manifest.sh." >&2
    tor_manifest=(-DONIONVOICE_TOR_MANIFEST="$(pwd -P)/build/tor-manifest.local")
}

# The package checks run `sudo mmdebstrap` some 15 minutes into the tests, where a password
# prompt would wait unseen among ctest's lines: asked for now, and kept fresh meanwhile.
sudo_keeper=""
keep_sudo() {
    [ ${#sudo[@]} -gt 0 ] || return 0
    if ! sudo -v; then
        echo "Without sudo the package checks in a fresh Debian root (package_deb, package_bundle) fail." >&2
        return 0
    fi
    (while sleep 60; do sudo -n -v 2>/dev/null || exit 0; done) &
    sudo_keeper=$!
}
stop_keeping_sudo() {
    [ -z "$sudo_keeper" ] || kill "$sudo_keeper" 2>/dev/null || true
}

configure() { # configure DIR [cmake options...]
    local dir=$1
    shift
    cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "${tor_manifest[@]}" "$@" >/dev/null
}

build() { # build DIR [cmake options...]
    configure "$@"
    cmake --build "$1" -j "$(nproc)"
}

case "${1:-}" in
start)
    sound_server start
    install_packages
    choose_tor_manifest
    # What the demo runs, not the tests: about a third of the build steps.
    configure build
    cmake --build build -j "$(nproc)" --target onionvoice onionvoice-cli tor_bundle
    shift
    exec packaging/dev/demo.sh build "$@"
    ;;
test)
    sound_server test
    install_packages
    clang_runtime
    install_packages
    choose_tor_manifest
    build build
    # Unit tests again under AddressSanitizer + UndefinedBehaviorSanitizer, and the fuzz targets,
    # in build-asan/. Only what those tests run is built there: 412 of the tree's 515 build steps
    # at 280e347, 359 s instead of 446 s on 2 cores (ninja -j2, no ccache). It is built while the tests of
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
        stop_keeping_sudo
    }
    trap stop_sanitizer_build EXIT
    trap 'exit 130' INT
    trap 'exit 143' TERM
    keep_sudo
    (cd build && ctest --output-on-failure --no-tests=error -j 2 --timeout 900)
    stop_keeping_sudo
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
