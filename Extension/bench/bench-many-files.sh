#!/usr/bin/env bash
# bench-many-files.sh — many files in one call (issue 22): 100 files of
# 10,000 rows against one file of the same 1,000,000 rows, CSV and NDJSON,
# through the typed tables (INSERT INTO t SELECT * FROM a csv_stream /
# json_stream table whose filename= is a glob, or the one file).
#
#   bash Extension/bench/bench-many-files.sh build/streamqlite.so
#
# Environment: N (rows, default 1000000), FILES (default 100), REPS (runs of
# each variant, alternated, default 5; medians of CPU time, user + system, and
# peak RSS from /usr/bin/time).  Data: build/bench/many/ — the CSV rows are
# csv_bench's mixed rows (Extension/bench/csv_bench.c), split by record into
# FILES files each with the header; the single file is the same records
# written by the same writer, so the bytes differ only by the extra headers.
# The SQL of each variant is left in build/bench/many/*.sql, to be timed by
# other tools: sqlite3 DB < FILE.sql.
set -euo pipefail
cd "$(dirname "$0")/../.."
EXT=${1:-build/streamqlite.so}
EXT=$(cd "$(dirname "$EXT")" && pwd)/$(basename "$EXT" .so)
N=${N:-1000000}
FILES=${FILES:-100}
REPS=${REPS:-5}
OUT=$(pwd)/build/bench/many
SQLITE3=${SQLITE3:-sqlite3}
mkdir -p "$OUT"

CC=${CC:-cc}
$CC -O2 -std=c11 -D_GNU_SOURCE -DSQLITE_CORE -IExtension/src -IExtension/include \
    -o "$OUT/csv_bench" Extension/bench/csv_bench.c Extension/src/sq_csv.c -lsqlite3 -lcsv
"$OUT/csv_bench" gen "$N" "$OUT/gen.csv"

python3 - "$OUT" "$N" "$FILES" <<'PY'
import csv, json, os, sys, glob
out, n, files = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
per = n // files
for d in ("parts", "jparts"):
    os.makedirs(f"{out}/{d}", exist_ok=True)
    for f in glob.glob(f"{out}/{d}/*"): os.remove(f)
with open(f"{out}/gen.csv", newline="", encoding="utf-8") as f:
    rows = csv.reader(f)
    header = next(rows)
    one = open(f"{out}/one.csv", "w", newline="", encoding="utf-8"); w1 = csv.writer(one, lineterminator="\n")
    jone = open(f"{out}/one.ndjson", "w", encoding="utf-8")
    w1.writerow(header)
    part = jpart = None
    for i, r in enumerate(rows):
        if i % per == 0:
            if part: part.close(); jpart.close()
            part = open(f"{out}/parts/part-{i // per:03d}.csv", "w", newline="", encoding="utf-8")
            wp = csv.writer(part, lineterminator="\n"); wp.writerow(header)
            jpart = open(f"{out}/jparts/part-{i // per:03d}.ndjson", "w", encoding="utf-8")
        w1.writerow(r); wp.writerow(r)
        line = json.dumps({"id": int(r[0]), "title": r[1], "done": i % 3 == 0}, ensure_ascii=False) + "\n"
        jone.write(line); jpart.write(line)
    part.close(); jpart.close(); one.close(); jone.close()
PY

SCHEMA="PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;"
COLS="id INTEGER, name TEXT, amount REAL, note TEXT, created_at TEXT, qty INTEGER, active INTEGER, city TEXT"
write_sql(){  # NAME MODULE FILENAME COLUMNS
  cat > "$OUT/$1.sql" <<SQL
.load $EXT
$SCHEMA
CREATE TABLE t($4);
CREATE VIRTUAL TABLE temp.incoming USING $2(filename='$3', columns='$4');
INSERT INTO t SELECT * FROM incoming;
SELECT 'count', count(*) FROM t;
SQL
}
write_sql csv-many csv_stream "$OUT/parts/part-*.csv" "$COLS"
write_sql csv-one csv_stream "$OUT/one.csv" "$COLS"
write_sql json-many json_stream "$OUT/jparts/part-*.ndjson" "id INTEGER, title TEXT, done INTEGER"
write_sql json-one json_stream "$OUT/one.ndjson" "id INTEGER, title TEXT, done INTEGER"

run(){  # NAME -> "cpu_seconds peak_kb"
  local db="$OUT/$1.db"
  rm -f "$db"
  /usr/bin/time -f "CPU %U %S RSS %M" -o "$OUT/time.txt" "$SQLITE3" "$db" < "$OUT/$1.sql" > "$OUT/$1.log" 2>&1
  if ! grep -q "^count|$N\$" "$OUT/$1.log"; then echo "variant $1 failed:" >&2; cat "$OUT/$1.log" >&2; exit 1; fi
  rm -f "$db"
  awk '/CPU/{print $2+$3, $5}' "$OUT/time.txt"
}
median(){ sort -n | awk '{a[NR]=$1} END{print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }

for fmt in csv json; do
  : > "$OUT/$fmt-many.t"; : > "$OUT/$fmt-one.t"; : > "$OUT/$fmt-ratio.t"
  for ((r=0; r<REPS; r++)); do
    read -r a am < <(run "$fmt-many")
    read -r b bm < <(run "$fmt-one")
    echo "$a $am" >> "$OUT/$fmt-many.t"; echo "$b $bm" >> "$OUT/$fmt-one.t"
    python3 -c "print($a/$b)" >> "$OUT/$fmt-ratio.t"
  done
  printf "%-5s %d files of %d rows: CPU %ss, peak %s KB | 1 file of %d rows: CPU %ss, peak %s KB | ratio (pairs) %s\n" \
    "$fmt" "$FILES" $((N / FILES)) "$(cut -d' ' -f1 "$OUT/$fmt-many.t" | median)" "$(cut -d' ' -f2 "$OUT/$fmt-many.t" | median)" \
    "$N" "$(cut -d' ' -f1 "$OUT/$fmt-one.t" | median)" "$(cut -d' ' -f2 "$OUT/$fmt-one.t" | median)" \
    "$(median < "$OUT/$fmt-ratio.t")"
done
