#!/usr/bin/env bash
# What knowing the guards would be worth to `adaptive` (README, fourteenth round): applies
# guard-oracle.patch to a throw-away worktree of COMMIT, builds onionvoice-sim there, generates
# 24 five-minute `hostile` calls per seed and prints the acceptable calls of each variant over
# all seeds. A few minutes of CPU.
#   tests/bench/experiments/guard-oracle.sh [COMMIT] [FIRST_SEED] [LAST_SEED]   (HEAD, 300, 309)
set -euo pipefail
commit=${1:-HEAD}
first=${2:-300}
last=${3:-309}
repo=$(git -C "$(dirname "$0")" rev-parse --show-toplevel)
patch=$repo/tests/bench/experiments/guard-oracle.patch
work=$(mktemp -d)
trap 'git -C "$repo" worktree remove --force "$work/tree" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
git -C "$repo" worktree add --detach "$work/tree" "$commit" >/dev/null
git -C "$work/tree" apply "$patch"
cmake -S "$work/tree" -B "$work/build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
ninja -C "$work/build" onionvoice-sim >/dev/null
sim=$work/build/app/onionvoice-sim
for s in $(seq "$first" "$last"); do
    "$sim" generate --out "$work/hostile-$s" --calls 24 --minutes 5 --seed "$s" --profile hostile >/dev/null
done
# Acceptable calls over every seed for one policy and environment.
total() {
    local policy=$1 sum=0 n
    shift
    for s in $(seq "$first" "$last"); do
        n=$(env "$@" "$sim" run --traces "$work/hostile-$s" --policy "$policy" --json | tail -1 |
            python3 -c 'import json,sys; j=json.load(sys.stdin); print(round(j["acceptable_pct"]*j["calls"]/100))')
        sum=$((sum + n))
    done
    echo "$policy $* acceptable=$sum of $(((last - first + 1) * 24))"
}
total adaptive REGEN=1
total adaptive REGEN=1 CHEAT_P=40
total adaptive REGEN=1 CHEAT_CO=0.0
total adaptive REGEN=1 CHEAT_CO=0.0 CHEAT_P=40
total adaptive REGEN=1 CHEAT_P=0
total double-send REGEN=1
