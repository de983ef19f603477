/*
** sq_week.c — locale-aware weeks for SQLite, through ICU.
**
** SQLite's strftime('%W') always starts weeks on Monday.  These functions
** count weeks the way a locale does (first day of week, minimal days in
** week 1, from CLDR via ICU), in the proleptic Gregorian calendar:
**
**   locale_week(time [, locale [, tz]])          -> TEXT 'YYYY-WW'
**   locale_week_start(time [, locale [, tz]])    -> TEXT 'YYYY-MM-DD'
**   locale_week_number(time, locale [, tz])      -> INTEGER
**   locale_week_year(time, locale [, tz])        -> INTEGER
**   locale_weekday(time, locale [, tz])          -> INTEGER 1..7 (1 = first day)
**   locale_week_rules(locale)                    -> TEXT (JSON)
**   format_date(pattern, time [, locale [, tz]]) -> TEXT (ICU date pattern)
**
** Weekly reports (docs/sql/weeks-reports.md has an example of each):
**
**   locale_week_end(time [, locale [, tz]])      -> TEXT 'YYYY-MM-DD' (start + 6)
**   locale_week_parse(key [, locale])            -> TEXT 'YYYY-MM-DD'
**   locale_week_of_month(time, locale [, tz])    -> INTEGER 0..6 (ICU's W)
**   locale_week_label(time, locale [, tz [, style]]) -> TEXT ('Jan 2 – 8, 2011')
**   SELECT * FROM locale_weeks(start, end, locale [, tz [, style]])
**                              -> week, week_start, week_end, label
**   mysql_week(time [, mode]), mysql_yearweek(time [, mode]) -> INTEGER
**   fiscal_year, fiscal_quarter, fiscal_period, fiscal_week,
**   fiscal_week_of_period, fiscal_weeks_in_year (time, calendar [, tz]) -> INTEGER
**   fiscal_year_start, fiscal_year_end, fiscal_period_start,
**   fiscal_period_end (time, calendar [, tz])    -> TEXT 'YYYY-MM-DD'
**
**   locale_week_parse: 'YYYY-WW' as locale_week writes it, or ISO
**     'YYYY-Www' (no locale, or one with ISO rules), to the week's first
**     day: locale_week_parse(locale_week(d, L), L) = locale_week_start(d, L)
**     for every day; weeks 00, 54 and 53 of a 52-week year are errors.
**   locale_week_label: ICU's date interval format of the week's first and
**     last day, skeleton yMd (style 'short'), yMMMd ('medium', the
**     default) or yMMMMd ('long'); from 1583-01-01 on (ICU is Julian
**     before).  Labels are remembered per week (SqLabelFmt.memo).
**   locale_weeks: every locale week that holds a day from start's local day
**     to end's, in order, one row at a time (constant memory); end before
**     start, and NULL arguments, are errors.
**   mysql_week/mysql_yearweek: MySQL's WEEK(d, mode) and YEARWEEK(d, mode),
**     modes 0..7 (default 0), from 0001-01-01 (MySQL's year 0 is not a leap
**     year); the time's day in UTC.
**   fiscal_*: calendar is 'nrf' or a comma-separated spec (any case):
**       '4-5-4' | '4-4-5' | '5-4-4'        weeks per period in each quarter
**       'last <weekday> of <month>'        the year ends on that day, or
**       '<weekday> nearest end of <month>' on that weekday within 3 days
**                                          of the month's last day
**       'named by start year' | 'named by end year' (default): a year
**                                          is named by the calendar year of
**                                          its first day | of its end month
**       '53rd week in q1'..'q4' (default q4): the quarter whose last
**                                          period gets the 53rd week
**     'nrf' = '4-5-4, saturday nearest end of january, named by start
**     year, 53rd week in q4' (the NRF retail calendar).  Weekdays and
**     months in English, whole or their first three letters.
**   These work in Gregorian weeks and months: a locale with another ICU
**   calendar (@calendar=hebrew, …) is an error (locale_week_end excepted).
**
** Examples (sqlite3 shell, after `.load ./build/streamqlite`):
**
**   SELECT locale_week('2011-01-02', 'en_US');          -- 2011-02
**   SELECT locale_week('2011-01-02', 'de_DE');          -- 2010-52
**   SELECT locale_week('2011-01-02');                   -- 2010-52 (ISO 8601)
**   SELECT locale_week('2011-01-02T03:00Z', 'en_US', 'America/New_York');
**                                                       -- 2011-01 (Sat Jan 1 there)
**   SELECT locale_week_start('2011-01-05', 'en_US');    -- 2011-01-02
**   SELECT locale_week_start('2011-01-05', 'de_DE');    -- 2011-01-03
**   SELECT locale_week_number('2011-01-02', 'en_US');   -- 2
**   SELECT locale_week_year('2011-01-01', 'de_DE');     -- 2010
**   SELECT locale_weekday('2011-01-02', 'en_US');       -- 1 (Sunday)
**   SELECT locale_weekday('2011-01-02', 'de_DE');       -- 7
**   SELECT locale_week_rules('en_US');    -- {"first_day":"sunday","min_days":1}
**   SELECT locale_week_rules('de-DE');    -- {"first_day":"monday","min_days":4}
**   SELECT locale_week('2011-01-02', 'en_US@fw=mon');   -- 2011-01
**   SELECT locale_week('2011-01-02', 'en-US-u-fw-mon'); -- 2011-01
**   SELECT format_date('YYYY-ww', '2011-01-02', 'en_US');        -- 2011-02
**   SELECT format_date('EEEE, d. MMMM y', '2011-01-02', 'de_DE');
**                                        -- Sonntag, 2. Januar 2011
**
** time: what SQLite's date functions accept, with the same meaning:
**   'YYYY-MM-DD', 'YYYY-MM-DD HH:MM[:SS[.SSS]]' ('T' may replace the space),
**   'HH:MM[:SS[.SSS]]' (on 2000-01-01), optionally followed by 'Z' or
**   '±HH:MM', a Julian day number (numeric text), or a REAL or INTEGER
**   by SQLite's 'auto' rule (sq_date.h): a Julian day from 0 to 5373484.5,
**   else Unix seconds — as Swift reads a stored number into a Date.
**   A date without a time part is a calendar date and is never shifted.
**   A timestamp is UTC unless it carries an offset, and is converted into
**   tz (default UTC) before its week is computed.  'now' is rejected: these
**   functions are deterministic.  Years 0000..9999 only; impossible dates
**   ('2011-02-30') are errors (SQLite would silently normalise them).
**   Numeric text is a Julian day, as in SQLite: '2011' is year -4707 (out
**   of range), not the year 2011.  A timestamp whose local day in tz falls
**   outside 0000..9999 is an error naming the time and the zone:
**     locale_week: time '0000-01-01T00:00Z' is out of range (years
**     0000-9999) in time zone 'America/New_York'
**   Calendar: proleptic Gregorian (no 1582 Julian cutover).
**
** locale: (at most 119 bytes) POSIX ('en_US', 'de_DE', 'zh_Hant_TW') or BCP 47 ('en-US',
**   'ar-EG').  Keywords: fw (first weekday: 'en_US@fw=mon',
**   'en-US-u-fw-mon'), rg (region override: 'en_US@rg=gbzzzz'), calendar
**   ('th_TH@calendar=buddhist', 'he-IL-u-ca-hebrew': week year and number
**   then come from that ICU calendar, as ICU's own YYYY-ww; iso8601 =
**   Gregorian with Monday/4-day weeks; unknown calendars are errors).
**   Without @calendar the Gregorian calendar is used whatever the locale
**   (th_TH too).  buddhist, japanese and roc have Gregorian days and weeks
**   with other years and eras: their weeks are computed like Gregorian
**   ones, proleptically (ICU's own YYYY-ww from 1583 on, where ICU is
**   Gregorian); format_date in them refuses days before 1583-01-01, which
**   ICU would compute as Julian dates ("time before 1583-01-01 in the
**   buddhist calendar …").  The other calendars (hebrew, islamic, persian,
**   indian, chinese, …) count from the Julian day: no 1582 switch; the
**   report functions work in them too (keys, labels and the week of the
**   month of that calendar, checked against PyICU).  The
**   language must be known to ICU (ISO 639) and the region, if given, to
**   ISO 3166 (or a 3-digit UN M.49 code).  Without a locale, ISO 8601 weeks
**   (Monday, 4 days) and, for format_date, English names (en_US_POSIX).
**
** tz: an IANA time zone ID ('America/New_York', 'UTC'), known to ICU.  Its
**   rules (UTC offsets, DST) come from the system's tzdata: the compiled
**   zone file /usr/share/zoneinfo/<tz> (the TZDIR environment variable's
**   directory instead, if absolute, as glibc does; Debian's `tzdata`
**   package, kept current by security updates), read by sq_tzif.c: its
**   transitions, then its footer's POSIX TZ rule up to 9999.  ICU's own
**   copy of the tz database is used only for an ID the system has no file
**   for (neither the ID nor ICU's canonical ID).  Why: ICU carries its
**   tzdata inside libicudata and is updated rarely; Debian 12's ICU 72 has
**   2022 data, so 24 zones (America/Mexico_City, Africa/Cairo, Africa/
**   Casablanca, America/Asuncion, America/Nuuk, Asia/Almaty, Pacific/Fiji,
**   …) would put instants since late 2022 in another hour, day and week
**   than the system, Python's zoneinfo and every other program.  The ID
**   becomes a path only if it is [A-Za-z0-9_+-/] without empty, '.' or
**   '..' components (at most 255 bytes): no other file can be read
**   through it, and only regular files of at most 512 KiB, without
**   blocking.  A zone file that is there but malformed is an error:
**     locale_week: cannot read the system's zone file (…: counts beyond
**     the file) for time zone 'Europe/Paris'
**   (scripts/check-ext-tz-oracle.py compares every zone with zoneinfo.)
**
** format_date patterns: ICU/CLDR date patterns, valid UTF-8, at most 159
**   bytes ("pattern too long" beyond); the output has no length limit.
**   Numeric-only patterns (y, yy, yyyy, Y, YY, YYYY, M, MM, d, dd, w, ww,
**   e, ee, D, DD, DDD and quoted or punctuation literals) in a locale with
**   Latin digits and the Gregorian calendar are computed directly; others
**   go through a cached ICU UDateFormat.  The two paths agree (tested
**   field by field, sql/tests/weeks_paths.sql): both start from the same
**   local day, with the same errors.
**   A date (no time part) is that calendar day at 00:00, in any tz: with
**   no time zone field in the pattern it is formatted as is, tz plays no
**   part (Pacific/Apia skipped 2011-12-30, yet format_date('yyyy-MM-dd
**   EEE', '2011-12-30', 'en_US', 'Pacific/Apia') is '2011-12-30 Fri', and
**   'HH:mm' is '00:00' even where 00:00 was skipped by a DST change, as
**   SQLite's datetime() says).  With zone fields (z Z O v V X x) they are
**   those of 00:00 of that day in tz (the first 00:00 if there are two);
**   a day on which tz has no 00:00 is then an error, never another day.
**   A timestamp is an instant, shown in tz: its wall time is the instant
**   plus the system's offset, the one the week functions use.  Zone
**   fields (z Z O v V X x) can only come from ICU's data: where ICU's
**   offset at that instant differs from the system's, the value is an
**   error, never a silently different hour:
**     format_date: ICU's time zone data disagrees with the system's for
**     'Africa/Cairo' at '2023-06-01T12:00:00Z'; use a pattern without
**     zone fields
**   y is CLDR's year of the era: year 0000 is 1 BC ('y' 1, 'G' BC; 'u'
**   gives the proleptic year, 0).
**
** Errors: NULL in any argument gives NULL.  Anything else that is wrong
** is an SQL error naming the function, the argument and the value (at
** most 200 bytes of it, then "…" and its length; invalid UTF-8, control
** characters and NUL bytes as \xHH, so a message is always one line of
** valid UTF-8; a locale or tz with a NUL byte is refused like any other
** ill-formed one, on every connection), e.g.
**   locale_week: unknown locale 'xx_YY'
**   locale_week: ill-formed locale 'english'
**   locale_week: impossible date '2011-02-30'
**   locale_week: invalid time '2011-1-2'
**   locale_week: unknown calendar in locale 'th_TH@calendar=marsian'
**   locale_week: unknown time zone 'Mars/Olympus'
**   format_date: invalid pattern 'YYYY-jj'
**   locale_week: locale must be TEXT, got integer
**
** Speed: ICU objects and zone files are loaded once per connection (a
** small cache of locales, zones and formatters, owned by the function's
** user data) and reused; week numbers are pure integer arithmetic per row.
**
** This file is the SQL glue: it reads the arguments (sq_week_sql.c), calls
** the core (sq_week_core.c: locales, zones, formats, labels; sq_calendar.c
** and sq_time.c: the arithmetic), sets the results and registers the
** functions and the locale_weeks table (sq_weeks_table.c).
*/
#include "sq_week_sql.h"

#include <stdint.h>
#include <string.h>

typedef enum {
  K_WEEK, K_START, K_NUMBER, K_YEAR, K_WEEKDAY, K_RULES, K_FORMAT,
  K_END, K_PARSE, K_OF_MONTH, K_LABEL, K_MYSQL_WEEK, K_MYSQL_YEARWEEK,
  K_FY, K_FQ, K_FP, K_FW, K_FWP, K_FYS, K_FYE, K_FPS, K_FPE, K_FWY
} SqKind;

/* Function names by kind */
static const char *const kind_names[] = {
  "locale_week", "locale_week_start", "locale_week_number", "locale_week_year",
  "locale_weekday", "locale_week_rules", "format_date",
  "locale_week_end", "locale_week_parse", "locale_week_of_month", "locale_week_label",
  "mysql_week", "mysql_yearweek",
  "fiscal_year", "fiscal_quarter", "fiscal_period", "fiscal_week", "fiscal_week_of_period",
  "fiscal_year_start", "fiscal_year_end", "fiscal_period_start", "fiscal_period_end",
  "fiscal_weeks_in_year"
};

/* One row per registered arity */
typedef struct SqFuncDef { SqKind kind; int nargs; } SqFuncDef;

static const SqFuncDef sq_week_funcs[] = {
  { K_WEEK, 1 }, { K_WEEK, 2 }, { K_WEEK, 3 },
  { K_START, 1 }, { K_START, 2 }, { K_START, 3 },
  { K_NUMBER, 2 }, { K_NUMBER, 3 },
  { K_YEAR, 2 }, { K_YEAR, 3 },
  { K_WEEKDAY, 2 }, { K_WEEKDAY, 3 },
  { K_RULES, 1 },
  { K_FORMAT, 2 }, { K_FORMAT, 3 }, { K_FORMAT, 4 },
  { K_END, 1 }, { K_END, 2 }, { K_END, 3 },
  { K_PARSE, 1 }, { K_PARSE, 2 },
  { K_OF_MONTH, 2 }, { K_OF_MONTH, 3 },
  { K_LABEL, 2 }, { K_LABEL, 3 }, { K_LABEL, 4 },
  { K_MYSQL_WEEK, 1 }, { K_MYSQL_WEEK, 2 },
  { K_MYSQL_YEARWEEK, 1 }, { K_MYSQL_YEARWEEK, 2 },
  { K_FY, 2 }, { K_FY, 3 }, { K_FQ, 2 }, { K_FQ, 3 }, { K_FP, 2 }, { K_FP, 3 },
  { K_FW, 2 }, { K_FW, 3 }, { K_FWP, 2 }, { K_FWP, 3 }, { K_FYS, 2 }, { K_FYS, 3 },
  { K_FYE, 2 }, { K_FYE, 3 }, { K_FPS, 2 }, { K_FPS, 3 }, { K_FPE, 2 }, { K_FPE, 3 },
  { K_FWY, 2 }, { K_FWY, 3 },
};

/* ---- results -------------------------------------------------------------- */

/* The core's error as the function's: its message, or out of memory */
static void result_err(sqlite3_context *ctx, SqWeekErr *e){
  if( e->msg ){
    sqlite3_result_error(ctx, e->msg, -1);
    sqlite3_free(e->msg);
    e->msg = 0;
  }else{
    sqlite3_result_error_nomem(ctx);
  }
}

/* 'YYYY-MM-DD' of day, or an error when it is outside years 0000..9999
** (a week, period or fiscal year can end beyond the last day of 9999). */
static void result_date(sqlite3_context *ctx, int64_t day, const SqWeekArg *tv, SqWeekErr *e){
  char buf[16];
  int n = sq_week_date_text(day, tv, buf, e);
  if( n < 0 ) result_err(ctx, e);
  else sqlite3_result_text(ctx, buf, n, SQLITE_TRANSIENT);
}

static void result_key(sqlite3_context *ctx, int wy, int wn){
  char buf[16];
  sqlite3_result_text(ctx, buf, sq_week_key_text(wy, wn, buf), SQLITE_TRANSIENT);
}

/* ---- weekly reports ------------------------------------------------------- */

/* locale_week_parse(key [, locale]) */
static void week_parse(sqlite3_context *ctx, SqWeekCache *c, int argc, sqlite3_value **argv,
                       SqWeekErr *e){
  SqLocale *L;
  const char *z;
  int t = sqlite3_value_type(argv[0]);
  int64_t ws;
  SqWeekArg key = { sq_week_value_text, argv[0] };
  if( t != SQLITE_TEXT ){ sq_week_type_err(e, "key", "TEXT", t); result_err(ctx, e); return; }
  L = sq_week_value_locale(c, argc > 1 ? argv[1] : 0, e);
  if( !L ){ result_err(ctx, e); return; }
  z = (const char*)sqlite3_value_text(argv[0]);
  if( !z ){ sqlite3_result_error_nomem(ctx); return; }
  if( !sq_week_parse_key(L, z, sqlite3_value_bytes(argv[0]), &ws, e) ){ result_err(ctx, e); return; }
  result_date(ctx, ws, &key, e);
}

/* mysql_week(time [, mode]), mysql_yearweek(time [, mode]) */
static void mysql_week(sqlite3_context *ctx, SqKind k, int argc, sqlite3_value **argv, SqWeekErr *e){
  SqTime T;
  SqWeekArg tv = { sq_week_value_text, argv[0] };
  int64_t day, w;
  int mode = 0;
  if( argc > 1 ){
    int t = sqlite3_value_type(argv[1]);
    sqlite3_int64 v;
    SqWeekArg ma = { sq_week_value_text, argv[1] };
    if( t != SQLITE_INTEGER ){ sq_week_type_err(e, "mode", "an INTEGER 0..7", t); result_err(ctx, e); return; }
    v = sqlite3_value_int64(argv[1]);
    if( v < 0 || v > 7 ){ sq_week_err_arg(e, "mode out of range (0..7):", &ma); result_err(ctx, e); return; }
    mode = (int)v;
  }
  if( !sq_week_value_time(argv[0], &T, e) || !sq_week_local_day(&T, 0, &tv, &day, e)
      || !sq_week_mysql(day, mode, k == K_MYSQL_YEARWEEK, &tv, &w, e) ){
    result_err(ctx, e);
    return;
  }
  if( k == K_MYSQL_WEEK ) sqlite3_result_int(ctx, (int)w);
  else sqlite3_result_int64(ctx, w);
}

/* fiscal_*(time, calendar [, tz]) */
static void fiscal(sqlite3_context *ctx, SqWeekCache *c, SqKind k, int argc, sqlite3_value **argv,
                   SqWeekErr *e){
  const SqFiscalCal *F;
  SqFiscalDay D;
  SqZone *Z = 0;
  SqTime T;
  SqWeekArg tv = { sq_week_value_text, argv[0] };
  const char *z;
  int64_t day;
  int t = sqlite3_value_type(argv[1]);
  if( t != SQLITE_TEXT ){ sq_week_type_err(e, "calendar", "TEXT", t); result_err(ctx, e); return; }
  z = (const char*)sqlite3_value_text(argv[1]);
  if( !z ){ sqlite3_result_error_nomem(ctx); return; }
  if( !(F = sq_week_fiscal(c, z, sqlite3_value_bytes(argv[1]), e))
      || (argc > 2 && !(Z = sq_week_value_zone(c, argv[2], e)))
      || !sq_week_value_time(argv[0], &T, e) || !sq_week_local_day(&T, Z, &tv, &day, e) ){
    result_err(ctx, e);
    return;
  }
  sq_fiscal_of(F, day, &D);
  switch( k ){
    case K_FY: sqlite3_result_int(ctx, D.year); break;
    case K_FQ: sqlite3_result_int(ctx, D.quarter); break;
    case K_FP: sqlite3_result_int(ctx, D.period); break;
    case K_FW: sqlite3_result_int(ctx, D.week); break;
    case K_FWP: sqlite3_result_int(ctx, D.week_of_period); break;
    case K_FWY: sqlite3_result_int(ctx, D.weeks_in_year); break;
    case K_FYS: result_date(ctx, D.year_start, &tv, e); break;
    case K_FYE: result_date(ctx, D.year_end, &tv, e); break;
    case K_FPS: result_date(ctx, D.period_start, &tv, e); break;
    default: result_date(ctx, D.period_end, &tv, e); break;
  }
}

/* The report functions (kinds from K_END on), no argument NULL */
static void sq_report_run(sqlite3_context *ctx, SqKind k, int argc, sqlite3_value **argv){
  SqWeekCache *c = (SqWeekCache*)sqlite3_user_data(ctx);
  SqWeekErr e = { kind_names[k], 0 };
  SqWeekArg tv = { sq_week_value_text, argv[0] };
  SqLocale *L;
  SqZone *Z = 0;
  SqTime T;
  int64_t day;
  int style = 1, n;
  switch( k ){
    case K_PARSE: week_parse(ctx, c, argc, argv, &e); return;
    case K_MYSQL_WEEK: case K_MYSQL_YEARWEEK: mysql_week(ctx, k, argc, argv, &e); return;
    case K_END: case K_OF_MONTH: case K_LABEL: break;
    default: fiscal(ctx, c, k, argc, argv, &e); return;
  }
  if( !(L = sq_week_value_locale(c, argc > 1 ? argv[1] : 0, &e))
      || (argc > 2 && !(Z = sq_week_value_zone(c, argv[2], &e)))
      || (argc > 3 && (style = sq_week_value_style(argv[3], &e)) < 0)
      || !sq_week_value_time(argv[0], &T, &e) || !sq_week_local_day(&T, Z, &tv, &day, &e) ){
    result_err(ctx, &e);
    return;
  }
  if( k == K_END ){
    result_date(ctx, sq_week_start_of(day, L) + 6, &tv, &e);
  }else if( k == K_OF_MONTH ){
    if( sq_week_month_week(L, day, &n, &e) ) sqlite3_result_int(ctx, n);
    else result_err(ctx, &e);
  }else{
    char out[384];
    n = sq_week_label(c, L, style, sq_week_start_of(day, L), &tv, out, (int)sizeof out, &e);
    if( n >= 0 ) sqlite3_result_text(ctx, out, n, SQLITE_TRANSIENT);
    else result_err(ctx, &e);
  }
}

/* ---- the SQL functions ----------------------------------------------------- */

static void sq_week_run(sqlite3_context *ctx, SqKind k, int argc, sqlite3_value **argv){
  SqWeekCache *c = (SqWeekCache*)sqlite3_user_data(ctx);
  SqWeekErr e = { kind_names[k], 0 };
  SqLocale *L;
  SqZone *Z = 0;
  SqTime T;
  int64_t day;
  int i, time_idx, loc_idx, tz_idx, wy, wn;
  SqWeekArg tv;

  for(i = 0; i < argc; i++) if( sqlite3_value_type(argv[i]) == SQLITE_NULL ) return;
  if( k >= K_END ){ sq_report_run(ctx, k, argc, argv); return; }
  if( k == K_RULES ){
    char *p;
    if( !(L = sq_week_value_locale(c, argv[0], &e)) ){ result_err(ctx, &e); return; }
    p = sqlite3_mprintf("{\"first_day\":\"%s\",\"min_days\":%d}", sq_week_day_name(L->first_day),
                        L->min_days);
    if( !p ){ sqlite3_result_error_nomem(ctx); return; }
    sqlite3_result_text(ctx, p, -1, sqlite3_free);
    return;
  }
  time_idx = k == K_FORMAT ? 1 : 0;
  loc_idx = time_idx + 1 < argc ? time_idx + 1 : -1;
  tz_idx = time_idx + 2 < argc ? time_idx + 2 : -1;
  tv.text = sq_week_value_text;
  tv.p = argv[time_idx];
  if( k == K_FORMAT && sqlite3_value_type(argv[0]) != SQLITE_TEXT ){
    sq_week_type_err(&e, "pattern", "TEXT", sqlite3_value_type(argv[0]));
    result_err(ctx, &e);
    return;
  }
  if( !(L = sq_week_value_locale(c, loc_idx >= 0 ? argv[loc_idx] : 0, &e))
      || (tz_idx >= 0 && !(Z = sq_week_value_zone(c, argv[tz_idx], &e)))
      || !sq_week_value_time(argv[time_idx], &T, &e) ){
    result_err(ctx, &e);
    return;
  }
  if( k == K_FORMAT ){
    const char *pat = (const char*)sqlite3_value_text(argv[0]);
    SqWeekArg pa = { sq_week_value_text, argv[0] };
    SqFmt *F;
    char buf[384], *out;
    int n = 0;
    if( !pat ){ sqlite3_result_error_nomem(ctx); return; }
    if( (int)strlen(pat) != sqlite3_value_bytes(argv[0]) ){
      sq_week_err_arg(&e, "invalid pattern", &pa);
      result_err(ctx, &e);
      return;
    }
    /* both paths start from the same local day (and the same range error) */
    if( !(F = sq_week_fmt(c, pat, L, Z, &e)) || !sq_week_local_day(&T, Z, &tv, &day, &e)
        || !(out = sq_week_format(F, L, Z, &T, day, &tv, buf, (int)sizeof buf, &n, &e)) ){
      result_err(ctx, &e);
      return;
    }
    if( out == buf ) sqlite3_result_text(ctx, out, n, SQLITE_TRANSIENT);
    else sqlite3_result_text(ctx, out, n, sqlite3_free);
    return;
  }
  if( !sq_week_local_day(&T, Z, &tv, &day, &e) ){ result_err(ctx, &e); return; }
  switch( k ){
    case K_WEEK:
      if( !sq_week_key_of(L, L->cal, day, &wy, &wn, &e) ){ result_err(ctx, &e); return; }
      result_key(ctx, wy, wn);
      break;
    case K_NUMBER:
    case K_YEAR:
      if( !sq_week_key_of(L, L->cal, day, &wy, &wn, &e) ){ result_err(ctx, &e); return; }
      sqlite3_result_int(ctx, k == K_NUMBER ? wn : wy);
      break;
    case K_START:
      result_date(ctx, sq_week_start_of(day, L), &tv, &e);
      break;
    case K_WEEKDAY:
      sqlite3_result_int(ctx, sq_local_weekday(day, L->first_day));
      break;
    default:
      break;
  }
}

#define SQ_WRAP(NAME, KIND) \
  static void NAME(sqlite3_context *ctx, int argc, sqlite3_value **argv){ \
    sq_week_run(ctx, KIND, argc, argv); }
SQ_WRAP(f_week, K_WEEK)
SQ_WRAP(f_start, K_START)
SQ_WRAP(f_number, K_NUMBER)
SQ_WRAP(f_year, K_YEAR)
SQ_WRAP(f_weekday, K_WEEKDAY)
SQ_WRAP(f_rules, K_RULES)
SQ_WRAP(f_format, K_FORMAT)
SQ_WRAP(f_end, K_END)
SQ_WRAP(f_parse, K_PARSE)
SQ_WRAP(f_of_month, K_OF_MONTH)
SQ_WRAP(f_label, K_LABEL)
SQ_WRAP(f_mysql_week, K_MYSQL_WEEK)
SQ_WRAP(f_mysql_yearweek, K_MYSQL_YEARWEEK)
SQ_WRAP(f_fy, K_FY)
SQ_WRAP(f_fq, K_FQ)
SQ_WRAP(f_fp, K_FP)
SQ_WRAP(f_fw, K_FW)
SQ_WRAP(f_fwp, K_FWP)
SQ_WRAP(f_fys, K_FYS)
SQ_WRAP(f_fye, K_FYE)
SQ_WRAP(f_fps, K_FPS)
SQ_WRAP(f_fpe, K_FPE)
SQ_WRAP(f_fwy, K_FWY)

int sq_week_register(sqlite3 *db){
  static void (*const impl[])(sqlite3_context*, int, sqlite3_value**) = {
    f_week, f_start, f_number, f_year, f_weekday, f_rules, f_format,
    f_end, f_parse, f_of_month, f_label, f_mysql_week, f_mysql_yearweek,
    f_fy, f_fq, f_fp, f_fw, f_fwp, f_fys, f_fye, f_fps, f_fpe, f_fwy
  };
  SqWeekCache *c;
  size_t i;
  int rc = SQLITE_OK;
  c = sq_week_cache_new();        /* its reference is held during registration */
  if( !c ) return SQLITE_NOMEM;
  for(i = 0; rc == SQLITE_OK && i < sizeof(sq_week_funcs) / sizeof(sq_week_funcs[0]); i++){
    c->refs++;          /* xDestroy runs on failure too */
    rc = sqlite3_create_function_v2(db, kind_names[sq_week_funcs[i].kind], sq_week_funcs[i].nargs,
        SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS, c,
        impl[sq_week_funcs[i].kind], 0, 0, sq_week_cache_release);
  }
  if( rc == SQLITE_OK ) rc = sq_weeks_table_register(db, c);
  sq_week_cache_release(c);
  return rc;
}
