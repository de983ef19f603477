/*
** test_week_core.c — unit tests of the locale-week core (sq_week_core.c)
** called directly, without a database connection: locales and their week
** rules, time zones, time values to local days, week keys read and
** written, the format_date pattern compiler and both formatting paths,
** week labels, MySQL weeks, fiscal calendars, and the exact error messages
** the SQL functions report.
*/
#include "sq_internal.h"
#include "sq_week_core.h"
#include "sq_test.h"

#include <stdio.h>
#include <string.h>

static SqWeekCache *c;

/* e's message, then forgets it (the checks compare it as a string) */
static char last[1024];
static const char *msg(SqWeekErr *e){
  snprintf(last, sizeof last, "%s", e->msg ? e->msg : "(out of memory)");
  sqlite3_free(e->msg);
  e->msg = 0;
  return last;
}

static SqLocale *loc(const char *z, SqWeekErr *e){ return sq_week_locale(c, z, (int)strlen(z), e); }

static int64_t day_of(int y, int m, int d){ return sq_days_from_civil(y, m, d); }

static void test_locales(void){
  SqWeekErr e = { "locale_week", 0 };
  SqLocale *L = loc("en_US", &e), *L2;
  SQ_CHECK(L && L->first_day == 1 && L->min_days == 1 && L->cal_kind == CAL_GREGORIAN && L->latn);
  SQ_CHECK((L2 = loc("en_US", &e)) == L);                 /* cached */
  L = loc("de-DE", &e);
  SQ_CHECK(L && L->first_day == 2 && L->min_days == 4);
  L = sq_week_locale(c, 0, 0, &e);
  SQ_CHECK(L && L->iso && L->first_day == 2 && L->min_days == 4);
  L = loc("en_US@fw=mon", &e);
  SQ_CHECK(L && L->first_day == 2 && L->min_days == 1);
  L = loc("he-IL-u-ca-hebrew", &e);
  SQ_CHECK(L && L->cal_kind == CAL_ICU && L->cal && strcmp(L->calname, "hebrew") == 0);
  L = loc("th_TH@calendar=buddhist", &e);
  SQ_CHECK(L && L->cal_kind == CAL_GREGORIAN_ERAS);

  SQ_CHECK(!loc("xx_YY", &e));
  SQ_CHECK_STR(msg(&e), "locale_week: unknown locale 'xx_YY'");
  SQ_CHECK(!loc("english", &e));
  SQ_CHECK_STR(msg(&e), "locale_week: ill-formed locale 'english'");
  SQ_CHECK(!loc("th_TH@calendar=marsian", &e));
  SQ_CHECK_STR(msg(&e), "locale_week: unknown calendar in locale 'th_TH@calendar=marsian'");
  SQ_CHECK(!loc("en_US@fw=xyz", &e));
  SQ_CHECK_STR(msg(&e), "locale_week: invalid keyword value in locale 'en_US@fw=xyz'");
  SQ_CHECK(!sq_week_locale(c, "en_US\0x", 7, &e));
  SQ_CHECK_STR(msg(&e), "locale_week: ill-formed locale 'en_US\\x00x'");
  SQ_CHECK_STR(sq_week_day_name(1), "sunday");
  SQ_CHECK_STR(sq_week_day_name(7), "saturday");
}

static void test_zones_and_times(void){
  SqWeekErr e = { "locale_week", 0 };
  SqZone *Z;
  SqTime T;
  int64_t day;
  int32_t off;
  SqWeekArg tv = { sq_week_arg_cstr, (void*)"2011-01-02T03:00Z" };
  Z = sq_week_zone(c, "UTC", 3, &e);
  SQ_CHECK(Z && Z->utc);
  SQ_CHECK(!sq_week_zone(c, "Mars/Olympus", 12, &e));
  SQ_CHECK_STR(msg(&e), "locale_week: unknown time zone 'Mars/Olympus'");
  SQ_CHECK(!sq_week_zone(c, "", 0, &e));
  SQ_CHECK_STR(msg(&e), "locale_week: unknown time zone ''");
  Z = sq_week_zone(c, "America/New_York", 16, &e);
  SQ_CHECK(Z && !Z->utc);
  if( Z ){
    SQ_CHECK(sq_week_zone_offset(Z, day_of(2011, 1, 2) * 86400000LL, &off) && off == -5 * 3600000);
    SQ_CHECK(sq_week_zone_offset(Z, day_of(2011, 7, 2) * 86400000LL, &off) && off == -4 * 3600000);
    SQ_CHECK(sq_week_time_text("2011-01-02T03:00Z", 17, &T, &e));
    SQ_CHECK(sq_week_local_day(&T, Z, &tv, &day, &e) && day == day_of(2011, 1, 1));
    /* a date is not shifted */
    SQ_CHECK(sq_week_time_text("2011-01-02", 10, &T, &e) && T.is_date);
    SQ_CHECK(sq_week_local_day(&T, Z, &tv, &day, &e) && day == day_of(2011, 1, 2));
    SQ_CHECK(sq_week_time_text("0000-01-01T00:00Z", 17, &T, &e));
    tv.p = (void*)"0000-01-01T00:00Z";
    SQ_CHECK(!sq_week_local_day(&T, Z, &tv, &day, &e));
    SQ_CHECK_STR(msg(&e), "locale_week: time '0000-01-01T00:00Z' is out of range (years 0000-9999) "
                          "in time zone 'America/New_York'");
  }
  SQ_CHECK(!sq_week_time_text("2011-02-30", 10, &T, &e));
  SQ_CHECK_STR(msg(&e), "locale_week: impossible date '2011-02-30'");
  SQ_CHECK(!sq_week_time_text("2011-1-2", 8, &T, &e));
  SQ_CHECK_STR(msg(&e), "locale_week: invalid time '2011-1-2'");
  SQ_CHECK(!sq_week_time_text("now", 3, &T, &e));
  SQ_CHECK_STR(msg(&e), "locale_week: non-deterministic time (pass a value) 'now'");
  SQ_CHECK(!sq_week_time_text("2011-01-02\0", 11, &T, &e));
  SQ_CHECK_STR(msg(&e), "locale_week: invalid time '2011-01-02\\x00'");
  tv.p = (void*)"1000000000000.0";
  SQ_CHECK(!sq_week_time_number(1e12, &tv, &T, &e));
  SQ_CHECK_STR(msg(&e), "locale_week: time out of range (years 0000-9999; a number is a Julian day "
                        "from 0 to 5373484.5, else Unix seconds) '1000000000000.0'");
  SQ_CHECK(sq_week_time_number(2455562.5, &tv, &T, &e) && !T.is_date
           && sq_floor_div(T.ms, 86400000LL) == day_of(2011, 1, 1));
}

static void test_keys(void){
  SqWeekErr e = { "locale_week", 0 };
  SqLocale *us = loc("en_US", &e), *de = loc("de_DE", &e), *he = loc("he-IL-u-ca-hebrew", &e);
  SqWeekArg tv = { sq_week_arg_cstr, (void*)"0000-01-01" };
  char buf[16];
  int wy, wn, n;
  int64_t d = day_of(2011, 1, 2), ws;
  SQ_CHECK(us && de && he);
  if( !us || !de || !he ) return;
  SQ_CHECK(sq_week_key_of(us, us->cal, d, &wy, &wn, &e) && wy == 2011 && wn == 2);
  SQ_CHECK(sq_week_key_of(de, de->cal, d, &wy, &wn, &e) && wy == 2010 && wn == 52);
  n = sq_week_key_text(wy, wn, buf); buf[n] = 0;
  SQ_CHECK_STR(buf, "2010-52");
  SQ_CHECK(sq_week_start_of(day_of(2011, 1, 5), us) == day_of(2011, 1, 2));
  SQ_CHECK(sq_week_start_of(day_of(2011, 1, 5), de) == day_of(2011, 1, 3));
  n = sq_week_date_text(d, &tv, buf, &e); buf[n > 0 ? n : 0] = 0;
  SQ_CHECK_STR(buf, "2011-01-02");
  e.fn = "locale_week_start";
  SQ_CHECK(sq_week_date_text(SQ_FIRST_DAY - 1, &tv, buf, &e) < 0);
  SQ_CHECK_STR(msg(&e), "locale_week_start: has a result out of range (years 0000-9999) for time '0000-01-01'");
  SQ_CHECK(sq_week_month_week(us, d, &n, &e) && n == 2);

  /* a key written is read back to its week, in every kind of calendar */
  e.fn = "locale_week_parse";
  SQ_CHECK(sq_week_parse_key(us, "2011-02", 7, &ws, &e) && ws == day_of(2011, 1, 2));
  SQ_CHECK(sq_week_parse_key(sq_week_locale(c, 0, 0, &e), "2011-W01", 8, &ws, &e) && ws == day_of(2011, 1, 3));
  SQ_CHECK(sq_week_key_of(he, he->cal, d, &wy, &wn, &e));
  n = sq_week_key_text(wy, wn, buf);
  SQ_CHECK(sq_week_parse_key(he, buf, n, &ws, &e) && ws == sq_week_start_of(d, he));
  SQ_CHECK(!sq_week_parse_key(us, "2011-W01", 8, &ws, &e));
  SQ_CHECK_STR(msg(&e), "locale_week_parse: ISO week key '2011-W01' with locale 'en_US', whose weeks "
                        "are not ISO weeks (Monday, 4 days): write YYYY-WW");
  SQ_CHECK(!sq_week_parse_key(us, "2011-54", 7, &ws, &e));
  SQ_CHECK_STR(msg(&e), "locale_week_parse: no such week in its year: key '2011-54'");
  SQ_CHECK(!sq_week_parse_key(us, "2011/02", 7, &ws, &e));
  SQ_CHECK_STR(msg(&e), "locale_week_parse: invalid week key (YYYY-WW, or ISO YYYY-Www) '2011/02'");
}

static void test_patterns(void){
  SqWeekErr e = { "format_date", 0 };
  SqFmt F;
  SqLocale *us = loc("en_US", &e), *de = loc("de_DE", &e);
  SqFmt *P;
  SqTime T;
  SqWeekArg tv = { sq_week_arg_cstr, (void*)"2011-01-02" };
  char out[384], *o;
  int n;
  memset(&F, 0, sizeof F);
  SQ_CHECK(sq_week_compile_pattern("YYYY-ww", 7, &F) && F.fast && !F.zone_fields && F.nops == 3);
  F.first_day = 1; F.min_days = 1;
  n = sq_week_fmt_fast(&F, day_of(2011, 1, 2), out, (int)sizeof out);
  SQ_CHECK(n == 7 && memcmp(out, "2011-02", 7) == 0);
  SQ_CHECK(sq_week_compile_pattern("'week' w 'of' YY, D", 19, &F) && F.fast);
  n = sq_week_fmt_fast(&F, day_of(2011, 1, 2), out, (int)sizeof out);
  SQ_CHECK(n == 15 && memcmp(out, "week 2 of 11, 2", 15) == 0);
  SQ_CHECK(sq_week_compile_pattern("'o''clock' ''", 13, &F) && F.fast);
  n = sq_week_fmt_fast(&F, day_of(2011, 1, 2), out, (int)sizeof out);
  SQ_CHECK(n == 9 && memcmp(out, "o'clock '", 9) == 0);
  SQ_CHECK(sq_week_compile_pattern("EEE d MMM", 9, &F) && !F.fast);
  SQ_CHECK(sq_week_compile_pattern("HH:mm zzzz", 10, &F) && F.zone_fields);
  SQ_CHECK(!sq_week_compile_pattern("YYYY-jj", 7, &F));
  SQ_CHECK(!sq_week_compile_pattern("'abc", 4, &F));
  SQ_CHECK(!sq_week_compile_pattern("y'it''s", 7, &F));
  SQ_CHECK(!sq_week_compile_pattern("\xff", 1, &F));
  SQ_CHECK(sq_week_compile_pattern("", 0, &F) && F.fast && F.nops == 0);

  SQ_CHECK(us && de && sq_week_time_text("2011-01-02", 10, &T, &e));
  if( !us || !de ) return;
  P = sq_week_fmt(c, "YYYY-ww", us, 0, &e);
  SQ_CHECK(P && P->fast);
  o = P ? sq_week_format(P, us, 0, &T, T.day, &tv, out, (int)sizeof out, &n, &e) : 0;
  SQ_CHECK(o == out && n == 7 && memcmp(out, "2011-02", 7) == 0);
  P = sq_week_fmt(c, "EEEE, d. MMMM y", de, 0, &e);
  SQ_CHECK(P && !P->fast);
  o = P ? sq_week_format(P, de, 0, &T, T.day, &tv, out, (int)sizeof out, &n, &e) : 0;
  SQ_CHECK(o == out && n == 23 && memcmp(out, "Sonntag, 2. Januar 2011", 23) == 0);
  SQ_CHECK(!sq_week_fmt(c, "YYYY-jj", us, 0, &e));
  SQ_CHECK_STR(msg(&e), "format_date: invalid pattern 'YYYY-jj'");
  {
    char longp[200];
    memset(longp, 'y', 170);
    longp[170] = 0;
    SQ_CHECK(!sq_week_fmt(c, longp, us, 0, &e));
    SQ_CHECK(strncmp(msg(&e), "format_date: pattern too long 'yyyy", 35) == 0);
  }
}

static void test_labels_mysql_fiscal(void){
  SqWeekErr e = { "locale_week_label", 0 };
  SqLocale *us = loc("en_US", &e);
  SqWeekArg tv = { sq_week_arg_cstr, (void*)"1500-01-01" };
  const SqFiscalCal *F;
  SqFiscalDay D;
  char out[384];
  int64_t v;
  int n;
  SQ_CHECK(sq_week_style("short", 5) == 0 && sq_week_style("long", 4) == 2);
  SQ_CHECK(sq_week_style("Long", 4) < 0 && sq_week_style("long\0", 5) < 0);
  SQ_CHECK(us != 0);
  if( !us ) return;
  n = sq_week_label(c, us, 1, day_of(2011, 1, 2), &tv, out, (int)sizeof out, &e);
  SQ_CHECK_STR(n > 0 ? out : "", "Jan 2\xe2\x80\x89\xe2\x80\x93\xe2\x80\x89" "8, 2011");
  /* the second time from the memo */
  n = sq_week_label(c, us, 1, day_of(2011, 1, 2), &tv, out, (int)sizeof out, &e);
  SQ_CHECK_STR(n > 0 ? out : "", "Jan 2\xe2\x80\x89\xe2\x80\x93\xe2\x80\x89" "8, 2011");
  SQ_CHECK(sq_week_label(c, us, 1, sq_week_start_of(day_of(1500, 1, 1), us), &tv, out,
                         (int)sizeof out, &e) < 0);
  SQ_CHECK_STR(msg(&e), "locale_week_label: cannot label a week before 1583-01-01 (ICU writes "
                        "earlier days as Julian dates): time '1500-01-01'");

  e.fn = "mysql_yearweek";
  SQ_CHECK(sq_week_mysql(day_of(2011, 1, 2), 0, 0, &tv, &v, &e) && v == 1);
  SQ_CHECK(sq_week_mysql(day_of(2011, 1, 2), 3, 1, &tv, &v, &e) && v == 201052);
  tv.p = (void*)"0000-06-01";
  SQ_CHECK(!sq_week_mysql(day_of(0, 6, 1), 0, 1, &tv, &v, &e));
  SQ_CHECK_STR(msg(&e), "mysql_yearweek: time before 0001-01-01 (MySQL's year 0 has no leap day): '0000-06-01'");

  e.fn = "fiscal_year";
  F = sq_week_fiscal(c, "nrf", 3, &e);
  SQ_CHECK(F && sq_week_fiscal(c, "nrf", 3, &e) == F);
  if( F ){ sq_fiscal_of(F, day_of(2011, 1, 2), &D); SQ_CHECK(D.year == 2010); }
  SQ_CHECK(!sq_week_fiscal(c, "bogus", 5, &e));
  SQ_CHECK_STR(msg(&e), "fiscal_year: invalid calendar 'bogus': unknown part 'bogus'");
  SQ_CHECK(!sq_week_fiscal(c, "nrf\0", 4, &e));
  SQ_CHECK_STR(msg(&e), "fiscal_year: invalid calendar 'nrf\\x00'");
}

/* More locales and zones than the cache holds: entries are recycled and
** what comes back is right */
static void test_cache_recycling(void){
  static const char *const locs[] = { "en_US", "de_DE", "fr_FR", "en_GB", "ar_EG", "ja_JP",
    "pt_BR", "es_ES", "it_IT", "nl_NL", "sv_SE", "fi_FI", "da_DK", "nb_NO", "pl_PL", "cs_CZ",
    "hu_HU", "ro_RO", "tr_TR", "el_GR" };
  SqWeekErr e = { "locale_week", 0 };
  int i, r, ok = 1;
  for(r = 0; r < 3; r++){
    for(i = 0; i < (int)(sizeof locs / sizeof locs[0]); i++){
      SqLocale *L = loc(locs[i], &e);
      if( !L || strcmp(L->key, locs[i]) != 0 ) ok = 0;
    }
  }
  SQ_CHECK(ok);
  SQ_CHECK(loc("en_US", &e)->first_day == 1 && loc("de_DE", &e)->first_day == 2);
}

int main(void){
  SqWeekCache *c2;
  c = sq_week_cache_new();
  SQ_CHECK(c != 0);
  if( !c ) return sq_test_done("test_week_core");
  test_locales();
  test_zones_and_times();
  test_keys();
  test_patterns();
  test_labels_mysql_fiscal();
  test_cache_recycling();
  /* references: the last release frees */
  c2 = c;
  c2->refs++;
  sq_week_cache_release(c2);
  SQ_CHECK(c->refs == 1);
  sq_week_cache_release(c);
  return sq_test_done("test_week_core");
}
