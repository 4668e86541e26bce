#!/usr/bin/env bash
# Runs a temporary scheduler experiment (README, fourteenth round): applies PATCH (a file in this
# directory) to a throw-away worktree of COMMIT, builds onionvoice-sim there, generates 24
# five-minute calls of PROFILE per seed from FIRST to LAST, and prints the acceptable calls over
# all seeds of each variant: a policy followed by the environment the patch reads.
#   tests/bench/experiments/run.sh PATCH COMMIT PROFILE FIRST LAST 'POLICY [VAR=VALUE ...]' ...
# e.g. run.sh guard-oracle.patch 03ba367 hostile 300 309 'adaptive REGEN=1' 'adaptive REGEN=1 CHEAT_P=40'
set -euo pipefail
[ $# -ge 6 ] || { sed -n '2,7p' "$0" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
patch=$here/$1 commit=$2 profile=$3 first=$4 last=$5
shift 5
repo=$(git -C "$here" rev-parse --show-toplevel)
work=$(mktemp -d)
trap 'git -C "$repo" worktree remove --force "$work/tree" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
git -C "$repo" worktree add --detach "$work/tree" "$commit" >/dev/null 2>"$work/git.log" ||
    { cat "$work/git.log" >&2; exit 1; }
git -C "$work/tree" apply "$patch"
cmake -S "$work/tree" -B "$work/build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
ninja -C "$work/build" onionvoice-sim >/dev/null
sim=$work/build/app/onionvoice-sim
# The directory is named PROFILE-SEED: guard-oracle.patch regenerates the traces from that name.
for s in $(seq "$first" "$last"); do
    "$sim" generate --out "$work/$profile-$s" --calls 24 --minutes 5 --seed "$s" \
        --profile "$profile" >/dev/null
done
for variant in "$@"; do
    read -r policy settings <<<"$variant"
    sum=0
    for s in $(seq "$first" "$last"); do
        # shellcheck disable=SC2086 # the settings are words on purpose
        n=$(env $settings "$sim" run --traces "$work/$profile-$s" --policy "$policy" --json |
            tail -1 | python3 -c \
            'import json,sys; j=json.load(sys.stdin); print(round(j["acceptable_pct"]*j["calls"]/100))')
        sum=$((sum + n))
    done
    echo "$variant: $sum of $(((last - first + 1) * 24)) acceptable calls"
done
