# ingest-cases.sh — sourced by the ingest benchmarks (bench-scale.sh, bench-csv.sh,
# bench-compressed.sh, bench-many-files.sh): the data they share, the SQL of each way
# to load it, and the A/B pair runner.  Not a script of its own (`make bench` runs
# bench-*.sh only).
#
# Data (ingest_data DIR N FILES), everything derived from two generated files:
#   mixed.csv      csv_bench gen N: a header and N rows of 8 mixed columns (integers,
#                  reals, quoted text with commas, quotes and line ends, empty fields,
#                  timestamps)
#   tasks.ndjson   N task objects {"id","title","done"}, one a line, and tasks.json the
#                  same as an array: the bytes json_parse_bench gen writes
#   *.gz *.zst     gzip (level 6) and zstd (level 3) of mixed.csv and tasks.ndjson
#   parts/, jparts/  the same records cut into FILES files (each CSV part with the header):
#                  the parts put together are the whole file, byte for byte
#   bad.csv, bad.ndjson  the same records, every 100th with a value strict mode refuses
#                  (qty = bad; "done": "bad"), the rest byte for byte
#   csv-floor.db, tasks-floor.db  a table `mem` holding the same rows, typed (filled
#                  through the typed tables), the source of the floor
#   run_timed      Extension/bench/run_timed.c, the pair runner's launcher
#
# The caller sets EXT (the extension, without .so), SQLITE3 and OUT (the data directory).

SQLITE3=${SQLITE3:-sqlite3}
CSV_COLS='id INTEGER, name TEXT, amount REAL, note TEXT, created_at TEXT, qty INTEGER, active INTEGER, city TEXT'
CSV_TABLE='CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT, amount REAL, note TEXT, created_at TEXT, qty INTEGER, active INTEGER, city TEXT);'
TASK_COLS='id INTEGER, title TEXT, done INTEGER'
TASK_TABLE='CREATE TABLE t(id INTEGER PRIMARY KEY, title TEXT, done INTEGER);'
PRAGMAS='PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;'

# csv_bench_build DIR: Extension/bench/csv_bench.c (it compares sq_csv with libcsv,
# installed here when missing) as DIR/csv_bench.
csv_bench_build(){
  if [ ! -e /usr/include/csv.h ]; then
    echo "installing libcsv-dev (csv_bench's reference reader)" >&2
    if [ "$(id -u)" = 0 ]; then apt-get install -y libcsv-dev >/dev/null
    else sudo apt-get install -y libcsv-dev >/dev/null; fi
  fi
  ${CC:-cc} -O2 -std=c11 -D_GNU_SOURCE -DSQLITE_CORE -IExtension/src -IExtension/include \
      -o "$1/csv_bench" Extension/bench/csv_bench.c Extension/src/sq_csv.c -lsqlite3 -lcsv
}

# gen_tasks N FILE [ndjson]: N tasks, as json_parse_bench gen writes them.
gen_tasks(){
  python3 - "$@" <<'PY'
import sys
n, path, nd = int(sys.argv[1]), sys.argv[2], len(sys.argv) > 3
with open(path, "w") as f:
    f.write("" if nd else "[\n")
    for i in range(1, n + 1):
        t = '{"id":%d,"title":"task %d","done":%s}' % (i, i, "true" if i % 3 == 0 else "false")
        f.write(t + "\n" if nd else (",\n" if i > 1 else "") + t)
    f.write("" if nd else "\n]\n")
PY
}

# split_and_spoil DIR FILES: parts/ and jparts/ (FILES files each) and bad.csv, bad.ndjson
# from DIR/mixed.csv and DIR/tasks.ndjson, record by record, bytes unchanged.
split_and_spoil(){
  python3 - "$@" <<'PY'
import glob, os, re, sys
d, files = sys.argv[1], int(sys.argv[2])
def csv_records(path):          # a record ends at a line end outside quotes
    with open(path, "rb") as f:
        header = f.readline()
        rec, quotes = [], 0
        for line in f:
            rec.append(line); quotes += line.count(b'"')
            if quotes % 2 == 0:
                yield b"".join(rec); rec, quotes = [], 0
    csv_records.header = header
def ndjson_records(path):
    with open(path, "rb") as f:
        yield from f
qty = re.compile(rb',\d+(,\d?,[^,"]*\n)$')
done = re.compile(rb'"done":(true|false)')
for kind, src, sub, spoil in (("csv", "mixed.csv", "parts", lambda r: qty.sub(rb',bad\1', r)),
                              ("ndjson", "tasks.ndjson", "jparts", lambda r: done.sub(b'"done":"bad"', r))):
    recs = list(csv_records(f"{d}/{src}") if kind == "csv" else ndjson_records(f"{d}/{src}"))
    head = csv_records.header if kind == "csv" else b""
    os.makedirs(f"{d}/{sub}", exist_ok=True)
    for f in glob.glob(f"{d}/{sub}/*"): os.remove(f)
    per = -(-len(recs) // files)
    for k in range(0, len(recs), per):
        with open(f"{d}/{sub}/part-{k // per:03d}.{kind}", "wb") as f:
            f.write(head); f.writelines(recs[k:k + per])
    with open(f"{d}/bad.{kind}", "wb") as f:
        f.write(head)
        for i, r in enumerate(recs):
            s = spoil(r) if i % 100 == 99 else r
            assert i % 100 != 99 or s != r, (kind, i)
            f.write(s)
PY
}

# floor_src SOURCE DB: DB's table `mem` holds SOURCE's rows, typed (SOURCE: a CSV or a
# JSON file of tasks), filled through the typed table.
floor_src(){
  local table=$CSV_TABLE
  case $1 in *.csv) ;; *) table=$TASK_TABLE;; esac
  rm -f "$2"
  printf '.load %s\n%s\n%s\nINSERT INTO mem SELECT * FROM incoming;\n' "$EXT" "${table/TABLE t(/TABLE mem(}" \
      "$(typed_table "$1")" | "$SQLITE3" "$2" >/dev/null
}

# ingest_data DIR N FILES: the files above, made when missing (a new N: a new DIR).
ingest_data(){
  local d=$1 n=$2 files=$3 f
  mkdir -p "$d"
  ${CC:-cc} -O2 -o "$d/run_timed" Extension/bench/run_timed.c
  if [ ! -e "$d/mixed.csv" ]; then csv_bench_build "$d"; "$d/csv_bench" gen "$n" "$d/mixed.csv"; fi
  [ -e "$d/tasks.ndjson" ] || gen_tasks "$n" "$d/tasks.ndjson" ndjson
  [ -e "$d/tasks.json" ] || gen_tasks "$n" "$d/tasks.json"
  for f in mixed.csv tasks.ndjson; do
    [ -e "$d/$f.gz" ] || gzip -k "$d/$f"
    [ -e "$d/$f.zst" ] || zstd -q "$d/$f"
  done
  [ -e "$d/bad.ndjson" ] && [ "$(ls "$d/parts" | wc -l)" = "$files" ] || split_and_spoil "$d" "$files"
  floor_src "$d/mixed.csv" "$d/csv-floor.db"
  floor_src "$d/tasks.ndjson" "$d/tasks-floor.db"
}

# typed_table FILE [OPTIONS]: the CREATE VIRTUAL TABLE temp.incoming of FILE (a path or a
# glob; its format from its name) with declared columns, and further table OPTIONS.
typed_table(){
  case $1 in
    *.csv|*.csv.*) printf "CREATE VIRTUAL TABLE temp.incoming USING csv_stream(filename='%s', columns='%s'%s);" "$1" "$CSV_COLS" "${2:+, $2}";;
    *) printf "CREATE VIRTUAL TABLE temp.incoming USING json_stream(filename='%s', columns='%s'%s);" "$1" "$TASK_COLS" "${2:+, $2}";;
  esac
}

# ingest_sql KIND FILE [OPTIONS] > script: a sqlite3 shell script loading FILE (or FLOOR.db)
# into a new table t, journal off, one statement (one transaction), then
# "count|<rows of t>".  KIND: typed (the typed table, OPTIONS its options), import
# (.import --csv), floor (INSERT INTO t SELECT * FROM FILE's table mem WHERE 1: the WHERE
# keeps SQLite from copying the B-tree wholesale, the transfer optimization, so that
# every row is read and inserted one by one as in the other ways).
ingest_sql(){
  local table=$CSV_TABLE
  case $2 in *.csv*|*csv-floor.db) ;; *) table=$TASK_TABLE;; esac
  printf '.load %s\n%s\n%s\n' "$EXT" "$PRAGMAS" "$table"
  case $1 in
    typed) printf '%s\nINSERT INTO t SELECT * FROM incoming;\n' "$(typed_table "$2" "${3:-}")";;
    import) printf '.import --csv --skip 1 %s t\n' "$2";;
    floor) printf "ATTACH '%s' AS src;\nINSERT INTO t SELECT * FROM src.mem WHERE 1;\n" "$2";;
  esac
  echo "SELECT 'count', count(*) FROM t;"
}

# The A/B pair runner.  ab_pair NAME TARGET A EXPECT_A B EXPECT_B: runs the commands A
# and B in turn (WARMUP of each first, not counted; then RUNS pairs), each a whole
# process (run_timed.c: `sh -c "exec COMMAND"`, the kernel's figures; @DB@ in a command
# is a new database file, removed before each run), and appends a line per pair to
# $OUT/pairs.tsv: name, target, A's wall and CPU (user + system, all threads) seconds
# and peak RSS (KiB), then B's.  Each run's output must hold the line EXPECT (its row
# count), else the benchmark stops.
ab_run(){  # COMMAND EXPECT DB -> "wall cpu peak_kib"
  local log=$OUT/run.log r
  rm -f "$3"
  r=$("$OUT/run_timed" "$log" "${1//@DB@/$3}") || true
  rm -f "$3"
  if ! grep -qxF "$2" "$log"; then
    { echo "FAILED (expected the line '$2'): ${1//@DB@/$3}"; head -c 2000 "$log"; } >&2
    return 1
  fi
  echo "$r"
}
ab_pair(){
  local name=$1 target=$2 a=$3 ea=$4 b=$5 eb=$6 i ra rb
  for ((i = 0; i < ${WARMUP:-1}; i++)); do
    ab_run "$a" "$ea" "$OUT/a.db" >/dev/null || return 1
    ab_run "$b" "$eb" "$OUT/b.db" >/dev/null || return 1
  done
  for ((i = 0; i < ${RUNS:-5}; i++)); do
    ra=$(ab_run "$a" "$ea" "$OUT/a.db") || return 1
    rb=$(ab_run "$b" "$eb" "$OUT/b.db") || return 1
    printf '%s\t%s\t%s\t%s\n' "$name" "$target" "${ra// /	}" "${rb// /	}" >> "$OUT/pairs.tsv"
  done
}

# ab_summary: one row per case of $OUT/pairs.tsv: medians of the pair-by-pair ratios A/B
# (wall, with its smallest and largest; CPU), A's median wall and CPU seconds, the peak RSS of A and of B (the
# largest of the runs), the target, and whether the wall and the CPU ratio are within it
# (wall time is the target; CPU time is the steadier figure on a busy machine, and a
# second thread raises it) and A's peak under 30 MB (28.6 MiB).
ab_summary(){
  python3 - "$OUT/pairs.tsv" <<'PY'
import statistics as st, sys
rows = {}
for line in open(sys.argv[1]):
    name, target, *v = line.rstrip("\n").split("\t")
    rows.setdefault((name, target), []).append([float(x) for x in v])
print("| case | A/B wall | (min–max) | A/B cpu | A wall s | A cpu s | peak MiB A / B | target | met? wall, cpu |")
print("|---|---:|---:|---:|---:|---:|---:|---:|---|")
for (name, target), ps in rows.items():
    ratio = lambda a, b: a / b if b > 0 else float("nan")
    walls = [ratio(p[0], p[3]) for p in ps]
    rw = st.median(walls); rc = st.median(ratio(p[1], p[4]) for p in ps)
    pa = max(p[2] for p in ps) / 1024; pb = max(p[5] for p in ps) / 1024
    if target == "-":
        met = "(reference)"
    else:
        met = ", ".join("yes" if r <= float(target) else "no" for r in (rw, rc))
        if pa * 1.048576 >= 30: met += "; peak ≥ 30 MB"
    print(f"| {name} | {rw:.3f} | {min(walls):.2f}–{max(walls):.2f} | {rc:.3f} | {st.median(p[0] for p in ps):.3f} | "
          f"{st.median(p[1] for p in ps):.3f} | {pa:.1f} / {pb:.1f} | "
          f"{'' if target == '-' else '≤ ' + target + '×'} | {met} |")
print(f"\n{len(next(iter(rows.values())))} pairs a case" if rows else "no pairs")
PY
}

# The same cases counted in instructions instead (valgrind callgrind, the whole process,
# all its threads; exact, so one run each), per row: each command on N rows minus the same
# command on the one-row data of $OUT1 (start-up, schema and set-up cancel out), divided
# by N - 1.  Also each process's first thread alone (the calling thread, which inserts:
# with a second core at work, the one the wall time waits for; the floor has no other).  cg_pair NAME TARGET A
# EXPECT_A B EXPECT_B appends name, target and those counts to $OUT/callgrind.tsv;
# cg_summary N prints them per row, and A/B.
cg_run(){  # COMMAND DB EXPECT... -> "instructions first-thread-instructions"
  local log=$OUT/run.log cmd=$1 db=$2 e
  shift 2
  rm -f "$db" "$OUT"/cg.out*
  sh -c "exec valgrind --tool=callgrind --separate-threads=yes --callgrind-out-file=$OUT/cg.out ${cmd//@DB@/$db}" > "$log" 2>&1 || true
  rm -f "$db"
  for e; do grep -qxF "$e" "$log" && {
    echo "$(awk '/refs:/{ gsub(",", "", $NF); print $NF }' "$log") $(awk '/^totals:/{ print $2 }' "$OUT/cg.out-01")"
    rm -f "$OUT"/cg.out*
    return 0
  }; done
  { echo "FAILED (expected the line '$*'): ${cmd//@DB@/$db}"; head -c 2000 "$log"; } >&2
  return 1
}
declare -A CG_SEEN   # command -> its count: a command that is B of several cases runs once
cg_count(){  # VAR COMMAND DB EXPECT...: VAR = cg_run's count, once a command
  if [ -z "${CG_SEEN[$2]:-}" ]; then CG_SEEN[$2]=$(cg_run "${@:2}") || return 1; fi
  printf -v "$1" %s "${CG_SEEN[$2]// /$'\t'}"
}
cg_pair(){
  local a a1 b b1 f
  mkdir -p "$OUT1/sql"
  for f in "$OUT"/sql/*.sql; do sed "s|$OUT/|$OUT1/|g" "$f" > "$OUT1/sql/${f##*/}"; done
  cg_count a "$3" "$OUT/a.db" "$4" || return 1
  cg_count a1 "${3//$OUT\//$OUT1/}" "$OUT/a.db" "count|1" "rows 1 rejects 0" || return 1
  cg_count b "$5" "$OUT/b.db" "$6" || return 1
  cg_count b1 "${5//$OUT\//$OUT1/}" "$OUT/b.db" "count|1" "rows 1 rejects 0" || return 1
  printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$a" "$a1" "$b" "$b1" >> "$OUT/callgrind.tsv"
}
cg_summary(){  # N
  python3 - "$OUT/callgrind.tsv" "$1" <<'PY'
import sys
n = int(sys.argv[2])
print("| case | A instr/row | B instr/row | A/B | target | met? | first threads: A | B | A/B |")
print("|---|---:|---:|---:|---:|---|---:|---:|---:|")
for line in open(sys.argv[1]):
    name, target, a, at, a1, a1t, b, bt, b1, b1t = line.split()
    ra, rb = (int(a) - int(a1)) / (n - 1), (int(b) - int(b1)) / (n - 1)
    ta, tb = (int(at) - int(a1t)) / (n - 1), (int(bt) - int(b1t)) / (n - 1)
    met = "(reference)" if target == "-" else "yes" if ra / rb <= float(target) else "no"
    print(f"| {name} | {ra:,.0f} | {rb:,.0f} | {ra / rb:.3f} | "
          f"{'' if target == '-' else '≤ ' + target + '×'} | {met} | {ta:,.0f} | {tb:,.0f} | {ta / tb:.3f} |")
PY
}
