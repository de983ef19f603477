#!/usr/bin/env bash
# bench-csv.sh — CSV benchmarks.  `make bench` runs it with
# $1 = the extension's .so.  Everything is generated under build/bench/.
#
#   bash Extension/bench/bench-csv.sh build/streamqlite.so
#
# Environment: N (rows, default 1000000), REPS (runs per variant, default 3;
# medians are printed), CALLGRIND=1 (also instructions per row of each
# variant under valgrind's callgrind, on NC rows, default 100000: the steering
# figure on a shared machine), BIG=1 (the > 1 GB memory check).
#
# 1. reader: sq_csv vs libcsv (Debian libcsv-dev, installed here when
#    missing) on the same generated file of mixed columns (integers, reals,
#    quoted text with commas and quotes, empty fields, timestamps), 64 KiB
#    chunks from memory, CPU time.  The project keeps its own reader only
#    while it is at least 2x libcsv.
set -euo pipefail
cd "$(dirname "$0")/../.."
EXT=${1:-build/streamqlite.so}
EXT=$(cd "$(dirname "$EXT")" && pwd)/$(basename "$EXT" .so)
N=${N:-1000000}
REPS=${REPS:-3}
OUT=build/bench
mkdir -p "$OUT"

source Extension/bench/ingest-cases.sh   # csv_bench_build, floor_src
csv_bench_build "$OUT"
B="$OUT/csv_bench"

CSV="$OUT/mixed.csv"
"$B" gen "$N" "$CSV"
CSV_MB=$(python3 -c "import os;print(f'{os.path.getsize(\"$CSV\")/1e6:.1f}')")

echo "== reader: sq_csv vs libcsv ($CSV, $CSV_MB MB)"
"$B" parse "$CSV" $((REPS > 5 ? REPS : 5))
echo

# 2. INSERT INTO t … from the same file: the shell's .import --csv into the
#    typed table; csv_stream() + ->>; the typed virtual table with declared
#    columns; the typed virtual table with inferred columns; and the raw C
#    loop that prepares one INSERT and binds the same values already in
#    memory (the ceiling: the CPU time of its loop only; the RSS column shows
#    the rows it holds in memory).  Each run is its own process; its CPU time
#    (user + system, /usr/bin/time: the machine is shared, waiting for a core
#    is not the variant's cost) and peak RSS are recorded.  The floor row is
#    SQLite alone inserting the same rows already typed (from a table), which
#    bounds what any CSV path through SQLite can reach.  Each includes
#    opening the database, the schema and a count(*) at the end — the same
#    few milliseconds for every variant.
SQLITE3=${SQLITE3:-sqlite3}
SCHEMA="PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;
CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT, amount REAL, note TEXT, created_at TEXT,
               qty INTEGER, active INTEGER, city TEXT);"
COLS="columns='id INTEGER, name TEXT, amount REAL, note TEXT, created_at TEXT, qty INTEGER, active INTEGER, city TEXT'"
ABS_CSV=$(pwd)/$CSV

# run_sql NAME SETUP STATEMENT -> prints "seconds peak_kb"
# The SQL of a variant: @CSV@ is the input file, @SRC@ the floor's source
# database (a table `mem` holding the same rows, typed).
variant_sql(){  # SETUP STATEMENT CSV SRC
  local sql="$SCHEMA
$1
$2"
  sql=${sql//@CSV@/$3}
  printf ".load %s\n%s\n" "$EXT" "${sql//@SRC@/$4}"
}

run_sql(){
  local db="$OUT/bench-csv-$1.db" log="$OUT/bench-csv-$1.log"
  rm -f "$db"
  { variant_sql "$2" "$3" "$ABS_CSV" "$ABS_SRC"; echo "SELECT 'count', count(*) FROM t;"; } \
    | /usr/bin/time -f "CPU %U %S RSS %M" -o "$OUT/time-csv.txt" "$SQLITE3" "$db" > "$log" 2>&1
  local secs rss cnt
  secs=$(awk '/CPU/{print $2+$3}' "$OUT/time-csv.txt")
  cnt=$(grep '^count|' "$log" | cut -d'|' -f2)
  rss=$(awk '/CPU/{print $5}' "$OUT/time-csv.txt")
  if [ "$cnt" != "$N" ]; then echo "variant $1 failed (count=$cnt):" >&2; cat "$log" >&2; exit 1; fi
  rm -f "$db"
  echo "$secs $rss"
}

run_c(){
  local db="$OUT/bench-csv-c.db"
  rm -f "$db"
  local secs
  secs=$(/usr/bin/time -f "CPU %U %S RSS %M" -o "$OUT/time-csv.txt" "$B" insert "$N" "$db")
  rm -f "$db"
  echo "$secs $(awk '/CPU/{print $5}' "$OUT/time-csv.txt")"
}

# Swift importCSV in the same rounds (CPU of the import call alone), when
# SWIFT_CSVBENCH names a release build of Benchmarks' CSVBenchmarks:
#   swift build -c release --package-path Benchmarks --product CSVBenchmarks
#   SWIFT_CSVBENCH=Benchmarks/.build/release/CSVBenchmarks bash Extension/bench/bench-csv.sh build/streamqlite.so
run_swift(){
  local db="$OUT/bench-csv-swift.db"
  rm -f "$db"
  local secs
  secs=$(CSVBENCH_IMPORT_DB="$db" /usr/bin/time -f "CPU %U %S RSS %M" -o "$OUT/time-csv.txt" "$SWIFT_CSVBENCH" "$ABS_CSV")
  rm -f "$db"
  echo "$secs $(awk '/CPU/{print $5}' "$OUT/time-csv.txt")"
}

declare -a NAMES SETUPS SQLS
add(){ NAMES+=("$1"); SETUPS+=("$2"); SQLS+=("$3"); }
add "shell .import --csv (typed table)" "" ".import --csv --skip 1 @CSV@ t"
add "csv_stream() + ->>" "" \
    "INSERT INTO t SELECT value->>'id', value->>'name', value->>'amount', value->>'note', value->>'created_at', value->>'qty', value->>'active', value->>'city' FROM csv_stream('@CSV@');"
add "csv_stream vtab, declared columns" \
    "CREATE VIRTUAL TABLE temp.incoming USING csv_stream(filename='@CSV@', $COLS);" \
    "INSERT INTO t SELECT * FROM incoming;"
add "csv_stream vtab, inferred columns" "" \
    "CREATE VIRTUAL TABLE temp.incoming USING csv_stream(filename='@CSV@'); INSERT INTO t SELECT * FROM incoming;"
# The insert floor: SQLite inserting the same rows, already typed, from a table
# (WHERE 1 keeps SQLite from copying the B-tree wholesale — the transfer
# optimization of INSERT INTO t SELECT * FROM u — so every row is read and
# inserted one by one, as in the variants above).
add "floor: INSERT...SELECT typed rows" "ATTACH '@SRC@' AS src;" \
    "INSERT INTO t SELECT * FROM src.mem WHERE 1;"
ABS_SRC=$(pwd)/$OUT/floor-src.db
floor_src "$ABS_CSV" "$ABS_SRC"

median(){ sort -g | awk '{a[NR]=$1} END{print a[int((NR+1)/2)]}'; }

echo "== INSERT INTO t (8 typed columns): $N rows from $CSV_MB MB, $REPS rounds, medians"
echo "   (journal_mode=OFF, synchronous=OFF; time = CPU seconds of the process; RSS = its peak)"
declare -a T R TS RS
CTS=""; CRS=""; STS=""; SRS=""
for r in $(seq "$REPS"); do
  for i in "${!NAMES[@]}"; do
    read -r t rss < <(run_sql "v$i" "${SETUPS[$i]}" "${SQLS[$i]}")
    TS[$i]+="$t"$'\n'; RS[$i]+="$rss"$'\n'
  done
  read -r t rss < <(run_c)
  CTS+="$t"$'\n'; CRS+="$rss"$'\n'
  if [ -n "${SWIFT_CSVBENCH:-}" ]; then
    read -r t rss < <(run_swift)
    STS+="$t"$'\n'; SRS+="$rss"$'\n'
  fi
done
for i in "${!NAMES[@]}"; do
  T[$i]=$(printf "%s" "${TS[$i]}" | median); R[$i]=$(printf "%s" "${RS[$i]}" | median)
done
CT=$(printf "%s" "$CTS" | median); CR=$(printf "%s" "$CRS" | median)
printf "%-36s %9s %11s %8s %9s %11s %10s\n" "variant" "time s" "rows/s" "MB/s" "RSS MB" "vs .import" "vs C loop"
for i in "${!NAMES[@]}"; do
  awk -v n="${NAMES[$i]}" -v t="${T[$i]}" -v r="${R[$i]}" -v mb="$CSV_MB" -v N="$N" -v base="${T[0]}" -v c="$CT" 'BEGIN{
    printf "%-36s %9.3f %11.0f %8.1f %9.1f %10.2fx %9.2fx\n", n, t, N/t, mb/t, r/1024, base/t, t/c }'
done
awk -v t="$CT" -v r="$CR" -v N="$N" -v base="${T[0]}" 'BEGIN{
  printf "%-36s %9.3f %11.0f %8s %9.1f %10.2fx %9.2fx\n", "raw C loop (values in memory)", t, N/t, "-", r/1024, base/t, 1 }'
if [ -n "${SWIFT_CSVBENCH:-}" ]; then
  ST=$(printf "%s" "$STS" | median); SR=$(printf "%s" "$SRS" | median)
  awk -v t="$ST" -v r="$SR" -v N="$N" -v mb="$CSV_MB" -v base="${T[0]}" -v c="$CT" 'BEGIN{
    printf "%-36s %9.3f %11.0f %8.1f %9.1f %10.2fx %9.2fx\n", "Swift importCSV (the call alone)", t, N/t, mb/t, r/1024, base/t, t/c }'
fi
echo "(vs .import = .import time / this time; vs C loop = this time / C loop time)"

if [ "${CALLGRIND:-0}" = "1" ]; then
  # Instructions per row (valgrind --tool=callgrind): each variant on NC rows
  # minus the same on a one-row file, divided by NC-1 (so start-up, schema and
  # set-up cancel out); the C loop counts its insert loop alone
  # (--toggle-collect=insert_rows); Swift's importCSV the same way as the SQL
  # variants (the whole process, NC rows minus one row).
  NC=${NC:-100000}
  CG="$OUT/cg"; mkdir -p "$CG"
  "$B" gen "$NC" "$CG/n.csv"; "$B" gen 1 "$CG/one.csv"
  floor_src "$(pwd)/$CG/n.csv" "$(pwd)/$CG/n-src.db"
  floor_src "$(pwd)/$CG/one.csv" "$(pwd)/$CG/one-src.db"
  ir(){ valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>&1 >/dev/null | awk '/refs:/{gsub(",","",$NF); print $NF}'; }
  ir_sql(){  # i which -> instructions of the whole process
    local db="$CG/v.db"; rm -f "$db"
    variant_sql "${SETUPS[$1]}" "${SQLS[$1]}" "$(pwd)/$CG/$2.csv" "$(pwd)/$CG/$2-src.db" > "$CG/v.sql"
    ir "$SQLITE3" "$db" < "$CG/v.sql"; rm -f "$db"
  }
  echo
  echo "== instructions per row (callgrind, $NC rows minus 1 row)"
  printf "%-36s %12s %10s\n" "variant" "instr/row" "vs .import"
  declare -a IR
  for i in "${!NAMES[@]}"; do
    [ "$i" = 1 ] && continue      # csv_stream() + ->>: slow under valgrind, not a target
    a=$(ir_sql "$i" n); b=$(ir_sql "$i" one)
    IR[$i]=$(( (a - b) / (NC - 1) ))
  done
  for i in "${!IR[@]}"; do
    awk -v n="${NAMES[$i]}" -v r="${IR[$i]}" -v base="${IR[0]}" 'BEGIN{ printf "%-36s %12d %9.2fx\n", n, r, base/r }'
  done
  rm -f "$CG/c.db"
  c=$(ir --toggle-collect=insert_rows "$B" insert "$NC" "$CG/c.db"); rm -f "$CG/c.db"
  awk -v r="$(( c / NC ))" -v base="${IR[0]}" 'BEGIN{ printf "%-36s %12d %9.2fx\n", "raw C loop (its loop alone)", r, base/r }'
  if [ -n "${SWIFT_CSVBENCH:-}" ]; then
    rm -f "$CG/s.db"; a=$(CSVBENCH_IMPORT_DB="$(pwd)/$CG/s.db" ir "$SWIFT_CSVBENCH" "$(pwd)/$CG/n.csv")
    rm -f "$CG/s.db"; b=$(CSVBENCH_IMPORT_DB="$(pwd)/$CG/s.db" ir "$SWIFT_CSVBENCH" "$(pwd)/$CG/one.csv")
    rm -f "$CG/s.db"
    awk -v r="$(( (a - b) / (NC - 1) ))" -v base="${IR[0]}" 'BEGIN{ printf "%-36s %12d %9.2fx\n", "Swift importCSV", r, base/r }'
  fi
fi

if [ "${BIG:-0}" = "1" ]; then
  BIGF="$OUT/big.csv"
  BIG_MB=${BIG_MB:-1100}
  echo
  echo "== memory check: a CSV file of more than $BIG_MB MB"
  "$B" big "$BIG_MB" "$BIGF"
  SZ=$(python3 -c "import os;print(f'{os.path.getsize(\"$BIGF\")/1e6:.0f}')")
  ABS_BIG=$(pwd)/$BIGF
  for v in count typed; do
    db="$OUT/bench-csv-big.db"; rm -f "$db"
    case $v in
      count) sql="SELECT 'rows', count(*) FROM csv_stream('$ABS_BIG');" ;;
      typed) sql="CREATE VIRTUAL TABLE temp.incoming USING csv_stream(filename='$ABS_BIG', $COLS);
INSERT INTO t SELECT * FROM incoming; SELECT 'rows', count(*) FROM t;" ;;
    esac
    start=$(date +%s.%N)
    /usr/bin/time -f "RSS %M" -o "$OUT/time-csv.txt" "$SQLITE3" "$db" > "$OUT/big-csv.log" 2>&1 <<SQL || true
.load $EXT
$SCHEMA
$sql
SQL
    end=$(date +%s.%N)
    res=$(grep -E '^rows\||Error|error' "$OUT/big-csv.log" | head -1)
    rss=$(awk '/RSS/{print $2}' "$OUT/time-csv.txt")
    awk -v v="$v" -v s="$SZ" -v r="$rss" -v t0="$start" -v t1="$end" -v res="$res" 'BEGIN{
      printf "%-6s file %s MB: %7.1f s, peak RSS %7.1f MB  -> %s\n", v, s, t1-t0, r/1024, res }'
    rm -f "$db"
  done
  rm -f "$BIGF"
fi
