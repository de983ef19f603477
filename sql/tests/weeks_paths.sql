-- format_date has two paths — numeric patterns computed directly, the
-- others through ICU — and the week functions have arithmetic and ICU
-- paths: they must never disagree.  Expected values: Python's datetime
-- (proleptic Gregorian) and PyICU (python3-icu, ICU 72) with a proleptic
-- GregorianCalendar, noted where used.

-- ------------------------------------------------ dates in zones that skipped days
-- A date is a calendar day, never shifted, on both paths (Pacific/Apia and
-- Pacific/Fakaofo skipped 2011-12-30; Pacific/Kiritimati skipped 1994-12-31).
SELECT format_date('yyyy-MM-dd', '2011-12-30', 'en_US', 'Pacific/Apia'),
       format_date('yyyy-MM-dd EEE', '2011-12-30', 'en_US', 'Pacific/Apia');
-- => 2011-12-30|2011-12-30 Fri
SELECT format_date('e', '2011-12-30', 'en_US', 'Pacific/Apia'), format_date('e EEE', '2011-12-30', 'en_US', 'Pacific/Apia');
-- => 6|6 Fri
SELECT format_date('yyyy-MM-dd EEE', '2011-12-30', 'en_US', 'Pacific/Fakaofo'),
       format_date('yyyy-MM-dd EEEE', '1994-12-31', 'en_US', 'Pacific/Kiritimati');
-- => 2011-12-30 Fri|1994-12-31 Saturday
SELECT locale_week('2011-12-30', 'en_US', 'Pacific/Apia'), format_date('YYYY-ww EEE', '2011-12-30', 'en_US', 'Pacific/Apia');
-- => 2011-53|2011-53 Fri

-- every numeric pattern agrees with the ICU path (the same pattern plus a
-- name field) and with SQLite's own date functions, for dates and times
-- around those days, in zones that skipped days or change at midnight
CREATE TABLE zones(tz TEXT);
INSERT INTO zones VALUES ('Pacific/Apia'), ('Pacific/Fakaofo'), ('Pacific/Kiritimati'),
  ('America/Sao_Paulo'), ('America/Havana'), ('Asia/Tehran'), ('America/Santiago'),
  ('Europe/Berlin'), ('UTC');
CREATE TABLE locs(loc TEXT);
INSERT INTO locs VALUES ('en_US'), ('de_DE'), ('ar_EG@numbers=latn'), ('en_GB@fw=wed');
CREATE TABLE pats(pat TEXT);
INSERT INTO pats VALUES ('yyyy-MM-dd'), ('e'), ('YYYY-ww'), ('D'), ('d.M.yy'), ('w');
CREATE TABLE days(d TEXT);
INSERT INTO days SELECT date(column1, '+' || value || ' days')
  FROM (VALUES ('1994-12-27'), ('2011-12-26'), ('2018-11-01'), ('2019-03-28'), ('2020-12-28')),
       generate_series(0, 8);
CREATE TABLE vals(v TEXT);
INSERT INTO vals SELECT d FROM days UNION ALL SELECT d || ' 12:00' FROM days
  UNION ALL SELECT d || 'T00:30:00Z' FROM days UNION ALL SELECT d || ' 23:59:59.999' FROM days;

SELECT count(*) FROM vals, zones, locs, pats;
-- => 38880
SELECT count(*) FROM vals, zones, locs, pats
 WHERE format_date(pat || '|EEE', v, loc, tz)
       != format_date(pat, v, loc, tz) || '|' || format_date('EEE', v, loc, tz);
-- => 0
-- a date is its own day whatever the zone; its weekday is SQLite's
SELECT count(*) FROM days, zones, locs
 WHERE format_date('yyyy-MM-dd', d, loc, tz) != d
    OR substr(format_date('yyyy-MM-dd EEE', d, 'en_US', tz), 1, 10) != d
    OR format_date('D', d, loc, tz) + 0 != strftime('%j', d) + 0
    OR format_date('c', d, 'en_US@fw=sun', tz) + 0 != strftime('%w', d) + 1;
-- => 0
-- the week functions agree with format_date's Y, w and e, on both paths
SELECT count(*) FROM vals, zones, locs
 WHERE locale_week(v, loc, tz) != format_date('YYYY-ww', v, loc, tz)
    OR locale_week(v, loc, tz) != substr(format_date('YYYY-ww EEEE', v, loc, tz), 1, 7)
    OR locale_weekday(v, loc, tz) != format_date('e', v, loc, tz) + 0
    OR locale_weekday(v, loc, tz) || '' != substr(format_date('e MMMM', v, loc, tz), 1, 1);
-- => 0

-- zone fields: a date takes them from 00:00 of that day in tz
SELECT format_date('yyyy-MM-dd HH:mm zzzz', '2011-06-01', 'en_US', 'America/New_York');
-- => 2011-06-01 00:00 Eastern Daylight Time
SELECT format_date('yyyy-MM-dd EEE zzzz', '2011-12-31', 'en_US', 'Pacific/Apia');
-- => 2011-12-31 Sat Apia Daylight Time
-- a date with time fields but no zone fields is at 00:00, as SQLite's datetime(date)
SELECT format_date('yyyy-MM-dd HH:mm', '2018-11-04', 'pt_BR', 'America/Sao_Paulo'), datetime('2018-11-04');
-- => 2018-11-04 00:00|2018-11-04 00:00:00
-- … and a day that has no 00:00 in tz cannot give zone fields
SELECT format_date('yyyy-MM-dd z', '2011-12-30', 'en_US', 'Pacific/Apia');
-- error: format_date: time '2011-12-30' is a date that has no 00:00 in time zone 'Pacific/Apia' (the pattern has time zone fields, which a date takes from 00:00)
SELECT format_date('yyyy-MM-dd HH:mm Z', '2018-11-04', 'pt_BR', 'America/Sao_Paulo');
-- error: format_date: time '2018-11-04' is a date that has no 00:00 in time zone 'America/Sao_Paulo'
-- timestamps are instants: the local day in tz, on both paths
SELECT format_date('yyyy-MM-dd', '2011-12-30T12:00Z', 'en_US', 'Pacific/Apia'),
       format_date('yyyy-MM-dd EEE HH:mm', '2011-12-30T12:00Z', 'en_US', 'Pacific/Apia');
-- => 2011-12-31|2011-12-31 Sat 02:00

-- ------------------------------------------------ proleptic Gregorian, before 1583
-- Gregorian: proleptic on both paths (Python: date(1500, 3, 10) is a Saturday;
-- PyICU: Saturday 10 March 1500 AD)
SELECT format_date('yyyy-MM-dd', '1500-03-10', 'en_US'), format_date('EEEE d MMMM y G', '1500-03-10', 'en_US');
-- => 1500-03-10|Saturday 10 March 1500 AD
SELECT format_date('EEEE d MMMM y', '1582-10-14', 'de_DE'), locale_week('1582-10-14', 'de_DE'), format_date('YYYY-ww EEE', '1582-10-14', 'de_DE');
-- => Donnerstag 14 Oktober 1582|1582-41|1582-41 Do.
-- buddhist, japanese, roc: ICU counts days before 1582-10-15 in them as
-- Julian dates (and 1582's weeks from a Julian January).  Their weeks are
-- Gregorian weeks: the week functions compute them proleptically
SELECT locale_week('1582-10-15', 'th_TH@calendar=buddhist'), locale_week('1500-03-10', 'ja_JP@calendar=japanese'),
       locale_week_number('1582-12-29', 'zh_TW@calendar=roc'), locale_week_year('1582-12-29', 'th_TH@calendar=buddhist');
-- => 1582-42|1500-10|1|1583
SELECT locale_week('1582-10-15', 'th_TH@calendar=buddhist') = locale_week('1582-10-15', 'th_TH');
-- => 1
-- format_date refuses them before 1583 (an error, never a Julian date)
SELECT format_date('yyyy-MM-dd G', '1500-03-10', 'th_TH@calendar=buddhist');
-- error: format_date: time before 1583-01-01 in the buddhist calendar (ICU counts earlier days in it as Julian dates): '1500-03-10'
SELECT format_date('YYYY-ww', '1582-12-31', 'ja_JP@calendar=japanese');
-- error: format_date: time before 1583-01-01 in the japanese calendar
-- (the local day in tz counts: 1583-01-01 07:06 in Taipei is allowed)
SELECT format_date('y G', '1582-12-31T12:00Z', 'zh_TW@calendar=roc', 'Asia/Taipei');
-- error: format_date: time before 1583-01-01 in the roc calendar
SELECT format_date('yyyy-MM-dd HH:mm G', '1582-12-31T23:00Z', 'zh_TW@calendar=roc', 'Asia/Taipei');
-- => 0329-01-01 07:06 民國前
-- from 1583 on they are ICU's own (PyICU: 2126-01-01 พ.ศ., 0011-01-01 天正, 0329-01-01 民國前)
SELECT format_date('yyyy-MM-dd G', '1583-01-01', 'th_TH@calendar=buddhist'),
       format_date('yyyy-MM-dd G', '1583-01-01', 'ja_JP@calendar=japanese'),
       format_date('yyyy-MM-dd G', '1583-01-01', 'zh_TW@calendar=roc');
-- => 2126-01-01 พ.ศ.|0011-01-01 天正|0329-01-01 民國前
-- and ICU's week fields in them are the arithmetic ones (1583, the era
-- changes of 1989 and 2019, any first day)
WITH l(loc) AS (VALUES ('th_TH@calendar=buddhist'), ('ja_JP@calendar=japanese'), ('zh_TW@calendar=roc'),
                      ('ja_JP@calendar=japanese;fw=mon'), ('th_TH@calendar=buddhist;fw=sat')),
     s(s0) AS (VALUES ('1583-01-01'), ('1988-11-01'), ('2018-11-01'))
SELECT count(*) FROM generate_series(0, 400), l, s
 WHERE locale_week(date(s0, '+' || value || ' days'), loc)
       != format_date('YYYY-ww', date(s0, '+' || value || ' days'), loc);
-- => 0
-- calendars that count from the Julian day have no 1582 switch (hebrew,
-- islamic, …; PyICU: 5260-06-29 5260-26)
SELECT format_date('yyyy-MM-dd', '1500-03-10', 'he_IL@calendar=hebrew'), locale_week('1500-03-10', 'he_IL@calendar=hebrew');
-- => 5260-06-29|5260-26

-- ICU calendars and the Gregorian-era ones: timestamps in zones give the
-- same weeks and weekdays through the week functions and format_date
WITH v(t) AS (SELECT datetime('2011-01-01', '+' || (value * 7) || ' hours') FROM generate_series(0, 1500)),
     l(loc) AS (VALUES ('he_IL@calendar=hebrew'), ('ar_SA@calendar=islamic-umalqura;numbers=latn'),
                       ('fa_IR@calendar=persian;numbers=latn'), ('th_TH@calendar=buddhist'), ('ja_JP@calendar=japanese')),
     z(tz) AS (VALUES ('Asia/Tokyo'), ('America/Los_Angeles'), ('Pacific/Apia'))
SELECT count(*), sum(locale_week(t, loc, tz) != format_date('YYYY-ww', t, loc, tz)),
       sum(locale_weekday(t, loc, tz) != format_date('e', t, loc, tz) + 0) FROM v, l, z;
-- => 22515|0|0

-- ------------------------------------------------ out of range in a zone
SELECT locale_week('0000-01-01T00:00Z', 'en_US', 'America/New_York');
-- error: locale_week: time '0000-01-01T00:00Z' is out of range (years 0000-9999) in time zone 'America/New_York'
-- both format_date paths give that error (the ICU one used to print 1 BC)
SELECT format_date('yyyy-MM-dd EEE', '0000-01-01T00:00Z', 'en_US', 'America/New_York');
-- error: format_date: time '0000-01-01T00:00Z' is out of range (years 0000-9999) in time zone 'America/New_York'
SELECT format_date('yyyy-MM-dd', 1721059.5, 'en_US', 'America/New_York');
-- error: format_date: time '1721059.5' is out of range (years 0000-9999) in time zone 'America/New_York'
