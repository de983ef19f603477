#!/usr/bin/env bash
# make test's driver: runs each suite (a make target) in turn, stops at the first that fails,
# and prints how long each took, longest first, so every run says where the time goes.
#   bash scripts/run-suites.sh test-c test-sql …
set -uo pipefail
declare -a names secs
start=$(date +%s)

report() {
    local total=$(( $(date +%s) - start ))
    echo "== time per suite (s), longest first; total ${total} s"
    for i in "${!names[@]}"; do printf '%6d  %s\n' "${secs[$i]}" "${names[$i]}"; done | sort -rn
}

for suite in "$@"; do
    t0=$(date +%s)
    # The C suites build their objects and programs on every core; the others run their
    # scripts outside make's jobserver, as a user's shell would (their own builds are
    # SwiftPM's, which uses every core by itself).
    case $suite in
        test-c|test-asan|test-c-tsan|test-fuzz) jobs=-j"$(nproc)" ;;
        *) jobs= ;;
    esac
    if ! make --no-print-directory $jobs "$suite"; then
        names+=("$suite (failed)"); secs+=($(( $(date +%s) - t0 )))
        report
        echo "make test: $suite failed"
        exit 1
    fi
    names+=("$suite"); secs+=($(( $(date +%s) - t0 )))
done
report
