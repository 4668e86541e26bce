#!/bin/sh
# Fault injection during real calls on the private Tor network (issue 12); see faults.py.
#   tests/faults/faults.sh --build DIR [--only NAME[,NAME]] [--quick] [--repeat N] [--retries N [--retry-only NAME[,NAME]]] [--tor-log info] --json
exec python3 "$(dirname "$0")/faults.py" "$@"
