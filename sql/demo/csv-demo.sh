#!/usr/bin/env bash
# The CSV demo (README, "CSV streaming (SQL)"): a real dataset that a PyPI
# package ships, read with csv_stream and reported by locale week in the
# data's time zone, through the real sqlite3 shell.
#
#   bash sql/demo/csv-demo.sh build/streamqlite.so
#
# Data: seattle-temps.csv of the vega_datasets package (PyPI, 0.9.0, BSD):
# 8,759 hourly temperatures (°F) in Seattle for 2010, as "2010/01/01 00:00"
# wall-clock times.  The package is installed (without its dependencies:
# only the CSV file is read) into the project's venv when missing.
set -euo pipefail
ext=${1:-build/streamqlite.so}
py=${PYTHON:-.venv/bin/python}
[ -f "$ext" ] || { echo "csv-demo.sh: $ext not found (run make first)" >&2; exit 1; }
[ -x "$py" ] || py=python3
ext_abs=$(cd "$(dirname "$ext")" && pwd)/$(basename "$ext")
find_data(){
  "$py" - <<'PY'
import importlib.util, os
spec = importlib.util.find_spec("vega_datasets")    # the package's files, without importing pandas
print(os.path.join(os.path.dirname(spec.origin), "_data", "seattle-temps.csv") if spec else "")
PY
}
csv=$(find_data)
if [ -z "$csv" ] || [ ! -f "$csv" ]; then
  echo "installing vega_datasets 0.9.0 from PyPI (the CSV only, no dependencies)"
  "$py" -m pip install -q --no-deps vega_datasets==0.9.0
  csv=$(find_data)
fi
echo "Data: $csv"
sqlite3 -bail :memory: <<SQL
.load ${ext_abs%.so}
-- Types inferred from the header and the first 1000 records: date TEXT, temp REAL.
CREATE VIRTUAL TABLE temp.raw USING csv_stream(filename='$csv');
SELECT 'columns: ' || group_concat(name || ' ' || type, ', ') FROM pragma_table_info('raw');

-- The times are wall-clock times in Seattle.  Stored as UTC instants: the
-- offset (PST -8, PDT -7) that gives the same wall-clock time back in
-- America/Los_Angeles (format_date converts with ICU's time zone data).
CREATE TABLE temps AS
  WITH t AS (SELECT replace(date, '/', '-') AS local, temp FROM raw)
  SELECT CASE WHEN format_date('yyyy-MM-dd HH:mm', datetime(local, '+8 hours'), 'en_US', 'America/Los_Angeles') = local
              THEN datetime(local, '+8 hours') ELSE datetime(local, '+7 hours') END AS utc,
         local, temp FROM t;
SELECT 'rows: ' || count(*) || ', ' || min(utc) || 'Z .. ' || max(utc) || 'Z' FROM temps;
SELECT 'not a wall-clock time in Seattle: ' || group_concat(local, ', ') || ' (the hour the clocks skipped)'
  FROM temps WHERE format_date('yyyy-MM-dd HH:mm', utc, 'en_US', 'America/Los_Angeles') <> local;

-- Weekly report in the data's time zone: US weeks (Sunday first) and German
-- weeks (Monday first, ISO rules) of the same instants.  2010-01-01 was a
-- Friday: it opens US week 2010-01 but belongs to German week 2009-53.
.headers on
.mode column
SELECT locale_week(utc, 'en_US', 'America/Los_Angeles') AS us_week,
       min(locale_week_start(utc, 'en_US', 'America/Los_Angeles')) AS starts,
       count(*) AS hours, round(avg(temp), 1) AS mean_f, min(temp) AS min_f, max(temp) AS max_f
  FROM temps GROUP BY us_week ORDER BY us_week LIMIT 3;
SELECT locale_week(utc, 'de_DE', 'America/Los_Angeles') AS de_week,
       min(locale_week_start(utc, 'de_DE', 'America/Los_Angeles')) AS starts,
       count(*) AS hours, round(avg(temp), 1) AS mean_f, min(temp) AS min_f, max(temp) AS max_f
  FROM temps GROUP BY de_week ORDER BY de_week LIMIT 3;
-- The warmest US week of the year.
SELECT locale_week(utc, 'en_US', 'America/Los_Angeles') AS us_week, round(avg(temp), 1) AS mean_f
  FROM temps GROUP BY us_week ORDER BY avg(temp) DESC LIMIT 1;
SQL
