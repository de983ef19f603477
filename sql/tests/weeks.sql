-- Locale-week functions (Extension/src/sq_week.c): values and error messages.

-- The issue's example: Sunday 2011-01-02 is US week 2, ISO/German week 2010-52.
SELECT locale_week('2011-01-02', 'en_US'), locale_week('2011-01-02', 'de_DE'), locale_week('2011-01-02');
-- => 2011-02|2010-52|2010-52

-- without a locale, locale_week agrees with ISO 8601 (strftime %G-%V where available)
SELECT locale_week('2021-01-03'), locale_week('2020-12-31'), locale_week('2026-12-31'), locale_week('2027-01-01');
-- => 2020-53|2020-53|2026-53|2026-53

SELECT locale_week_start('2011-01-05', 'en_US'), locale_week_start('2011-01-05', 'de_DE'), locale_week_start('2011-01-05');
-- => 2011-01-02|2011-01-03|2011-01-03

SELECT locale_week_start('2011-01-01', 'ar_EG'), locale_week_start('2011-01-06', 'ar_EG');
-- => 2011-01-01|2011-01-01

SELECT locale_week_number('2011-01-02', 'en_US'), locale_week_year('2011-01-02', 'en_US');
-- => 2|2011

SELECT locale_week_number('2011-01-01', 'de_DE'), locale_week_year('2011-01-01', 'de_DE');
-- => 52|2010

SELECT typeof(locale_week_number('2011-01-02', 'en_US')), typeof(locale_week_year('2011-01-02', 'en_US')), typeof(locale_weekday('2011-01-02', 'en_US'));
-- => integer|integer|integer

-- weekday 1 is the locale's first day: Sunday in the US, Monday in Germany, Saturday in Egypt
SELECT locale_weekday('2011-01-02', 'en_US'), locale_weekday('2011-01-02', 'de_DE'), locale_weekday('2011-01-02', 'ar_EG');
-- => 1|7|2

SELECT locale_week_rules('en_US');
-- => {"first_day":"sunday","min_days":1}

SELECT locale_week_rules('de_DE'), locale_week_rules('ar_EG'), locale_week_rules('pt_PT');
-- => {"first_day":"monday","min_days":4}|{"first_day":"saturday","min_days":1}|{"first_day":"sunday","min_days":4}

SELECT json_extract(locale_week_rules('fr_FR'), '$.first_day'), json_extract(locale_week_rules('fr_FR'), '$.min_days');
-- => monday|4

-- BCP 47 tags are accepted and mean the same as the POSIX ids
SELECT locale_week('2011-01-02', 'en-US'), locale_week_rules('ar-EG'), locale_week('2011-01-02', 'de-DE');
-- => 2011-02|{"first_day":"saturday","min_days":1}|2010-52

-- scripts and case-insensitive ids
SELECT locale_week_rules('zh_Hant_TW'), locale_week_rules('zh-Hant-TW'), locale_week('2011-01-02', 'EN_us');
-- => {"first_day":"sunday","min_days":1}|{"first_day":"sunday","min_days":1}|2011-02

-- fw keyword: first weekday override (ICU 72 ignores it; the extension applies it)
SELECT locale_week('2011-01-02', 'en_US@fw=mon'), locale_week('2011-01-02', 'en-US-u-fw-mon'), locale_week_rules('en_US@fw=mon');
-- => 2011-01|2011-01|{"first_day":"monday","min_days":1}

SELECT locale_weekday('2011-01-02', 'en_US@fw=mon'), locale_week_start('2011-01-05', 'de_DE@fw=sun');
-- => 7|2011-01-02

-- rg keyword: region override takes the week data of that region
SELECT locale_week_rules('en_US@rg=gbzzzz'), locale_week_rules('en-US-u-rg-gbzzzz'), locale_week('2011-01-02', 'en_US@rg=gbzzzz');
-- => {"first_day":"monday","min_days":4}|{"first_day":"monday","min_days":4}|2010-52

-- Gregorian whatever the locale: th_TH defaults to the Buddhist calendar in ICU
SELECT locale_week('2011-01-02', 'th_TH'), format_date('y', '2011-01-02', 'th_TH'), format_date('y G', '2011-01-02', 'th_TH@calendar=gregorian');
-- => 2011-02|2011|2011 ค.ศ.

-- an explicit @calendar (or -u-ca-) is honoured: ICU computes weeks in that calendar
SELECT format_date('y G', '2011-01-02', 'th_TH@calendar=buddhist'), format_date('y G', '2011-01-02', 'th-TH-u-ca-buddhist'), locale_week_start('2011-01-05', 'th_TH@calendar=buddhist');
-- => 2554 พ.ศ.|2554 พ.ศ.|2011-01-02

SELECT locale_week('2011-01-02', 'he_IL@calendar=hebrew'), locale_week_year('2011-01-02', 'he_IL@calendar=hebrew'), format_date('d MMMM y', '2011-01-02', 'he_IL@calendar=hebrew');
-- => 5771-18|5771|26 טבת 5771

SELECT locale_week('2011-01-02', 'ja_JP@calendar=japanese'), format_date('GGGG y年', '2011-01-02', 'ja_JP@calendar=japanese');
-- => 2011-02|平成 23年

-- calendar=iso8601: Gregorian with ISO week rules
SELECT locale_week_rules('en_US@calendar=iso8601'), locale_week('2011-01-02', 'en_US@calendar=iso8601'), format_date('YYYY-ww', '2011-01-02', 'en_US@calendar=iso8601');
-- => {"first_day":"monday","min_days":4}|2010-52|2010-52

-- the week functions agree with ICU's own YYYY-ww in a non-Gregorian calendar
WITH RECURSIVE s(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM s WHERE n < 800)
SELECT count(*) FROM s WHERE locale_week(date('2010-01-01', '+' || n || ' days'), 'he_IL@calendar=hebrew')
   <> format_date('YYYY-ww', date('2010-01-01', '+' || n || ' days'), 'he_IL@calendar=hebrew;numbers=latn');
-- => 0

-- time forms SQLite accepts
SELECT locale_week('2011-01-02 12:00', 'en_US'), locale_week('2011-01-02T12:00:30', 'en_US'), locale_week('2011-01-02 12:00:30.125', 'en_US');
-- => 2011-02|2011-02|2011-02

SELECT locale_week('  2011-01-02  ', 'en_US'), locale_week('2011-01-02 23:59:59.999Z', 'en_US'), locale_week('12:00', 'en_US');
-- => 2011-02|2011-02|2000-01

-- Julian day numbers: REAL, INTEGER and numeric text (2455563.5 = 2011-01-02T00:00Z)
SELECT locale_week(2455563.5, 'en_US'), locale_week(2455563, 'en_US'), locale_week('2455563.5', 'en_US'), locale_week_start(julianday('2011-01-05'), 'en_US');
-- => 2011-02|2011-01|2011-02|2011-01-02

-- an offset moves a timestamp into UTC first
SELECT locale_week_start('2011-01-01T23:00-05:00', 'en_US'), locale_week_start('2011-01-02T01:00+02:00', 'en_US');
-- => 2011-01-02|2010-12-26

-- time zones: 2011-01-02T03:00Z is still Saturday Jan 1 in New York
SELECT locale_week('2011-01-02T03:00Z', 'en_US', 'America/New_York'), locale_week('2011-01-02T03:00Z', 'en_US'), locale_weekday('2011-01-02T03:00Z', 'en_US', 'America/New_York');
-- => 2011-01|2011-02|7

SELECT locale_week_start('2011-01-01T20:00Z', 'en_US', 'Asia/Tokyo'), locale_week_start('2011-01-01T20:00Z', 'en_US', 'UTC');
-- => 2011-01-02|2010-12-26

-- a calendar date is never shifted by tz
SELECT locale_week('2011-01-02', 'en_US', 'America/New_York'), locale_week('2011-01-02', 'en_US', 'Pacific/Kiritimati');
-- => 2011-02|2011-02

-- DST: 2021-03-14T06:30Z is 01:30 EST, 2021-11-07T05:30Z is 01:30 EDT->EST
SELECT format_date('yyyy-MM-dd HH:mm', '2021-03-14T06:30Z', 'en_US', 'America/New_York'), format_date('yyyy-MM-dd HH:mm', '2021-03-14T07:30Z', 'en_US', 'America/New_York');
-- => 2021-03-14 01:30|2021-03-14 03:30

-- zone rules come from the system's tzdata, not ICU's older copy (ICU 72: Egypt without DST
-- since 2023, Mexico with DST after 2022): Cairo was UTC+3, Mexico City UTC-6 in summer 2023
SELECT format_date('yyyy-MM-dd HH:mm EEE', '2023-06-03T21:30Z', 'en_US', 'Africa/Cairo'), locale_week_start('2023-06-03T21:30Z', 'en_US', 'Africa/Cairo'), locale_weekday('2023-06-03T21:30Z', 'en_US', 'Africa/Cairo'), locale_week('2023-06-03T21:30Z', 'en_US', 'Africa/Cairo');
-- => 2023-06-04 00:30 Sun|2023-06-04|1|2023-23

SELECT format_date('yyyy-MM-dd HH:mm', '2023-07-02T05:30Z', 'en_US', 'America/Mexico_City'), locale_week('2023-07-02T05:30Z', 'en_US', 'America/Mexico_City'), locale_week_number('2023-07-02T05:30Z', 'en_US', 'America/Mexico_City');
-- => 2023-07-01 23:30|2023-26|26

-- format_date with tz: timestamps are converted, dates are not shifted (both paths)
SELECT format_date('YYYY-ww', '2011-01-02T03:00Z', 'en_US', 'America/New_York'), format_date('YYYY-ww EEE', '2011-01-02T03:00Z', 'en_US', 'America/New_York');
-- => 2011-01|2011-01 Sat

SELECT format_date('yyyy-MM-dd HH', '2011-01-02', 'en_US', 'Pacific/Kiritimati'), format_date('yyyy-MM-dd', '2011-01-02', 'en_US', 'Pacific/Kiritimati');
-- => 2011-01-02 00|2011-01-02

-- a date before 1582 with a tz stays proleptic Gregorian on the ICU path too; a Hebrew formatter with a tz
SELECT format_date('yyyy-MM-dd EEEE HH', '1500-03-01', 'en_US', 'Europe/Berlin'), format_date('d MMMM y', '2011-01-02', 'he_IL@calendar=hebrew', 'Asia/Jerusalem');
-- => 1500-03-01 Thursday 00|26 טבת 5771

-- midnight does not exist on 2018-11-04 in Sao Paulo (DST): the date stays that day
SELECT format_date('yyyy-MM-dd EEE', '2018-11-04', 'pt_BR', 'America/Sao_Paulo'), locale_week('2018-11-04', 'pt_BR', 'America/Sao_Paulo');
-- => 2018-11-04 dom.|2018-45

-- format_date: the classic example, ICU patterns, names per locale
SELECT format_date('YYYY-ww', '2011-01-02', 'en_US'), format_date('YYYY-ww', '2011-01-02', 'de_DE'), format_date('YYYY-ww', '2011-01-02');
-- => 2011-02|2010-52|2010-52

SELECT format_date('EEEE, d. MMMM y', '2011-01-02', 'de_DE'), format_date('EEEE d MMMM y', '2011-01-02', 'fr_FR'), format_date('MMM d, y', '2011-01-02', 'en_US');
-- => Sonntag, 2. Januar 2011|dimanche 2 janvier 2011|Jan 2, 2011

SELECT format_date('YYYY-ww', '2011-01-02', 'ar_EG'), format_date('yyyy-MM-dd', '2011-01-02', 'ar_EG@numbers=latn');
-- => ٢٠١١-٠١|2011-01-02

SELECT format_date('''week'' w ''of'' Y', '2011-01-02', 'en_US'), format_date('yy/M/d e D', '2011-01-02', 'en_US'), format_date('''it''''s'' y', '2011-01-02', 'en_US');
-- => week 2 of 2011|11/1/2 1 2|it's 2011

SELECT format_date('YYYY-ww', '2011-01-02', 'en_US@fw=mon'), format_date('YYYY-ww HH', '2011-01-02', 'en_US@fw=mon'), format_date('e EEEE', '2011-01-02', 'en_US@fw=mon');
-- => 2011-01|2011-01 00|7 Sunday

-- the fast numeric path and ICU agree (HH forces ICU); proleptic Gregorian before 1582
SELECT format_date('yyyy-MM-dd', '1500-03-01', 'en_US'), format_date('yyyy-MM-dd HH', '1500-03-01', 'en_US'), format_date('EEEE', '1500-03-01', 'en_US'), locale_weekday('1500-03-01', 'en_US');
-- => 1500-03-01|1500-03-01 00|Thursday|5

SELECT format_date('YYYY-ww D', '0001-01-01', 'en_US'), format_date('YYYY-ww D HH', '0001-01-01', 'en_US');
-- => 0001-01 1|0001-01 1 00

-- NULL in any argument gives NULL
SELECT locale_week(NULL) IS NULL, locale_week(NULL, 'en_US') IS NULL, locale_week('2011-01-02', NULL) IS NULL, locale_week('2011-01-02', 'en_US', NULL) IS NULL;
-- => 1|1|1|1

SELECT locale_week_start(NULL, 'en_US') IS NULL, locale_week_number('x', NULL) IS NULL, locale_week_year(NULL, 'bad') IS NULL, locale_weekday('2011-01-02', 'en_US', NULL) IS NULL;
-- => 1|1|1|1

SELECT locale_week_rules(NULL) IS NULL, format_date(NULL, '2011-01-02') IS NULL, format_date('y', NULL) IS NULL, format_date('y', '2011-01-02', NULL) IS NULL, format_date('y', '2011-01-02', 'en_US', NULL) IS NULL;
-- => 1|1|1|1|1

-- errors: locale
SELECT locale_week('2011-01-02', 'xx_YY');
-- error: locale_week: unknown locale 'xx_YY'

SELECT locale_week('2011-01-02', 'english');
-- error: locale_week: ill-formed locale 'english'

SELECT locale_week('2011-01-02', 'en_QQ');
-- error: locale_week: unknown locale 'en_QQ'

SELECT locale_week('2011-01-02', 'en-');
-- error: locale_week: ill-formed locale 'en-'

SELECT locale_week('2011-01-02', '');
-- error: locale_week: ill-formed locale ''

-- also after the no-locale (ISO) entry is cached in the same statement
SELECT locale_week('2011-01-02'), locale_week('2011-01-02', '');
-- error: locale_week: ill-formed locale ''

SELECT locale_week_rules('root');
-- error: locale_week_rules: ill-formed locale 'root'

SELECT locale_week_rules('en_US@fw=xyz');
-- error: locale_week_rules: invalid keyword value in locale 'en_US@fw=xyz'

SELECT locale_week_rules('en_US@rg=qqzzzz');
-- error: locale_week_rules: invalid keyword value in locale 'en_US@rg=qqzzzz'

SELECT locale_week('2011-01-02', 'th_TH@calendar=marsian');
-- error: locale_week: unknown calendar in locale 'th_TH@calendar=marsian'

SELECT locale_week('2011-01-02', 5);
-- error: locale_week: locale must be TEXT, got integer

SELECT locale_weekday('2011-01-02', x'656e');
-- error: locale_weekday: locale must be TEXT, got blob

-- errors: time
SELECT locale_week('2011-02-30', 'en_US');
-- error: locale_week: impossible date '2011-02-30'

SELECT locale_week('2011-02-29');
-- error: locale_week: impossible date '2011-02-29'

SELECT locale_week_number('2011-13-01', 'en_US');
-- error: locale_week_number: impossible date '2011-13-01'

SELECT locale_week('2011-1-2', 'en_US');
-- error: locale_week: invalid time '2011-1-2'

SELECT locale_week('2011-01-02 25:00', 'en_US');
-- error: locale_week: invalid time '2011-01-02 25:00'

SELECT locale_week('2011-01-02Z', 'en_US');
-- error: locale_week: invalid time '2011-01-02Z'

SELECT locale_week('2011-01-02 10:00+5', 'en_US');
-- error: locale_week: invalid time '2011-01-02 10:00+5'

SELECT locale_week('yesterday', 'en_US');
-- error: locale_week: invalid time 'yesterday'

SELECT locale_week('now', 'en_US');
-- error: locale_week: non-deterministic time (pass a value) 'now'

SELECT locale_week_start(x'00', 'en_US');
-- error: locale_week_start: time must be TEXT or a number (a Julian day, or Unix seconds), got blob

-- a stored number is an instant by SQLite's 'auto' rule, as Swift reads it: a Julian
-- day from 0 to 5373484.5, else Unix seconds (-1.5 is 1969-12-31T23:59:58.5Z)
SELECT locale_week(2455563.5, 'en_US'), locale_week(1293926400, 'en_US'), locale_week(-1.5, 'en_US'),
       locale_week_start(1293926400.0, 'de_DE');
-- => 2011-02|2011-02|1970-01|2010-12-27
SELECT locale_week(1000000, 'en_US');
-- error: locale_week: time out of range (years 0000-9999; a number is a Julian day from 0 to 5373484.5, else Unix seconds) '1000000'
SELECT locale_week(253402300800, 'en_US');
-- error: locale_week: time out of range (years 0000-9999; a number is a Julian day from 0 to 5373484.5, else Unix seconds) '253402300800'

SELECT locale_week_year('2011-02-29 10:00', 'en_US');
-- error: locale_week_year: impossible date '2011-02-29 10:00'

-- errors: time zone
SELECT locale_week('2011-01-02T03:00Z', 'en_US', 'Mars/Olympus');
-- error: locale_week: unknown time zone 'Mars/Olympus'

SELECT locale_week('2011-01-02T03:00Z', 'en_US', '');
-- error: locale_week: unknown time zone ''

SELECT locale_week('2011-01-02T03:00Z', 'en_US', 3);
-- error: locale_week: tz must be TEXT, got integer

-- errors: pattern
SELECT format_date('YYYY-ww-''', '2011-01-02', 'en_US');
-- error: format_date: invalid pattern 'YYYY-ww-''

SELECT format_date('YYYY-jj', '2011-01-02', 'en_US');
-- error: format_date: invalid pattern 'YYYY-jj'

SELECT format_date(7, '2011-01-02', 'en_US');
-- error: format_date: pattern must be TEXT, got integer

SELECT format_date('y', '2011-01-02', 'xx_YY');
-- error: format_date: unknown locale 'xx_YY'

-- wrong number of arguments is SQLite's own error
SELECT locale_week_number('2011-01-02');
-- error: wrong number of arguments to function locale_week_number()

-- registered deterministic: usable in an index expression and a generated column
CREATE TABLE u(d TEXT, w TEXT GENERATED ALWAYS AS (locale_week(d, 'en_US')) VIRTUAL);
CREATE INDEX u_week ON u(locale_week_start(d, 'de_DE'));
-- (Friday 2010-12-31 is in US week 2011-01: that week holds Jan 1)
INSERT INTO u(d) VALUES ('2010-12-31'), ('2011-01-01'), ('2011-01-02'), ('2011-01-09');
SELECT w, count(*) FROM u GROUP BY w ORDER BY w;
-- => 2011-01|2
-- => 2011-02|1
-- => 2011-03|1

-- the cache handles many locales / zones / patterns in one statement (more than it holds)
WITH l(loc) AS (VALUES ('en_US'),('de_DE'),('fr_FR'),('ar_EG'),('ja_JP'),('pt_PT'),('tr_TR'),('ru_RU'),('en_GB'),('he_IL'),('fa_IR'),('nl_NL'),('vi_VN'),('pt_BR'),('es_ES'),('it_IT'),('pl_PL'),('sv_SE'),('en_US@fw=mon'),('de-AT'))
SELECT group_concat(locale_week('2011-01-02', loc), ',') FROM (SELECT loc FROM l, generate_series(1, 3));
-- => 2011-02,2011-02,2011-02,2010-52,2010-52,2010-52,2010-52,2010-52,2010-52,2011-01,2011-01,2011-01,2011-02,2011-02,2011-02,2011-01,2011-01,2011-01,2011-01,2011-01,2011-01,2010-52,2010-52,2010-52,2010-52,2010-52,2010-52,2011-02,2011-02,2011-02,2011-01,2011-01,2011-01,2010-52,2010-52,2010-52,2011-01,2011-01,2011-01,2011-02,2011-02,2011-02,2010-52,2010-52,2010-52,2010-52,2010-52,2010-52,2010-52,2010-52,2010-52,2010-52,2010-52,2010-52,2011-01,2011-01,2011-01,2010-52,2010-52,2010-52
