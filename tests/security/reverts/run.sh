#!/usr/bin/env bash
# Shows that the security tests perform their attacks (issue 11, acceptance 1): each *.patch here
# reverts one fix; this script applies it to a scratch worktree of HEAD, builds the test the
# patch names, runs the named test functions and expects them to FAIL (a patch with "Expect: TEXT"
# instead runs its ctest test and expects TEXT in the output). One JSON line per patch:
#   {"revert": NAME, "item": N, "test": T, "functions": F, "failed_on_old_code": true|false}
# Exit status 1 when any test passed with its fix reverted (that test proves nothing).
#
# usage: tests/security/reverts/run.sh [--work DIR] [PATCH-NAME...]
#   Tests labelled "integration" (on the private Tor network) bring the network up themselves in
#   DIR/net. Build output and the scratch worktree stay in DIR (default /tmp/onionvoice-reverts).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(git -C "$here" rev-parse --show-toplevel)
work=/tmp/onionvoice-reverts
if [[ ${1:-} == --work ]]; then work=$2; shift 2; fi
mkdir -p "$work"
tree=$work/tree
if [[ ! -d $tree ]]; then
    git -C "$repo" worktree add --detach -q "$tree" HEAD
else
    git -C "$tree" checkout -q --detach "$(git -C "$repo" rev-parse HEAD)"
fi
export CCACHE_DIR=${CCACHE_DIR:-$work/ccache} CCACHE_BASEDIR=${CCACHE_BASEDIR:-$work} CCACHE_NOHASHDIR=1
# ccache where the machine has it (it makes the many rebuilds of a full run quick).
launcher=()
command -v ccache >/dev/null &&
    launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
[[ -f $tree/build/build.ninja ]] || nice -n 19 cmake -S "$tree" -B "$tree/build" -G Ninja \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo "${launcher[@]}" >/dev/null

field() { sed -n "s/^$1: //p" "$2" | head -1; }
network_up=no
cleanup() {
    git -C "$tree" checkout -q -- .
    [[ $network_up == yes ]] && python3 "$tree/tests/testnet/testnet.py" down "$work/net" >/dev/null
    return 0
}
trap cleanup EXIT

patches=()
if (($#)); then for n in "$@"; do patches+=("$here/${n%.patch}.patch"); done
else patches=("$here"/*.patch); fi

status=0
for patch in "${patches[@]}"; do
    name=$(basename "$patch" .patch)
    test=$(field Test "$patch")
    functions=$(field Functions "$patch")
    git -C "$tree" checkout -q -- .
    git -C "$tree" apply "$patch"
    expect=$(field Expect "$patch")
    target=$(field Target "$patch")
    nice -n 19 cmake --build "$tree/build" --target "${target:-$test}" >"$work/$name.build.log" 2>&1
    if [[ -n $expect ]]; then
        (cd "$tree/build" && ctest -R "^$test\$" --output-on-failure) >"$work/$name.log" 2>&1 || true
        failed=false
        grep -q -- "$expect" "$work/$name.log" && failed=true
        [[ $failed == true ]] || status=1
        printf '{"revert": "%s", "item": %s, "test": "%s", "functions": "", "failed_on_old_code": %s}\n' \
            "$name" "$(field Item "$patch")" "$test" "$failed"
        continue
    fi
    binary=$(find "$tree/build/tests" -type f -name "$test" -perm -u+x | head -1)
    env=()
    if grep -q "onionvoice_add_testnet_qtest($test\b" -r "$tree/tests" --include=CMakeLists.txt; then
        if [[ $network_up == no ]]; then
            python3 "$tree/tests/testnet/testnet.py" up "$work/net" >/dev/null
            network_up=yes
        fi
        env=(ONIONVOICE_TESTNET="$work/net")
    fi
    # shellcheck disable=SC2086 # the functions are separate arguments
    (cd "$(dirname "$binary")" && env "${env[@]}" "$binary" $functions) >"$work/$name.log" 2>&1 || true
    # Failed where the attack is checked: every named function reports FAIL, or crashed inside it
    # (QtTest then prints "Received signal" and the function it was in; a crash elsewhere counts
    # for nothing).
    failed=true
    for f in $functions; do
        grep -q "^FAIL!  : [A-Za-z]*::${f%%:*}(" "$work/$name.log" ||
            { grep -q "^Received signal" "$work/$name.log" &&
              grep -q "^ *${f%%:*} function time:" "$work/$name.log"; } || failed=false
    done
    [[ $failed == true ]] || status=1
    printf '{"revert": "%s", "item": %s, "test": "%s", "functions": "%s", "failed_on_old_code": %s}\n' \
        "$name" "$(field Item "$patch")" "$test" "$functions" "$failed"
done
exit $status
