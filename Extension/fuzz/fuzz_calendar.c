/*
** fuzz_calendar.c — libFuzzer harness for the weekly-report parsers: fiscal
** calendar specs and week keys (sq_calendar.c), directly and through SQL.
**
** The input is split on '\n' into a calendar spec, a week key, a time and a
** locale.  A spec that parses must give a calendar whose year and period
** around the time (or 2011-01-02) hold it and tile it (52 or 53 weeks, weeks
** and periods counted from their first days); a failed parse leaves a
** NUL-terminated message.  A key that parses and has a start day must be
** that week of its year again (sq_week_of) in every week rule.  Through SQL
** (fiscal_*, locale_week_parse, locale_week_label, locale_weeks on one
** connection), results are NULL, INTEGER or valid UTF-8 TEXT, and errors
** start with the function's name and are valid UTF-8.
*/
#include "sq_calendar.h"
#include "sq_time.h"
#include "fuzz_common.h"

#include <sqlite3.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int sqlite3_streamqlite_init(sqlite3*, char**, const sqlite3_api_routines*);

static sqlite3 *db;
static sqlite3_stmt *stmts[6];
static const char *const sqls[] = {
  "SELECT fiscal_year(?3, ?1), fiscal_period_end(?3, ?1), fiscal_week_of_period(?3, ?1, 'UTC')",
  "SELECT locale_week_parse(?2, ?4)",
  "SELECT locale_week_parse(?2)",
  "SELECT locale_week_label(?3, ?4, 'UTC', ?1)",
  "SELECT count(*), max(label) FROM locale_weeks(?3, date(?3, '+20 days'), ?4)",
  "SELECT mysql_yearweek(?3, 3), locale_week_of_month(?3, ?4), locale_week_end(?3, ?4)",
};
static const char *const fnames[] = {
  "fiscal_", "locale_week_parse", "locale_week_parse", "locale_week_label", "locale_weeks", "",
};

static void check_fiscal(const char *spec, int n, const char *time, int tn){
  SqFiscalCal c;
  SqFiscalDay D;
  SqTime t;
  char err[200];
  int64_t day = sq_days_from_civil(2011, 1, 2);
  err[0] = 'x';
  if( !sq_fiscal_parse(spec, n, &c, err, (int)sizeof err) ){
    if( !memchr(err, 0, sizeof err) ) abort();
    return;
  }
  if( sq_time_parse_text(time, tn, &t) == SQ_TIME_OK ){
    day = t.is_date ? t.day : sq_floor_div(t.ms, 86400000LL);
  }
  sq_fiscal_of(&c, day, &D);
  if( D.year_start > day || D.year_end < day || D.period_start > day || D.period_end < day
      || D.year_end - D.year_start + 1 != 7 * D.weeks_in_year
      || (D.weeks_in_year != 52 && D.weeks_in_year != 53)
      || D.week != (int)((day - D.year_start) / 7) + 1 || D.period < 1 || D.period > 12
      || D.week_of_period != (int)((day - D.period_start) / 7) + 1 ) abort();
}

static void check_key(const char *key, int n){
  int y, w, iso, fd, md;
  if( !sq_week_key_parse(key, n, &y, &w, &iso) ) return;
  for(fd = 1; fd <= 7; fd++) for(md = 1; md <= 7; md++){
    int64_t s;
    int wy, wn;
    if( !sq_week_key_start(y, w, fd, md, &s) ) continue;
    sq_week_of(s, fd, md, &wy, &wn, 0);
    if( wy != y || wn != w || sq_dow(s) != fd ) abort();
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size){
  const char *args[4] = {"nrf", "2011-02", "2011-01-02", "en_US"};
  int lens[4] = {3, 7, 10, 5};
  size_t i;
  int k;
  if( !db ){
    if( sqlite3_open(":memory:", &db) != SQLITE_OK ) abort();
    if( sqlite3_streamqlite_init(db, 0, 0) != SQLITE_OK ) abort();
    for(i = 0; i < sizeof(sqls) / sizeof(sqls[0]); i++){
      if( sqlite3_prepare_v2(db, sqls[i], -1, &stmts[i], 0) != SQLITE_OK ) abort();
    }
  }
  if( size > 4096 ) return 0;
  split_args(data, size, args, lens, 4);
  check_fiscal(args[0], lens[0], args[2], lens[2]);
  check_key(args[1], lens[1]);
  for(k = 0; k < (int)(sizeof(sqls) / sizeof(sqls[0])); k++){
    sqlite3_stmt *st = stmts[k];
    int j, rc;
    for(j = 0; j < 4; j++) sqlite3_bind_text(st, j + 1, args[j], lens[j], SQLITE_TRANSIENT);
    while( (rc = sqlite3_step(st)) == SQLITE_ROW ){
      for(j = 0; j < sqlite3_column_count(st); j++){
        int t = sqlite3_column_type(st, j);
        if( t == SQLITE_TEXT ){
          const unsigned char *z = sqlite3_column_text(st, j);
          if( !valid_utf8(z, (size_t)sqlite3_column_bytes(st, j)) ) abort();
        }else if( t != SQLITE_NULL && t != SQLITE_INTEGER ) abort();
      }
    }
    if( rc != SQLITE_DONE ){
      const char *m = sqlite3_errmsg(db);
      if( !valid_utf8((const unsigned char*)m, strlen(m)) || strlen(m) > 1200 ) abort();
      if( fnames[k][0] && strncmp(m, fnames[k], strlen(fnames[k])) != 0 ) abort();
    }
    sqlite3_reset(st);
  }
  return 0;
}
