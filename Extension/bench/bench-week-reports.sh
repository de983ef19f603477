#!/usr/bin/env bash
# The weekly-report scalars against SQLite's strftime('%Y-%W') (called by `make bench`):
#   bash Extension/bench/bench-week-reports.sh build/streamqlite.so [ROWS] [REPEAT]
# The GROUP BY benchmark of bench-weeks.sh (one sqlite3 process, ROWS dates,
# medians and ratios) over each new scalar, then the week series of 100 years
# (locale_weeks with and without labels), median of REPEAT runs.
set -euo pipefail
ext=${1:-build/streamqlite.so}
rows=${2:-1000000}
repeat=${3:-5}
here=$(cd "$(dirname "$0")" && pwd)
bash "$here/bench-weeks.sh" "$ext" "$rows" "$repeat" \
  "locale_week_end(d, 'en_US')" "locale_week_of_month(d, 'en_US')" \
  "locale_week_parse(substr(d, 1, 5) || substr(d, 6, 2), 'en_US')" "substr(d, 1, 5) || substr(d, 6, 2)" \
  "mysql_week(d, 3)" "mysql_yearweek(d, 0)" \
  "fiscal_week(d, 'nrf')" "fiscal_period_start(d, 'nrf')" "fiscal_year(d, '4-4-5, last saturday of december')" \
  "locale_week_label(d, 'en_US')" "locale_week_label(d, 'de_DE', 'UTC', 'long')"

ext_abs=$(cd "$(dirname "$ext")" && pwd)/$(basename "$ext" .so)
{
  echo ".load $ext_abs"
  echo ".timer on"
  for ((r = 0; r < repeat; r++)); do
    echo ".print @@ 0"
    echo "SELECT count(*) FROM locale_weeks('1926-01-01', '2025-12-31', 'en_US');"
    echo ".print @@ 1"
    echo "SELECT count(*), max(label) FROM locale_weeks('1926-01-01', '2025-12-31', 'en_US');"
  done
} | sqlite3 :memory: | python3 -c '
import statistics, sys
times = {0: [], 1: []}
cur = None
for line in sys.stdin:
    if line.startswith("@@ "):
        cur = int(line.split()[1])
    elif line.startswith("Run Time:") and cur is not None:
        times[cur].append(float(line.split()[3]) * 1000)
        cur = None
print("Week series of 100 years (1926..2025, 5,218 weeks), median real time")
for i, what in enumerate(["locale_weeks(...) count(*)", "locale_weeks(...) with labels"]):
    print(f"  {what:34} {statistics.median(times[i]):7.1f} ms")
'
