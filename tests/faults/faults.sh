#!/bin/sh
# Fault injection during real calls on the private Tor network (issue 12); see faults.py.
#   tests/faults/faults.sh --build DIR [--only NAME[,NAME]] [--quick] --json
exec python3 "$(dirname "$0")/faults.py" "$@"
