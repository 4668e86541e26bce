#!/usr/bin/env bash
# Runs a temporary scheduler experiment (README, fourteenth round): applies PATCH (a file in this
# directory) to a throw-away worktree of COMMIT, builds onionvoice-sim there, generates 24
# five-minute calls of PROFILE per seed from FIRST to LAST, and prints the acceptable calls and
# "soft" (below) over all seeds of each variant: a policy followed by the environment the patch
# reads.
#   tests/bench/experiments/run.sh PATCH COMMIT PROFILE FIRST LAST 'POLICY [VAR=VALUE ...]' ...
# e.g. run.sh guard-oracle.patch 03ba367 hostile 300 309 'adaptive REGEN=1' 'adaptive REGEN=1 CHEAT_P=40'
set -euo pipefail
[ $# -ge 6 ] || { sed -n '2,8p' "$0" >&2; exit 2; }
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
# "soft" (README, thirteenth round): the mean over calls of the worse direction's late share in %,
# capped at 3; it moves before the count of acceptable calls does.
for variant in "$@"; do
    read -r policy settings <<<"$variant"
    for s in $(seq "$first" "$last"); do
        # shellcheck disable=SC2086 # the settings are words on purpose
        env $settings "$sim" run --traces "$work/$profile-$s" --policy "$policy" --json
    done | python3 -c '
import json, sys
calls = [c for c in map(json.loads, sys.stdin) if "summary" not in c]
kept = sum(c["acceptable"] and c["ba"]["acceptable"] for c in calls)
soft = sum(min(max(c["late_pct"], c["ba"]["late_pct"]), 3.0) for c in calls) / len(calls)
print(f"{sys.argv[1]}: {kept} of {len(calls)} acceptable calls, soft {soft:.3f}")' "$variant"
done
