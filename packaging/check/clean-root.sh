#!/usr/bin/env bash
# Installs OnionVoice into a fresh Debian root and runs installed-checks.sh there.
#   clean-root.sh deb BUILD      the .deb from `cpack -G DEB`, installed by apt with exactly the
#                                dependencies it declares (plus Debian's essential packages)
#   clean-root.sh bundle BUILD   the self-contained tar.gz, unpacked into a root of only the
#                                essential packages (no Qt, no libraries beyond glibc's)
# The root comes from mmdebstrap and Debian's mirror (ONIONVOICE_DEBIAN_MIRROR, default
# deb.debian.org) and is thrown away afterwards; nothing is cached.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
kind=${1:?usage: clean-root.sh deb|bundle BUILD}
build=$(cd "${2:?usage: clean-root.sh deb|bundle BUILD}" && pwd)
mirror=${ONIONVOICE_DEBIAN_MIRROR:-http://deb.debian.org}
suite=bookworm
# The tor the build staged: the tracked pin, or the build's own manifest (onionvoice-dev.sh).
manifest=$(sed -n 's/^ONIONVOICE_TOR_MANIFEST:FILEPATH=//p' "$build/CMakeCache.txt" 2>/dev/null || true)
tor_version=$(awk '$1 == "tor-version" { print $2 }' "${manifest:-$here/../../tor-bundle/manifest}")
started=$(date +%s)

# Every product check runs in the root. They were first probed on the build tree and skipped as
# "PENDING" where the probe failed (from when the features did not exist yet): the probe found the
# bundle's launcher, which the bundle check rebuilds meanwhile, and a broken --self-test passed as
# not yet there.
checks=(cli-version cli-id self-test)

# mmdebstrap splits --include and its hooks' arguments at spaces, so the files it takes in are
# staged first under a name without any (a checkout at "~/My Projects" broke here).
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
cp "$here/installed-checks.sh" "$stage/"

case $kind in
deb)
    cp "$build"/packages/onionvoice_*.deb "$stage/"
    deb=$(ls "$stage"/onionvoice_*.deb)
    # apt installs the file from inside the root: the hook bind-mounts its directory there.
    include=(--include="$deb" --hook-dir=/usr/share/mmdebstrap/hooks/file-mirror-automount)
    setup=(--customize-hook="copy-in $stage/installed-checks.sh /tmp")
    run="sh /tmp/installed-checks.sh /usr/bin /usr/lib/onionvoice $tor_version ${checks[*]}"
    ;;
bundle)
    cp "$build"/packages/onionvoice-*-linux-*.tar.gz "$stage/"
    tarball=$(ls "$stage"/onionvoice-*-linux-*.tar.gz)
    dir=$(basename "$tarball" .tar.gz)
    include=()
    setup=(--customize-hook="copy-in $stage/installed-checks.sh $tarball /tmp"
        --customize-hook="chroot \"\$1\" tar -C /opt -xzf /tmp/$(basename "$tarball")")
    run="! dpkg-query -W -f='\${Package}\n' | grep -E -- '-dev\$|^libqt6' &&
        sh /tmp/installed-checks.sh /opt/$dir /opt/$dir/lib/onionvoice $tor_version ${checks[*]}"
    ;;
*) echo "usage: clean-root.sh deb|bundle BUILD" >&2; exit 2 ;;
esac

sudo=()
[ "$(id -u)" -ne 0 ] && sudo=(sudo)
"${sudo[@]}" mmdebstrap --variant=essential --quiet --aptopt='APT::Install-Recommends "false"' --aptopt='Acquire::Retries "3"' "${include[@]}" "${setup[@]}" \
    --customize-hook="chroot \"\$1\" sh -c \"$run\"" \
    "$suite" /dev/null \
    "deb $mirror/debian $suite main" "deb $mirror/debian $suite-updates main" \
    "deb $mirror/debian-security $suite-security main"
echo "clean-root $kind: passed in $(($(date +%s) - started)) s"
