/*
** sq_week_core.c — the locale-week core: see sq_week_core.h.  Locale
** resolution (ICU's week rules, keywords and calendars), time zones (the
** system's zone files through sq_tzif.c, else ICU), time values to local
** days, the format_date pattern compiler and its numeric fast path, ICU
** formatting, week keys and labels, MySQL weeks and fiscal calendars, with
** the per-connection cache of ICU objects.  No SQLite call state: errors
** are messages in an SqWeekErr, which the SQL side reports as they are.
*/
#include "sq_internal.h"
#include "sq_week_core.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <unicode/uloc.h>
#include <unicode/unumsys.h>
#include <unicode/ustring.h>

/* ---- the cache ----------------------------------------------------------- */

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

SqWeekCache *sq_week_cache_new(void){
  SqWeekCache *c = (SqWeekCache*)sqlite3_malloc64(sizeof(*c));
  if( !c ) return 0;
  memset(c, 0, sizeof(*c));
  c->refs = 1;
  return c;
}

void sq_week_cache_release(void *p){
  SqWeekCache *c = (SqWeekCache*)p;
  int i;
  if( !c || --c->refs > 0 ) return;
  for(i = 0; i < SQ_NLOC; i++) loc_clear(&c->loc[i]);
  for(i = 0; i < SQ_NZONE; i++) zone_clear(&c->zone[i]);
  for(i = 0; i < SQ_NFMT; i++) fmt_clear(&c->fmt[i]);
  for(i = 0; i < SQ_NLABEL; i++) label_clear(&c->label[i]);
  sqlite3_free(c);
}

/* ---- errors ---------------------------------------------------------------- */

const char *sq_week_arg_cstr(void *p, int *n){
  *n = (int)strlen((const char*)p);
  return (const char*)p;
}

/* Takes m (sqlite3_malloc'd; NULL: out of memory) as e's message */
static void err_take(SqWeekErr *e, char *m){
  sqlite3_free(e->msg);
  e->msg = m;
}

void sq_week_err_set(SqWeekErr *e, const char *m){
  err_take(e, sqlite3_mprintf("%s", m));
}
void sq_week_err_nomem(SqWeekErr *e){
  err_take(e, 0);
}

void sq_week_err_value(SqWeekErr *e, const char *what, const char *val, int64_t n){
  sqlite3_str *s = sqlite3_str_new(0);
  sqlite3_str_appendf(s, "%s: %s ", e->fn, what);
  sq_str_value(s, val, n, 1);
  err_take(e, sqlite3_str_finish(s));
}
static void err_cstr(SqWeekErr *e, const char *what, const char *val){
  sq_week_err_value(e, what, val, (int64_t)strlen(val));
}

void sq_week_err_arg(SqWeekErr *e, const char *what, const SqWeekArg *a){
  int n = 0;
  const char *z = a->text(a->p, &n);
  if( !z ){ err_take(e, 0); return; }
  sq_week_err_value(e, what, z, n);
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

SqLocale *sq_week_locale_find(SqWeekCache *c, const char *arg, int n, SqWeekErr *e){
  int i, rc, iso = arg == 0;
  SqLocale *L;
  if( iso ){ arg = ""; n = 0; }
  /* keys are compared with their lengths: 'en_US' || x'00' || 'x' is not
  ** 'en_US' (it is an ill-formed locale, on every connection alike) */
  for(i = 0; i < SQ_NLOC; i++){
    L = &c->loc[i];
    if( L->used && L->iso == iso && L->keylen == n && memcmp(L->key, arg, n) == 0 ){
      c->loc_last = i;
      return L;
    }
  }
  i = c->loc_next;
  c->loc_next = (i + 1) % SQ_NLOC;
  L = &c->loc[i];
  loc_clear(L);
  if( iso ){
    locale_iso(L);
    c->loc_last = i;
    return L;
  }
  if( n >= SQ_KEYMAX || (int)strlen(arg) != n ){
    sq_week_err_value(e, "ill-formed locale", arg, n);
    return 0;
  }
  rc = locale_resolve(arg, L);
  if( rc != LOC_OK ){
    loc_clear(L);
    err_cstr(e, rc == LOC_ILLFORMED ? "ill-formed locale"
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

SqZone *sq_week_zone_find(SqWeekCache *c, const char *arg, int n, SqWeekErr *e){
  int i;
  SqZone *Z;
  UErrorCode st = U_ZERO_ERROR;
  UChar canon[SQ_KEYMAX];
  UBool sys = 0;
  int32_t cl;
  for(i = 0; i < SQ_NZONE; i++){
    Z = &c->zone[i];
    if( Z->used && Z->keylen == n && memcmp(Z->key, arg, n) == 0 ){ c->zone_last = i; return Z; }
  }
  if( n == 0 || n >= SQ_KEYMAX - 1 || (int)strlen(arg) != n ){
    sq_week_err_value(e, "unknown time zone", arg, n);
    return 0;
  }
  for(i = 0; i < n; i++){
    unsigned char ch = (unsigned char)arg[i];
    if( ch <= ' ' || ch >= 0x7f ){ err_cstr(e, "unknown time zone", arg); return 0; }
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
    err_cstr(e, "unknown time zone", arg);
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
      err_cstr(e, "unknown time zone", arg);
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
        err_take(e, 0);
        return 0;
      }
      if( rc != SQ_TZIF_OK && rc != SQ_TZIF_NOFILE ){
        char what[400];
        snprintf(what, sizeof what, "cannot read the system's zone file (%s) for time zone",
                 err ? err : "?");
        sqlite3_free(err);
        zone_clear(Z);
        err_cstr(e, what, arg);
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
** when there is one, else from ICU (sq_week_zone_offset). */
static int zone_offset(SqZone *Z, int64_t ms, int32_t *off){
  int32_t s;
  if( Z->utc ){ *off = 0; return 1; }
  if( !Z->tzif ) return zone_offset_icu(Z, ms, off);
  if( !sq_tzif_offset(Z->tzif, sq_floor_div(ms, 1000), &s) ) return 0;
  *off = s * 1000;
  return 1;
}

int sq_week_zone_offset(SqZone *Z, int64_t ms, int32_t *off){
  return zone_offset(Z, ms, off);
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

/* ---- time values ---------------------------------------------------------- */

int sq_week_time_number(double x, const SqWeekArg *a, SqTime *T, SqWeekErr *e){
  if( sq_time_from_number(x, T) != SQ_TIME_OK ){
    int n = 0;
    const char *txt = a->text(a->p, &n);
    err_cstr(e, "time out of range (years 0000-9999; a number is a Julian day from 0 to 5373484.5, "
             "else Unix seconds)", txt ? txt : "?");
    return 0;
  }
  return 1;
}

int sq_week_time_error(const char *z, int n, int rc, SqWeekErr *e){
  if( (int)strlen(z) != n ){ sq_week_err_value(e, "invalid time", z, n); return 0; }
  switch( rc ){
    case SQ_TIME_NOW: err_cstr(e, "non-deterministic time (pass a value)", z); return 0;
    case SQ_TIME_BADDATE: err_cstr(e, "impossible date", z); return 0;
    case SQ_TIME_RANGE: err_cstr(e, "time out of range (years 0000-9999)", z); return 0;
    default: err_cstr(e, "invalid time", z); return 0;
  }
}

/* "FUNCTION: time 'T' WHAT time zone 'TZ'[ TAIL]" */
static void err_in_zone(SqWeekErr *e, const SqWeekArg *tv, const char *what,
                        const SqZone *Z, const char *tail){
  sqlite3_str *s = sqlite3_str_new(0);
  int n = 0;
  const char *z = tv->text(tv->p, &n);
  sqlite3_str_appendf(s, "%s: time ", e->fn);
  sq_str_value(s, z ? z : "", z ? n : 0, 1);
  sqlite3_str_appendf(s, " %s time zone ", what);
  sq_str_value(s, Z->key, Z->keylen, 1);
  if( tail ) sqlite3_str_appendf(s, " %s", tail);
  err_take(e, sqlite3_str_finish(s));
}

int sq_week_local_day_of(const SqTime *T, SqZone *Z, const SqWeekArg *tv, int64_t *day, SqWeekErr *e){
  int32_t off = 0;
  if( T->is_date ){ *day = T->day; return 1; }
  if( Z && !zone_offset(Z, T->ms, &off) ){
    err_in_zone(e, tv, "cannot be converted into", Z, 0);
    return 0;
  }
  *day = sq_floor_div(T->ms + off, 86400000LL);
  if( *day < SQ_FIRST_DAY || *day > SQ_LAST_DAY ){
    err_in_zone(e, tv, "is out of range (years 0000-9999) in", Z, 0);
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
const char *sq_week_day_name(int day){ return day >= 1 && day <= 7 ? day_names[day] : ""; }

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
int sq_week_compile_pattern(const char *pat, int n, SqFmt *F){
  int i = 0, fast = 1, nl = 0;
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

SqFmt *sq_week_fmt(SqWeekCache *c, const char *pat, SqLocale *L, SqZone *Z, SqWeekErr *e){
  int i;
  size_t n;
  const char *tzk = Z ? Z->key : "";
  SqFmt *F = &c->fmt[c->fmt_last];
  if( F->used && strcmp(F->pattern, pat) == 0 && strcmp(F->loc_key, L->key) == 0
      && strcmp(F->tz_key, tzk) == 0 ) return F;
  for(i = 0; i < SQ_NFMT; i++){
    F = &c->fmt[i];
    if( F->used && strcmp(F->pattern, pat) == 0 && strcmp(F->loc_key, L->key) == 0
        && strcmp(F->tz_key, tzk) == 0 ){ c->fmt_last = i; return F; }
  }
  n = strlen(pat);
  if( n >= SQ_KEYMAX ){ err_cstr(e, "pattern too long", pat); return 0; }
  i = c->fmt_next;
  c->fmt_next = (i + 1) % SQ_NFMT;
  F = &c->fmt[i];
  fmt_clear(F);
  if( !sq_week_compile_pattern(pat, (int)n, F) ){
    fmt_clear(F);
    err_cstr(e, "invalid pattern", pat);
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
static int fmt_open_icu(SqWeekErr *e, SqFmt *F, SqLocale *L,
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
    err_cstr(e, "invalid pattern", F->pattern);
    return 0;
  }
  *pfmt = fmt;
  *pcal = cal;
  return 1;
}

int sq_week_fmt_fast(const SqFmt *F, int64_t day, char *out, int cap){
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

/* format_date through ICU.  `day` is the local day of T.
** A date (no time part) is a calendar day at 00:00, never shifted: with
** no zone fields in the pattern it is formatted in UTC, so its fields are
** its own whatever tz says (the numeric path ignores tz for a date too);
** with zone fields (z Z O v V X x) it is 00:00 of that day in tz, and a day
** on which 00:00 does not exist in tz (Pacific/Apia skipped 2011-12-30; a
** DST change at midnight) is an error, not another day. */
static char *format_icu(SqFmt *F, SqLocale *L, SqZone *Z, const SqTime *T, int64_t day,
                        const SqWeekArg *tv, char *ostack, int cap, int *pn, SqWeekErr *e){
  UErrorCode st = U_ZERO_ERROR;
  UChar ustack[128], *u = ustack;
  char *o = ostack;
  int32_t ul, ol = 0;
  UDate when;
  UDateFormat *fmt;
  if( L->cal_kind == CAL_GREGORIAN_ERAS && day < SQ_DAY_1583 ){
    char what[160];
    snprintf(what, sizeof what, "time before 1583-01-01 in the %s calendar "
             "(ICU counts earlier days in it as Julian dates):", L->calname);
    sq_week_err_arg(e, what, tv);
    return 0;
  }
  if( T->is_date && Z && !Z->utc && !F->zone_fields ){
    /* a date in UTC: its own fields */
    if( !F->dfmt && !fmt_open_icu(e, F, L, u"UTC", 3, &F->dfmt, &F->dcal) ) return 0;
    fmt = F->dfmt;
    when = (UDate)(day * 86400000.0);
  }else if( Z && !Z->utc && !F->zone_fields ){
    /* a timestamp without zone fields: its local wall time (the system's
    ** offset, as the week functions use) formatted in UTC */
    int32_t off = 0;
    if( !zone_offset(Z, T->ms, &off) ){
      err_in_zone(e, tv, "cannot be converted into", Z, 0);
      return 0;
    }
    if( !F->dfmt && !fmt_open_icu(e, F, L, u"UTC", 3, &F->dfmt, &F->dcal) ) return 0;
    fmt = F->dfmt;
    when = (UDate)(T->ms + off);
  }else{
    if( !F->fmt && !fmt_open_icu(e, F, L, Z ? Z->id : u"UTC", Z ? Z->id_len : 3,
                                 &F->fmt, &F->cal) ) return 0;
    fmt = F->fmt;
    if( T->is_date && Z && !Z->utc ){
      /* 00:00 of that day in the zone (through its proleptic Gregorian
      ** calendar: F->cal may be Hebrew, …); it must exist */
      int64_t ms;
      if( !zone_local_to_utc(Z, day * 86400000LL, &ms) ){
        err_in_zone(e, tv, "is a date that has no 00:00 in", Z,
                    "(the pattern has time zone fields, which a date takes from 00:00)");
        return 0;
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
        int y, mo, d, hh, mi, ss;
        int64_t sec = sq_floor_div((int64_t)when, 1000);
        int64_t dd = sq_floor_div(sec, 86400), rem = sec - dd * 86400;
        sq_civil_from_days(dd, &y, &mo, &d);
        hh = (int)(rem / 3600); mi = (int)(rem / 60 % 60); ss = (int)(rem % 60);
        err_take(e, sqlite3_mprintf("format_date: ICU's time zone data disagrees with the system's for "
                                    "'%s' at '%04d-%02d-%02dT%02d:%02d:%02dZ'; use a pattern without "
                                    "zone fields", Z->key, y, mo, d, hh, mi, ss));
        return 0;
      }
    }
  }
  ul = udat_format(fmt, when, u, (int32_t)(sizeof(ustack) / sizeof(UChar)), 0, &st);
  if( st == U_BUFFER_OVERFLOW_ERROR ){
    /* no output limit: a pattern of 159 bytes can ask for a lot */
    st = U_ZERO_ERROR;
    u = sqlite3_malloc64(((sqlite3_uint64)ul + 1) * sizeof(UChar));
    if( !u ){ err_take(e, 0); return 0; }
    ul = udat_format(fmt, when, u, ul + 1, 0, &st);
  }
  if( U_SUCCESS(st) && (sqlite3_int64)ul * 3 >= (sqlite3_int64)cap ){
    o = sqlite3_malloc64((sqlite3_uint64)ul * 3 + 1);
    if( !o ){ if( u != ustack ) sqlite3_free(u); err_take(e, 0); return 0; }
  }
  if( U_SUCCESS(st) ){
    u_strToUTF8(o, o == ostack ? (int32_t)cap : ul * 3 + 1, &ol, u, ul, &st);
  }
  if( u != ustack ) sqlite3_free(u);
  if( U_FAILURE(st) ){
    err_cstr(e, "cannot format with pattern", F->pattern);
    if( o != ostack ) sqlite3_free(o);
    return 0;
  }
  *pn = ol;
  return o;
}

char *sq_week_format(SqFmt *F, SqLocale *L, SqZone *Z, const SqTime *T, int64_t day,
                     const SqWeekArg *tv, char *buf, int cap, int *n, SqWeekErr *e){
  if( F->fast ){
    int k = sq_week_fmt_fast(F, day, buf, cap);
    if( k >= 0 ){ *n = k; return buf; }
  }
  return format_icu(F, L, Z, T, day, tv, buf, cap, n, e);
}

/* ---- weeks: keys, dates, week of month, labels ----------------------------- */

int sq_week_date_text(int64_t day, const SqWeekArg *tv, char *buf, SqWeekErr *e){
  char *p;
  int y, m, d;
  if( day < SQ_FIRST_DAY || day > SQ_LAST_DAY ){
    sq_week_err_arg(e, "has a result out of range (years 0000-9999) for time", tv);
    return -1;
  }
  sq_civil_from_days(day, &y, &m, &d);
  p = put_num(buf, y, 4); *p++ = '-';
  p = put_num(p, m, 2); *p++ = '-';
  p = put_num(p, d, 2);
  return (int)(p - buf);
}

int sq_week_key_text(int wy, int wn, char *buf){
  char *p = put_num(buf, wy, 4);
  *p++ = '-';
  p = put_num(p, wn, 2);
  return (int)(p - buf);
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

/* An explicit non-Gregorian calendar: ICU computes the week fields */
int sq_week_key_icu(const SqLocale *L, UCalendar *cal, int64_t day, int *wy, int *wn, SqWeekErr *e){
  if( !icu_week_key(cal, day, wy, wn) ){
    err_cstr(e, "calendar computation failed for locale", L->key);
    return 0;
  }
  return 1;
}

int sq_week_month_week(const SqLocale *L, int64_t day, int *out, SqWeekErr *e){
  if( L->cal_kind == CAL_ICU ){
    /* the month of that calendar */
    UErrorCode st = U_ZERO_ERROR;
    ucal_setMillis(L->cal, (UDate)(day * 86400000.0), &st);
    *out = ucal_get(L->cal, UCAL_WEEK_OF_MONTH, &st);
    if( U_FAILURE(st) ){ err_cstr(e, "calendar computation failed for locale", L->key); return 0; }
    return 1;
  }
  *out = sq_week_of_month(day, L->first_day, L->min_days);
  return 1;
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
  d = sq_week_start_of(d, L);
  for(k = 0; k <= 16; k++){
    int64_t t = d + (k & 1 ? 7 : -7) * (int64_t)((k + 1) / 2);
    if( !icu_week_key(cal, t, &wy, &wn) ) return 0;
    if( wy == year && wn == week ){ *start = t; return 1; }
  }
  return 0;
}

int sq_week_parse_key(const SqLocale *L, const char *z, int n, int64_t *start, SqWeekErr *e){
  int y, w, iso;
  int64_t ws;
  if( !sq_week_key_parse(z, n, &y, &w, &iso) ){
    sq_week_err_value(e, "invalid week key (YYYY-WW, or ISO YYYY-Www)", z, n);
    return 0;
  }
  if( iso && !(L->first_day == UCAL_MONDAY && L->min_days == 4) ){
    sqlite3_str *s = sqlite3_str_new(0);
    sqlite3_str_appendf(s, "%s: ISO week key ", e->fn);
    sq_str_value(s, z, n, 1);
    sqlite3_str_appendf(s, " with locale ");
    sq_str_value(s, L->key, L->keylen, 1);
    sqlite3_str_appendf(s, ", whose weeks are not ISO weeks (Monday, 4 days): write YYYY-WW");
    err_take(e, sqlite3_str_finish(s));
    return 0;
  }
  if( L->cal_kind == CAL_ICU ? !icu_week_key_start(L->cal, L, y, w, &ws)
                             : !sq_week_key_start(y, w, L->first_day, L->min_days, &ws) ){
    sq_week_err_value(e, "no such week in its year: key", z, n);
    return 0;
  }
  if( ws < SQ_FIRST_DAY ){
    sqlite3_str *s = sqlite3_str_new(0);
    sqlite3_str_appendf(s, "%s: week key ", e->fn);
    sq_str_value(s, z, n, 1);
    sqlite3_str_appendf(s, " starts before 0000-01-01");
    err_take(e, sqlite3_str_finish(s));
    return 0;
  }
  *start = ws;
  return 1;
}

static const char *const label_styles[3] = { "short", "medium", "long" };
static const UChar *const label_skeletons[3] = { u"yMd", u"yMMMd", u"yMMMMd" };

int sq_week_style(const char *z, int n){
  int i;
  for(i = 0; i < 3; i++){
    if( (int)strlen(label_styles[i]) == n && strcmp(z, label_styles[i]) == 0 ) return i;
  }
  return -1;
}

int sq_week_label(SqWeekCache *c, const SqLocale *L, int style, int64_t ws,
                  const SqWeekArg *tv, char *out, int cap, SqWeekErr *e){
  SqLabelFmt *F = 0;
  UErrorCode st = U_ZERO_ERROR;
  UChar u[128];
  int32_t ul, ol = 0;
  int i;
  if( ws < SQ_FIRST_DAY || ws + 6 > SQ_LAST_DAY ){
    /* as locale_week_start/locale_week_end for the same time */
    sq_week_err_arg(e, "has a result out of range (years 0000-9999) for time", tv);
    return -1;
  }
  if( L->cal_kind != CAL_ICU && ws < SQ_DAY_1583 ){
    sq_week_err_arg(e, "cannot label a week before 1583-01-01 (ICU writes earlier days as "
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
      err_cstr(e, "ICU has no date interval format for locale", L->key);
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
    err_cstr(e, "cannot write the week label in locale", L->key);
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

/* ---- MySQL weeks, fiscal calendars ------------------------------------------ */

int sq_week_mysql(int64_t day, int mode, int yearweek, const SqWeekArg *tv,
                  int64_t *out, SqWeekErr *e){
  int y, w, yy, mm, dd;
  sq_civil_from_days(day, &yy, &mm, &dd);
  if( yy < 1 ){
    sq_week_err_arg(e, "time before 0001-01-01 (MySQL's year 0 has no leap day):", tv);
    return 0;
  }
  w = sq_mysql_week(day, mode, yearweek, &y);
  *out = yearweek ? (int64_t)y * 100 + w : w;
  return 1;
}

const SqFiscalCal *sq_week_fiscal(SqWeekCache *c, const char *z, int n, SqWeekErr *e){
  char err[200];
  if( c->fiscal_used && c->fiscal_keylen == n && memcmp(c->fiscal_key, z, n) == 0 ) return &c->fiscal;
  c->fiscal_used = 0;
  if( n >= SQ_KEYMAX ){ sq_week_err_value(e, "calendar too long (at most 159 bytes):", z, n); return 0; }
  if( (int)strlen(z) != n ){
    sq_week_err_value(e, "invalid calendar", z, n);
    return 0;
  }
  if( !sq_fiscal_parse(z, n, &c->fiscal, err, (int)sizeof err) ){
    sqlite3_str *s = sqlite3_str_new(0);
    sqlite3_str_appendf(s, "%s: invalid calendar ", e->fn);
    sq_str_value(s, z, n, 1);
    sqlite3_str_appendf(s, ": %s", err);
    err_take(e, sqlite3_str_finish(s));
    return 0;
  }
  memcpy(c->fiscal_key, z, n);
  c->fiscal_keylen = n;
  c->fiscal_used = 1;
  return &c->fiscal;
}
