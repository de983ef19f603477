#!/usr/bin/env bash
# callgrind-file-tables.sh — instructions per row of the typed file tables
# (csv_stream with columns=, csv_stream inferred, json_stream with columns=),
# the steering figure for changes to the file-table driver (sq_file_table.c).
#
#   bash Extension/bench/callgrind-file-tables.sh build/streamqlite.so
#
# Each variant is one sqlite3 shell process under valgrind --tool=callgrind
# running INSERT INTO t SELECT * FROM the table, on 100,000 rows minus the
# same on one row, divided by 99,999 (start-up, schema and set-up cancel out).
# The same 8 mixed columns as bench-csv.sh; data under build/bench/ft/.
# MAIN_THREAD=1: also the query's thread alone (the worker's share left out).
set -euo pipefail
cd "$(dirname "$0")/../.."
EXT=${1:-build/streamqlite.so}
EXT=$(cd "$(dirname "$EXT")" && pwd)/$(basename "$EXT" .so)
D=$(pwd)/build/bench/ft
mkdir -p "$D"
python3 - "$D" <<'PY'
import json, sys
d = sys.argv[1]
def gen(n, tag, bad=False):
    qty = lambda i: "bad" if bad and i % 100 == 99 else i % 100
    with open(f"{d}/{tag}.csv", "w") as f:
        f.write("id,name,amount,note,created_at,qty,active,city\n")
        for i in range(n):
            f.write(f'{i},"Name, {i}",{i*1.25:.2f},"note ""{i}""",2024-05-01 12:00:{i%60:02d},{qty(i)},{i%2},City{i%50}\n')
    with open(f"{d}/{tag}.json", "w") as f:
        f.write("[")
        for i in range(n):
            if i: f.write(",\n")
            f.write(json.dumps({"id": i, "name": f"Name {i}", "amount": i*1.25, "note": f"n{i}",
                                "created_at": f"2024-05-01 12:00:{i%60:02d}", "qty": qty(i),
                                "active": bool(i % 2), "city": f"City{i%50}"}))
        f.write("]\n")
gen(100000, "n"); gen(1, "one"); gen(100000, "bad", True)
PY
COLS='id INTEGER, name TEXT, amount REAL, note TEXT, created_at TEXT, qty INTEGER, active INTEGER, city TEXT'
sql(){  # variant file
  echo ".load $EXT"
  echo "CREATE TABLE t($COLS);"
  case $1 in
    csv)      echo "CREATE VIRTUAL TABLE temp.i USING csv_stream(filename='$2', columns='$COLS');";;
    csv-infer) echo "CREATE VIRTUAL TABLE temp.i USING csv_stream(filename='$2');";;
    json)     echo "CREATE VIRTUAL TABLE temp.i USING json_stream(filename='$2', columns='$COLS');";;
    *-strict) echo "CREATE VIRTUAL TABLE temp.i USING ${1%-strict}_stream(filename='$2', columns='$COLS', strict=1);";;
    *-skip)   echo "CREATE VIRTUAL TABLE temp.i USING ${1%-skip}_stream(filename='$2', columns='$COLS', strict=1, on_error=skip, reject_table=rej);";;
  esac
  echo "INSERT INTO t SELECT * FROM i;"
}
ir(){ valgrind --tool=callgrind --callgrind-out-file=/dev/null sqlite3 :memory: < "$1" 2>&1 >/dev/null | awk '/refs:/{gsub(",","",$NF); print $NF}'; }
# The query's thread alone (a typed table reads on a worker thread with more
# than one CPU: sq_pipe.h): callgrind's file of thread 1.
ir_main(){
  rm -f "$D"/cg.out*
  valgrind --tool=callgrind --separate-threads=yes --callgrind-out-file="$D/cg.out" sqlite3 :memory: < "$1" >/dev/null 2>&1
  awk '/^(summary|totals):/{print $2; exit}' "$D/cg.out-01"
}
if [ -n "${MAIN_THREAD:-}" ]; then
  printf "%-12s %10s %10s\n" variant instr/row query-thread/row
else
  printf "%-12s %10s\n" variant instr/row
fi
for v in ${VARIANTS:-csv csv-infer json csv-strict csv-skip json-strict json-skip}; do
  x=csv; case $v in json*) x=json;; esac
  f=n; case $v in *-skip) f=bad;; esac
  sql $v "$D/$f.$x" > "$D/a.sql"; sql $v "$D/one.$x" > "$D/b.sql"
  a=$(ir "$D/a.sql"); b=$(ir "$D/b.sql")
  if [ -n "${MAIN_THREAD:-}" ]; then
    ma=$(ir_main "$D/a.sql"); mb=$(ir_main "$D/b.sql")
    printf "%-12s %10d %10d\n" $v $(( (a - b) / 99999 )) $(( (ma - mb) / 99999 ))
  else
    printf "%-12s %10d\n" $v $(( (a - b) / 99999 ))
  fi
done
