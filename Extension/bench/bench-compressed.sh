#!/usr/bin/env bash
# bench-compressed.sh — gzip and zstd input against the plain file (issue 22:
# gzip within 1.2x, zstd within 1.1x).  Each pair is one farm-bench call, A (the
# compressed file) and B (the plain one) run in turn, the ratio taken pair by pair:
#
#   bash Extension/bench/bench-compressed.sh build/streamqlite.so
#
# The data (build/bench/cz/): the 1,000,000-row mixed CSV of bench-csv.sh
# (csv_bench gen) and 1,000,000 NDJSON tasks as bench-json.sh writes them,
# compressed by `gzip` (level 6) and `zstd` (level 3).  Each run: a new database
# (journal off), a typed table over the file, INSERT INTO t SELECT * FROM it.
# Environment: RUNS (pairs, default 5), N (rows, default 1000000).
set -euo pipefail
cd "$(dirname "$0")/../.."
EXT=${1:-build/streamqlite.so}
EXT=$(cd "$(dirname "$EXT")" && pwd)/$(basename "$EXT" .so)
RUNS=${RUNS:-5}
N=${N:-1000000}
OUT=$(pwd)/build/bench/cz
mkdir -p "$OUT"
if [ ! -e "$OUT/mixed.csv" ]; then
  cc -O2 -std=c11 -D_GNU_SOURCE -DSQLITE_CORE -IExtension/src -IExtension/include \
     -o "$OUT/csv_bench" Extension/bench/csv_bench.c Extension/src/sq_csv.c -lsqlite3 -lcsv
  "$OUT/csv_bench" gen "$N" "$OUT/mixed.csv"
fi
if [ ! -e "$OUT/tasks.ndjson" ]; then
  python3 -c "
import sys
with open(sys.argv[1], 'w') as f:
    for i in range(1, int(sys.argv[2]) + 1):
        f.write('{\"id\":%d,\"title\":\"task %d\",\"done\":%s}\n' % (i, i, 'true' if i % 3 == 0 else 'false'))
" "$OUT/tasks.ndjson" "$N"
fi
for f in mixed.csv tasks.ndjson; do
  [ -e "$OUT/$f.gz" ] || gzip -k "$OUT/$f"
  [ -e "$OUT/$f.zst" ] || zstd -q "$OUT/$f"
done

sql(){  # FILE -> a script loading FILE through its typed table
  case "$1" in
    *.csv*) printf '.load %s\nPRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;\nCREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT, amount REAL, note TEXT, created_at TEXT, qty INTEGER, active INTEGER, city TEXT);\nCREATE VIRTUAL TABLE temp.i USING csv_stream(filename=%s, columns=%s);\nINSERT INTO t SELECT * FROM i;\n' \
      "$EXT" "'$1'" "'id INTEGER, name TEXT, amount REAL, note TEXT, created_at TEXT, qty INTEGER, active INTEGER, city TEXT'" ;;
    *) printf '.load %s\nPRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;\nCREATE TABLE t(id INTEGER PRIMARY KEY, title TEXT, done INTEGER);\nCREATE VIRTUAL TABLE temp.i USING json_stream(filename=%s, columns=%s);\nINSERT INTO t SELECT * FROM i;\n' \
      "$EXT" "'$1'" "'id INTEGER, title TEXT, done INTEGER'" ;;
  esac
}

for f in mixed.csv tasks.ndjson; do
  sql "$OUT/$f" > "$OUT/$f.sql"
  for z in gz zst; do
    sql "$OUT/$f.$z" > "$OUT/$f.$z.sql"
    echo "== $f.$z (A) vs $f (B)"
    farm-bench -n "$RUNS" --timeout 900 \
      --vs "sh -c 'rm -f $OUT/b.db; exec sqlite3 $OUT/b.db < $OUT/$f.sql'" \
      -- sh -c "rm -f $OUT/a.db; exec sqlite3 $OUT/a.db < $OUT/$f.$z.sql"
  done
done
