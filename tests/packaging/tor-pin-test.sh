#!/usr/bin/env bash
# The tor pin holds: staging a tor binary that differs from tor-bundle/manifest by one byte fails
# loudly and stages nothing, while the untouched file stages.
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

cp "$tor" "$work/tor"
grep -v '^linux geoip' "$src/tor-bundle/manifest" | sed "s|^linux tor required $tor |linux tor required $work/tor |" \
    > "$work/manifest"
stage "$work/manifest" "$work/good" >/dev/null
[ -x "$work/good/tor" ] || { echo "FAIL: the pinned tor was not staged"; exit 1; }

printf '\0' >> "$work/tor" # one byte appended, as a tampered or silently upgraded binary would be
if out=$(stage "$work/manifest" "$work/bad"); then
    echo "FAIL: a tor that does not match the manifest was staged"
    exit 1
fi
echo "$out" | grep -q "SHA-256 MISMATCH" || { echo "FAIL: no mismatch message: $out"; exit 1; }
echo "$out" | grep -q "tor-bundle/update-manifest.sh" || { echo "FAIL: no re-pin hint"; exit 1; }
[ ! -e "$work/bad/tor" ] || { echo "FAIL: the tampered tor was staged"; exit 1; }
echo "PASS: mismatching tor refused, nothing staged; the pinned one stages"
