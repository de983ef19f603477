#!/usr/bin/env bash
# bench-pipe.sh — the second core (sq_pipe.h): the typed tables with the
# worker thread against the same on one thread (STREAMQLITE_THREADS=0) and
# against the floor (SQLite inserting the same typed rows from a table), in
# farm-bench A/B pairs (wall time, whole sqlite3 processes, peak RSS).
#
#   bash Extension/bench/bench-pipe.sh build/streamqlite.so
#
# Environment: N (rows, default 1000000), RUNS (pairs, default 5).  The data
# (the 8 mixed columns of callgrind-file-tables.sh) and the floor's database
# are made under build/bench/pipe/.
set -euo pipefail
cd "$(dirname "$0")/../.."
EXT=${1:-build/streamqlite.so}
EXT=$(cd "$(dirname "$EXT")" && pwd)/$(basename "$EXT" .so)
N=${N:-1000000}
RUNS=${RUNS:-5}
D=$(pwd)/build/bench/pipe
mkdir -p "$D"
python3 - "$D" "$N" <<'PY'
import json, os, sys
d, n = sys.argv[1], int(sys.argv[2])
if not os.path.exists(f"{d}/n{n}.csv"):
    with open(f"{d}/n{n}.csv", "w") as f:
        f.write("id,name,amount,note,created_at,qty,active,city\n")
        for i in range(n):
            f.write(f'{i},"Name, {i}",{i*1.25:.2f},"note ""{i}""",2024-05-01 12:00:{i%60:02d},{i%100},{i%2},City{i%50}\n')
if not os.path.exists(f"{d}/n{n}.json"):
    with open(f"{d}/n{n}.json", "w") as f:
        f.write("[")
        for i in range(n):
            if i: f.write(",\n")
            f.write(json.dumps({"id": i, "name": f"Name {i}", "amount": i*1.25, "note": f"n{i}",
                                "created_at": f"2024-05-01 12:00:{i%60:02d}", "qty": i % 100,
                                "active": bool(i % 2), "city": f"City{i%50}"}))
        f.write("]\n")
PY
COLS='id INTEGER, name TEXT, amount REAL, note TEXT, created_at TEXT, qty INTEGER, active INTEGER, city TEXT'
FLOOR="$D/floor$N.db"
if [ ! -e "$FLOOR" ]; then
  sqlite3 "$FLOOR" ".load $EXT" "CREATE TABLE mem($COLS)" \
    "CREATE VIRTUAL TABLE temp.i USING csv_stream(filename='$D/n$N.csv', columns='$COLS')" \
    "INSERT INTO mem SELECT * FROM i"
fi
for f in csv json; do
  cat > "$D/$f.sql" <<SQL
.load $EXT
CREATE TABLE t($COLS);
CREATE VIRTUAL TABLE temp.i USING ${f}_stream(filename='$D/n$N.$f', columns='$COLS');
INSERT INTO t SELECT * FROM i WHERE 1;
SQL
done
cat > "$D/floor.sql" <<SQL
ATTACH '$FLOOR' AS src;
CREATE TABLE t($COLS);
INSERT INTO t SELECT * FROM src.mem WHERE 1;
SQL
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
for f in csv json; do
  echo "== $f typed table: worker (A) vs one thread (B)"
  farm-bench -n "$RUNS" --timeout 900 --vs "env STREAMQLITE_THREADS=0 sqlite3 :memory: '.read $D/$f.sql'" \
    -- sqlite3 :memory: ".read $D/$f.sql" || true
  echo "== $f typed table: worker (A) vs the floor (B)"
  farm-bench -n "$RUNS" --timeout 900 --vs "sqlite3 :memory: '.read $D/floor.sql'" \
    -- sqlite3 :memory: ".read $D/$f.sql" || true
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
