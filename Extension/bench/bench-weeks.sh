#!/usr/bin/env bash
# Locale-week functions against SQLite's built-in strftime (called by `make bench`):
#   bash Extension/bench/bench-weeks.sh build/streamqlite.so [ROWS] [REPEAT] [EXPR...]
# In ONE sqlite3 process, over the same table of ROWS (default 1,000,000)
# dates, times each GROUP BY query REPEAT times (default 5) with `.timer on`
# (interleaved: round after round), then prints the median real time of
# each and its ratio to GROUP BY strftime('%Y-%W', d).  EXPRs (SQL over the
# date column d) replace the default list after the strftime baseline.
set -euo pipefail
ext=${1:-build/streamqlite.so}
rows=${2:-1000000}
repeat=${3:-5}
[ -f "$ext" ] || { echo "bench-weeks.sh: $ext not found" >&2; exit 1; }
ext_abs=$(cd "$(dirname "$ext")" && pwd)/$(basename "$ext" .so)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

names=("strftime('%Y-%W', d)" "locale_week(d, 'en_US')" "locale_week_start(d, 'en_US')"
       "format_date('YYYY-ww', d, 'en_US')" "locale_week(d)" "format_date('EEE YYYY-ww', d, 'en_US')")
if [ $# -gt 3 ]; then names=("${names[0]}" "${@:4}"); fi
{
  echo ".load $ext_abs"
  # dates spread over 2000..2027, in a pseudo-random order
  echo "CREATE TABLE t(d TEXT);"
  echo "INSERT INTO t SELECT date('2000-01-01', '+' || ((value * 7919) % 10220) || ' days') FROM generate_series(1, $rows);"
  echo ".timer on"
  for ((r = 0; r < repeat; r++)); do
    for i in "${!names[@]}"; do
      echo ".print @@ $i"
      echo "SELECT count(*) FROM (SELECT ${names[$i]} AS w, count(*) FROM t GROUP BY w);"
    done
  done
} > "$tmp/bench.sql"

sqlite3 :memory: < "$tmp/bench.sql" > "$tmp/out.txt" 2>&1 || { cat "$tmp/out.txt"; exit 1; }

python3 - "$tmp/out.txt" "$rows" "$repeat" "${names[@]}" <<'PY'
import statistics, sys
path, rows, repeat, names = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4:]
times = {i: [] for i in range(len(names))}
groups = {}
cur = None
for line in open(path):
    if line.startswith("@@ "):
        cur = int(line.split()[1]); continue
    if line.startswith("Run Time:") and cur is not None:
        times[cur].append(float(line.split()[3])); cur = None
    elif cur is not None and line.strip().isdigit():
        groups[cur] = int(line)
base = statistics.median(times[0])
print(f"Locale weeks: GROUP BY over {rows:,} dates, sqlite3 shell, {repeat} runs each, median real time")
print(f"{'GROUP BY expression':42} {'groups':>7} {'median s':>9} {'min s':>7} {'ratio':>6}")
for i, n in enumerate(names):
    m = statistics.median(times[i])
    print(f"{n:42} {groups.get(i, 0):>7} {m:>9.3f} {min(times[i]):>7.3f} {m / base:>5.2f}x")
PY
