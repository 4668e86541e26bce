#!/usr/bin/env bash
# Reproduces the policy comparison in README: generates the two trace sets (48 five-minute calls,
# seed 1; 8 ninety-minute calls, seed 2), prints one table per set for all six policies, and the
# CPU time of replaying one 90-minute call with one policy.
#   tests/bench/policy-table.sh [BUILD_DIR]      (default: build)
set -euo pipefail
build=${1:-build}
sim=$build/app/onionvoice-sim
traces=$build/sim-traces
[ -x "$sim" ] || { echo "build first: $sim not found" >&2; exit 2; }

"$sim" generate --out "$traces/5min" --calls 48 --minutes 5 --seed 1
"$sim" generate --out "$traces/90min" --calls 8 --minutes 90 --seed 2
echo
echo "48 calls of 5 minutes (seed 1), 12 links, 40 ms packets, 32 kbit/s:"
"$sim" compare --traces "$traces/5min"
echo
echo "8 calls of 90 minutes (seed 2), 12 links, 40 ms packets, 32 kbit/s:"
"$sim" compare --traces "$traces/90min"
echo
for policy in adaptive double-send; do
    /usr/bin/env time -f "replay of one 90-minute call, $policy: %U s user + %S s system CPU" \
        "$sim" run --traces "$traces/90min/call-000.csv" --policy "$policy" --json >/dev/null
done
