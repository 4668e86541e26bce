#!/bin/sh
# End-to-end call benchmark between two onionvoice-cli instances on the private Tor network:
#   tests/e2e/e2e.sh --build DIR --seconds N --policy NAME [--impair TRACE] --json
# Prints one JSON object (fields: tests/e2e/README.md). See e2e.py --help for the other options.
exec python3 "$(dirname "$0")/e2e.py" "$@"
