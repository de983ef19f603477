/*
** test_week_time.c — unit tests of the locale-week core: the time parser
** (every accepted form, rejections, leap years, Julian days, offsets), the
** proleptic Gregorian arithmetic, week numbering against brute force, and
** format_date's fast numeric path against ICU (the same SQL function with a
** pattern that forces the ICU path).
*/
#include "sq_internal.h"
#include "sq_time.h"
#include "sq_test.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int sqlite3_streamqlite_init(sqlite3*, char**, const sqlite3_api_routines*);

static int parse(const char *z, SqTime *t){ return sq_time_parse_text(z, (int)strlen(z), t); }

static int64_t ms_of(int y, int m, int d, int h, int mi, int s, int msec){
  return sq_days_from_civil(y, m, d) * 86400000LL + h * 3600000LL + mi * 60000LL + s * 1000LL + msec;
}

static void test_parser_accepts_every_sqlite_form(void){
  SqTime t;
  SQ_CHECK(parse("2011-01-02", &t) == SQ_TIME_OK && t.is_date && t.day == sq_days_from_civil(2011, 1, 2));
  SQ_CHECK(parse("  2011-01-02 \t", &t) == SQ_TIME_OK && t.is_date);
  SQ_CHECK(parse("2011-01-02 03:04", &t) == SQ_TIME_OK && !t.is_date && t.ms == ms_of(2011,1,2,3,4,0,0));
  SQ_CHECK(parse("2011-01-02T03:04", &t) == SQ_TIME_OK && t.ms == ms_of(2011,1,2,3,4,0,0));
  SQ_CHECK(parse("2011-01-02 03:04:05", &t) == SQ_TIME_OK && t.ms == ms_of(2011,1,2,3,4,5,0));
  SQ_CHECK(parse("2011-01-02 03:04:05.678", &t) == SQ_TIME_OK && t.ms == ms_of(2011,1,2,3,4,5,678));
  SQ_CHECK(parse("2011-01-02 03:04:05.6789", &t) == SQ_TIME_OK && t.ms == ms_of(2011,1,2,3,4,5,679));
  SQ_CHECK(parse("2011-01-02 03:04:05.5", &t) == SQ_TIME_OK && t.ms == ms_of(2011,1,2,3,4,5,500));
  SQ_CHECK(parse("2011-01-02 03:04Z", &t) == SQ_TIME_OK && t.ms == ms_of(2011,1,2,3,4,0,0));
  SQ_CHECK(parse("2011-01-02 03:04z", &t) == SQ_TIME_OK && t.ms == ms_of(2011,1,2,3,4,0,0));
  SQ_CHECK(parse("2011-01-02T03:04:05+02:30", &t) == SQ_TIME_OK && t.ms == ms_of(2011,1,2,0,34,5,0));
  SQ_CHECK(parse("2011-01-02 03:04 -05:00", &t) == SQ_TIME_OK && t.ms == ms_of(2011,1,2,8,4,0,0));
  SQ_CHECK(parse("2011-01-02 24:00", &t) == SQ_TIME_OK && t.ms == ms_of(2011,1,3,0,0,0,0));
  SQ_CHECK(parse("12:30", &t) == SQ_TIME_OK && t.ms == ms_of(2000,1,1,12,30,0,0));
  SQ_CHECK(parse("12:30:15.25Z", &t) == SQ_TIME_OK && t.ms == ms_of(2000,1,1,12,30,15,250));
  SQ_CHECK(parse("0000-01-01", &t) == SQ_TIME_OK && t.day == -719528);
  SQ_CHECK(parse("9999-12-31", &t) == SQ_TIME_OK && t.day == 2932896);
}

static void test_parser_julian_days(void){
  SqTime t;
  SQ_CHECK(parse("2455563.5", &t) == SQ_TIME_OK && !t.is_date && t.ms == ms_of(2011,1,2,0,0,0,0));
  SQ_CHECK(parse("2440587.5", &t) == SQ_TIME_OK && t.ms == 0);
  SQ_CHECK(parse("2455564", &t) == SQ_TIME_OK && t.ms == ms_of(2011,1,2,12,0,0,0));
  SQ_CHECK(parse("2.4555635e6", &t) == SQ_TIME_OK && t.ms == ms_of(2011,1,2,0,0,0,0));
  SQ_CHECK(sq_time_from_julian(2455563.75, &t) == SQ_TIME_OK && t.ms == ms_of(2011,1,2,6,0,0,0));
  SQ_CHECK(sq_time_from_julian(1721059.5, &t) == SQ_TIME_OK && t.ms == ms_of(0,1,1,0,0,0,0));
  SQ_CHECK(sq_time_from_julian(1721059.4, &t) == SQ_TIME_RANGE);
  SQ_CHECK(sq_time_from_julian(5373484.5, &t) == SQ_TIME_RANGE);
  SQ_CHECK(sq_time_from_julian(-1, &t) == SQ_TIME_RANGE);
  SQ_CHECK(parse("1e400", &t) == SQ_TIME_RANGE);
  SQ_CHECK(parse("2011", &t) == SQ_TIME_RANGE);   /* a Julian day, as in SQLite: year -4707 */
}

static void test_parser_rejections(void){
  static const char *const bad[] = {
    "", " ", "2011-01", "2011-1-02", "2011-01-2", "11-01-02", "2011/01/02",
    "2011-01-02Z", "2011-01-02 3:04", "2011-01-02 03:4", "2011-01-02 03", "2011-01-02 03:04:5",
    "2011-01-02 25:00", "2011-01-02 03:60", "2011-01-02 03:04:60", "2011-01-02 03:04+5",
    "2011-01-02 03:04+05", "2011-01-02 03:04+15:00", "2011-01-02 03:04+05:60", "2011-01-02 03:04 x",
    "2011-01-02x", "yesterday", "2011-01-02 03:04:05.", "1e", "+", ".", "2011-01-02 03:04Zx",
    "abcd-ef-gh", "1.2.3",
  };
  size_t i;
  SqTime t;
  for(i = 0; i < sizeof(bad) / sizeof(bad[0]); i++){
    int rc = parse(bad[i], &t);
    SQ_CHECK_MSG(rc == SQ_TIME_MALFORMED, "'%s' gave %d", bad[i], rc);
  }
  SQ_CHECK(parse("now", &t) == SQ_TIME_NOW);
  SQ_CHECK(parse(" NOW ", &t) == SQ_TIME_NOW);
  SQ_CHECK(parse("2011-02-29", &t) == SQ_TIME_BADDATE);
  SQ_CHECK(parse("2011-02-30 10:00", &t) == SQ_TIME_BADDATE);
  SQ_CHECK(parse("2011-04-31", &t) == SQ_TIME_BADDATE);
  SQ_CHECK(parse("2011-00-10", &t) == SQ_TIME_BADDATE);
  SQ_CHECK(parse("2011-13-10", &t) == SQ_TIME_BADDATE);
  SQ_CHECK(parse("2011-01-00", &t) == SQ_TIME_BADDATE);
  SQ_CHECK(parse("0000-01-01 00:00+00:01", &t) == SQ_TIME_RANGE);
  SQ_CHECK(parse("9999-12-31 23:59-00:01", &t) == SQ_TIME_RANGE);
}

static void test_leap_years(void){
  SqTime t;
  SQ_CHECK(parse("2000-02-29", &t) == SQ_TIME_OK);
  SQ_CHECK(parse("2004-02-29", &t) == SQ_TIME_OK);
  SQ_CHECK(parse("1900-02-29", &t) == SQ_TIME_BADDATE);
  SQ_CHECK(parse("2100-02-29", &t) == SQ_TIME_BADDATE);
  SQ_CHECK(parse("1600-02-29", &t) == SQ_TIME_OK);
  SQ_CHECK(parse("1500-02-29", &t) == SQ_TIME_BADDATE);  /* proleptic Gregorian, not Julian */
  SQ_CHECK(parse("0000-02-29", &t) == SQ_TIME_OK);
}

static void test_civil_round_trip_and_weekdays(void){
  int64_t z;
  int y, m, d, ok = 1;
  int64_t expect = -719528;
  for(y = 0; y <= 9999 && ok; y++){
    for(m = 1; m <= 12 && ok; m++){
      for(d = 1; d <= sq_days_in_month(y, m) && ok; d++){
        int yy, mm, dd;
        z = sq_days_from_civil(y, m, d);
        sq_civil_from_days(z, &yy, &mm, &dd);
        if( z != expect || yy != y || mm != m || dd != d ) ok = 0;
        expect++;
      }
    }
  }
  SQ_CHECK_MSG(ok, "days_from_civil/civil_from_days disagree at %d-%d-%d", y, m, d);
  SQ_CHECK(sq_dow(0) == 5);                                      /* 1970-01-01 Thursday */
  SQ_CHECK(sq_dow(sq_days_from_civil(2011, 1, 2)) == 1);         /* Sunday */
  SQ_CHECK(sq_dow(sq_days_from_civil(1500, 3, 1)) == 5);         /* Thursday, proleptic */
  SQ_CHECK(sq_dow(sq_days_from_civil(0, 1, 1)) == 7);            /* Saturday */
  SQ_CHECK(sq_local_weekday(sq_days_from_civil(2011, 1, 2), 2) == 7);
  SQ_CHECK(sq_local_weekday(sq_days_from_civil(2011, 1, 2), 7) == 2);
}

/* Brute force: walk every day from 1999 to 2040 counting weeks. */
static void test_week_numbers_match_brute_force(void){
  int fd, md, bad = 0;
  for(fd = 1; fd <= 7; fd++){
    for(md = 1; md <= 7; md++){
      int64_t day, first = sq_days_from_civil(2000, 1, 1), last = sq_days_from_civil(2039, 12, 31);
      for(day = first; day <= last; day++){
        int y, m, d, wy, wn, by, bn;
        int64_t ws, s, w1;
        sq_civil_from_days(day, &y, &m, &d);
        sq_week_of(day, fd, md, &wy, &wn, &ws);
        s = day;
        while( sq_dow(s) != fd ) s--;
        /* the week belongs to the year holding >= md of its days, preferring the later year */
        by = y;
        {
          int yy, mm, dd, cnt = 0, k;
          for(k = 0; k < 7; k++){ sq_civil_from_days(s + k, &yy, &mm, &dd); if( yy == y + 1 ) cnt++; }
          if( cnt >= md ) by = y + 1;
          else{
            cnt = 0;
            for(k = 0; k < 7; k++){ sq_civil_from_days(s + k, &yy, &mm, &dd); if( yy == y ) cnt++; }
            sq_civil_from_days(s, &yy, &mm, &dd);
            if( cnt < md && yy < y ) by = y - 1;
          }
        }
        w1 = sq_days_from_civil(by, 1, 1);
        while( sq_dow(w1) != fd ) w1--;
        { int yy, mm, dd, cnt = 0, k;
          for(k = 0; k < 7; k++){ sq_civil_from_days(w1 + k, &yy, &mm, &dd); if( yy == by ) cnt++; }
          if( cnt < md ) w1 += 7; }
        bn = (int)((s - w1) / 7) + 1;
        if( wy != by || wn != bn || ws != s ){
          if( bad++ < 5 ) fprintf(stderr, "day %lld fd %d md %d: got %d-%d want %d-%d\n",
                                  (long long)day, fd, md, wy, wn, by, bn);
        }
      }
    }
  }
  SQ_CHECK_MSG(bad == 0, "%d mismatches", bad);
}

/* ---- through SQL: the fast format path agrees with ICU ---- */

static sqlite3 *db;

static char *q1(const char *sql){
  sqlite3_stmt *st;
  char *r = 0;
  if( sqlite3_prepare_v2(db, sql, -1, &st, 0) != SQLITE_OK ) return strdup(sqlite3_errmsg(db));
  if( sqlite3_step(st) == SQLITE_ROW ){
    const char *t = (const char*)sqlite3_column_text(st, 0);
    r = strdup(t ? t : "NULL");
  }else{
    r = strdup(sqlite3_errmsg(db));
  }
  sqlite3_finalize(st);
  return r;
}

static void test_fast_format_agrees_with_icu(void){
  static const char *const pats[] = {
    "YYYY-ww", "yyyy-MM-dd", "y/M/d", "yy MM dd", "Y-w", "YY", "e ee", "D DD DDD", "'week' ww', ''Y'''",
  };
  static const char *const locs[] = { "en_US", "de_DE", "ar_EG@numbers=latn", "fr_FR", "en_US@fw=sat", "pt_PT", "dv_MV" };
  size_t p, l;
  int bad = 0, n = 0;
  for(p = 0; p < sizeof(pats) / sizeof(pats[0]); p++){
    for(l = 0; l < sizeof(locs) / sizeof(locs[0]); l++){
      char sql[1024];
      char *r;
      /* ' HH' appended forces the ICU path; compare with the fast result + ' 00' */
      sqlite3_snprintf(sizeof(sql), sql,
        "SELECT count(*) || ' ' || coalesce(min(d), '') FROM ("
        " WITH RECURSIVE s(value) AS (SELECT 0 UNION ALL SELECT value + 1 FROM s WHERE value < 2000)"
        " SELECT date('1582-09-01', '+' || (value * 97) || ' days') AS d FROM s"
        " UNION ALL SELECT date('2010-12-20', '+' || value || ' days') FROM s WHERE value <= 400)"
        " WHERE format_date(%Q, d, %Q) || ' 00' <> format_date(%Q || ' HH', d, %Q)",
        pats[p], locs[l], pats[p], locs[l]);
      r = q1(sql);
      n++;
      if( strcmp(r, "0 ") != 0 ){ bad++; fprintf(stderr, "pattern '%s' locale %s: %s\n", pats[p], locs[l], r); }
      free(r);
    }
  }
  SQ_CHECK_MSG(bad == 0, "%d of %d pattern/locale pairs disagree", bad, n);
}

static void test_sql_functions_smoke(void){
  char *r;
  r = q1("SELECT locale_week('2011-01-02', 'en_US')"); SQ_CHECK_STR(r, "2011-02"); free(r);
  r = q1("SELECT format_date('YYYY-ww', '2011-01-02', 'en_US')"); SQ_CHECK_STR(r, "2011-02"); free(r);
  r = q1("SELECT format_date('YYYY-ww HH', '2011-01-02', 'en_US')"); SQ_CHECK_STR(r, "2011-02 00"); free(r);
  r = q1("SELECT locale_week('2011-01-02', 'xx_YY')"); SQ_CHECK_STR(r, "locale_week: unknown locale 'xx_YY'"); free(r);
  r = q1("SELECT locale_week('2011-01-02T03:00Z', 'en_US', 'America/New_York')"); SQ_CHECK_STR(r, "2011-01"); free(r);
  r = q1("SELECT locale_week('2011-01-02', 'he_IL@calendar=hebrew')"); SQ_CHECK_STR(r, "5771-18"); free(r);
  r = q1("SELECT format_date('d MMMM y', '2011-01-02', 'he_IL@calendar=hebrew', 'Asia/Jerusalem')"); SQ_CHECK_STR(r, "26 טבת 5771"); free(r);
  r = q1("SELECT format_date('EEEE HH:mm', '2011-01-02T03:00Z', 'en_US', 'America/New_York')"); SQ_CHECK_STR(r, "Saturday 22:00"); free(r);
}

/* More locales, zones and formatters than the caches hold: entries are
** evicted and rebuilt (and freed: the ASan run checks for leaks). */
static void test_cache_eviction_keeps_answers_right(void){
  char *r = q1(
    "WITH RECURSIVE s(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM s WHERE n < 99)"
    " SELECT sum(locale_week('2011-01-02', 'en_US@fw=' || substr('sunmontuewedthufrisat', 1 + 3 * (n % 7), 3)"
    "  || ';rg=' || substr('usgbfrdeegjpbrtrru', 1 + 2 * (n % 9), 2) || 'zzzz', 'Etc/GMT+' || (n % 11)) ="
    "  format_date('YYYY-ww', '2011-01-02', 'en_US@fw=' || substr('sunmontuewedthufrisat', 1 + 3 * (n % 7), 3)"
    "  || ';rg=' || substr('usgbfrdeegjpbrtrru', 1 + 2 * (n % 9), 2) || 'zzzz', 'Etc/GMT+' || (n % 11)))"
    "  || ' ' || sum(format_date('EEE', '2011-01-01T12:00Z', 'en_US', 'Etc/GMT' || CASE WHEN n % 2 THEN '+' ELSE '-' END || (n % 12)) = 'Sat')"
    " FROM s");
  SQ_CHECK_STR(r, "100 100");
  free(r);
}

int main(void){
  test_parser_accepts_every_sqlite_form();
  test_parser_julian_days();
  test_parser_rejections();
  test_leap_years();
  test_civil_round_trip_and_weekdays();
  test_week_numbers_match_brute_force();
  if( sqlite3_open(":memory:", &db) != SQLITE_OK ) return 2;
  sqlite3_streamqlite_init(db, 0, 0);
  test_sql_functions_smoke();
  test_fast_format_agrees_with_icu();
  test_cache_eviction_keeps_answers_right();
  sqlite3_close(db);
  return sq_test_done("test_week_time");
}
