#!/bin/sh
# Runs inside a clean root (no build or development packages): checks that an installed OnionVoice
# finds every library it needs and runs with its bundled tor.
#   installed-checks.sh BIN_DIR LIB_DIR TOR_VERSION [cli-version] [cli-id] [self-test]
# BIN_DIR holds the launchers, LIB_DIR the programs and the bundled tor. The optional words name
# the product checks whose features exist in this build (the caller probes the build tree).
set -eu
bin=$1 lib=$2 tor_version=$3
shift 3
failures=0
pass() { echo "PASS: $*"; }
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# 1. No tor besides the bundled one: the package must never rely on the system's.
if command -v tor >/dev/null 2>&1 || [ -e /usr/sbin/tor ]; then
    fail "a system tor is present in the clean root"
else
    pass "no system tor in the root"
fi

# 2. Every ELF file of the installation resolves all its libraries here.
for f in $(find "$lib" -type f); do
    head -c4 "$f" | grep -q ELF || continue
    missing=$(ldd "$f" 2>&1 | grep 'not found' || true)
    if [ -n "$missing" ]; then fail "$f: $missing"; else pass "libraries of ${f#$lib/}"; fi
done

# 3. The bundled tor runs and is the pinned version.
if "$lib/tor" --version | grep -q "Tor version $tor_version"; then
    pass "bundled tor $lib/tor is $tor_version"
else
    fail "bundled tor does not report $tor_version"
fi

# 4. The bundled tor's files are the ones its sums list (what a user checking them runs).
if (cd "$lib" && sha256sum -c --quiet tor-bundle.sha256); then
    pass "tor-bundle.sha256 matches the bundled tor's files"
else
    fail "tor-bundle.sha256 does not match the bundled tor's files in $lib"
fi

# 5. The product's own checks.
data=$(mktemp -d)
for check in "$@"; do
    case $check in
    cli-version)
        if out=$("$bin/onionvoice-cli" --version 2>&1); then pass "onionvoice-cli --version: $out"
        else fail "onionvoice-cli --version: $out"; fi
        ;;
    cli-id)
        first=$("$bin/onionvoice-cli" id --data-dir "$data/id" 2>&1 || true)
        again=$("$bin/onionvoice-cli" id --data-dir "$data/id" 2>&1 || true)
        uri=$(echo "$first" | grep -oE 'onionvoice:[a-z2-7]{56}' | head -n1)
        if [ -n "$uri" ] && echo "$again" | grep -q "$uri"; then
            pass "onionvoice-cli id --data-dir: $uri (same on the second run)"
        else
            fail "onionvoice-cli id --data-dir: $first"
        fi
        ;;
    self-test)
        out=$(QT_QPA_PLATFORM=offscreen HOME="$data" "$bin/onionvoice" --self-test 2>&1) &&
            status=0 || status=$?
        echo "$out"
        if [ "$status" -eq 0 ] && echo "$out" | grep -q "$lib/tor" &&
            echo "$out" | grep -q "$tor_version"; then
            pass "onionvoice --self-test shows the bundled tor $lib/tor $tor_version"
        else
            fail "onionvoice --self-test (exit $status) does not show the bundled tor $lib/tor $tor_version"
        fi
        ;;
    *) fail "unknown check $check" ;;
    esac
done
rm -rf "$data"
echo "installed-checks: $failures failure(s)"
[ "$failures" -eq 0 ]
