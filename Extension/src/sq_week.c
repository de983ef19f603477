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
*/
#include "sq_internal.h"
#include "sq_calendar.h"
#include "sq_time.h"
#include "sq_tzif.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <unicode/ucal.h>
#include <unicode/udat.h>
#include <unicode/udateintervalformat.h>
#include <unicode/uloc.h>
#include <unicode/unumsys.h>
#include <unicode/ustring.h>

/* ---- per-connection cache -------------------------------------------- */

#define SQ_NLOC  16
#define SQ_NZONE 8
#define SQ_NFMT  8
#define SQ_KEYMAX 160
#define SQ_FIRST_DAY  (-719528LL)     /* 0000-01-01, days since 1970-01-01 */
#define SQ_LAST_DAY   (2932896LL)     /* 9999-12-31 */
#define SQ_DAY_1583   (-141349LL)     /* 1583-01-01 */

/* Calendars (SqLocale.cal_kind):
**   CAL_GREGORIAN       gregorian, iso8601: weeks by arithmetic; format_date
**                       through a proleptic GregorianCalendar.
**   CAL_GREGORIAN_ERAS  buddhist, japanese, roc: Gregorian days, months and
**                       weeks with other years and eras.  Their week fields
**                       are exactly the Gregorian ones (ICU's YEAR_WOY and
**                       WEEK_OF_YEAR agree with the arithmetic for every
**                       first day and minimal days, checked against PyICU
**                       from 1583 to 9999), so the week functions compute
**                       them by arithmetic, proleptically, like Gregorian.
**                       ICU cannot make them proleptic (ucal_setGregorian-
**                       Change is U_UNSUPPORTED_ERROR for them) and counts
**                       days before 1582-10-15 as Julian dates, and the
**                       weeks of 1582 from a Julian January: format_date
**                       refuses days before 1583-01-01 in them.  Detected
**                       by behaviour, not by name: a calendar whose day of
**                       month jumps from 4 to 15 across 1582-10-14/15.
**   CAL_ICU             every other calendar (hebrew, islamic, persian,
**                       indian, chinese, …): week fields from ICU (they
**                       count from the Julian day: no 1582 switch).
*/
#define CAL_GREGORIAN 0
#define CAL_ICU 1
#define CAL_GREGORIAN_ERAS 2

typedef struct SqLocale {
  int used;
  char key[SQ_KEYMAX];          /* the locale argument as given ("" = none) */
  int keylen;                   /* its bytes (an argument with a NUL never matches) */
  char icu[SQ_KEYMAX];          /* canonical ICU id, calendar=gregorian */
  int first_day, min_days;      /* 1=Sunday..7, 1..7 */
  int latn;                     /* default digits are ASCII */
  int iso;                      /* the no-locale entry (ISO 8601 weeks) */
  int cal_kind;                 /* CAL_GREGORIAN, CAL_GREGORIAN_ERAS, CAL_ICU */
  char calname[64];             /* "gregorian", "buddhist", "hebrew", … */
  UCalendar *cal;               /* CAL_ICU: that calendar, in UTC */
} SqLocale;

typedef struct SqZone {
  int used;
  char key[SQ_KEYMAX];
  int keylen;
  UChar id[SQ_KEYMAX];
  int32_t id_len;
  int utc;                      /* always offset 0: no calendar needed */
  UCalendar *cal;               /* ICU's view (NULL when utc) */
  sq_tzif *tzif;                /* the system's zone file (NULL: none, use cal) */
} SqZone;

/* One op of a numeric fast-path format program */
typedef struct SqOp { char field; unsigned char count; int lit_off, lit_len; } SqOp;

typedef struct SqFmt {
  int used;
  char pattern[SQ_KEYMAX], loc_key[SQ_KEYMAX], tz_key[SQ_KEYMAX];
  int first_day, min_days;
  int fast;                     /* fast program valid */
  int zone_fields;              /* z Z O v V X x in the pattern */
  SqOp ops[32];
  int nops;
  char lits[SQ_KEYMAX];
  UDateFormat *fmt;             /* ICU path (built lazily), in tz */
  UCalendar *cal;               /* its calendar */
  UDateFormat *dfmt;            /* dates without zone fields: in UTC */
  UCalendar *dcal;
} SqFmt;

/* A week label formatter: ICU's interval format of a locale and style, and
** the labels it made, by week (a direct-mapped memo: formatting costs ICU
** several microseconds; a report has a few hundred or thousand weeks). */
#define SQ_NLABEL 4
#define SQ_NMEMO 2048
typedef struct SqLabelMemo {
  int64_t ws;                   /* the week's first day */
  unsigned char len;            /* 0: empty slot */
  char text[55];
} SqLabelMemo;
typedef struct SqLabelFmt {
  int used;
  char icu[SQ_KEYMAX];          /* SqLocale.icu */
  int style;                    /* 0 short, 1 medium, 2 long */
  UDateIntervalFormat *f;       /* in UTC */
  SqLabelMemo *memo;            /* SQ_NMEMO slots (NULL: none yet) */
} SqLabelFmt;

typedef struct SqWeekCache {
  int refs;
  SqLocale loc[SQ_NLOC];  int loc_next, loc_last;
  SqZone zone[SQ_NZONE];  int zone_next, zone_last;
  SqFmt fmt[SQ_NFMT];     int fmt_next, fmt_last;
  SqLabelFmt label[SQ_NLABEL]; int label_next;
  int fiscal_used, fiscal_keylen;      /* the last fiscal calendar spec */
  char fiscal_key[SQ_KEYMAX];
  SqFiscalCal fiscal;
} SqWeekCache;

static void loc_clear(SqLocale *L){
  if( L->cal ) ucal_close(L->cal);
  memset(L, 0, sizeof(*L));
}
static void zone_clear(SqZone *z){
  if( z->cal ) ucal_close(z->cal);
  sq_tzif_free(z->tzif);
  memset(z, 0, sizeof(*z));
}
static void fmt_clear(SqFmt *f){
  if( f->fmt ) udat_close(f->fmt);
  if( f->cal ) ucal_close(f->cal);
  if( f->dfmt ) udat_close(f->dfmt);
  if( f->dcal ) ucal_close(f->dcal);
  memset(f, 0, sizeof(*f));
}

/* The memo slot of the week starting on day ws (weeks in a row: slots in a row) */
static int memo_slot(int64_t ws){
  int64_t w = sq_floor_div(ws, 7) % SQ_NMEMO;
  return (int)(w < 0 ? w + SQ_NMEMO : w);
}

static void label_clear(SqLabelFmt *F){
  if( F->f ) udtitvfmt_close(F->f);
  sqlite3_free(F->memo);
  memset(F, 0, sizeof(*F));
}

static void cache_release(void *p){
  SqWeekCache *c = (SqWeekCache*)p;
  int i;
  if( !c || --c->refs > 0 ) return;
  for(i = 0; i < SQ_NLOC; i++) loc_clear(&c->loc[i]);
  for(i = 0; i < SQ_NZONE; i++) zone_clear(&c->zone[i]);
  for(i = 0; i < SQ_NFMT; i++) fmt_clear(&c->fmt[i]);
  for(i = 0; i < SQ_NLABEL; i++) label_clear(&c->label[i]);
  sqlite3_free(c);
}

/* ---- errors ------------------------------------------------------------ */

/* Every error goes through sq_fail(): into the function's result, or, for
** the locale_weeks table (ctx NULL: no function call to fail), into
** pending_err, which its xFilter takes over at once on the same thread. */
static _Thread_local char *pending_err;
static void sq_fail(sqlite3_context *ctx, const char *m){
  if( ctx ){ sqlite3_result_error(ctx, m, -1); return; }
  sqlite3_free(pending_err);
  pending_err = sqlite3_mprintf("%s", m);
}
static void sq_fail_nomem(sqlite3_context *ctx){
  if( ctx ){ sqlite3_result_error_nomem(ctx); return; }
  sqlite3_free(pending_err);
  pending_err = 0;
}

typedef enum {
  K_WEEK, K_START, K_NUMBER, K_YEAR, K_WEEKDAY, K_RULES, K_FORMAT,
  K_END, K_PARSE, K_OF_MONTH, K_LABEL, K_MYSQL_WEEK, K_MYSQL_YEARWEEK,
  K_FY, K_FQ, K_FP, K_FW, K_FWP, K_FYS, K_FYE, K_FPS, K_FPE, K_FWY,
  K_SERIES                      /* the locale_weeks table (no scalar) */
} SqKind;

/* Function names by kind */
static const char *const kind_names[] = {
  "locale_week", "locale_week_start", "locale_week_number", "locale_week_year",
  "locale_weekday", "locale_week_rules", "format_date",
  "locale_week_end", "locale_week_parse", "locale_week_of_month", "locale_week_label",
  "mysql_week", "mysql_yearweek",
  "fiscal_year", "fiscal_quarter", "fiscal_period", "fiscal_week", "fiscal_week_of_period",
  "fiscal_year_start", "fiscal_year_end", "fiscal_period_start", "fiscal_period_end",
  "fiscal_weeks_in_year", "locale_weeks"
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

static const char *fname(SqKind k){ return kind_names[k]; }

/* "FUNCTION: WHAT 'VALUE'", the value as sq_str_value() writes it (cut
** to SQ_ECHO_MAX bytes, invalid UTF-8 and control characters escaped). */
static void sq_err_n(sqlite3_context *ctx, SqKind k, const char *what,
                     const char *val, sqlite3_int64 n){
  sqlite3_str *s = sqlite3_str_new(0);
  char *m;
  sqlite3_str_appendf(s, "%s: %s ", fname(k), what);
  sq_str_value(s, val, n, 1);
  m = sqlite3_str_finish(s);
  if( m ){ sq_fail(ctx, m); sqlite3_free(m); }
  else sq_fail_nomem(ctx);
}
static void sq_err(sqlite3_context *ctx, SqKind k, const char *what, const char *val){
  sq_err_n(ctx, k, what, val, (sqlite3_int64)strlen(val));
}
/* The same for an argument: all its bytes (NULs included) */
static void sq_err_arg(sqlite3_context *ctx, SqKind k, const char *what, sqlite3_value *v){
  const char *z = (const char*)sqlite3_value_text(v);
  if( !z ){ sq_fail_nomem(ctx); return; }
  sq_err_n(ctx, k, what, z, sqlite3_value_bytes(v));
}

static const char *type_name(int t){
  switch( t ){
    case SQLITE_INTEGER: return "integer";
    case SQLITE_FLOAT: return "real";
    case SQLITE_BLOB: return "blob";
    case SQLITE_NULL: return "null";
    default: return "text";
  }
}

static void sq_type_err(sqlite3_context *ctx, SqKind k, const char *arg,
                        const char *want, int t){
  char *m = sqlite3_mprintf("%s: %s must be %s, got %s", fname(k), arg, want, type_name(t));
  if( m ){ sq_fail(ctx, m); sqlite3_free(m); }
  else sq_fail_nomem(ctx);
}

/* ---- locale validation --------------------------------------------------- */

static int in_list(const char *const *list, const char *s){
  for(; *list; list++) if( strcmp(*list, s) == 0 ) return 1;
  return 0;
}

static int all_alpha(const char *s, int n){
  int i;
  for(i = 0; i < n; i++){
    char c = s[i];
    if( !((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) ) return 0;
  }
  return 1;
}
static int all_digit(const char *s, int n){
  int i;
  for(i = 0; i < n; i++) if( s[i] < '0' || s[i] > '9' ) return 0;
  return 1;
}
static int all_alnum(const char *s, int n){
  int i;
  for(i = 0; i < n; i++) if( !all_alpha(s + i, 1) && !all_digit(s + i, 1) ) return 0;
  return 1;
}

/* Region code known?  Two letters in ISO 3166 (ICU's list) or 3 digits. */
static int region_known(const char *r, int n){
  char buf[3];
  if( n == 3 && all_digit(r, 3) ) return 1;
  if( n != 2 || !all_alpha(r, 2) ) return 0;
  buf[0] = (char)(r[0] & ~0x20); buf[1] = (char)(r[1] & ~0x20); buf[2] = 0;
  return in_list(uloc_getISOCountries(), buf);
}

/* Outcome of resolving a locale argument */
#define LOC_OK 0
#define LOC_ILLFORMED 1
#define LOC_UNKNOWN 2
#define LOC_BADKEY 3
#define LOC_CALENDAR 4

static int weekday_code(const char *v){
  static const char *const names[] = {"sun","mon","tue","wed","thu","fri","sat"};
  int i;
  for(i = 0; i < 7; i++) if( sqlite3_stricmp(v, names[i]) == 0 ) return i + 1;
  return 0;
}

/* Fills `L` (all but key) from the locale argument `arg`. */
static int locale_resolve(const char *arg, SqLocale *L){
  char id[SQ_KEYMAX], base[SQ_KEYMAX], canon[SQ_KEYMAX];
  UErrorCode st = U_ZERO_ERROR;
  int n = (int)strlen(arg), fw = 0, i, nparts = 0;
  char calname[64] = "gregorian";
  const char *at;
  char *parts[6];
  UCalendar *cal;
  UNumberingSystem *ns;

  if( n == 0 || n >= SQ_KEYMAX - 40 ) return LOC_ILLFORMED;
  for(i = 0; i < n; i++){
    unsigned char c = (unsigned char)arg[i];
    if( c <= ' ' || c >= 0x7f ) return LOC_ILLFORMED;
  }
  if( strchr(arg, '-') && !strchr(arg, '@') ){
    int32_t parsed = 0;
    uloc_forLanguageTag(arg, id, sizeof(id), &parsed, &st);
    if( U_FAILURE(st) || parsed != n || st == U_STRING_NOT_TERMINATED_WARNING ) return LOC_ILLFORMED;
  }else{
    memcpy(id, arg, n + 1);
  }
  /* split base from keywords */
  at = strchr(id, '@');
  n = at ? (int)(at - id) : (int)strlen(id);
  memcpy(base, id, n);
  base[n] = 0;
  /* base: lang[_Script][_REGION][_VARIANT...] */
  {
    char *s = base, *u;
    for(;;){
      if( nparts == 6 ) return LOC_ILLFORMED;
      parts[nparts++] = s;
      u = strchr(s, '_');
      if( !u ) break;
      *u = 0;
      s = u + 1;
    }
  }
  {
    char lang[4];
    int ln = (int)strlen(parts[0]), k = 1;
    if( (ln != 2 && ln != 3) || !all_alpha(parts[0], ln) ) return LOC_ILLFORMED;
    for(i = 0; i < ln; i++) lang[i] = (char)(parts[0][i] | 0x20);
    lang[ln] = 0;
    if( !in_list(uloc_getISOLanguages(), lang) ) return LOC_UNKNOWN;
    strcpy(canon, lang);
    if( k < nparts && strlen(parts[k]) == 4 && all_alpha(parts[k], 4) ){
      char sc[6];
      sc[0] = '_'; sc[1] = (char)(parts[k][0] & ~0x20);
      for(i = 1; i < 4; i++) sc[i+1] = (char)(parts[k][i] | 0x20);
      sc[5] = 0;
      strcat(canon, sc);
      k++;
    }
    if( k < nparts && (strlen(parts[k]) == 2 || strlen(parts[k]) == 3) ){
      int rn = (int)strlen(parts[k]);
      if( !(rn == 2 ? all_alpha(parts[k], 2) : all_digit(parts[k], 3)) ) return LOC_ILLFORMED;
      if( !region_known(parts[k], rn) ) return LOC_UNKNOWN;
      strcat(canon, "_");
      for(i = 0; i < rn; i++){ char c[2] = {(char)(parts[k][i] & ~0x20), 0}; if( rn == 3 ) c[0] = parts[k][i]; strcat(canon, c); }
      k++;
    }else if( k < nparts && parts[k][0] == 0 && k + 1 < nparts ){
      /* en__POSIX: empty region then variant */
      strcat(canon, "_");
      k++;
    }
    for(; k < nparts; k++){
      int vn = (int)strlen(parts[k]);
      if( vn < 1 || vn > 8 || !all_alnum(parts[k], vn) ) return LOC_ILLFORMED;
      strcat(canon, "_");
      for(i = 0; i < vn; i++){ char c[2] = {(char)(parts[k][i] & ~0x20), 0}; if( c[0] >= '0' && c[0] <= '9' ) c[0] = parts[k][i]; strcat(canon, c); }
    }
  }
  /* keywords */
  if( at ){
    UEnumeration *e;
    const char *kw;
    char full[SQ_KEYMAX];
    int32_t kl;
    snprintf(full, sizeof(full), "x%s", at);
    st = U_ZERO_ERROR;
    e = uloc_openKeywords(full, &st);
    if( U_FAILURE(st) ) return LOC_ILLFORMED;
    if( !e ) return LOC_ILLFORMED;  /* '@' with nothing after it */
    while( (kw = uenum_next(e, &kl, &st)) != 0 && U_SUCCESS(st) ){
      char val[64];
      int32_t vl;
      UErrorCode s2 = U_ZERO_ERROR;
      vl = uloc_getKeywordValue(full, kw, val, sizeof(val), &s2);
      if( U_FAILURE(s2) || s2 == U_STRING_NOT_TERMINATED_WARNING || vl == 0 ){ uenum_close(e); return LOC_BADKEY; }
      if( strcmp(kw, "fw") == 0 ){
        fw = weekday_code(val);
        if( !fw ){ uenum_close(e); return LOC_BADKEY; }
      }else if( strcmp(kw, "rg") == 0 ){
        int rn = (vl == 6 && sqlite3_stricmp(val + 2, "zzzz") == 0) ? 2
               : (vl == 6 && sqlite3_stricmp(val + 3, "zzz") == 0) ? 3 : 0;
        if( !rn || !region_known(val, rn) ){ uenum_close(e); return LOC_BADKEY; }
        st = U_ZERO_ERROR;
        uloc_setKeywordValue("rg", val, canon, sizeof(canon), &st);
        if( U_FAILURE(st) ){ uenum_close(e); return LOC_ILLFORMED; }
      }else if( strcmp(kw, "calendar") == 0 ){
        /* must be a calendar ICU has (ucal_getKeywordValuesForLocale) */
        UErrorCode s3 = U_ZERO_ERROR;
        UEnumeration *cals = ucal_getKeywordValuesForLocale("calendar", "en", 0, &s3);
        const char *cn;
        int32_t cnl, found = 0;
        for(i = 0; i < vl; i++) val[i] = (char)(val[i] | 0x20);
        while( cals && (cn = uenum_next(cals, &cnl, &s3)) != 0 && U_SUCCESS(s3) ){
          if( strcmp(cn, val) == 0 ){ found = 1; break; }
        }
        if( cals ) uenum_close(cals);
        if( !found || vl >= (int32_t)sizeof(calname) ){ uenum_close(e); return LOC_CALENDAR; }
        memcpy(calname, val, vl + 1);
      }else{
        /* other keywords (numbers, …) pass through to ICU unchanged */
        st = U_ZERO_ERROR;
        uloc_setKeywordValue(kw, val, canon, sizeof(canon), &st);
        if( U_FAILURE(st) ){ uenum_close(e); return LOC_ILLFORMED; }
      }
    }
    uenum_close(e);
    if( U_FAILURE(st) ) return LOC_ILLFORMED;
  }
  /* Gregorian unless another calendar is asked for explicitly */
  st = U_ZERO_ERROR;
  uloc_setKeywordValue("calendar", calname, canon, sizeof(canon), &st);
  if( U_FAILURE(st) ) return LOC_ILLFORMED;
  memcpy(L->icu, canon, sizeof(canon));
  L->cal_kind = strcmp(calname, "gregorian") != 0 && strcmp(calname, "iso8601") != 0
                ? CAL_ICU : CAL_GREGORIAN;
  memcpy(L->calname, calname, sizeof(calname));

  st = U_ZERO_ERROR;
  cal = ucal_open(u"UTC", -1, L->icu, UCAL_DEFAULT, &st);
  if( U_FAILURE(st) || !cal ){ if( cal ) ucal_close(cal); return LOC_UNKNOWN; }
  L->first_day = ucal_getAttribute(cal, UCAL_FIRST_DAY_OF_WEEK);
  L->min_days = ucal_getAttribute(cal, UCAL_MINIMAL_DAYS_IN_FIRST_WEEK);
  if( strcmp(calname, "iso8601") == 0 ){ L->first_day = UCAL_MONDAY; L->min_days = 4; }
  if( fw ) L->first_day = fw;
  if( L->first_day < 1 || L->first_day > 7 || L->min_days < 1 || L->min_days > 7 ){
    ucal_close(cal);
    return LOC_UNKNOWN;
  }
  if( L->cal_kind == CAL_ICU ){
    /* a calendar with ICU's Julian switch (day of month 4 -> 15 across
    ** 1582-10-14/15): Gregorian days with other eras */
    UErrorCode s4 = U_ZERO_ERROR;
    int32_t d14, d15;
    ucal_setMillis(cal, (UDate)(sq_days_from_civil(1582, 10, 14) * 86400000.0), &s4);
    d14 = ucal_get(cal, UCAL_DATE, &s4);
    ucal_setMillis(cal, (UDate)(sq_days_from_civil(1582, 10, 15) * 86400000.0), &s4);
    d15 = ucal_get(cal, UCAL_DATE, &s4);
    if( U_FAILURE(s4) ){ ucal_close(cal); return LOC_UNKNOWN; }
    if( d14 == 4 && d15 == 15 ) L->cal_kind = CAL_GREGORIAN_ERAS;
  }
  if( L->cal_kind == CAL_ICU ){
    ucal_setAttribute(cal, UCAL_FIRST_DAY_OF_WEEK, L->first_day);
    L->cal = cal;
  }else{
    ucal_close(cal);
  }

  st = U_ZERO_ERROR;
  ns = unumsys_open(L->icu, &st);
  L->latn = U_SUCCESS(st) && ns && !unumsys_isAlgorithmic(ns)
            && strcmp(unumsys_getName(ns), "latn") == 0;
  if( ns ) unumsys_close(ns);
  return LOC_OK;
}

/* The ISO 8601 pseudo-locale used when no locale is given. */
static void locale_iso(SqLocale *L){
  L->used = 1;
  L->iso = 1;
  L->key[0] = 0;
  strcpy(L->icu, "en_US_POSIX@calendar=gregorian");
  L->first_day = UCAL_MONDAY;
  L->min_days = 4;
  L->latn = 1;
}

/* Returns the cached locale for argument `idx` (or ISO when idx<0), or NULL
** after setting an error. */
static SqLocale *get_locale(sqlite3_context *ctx, SqWeekCache *c, SqKind k,
                            sqlite3_value **argv, int idx){
  const char *arg;
  int i, rc, n;
  SqLocale *L;
  if( idx < 0 ){
    arg = "";
    n = 0;
  }else{
    int t = sqlite3_value_type(argv[idx]);
    if( t != SQLITE_TEXT ){ sq_type_err(ctx, k, "locale", "TEXT", t); return 0; }
    arg = (const char*)sqlite3_value_text(argv[idx]);
    if( !arg ){ sq_fail_nomem(ctx); return 0; }
    n = sqlite3_value_bytes(argv[idx]);
  }
  /* keys are compared with their lengths: 'en_US' || x'00' || 'x' is not
  ** 'en_US' (it is an ill-formed locale, on every connection alike) */
  L = &c->loc[c->loc_last];
  if( L->used && L->iso == (idx < 0) && L->keylen == n && memcmp(L->key, arg, n) == 0 ) return L;
  for(i = 0; i < SQ_NLOC; i++){
    L = &c->loc[i];
    if( L->used && L->iso == (idx < 0) && L->keylen == n && memcmp(L->key, arg, n) == 0 ){
      c->loc_last = i;
      return L;
    }
  }
  i = c->loc_next;
  c->loc_next = (i + 1) % SQ_NLOC;
  L = &c->loc[i];
  loc_clear(L);
  if( idx < 0 ){
    locale_iso(L);
    c->loc_last = i;
    return L;
  }
  if( n >= SQ_KEYMAX || (int)strlen(arg) != n ){
    sq_err_n(ctx, k, "ill-formed locale", arg, n);
    return 0;
  }
  rc = locale_resolve(arg, L);
  if( rc != LOC_OK ){
    loc_clear(L);
    sq_err(ctx, k, rc == LOC_ILLFORMED ? "ill-formed locale"
                 : rc == LOC_BADKEY ? "invalid keyword value in locale"
                 : rc == LOC_CALENDAR ? "unknown calendar in locale"
                 : "unknown locale", arg);
    return 0;
  }
  memcpy(L->key, arg, n + 1);
  L->keylen = n;
  L->used = 1;
  c->loc_last = i;
  return L;
}

/* ---- time zones ---------------------------------------------------------- */

static SqZone *get_zone(sqlite3_context *ctx, SqWeekCache *c, SqKind k,
                        sqlite3_value *v){
  const char *arg;
  int i, n;
  SqZone *Z;
  UErrorCode st = U_ZERO_ERROR;
  UChar canon[SQ_KEYMAX];
  UBool sys = 0;
  int32_t cl;
  int t = sqlite3_value_type(v);
  if( t != SQLITE_TEXT ){ sq_type_err(ctx, k, "tz", "TEXT", t); return 0; }
  arg = (const char*)sqlite3_value_text(v);
  if( !arg ){ sq_fail_nomem(ctx); return 0; }
  n = sqlite3_value_bytes(v);
  Z = &c->zone[c->zone_last];
  if( Z->used && Z->keylen == n && memcmp(Z->key, arg, n) == 0 ) return Z;
  for(i = 0; i < SQ_NZONE; i++){
    Z = &c->zone[i];
    if( Z->used && Z->keylen == n && memcmp(Z->key, arg, n) == 0 ){ c->zone_last = i; return Z; }
  }
  if( n == 0 || n >= SQ_KEYMAX - 1 || (int)strlen(arg) != n ){
    sq_err_n(ctx, k, "unknown time zone", arg, n);
    return 0;
  }
  for(i = 0; i < n; i++){
    unsigned char ch = (unsigned char)arg[i];
    if( ch <= ' ' || ch >= 0x7f ){ sq_err(ctx, k, "unknown time zone", arg); return 0; }
  }
  i = c->zone_next;
  c->zone_next = (i + 1) % SQ_NZONE;
  Z = &c->zone[i];
  zone_clear(Z);
  u_uastrncpy(Z->id, arg, SQ_KEYMAX);
  Z->id_len = n;
  cl = ucal_getCanonicalTimeZoneID(Z->id, n, canon, SQ_KEYMAX, &sys, &st);
  if( U_FAILURE(st) || !sys ){
    zone_clear(Z);
    sq_err(ctx, k, "unknown time zone", arg);
    return 0;
  }
  if( (cl == 7 && (u_strncmp(canon, u"Etc/UTC", 7) == 0 || u_strncmp(canon, u"Etc/GMT", 7) == 0))
      || (cl == 3 && u_strncmp(canon, u"UTC", 3) == 0) ){
    Z->utc = 1;
  }else{
    Z->cal = ucal_open(Z->id, n, "en_US_POSIX@calendar=gregorian", UCAL_GREGORIAN, &st);
    if( U_SUCCESS(st) ) ucal_setGregorianChange(Z->cal, -8.64e15, &st);
    if( U_FAILURE(st) || !Z->cal ){
      zone_clear(Z);
      sq_err(ctx, k, "unknown time zone", arg);
      return 0;
    }
    /* the system's tzdata, under the ID as given, else ICU's canonical ID */
    {
      char *err = 0;
      int rc = sq_tzif_valid_id(arg) ? sq_tzif_open(arg, &Z->tzif, &err) : SQ_TZIF_NOFILE;
      if( rc == SQ_TZIF_NOFILE || rc == SQ_TZIF_BADID ){
        char cid[SQ_KEYMAX];
        sqlite3_free(err);
        err = 0;
        u_austrncpy(cid, canon, SQ_KEYMAX - 1);
        cid[cl < SQ_KEYMAX - 1 ? cl : SQ_KEYMAX - 1] = 0;
        rc = strcmp(cid, arg) != 0 && sq_tzif_valid_id(cid) ? sq_tzif_open(cid, &Z->tzif, &err)
                                                            : SQ_TZIF_NOFILE;
        if( rc == SQ_TZIF_BADID ) rc = SQ_TZIF_NOFILE;
      }
      if( rc == SQ_TZIF_NOMEM ){
        zone_clear(Z);
        sq_fail_nomem(ctx);
        return 0;
      }
      if( rc != SQ_TZIF_OK && rc != SQ_TZIF_NOFILE ){
        char what[400];
        snprintf(what, sizeof what, "cannot read the system's zone file (%s) for time zone",
                 err ? err : "?");
        sqlite3_free(err);
        zone_clear(Z);
        sq_err(ctx, k, what, arg);
        return 0;
      }
      sqlite3_free(err);
    }
  }
  memcpy(Z->key, arg, n + 1);
  Z->keylen = n;
  Z->used = 1;
  c->zone_last = i;
  return Z;
}

/* ICU's offset of zone Z at UTC instant ms, in ms. */
static int zone_offset_icu(SqZone *Z, int64_t ms, int32_t *off){
  UErrorCode st = U_ZERO_ERROR;
  int32_t a, b;
  if( Z->utc ){ *off = 0; return 1; }
  ucal_setMillis(Z->cal, (UDate)ms, &st);
  a = ucal_get(Z->cal, UCAL_ZONE_OFFSET, &st);
  b = ucal_get(Z->cal, UCAL_DST_OFFSET, &st);
  if( U_FAILURE(st) ) return 0;
  *off = a + b;
  return 1;
}

/* Offset of zone Z at UTC instant ms, in ms: from the system's zone file
** when there is one, else from ICU. */
static int zone_offset(SqZone *Z, int64_t ms, int32_t *off){
  int32_t s;
  if( Z->utc ){ *off = 0; return 1; }
  if( !Z->tzif ) return zone_offset_icu(Z, ms, off);
  if( !sq_tzif_offset(Z->tzif, sq_floor_div(ms, 1000), &s) ) return 0;
  *off = s * 1000;
  return 1;
}

/* The first UTC instant (ms) whose local time in Z is `local` (ms); 0 when
** that local time does not exist in Z (skipped by a change of offset). */
static int zone_local_to_utc(SqZone *Z, int64_t local, int64_t *ms){
  int32_t cand[4];
  int i, found = 0;
  int64_t best = 0;
  if( !zone_offset(Z, local, &cand[0]) || !zone_offset(Z, local - cand[0], &cand[1])
      || !zone_offset(Z, local - 86400000LL, &cand[2])
      || !zone_offset(Z, local + 86400000LL, &cand[3]) ) return 0;
  for(i = 0; i < 4; i++){
    int32_t o;
    int64_t t = local - cand[i];
    if( zone_offset(Z, t, &o) && t + o == local && (!found || t < best) ){ best = t; found = 1; }
  }
  *ms = best;
  return found;
}

/* ---- time argument ------------------------------------------------------- */

/* Parses argv value `v` into `T`; on error sets it and returns 0. */
static int get_time(sqlite3_context *ctx, SqKind k, sqlite3_value *v, SqTime *T){
  int t = sqlite3_value_type(v), rc;
  if( t == SQLITE_INTEGER || t == SQLITE_FLOAT ){
    rc = sq_time_from_number(sqlite3_value_double(v), T);
    if( rc != SQ_TIME_OK ){
      const char *txt = (const char*)sqlite3_value_text(v);
      sq_err(ctx, k, "time out of range (years 0000-9999; a number is a Julian day from 0 to 5373484.5, "
             "else Unix seconds)", txt ? txt : "?");
      return 0;
    }
    return 1;
  }
  if( t != SQLITE_TEXT ){
    sq_type_err(ctx, k, "time", "TEXT or a number (a Julian day, or Unix seconds)", t);
    return 0;
  }
  {
    const char *z = (const char*)sqlite3_value_text(v);
    int n = sqlite3_value_bytes(v);
    if( !z ){ sq_fail_nomem(ctx); return 0; }
    if( (int)strlen(z) != n ){ sq_err_n(ctx, k, "invalid time", z, n); return 0; }
    rc = sq_time_parse_text(z, n, T);
    switch( rc ){
      case SQ_TIME_OK: return 1;
      case SQ_TIME_NOW: sq_err(ctx, k, "non-deterministic time (pass a value)", z); return 0;
      case SQ_TIME_BADDATE: sq_err(ctx, k, "impossible date", z); return 0;
      case SQ_TIME_RANGE: sq_err(ctx, k, "time out of range (years 0000-9999)", z); return 0;
      default: sq_err(ctx, k, "invalid time", z); return 0;
    }
  }
}

/* "FUNCTION: time 'T' WHAT time zone 'TZ'[ TAIL]" */
static void sq_err_in_zone(sqlite3_context *ctx, SqKind k, sqlite3_value *tv,
                           const char *what, const SqZone *Z, const char *tail){
  sqlite3_str *s = sqlite3_str_new(0);
  const char *z = (const char*)sqlite3_value_text(tv);
  char *m;
  sqlite3_str_appendf(s, "%s: time ", fname(k));
  sq_str_value(s, z ? z : "", z ? sqlite3_value_bytes(tv) : 0, 1);
  sqlite3_str_appendf(s, " %s time zone ", what);
  sq_str_value(s, Z->key, Z->keylen, 1);
  if( tail ) sqlite3_str_appendf(s, " %s", tail);
  m = sqlite3_str_finish(s);
  if( m ){ sq_fail(ctx, m); sqlite3_free(m); }
  else sq_fail_nomem(ctx);
}

/* Local calendar day of T (argument tv) in zone Z (NULL = UTC); 0 + error
** on failure.  A date is a calendar day: it is not shifted. */
static int local_day(sqlite3_context *ctx, SqKind k, const SqTime *T, SqZone *Z,
                     sqlite3_value *tv, int64_t *day){
  int32_t off = 0;
  if( T->is_date ){ *day = T->day; return 1; }
  if( Z && !zone_offset(Z, T->ms, &off) ){
    sq_err_in_zone(ctx, k, tv, "cannot be converted into", Z, 0);
    return 0;
  }
  *day = sq_floor_div(T->ms + off, 86400000LL);
  if( *day < SQ_FIRST_DAY || *day > SQ_LAST_DAY ){
    sq_err_in_zone(ctx, k, tv, "is out of range (years 0000-9999) in", Z, 0);
    return 0;
  }
  return 1;
}

/* ---- output helpers ------------------------------------------------------ */

static char *put_num(char *p, int v, int width){
  char tmp[12];
  int n = 0;
  if( v < 0 ){ *p++ = '-'; v = -v; }
  do{ tmp[n++] = (char)('0' + v % 10); v /= 10; }while( v );
  while( n < width ){ tmp[n++] = '0'; }
  while( n ) *p++ = tmp[--n];
  return p;
}

static const char *const day_names[8] = {
  "", "sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"
};

/* ---- format_date --------------------------------------------------------- */

static int is_pattern_letter(char ch){
  return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z');
}

/* ICU date-field pattern letters (CLDR). */
static int is_icu_field(char ch){
  return ch != 0 && strchr("GyYuUrQqMLlwWEecdDFgahHKkmsSAzZOvVXxBb", ch) != 0;
}

/* Appends a literal op of `len` bytes to F's fast program; 0 when the
** program is full (the pattern then goes through ICU). */
static int add_literal(SqFmt *F, int *nl, const char *z, int len){
  if( F->nops >= 32 || *nl + len > SQ_KEYMAX ) return 0;
  F->ops[F->nops].field = 0;
  F->ops[F->nops].lit_off = *nl;
  F->ops[F->nops].lit_len = len;
  memcpy(F->lits + *nl, z, (size_t)len);
  *nl += len;
  F->nops++;
  return 1;
}

/* Validates `pat` (n bytes, no NUL); builds a fast numeric program in F
** when possible and notes whether it has time zone fields.  Returns 0 if
** the pattern is invalid (unknown letters, an unterminated quote, invalid
** UTF-8: the one rule for both paths). */
static int compile_pattern(const char *pat, SqFmt *F){
  int i = 0, n = (int)strlen(pat), fast = 1, nl = 0;
  F->nops = 0;
  F->zone_fields = 0;
  if( !sq_utf8_valid(pat, n) ) return 0;
  while( i < n ){
    char ch = pat[i];
    if( is_pattern_letter(ch) ){
      int j = i, cnt, ok = 0;
      while( j < n && pat[j] == ch ) j++;
      if( !is_icu_field(ch) ) return 0;
      if( strchr("zZOvVXx", ch) ) F->zone_fields = 1;
      cnt = j - i;
      switch( ch ){
        case 'y': case 'Y': ok = cnt == 1 || cnt == 2 || cnt == 4; break;
        case 'M': case 'd': case 'w': case 'e': ok = cnt <= 2; break;
        case 'D': ok = cnt <= 3; break;
      }
      if( !ok || F->nops >= 32 ) fast = 0;
      else{ F->ops[F->nops].field = ch; F->ops[F->nops].count = (unsigned char)cnt; F->nops++; }
      i = j;
    }else if( ch == '\'' ){
      /* '' is a quote; 'text' is literal text, in which '' is a quote */
      int j = i + 1;
      if( j < n && pat[j] == '\'' ){
        if( !add_literal(F, &nl, "'", 1) ) fast = 0;
        i = j + 1;
        continue;
      }
      for(;;){
        int k = j;
        if( j >= n ) return 0;    /* unterminated quote */
        while( k < n && pat[k] != '\'' ) k++;
        if( k > j && !add_literal(F, &nl, pat + j, k - j) ) fast = 0;
        if( k >= n ) return 0;
        if( k + 1 < n && pat[k+1] == '\'' ){
          if( !add_literal(F, &nl, "'", 1) ) fast = 0;
          j = k + 2;
          continue;
        }
        j = k;
        break;
      }
      i = j + 1;
    }else{
      if( !add_literal(F, &nl, pat + i, 1) ) fast = 0;
      i++;
    }
  }
  F->fast = fast;
  return 1;
}

static SqFmt *get_fmt(sqlite3_context *ctx, SqWeekCache *c, const char *pat,
                      SqLocale *L, SqZone *Z){
  int i;
  const char *tzk = Z ? Z->key : "";
  SqFmt *F = &c->fmt[c->fmt_last];
  if( F->used && strcmp(F->pattern, pat) == 0 && strcmp(F->loc_key, L->key) == 0
      && strcmp(F->tz_key, tzk) == 0 ) return F;
  for(i = 0; i < SQ_NFMT; i++){
    F = &c->fmt[i];
    if( F->used && strcmp(F->pattern, pat) == 0 && strcmp(F->loc_key, L->key) == 0
        && strcmp(F->tz_key, tzk) == 0 ){ c->fmt_last = i; return F; }
  }
  if( strlen(pat) >= SQ_KEYMAX ){ sq_err(ctx, K_FORMAT, "pattern too long", pat); return 0; }
  i = c->fmt_next;
  c->fmt_next = (i + 1) % SQ_NFMT;
  F = &c->fmt[i];
  fmt_clear(F);
  if( !compile_pattern(pat, F) ){
    fmt_clear(F);
    sq_err(ctx, K_FORMAT, "invalid pattern", pat);
    return 0;
  }
  if( !L->latn || L->cal_kind != CAL_GREGORIAN ) F->fast = 0;
  strcpy(F->pattern, pat);
  strcpy(F->loc_key, L->key);
  strcpy(F->tz_key, tzk);
  F->first_day = L->first_day;
  F->min_days = L->min_days;
  F->used = 1;
  c->fmt_last = i;
  return F;
}

/* Builds an ICU formatter for F's pattern in zone `tz` (lazily: the fast
** path never needs one).  Gregorian is made proleptic (an error if ICU
** refuses: never a silent Julian date); the other calendars have no 1582
** switch (CAL_ICU) or are refused before 1583 (CAL_GREGORIAN_ERAS). */
static int fmt_open_icu(sqlite3_context *ctx, SqFmt *F, SqLocale *L,
                        const UChar *tz, int32_t tzl,
                        UDateFormat **pfmt, UCalendar **pcal){
  UErrorCode st = U_ZERO_ERROR;
  UChar upat[SQ_KEYMAX * 2];
  int32_t ul = 0;
  UCalendar *cal = 0;
  UDateFormat *fmt = 0;
  u_strFromUTF8(upat, SQ_KEYMAX * 2, &ul, F->pattern, -1, &st);
  if( U_SUCCESS(st) ){
    cal = ucal_open(tz, tzl, L->icu, L->cal_kind != CAL_GREGORIAN ? UCAL_DEFAULT : UCAL_GREGORIAN, &st);
  }
  if( U_SUCCESS(st) ){
    if( L->cal_kind == CAL_GREGORIAN ) ucal_setGregorianChange(cal, -8.64e15, &st);
    ucal_setAttribute(cal, UCAL_FIRST_DAY_OF_WEEK, F->first_day);
    ucal_setAttribute(cal, UCAL_MINIMAL_DAYS_IN_FIRST_WEEK, F->min_days);
  }
  if( U_SUCCESS(st) ) fmt = udat_open(UDAT_PATTERN, UDAT_PATTERN, L->icu, tz, tzl, upat, ul, &st);
  if( U_SUCCESS(st) ) udat_setCalendar(fmt, cal);
  if( U_FAILURE(st) ){
    if( fmt ) udat_close(fmt);
    if( cal ) ucal_close(cal);
    sq_err(ctx, K_FORMAT, "invalid pattern", F->pattern);
    return 0;
  }
  *pfmt = fmt;
  *pcal = cal;
  return 1;
}

/* Fast numeric formatting of a calendar day.  Returns the length, or -1 if
** this value needs ICU (year outside 1..9999). */
static int fmt_fast(const SqFmt *F, int64_t day, char *out, int cap){
  int y, m, d, wy = 0, wn = 0, k;
  char *p = out;
  sq_civil_from_days(day, &y, &m, &d);
  if( y < 1 ) return -1;
  for(k = 0; k < F->nops; k++){
    const SqOp *o = &F->ops[k];
    if( p - out > cap - 16 ) return -1;
    switch( o->field ){
      case 0:
        if( p - out + o->lit_len > cap - 16 ) return -1;
        memcpy(p, F->lits + o->lit_off, o->lit_len); p += o->lit_len; break;
      case 'y': p = o->count == 2 ? put_num(p, y % 100, 2) : put_num(p, y, o->count); break;
      case 'Y': case 'w':
        if( !wy ) sq_week_of(day, F->first_day, F->min_days, &wy, &wn, 0);
        if( wy < 1 ) return -1;
        if( o->field == 'w' ) p = put_num(p, wn, o->count);
        else p = o->count == 2 ? put_num(p, wy % 100, 2) : put_num(p, wy, o->count);
        break;
      case 'M': p = put_num(p, m, o->count); break;
      case 'd': p = put_num(p, d, o->count); break;
      case 'e': p = put_num(p, sq_local_weekday(day, F->first_day), o->count); break;
      case 'D': p = put_num(p, (int)(day - sq_days_from_civil(y, 1, 1)) + 1, o->count); break;
    }
  }
  return (int)(p - out);
}

/* format_date through ICU.  `day` is the local day of T (local_day()).
** A date (no time part) is a calendar day at 00:00, never shifted: with
** no zone fields in the pattern it is formatted in UTC, so its fields are
** its own whatever tz says (the numeric path ignores tz for a date too);
** with zone fields (z Z O v V X x) it is 00:00 of that day in tz, and a day
** on which 00:00 does not exist in tz (Pacific/Apia skipped 2011-12-30; a
** DST change at midnight) is an error, not another day. */
static void format_date_icu(sqlite3_context *ctx, SqFmt *F, SqLocale *L, SqZone *Z,
                            const SqTime *T, int64_t day, sqlite3_value *tv){
  UErrorCode st = U_ZERO_ERROR;
  UChar ustack[128], *u = ustack;
  char ostack[384], *o = ostack;
  int32_t ul, ol = 0;
  UDate when;
  UDateFormat *fmt;
  if( L->cal_kind == CAL_GREGORIAN_ERAS && day < SQ_DAY_1583 ){
    char what[160];
    snprintf(what, sizeof what, "time before 1583-01-01 in the %s calendar "
             "(ICU counts earlier days in it as Julian dates):", L->calname);
    sq_err_arg(ctx, K_FORMAT, what, tv);
    return;
  }
  if( T->is_date && Z && !Z->utc && !F->zone_fields ){
    /* a date in UTC: its own fields */
    if( !F->dfmt && !fmt_open_icu(ctx, F, L, u"UTC", 3, &F->dfmt, &F->dcal) ) return;
    fmt = F->dfmt;
    when = (UDate)(day * 86400000.0);
  }else if( Z && !Z->utc && !F->zone_fields ){
    /* a timestamp without zone fields: its local wall time (the system's
    ** offset, as the week functions use) formatted in UTC */
    int32_t off = 0;
    if( !zone_offset(Z, T->ms, &off) ){
      sq_err_in_zone(ctx, K_FORMAT, tv, "cannot be converted into", Z, 0);
      return;
    }
    if( !F->dfmt && !fmt_open_icu(ctx, F, L, u"UTC", 3, &F->dfmt, &F->dcal) ) return;
    fmt = F->dfmt;
    when = (UDate)(T->ms + off);
  }else{
    if( !F->fmt && !fmt_open_icu(ctx, F, L, Z ? Z->id : u"UTC", Z ? Z->id_len : 3,
                                 &F->fmt, &F->cal) ) return;
    fmt = F->fmt;
    if( T->is_date && Z && !Z->utc ){
      /* 00:00 of that day in the zone (through its proleptic Gregorian
      ** calendar: F->cal may be Hebrew, …); it must exist */
      int64_t ms;
      if( !zone_local_to_utc(Z, day * 86400000LL, &ms) ){
        sq_err_in_zone(ctx, K_FORMAT, tv, "is a date that has no 00:00 in", Z,
                       "(the pattern has time zone fields, which a date takes from 00:00)");
        return;
      }
      when = (UDate)ms;
    }else if( T->is_date ){
      when = (UDate)(day * 86400000.0);
    }else{
      when = (UDate)T->ms;
    }
    if( Z && Z->tzif && F->zone_fields ){
      /* ICU prints the zone fields and the wall time from its own data: it
      ** must agree with the system's, never a silently different hour */
      int32_t a = 0, b = 0;
      if( !zone_offset_icu(Z, (int64_t)when, &a) || !zone_offset(Z, (int64_t)when, &b) || a != b ){
        char *m;
        int y, mo, d, hh, mi, ss;
        int64_t sec = sq_floor_div((int64_t)when, 1000);
        int64_t dd = sq_floor_div(sec, 86400), rem = sec - dd * 86400;
        sq_civil_from_days(dd, &y, &mo, &d);
        hh = (int)(rem / 3600); mi = (int)(rem / 60 % 60); ss = (int)(rem % 60);
        m = sqlite3_mprintf("format_date: ICU's time zone data disagrees with the system's for "
                            "'%s' at '%04d-%02d-%02dT%02d:%02d:%02dZ'; use a pattern without "
                            "zone fields", Z->key, y, mo, d, hh, mi, ss);
        if( m ){ sq_fail(ctx, m); sqlite3_free(m); }
        else sq_fail_nomem(ctx);
        return;
      }
    }
  }
  ul = udat_format(fmt, when, u, (int32_t)(sizeof(ustack) / sizeof(UChar)), 0, &st);
  if( st == U_BUFFER_OVERFLOW_ERROR ){
    /* no output limit: a pattern of 159 bytes can ask for a lot */
    st = U_ZERO_ERROR;
    u = sqlite3_malloc64(((sqlite3_uint64)ul + 1) * sizeof(UChar));
    if( !u ){ sq_fail_nomem(ctx); return; }
    ul = udat_format(fmt, when, u, ul + 1, 0, &st);
  }
  if( U_SUCCESS(st) && (sqlite3_int64)ul * 3 >= (sqlite3_int64)sizeof(ostack) ){
    o = sqlite3_malloc64((sqlite3_uint64)ul * 3 + 1);
    if( !o ){ if( u != ustack ) sqlite3_free(u); sq_fail_nomem(ctx); return; }
  }
  if( U_SUCCESS(st) ){
    u_strToUTF8(o, o == ostack ? (int32_t)sizeof(ostack) : ul * 3 + 1, &ol, u, ul, &st);
  }
  if( U_FAILURE(st) ){
    sq_err(ctx, K_FORMAT, "cannot format with pattern", F->pattern);
  }else{
    sqlite3_result_text(ctx, o, ol, SQLITE_TRANSIENT);
  }
  if( u != ustack ) sqlite3_free(u);
  if( o != ostack ) sqlite3_free(o);
}

/* ---- weekly reports: series, end, key, week of month, label ------------- */

/* 'YYYY-MM-DD' of day, or an error when it is outside years 0000..9999
** (a week, period or fiscal year can end beyond the last day of 9999). */
static void result_date(sqlite3_context *ctx, SqKind k, int64_t day, sqlite3_value *tv){
  char buf[16], *p;
  int y, m, d;
  if( day < SQ_FIRST_DAY || day > SQ_LAST_DAY ){
    sq_err_arg(ctx, k, "has a result out of range (years 0000-9999) for time", tv);
    return;
  }
  sq_civil_from_days(day, &y, &m, &d);
  p = put_num(buf, y, 4); *p++ = '-';
  p = put_num(p, m, 2); *p++ = '-';
  p = put_num(p, d, 2);
  sqlite3_result_text(ctx, buf, (int)(p - buf), SQLITE_TRANSIENT);
}

/* The first day of the locale week holding `day` */
static int64_t week_start_of(int64_t day, const SqLocale *L){
  return day - (sq_dow(day) - L->first_day + 7) % 7;
}

/* CAL_ICU: the week-year and week of `day` in cal (L's calendar, or a
** copy of it): 1, or 0 when ICU fails. */
static int icu_week_key(UCalendar *cal, int64_t day, int *wy, int *wn){
  UErrorCode st = U_ZERO_ERROR;
  ucal_setMillis(cal, (UDate)(day * 86400000.0), &st);
  *wy = ucal_get(cal, UCAL_YEAR_WOY, &st);
  *wn = ucal_get(cal, UCAL_WEEK_OF_YEAR, &st);
  return U_SUCCESS(st);
}

/* CAL_ICU: the first day of week `week` of week-year `year` in cal: 1, or 0
** when that calendar's year has no such week.  ICU resolves the fields to a
** day; where its resolution misses (a few weeks of dangi's leap months) the
** weeks beside that day are asked, so a key locale_week wrote always comes
** back to its week. */
static int icu_week_key_start(UCalendar *cal, const SqLocale *L, int year, int week, int64_t *start){
  UErrorCode st = U_ZERO_ERROR;
  UDate ms;
  int64_t d;
  int wy, wn, k;
  ucal_clear(cal);
  ucal_set(cal, UCAL_YEAR_WOY, year);
  ucal_set(cal, UCAL_WEEK_OF_YEAR, week);
  ucal_set(cal, UCAL_DAY_OF_WEEK, L->first_day);
  ms = ucal_getMillis(cal, &st);
  if( U_FAILURE(st) || ms != ms ) return 0;
  d = (int64_t)(ms / 86400000.0);
  if( (double)d * 86400000.0 > ms ) d--;                /* toward -infinity */
  if( d < SQ_FIRST_DAY - 400 || d > SQ_LAST_DAY + 400 ) return 0;
  d = week_start_of(d, L);
  for(k = 0; k <= 16; k++){
    int64_t t = d + (k & 1 ? 7 : -7) * (int64_t)((k + 1) / 2);
    if( !icu_week_key(cal, t, &wy, &wn) ) return 0;
    if( wy == year && wn == week ){ *start = t; return 1; }
  }
  return 0;
}

static const char *const label_styles[3] = { "short", "medium", "long" };
static const UChar *const label_skeletons[3] = { u"yMd", u"yMMMd", u"yMMMMd" };

/* Style argument (TEXT short/medium/long) -> 0..2, or -1 after an error */
static int get_style(sqlite3_context *ctx, SqKind k, sqlite3_value *v){
  const char *z;
  int i, t = sqlite3_value_type(v);
  if( t != SQLITE_TEXT ){ sq_type_err(ctx, k, "style", "TEXT", t); return -1; }
  z = (const char*)sqlite3_value_text(v);
  if( !z ){ sq_fail_nomem(ctx); return -1; }
  for(i = 0; i < 3; i++){
    if( (int)strlen(label_styles[i]) == sqlite3_value_bytes(v) && strcmp(z, label_styles[i]) == 0 ) return i;
  }
  sq_err_arg(ctx, k, "unknown style (short, medium or long)", v);
  return -1;
}

/* The week from `ws` to ws + 6 as the locale writes a date interval
** ("Jan 2 – 8, 2011"), NUL-terminated UTF-8 in out (cap bytes): its
** length, or -1 after an error. */
static int week_label(sqlite3_context *ctx, SqKind k, SqWeekCache *c, const SqLocale *L,
                      int style, int64_t ws, sqlite3_value *tv, char *out, int cap){
  SqLabelFmt *F = 0;
  UErrorCode st = U_ZERO_ERROR;
  UChar u[128];
  int32_t ul, ol = 0;
  int i;
  if( ws < SQ_FIRST_DAY || ws + 6 > SQ_LAST_DAY ){
    /* as locale_week_start/locale_week_end for the same time */
    sq_err_arg(ctx, k, "has a result out of range (years 0000-9999) for time", tv);
    return -1;
  }
  if( L->cal_kind != CAL_ICU && ws < SQ_DAY_1583 ){
    sq_err_arg(ctx, k, "cannot label a week before 1583-01-01 (ICU writes earlier days as "
               "Julian dates): time", tv);
    return -1;
  }
  for(i = 0; i < SQ_NLABEL; i++){
    if( c->label[i].used && c->label[i].style == style && strcmp(c->label[i].icu, L->icu) == 0 ){
      F = &c->label[i];
      break;
    }
  }
  if( !F ){
    F = &c->label[c->label_next];
    c->label_next = (c->label_next + 1) % SQ_NLABEL;
    label_clear(F);
    F->f = udtitvfmt_open(L->icu, label_skeletons[style], -1, u"UTC", 3, &st);
    if( U_FAILURE(st) || !F->f ){
      label_clear(F);
      sq_err(ctx, k, "ICU has no date interval format for locale", L->key);
      return -1;
    }
    memcpy(F->icu, L->icu, sizeof(F->icu));
    F->style = style;
    F->used = 1;
    /* no memo without the memory for it: every label is then formatted */
    F->memo = sqlite3_malloc64(sizeof(SqLabelMemo) * SQ_NMEMO);
    if( F->memo ) memset(F->memo, 0, sizeof(SqLabelMemo) * SQ_NMEMO);
  }
  {
    SqLabelMemo *m = F->memo ? &F->memo[memo_slot(ws)] : 0;
    if( m && m->len && m->ws == ws ){
      memcpy(out, m->text, m->len);
      out[m->len] = 0;
      return m->len;
    }
  }
  ul = udtitvfmt_format(F->f, (UDate)(ws * 86400000.0), (UDate)((ws + 6) * 86400000.0),
                        u, (int32_t)(sizeof(u) / sizeof(u[0])), 0, &st);
  if( U_SUCCESS(st) ) u_strToUTF8(out, cap, &ol, u, ul, &st);
  if( U_FAILURE(st) || st == U_STRING_NOT_TERMINATED_WARNING ){
    sq_err(ctx, k, "cannot write the week label in locale", L->key);
    return -1;
  }
  if( F->memo && ol > 0 && ol <= (int)sizeof(F->memo[0].text) ){
    SqLabelMemo *m = &F->memo[memo_slot(ws)];
    m->ws = ws;
    m->len = (unsigned char)ol;
    memcpy(m->text, out, (size_t)ol);
  }
  return ol;
}

/* locale_week_parse(key [, locale]) */
static void week_parse(sqlite3_context *ctx, SqWeekCache *c, int argc, sqlite3_value **argv){
  SqLocale *L;
  const char *z;
  int y, w, iso, t = sqlite3_value_type(argv[0]);
  int64_t ws;
  if( t != SQLITE_TEXT ){ sq_type_err(ctx, K_PARSE, "key", "TEXT", t); return; }
  L = get_locale(ctx, c, K_PARSE, argv, argc > 1 ? 1 : -1);
  if( !L ) return;
  z = (const char*)sqlite3_value_text(argv[0]);
  if( !z ){ sq_fail_nomem(ctx); return; }
  if( !sq_week_key_parse(z, sqlite3_value_bytes(argv[0]), &y, &w, &iso) ){
    sq_err_arg(ctx, K_PARSE, "invalid week key (YYYY-WW, or ISO YYYY-Www)", argv[0]);
    return;
  }
  if( iso && !(L->first_day == UCAL_MONDAY && L->min_days == 4) ){
    sqlite3_str *s = sqlite3_str_new(0);
    char *m;
    sqlite3_str_appendf(s, "locale_week_parse: ISO week key ");
    sq_str_value(s, z, sqlite3_value_bytes(argv[0]), 1);
    sqlite3_str_appendf(s, " with locale ");
    sq_str_value(s, L->key, L->keylen, 1);
    sqlite3_str_appendf(s, ", whose weeks are not ISO weeks (Monday, 4 days): write YYYY-WW");
    m = sqlite3_str_finish(s);
    if( m ){ sq_fail(ctx, m); sqlite3_free(m); } else sq_fail_nomem(ctx);
    return;
  }
  if( L->cal_kind == CAL_ICU ? !icu_week_key_start(L->cal, L, y, w, &ws)
                             : !sq_week_key_start(y, w, L->first_day, L->min_days, &ws) ){
    sq_err_arg(ctx, K_PARSE, "no such week in its year: key", argv[0]);
    return;
  }
  if( ws < SQ_FIRST_DAY ){
    sqlite3_str *s = sqlite3_str_new(0);
    char *m;
    sqlite3_str_appendf(s, "locale_week_parse: week key ");
    sq_str_value(s, z, sqlite3_value_bytes(argv[0]), 1);
    sqlite3_str_appendf(s, " starts before 0000-01-01");
    m = sqlite3_str_finish(s);
    if( m ){ sq_fail(ctx, m); sqlite3_free(m); } else sq_fail_nomem(ctx);
    return;
  }
  result_date(ctx, K_PARSE, ws, argv[0]);
}

/* mysql_week(time [, mode]), mysql_yearweek(time [, mode]) */
static void mysql_week(sqlite3_context *ctx, SqKind k, int argc, sqlite3_value **argv){
  SqTime T;
  int64_t day;
  int mode = 0, y, w, yy, mm, dd;
  if( argc > 1 ){
    int t = sqlite3_value_type(argv[1]);
    sqlite3_int64 v;
    if( t != SQLITE_INTEGER ){ sq_type_err(ctx, k, "mode", "an INTEGER 0..7", t); return; }
    v = sqlite3_value_int64(argv[1]);
    if( v < 0 || v > 7 ){ sq_err_arg(ctx, k, "mode out of range (0..7):", argv[1]); return; }
    mode = (int)v;
  }
  if( !get_time(ctx, k, argv[0], &T) || !local_day(ctx, k, &T, 0, argv[0], &day) ) return;
  sq_civil_from_days(day, &yy, &mm, &dd);
  if( yy < 1 ){
    sq_err_arg(ctx, k, "time before 0001-01-01 (MySQL's year 0 has no leap day):", argv[0]);
    return;
  }
  w = sq_mysql_week(day, mode, k == K_MYSQL_YEARWEEK, &y);
  if( k == K_MYSQL_WEEK ) sqlite3_result_int(ctx, w);
  else sqlite3_result_int64(ctx, (sqlite3_int64)y * 100 + w);
}

/* The calendar argument, parsed (the last one is cached) */
static const SqFiscalCal *get_fiscal(sqlite3_context *ctx, SqWeekCache *c, SqKind k,
                                     sqlite3_value *v){
  const char *z;
  char err[200];
  int n, t = sqlite3_value_type(v);
  if( t != SQLITE_TEXT ){ sq_type_err(ctx, k, "calendar", "TEXT", t); return 0; }
  z = (const char*)sqlite3_value_text(v);
  if( !z ){ sq_fail_nomem(ctx); return 0; }
  n = sqlite3_value_bytes(v);
  if( c->fiscal_used && c->fiscal_keylen == n && memcmp(c->fiscal_key, z, n) == 0 ) return &c->fiscal;
  c->fiscal_used = 0;
  if( n >= SQ_KEYMAX ){ sq_err_arg(ctx, k, "calendar too long (at most 159 bytes):", v); return 0; }
  if( (int)strlen(z) != n ){
    sq_err_arg(ctx, k, "invalid calendar", v);
    return 0;
  }
  if( !sq_fiscal_parse(z, n, &c->fiscal, err, (int)sizeof err) ){
    sqlite3_str *s = sqlite3_str_new(0);
    char *m;
    sqlite3_str_appendf(s, "%s: invalid calendar ", fname(k));
    sq_str_value(s, z, n, 1);
    sqlite3_str_appendf(s, ": %s", err);
    m = sqlite3_str_finish(s);
    if( m ){ sq_fail(ctx, m); sqlite3_free(m); } else sq_fail_nomem(ctx);
    return 0;
  }
  memcpy(c->fiscal_key, z, n);
  c->fiscal_keylen = n;
  c->fiscal_used = 1;
  return &c->fiscal;
}

/* fiscal_*(time, calendar [, tz]) */
static void fiscal(sqlite3_context *ctx, SqWeekCache *c, SqKind k, int argc, sqlite3_value **argv){
  const SqFiscalCal *F;
  SqFiscalDay D;
  SqZone *Z = 0;
  SqTime T;
  int64_t day;
  if( !(F = get_fiscal(ctx, c, k, argv[1])) ) return;
  if( argc > 2 && !(Z = get_zone(ctx, c, k, argv[2])) ) return;
  if( !get_time(ctx, k, argv[0], &T) || !local_day(ctx, k, &T, Z, argv[0], &day) ) return;
  sq_fiscal_of(F, day, &D);
  switch( k ){
    case K_FY: sqlite3_result_int(ctx, D.year); break;
    case K_FQ: sqlite3_result_int(ctx, D.quarter); break;
    case K_FP: sqlite3_result_int(ctx, D.period); break;
    case K_FW: sqlite3_result_int(ctx, D.week); break;
    case K_FWP: sqlite3_result_int(ctx, D.week_of_period); break;
    case K_FWY: sqlite3_result_int(ctx, D.weeks_in_year); break;
    case K_FYS: result_date(ctx, k, D.year_start, argv[0]); break;
    case K_FYE: result_date(ctx, k, D.year_end, argv[0]); break;
    case K_FPS: result_date(ctx, k, D.period_start, argv[0]); break;
    default: result_date(ctx, k, D.period_end, argv[0]); break;
  }
}

/* The report functions (kinds from K_END on), no argument NULL */
static void sq_report_run(sqlite3_context *ctx, SqKind k, int argc, sqlite3_value **argv){
  SqWeekCache *c = (SqWeekCache*)sqlite3_user_data(ctx);
  SqLocale *L;
  SqZone *Z = 0;
  SqTime T;
  int64_t day;
  int style = 1;
  switch( k ){
    case K_PARSE: week_parse(ctx, c, argc, argv); return;
    case K_MYSQL_WEEK: case K_MYSQL_YEARWEEK: mysql_week(ctx, k, argc, argv); return;
    case K_END: case K_OF_MONTH: case K_LABEL: break;
    default: fiscal(ctx, c, k, argc, argv); return;
  }
  L = get_locale(ctx, c, k, argv, argc > 1 ? 1 : -1);
  if( !L ) return;
  if( argc > 2 && !(Z = get_zone(ctx, c, k, argv[2])) ) return;
  if( argc > 3 && (style = get_style(ctx, k, argv[3])) < 0 ) return;
  if( !get_time(ctx, k, argv[0], &T) || !local_day(ctx, k, &T, Z, argv[0], &day) ) return;
  if( k == K_END ){
    result_date(ctx, k, week_start_of(day, L) + 6, argv[0]);
  }else if( k == K_OF_MONTH && L->cal_kind == CAL_ICU ){
    /* the month of that calendar */
    UErrorCode st = U_ZERO_ERROR;
    int32_t n;
    ucal_setMillis(L->cal, (UDate)(day * 86400000.0), &st);
    n = ucal_get(L->cal, UCAL_WEEK_OF_MONTH, &st);
    if( U_FAILURE(st) ){ sq_err(ctx, k, "calendar computation failed for locale", L->key); return; }
    sqlite3_result_int(ctx, n);
  }else if( k == K_OF_MONTH ){
    sqlite3_result_int(ctx, sq_week_of_month(day, L->first_day, L->min_days));
  }else{
    char out[384];
    int n = week_label(ctx, k, c, L, style, week_start_of(day, L), argv[0], out, (int)sizeof out);
    if( n >= 0 ) sqlite3_result_text(ctx, out, n, SQLITE_TRANSIENT);
  }
}

/* ---- locale_weeks: the week series -------------------------------------- */

/* Columns; the arguments are the hidden ones, in order */
#define LW_WEEK 0
#define LW_START 1
#define LW_END 2
#define LW_LABEL 3
#define LW_ARG_START 4     /* start_time, end_time, locale, tz, style */
#define LW_NARGS 5

typedef struct LwTable {
  sqlite3_vtab base;
  SqWeekCache *c;
} LwTable;

typedef struct LwCursor {
  sqlite3_vtab_cursor base;
  int64_t ws, last;              /* this week's first day; the last week's */
  SqLocale loc;                  /* a copy: the cache may recycle its entry
                                 ** (CAL_ICU: loc.cal is the cursor's own clone) */
  int style;
  sqlite3_value *start_arg;      /* for error messages */
} LwCursor;

static int lw_connect(sqlite3 *db, void *aux, int argc, const char *const *argv,
                      sqlite3_vtab **pp, char **err){
  LwTable *t;
  int rc = sqlite3_declare_vtab(db, "CREATE TABLE x(week TEXT, week_start TEXT, week_end TEXT, "
      "label TEXT, start_time HIDDEN, end_time HIDDEN, locale HIDDEN, tz HIDDEN, style HIDDEN)");
  if( rc != SQLITE_OK ) return rc;
  t = sqlite3_malloc(sizeof(*t));
  if( !t ) return SQLITE_NOMEM;
  memset(t, 0, sizeof(*t));
  t->c = (SqWeekCache*)aux;
  sqlite3_vtab_config(db, SQLITE_VTAB_INNOCUOUS);
  *pp = &t->base;
  return SQLITE_OK;
}

static int lw_disconnect(sqlite3_vtab *p){ sqlite3_free(p); return SQLITE_OK; }

/* idxNum: bit i set when hidden argument i has an = constraint */
static int lw_best_index(sqlite3_vtab *tab, sqlite3_index_info *info){
  int i, pos[LW_NARGS], mask = 0, n = 0;
  for(i = 0; i < LW_NARGS; i++) pos[i] = -1;
  for(i = 0; i < info->nConstraint; i++){
    const struct sqlite3_index_constraint *k = &info->aConstraint[i];
    int a = k->iColumn - LW_ARG_START;
    if( a < 0 || a >= LW_NARGS ) continue;
    if( !k->usable || k->op != SQLITE_INDEX_CONSTRAINT_EQ ) return SQLITE_CONSTRAINT;
    pos[a] = i;
  }
  for(i = 0; i < LW_NARGS; i++){
    if( pos[i] < 0 ) continue;
    mask |= 1 << i;
    info->aConstraintUsage[pos[i]].argvIndex = ++n;
    info->aConstraintUsage[pos[i]].omit = 1;
  }
  if( (mask & 7) != 7 || (mask & 16 && !(mask & 8)) ){
    sqlite3_free(tab->zErrMsg);
    tab->zErrMsg = sqlite3_mprintf("locale_weeks: needs start_time, end_time and locale "
                                   "(then tz, then style)");
    return SQLITE_ERROR;
  }
  info->idxNum = mask;
  info->estimatedCost = 10;
  info->estimatedRows = 1000;
  /* rows come in time order; week keys of another calendar may not sort
  ** so as text (a 5-digit hebrew year), so ORDER BY week is SQLite's */
  if( info->nOrderBy == 1 && info->aOrderBy[0].iColumn >= LW_START
      && info->aOrderBy[0].iColumn <= LW_END && !info->aOrderBy[0].desc ){
    info->orderByConsumed = 1;
  }
  return SQLITE_OK;
}

static int lw_open(sqlite3_vtab *p, sqlite3_vtab_cursor **pp){
  LwCursor *cur = sqlite3_malloc(sizeof(*cur));
  if( !cur ) return SQLITE_NOMEM;
  memset(cur, 0, sizeof(*cur));
  cur->last = -1;
  *pp = &cur->base;
  return SQLITE_OK;
}

static int lw_close(sqlite3_vtab_cursor *p){
  LwCursor *cur = (LwCursor*)p;
  if( cur->loc.cal ) ucal_close(cur->loc.cal);
  sqlite3_value_free(cur->start_arg);
  sqlite3_free(cur);
  return SQLITE_OK;
}

/* Takes the error the helpers left in pending_err (none: out of memory) */
static int lw_fail(sqlite3_vtab_cursor *p){
  sqlite3_vtab *t = p->pVtab;
  if( !pending_err ) return SQLITE_NOMEM;
  sqlite3_free(t->zErrMsg);
  t->zErrMsg = pending_err;
  pending_err = 0;
  return SQLITE_ERROR;
}

/* The same for an error about one of the two times, which the message
** names: "locale_weeks: end_time: impossible date '2011-02-30'" */
static int lw_fail_time(sqlite3_vtab_cursor *p, const char *arg){
  const char *prefix = "locale_weeks: ";
  size_t n = strlen(prefix);
  char *m;
  if( !pending_err ) return SQLITE_NOMEM;
  if( strncmp(pending_err, prefix, n) == 0 ){
    m = sqlite3_mprintf("%s%s: %s", prefix, arg, pending_err + n);
    sqlite3_free(pending_err);
    pending_err = m;
  }
  return lw_fail(p);
}

static int lw_filter(sqlite3_vtab_cursor *p, int idxNum, const char *idxStr,
                     int argc, sqlite3_value **argv){
  LwCursor *cur = (LwCursor*)p;
  SqWeekCache *c = ((LwTable*)p->pVtab)->c;
  const char *const names[LW_NARGS] = { "start_time", "end_time", "locale", "tz", "style" };
  SqLocale *L;
  SqZone *Z = 0;
  SqTime T0, T1;
  int64_t d0, d1;
  int i;
  cur->ws = 0;
  cur->last = -1;
  for(i = 0; i < argc; i++){
    if( sqlite3_value_type(argv[i]) == SQLITE_NULL ){
      sqlite3_free(p->pVtab->zErrMsg);
      p->pVtab->zErrMsg = sqlite3_mprintf("locale_weeks: %s is NULL", names[i]);
      return SQLITE_ERROR;
    }
  }
  L = get_locale(0, c, K_SERIES, argv, 2);
  if( !L ) return lw_fail(p);
  if( cur->loc.cal ) ucal_close(cur->loc.cal);
  cur->loc = *L;
  cur->loc.cal = 0;
  if( L->cal_kind == CAL_ICU ){
    UErrorCode st = U_ZERO_ERROR;
    cur->loc.cal = ucal_clone(L->cal, &st);
    if( U_FAILURE(st) || !cur->loc.cal ){
      /* (ICU fails a clone for want of memory) */
      if( cur->loc.cal ){ ucal_close(cur->loc.cal); cur->loc.cal = 0; }
      return SQLITE_NOMEM;
    }
  }
  if( argc > 3 && !(Z = get_zone(0, c, K_SERIES, argv[3])) ) return lw_fail(p);
  cur->style = 1;
  if( argc > 4 && (cur->style = get_style(0, K_SERIES, argv[4])) < 0 ) return lw_fail(p);
  if( !get_time(0, K_SERIES, argv[0], &T0) || !local_day(0, K_SERIES, &T0, Z, argv[0], &d0) ){
    return lw_fail_time(p, "start_time");
  }
  if( !get_time(0, K_SERIES, argv[1], &T1) || !local_day(0, K_SERIES, &T1, Z, argv[1], &d1) ){
    return lw_fail_time(p, "end_time");
  }
  if( d1 < d0 ){
    sq_err_arg(0, K_SERIES, "end_time is before start_time: end_time", argv[1]);
    return lw_fail(p);
  }
  sqlite3_value_free(cur->start_arg);
  if( !(cur->start_arg = sqlite3_value_dup(argv[0])) ) return SQLITE_NOMEM;
  cur->ws = week_start_of(d0, &cur->loc);
  cur->last = week_start_of(d1, &cur->loc);
  /* every week of the series lies in years 0000..9999, or no row comes */
  if( cur->ws < SQ_FIRST_DAY ){
    sq_err_arg(0, K_SERIES, "its week starts before 0000-01-01 (years 0000-9999): time", argv[0]);
    return lw_fail_time(p, "start_time");
  }
  if( cur->last + 6 > SQ_LAST_DAY ){
    sq_err_arg(0, K_SERIES, "its week ends after 9999-12-31 (years 0000-9999): time", argv[1]);
    return lw_fail_time(p, "end_time");
  }
  return SQLITE_OK;
}

static int lw_next(sqlite3_vtab_cursor *p){ ((LwCursor*)p)->ws += 7; return SQLITE_OK; }
static int lw_eof(sqlite3_vtab_cursor *p){
  LwCursor *cur = (LwCursor*)p;
  return cur->ws > cur->last;
}

static int lw_column(sqlite3_vtab_cursor *p, sqlite3_context *ctx, int col){
  LwCursor *cur = (LwCursor*)p;
  char buf[384], *o;
  int wy, wn, n;
  switch( col ){
    case LW_WEEK:
      if( cur->loc.cal_kind == CAL_ICU ){
        if( !icu_week_key(cur->loc.cal, cur->ws, &wy, &wn) ){
          sq_err(ctx, K_SERIES, "calendar computation failed for locale", cur->loc.key);
          break;
        }
      }else{
        sq_week_of(cur->ws, cur->loc.first_day, cur->loc.min_days, &wy, &wn, 0);
      }
      o = put_num(buf, wy, 4);
      *o++ = '-';
      o = put_num(o, wn, 2);
      sqlite3_result_text(ctx, buf, (int)(o - buf), SQLITE_TRANSIENT);
      break;
    case LW_START: result_date(ctx, K_SERIES, cur->ws, cur->start_arg); break;
    case LW_END: result_date(ctx, K_SERIES, cur->ws + 6, cur->start_arg); break;
    case LW_LABEL:
      n = week_label(ctx, K_SERIES, ((LwTable*)p->pVtab)->c, &cur->loc, cur->style, cur->ws,
                     cur->start_arg, buf, (int)sizeof buf);
      if( n >= 0 ) sqlite3_result_text(ctx, buf, n, SQLITE_TRANSIENT);
      break;
    default: break;    /* the hidden arguments: NULL */
  }
  return SQLITE_OK;
}

static int lw_rowid(sqlite3_vtab_cursor *p, sqlite3_int64 *rowid){
  *rowid = ((LwCursor*)p)->ws;
  return SQLITE_OK;
}

static sqlite3_module lw_module = {
  0, 0, lw_connect, lw_best_index, lw_disconnect, 0, lw_open, lw_close, lw_filter,
  lw_next, lw_eof, lw_column, lw_rowid,
  0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0
};

/* ---- the SQL function ---------------------------------------------------- */

static void sq_week_run(sqlite3_context *ctx, SqKind k, int argc, sqlite3_value **argv){
  SqWeekCache *c = (SqWeekCache*)sqlite3_user_data(ctx);
  SqLocale *L;
  SqZone *Z = 0;
  SqTime T;
  int64_t day;
  int i, time_idx, loc_idx, tz_idx, wy, wn;
  char buf[48], *p;

  for(i = 0; i < argc; i++) if( sqlite3_value_type(argv[i]) == SQLITE_NULL ) return;
  if( k >= K_END ){ sq_report_run(ctx, k, argc, argv); return; }
  if( k == K_RULES ){
    L = get_locale(ctx, c, k, argv, 0);
    if( !L ) return;
    p = sqlite3_mprintf("{\"first_day\":\"%s\",\"min_days\":%d}", day_names[L->first_day], L->min_days);
    if( !p ){ sq_fail_nomem(ctx); return; }
    sqlite3_result_text(ctx, p, -1, sqlite3_free);
    return;
  }
  time_idx = k == K_FORMAT ? 1 : 0;
  loc_idx = time_idx + 1 < argc ? time_idx + 1 : -1;
  tz_idx = time_idx + 2 < argc ? time_idx + 2 : -1;
  if( k == K_FORMAT && sqlite3_value_type(argv[0]) != SQLITE_TEXT ){
    sq_type_err(ctx, k, "pattern", "TEXT", sqlite3_value_type(argv[0]));
    return;
  }
  L = get_locale(ctx, c, k, argv, loc_idx);
  if( !L ) return;
  if( tz_idx >= 0 && !(Z = get_zone(ctx, c, k, argv[tz_idx])) ) return;
  if( !get_time(ctx, k, argv[time_idx], &T) ) return;
  if( k == K_FORMAT ){
    const char *pat = (const char*)sqlite3_value_text(argv[0]);
    SqFmt *F;
    if( !pat ){ sq_fail_nomem(ctx); return; }
    if( (int)strlen(pat) != sqlite3_value_bytes(argv[0]) ){ sq_err_arg(ctx, k, "invalid pattern", argv[0]); return; }
    F = get_fmt(ctx, c, pat, L, Z);
    if( !F ) return;
    /* both paths start from the same local day (and the same range error) */
    if( !local_day(ctx, k, &T, Z, argv[time_idx], &day) ) return;
    if( F->fast ){
      char out[SQ_KEYMAX + 64];
      int n = fmt_fast(F, day, out, (int)sizeof(out));
      if( n >= 0 ){ sqlite3_result_text(ctx, out, n, SQLITE_TRANSIENT); return; }
    }
    format_date_icu(ctx, F, L, Z, &T, day, argv[time_idx]);
    return;
  }
  if( !local_day(ctx, k, &T, Z, argv[time_idx], &day) ) return;
  if( L->cal_kind == CAL_ICU && (k == K_WEEK || k == K_NUMBER || k == K_YEAR) ){
    /* an explicit non-Gregorian calendar: ICU computes the week fields */
    if( !icu_week_key(L->cal, day, &wy, &wn) ){
      sq_err(ctx, k, "calendar computation failed for locale", L->key);
      return;
    }
    if( k == K_NUMBER ) sqlite3_result_int(ctx, wn);
    else if( k == K_YEAR ) sqlite3_result_int(ctx, wy);
    else{
      p = put_num(buf, wy, 4);
      *p++ = '-';
      p = put_num(p, wn, 2);
      sqlite3_result_text(ctx, buf, (int)(p - buf), SQLITE_TRANSIENT);
    }
    return;
  }
  switch( k ){
    case K_WEEK:
      sq_week_of(day, L->first_day, L->min_days, &wy, &wn, 0);
      p = put_num(buf, wy, 4);
      *p++ = '-';
      p = put_num(p, wn, 2);
      sqlite3_result_text(ctx, buf, (int)(p - buf), SQLITE_TRANSIENT);
      break;
    case K_START:
      result_date(ctx, k, week_start_of(day, L), argv[time_idx]);
      break;
    case K_NUMBER:
      sq_week_of(day, L->first_day, L->min_days, 0, &wn, 0);
      sqlite3_result_int(ctx, wn);
      break;
    case K_YEAR:
      sq_week_of(day, L->first_day, L->min_days, &wy, 0, 0);
      sqlite3_result_int(ctx, wy);
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
  c = (SqWeekCache*)sqlite3_malloc64(sizeof(*c));
  if( !c ) return SQLITE_NOMEM;
  memset(c, 0, sizeof(*c));
  c->refs = 1;          /* held during registration */
  for(i = 0; rc == SQLITE_OK && i < sizeof(sq_week_funcs) / sizeof(sq_week_funcs[0]); i++){
    c->refs++;          /* xDestroy runs on failure too */
    rc = sqlite3_create_function_v2(db, fname(sq_week_funcs[i].kind), sq_week_funcs[i].nargs,
        SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS, c,
        impl[sq_week_funcs[i].kind], 0, 0, cache_release);
  }
  if( rc == SQLITE_OK ){
    c->refs++;
    rc = sqlite3_create_module_v2(db, "locale_weeks", &lw_module, c, cache_release);
  }
  cache_release(c);
  return rc;
}
