#!/usr/bin/env bash
# bench-refused.sh — rows the table refuses in the Swift imports (BENCHMARKS.md, "Imports
# at scale", rows the table refuses): instructions per row of one importCSV (callgrind,
# the whole process, all threads, minus the same process importing nothing) of the
# 100,000-row mixed file, for each revision given, each mode of refused/main.swift.
#
#   bash Extension/bench/bench-refused.sh BASE_REV [REV|. ...]     (. = the work tree)
#
# Each revision is copied (git archive; the work tree: its tracked and new files) to
# build/bench/refused/<rev>/src and a 20-line executable (refused/main.swift) built
# against it in release, its debug information stripped (valgrind cannot read the Swift
# toolchain's).  Environment: JOURNAL (journal_mode, default MEMORY: with OFF a refused row
# stops the import), MODES (default: all), STREAMQLITE_THREADS (0: the calling thread only).
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$(pwd)
OUT=$ROOT/build/bench/refused
MODES=${MODES:-none import skip skip-constraint skip-constraint-cb skip-constraint-pre}
export JOURNAL=${JOURNAL:-MEMORY}
mkdir -p "$OUT"
CSV=$OUT/mixed100k.csv
if [ ! -s "$CSV" ]; then
  source Extension/bench/ingest-cases.sh
  csv_bench_build "$OUT"
  "$OUT/csv_bench" gen 100000 "$CSV"
fi
for rev in "$@"; do
  name=$( [ "$rev" = . ] && echo worktree || git rev-parse --short "$rev" )
  dir=$OUT/$name
  rm -rf "$dir/src" && mkdir -p "$dir/src" "$dir/exe/Sources/ImportBench"
  if [ "$rev" = . ]; then git ls-files -co --exclude-standard | tar -cf - -T - | tar -x -C "$dir/src"
  else git archive "$rev" | tar -x -C "$dir/src"; fi
  cp Extension/bench/refused/main.swift "$dir/exe/Sources/ImportBench/"
  cat > "$dir/exe/Package.swift" <<PKG
// swift-tools-version:6.1
import PackageDescription
let package = Package(name: "ImportBench", dependencies: [.package(path: "$dir/src")],
  targets: [.executableTarget(name: "ImportBench", dependencies: [.product(name: "StreamQLite", package: "src")],
                              swiftSettings: [.swiftLanguageMode(.v6)])])
PKG
  (cd "$dir/exe" && swift build -c release >/dev/null)
  objcopy --strip-debug "$dir/exe/.build/release/ImportBench" "$dir/ImportBench"
  none=
  for mode in $MODES; do
    valgrind --tool=callgrind --callgrind-out-file="$dir/cg-$mode.out" "$dir/ImportBench" "$CSV" "$mode" \
      >"$dir/$mode.stdout" 2>"$dir/$mode.err"
    ir=$(grep -E '^(summary|totals):' "$dir/cg-$mode.out" | head -1 | awk '{print $2}')
    [ "$mode" = none ] && none=$ir
    printf '%s\t%s\t%s rows\t%s instructions' "$name" "$mode" "$(cat "$dir/$mode.stdout")" "$ir"
    [ -n "$none" ] && [ "$mode" != none ] && printf '\t%d a row' $(( (ir - none) / 100000 ))
    echo
  done
done
