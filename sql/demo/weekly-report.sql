-- The weekly "value per visit" report as two locales count weeks.
-- Parameters: the reporting window.
.parameter init
.parameter set :start "'2010-12-20'"
.parameter set :end "'2011-01-16 23:59:59'"

.print
.print 1. Which week does each day around New Year belong to?
.print    (strftime %W always starts on Monday; US weeks start on Sunday, and
.print     German/ISO weeks need 4 days in the new year)
.mode box
SELECT date(Date) AS day,
       format_date('EEE', Date, 'en_US') AS dow,
       strftime('%Y-%W', Date) AS "strftime %Y-%W",
       locale_week(Date, 'en_US') AS en_US,
       locale_week(Date, 'de_DE') AS de_DE,
       locale_week(Date) AS ISO
  FROM Usage
 WHERE FacetId = 'search' AND Date BETWEEN '2010-12-29' AND '2011-01-05'
 ORDER BY Date;

.print
.print 2. Weekly value per visit, en_US and de_DE side by side
.print    (window 2010-12-20 .. 2011-01-16: whole German weeks, so the US weeks
.print     at its edges are partial: 6 days and 1 day)
WITH us AS (
  SELECT locale_week(Date, 'en_US') AS week, locale_week_start(Date, 'en_US') AS starts,
         SUM(Value) AS value, SUM(Visits) AS visits,
         ROUND(SUM(Value) * 1.0 / SUM(Visits), 2) AS vpv
    FROM Usage WHERE Date BETWEEN :start AND :end GROUP BY week),
de AS (
  SELECT locale_week(Date, 'de_DE') AS week, locale_week_start(Date, 'de_DE') AS starts,
         SUM(Value) AS value, SUM(Visits) AS visits,
         ROUND(SUM(Value) * 1.0 / SUM(Visits), 2) AS vpv
    FROM Usage WHERE Date BETWEEN :start AND :end GROUP BY week),
usn AS (SELECT row_number() OVER (ORDER BY week) AS i, * FROM us),
den AS (SELECT row_number() OVER (ORDER BY week) AS i, * FROM de)
SELECT usn.week AS "en_US week", usn.starts AS "starts (Sun)", usn.visits AS visits,
       usn.vpv AS "value/visit",
       den.week AS "de_DE week", den.starts AS "starts (Mon)", den.visits AS visits,
       den.vpv AS "value/visit"
  FROM usn FULL JOIN den ON usn.i = den.i
 ORDER BY coalesce(usn.i, den.i);

.print
.print 3. The same report in one locale, as an analyst would write it
SELECT locale_week(Date, 'en_US') AS week, ROUND(SUM(Value) * 1.0 / SUM(Visits), 2) AS "value per visit"
  FROM Usage WHERE Date BETWEEN :start AND :end GROUP BY week ORDER BY week;
