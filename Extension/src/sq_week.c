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
**   '±HH:MM', or a Julian day number (REAL, INTEGER or numeric text).
**   A date without a time part is a calendar date and is never shifted.
**   A timestamp is UTC unless it carries an offset, and is converted into
**   tz (default UTC) before its week is computed.  'now' is rejected: these
**   functions are deterministic.  Years 0000..9999 only; impossible dates
**   ('2011-02-30') are errors (SQLite would silently normalise them).
**   Numeric text is a Julian day, as in SQLite: '2011' is year -4707 (out
**   of range), not the year 2011.
**   Calendar: proleptic Gregorian (no 1582 Julian cutover).
**
** locale: POSIX ('en_US', 'de_DE', 'zh_Hant_TW') or BCP 47 ('en-US',
**   'ar-EG').  Keywords: fw (first weekday: 'en_US@fw=mon',
**   'en-US-u-fw-mon'), rg (region override: 'en_US@rg=gbzzzz'), calendar
**   ('th_TH@calendar=buddhist', 'he-IL-u-ca-hebrew': week year and number
**   then come from that ICU calendar, as ICU's own YYYY-ww; iso8601 =
**   Gregorian with Monday/4-day weeks; unknown calendars are errors).
**   Without @calendar the Gregorian calendar is used whatever the locale
**   (th_TH too).  The
**   language must be known to ICU (ISO 639) and the region, if given, to
**   ISO 3166 (or a 3-digit UN M.49 code).  Without a locale, ISO 8601 weeks
**   (Monday, 4 days) and, for format_date, English names (en_US_POSIX).
**
** tz: an IANA time zone ID ('America/New_York', 'UTC').
**
** format_date patterns: ICU/CLDR date patterns.  Numeric-only patterns
**   (y, yy, yyyy, Y, YY, YYYY, M, MM, d, dd, w, ww, e, ee, D, DD, DDD and
**   quoted or punctuation literals) in a locale with Latin digits are
**   computed directly; others go through a cached ICU UDateFormat.
**
** Errors: NULL in any argument gives NULL.  Anything else that is wrong
** is an SQL error naming the function, the argument and the value, e.g.
**   locale_week: unknown locale 'xx_YY'
**   locale_week: ill-formed locale 'english'
**   locale_week: impossible date '2011-02-30'
**   locale_week: invalid time '2011-1-2'
**   locale_week: unknown calendar in locale 'th_TH@calendar=marsian'
**   locale_week: unknown time zone 'Mars/Olympus'
**   format_date: invalid pattern 'YYYY-jj'
**   locale_week: locale must be TEXT, got integer
**
** Speed: ICU objects are built once per connection (a small cache of
** locales, zones and formatters, owned by the function's user data) and
** reused; week numbers are pure integer arithmetic per row.
*/
#include "sq_internal.h"
#include "sq_time.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <unicode/ucal.h>
#include <unicode/udat.h>
#include <unicode/uloc.h>
#include <unicode/unumsys.h>
#include <unicode/ustring.h>

/* ---- per-connection cache -------------------------------------------- */

#define SQ_NLOC  16
#define SQ_NZONE 8
#define SQ_NFMT  8
#define SQ_KEYMAX 160

typedef struct SqLocale {
  int used;
  char key[SQ_KEYMAX];          /* the locale argument as given ("" = none) */
  char icu[SQ_KEYMAX];          /* canonical ICU id, calendar=gregorian */
  int first_day, min_days;      /* 1=Sunday..7, 1..7 */
  int latn;                     /* default digits are ASCII */
  int iso;                      /* the no-locale entry (ISO 8601 weeks) */
  int cal_kind;                 /* 0 Gregorian (arithmetic), 1 other ICU calendar */
  UCalendar *cal;               /* cal_kind 1: that calendar, in UTC */
} SqLocale;

typedef struct SqZone {
  int used;
  char key[SQ_KEYMAX];
  UChar id[SQ_KEYMAX];
  int32_t id_len;
  int utc;                      /* always offset 0: no calendar needed */
  UCalendar *cal;               /* for offsets (NULL when utc) */
} SqZone;

/* One op of a numeric fast-path format program */
typedef struct SqOp { char field; unsigned char count; int lit_off, lit_len; } SqOp;

typedef struct SqFmt {
  int used;
  char pattern[SQ_KEYMAX], loc_key[SQ_KEYMAX], tz_key[SQ_KEYMAX];
  int first_day, min_days;
  int fast;                     /* fast program valid */
  SqOp ops[32];
  int nops;
  char lits[SQ_KEYMAX];
  UDateFormat *fmt;             /* ICU path (built lazily) */
  UCalendar *cal;               /* wall clock -> instant for dates */
} SqFmt;

typedef struct SqWeekCache {
  int refs;
  SqLocale loc[SQ_NLOC];  int loc_next, loc_last;
  SqZone zone[SQ_NZONE];  int zone_next, zone_last;
  SqFmt fmt[SQ_NFMT];     int fmt_next, fmt_last;
} SqWeekCache;

static void loc_clear(SqLocale *L){
  if( L->cal ) ucal_close(L->cal);
  memset(L, 0, sizeof(*L));
}
static void zone_clear(SqZone *z){
  if( z->cal ) ucal_close(z->cal);
  memset(z, 0, sizeof(*z));
}
static void fmt_clear(SqFmt *f){
  if( f->fmt ) udat_close(f->fmt);
  if( f->cal ) ucal_close(f->cal);
  memset(f, 0, sizeof(*f));
}

static void cache_release(void *p){
  SqWeekCache *c = (SqWeekCache*)p;
  int i;
  if( !c || --c->refs > 0 ) return;
  for(i = 0; i < SQ_NLOC; i++) loc_clear(&c->loc[i]);
  for(i = 0; i < SQ_NZONE; i++) zone_clear(&c->zone[i]);
  for(i = 0; i < SQ_NFMT; i++) fmt_clear(&c->fmt[i]);
  sqlite3_free(c);
}

/* ---- errors ------------------------------------------------------------ */

typedef enum { K_WEEK, K_START, K_NUMBER, K_YEAR, K_WEEKDAY, K_RULES, K_FORMAT } SqKind;

typedef struct SqFuncDef { const char *name; int nargs; SqKind kind; } SqFuncDef;

static const SqFuncDef sq_week_funcs[] = {
  { "locale_week",        1, K_WEEK },
  { "locale_week",        2, K_WEEK },
  { "locale_week",        3, K_WEEK },
  { "locale_week_start",  1, K_START },
  { "locale_week_start",  2, K_START },
  { "locale_week_start",  3, K_START },
  { "locale_week_number", 2, K_NUMBER },
  { "locale_week_number", 3, K_NUMBER },
  { "locale_week_year",   2, K_YEAR },
  { "locale_week_year",   3, K_YEAR },
  { "locale_weekday",     2, K_WEEKDAY },
  { "locale_weekday",     3, K_WEEKDAY },
  { "locale_week_rules",  1, K_RULES },
  { "format_date",        2, K_FORMAT },
  { "format_date",        3, K_FORMAT },
  { "format_date",        4, K_FORMAT },
};

static const char *fname(SqKind k){
  switch( k ){
    case K_WEEK: return "locale_week";
    case K_START: return "locale_week_start";
    case K_NUMBER: return "locale_week_number";
    case K_YEAR: return "locale_week_year";
    case K_WEEKDAY: return "locale_weekday";
    case K_RULES: return "locale_week_rules";
    default: return "format_date";
  }
}

static void sq_err(sqlite3_context *ctx, SqKind k, const char *what, const char *val){
  char *m = sqlite3_mprintf("%s: %s '%s'", fname(k), what, val);
  if( m ){ sqlite3_result_error(ctx, m, -1); sqlite3_free(m); }
  else sqlite3_result_error_nomem(ctx);
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
  if( m ){ sqlite3_result_error(ctx, m, -1); sqlite3_free(m); }
  else sqlite3_result_error_nomem(ctx);
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
  L->cal_kind = strcmp(calname, "gregorian") != 0 && strcmp(calname, "iso8601") != 0;

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
  if( L->cal_kind ){
    UErrorCode s4 = U_ZERO_ERROR;
    ucal_setAttribute(cal, UCAL_FIRST_DAY_OF_WEEK, L->first_day);
    ucal_setGregorianChange(cal, -8.64e15, &s4);   /* only Gregorian-based ones; else ignored */
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
    if( !arg ){ sqlite3_result_error_nomem(ctx); return 0; }
    n = sqlite3_value_bytes(argv[idx]);
  }
  L = &c->loc[c->loc_last];
  if( L->used && L->iso == (idx < 0) && strcmp(L->key, arg) == 0 ) return L;
  for(i = 0; i < SQ_NLOC; i++){
    L = &c->loc[i];
    if( L->used && L->iso == (idx < 0) && strcmp(L->key, arg) == 0 ){ c->loc_last = i; return L; }
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
    sq_err(ctx, k, "ill-formed locale", arg);
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
  if( !arg ){ sqlite3_result_error_nomem(ctx); return 0; }
  n = sqlite3_value_bytes(v);
  Z = &c->zone[c->zone_last];
  if( Z->used && strcmp(Z->key, arg) == 0 ) return Z;
  for(i = 0; i < SQ_NZONE; i++){
    Z = &c->zone[i];
    if( Z->used && strcmp(Z->key, arg) == 0 ){ c->zone_last = i; return Z; }
  }
  if( n == 0 || n >= SQ_KEYMAX - 1 || (int)strlen(arg) != n ){
    sq_err(ctx, k, "unknown time zone", arg);
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
  }
  memcpy(Z->key, arg, n + 1);
  Z->used = 1;
  c->zone_last = i;
  return Z;
}

/* Offset of zone Z at UTC instant ms, in ms. */
static int zone_offset(SqZone *Z, int64_t ms, int32_t *off){
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

/* ---- time argument ------------------------------------------------------- */

/* Parses argv value `v` into `T`; on error sets it and returns 0. */
static int get_time(sqlite3_context *ctx, SqKind k, sqlite3_value *v, SqTime *T){
  int t = sqlite3_value_type(v), rc;
  if( t == SQLITE_INTEGER || t == SQLITE_FLOAT ){
    double jd = sqlite3_value_double(v);
    rc = sq_time_from_julian(jd, T);
    if( rc != SQ_TIME_OK ){
      const char *txt = (const char*)sqlite3_value_text(v);
      sq_err(ctx, k, "time out of range (years 0000-9999)", txt ? txt : "?");
      return 0;
    }
    return 1;
  }
  if( t != SQLITE_TEXT ){
    sq_type_err(ctx, k, "time", "TEXT or a Julian day number", t);
    return 0;
  }
  {
    const char *z = (const char*)sqlite3_value_text(v);
    int n = sqlite3_value_bytes(v);
    if( !z ){ sqlite3_result_error_nomem(ctx); return 0; }
    if( (int)strlen(z) != n ){ sq_err(ctx, k, "invalid time", z); return 0; }
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

/* Local calendar day of T in zone Z (NULL = UTC); 0 + error on failure. */
static int local_day(sqlite3_context *ctx, SqKind k, const SqTime *T, SqZone *Z,
                     int64_t *day){
  int32_t off = 0;
  if( T->is_date ){ *day = T->day; return 1; }
  if( Z && !zone_offset(Z, T->ms, &off) ){
    sqlite3_result_error(ctx, "time zone conversion failed", -1);
    return 0;
  }
  *day = sq_floor_div(T->ms + off, 86400000LL);
  if( *day < -719528LL || *day > 2932896LL ){
    char buf[32];
    snprintf(buf, sizeof(buf), "%lld", (long long)T->ms);
    sq_err(ctx, k, "time out of range in zone (ms)", buf);
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

/* Validates `pat`; builds a fast numeric program in F when possible.
** Returns 0 if the pattern is invalid. */
static int compile_pattern(const char *pat, SqFmt *F){
  int i = 0, n = (int)strlen(pat), fast = 1, nl = 0;
  F->nops = 0;
  while( i < n ){
    char ch = pat[i];
    if( is_pattern_letter(ch) ){
      int j = i;
      while( j < n && pat[j] == ch ) j++;
      if( !is_icu_field(ch) ) return 0;
      {
        int cnt = j - i, ok = 0;
        switch( ch ){
          case 'y': case 'Y': ok = cnt == 1 || cnt == 2 || cnt == 4; break;
          case 'M': case 'd': case 'w': case 'e': ok = cnt <= 2; break;
          case 'D': ok = cnt <= 3; break;
        }
        if( !ok || F->nops >= 32 ) fast = 0;
        else{ F->ops[F->nops].field = ch; F->ops[F->nops].count = (unsigned char)cnt; F->nops++; }
      }
      i = j;
    }else if( ch == '\'' ){
      int j = i + 1;
      if( j < n && pat[j] == '\'' ){
        /* '' = a literal quote */
        if( F->nops < 32 && nl + 1 < SQ_KEYMAX ){
          F->ops[F->nops].field = 0; F->ops[F->nops].lit_off = nl; F->ops[F->nops].lit_len = 1;
          F->lits[nl++] = '\''; F->nops++;
        }else fast = 0;
        i = j + 1;
        continue;
      }
      {
        int start = nl;
        for(;;){
          if( j >= n ) return 0;    /* unterminated quote */
          if( pat[j] == '\'' ){
            if( j + 1 < n && pat[j+1] == '\'' ){ if( nl + 1 < SQ_KEYMAX ) F->lits[nl++] = '\''; j += 2; continue; }
            break;
          }
          if( nl + 1 < SQ_KEYMAX ) F->lits[nl++] = pat[j];
          j++;
        }
        if( F->nops < 32 ){
          F->ops[F->nops].field = 0; F->ops[F->nops].lit_off = start; F->ops[F->nops].lit_len = nl - start; F->nops++;
        }else fast = 0;
        i = j + 1;
      }
    }else{
      if( F->nops < 32 && nl + 1 < SQ_KEYMAX ){
        F->ops[F->nops].field = 0; F->ops[F->nops].lit_off = nl; F->ops[F->nops].lit_len = 1;
        F->lits[nl++] = ch; F->nops++;
      }else fast = 0;
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
  if( !L->latn || L->cal_kind ) F->fast = 0;
  strcpy(F->pattern, pat);
  strcpy(F->loc_key, L->key);
  strcpy(F->tz_key, tzk);
  F->first_day = L->first_day;
  F->min_days = L->min_days;
  F->used = 1;
  c->fmt_last = i;
  return F;
}

/* Builds the ICU formatter of F (lazily: the fast path never needs it). */
static int fmt_open_icu(sqlite3_context *ctx, SqFmt *F, SqLocale *L, SqZone *Z){
  UErrorCode st = U_ZERO_ERROR;
  UChar upat[SQ_KEYMAX * 2];
  int32_t ul = 0;
  const UChar *tz = Z ? Z->id : u"UTC";
  int32_t tzl = Z ? Z->id_len : 3;
  u_strFromUTF8(upat, SQ_KEYMAX * 2, &ul, F->pattern, -1, &st);
  if( U_FAILURE(st) ){ sq_err(ctx, K_FORMAT, "invalid pattern", F->pattern); return 0; }
  F->cal = ucal_open(tz, tzl, L->icu, L->cal_kind ? UCAL_DEFAULT : UCAL_GREGORIAN, &st);
  if( U_SUCCESS(st) ){
    UErrorCode s5 = U_ZERO_ERROR;
    ucal_setGregorianChange(F->cal, -8.64e15, &s5);   /* proleptic Gregorian (ignored by others) */
    ucal_setAttribute(F->cal, UCAL_FIRST_DAY_OF_WEEK, F->first_day);
    ucal_setAttribute(F->cal, UCAL_MINIMAL_DAYS_IN_FIRST_WEEK, F->min_days);
  }
  if( U_SUCCESS(st) ) F->fmt = udat_open(UDAT_PATTERN, UDAT_PATTERN, L->icu, tz, tzl, upat, ul, &st);
  if( U_SUCCESS(st) ) udat_setCalendar(F->fmt, F->cal);
  if( U_FAILURE(st) ){
    if( F->fmt ){ udat_close(F->fmt); F->fmt = 0; }
    if( F->cal ){ ucal_close(F->cal); F->cal = 0; }
    sq_err(ctx, K_FORMAT, "invalid pattern", F->pattern);
    return 0;
  }
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

static void format_date_icu(sqlite3_context *ctx, SqFmt *F, SqLocale *L, SqZone *Z,
                            const SqTime *T){
  UErrorCode st = U_ZERO_ERROR;
  UChar ubuf[256];
  char obuf[1024];
  int32_t ul, ol = 0;
  UDate when;
  if( !F->fmt && !fmt_open_icu(ctx, F, L, Z) ) return;
  if( T->is_date && (!Z || Z->utc) ){
    when = (UDate)(T->day * 86400000.0);
  }else if( T->is_date ){
    /* midnight (or the first existing time) of that date in the zone, via
    ** the zone's proleptic Gregorian calendar (F->cal may be Hebrew, …) */
    int y, m, d;
    sq_civil_from_days(T->day, &y, &m, &d);
    ucal_clear(Z->cal);
    ucal_setDateTime(Z->cal, y, m - 1, d, 0, 0, 0, &st);
    when = ucal_getMillis(Z->cal, &st);
  }else{
    when = (UDate)T->ms;
  }
  ul = udat_format(F->fmt, when, ubuf, 256, 0, &st);
  if( U_SUCCESS(st) && ul < 256 ) u_strToUTF8(obuf, sizeof(obuf), &ol, ubuf, ul, &st);
  if( U_FAILURE(st) || ul >= 256 || ol >= (int32_t)sizeof(obuf) ){
    sq_err(ctx, K_FORMAT, "cannot format with pattern", F->pattern);
    return;
  }
  sqlite3_result_text(ctx, obuf, ol, SQLITE_TRANSIENT);
}

/* ---- the SQL function ---------------------------------------------------- */

static void sq_week_run(sqlite3_context *ctx, SqKind k, int argc, sqlite3_value **argv){
  SqWeekCache *c = (SqWeekCache*)sqlite3_user_data(ctx);
  SqLocale *L;
  SqZone *Z = 0;
  SqTime T;
  int64_t day, ws;
  int i, time_idx, loc_idx, tz_idx, wy, wn;
  char buf[48], *p;

  for(i = 0; i < argc; i++) if( sqlite3_value_type(argv[i]) == SQLITE_NULL ) return;
  if( k == K_RULES ){
    L = get_locale(ctx, c, k, argv, 0);
    if( !L ) return;
    p = sqlite3_mprintf("{\"first_day\":\"%s\",\"min_days\":%d}", day_names[L->first_day], L->min_days);
    if( !p ){ sqlite3_result_error_nomem(ctx); return; }
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
    if( !pat ){ sqlite3_result_error_nomem(ctx); return; }
    if( (int)strlen(pat) != sqlite3_value_bytes(argv[0]) ){ sq_err(ctx, k, "invalid pattern", pat); return; }
    F = get_fmt(ctx, c, pat, L, Z);
    if( !F ) return;
    if( F->fast ){
      char out[SQ_KEYMAX + 64];
      int n;
      if( !local_day(ctx, k, &T, Z, &day) ) return;
      n = fmt_fast(F, day, out, (int)sizeof(out));
      if( n >= 0 ){ sqlite3_result_text(ctx, out, n, SQLITE_TRANSIENT); return; }
    }
    format_date_icu(ctx, F, L, Z, &T);
    return;
  }
  if( !local_day(ctx, k, &T, Z, &day) ) return;
  if( L->cal_kind && (k == K_WEEK || k == K_NUMBER || k == K_YEAR) ){
    /* an explicit non-Gregorian calendar: ICU computes the week fields */
    UErrorCode st = U_ZERO_ERROR;
    ucal_setMillis(L->cal, (UDate)(day * 86400000.0), &st);
    wy = ucal_get(L->cal, UCAL_YEAR_WOY, &st);
    wn = ucal_get(L->cal, UCAL_WEEK_OF_YEAR, &st);
    if( U_FAILURE(st) ){ sq_err(ctx, k, "calendar computation failed for locale", L->key); return; }
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
    case K_START: {
      int y, m, d;
      ws = day - (sq_dow(day) - L->first_day + 7) % 7;
      sq_civil_from_days(ws, &y, &m, &d);
      p = put_num(buf, y, 4); *p++ = '-';
      p = put_num(p, m, 2); *p++ = '-';
      p = put_num(p, d, 2);
      sqlite3_result_text(ctx, buf, (int)(p - buf), SQLITE_TRANSIENT);
      break;
    }
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

int sq_week_register(sqlite3 *db){
  static void (*const impl[])(sqlite3_context*, int, sqlite3_value**) = {
    f_week, f_start, f_number, f_year, f_weekday, f_rules, f_format
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
    rc = sqlite3_create_function_v2(db, sq_week_funcs[i].name, sq_week_funcs[i].nargs,
        SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS, c,
        impl[sq_week_funcs[i].kind], 0, 0, cache_release);
  }
  cache_release(c);
  return rc;
}
