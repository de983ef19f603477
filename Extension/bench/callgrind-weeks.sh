#!/usr/bin/env bash
# callgrind-weeks.sh — instructions of the locale-week functions and the
# locale_weeks table, the steering figure for changes to sq_week.c,
# sq_week_core.c and sq_weeks_table.c.
#
#   bash Extension/bench/callgrind-weeks.sh build/streamqlite.so [NAMES...]
#
# Each query is one sqlite3 shell process under valgrind --tool=callgrind
# over 200,000 rows (locale_weeks: 1,879 weeks x 100); it prints the total
# instructions (Ir).  `control` is the same date expression without a week
# function: subtract it for the functions' own share.
set -euo pipefail
ext=${1:-build/streamqlite.so}
shift || true
[ -f "$ext" ] || { echo "callgrind-weeks.sh: $ext not found" >&2; exit 1; }
ext=$(cd "$(dirname "$ext")" && pwd)/$(basename "$ext" .so)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
D="date('2000-01-01', '+' || ((value * 7919) % 10220) || ' days')"
declare -A Q
Q[control]="SELECT count(x) FROM (SELECT $D AS x FROM generate_series(1, 200000));"
Q[week]="SELECT count(x) FROM (SELECT locale_week($D, 'en_US') AS x FROM generate_series(1, 200000));"
Q[week_tz]="SELECT count(x) FROM (SELECT locale_week($D || 'T12:00Z', 'en_US', 'America/New_York') AS x FROM generate_series(1, 200000));"
Q[format]="SELECT count(x) FROM (SELECT format_date('YYYY-ww', $D, 'en_US') AS x FROM generate_series(1, 200000));"
Q[label]="SELECT count(x) FROM (SELECT locale_week_label($D, 'en_US') AS x FROM generate_series(1, 200000));"
Q[parse]="SELECT count(x) FROM (SELECT locale_week_parse(printf('%04d-%02d', 2000 + value % 25, 1 + value % 52), 'en_US') AS x FROM generate_series(1, 200000));"
Q[weeks]="SELECT count(label) FROM generate_series(1, 100) JOIN locale_weeks('1990-01-01', '2025-12-31', 'en_US');"
names=("$@")
[ ${#names[@]} -gt 0 ] || names=(control week week_tz format label parse weeks)
for n in "${names[@]}"; do
  printf '.load %s sqlite3_streamqlite_init\n.bail on\n%s\n' "$ext" "${Q[$n]}" > "$tmp/q.sql"
  valgrind --tool=callgrind --callgrind-out-file="$tmp/cg" sqlite3 :memory: < "$tmp/q.sql" > "$tmp/out" 2> "$tmp/err"
  printf '%-8s %15s  (rows %s)\n' "$n" "$(grep -o 'refs: *[0-9,]*' "$tmp/err" | tr -d ' refs:')" "$(cat "$tmp/out")"
done
