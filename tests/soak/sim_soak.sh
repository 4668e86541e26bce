#!/bin/sh
# 90-minute call per trace profile in the simulator (issue 12 soak): memory and playout target over
# the whole call. Prints sim_soak's per-minute lines and one summary per profile.
#   tests/soak/sim_soak.sh BUILD_DIR [MINUTES] [SEED]
set -eu
build=$1
minutes=${2:-90}
seed=${3:-90}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for profile in calm default congested hostile measured; do
    "$build/app/onionvoice-sim" generate --out "$work/$profile" --calls 1 --minutes "$minutes" \
        --seed "$seed" --profile "$profile" >/dev/null
    "$build/tests/soak/sim_soak" --traces "$work/$profile/call-000.csv" --policy adaptive |
        sed "s/\"trace\":\"call-000.csv\"/\"trace\":\"$profile\"/"
done
