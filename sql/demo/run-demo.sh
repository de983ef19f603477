#!/usr/bin/env bash
# The demo report (README's first command, via `make demo`):
#   bash sql/demo/run-demo.sh build/streamqlite.so
# Creates a sample Usage database spanning the 2010/2011 New Year and prints
# the weekly value-per-visit report as en_US and de_DE count weeks, through
# the real sqlite3 shell with `.load`.
set -euo pipefail
ext=${1:-build/streamqlite.so}
here=$(cd "$(dirname "$0")" && pwd)
[ -f "$ext" ] || { echo "run-demo.sh: $ext not found (run make first)" >&2; exit 1; }
ext_abs=$(cd "$(dirname "$ext")" && pwd)/$(basename "$ext")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
db="$tmp/usage.db"
echo "Demo database: Usage(FacetId, Value, Visits, Date), 2010-12-13 .. 2011-01-23"
sqlite3 -bail "$db" <<SQL
.load ${ext_abs%.so}
.read $here/create-usage.sql
SELECT 'rows: ' || count(*) || ', from ' || min(Date) || ' to ' || max(Date) FROM Usage;
.read $here/weekly-report.sql
.read $here/week-reports.sql
SQL
