-- Weekly-report functions (Extension/src/sq_week.c, sq_calendar.c): the week
-- series, week end, labels, the way back from a key, week of month, MySQL's
-- WEEK() modes, fiscal/retail calendars; values and error messages.
-- Outside oracles: scripts/check-ext-week-report-oracle.py (PyICU: labels,
-- week of month), scripts/check-ext-mysql-oracle.py (MariaDB: modes 0-7).

-- locale_week_end: the last day of the locale week
SELECT locale_week_end('2011-01-05', 'en_US'), locale_week_end('2011-01-05', 'de_DE'), locale_week_end('2011-01-05'), locale_week_end('2011-01-01', 'ar_EG');
-- => 2011-01-08|2011-01-09|2011-01-09|2011-01-07

SELECT locale_week_end('2011-01-02T03:00Z', 'en_US', 'America/New_York'), locale_week_end('2011-01-02T03:00Z', 'en_US');
-- => 2011-01-01|2011-01-08

SELECT locale_week_end('9999-12-31', 'de_DE');
-- error: locale_week_end: has a result out of range (years 0000-9999) for time '9999-12-31'

-- a label names the week's last day: a week that ends in year 10000 has none
SELECT locale_week_label('9999-12-31', 'de_DE');
-- error: locale_week_label: has a result out of range (years 0000-9999) for time '9999-12-31'

SELECT locale_week_label('0000-01-01', 'en_US');
-- error: locale_week_label: has a result out of range (years 0000-9999) for time '0000-01-01'

SELECT locale_week_label('9999-12-24', 'en_US'), locale_week_label('9999-12-26', 'de_DE');
-- => Dec 19 – 25, 9999|20.–26. Dez. 9999

-- locale_week_parse: from a key back to the week's first day
SELECT locale_week_parse('2011-02', 'en_US'), locale_week_parse('2010-52', 'de_DE'), locale_week_parse('2011-W02'), locale_week_parse('2011-W02', 'de_DE'), locale_week_parse('2011-01', 'ar_EG');
-- => 2011-01-02|2010-12-27|2011-01-10|2011-01-10|2011-01-01

SELECT locale_week_parse('2020-53'), locale_week_parse('2020-W53'), locale_week_parse('2011-53', 'en_US');
-- => 2020-12-28|2020-12-28|2011-12-25

-- the inverse of locale_week for every day of 1900..2100 in six week rules
CREATE TABLE days AS WITH RECURSIVE d(x) AS (SELECT julianday('1900-01-01') UNION ALL SELECT x + 1 FROM d WHERE x < julianday('2100-12-31')) SELECT date(x) AS d FROM d;
CREATE TABLE locs(l TEXT);
INSERT INTO locs VALUES ('en_US'), ('de_DE'), ('ar_EG'), ('pt_PT'), ('en_US@fw=mon'), ('de_DE@fw=sat');
SELECT count(*), sum(locale_week_parse(locale_week(d, l), l) = locale_week_start(d, l)), sum(locale_week_end(d, l) = date(locale_week_start(d, l), '+6 days')) FROM days, locs;
-- => 440484|440484|440484

SELECT count(*), sum(locale_week_parse(replace(locale_week(d), '-', '-W')) = locale_week_start(d)) FROM days;
-- => 73414|73414

-- impossible keys are errors, never another week
SELECT locale_week_parse('2011-53', 'de_DE');
-- error: locale_week_parse: no such week in its year: key '2011-53'

SELECT locale_week_parse('2011-00', 'en_US');
-- error: locale_week_parse: no such week in its year: key '2011-00'

SELECT locale_week_parse('2011-54', 'en_US');
-- error: locale_week_parse: no such week in its year: key '2011-54'

SELECT locale_week_parse('2011-W54');
-- error: locale_week_parse: no such week in its year: key '2011-W54'

SELECT locale_week_parse('2011-2', 'en_US');
-- error: locale_week_parse: invalid week key (YYYY-WW, or ISO YYYY-Www) '2011-2'

SELECT locale_week_parse(' 2011-02', 'en_US');
-- error: locale_week_parse: invalid week key (YYYY-WW, or ISO YYYY-Www) ' 2011-02'

SELECT locale_week_parse('2011-w02');
-- error: locale_week_parse: invalid week key (YYYY-WW, or ISO YYYY-Www) '2011-w02'

SELECT locale_week_parse('2011-W02', 'en_US');
-- error: locale_week_parse: ISO week key '2011-W02' with locale 'en_US', whose weeks are not ISO weeks (Monday, 4 days): write YYYY-WW

SELECT locale_week_parse(201102, 'en_US');
-- error: locale_week_parse: key must be TEXT, got integer

SELECT locale_week_parse('0000-01', 'de_DE'), locale_week_parse('9999-52', 'en_US');
-- => 0000-01-03|9999-12-19

SELECT locale_week_parse('0000-01', 'en_US');
-- error: locale_week_parse: week key '0000-01' starts before 0000-01-01

-- other calendars: the key is that calendar's week-year and week, as locale_week writes it
SELECT locale_week('2010-09-05', 'he_IL@calendar=hebrew'), locale_week_parse('5771-01', 'he_IL@calendar=hebrew'), locale_week_parse('1403-02', 'fa_IR@calendar=persian');
-- => 5771-01|2010-09-05|2024-03-23

SELECT locale_week_parse('5771-56', 'he_IL@calendar=hebrew');
-- error: locale_week_parse: no such week in its year: key '5771-56'

SELECT locale_week_parse(NULL, 'en_US') IS NULL, locale_week_parse('2011-02', NULL) IS NULL;
-- => 1|1

-- locale_week_of_month: ICU's W (week 0 holds the days before week 1)
SELECT locale_week_of_month('2011-01-01', 'en_US'), locale_week_of_month('2011-01-02', 'en_US'), locale_week_of_month('2011-01-31', 'en_US');
-- => 1|2|6

SELECT locale_week_of_month('2011-01-01', 'de_DE'), locale_week_of_month('2011-01-03', 'de_DE'), locale_week_of_month('2011-01-31', 'de_DE');
-- => 0|1|5

SELECT locale_week_of_month('2011-05-01T02:00Z', 'en_US', 'America/Los_Angeles'), locale_week_of_month('2011-05-01T02:00Z', 'en_US');
-- => 5|1

-- in another calendar, the week of that calendar's month (2011-01-01 is 25 Tevet 5771)
SELECT locale_week_of_month('2011-01-01', 'he_IL@calendar=hebrew'), locale_week_label('2024-03-25', 'en_US@calendar=persian');
-- => 4|Farvardin 5 – 11, 1403 AP

-- a report in the persian calendar: the series' keys and labels are persian
SELECT week, week_start, label FROM locale_weeks('2024-03-10', '2024-03-24', 'en_US@calendar=persian');
-- => 1402-52|2024-03-10|Esfand 20 – 26, 1402 AP
-- => 1403-01|2024-03-17|Esfand 27, 1402 – Farvardin 4, 1403 AP
-- => 1403-02|2024-03-24|Farvardin 5 – 11, 1403 AP

-- locale_week_label: the week as the locale writes a date interval
SELECT locale_week_label('2011-01-05', 'en_US'), locale_week_label('2011-01-05', 'de_DE'), locale_week_label('2011-01-05', 'fr_FR');
-- => Jan 2 – 8, 2011|3.–9. Jan. 2011|3–9 janv. 2011

SELECT locale_week_label('2011-01-31', 'en_US'), locale_week_label('2010-12-30', 'en_US'), locale_week_label('2010-12-30', 'de_DE');
-- => Jan 30 – Feb 5, 2011|Dec 26, 2010 – Jan 1, 2011|27. Dez. 2010 – 2. Jan. 2011

SELECT locale_week_label('2011-01-31', 'en_US', 'UTC', 'short'), locale_week_label('2011-01-31', 'en_US', 'UTC', 'long'), locale_week_label('2011-01-31', 'de_DE', 'UTC', 'long');
-- => 1/30/2011 – 2/5/2011|January 30 – February 5, 2011|31. Januar – 6. Februar 2011

-- labels are remembered by week: weeks 2048 apart, and weeks before 1970, keep their own
SELECT locale_week_label(column2, 'en_US') FROM (VALUES (1, '2011-01-05'), (2, '2050-04-06'), (3, '2011-01-05'), (4, '1969-12-31'), (5, '1900-01-01'), (6, '1969-12-31'), (7, '1900-01-03')) ORDER BY column1;
-- => Jan 2 – 8, 2011
-- => Apr 3 – 9, 2050
-- => Jan 2 – 8, 2011
-- => Dec 28, 1969 – Jan 3, 1970
-- => Dec 31, 1899 – Jan 6, 1900
-- => Dec 28, 1969 – Jan 3, 1970
-- => Dec 31, 1899 – Jan 6, 1900

SELECT locale_week_label('2011-01-02T03:00Z', 'en_US', 'America/New_York');
-- => Dec 26, 2010 – Jan 1, 2011

SELECT locale_week_label('2011-01-05', 'en_US', 'UTC', 'full');
-- error: locale_week_label: unknown style (short, medium or long) 'full'

SELECT locale_week_label('2011-01-05', 'en_US', 'UTC', 2);
-- error: locale_week_label: style must be TEXT, got integer

SELECT locale_week_label('1582-10-20', 'en_US');
-- error: locale_week_label: cannot label a week before 1583-01-01 (ICU writes earlier days as Julian dates): time '1582-10-20'

-- mysql_week / mysql_yearweek: MySQL's WEEK(d, mode) and YEARWEEK(d, mode)
SELECT mysql_week('2008-02-20'), mysql_week('2008-02-20', 0), mysql_week('2008-02-20', 1), mysql_week('2008-12-31', 1), mysql_yearweek('1987-01-01'), mysql_yearweek('2011-01-01', 3);
-- => 7|7|8|53|198652|201052

SELECT group_concat(mysql_week('2011-01-01', m), ','), group_concat(mysql_yearweek('2011-01-01', m), ',') FROM (SELECT value AS m FROM generate_series(0, 7));
-- => 0,0,52,52,0,0,52,52|201052,201052,201052,201052,201052,201052,201052,201052

SELECT mysql_week('2011-01-01', 8);
-- error: mysql_week: mode out of range (0..7): '8'

SELECT mysql_week('2011-01-01', '1');
-- error: mysql_week: mode must be an INTEGER 0..7, got text

SELECT mysql_yearweek('0000-06-01', 0);
-- error: mysql_yearweek: time before 0001-01-01 (MySQL's year 0 has no leap day): '0000-06-01'

SELECT mysql_week('2011-02-30', 0);
-- error: mysql_week: impossible date '2011-02-30'

-- fiscal calendars: the NRF retail calendar (4-5-4, the year ends on the Saturday
-- nearest January 31, named for the year it begins in, the 53rd week in January).
-- Published NRF 4-5-4 calendar (nrf.com/resources/4-5-4-calendar): fiscal 2006,
-- 2012, 2017, 2023 and 2028 have 53 weeks; fiscal 2023 runs 2023-01-29 .. 2024-02-03,
-- 2024 runs 2024-02-04 .. 2025-02-01 with February 2/4-3/2, March 3/3-4/6, April 4/7-5/4.
SELECT fiscal_year(d, 'nrf'), fiscal_year_start(d, 'nrf'), fiscal_year_end(d, 'nrf'), fiscal_weeks_in_year(d, 'nrf') FROM (SELECT '2006-06-01' AS d UNION ALL SELECT '2012-06-01' UNION ALL SELECT '2017-06-01' UNION ALL SELECT '2022-06-01' UNION ALL SELECT '2023-06-01' UNION ALL SELECT '2024-06-01' UNION ALL SELECT '2025-06-01' UNION ALL SELECT '2028-06-01');
-- => 2006|2006-01-29|2007-02-03|53
-- => 2012|2012-01-29|2013-02-02|53
-- => 2017|2017-01-29|2018-02-03|53
-- => 2022|2022-01-30|2023-01-28|52
-- => 2023|2023-01-29|2024-02-03|53
-- => 2024|2024-02-04|2025-02-01|52
-- => 2025|2025-02-02|2026-01-31|52
-- => 2028|2028-01-30|2029-02-03|53

SELECT fiscal_period_start(d, 'nrf'), fiscal_period_end(d, 'nrf'), fiscal_period(d, 'nrf'), fiscal_quarter(d, 'nrf'), fiscal_week(d, 'nrf'), fiscal_week_of_period(d, 'nrf') FROM (SELECT '2024-02-04' AS d UNION ALL SELECT '2024-03-03' UNION ALL SELECT '2024-04-07' UNION ALL SELECT '2025-02-01' UNION ALL SELECT '2024-02-03');
-- => 2024-02-04|2024-03-02|1|1|1|1
-- => 2024-03-03|2024-04-06|2|1|5|1
-- => 2024-04-07|2024-05-04|3|1|10|1
-- => 2025-01-05|2025-02-01|12|4|52|4
-- => 2023-12-31|2024-02-03|12|4|53|5

-- every day of 1950..2100 in the NRF calendar: weeks and periods tile the year exactly
CREATE TABLE f AS SELECT d, fiscal_year(d, 'nrf') AS y, fiscal_week(d, 'nrf') AS w, fiscal_period(d, 'nrf') AS p, fiscal_week_of_period(d, 'nrf') AS wp, fiscal_year_start(d, 'nrf') AS ys, fiscal_year_end(d, 'nrf') AS ye, fiscal_period_start(d, 'nrf') AS ps, fiscal_period_end(d, 'nrf') AS pe, fiscal_weeks_in_year(d, 'nrf') AS n FROM days WHERE d BETWEEN '1950-02-01' AND '2100-12-31';
SELECT count(*) FROM f WHERE d < ys OR d > ye OR d < ps OR d > pe OR julianday(ye) - julianday(ys) + 1 <> 7 * n OR w <> CAST(julianday(d) - julianday(ys) AS INTEGER) / 7 + 1 OR wp <> CAST(julianday(d) - julianday(ps) AS INTEGER) / 7 + 1 OR y <> CAST(strftime('%Y', ys) AS INTEGER) OR strftime('%w', ye) <> '6' OR abs(julianday(ye) - julianday(strftime('%Y', ye) || '-01-31')) > 3;
-- => 0

SELECT n, count(*) FROM (SELECT y, max(n) AS n FROM f GROUP BY y) GROUP BY n;
-- => 52|124
-- => 53|27

SELECT group_concat(weeks, '-') FROM (SELECT p, count(DISTINCT w) AS weeks FROM f WHERE y = 2023 GROUP BY p ORDER BY p);
-- => 4-5-4-4-5-4-4-5-4-4-5-5

-- other calendars: 4-4-5 ending on the last Saturday of December, the 53rd week in Q1;
-- 5-4-4 ending on the Friday nearest the end of June, named by the end year
SELECT fiscal_year(d, c), fiscal_year_start(d, c), fiscal_year_end(d, c), fiscal_weeks_in_year(d, c), fiscal_period(d, c), fiscal_period_end(d, c) FROM (SELECT '2022-01-28' AS d, '4-4-5, last saturday of december, 53rd week in q1' AS c UNION ALL SELECT '2024-02-03', '4-4-5, last saturday of december, 53rd week in q1' UNION ALL SELECT '2023-07-01', '5-4-4, friday nearest end of june' UNION ALL SELECT '2023-06-30', '5-4-4, fri nearest end of jun');
-- => 2022|2021-12-26|2022-12-31|53|2|2022-02-19
-- => 2024|2023-12-31|2024-12-28|52|2|2024-02-24
-- => 2024|2023-07-01|2024-06-28|52|1|2023-08-04
-- => 2023|2022-07-02|2023-06-30|52|12|2023-06-30

SELECT fiscal_week('2022-12-31T12:00Z', 'nrf', 'Pacific/Kiritimati'), fiscal_week('2022-12-31T12:00Z', 'nrf');
-- => 49|48

SELECT fiscal_year('2024-01-01', ' NRF '), fiscal_year('2024-01-01', '4-5-4, SATURDAY NEAREST END OF JANUARY, named by start year');
-- => 2023|2023

SELECT fiscal_year('2024-01-01', '4-5-4');
-- error: fiscal_year: invalid calendar '4-5-4': no year end ('last saturday of january' or 'saturday nearest end of january') in '4-5-4'

SELECT fiscal_week('2024-01-01', 'last saturday of january');
-- error: fiscal_week: invalid calendar 'last saturday of january': no pattern (4-5-4, 4-4-5 or 5-4-4) in 'last saturday of january'

SELECT fiscal_period('2024-01-01', '4-5-4, last saturday of january, fiscal');
-- error: fiscal_period: invalid calendar '4-5-4, last saturday of january, fiscal': unknown part 'fiscal'

SELECT fiscal_period('2024-01-01', '4-5-5, last saturday of january');
-- error: fiscal_period: invalid calendar '4-5-5, last saturday of january': unknown pattern (4-5-4, 4-4-5 or 5-4-4) '4-5-5'

SELECT fiscal_period('2024-01-01', '4-5-4, last saturday of janvier');
-- error: fiscal_period: invalid calendar '4-5-4, last saturday of janvier': unknown month 'janvier'

SELECT fiscal_period('2024-01-01', '4-5-4, last caturday of january');
-- error: fiscal_period: invalid calendar '4-5-4, last caturday of january': unknown weekday 'caturday'

SELECT fiscal_period('2024-01-01', '4-5-4, last saturday of january, 53rd week in q5');
-- error: fiscal_period: invalid calendar '4-5-4, last saturday of january, 53rd week in q5': unknown quarter (q1..q4) 'q5'

SELECT fiscal_period('2024-01-01', '4-5-4, last saturday of january, 4-4-5');
-- error: fiscal_period: invalid calendar '4-5-4, last saturday of january, 4-4-5': a second pattern '4-4-5'

SELECT fiscal_period('2024-01-01', '4-5-4,, last saturday of january');
-- error: fiscal_period: invalid calendar '4-5-4,, last saturday of january': empty part in

SELECT fiscal_period('2024-01-01', 'nrf', 'Mars/Olympus');
-- error: fiscal_period: unknown time zone 'Mars/Olympus'

SELECT fiscal_year_end('2024-01-01', 7);
-- error: fiscal_year_end: calendar must be TEXT, got integer

SELECT fiscal_year_end('9999-06-01', 'nrf');
-- error: fiscal_year_end: has a result out of range (years 0000-9999) for time '9999-06-01'

SELECT fiscal_year(NULL, 'nrf') IS NULL, fiscal_year('2024-01-01', NULL) IS NULL;
-- => 1|1

-- locale_weeks: every week between two times, to LEFT JOIN a report onto
SELECT * FROM locale_weeks('2010-12-20', '2011-01-16', 'en_US');
-- => 2010-52|2010-12-19|2010-12-25|Dec 19 – 25, 2010
-- => 2011-01|2010-12-26|2011-01-01|Dec 26, 2010 – Jan 1, 2011
-- => 2011-02|2011-01-02|2011-01-08|Jan 2 – 8, 2011
-- => 2011-03|2011-01-09|2011-01-15|Jan 9 – 15, 2011
-- => 2011-04|2011-01-16|2011-01-22|Jan 16 – 22, 2011

SELECT week, label FROM locale_weeks('2010-12-20', '2011-01-16', 'de_DE', 'UTC', 'long');
-- => 2010-51|20.–26. Dezember 2010
-- => 2010-52|27. Dezember 2010 – 2. Januar 2011
-- => 2011-01|3.–9. Januar 2011
-- => 2011-02|10.–16. Januar 2011

SELECT week FROM locale_weeks WHERE start_time = '2011-01-02T03:00Z' AND end_time = '2011-01-02T04:00Z' AND locale = 'en_US' AND tz = 'America/New_York';
-- => 2011-01

-- arguments from another table: one series per row
CREATE TABLE ranges(a TEXT, b TEXT, l TEXT);
INSERT INTO ranges VALUES ('2011-01-01', '2011-01-10', 'en_US'), ('2011-01-01', '2011-01-10', 'de_DE');
SELECT r.l, w.week FROM ranges AS r, locale_weeks(r.a, r.b, r.l) AS w ORDER BY r.l, w.week;
-- => de_DE|2010-52
-- => de_DE|2011-01
-- => de_DE|2011-02
-- => en_US|2011-01
-- => en_US|2011-02
-- => en_US|2011-03

CREATE TABLE sales(d TEXT, amount INT);
INSERT INTO sales VALUES ('2011-01-03', 10), ('2011-01-05', 5), ('2011-01-20', 7);
SELECT w.week, w.label, coalesce(sum(s.amount), 0) FROM locale_weeks('2011-01-01', '2011-01-31', 'en_US') AS w LEFT JOIN sales AS s ON locale_week(s.d, 'en_US') = w.week GROUP BY w.week ORDER BY w.week;
-- => 2011-01|Dec 26, 2010 – Jan 1, 2011|0
-- => 2011-02|Jan 2 – 8, 2011|15
-- => 2011-03|Jan 9 – 15, 2011|0
-- => 2011-04|Jan 16 – 22, 2011|7
-- => 2011-05|Jan 23 – 29, 2011|0
-- => 2011-06|Jan 30 – Feb 5, 2011|0

-- the whole range of years, every week once and in order, without labels
SELECT count(*), min(week_start), max(week_end), count(DISTINCT week), sum(julianday(week_end) - julianday(week_start) = 6) FROM locale_weeks('1583-01-01', '9999-12-25', 'en_US');
-- => 439178|1582-12-26|9999-12-25|439178|439178

-- the series of the 1900s is the weeks of its days: the same keys, first and last days
CREATE TABLE s AS SELECT * FROM locale_weeks('1900-01-01', '1999-12-31', 'de_DE');
CREATE UNIQUE INDEX s_start ON s(week_start);
SELECT (SELECT count(*) FROM s), count(DISTINCT locale_week(d, 'de_DE')), sum(NOT EXISTS (SELECT 1 FROM s WHERE s.week_start = locale_week_start(d, 'de_DE') AND s.week = locale_week(d, 'de_DE') AND s.week_end = locale_week_end(d, 'de_DE'))) FROM days WHERE d BETWEEN '1900-01-01' AND '1999-12-31';
-- => 5218|5218|0

SELECT count(*) FROM locale_weeks('2011-01-02', '2011-01-01', 'en_US');
-- error: locale_weeks: end_time is before start_time: end_time '2011-01-01'

SELECT count(*) FROM locale_weeks('2011-01-02', '2011-02-01');
-- error: locale_weeks: needs start_time, end_time and locale (then tz, then style)

SELECT count(*) FROM locale_weeks('2011-01-02', '2011-02-01', 'xx_YY');
-- error: locale_weeks: unknown locale 'xx_YY'

SELECT count(*) FROM locale_weeks('2011-01-02', NULL, 'en_US');
-- error: locale_weeks: end_time is NULL

SELECT count(*) FROM locale_weeks('2011-02-30', '2011-03-01', 'en_US');
-- error: locale_weeks: start_time: impossible date '2011-02-30'

SELECT count(*) FROM locale_weeks('2011-01-01', '2011-03-01', 'en_US', 'Mars/Olympus');
-- error: locale_weeks: unknown time zone 'Mars/Olympus'

SELECT label FROM locale_weeks('1582-12-20', '1583-01-01', 'en_US');
-- error: locale_weeks: cannot label a week before 1583-01-01 (ICU writes earlier days as Julian dates): time '1582-12-20'

SELECT fiscal_year('2024-01-01', 'nrf' || char(233));
-- error: fiscal_year: invalid calendar 'nrfé': unexpected byte 0xC3 at byte 4

-- wrong types
SELECT fiscal_week(x'00', 'nrf');
-- error: fiscal_week: time must be TEXT or a number (a Julian day, or Unix seconds), got blob

SELECT * FROM locale_weeks(x'00', '2011-01-01', 'en_US');
-- error: locale_weeks: start_time: time must be TEXT or a number (a Julian day, or Unix seconds), got blob

SELECT * FROM locale_weeks('2011-01-01', '2011-13-01', 'en_US');
-- error: locale_weeks: end_time: impossible date '2011-13-01'

-- a series whose last week passes 9999-12-31 blames the end, and gives no row
SELECT count(*) FROM locale_weeks('9999-12-20', '9999-12-31', 'en_US');
-- error: locale_weeks: end_time: its week ends after 9999-12-31 (years 0000-9999): time '9999-12-31'

SELECT count(*) FROM locale_weeks('0000-01-01', '0000-02-01', 'en_US');
-- error: locale_weeks: start_time: its week starts before 0000-01-01 (years 0000-9999): time '0000-01-01'

SELECT * FROM locale_weeks('2011-01-01', '9999-12-31T23:00Z', 'en_US', 'Asia/Tokyo');
-- error: locale_weeks: end_time: time '9999-12-31T23:00Z' is out of range (years 0000-9999) in time zone 'Asia/Tokyo'

SELECT mysql_week('2011-01-01', 1.5);
-- error: mysql_week: mode must be an INTEGER 0..7, got real

SELECT locale_week_of_month('2011-01-01', 5);
-- error: locale_week_of_month: locale must be TEXT, got integer

-- named by start year: the calendar year of the fiscal year's first day (NRF's wording), for
-- a year starting on 1 January as for one starting in the last days of December
SELECT fiscal_year('2023-06-01', '4-4-5, last saturday of december, named by start year'), fiscal_year_start('2023-06-01', '4-4-5, last saturday of december');
-- => 2023|2023-01-01
SELECT fiscal_year('2022-06-01', '4-4-5, last saturday of december, named by start year'), fiscal_year_start('2022-06-01', '4-4-5, last saturday of december');
-- => 2021|2021-12-26
SELECT fiscal_year('2023-06-01', '4-4-5, last saturday of december'), fiscal_year('2023-06-01', 'nrf'), fiscal_year('2024-01-15', 'nrf');
-- => 2023|2023|2023

-- where MySQL's exact results stop (docs/sql/weeks-reports.md): a number is a time as this
-- extension reads one (Unix seconds here, where MySQL reads YYYYMMDD), an offset moves the day
SELECT mysql_week(20110102, 0), mysql_week('2011-01-02', 0), mysql_week('2011-01-01 23:00:00-05:00', 0), mysql_week('2011-01-01 23:00:00', 0);
-- => 33|1|1|0
