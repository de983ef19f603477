#!/usr/bin/env bash
# bench-scale.sh — the imports-at-scale table in one run: every way in to 1,000,000 CSV rows
# and 1,000,000 JSON tasks, each against its baseline in A/B pairs, with ratios, medians
# and peak memory (BENCHMARKS.md, "Imports at scale").
#
#   bash Extension/bench/bench-scale.sh build/streamqlite.so
#   IMPORT_ONCE=.build-bench/release/ImportOnce bash Extension/bench/bench-scale.sh build/streamqlite.so
#
# The cases (A against B; the target is A/B wall time):
#   *.import       the shell's .import --csv           vs the floor    (reference)
#   *.swift        importCSV / importJSON(contentsOfFile:) vs the floor  ≤ 1.15
#   *.typed        csv_stream / json_stream with declared columns vs the floor  ≤ 1.3
#   *.gz, *.zst    the same through a gzip / zstd file vs the plain file  ≤ 1.2 / 1.1
#   *.many         FILES files of N/FILES rows (default 10,000) in one call vs the one file  ≤ 1.1
#   *.skip         on_error='skip', every 100th record bad (strict mode refuses it),
#                  vs the clean file with strict=1  ≤ 1.2
# The floor: SQLite inserting the same rows already typed, from a table of an attached
# database (ingest-cases.sh, ingest_sql floor).  Every run is one process: a new database
# (journal_mode=OFF, synchronous=OFF), its table, the load in one transaction, a count.
# The Swift cases (Benchmarks' ImportOnce: one import a process) run when IMPORT_ONCE
# names its binary, built with
#   (cd Benchmarks && swift build -c release --static-swift-stdlib --scratch-path ../.build-bench --product ImportOnce)
# (the default IMPORT_ONCE is that path, when it exists; IMPORT_ONCE= leaves them out).
# --static-swift-stdlib, as Swift executables ship on Linux: the process then starts as
# fast as sqlite3 (about 5 ms for a one-row load, both), where the dynamic loader would
# spend another 5 ms relocating the Swift runtime and Foundation before the import.
#
# Environment: RUNS (pairs a case, default 5), WARMUP (runs of each not counted, default
# 1), N (rows, default 1000000), FILES (default N / 10,000: 100), CASES (an extended regular
# expression: only the cases whose name matches), IMPORT_ONCE, SQLITE3, CC.  A case
# whose run fails (its output lacks the expected row count) is left out of the table,
# named at the end, and the script exits 1.
# Times: wall (the process from start to exit) and CPU (user + system of all its
# threads), peak RSS the process's largest resident set: the kernel's figures (wait4).  Data under
# build/bench/scale/N<N>/ (made once; see ingest-cases.sh).
#
# CALLGRIND=1: instead of times, the instructions of each command (valgrind callgrind,
# the whole process, all threads) on N rows (default then 100,000), per row, and the
# ratio A/B of each case — exact where the machine is too busy for times; and those of
# each process's first thread alone (the calling thread, which inserts while the second
# core reads: with two threads the wall time follows it), A/B.
set -euo pipefail
cd "$(dirname "$0")/../.."
EXT=${1:-${EXT:-build/streamqlite.so}}
EXT=$(cd "$(dirname "$EXT")" && pwd)/$(basename "$EXT" .so)
CALLGRIND=${CALLGRIND:-0}
if [ "$CALLGRIND" = 1 ]; then N=${N:-100000}; else N=${N:-1000000}; fi
FILES=${FILES:-$((N >= 20000 ? N / 10000 : 1))}   # files of 10,000 rows
CASES=${CASES:-.}
IMPORT_ONCE=${IMPORT_ONCE-$( [ -x .build-bench/release/ImportOnce ] && echo "$(pwd)/.build-bench/release/ImportOnce" || true)}
OUT=$(pwd)/build/bench/scale/N$N
source Extension/bench/ingest-cases.sh

ingest_data "$OUT" "$N" "$FILES"
OUT1=$OUT/one                      # the same data, one row (start-up figures)
ingest_data "$OUT1" 1 1
if [ "$CALLGRIND" = 1 ]; then
  if [ -n "$IMPORT_ONCE" ]; then   # valgrind cannot read the Swift toolchain's debug information
    objcopy --strip-debug "$IMPORT_ONCE" "$OUT.ImportOnce"
    IMPORT_ONCE=$OUT.ImportOnce
  fi
fi
mkdir -p "$OUT/sql"
BAD=$((N / 100))
: > "$OUT/pairs.tsv"; : > "$OUT/callgrind.tsv"
LOAD0=$(cut -d' ' -f1-3 /proc/loadavg)

# case NAME TARGET A EXPECT_A B EXPECT_B, the commands as ab_pair takes them.
case_(){
  [[ $1 =~ $CASES ]] || return 0
  if [[ "$3 $5" == *"@SWIFT@"* ]]; then
    [ -n "$IMPORT_ONCE" ] || { echo "$1: skipped (no IMPORT_ONCE)" >&2; return 0; }
  fi
  local a=${3//@SWIFT@/$IMPORT_ONCE} b=${5//@SWIFT@/$IMPORT_ONCE}
  local show_a=${3//$OUT\//} show_b=${5//$OUT\//}
  show_a=${show_a//@SWIFT@/ImportOnce} show_b=${show_b//@SWIFT@/ImportOnce}
  echo "== $1: A = ${show_a//"'$TABLE'"/SCHEMA}" >&2
  echo "   B = ${show_b//"'$TABLE'"/SCHEMA}" >&2
  if [ "$CALLGRIND" = 1 ]; then cg_pair "$1" "$2" "$a" "$4" "$b" "$6" || FAILED+=" $1"
  else ab_pair "$1" "$2" "$a" "$4" "$b" "$6" || FAILED+=" $1"; fi
}
FAILED=""
# sqlite3 running the script of ingest_sql KIND FILE [OPTIONS], kept as $OUT/sql/NAME.sql.
sql_cmd(){  # NAME KIND FILE [OPTIONS]
  ingest_sql "$2" "$3" "${4:-}" > "$OUT/sql/$1.sql"
  echo "$SQLITE3 @DB@ < $OUT/sql/$1.sql"
}
# ImportOnce [OPTIONS] FORMAT DB SCHEMA FILE...
swift_cmd(){ local opts=$1 fmt=$2; shift 2; echo "@SWIFT@ ${opts:+$opts }$fmt @DB@ '$TABLE' $*"; }

ALL="count|$N"; KEPT="count|$((N - BAD))"
SKIP="strict=1, on_error=skip, reject_table=rej"
for fmt in csv ndjson json; do
  case $fmt in
    csv) f=$OUT/mixed.csv; floor=$OUT/csv-floor.db; TABLE=$CSV_TABLE; parts="$OUT/parts/part-*.csv"; bad=$OUT/bad.csv;;
    ndjson) f=$OUT/tasks.ndjson; floor=$OUT/tasks-floor.db; TABLE=$TASK_TABLE; parts="$OUT/jparts/part-*.ndjson"; bad=$OUT/bad.ndjson;;
    json) f=$OUT/tasks.json; floor=$OUT/tasks-floor.db; TABLE=$TASK_TABLE;;
  esac
  FLOOR=$(sql_cmd $fmt-floor floor "$floor")
  TYPED=$(sql_cmd $fmt-typed typed "$f")
  SWIFT=$(swift_cmd "" $fmt "$f")
  SWIFT_ALL="rows $N rejects 0"
  [ $fmt = csv ] && case_ csv.import - "$(sql_cmd csv-import import "$f")" "$ALL" "$FLOOR" "$ALL"
  case_ $fmt.swift 1.15 "$SWIFT" "$SWIFT_ALL" "$FLOOR" "$ALL"
  case_ $fmt.typed 1.3 "$TYPED" "$ALL" "$FLOOR" "$ALL"
  [ $fmt = json ] && continue   # the array differs from NDJSON in the parser only
  for z in gz:1.2 zst:1.1; do
    case_ $fmt.typed.${z%:*} ${z#*:} "$(sql_cmd $fmt-typed-${z%:*} typed "$f.${z%:*}")" "$ALL" "$TYPED" "$ALL"
    case_ $fmt.swift.${z%:*} ${z#*:} "$(swift_cmd "" $fmt "$f.${z%:*}")" "$SWIFT_ALL" "$SWIFT" "$SWIFT_ALL"
  done
  case_ $fmt.typed.many 1.1 "$(sql_cmd $fmt-typed-many typed "$parts")" "$ALL" "$TYPED" "$ALL"
  case_ $fmt.swift.many 1.1 "$(swift_cmd "" $fmt "'$parts'")" "$SWIFT_ALL" "$SWIFT" "$SWIFT_ALL"
  case_ $fmt.typed.skip 1.2 "$(sql_cmd $fmt-typed-skip typed "$bad" "$SKIP")" "$KEPT" \
        "$(sql_cmd $fmt-typed-strict typed "$f" strict=1)" "$ALL"
  case_ $fmt.swift.skip 1.2 "$(swift_cmd "--strict --reject-table rej" $fmt "$bad")" "rows $((N - BAD)) rejects $BAD" \
        "$(swift_cmd --strict $fmt "$f")" "$SWIFT_ALL"
done

echo
if [ "$CALLGRIND" = 1 ]; then
  echo "== imports at scale in instructions (callgrind, whole process, $N rows)"
  cg_summary "$N"
else
  echo "== imports at scale: $N rows, A/B pairs in turn, medians"
  echo "   $(nproc) cores; load average (1, 5, 15 min) $LOAD0 at the start, $(cut -d' ' -f1-3 /proc/loadavg) at the end"
  ab_summary
  # What a process holds before any row: the peak of the same load of one row.
  peak1(){ "$OUT/run_timed" "$OUT/run.log" "${1//@DB@/$OUT1/p.db}" | awk '{ printf "%.1f MiB", $3 / 1024 }'; rm -f "$OUT1/p.db"; }
  ingest_sql typed "$OUT1/mixed.csv" > "$OUT1/p.sql"
  echo "Peak RSS of a one-row load (the process's own start-up): sqlite3 with the extension $(peak1 "$SQLITE3 @DB@ < $OUT1/p.sql")${IMPORT_ONCE:+, ImportOnce $(peak1 "$IMPORT_ONCE csv @DB@ '$CSV_TABLE' $OUT1/mixed.csv")}"
fi
if [ -n "$FAILED" ]; then echo "FAILED (a run's output lacked its row count; see above):$FAILED"; exit 1; fi
