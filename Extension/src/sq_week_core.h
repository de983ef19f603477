/*
** sq_week_core.h — the locale-week core behind the SQL functions of
** sq_week.c and the locale_weeks table of sq_weeks_table.c: locales (ICU
** week rules and calendars), time zones (the system's zone files, else
** ICU's), time values to local days, the format_date pattern compiler and
** formatter, week keys, week labels, MySQL weeks and fiscal calendars.
**
** No SQLite call state here: functions take plain C values (strings with
** their lengths, NUL-terminated after them as sqlite3_value_text gives
** them; SqTime; day numbers) and return 1 on success, or 0 with
** the error in an SqWeekErr, the exact message the SQL function reports.
** The ICU objects and zone files it opens live in an SqWeekCache, one per
** connection.  Unit-tested by Extension/test/test_week_core.c, the pattern
** compiler and week keys fuzzed by Extension/fuzz/fuzz_week_core.c.
*/
#ifndef SQ_WEEK_CORE_H
#define SQ_WEEK_CORE_H
#include "sq_calendar.h"
#include "sq_time.h"
#include "sq_tzif.h"

#include <stdint.h>
#include <string.h>
#include <unicode/ucal.h>
#include <unicode/udat.h>
#include <unicode/udateintervalformat.h>

/* Internal to the extension: calls bind within it (no PLT) */
#pragma GCC visibility push(hidden)

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

/* One op of a numeric fast-path format program: a field letter and its
** count, or (field 0) lits[lit_off .. lit_off + lit_len) */
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

/* The per-connection cache: a few locales, zones, formatters and label
** formatters, each array recycled round robin, the last hit tried first. */
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

/* A new cache holding one reference (NULL: out of memory). */
SqWeekCache *sq_week_cache_new(void);
/* Drops one reference (a void* for sqlite3_create_function_v2's xDestroy);
** the last one frees the cache and its ICU objects. */
void sq_week_cache_release(void *c);

/* ---- errors -------------------------------------------------------------- */

/* An error: the caller sets fn, the SQL function's name that starts every
** message; a failing call sets msg (sqlite3_malloc'd, the caller frees it),
** or leaves it NULL when memory ran out. */
typedef struct SqWeekErr {
  const char *fn;
  char *msg;
} SqWeekErr;

/* A value named in error messages (the time argument, a week key), whose
** text is asked for only when an error names it: text(p, &n) returns it
** and its length in bytes (NUL bytes included), or NULL when out of memory.
** sq_week_arg_cstr: p is a NUL-terminated string. */
typedef struct SqWeekArg {
  const char *(*text)(void *p, int *n);
  void *p;
} SqWeekArg;
const char *sq_week_arg_cstr(void *p, int *n);

/* m (a copy) as the whole message; no message: out of memory */
void sq_week_err_set(SqWeekErr *e, const char *m);
void sq_week_err_nomem(SqWeekErr *e);
/* "FN: WHAT 'VALUE'", the value as sq_str_value() writes it (cut to
** SQ_ECHO_MAX bytes, invalid UTF-8 and control characters escaped). */
void sq_week_err_value(SqWeekErr *e, const char *what, const char *val, int64_t n);
/* The same with the text of a value named by an SqWeekArg */
void sq_week_err_arg(SqWeekErr *e, const char *what, const SqWeekArg *a);

/* ---- locales, zones, times ---------------------------------------------- */

/* The cached locale for argument arg (n bytes, which may hold a NUL: then
** ill-formed), or the ISO 8601 pseudo-locale when arg is NULL; NULL after
** an error ("unknown locale 'xx_YY'", …).  The last locale used is
** checked inline; sq_week_locale_find looks further and resolves new ones. */
SqLocale *sq_week_locale_find(SqWeekCache *c, const char *arg, int n, SqWeekErr *e);
static inline SqLocale *sq_week_locale(SqWeekCache *c, const char *arg, int n, SqWeekErr *e){
  SqLocale *L = &c->loc[c->loc_last];       /* the last one used, first */
  if( L->used && L->iso == (arg == 0) && L->keylen == n && (n == 0 || memcmp(L->key, arg, n) == 0) ) return L;
  return sq_week_locale_find(c, arg, n, e);
}
/* The cached time zone for the IANA ID arg (n bytes); NULL after an error
** (the last one used inline, then sq_week_zone_find). */
SqZone *sq_week_zone_find(SqWeekCache *c, const char *arg, int n, SqWeekErr *e);
static inline SqZone *sq_week_zone(SqWeekCache *c, const char *arg, int n, SqWeekErr *e){
  SqZone *Z = &c->zone[c->zone_last];      /* the last one used, first */
  if( Z->used && Z->keylen == n && memcmp(Z->key, arg, n) == 0 ) return Z;
  return sq_week_zone_find(c, arg, n, e);
}
/* Offset of zone Z at UTC instant ms, in ms: from the system's zone file
** when there is one, else from ICU (0 on failure). */
int sq_week_zone_offset(SqZone *Z, int64_t ms, int32_t *off);

/* A time value as text (n bytes) or as a number (a Julian day or Unix
** seconds; a, its text as SQLite writes it, only for the message).
** sq_week_time_error: the message of a text that sq_time_parse_text()
** refused with rc. */
int sq_week_time_error(const char *z, int n, int rc, SqWeekErr *e);
static inline int sq_week_time_text(const char *z, int n, SqTime *T, SqWeekErr *e){
  int rc = (int)strlen(z) != n ? SQ_TIME_MALFORMED : sq_time_parse_text(z, n, T);
  return rc == SQ_TIME_OK ? 1 : sq_week_time_error(z, n, rc, e);
}
int sq_week_time_number(double x, const SqWeekArg *a, SqTime *T, SqWeekErr *e);
/* Local calendar day of T (named by tv in messages) in zone Z (NULL =
** UTC), within years 0000..9999.  A date is a calendar day: not shifted. */
int sq_week_local_day_of(const SqTime *T, SqZone *Z, const SqWeekArg *tv, int64_t *day, SqWeekErr *e);
static inline int sq_week_local_day(const SqTime *T, SqZone *Z, const SqWeekArg *tv, int64_t *day,
                                    SqWeekErr *e){
  if( T->is_date ){ *day = T->day; return 1; }
  return sq_week_local_day_of(T, Z, tv, day, e);
}

/* ---- weeks ---------------------------------------------------------------- */

/* The first day of the locale week holding `day` */
static inline int64_t sq_week_start_of(int64_t day, const SqLocale *L){
  return day - (sq_dow(day) - L->first_day + 7) % 7;
}
/* Week-year and week of `day` in L: arithmetic, or L's ICU calendar for
** CAL_ICU (cal: L->cal or a clone of it). */
int sq_week_key_icu(const SqLocale *L, UCalendar *cal, int64_t day, int *wy, int *wn, SqWeekErr *e);
static inline int sq_week_key_of(const SqLocale *L, UCalendar *cal, int64_t day, int *wy, int *wn,
                                 SqWeekErr *e){
  if( L->cal_kind == CAL_ICU ) return sq_week_key_icu(L, cal, day, wy, wn, e);
  sq_week_of(day, L->first_day, L->min_days, wy, wn, 0);
  return 1;
}
/* 'YYYY-WW' of a week key, without NUL: its length (buf: 16 bytes) */
int sq_week_key_text(int wy, int wn, char *buf);
/* 'YYYY-MM-DD' of day, without NUL (buf: 16 bytes): its length, or -1 with
** the error "has a result out of range (years 0000-9999) for time 'T'". */
int sq_week_date_text(int64_t day, const SqWeekArg *tv, char *buf, SqWeekErr *e);
/* "sunday" .. "saturday" for 1..7 */
const char *sq_week_day_name(int day);
/* Week of the month (ICU's W) of day in L, in L's calendar */
int sq_week_month_week(const SqLocale *L, int64_t day, int *out, SqWeekErr *e);

/* locale_week_parse: the first day of week key z (n bytes; 'YYYY-WW', or
** ISO 'YYYY-Www' when L has ISO rules) in L. */
int sq_week_parse_key(const SqLocale *L, const char *z, int n, int64_t *start, SqWeekErr *e);

/* Label styles: 0 short, 1 medium, 2 long; -1 for another name */
int sq_week_style(const char *z, int n);
/* The week from ws to ws + 6 as the locale writes a date interval ("Jan 2
** – 8, 2011"), NUL-terminated UTF-8 in out (cap bytes): its length, or -1
** after an error (tv names the time it came from). */
int sq_week_label(SqWeekCache *c, const SqLocale *L, int style, int64_t ws,
                  const SqWeekArg *tv, char *out, int cap, SqWeekErr *e);

/* ---- format_date ------------------------------------------------------- */

/* Validates pattern pat (n bytes, no NUL) and builds F's numeric fast
** program when it can: 0 when the pattern is invalid (unknown letters, an
** unterminated quote, invalid UTF-8). */
int sq_week_compile_pattern(const char *pat, int n, SqFmt *F);
/* Fast numeric formatting of a calendar day: its length, or -1 when this
** value needs ICU (year outside 1..9999, or no room in out). */
int sq_week_fmt_fast(const SqFmt *F, int64_t day, char *out, int cap);
/* The cached formatter of pattern pat (NUL-terminated) in L and Z (NULL:
** UTC); NULL after an error ("pattern too long", "invalid pattern"). */
SqFmt *sq_week_fmt(SqWeekCache *c, const char *pat, SqLocale *L, SqZone *Z, SqWeekErr *e);
/* format_date of T, whose local day is `day`: the text in buf (cap bytes),
** or in a new buffer (sqlite3_free) when longer; its length in *n; NULL
** after an error. */
char *sq_week_format(SqFmt *F, SqLocale *L, SqZone *Z, const SqTime *T, int64_t day,
                     const SqWeekArg *tv, char *buf, int cap, int *n, SqWeekErr *e);

/* ---- MySQL weeks and fiscal calendars ---------------------------------- */

/* MySQL's WEEK(d, mode) (yearweek 0) or YEARWEEK(d, mode) (1) of day */
int sq_week_mysql(int64_t day, int mode, int yearweek, const SqWeekArg *tv,
                  int64_t *out, SqWeekErr *e);
/* The fiscal calendar spec z (n bytes), parsed (the last one is cached) */
const SqFiscalCal *sq_week_fiscal(SqWeekCache *c, const char *z, int n, SqWeekErr *e);

#pragma GCC visibility pop

#endif
