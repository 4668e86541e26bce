#!/usr/bin/env bash
# Re-pins tor-bundle/manifest after a deliberate tor update.
#   tor-bundle/update-manifest.sh                       linux lines from the installed Debian packages
#   tor-bundle/update-manifest.sh --out FILE            the same, written to FILE instead (a
#                                                       build's own manifest: onionvoice-dev.sh)
#   tor-bundle/update-manifest.sh --expert-bundle VER   Windows/macOS lines from the Tor Project's
#                                                       signed checksum list of Tor Browser VER
# Review the diff (git diff tor-bundle/manifest) before committing it.
set -euo pipefail -f
manifest=$(cd "$(dirname "$0")" && pwd)/manifest
out=$manifest
if [ "${1:-}" = "--out" ]; then
    out=${2:?usage: update-manifest.sh --out FILE}
    shift 2
fi
new=$(mktemp)
trap 'rm -f "$new"' EXIT

if [ "${1:-}" = "--expert-bundle" ]; then
    version=${2:?usage: update-manifest.sh --expert-bundle VERSION}
    base=https://archive.torproject.org/tor-package-archive/torbrowser/$version
    sums=$(mktemp -d)
    trap 'rm -rf "$new" "$sums"' EXIT
    curl -fsSL -o "$sums/sums" "$base/sha256sums-signed-build.txt"
    curl -fsSL -o "$sums/sums.asc" "$base/sha256sums-signed-build.txt.asc"
    # The Tor Browser release key; gpg must already trust it (see tor-bundle/README.md).
    gpg --verify "$sums/sums.asc" "$sums/sums"
    while read -r line; do
        set -- $line
        if [ "${1:-}" = "expert-bundle-version" ]; then
            echo "expert-bundle-version $version"
        elif [ "${1:-}" = "expert-bundle" ]; then
            archive="tor-expert-bundle-$2-$version.tar.gz"
            sha=$(awk -v f="$archive" '$2 == f { print $1 }' "$sums/sums")
            [ -n "$sha" ] || { echo "update-manifest: $archive not in the signed list" >&2; exit 1; }
            echo "expert-bundle $2 $archive $sha"
        else
            printf '%s\n' "$line"
        fi
    done < "$manifest" > "$new"
else
    while IFS= read -r line; do
        set -- $line
        if [ "${1:-}" = "tor-version" ]; then
            tor=$(PATH="$PATH:/usr/sbin" command -v tor)
            echo "tor-version $("$tor" --version | sed -n 's/^Tor version \([0-9.]*[0-9]\).*/\1/p' | head -n1)"
        elif [ "${1:-}" = "linux" ]; then
            name=$2 need=$3 source=$4
            if [ ! -e "$source" ]; then
                [ "$need" = optional ] || { echo "update-manifest: $source is missing" >&2; exit 1; }
                printf '%s\n' "$line"
                continue
            fi
            package=$(dpkg -S "$source" | cut -d: -f1)
            version=$(dpkg-query -W -f='${Version}' "$package")
            sha=$(sha256sum "$source" | cut -d' ' -f1)
            echo "linux $name $need $source $sha $package=$version"
        else
            printf '%s\n' "$line"
        fi
    done < "$manifest" > "$new"
fi
cp "$new" "$out"
[ "$out" != "$manifest" ] || git -C "$(dirname "$manifest")" diff --stat -- manifest || true
