#!/usr/bin/env bash
# Copies the system's tor into DEST (next to the OnionVoice executable of a bundle), refusing a tor
# older than the pinned minimum, and records the binary's SHA-256 in DEST/tor.sha256.
#   tor-bundle/bundle-tor.sh DEST
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
dest=${1:?usage: bundle-tor.sh DEST}

tor=${ONIONVOICE_TOR:-$(PATH="$PATH:/usr/sbin:/usr/local/sbin" command -v tor || true)}
[ -x "$tor" ] || { echo "bundle-tor: no tor found (install tor or set ONIONVOICE_TOR)" >&2; exit 1; }

minimum=$(sed -n 's/^minimum=//p' "$here/tor-version.txt")
version=$("$tor" --version | sed -n 's/^Tor version \([0-9.]*[0-9]\).*/\1/p' | head -n1)
[ -n "$version" ] || { echo "bundle-tor: $tor did not report a version" >&2; exit 1; }
if [ "$(printf '%s\n%s\n' "$minimum" "$version" | sort -V | head -n1)" != "$minimum" ]; then
    echo "bundle-tor: $tor is tor $version; OnionVoice needs $minimum or newer" >&2
    exit 1
fi

mkdir -p "$dest"
install -m 0755 "$tor" "$dest/tor"
(cd "$dest" && sha256sum tor > tor.sha256)
echo "bundle-tor: shipped tor $version from $tor into $dest"
