-- Week functions with a time zone (BENCHMARKS.md, "Locale weeks"):
--   sqlite3 :memory: -cmd '.load build/streamqlite' < Extension/bench/bench-weeks-tz.sql
CREATE TABLE t AS SELECT strftime('%Y-%m-%dT%H:%M:%SZ', 946684800 + (value * 7919 * 1013) % 883612800, 'unixepoch') AS d FROM generate_series(1, 1000000);
.timer on
SELECT count(*) FROM (SELECT locale_week(d, 'en_US', 'America/New_York') w FROM t GROUP BY w);
SELECT count(*) FROM (SELECT locale_week(d, 'en_US', 'America/New_York') w FROM t GROUP BY w);
SELECT count(*) FROM (SELECT locale_week(d, 'en_US', 'America/New_York') w FROM t GROUP BY w);
SELECT count(*) FROM (SELECT format_date('yyyy-MM-dd HH:mm', d, 'en_US', 'Europe/Berlin') w FROM t GROUP BY w);
SELECT count(*) FROM (SELECT format_date('yyyy-MM-dd HH:mm', d, 'en_US', 'Europe/Berlin') w FROM t GROUP BY w);
SELECT count(*) FROM (SELECT strftime('%Y-%W', d) w FROM t GROUP BY w);
