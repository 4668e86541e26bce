#!/usr/bin/env bash
# The tor pin holds: staging a tor binary that differs from its manifest by one byte fails loudly
# and stages nothing, while the untouched file stages. The same for the Windows/macOS path,
# on an archive laid out like a Tor Expert Bundle (the real one cannot be downloaded here).
#   tor-pin-test.sh SOURCE_DIR
set -euo pipefail
src=${1:?usage: tor-pin-test.sh SOURCE_DIR}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
tor=$(awk '$1 == "linux" && $2 == "tor" { print $4 }' "$src/tor-bundle/manifest")

stage() { # stage MANIFEST DEST
    mkdir -p "$2"
    cmake -DMANIFEST="$1" -DDEST="$2" -DPLATFORM=linux -P "$src/tor-bundle/stage-tor.cmake" 2>&1
}

# Pinned here to the copy's own hash: the installed tor need not be the tracked pin (a Debian
# update since; onionvoice-dev.sh then builds with a manifest of its own), and neither need the
# optional pluggable transports, which this test leaves out.
cp "$tor" "$work/tor"
sha=$(sha256sum "$work/tor" | cut -d' ' -f1)
version=$("$work/tor" --version | sed -n 's/^Tor version \([0-9.]*[0-9]\).*/\1/p' | head -n1)
{
    grep -v -e '^linux ' -e '^tor-version ' "$src/tor-bundle/manifest"
    echo "tor-version $version"
    awk -v copy="$work/tor" -v sha="$sha" '$1 == "linux" && $2 == "tor" { $4 = copy; $5 = sha; print }' \
        "$src/tor-bundle/manifest"
} > "$work/manifest"
out=$(stage "$work/manifest" "$work/good") || { echo "FAIL: the pinned tor was not staged: $out"; exit 1; }
[ -x "$work/good/tor" ] || { echo "FAIL: the pinned tor was not staged: $out"; exit 1; }

printf '\0' >> "$work/tor" # one byte appended, as a tampered or silently upgraded binary would be
if out=$(stage "$work/manifest" "$work/bad"); then
    echo "FAIL: a tor that does not match the manifest was staged"
    exit 1
fi
echo "$out" | grep -q "SHA-256 MISMATCH" || { echo "FAIL: no mismatch message: $out"; exit 1; }
echo "$out" | grep -q "tor-bundle/update-manifest.sh" || { echo "FAIL: no re-pin hint"; exit 1; }
[ ! -e "$work/bad/tor" ] || { echo "FAIL: the tampered tor was staged"; exit 1; }
echo "PASS: mismatching tor refused, nothing staged; the pinned one stages"

mkdir -p "$work/eb/tor/pluggable_transports" "$work/eb/data"
for f in tor/tor.exe tor/libevent-2-1-7.dll tor/pluggable_transports/lyrebird.exe \
    tor/pluggable_transports/snowflake-client.exe tor/pluggable_transports/pt_config.json \
    data/geoip data/geoip6; do echo "$f" > "$work/eb/$f"; done
tar -C "$work/eb" -czf "$work/eb.tar.gz" tor data
sha=$(sha256sum "$work/eb.tar.gz" | cut -d' ' -f1)
sed "s|^expert-bundle windows-x86_64 \([^ ]*\) .*|expert-bundle windows-x86_64 \1 $sha|" \
    "$src/tor-bundle/manifest" > "$work/eb-manifest"
stage_eb() { # stage_eb DEST
    mkdir -p "$1"
    cmake -DMANIFEST="$work/eb-manifest" -DDEST="$1" -DPLATFORM=windows-x86_64 \
        -DEXPERT_BUNDLE="$work/eb.tar.gz" -P "$src/tor-bundle/stage-tor.cmake" 2>&1
}
stage_eb "$work/eb-good" >/dev/null
for f in tor.exe libevent-2-1-7.dll lyrebird.exe snowflake-client.exe geoip geoip6; do
    [ -f "$work/eb-good/$f" ] || { echo "FAIL: $f not staged from the Expert Bundle"; exit 1; }
done
printf '\0' >> "$work/eb.tar.gz"
if out=$(stage_eb "$work/eb-bad"); then
    echo "FAIL: an Expert Bundle that does not match the manifest was staged"
    exit 1
fi
echo "$out" | grep -q "SHA-256 MISMATCH" || { echo "FAIL: no mismatch message: $out"; exit 1; }
[ ! -e "$work/eb-bad/tor.exe" ] || { echo "FAIL: the tampered bundle was staged"; exit 1; }
echo "PASS: Expert Bundle layout staged (tor, DLLs, lyrebird, snowflake, geoip); tampered archive refused"
