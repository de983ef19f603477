#!/usr/bin/env bash
# bench-json.sh — JSON streaming benchmarks.  `make bench` runs it
# with $1 = the extension's .so.  Everything is generated under build/bench/.
#
#   bash Extension/bench/bench-json.sh build/streamqlite.so
#
# Environment: N (tasks, default 1000000), REPS (runs per variant, default 3;
# medians are printed), BIG=1 also runs the memory check on a generated
# file of more than 1 GB (BIG_MB, default 1100) — not part of CI.
#
# 1. parser: sq_json vs YAJL's event parser on the same file, 64 KiB chunks.
# 2. INSERT INTO tasks … from: json_each(readfile()) + ->>; json_stream +
#    ->>; the json_stream virtual table with typed columns; the raw C loop
#    that prepares one INSERT and binds values already in memory (the
#    ceiling); and, as the floor of any INSERT … SELECT, the same rows from
#    generate_series() (no JSON at all).  Each run is its own process: time of the INSERT statement
#    (the shell's .timer), peak RSS of the process (/usr/bin/time).
set -euo pipefail
cd "$(dirname "$0")/../.."
EXT=${1:-build/streamqlite.so}
EXT=$(cd "$(dirname "$EXT")" && pwd)/$(basename "$EXT" .so)
N=${N:-1000000}
REPS=${REPS:-3}
OUT=build/bench
mkdir -p "$OUT"
SQLITE3=${SQLITE3:-sqlite3}

CC=${CC:-cc}
$CC -O2 -std=c11 -D_GNU_SOURCE -DSQLITE_CORE -IExtension/src -IExtension/include \
    -o "$OUT/json_parse_bench" Extension/bench/json_parse_bench.c Extension/src/sq_json.c \
    -lsqlite3 -lyajl
B="$OUT/json_parse_bench"

JSON="$OUT/tasks.json"
NDJSON="$OUT/tasks.ndjson"
"$B" gen "$N" "$JSON"
"$B" gen "$N" "$NDJSON" ndjson
JSON_MB=$(python3 -c "import os;print(f'{os.path.getsize(\"$JSON\")/1e6:.1f}')")
NDJSON_MB=$(python3 -c "import os;print(f'{os.path.getsize(\"$NDJSON\")/1e6:.1f}')")

echo "== parser: sq_json vs yajl ($JSON, $JSON_MB MB)"
"$B" parse "$JSON" $((REPS > 5 ? REPS : 5))
echo

SCHEMA="PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;
CREATE TABLE tasks(id INTEGER PRIMARY KEY, title TEXT, done INTEGER);"

# run_sql NAME FILE SETUP INSERT -> prints "seconds peak_kb"
run_sql(){
  local db="$OUT/bench-$1.db" log="$OUT/bench-$1.log"
  rm -f "$db"
  /usr/bin/time -f "RSS %M" -o "$OUT/time.txt" "$SQLITE3" "$db" > "$log" 2>&1 <<EOF
.load $EXT
$SCHEMA
$3
.timer on
$4
.timer off
SELECT 'count', count(*) FROM tasks;
EOF
  local secs rss cnt
  secs=$(grep -m1 'Run Time: real' "$log" | awk '{print $4}')
  cnt=$(grep '^count|' "$log" | cut -d'|' -f2)
  rss=$(awk '/RSS/{print $2}' "$OUT/time.txt")
  if [ "$cnt" != "$N" ]; then echo "variant $1 failed (count=$cnt):" >&2; cat "$log" >&2; exit 1; fi
  rm -f "$db"
  echo "$secs $rss"
}

run_c(){
  local db="$OUT/bench-c.db"
  rm -f "$db"
  local secs
  secs=$(/usr/bin/time -f "RSS %M" -o "$OUT/time.txt" "$B" insert "$N" "$db")
  rm -f "$db"
  echo "$secs $(awk '/RSS/{print $2}' "$OUT/time.txt")"
}

ABS_JSON=$(pwd)/$JSON
ABS_NDJSON=$(pwd)/$NDJSON
TYPED="columns='id INTEGER, title TEXT, done INTEGER'"

declare -a NAMES SIZES SETUPS SQLS
add(){ NAMES+=("$1"); SIZES+=("$2"); SETUPS+=("$3"); SQLS+=("$4"); }
add "json_each(readfile())+->>  array" "$JSON_MB" "" \
    "INSERT INTO tasks SELECT value->>'id', value->>'title', value->>'done' FROM json_each(readfile('$ABS_JSON'));"
add "json_stream()+->>          array" "$JSON_MB" "" \
    "INSERT INTO tasks SELECT value->>'id', value->>'title', value->>'done' FROM json_stream('$ABS_JSON');"
add "json_stream typed vtab     array" "$JSON_MB" \
    "CREATE VIRTUAL TABLE temp.incoming USING json_stream(filename='$ABS_JSON', $TYPED);" \
    "INSERT INTO tasks SELECT * FROM incoming;"
add "floor: generate_series, no JSON" "-" "" \
    "INSERT INTO tasks SELECT value, 'task ' || value, value % 3 = 0 FROM generate_series(1, $N);"
add "json_stream()+->>          ndjson" "$NDJSON_MB" "" \
    "INSERT INTO tasks SELECT value->>'id', value->>'title', value->>'done' FROM json_stream('$ABS_NDJSON');"
add "json_stream typed vtab     ndjson" "$NDJSON_MB" \
    "CREATE VIRTUAL TABLE temp.incoming USING json_stream(filename='$ABS_NDJSON', $TYPED);" \
    "INSERT INTO tasks SELECT * FROM incoming;"

median(){ sort -g | awk '{a[NR]=$1} END{print a[int((NR+1)/2)]}'; }

echo "== INSERT INTO tasks(id INTEGER PRIMARY KEY, title, done): $N rows, $REPS rounds, medians"
echo "   (journal_mode=OFF, synchronous=OFF, one statement; RSS = peak of the process)"
# Rounds: every variant once per round (the C loop too), so that bursts of
# load on the shared machine hit all variants alike; medians over rounds.
declare -a T R TS RS
CTS=""; CRS=""
for r in $(seq "$REPS"); do
  for i in "${!NAMES[@]}"; do
    read -r t rss < <(run_sql "v$i" "" "${SETUPS[$i]}" "${SQLS[$i]}")
    TS[$i]+="$t"$'\n'; RS[$i]+="$rss"$'\n'
  done
  read -r t rss < <(run_c)
  CTS+="$t"$'\n'; CRS+="$rss"$'\n'
done
for i in "${!NAMES[@]}"; do
  T[$i]=$(printf "%s" "${TS[$i]}" | median); R[$i]=$(printf "%s" "${RS[$i]}" | median)
done
CT=$(printf "%s" "$CTS" | median); CR=$(printf "%s" "$CRS" | median)

printf "%-36s %9s %11s %8s %9s %10s %10s\n" "variant" "time s" "rows/s" "MB/s" "RSS MB" "vs each" "vs C loop"
for i in "${!NAMES[@]}"; do
  awk -v n="${NAMES[$i]}" -v t="${T[$i]}" -v r="${R[$i]}" -v mb="${SIZES[$i]}" -v N="$N" \
      -v base="${T[0]}" -v c="$CT" 'BEGIN{
    if( mb=="-" ) printf "%-36s %9.3f %11.0f %8s %9.1f %9.2fx %9.2fx\n", n, t, N/t, "-", r/1024, base/t, t/c;
    else printf "%-36s %9.3f %11.0f %8.1f %9.1f %9.2fx %9.2fx\n", n, t, N/t, mb/t, r/1024, base/t, t/c }'
done
awk -v t="$CT" -v r="$CR" -v N="$N" -v base="${T[0]}" 'BEGIN{
  printf "%-36s %9.3f %11.0f %8s %9.1f %9.2fx %9.2fx\n", "raw C loop (bind, no JSON)", t, N/t, "-", r/1024, base/t, 1 }'
echo "(vs each = json_each time / this time; vs C loop = this time / C loop time)"

if [ "${BIG:-0}" = "1" ]; then
  BIGF="$OUT/big.json"
  BIG_MB=${BIG_MB:-1100}
  echo
  echo "== memory check: a JSON array of more than $BIG_MB MB"
  "$B" big "$BIG_MB" "$BIGF"
  SZ=$(python3 -c "import os;print(f'{os.path.getsize(\"$BIGF\")/1e6:.0f}')")
  ABS_BIG=$(pwd)/$BIGF
  for v in count typed each; do
    db="$OUT/bench-big.db"; rm -f "$db"
    case $v in
      count) sql="SELECT 'rows', count(*) FROM json_stream('$ABS_BIG');" ;;
      typed) sql="CREATE VIRTUAL TABLE temp.incoming USING json_stream(filename='$ABS_BIG', $TYPED);
INSERT INTO tasks SELECT * FROM incoming; SELECT 'rows', count(*) FROM tasks;" ;;
      each)  sql="SELECT 'rows', count(*) FROM json_each(readfile('$ABS_BIG'));" ;;
    esac
    start=$(date +%s.%N)
    /usr/bin/time -f "RSS %M" -o "$OUT/time.txt" "$SQLITE3" "$db" > "$OUT/big.log" 2>&1 <<EOF || true
.load $EXT
$SCHEMA
$sql
EOF
    end=$(date +%s.%N)
    res=$(grep -E '^rows\||Error|error' "$OUT/big.log" | head -1)
    rss=$(awk '/RSS/{print $2}' "$OUT/time.txt")
    awk -v v="$v" -v s="$SZ" -v r="$rss" -v t0="$start" -v t1="$end" -v res="$res" 'BEGIN{
      printf "%-6s file %s MB: %7.1f s, peak RSS %7.1f MB  -> %s\n", v, s, t1-t0, r/1024, res }'
    rm -f "$db"
  done
  rm -f "$BIGF"
fi
