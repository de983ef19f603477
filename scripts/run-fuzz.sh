#!/usr/bin/env bash
# Runs each libFuzzer harness given for SECONDS, two at a time (the machine's two cores),
# each on its own corpus (build/fuzz/corpus-NAME, seeded from Extension/fuzz/corpus/NAME).
# Prints each harness's runs; on a failure, the end of its log, and exits 1 after the
# harnesses already started have finished.
#   bash scripts/run-fuzz.sh SECONDS build/fuzz/fuzz_csv build/fuzz/fuzz_json …
set -uo pipefail
seconds=$1; shift
jobs=${FUZZ_JOBS:-2}

run_one() {
    local bin=$1 seconds=$2 n seeds=""
    n=$(basename "$bin")
    mkdir -p "build/fuzz/corpus-$n"
    test -d "Extension/fuzz/corpus/$n" && seeds="Extension/fuzz/corpus/$n"
    if "$bin" -max_total_time="$seconds" -print_final_stats=1 -artifact_prefix="build/fuzz/$n-" "build/fuzz/corpus-$n" $seeds > "build/fuzz/$n.log" 2>&1; then
        echo "== fuzz $n (${seconds}s): $(grep -E '^Done ' "build/fuzz/$n.log" | tail -1)"
    else
        tail -60 "build/fuzz/$n.log"
        echo "fuzz $n: FAILED"
        return 1
    fi
}
export -f run_one

printf '%s\n' "$@" | xargs -P "$jobs" -I{} bash -c 'run_one "$1" "$2"' _ {} "$seconds"
status=$?
if [ $status -ne 0 ]; then echo "test-fuzz: a harness failed (see above)"; exit 1; fi
