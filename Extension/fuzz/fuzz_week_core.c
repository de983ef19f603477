/*
** fuzz_week_core.c — libFuzzer harness for the parsers of the locale-week
** core (sq_week_core.c), called directly, without SQLite: the format_date
** pattern compiler, locale resolution and week keys (locale_week_parse).
**
** The input is split on '\n' into a pattern, a week key and a locale.
** - A pattern that compiles has a program within its bounds (at most 32
**   ops, literals inside the literal buffer); the numeric fast path writes
**   within any buffer it is given (an exact-size heap buffer, for ASan) and,
**   in en_US, writes what ICU writes for the same days.
** - A locale resolves, or fails with a message "fuzz: …" of valid UTF-8;
**   one that resolves has week rules (first day 1..7, minimal days 1..7).
** - A key that parses in a locale (ISO weeks, en_US, the input's locale) is
**   a week start there, and that week's key is the key again; a key that
**   does not parse fails with a message "fuzz: …" of valid UTF-8.
*/
#include "sq_internal.h"
#include "sq_week_core.h"
#include "fuzz_common.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static SqWeekCache *cache;

/* The message of a failed call must be there (or out of memory), start
** with the function's name and be valid UTF-8 */
static void check_err(SqWeekErr *e){
  if( e->msg ){
    size_t n = strlen(e->msg);
    if( strncmp(e->msg, "fuzz: ", 6) != 0 || !valid_utf8((const unsigned char*)e->msg, n) ) abort();
    sqlite3_free(e->msg);
    e->msg = 0;
  }
}

static void check_pattern(const char *pat, int n, SqLocale *us){
  static const int64_t days[] = { 0, -141349, 14976, 2932896, 730000, -100000 };
  SqFmt F;
  int i, k, lits = 0;
  memset(&F, 0, sizeof F);
  if( !sq_week_compile_pattern(pat, n, &F) ) return;
  if( F.nops < 0 || F.nops > 32 ) abort();
  for(k = 0; k < F.nops; k++){
    const SqOp *o = &F.ops[k];
    if( o->field == 0 ){
      if( o->lit_off != lits || o->lit_len < 1 || o->lit_off + o->lit_len > SQ_KEYMAX ) abort();
      lits += o->lit_len;
    }else if( !strchr("yYMdweD", o->field) || o->count < 1 || o->count > 4 ){
      abort();     /* only the numeric fields have ops */
    }
  }
  if( !F.fast ) return;
  F.first_day = 1;
  F.min_days = 1;
  for(i = 0; i < (int)(sizeof days / sizeof days[0]); i++){
    int caps[3] = { 16, 64, 384 }, c;
    for(c = 0; c < 3; c++){
      char *out = malloc((size_t)caps[c]);
      int len = sq_week_fmt_fast(&F, days[i], out, caps[c]);
      if( len > caps[c] ) abort();
      free(out);
    }
  }
  /* the fast path agrees with ICU: a pattern without NUL, in en_US */
  if( us && !memchr(pat, 0, (size_t)n) && n < SQ_KEYMAX ){
    SqWeekErr e = { "fuzz", 0 };
    char zpat[SQ_KEYMAX];
    SqFmt *P;
    memcpy(zpat, pat, (size_t)n);
    zpat[n] = 0;
    P = sq_week_fmt(cache, zpat, us, 0, &e);
    if( !P ){ check_err(&e); return; }
    for(i = 0; i < (int)(sizeof days / sizeof days[0]); i++){
      char a[384], b[384], *pa, *pb;
      int na = 0, nb = 0, fast = P->fast;
      SqTime T;
      SqWeekArg tv = { sq_week_arg_cstr, (void*)"day" };
      if( days[i] < -141349 ) continue;        /* ICU writes earlier days as Julian dates in en_US */
      T.is_date = 1; T.day = days[i]; T.ms = 0;
      pa = sq_week_format(P, us, 0, &T, days[i], &tv, a, (int)sizeof a, &na, &e);
      P->fast = 0;
      pb = sq_week_format(P, us, 0, &T, days[i], &tv, b, (int)sizeof b, &nb, &e);
      P->fast = fast;
      if( pa && pb && (na != nb || memcmp(pa, pb, (size_t)na) != 0) ) abort();
      if( pa && pa != a ) sqlite3_free(pa);
      if( pb && pb != b ) sqlite3_free(pb);
      check_err(&e);
    }
  }
}

static void check_key(SqLocale *L, const char *key, int n){
  SqWeekErr e = { "fuzz", 0 };
  int64_t ws;
  int y, w, iso, wy, wn;
  if( !sq_week_parse_key(L, key, n, &ws, &e) ){ check_err(&e); return; }
  if( !sq_week_key_parse(key, n, &y, &w, &iso) ) abort();     /* it parsed */
  if( ws < SQ_FIRST_DAY || sq_week_start_of(ws, L) != ws ) abort();
  if( !sq_week_key_of(L, L->cal, ws, &wy, &wn, &e) ){ check_err(&e); return; }
  if( wy != y || wn != w ) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size){
  const char *args[3] = { "YYYY-ww", "2011-02", "en_US" };
  int lens[3] = { 7, 7, 5 };
  SqWeekErr e = { "fuzz", 0 };
  SqLocale *us, *iso, *L;
  if( !cache && !(cache = sq_week_cache_new()) ) abort();
  char *z[3];
  int i;
  split_args(data, size, args, lens, 3);
  /* the core reads strings NUL-terminated after their n bytes, as SQLite gives them */
  for(i = 0; i < 3; i++){
    if( !(z[i] = malloc((size_t)lens[i] + 1)) ) abort();
    memcpy(z[i], args[i], (size_t)lens[i]);
    z[i][lens[i]] = 0;
    args[i] = z[i];
  }
  us = sq_week_locale(cache, "en_US", 5, &e);
  check_pattern(args[0], lens[0], us);
  iso = sq_week_locale(cache, 0, 0, &e);
  if( iso ) check_key(iso, args[1], lens[1]);
  us = sq_week_locale(cache, "en_US", 5, &e);
  if( us ) check_key(us, args[1], lens[1]);
  L = sq_week_locale(cache, args[2], lens[2], &e);
  if( L ){
    if( L->first_day < 1 || L->first_day > 7 || L->min_days < 1 || L->min_days > 7 ) abort();
    check_key(L, args[1], lens[1]);
  }
  check_err(&e);
  for(i = 0; i < 3; i++) free(z[i]);
  return 0;
}
