#!/usr/bin/env bash
# The packaging checks CTest runs (label "package"), after a full build of BUILD:
#   package-test.sh metadata BUILD   desktop entry and AppStream metainfo validate, icons rendered
#   package-test.sh deb BUILD        cpack -G DEB, dpkg -I, lintian without errors, then the .deb
#                                    installed into a clean Debian root (clean-root.sh deb)
#   package-test.sh bundle BUILD     the self-contained tar.gz, checked in a root without any
#                                    development package (clean-root.sh bundle)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
kind=${1:?usage: package-test.sh metadata|deb|bundle BUILD}
build=$(cd "${2:?usage: package-test.sh metadata|deb|bundle BUILD}" && pwd)
app_id=org.onionvoice.OnionVoice

case $kind in
metadata)
    desktop-file-validate "$here/../linux/$app_id.desktop"
    appstreamcli validate --no-net --explain "$build/packaging/$app_id.metainfo.xml"
    for size in 16 32 48 64 128 256 512; do
        file "$build/packaging/icons/$size/$app_id.png" | grep -q "PNG image data, $size x $size"
    done
    # The entry makes OnionVoice the handler of onionvoice: links once the desktop database has it.
    apps=$(mktemp -d)
    trap 'rm -rf "$apps"' EXIT
    cp "$here/../linux/$app_id.desktop" "$apps/"
    update-desktop-database "$apps"
    grep -qx "x-scheme-handler/onionvoice=$app_id.desktop;" "$apps/mimeinfo.cache"
    echo "metadata: desktop entry, onionvoice: handler, AppStream metainfo and icons are valid"
    ;;
deb)
    rm -f "$build"/packages/onionvoice_*.deb
    (cd "$build" && cpack -G DEB >/dev/null)
    deb=$(ls "$build"/packages/onionvoice_*.deb)
    dpkg -I "$deb"
    lintian --fail-on error "$deb"
    "$here/clean-root.sh" deb "$build"
    ;;
bundle)
    "$here/../linux/make-bundle.sh" "$build"
    "$here/clean-root.sh" bundle "$build"
    ;;
*)
    echo "usage: package-test.sh metadata|deb|bundle BUILD" >&2
    exit 2
    ;;
esac
