/*
** fuzz_week.c — libFuzzer harness for the locale-week functions: time
** parsing, locale/keyword parsing, tz lookup and format_date patterns.
**
** The input is split on '\n' into up to four arguments; each of the
** functions (every arity) runs on them as bound TEXT through prepared
** statements on one connection (so the per-connection caches are exercised
** across inputs), and the first argument also as a Julian day number.
** Results must be NULL, TEXT (valid UTF-8)/INTEGER, or an error whose
** message starts with the function's name and is valid UTF-8 of bounded
** length.  format_date's two paths must agree: a pattern P and the name
** field EEE formatted apart, P || '|' || EEE, equal P || '|EEE' formatted
** at once (ICU) whenever both succeed.  The time parser is also called
** directly and its result checked against the week arithmetic's
** invariants.
*/
#include "sq_internal.h"
#include "sq_time.h"
#include "fuzz_common.h"

#include <sqlite3.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int sqlite3_streamqlite_init(sqlite3*, char**, const sqlite3_api_routines*);

static sqlite3 *db;
static sqlite3_stmt *stmts[16];
static sqlite3_stmt *agree;
static const char *const sqls[] = {
  "SELECT locale_week(?1)", "SELECT locale_week(?1, ?2)", "SELECT locale_week(?1, ?2, ?3)",
  "SELECT locale_week_start(?1, ?2)", "SELECT locale_week_start(?1, ?2, ?3)",
  "SELECT locale_week_number(?1, ?2)", "SELECT locale_week_year(?1, ?2, ?3)",
  "SELECT locale_weekday(?1, ?2, ?3)", "SELECT locale_week_rules(?1)", "SELECT locale_week_rules(?2)",
  "SELECT format_date(?1, ?2)", "SELECT format_date(?1, ?2, ?3)", "SELECT format_date(?1, ?2, ?3, ?4)",
  "SELECT format_date(?4, ?1, ?2, ?3)", "SELECT locale_week(CAST(?1 AS REAL), ?2)",
  "SELECT format_date('YYYY-ww HH', ?1, ?2)",
};
static const char *const fnames[] = {
  "locale_week", "locale_week", "locale_week", "locale_week_start", "locale_week_start",
  "locale_week_number", "locale_week_year", "locale_weekday", "locale_week_rules", "locale_week_rules",
  "format_date", "format_date", "format_date", "format_date", "locale_week", "format_date",
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size){
  const char *args[4] = {"2011-01-02", "en_US", "UTC", "YYYY-ww"};
  int lens[4] = {10, 5, 3, 7};
  size_t i;
  SqTime t;
  if( !db ){
    if( sqlite3_open(":memory:", &db) != SQLITE_OK ) abort();
    if( sqlite3_streamqlite_init(db, 0, 0) != SQLITE_OK ) abort();
    for(i = 0; i < sizeof(sqls) / sizeof(sqls[0]); i++){
      if( sqlite3_prepare_v2(db, sqls[i], -1, &stmts[i], 0) != SQLITE_OK ) abort();
    }
    /* (an error in any of the three: nothing to compare) */
    if( sqlite3_prepare_v2(db,
          "SELECT (SELECT format_date(?4, ?1, ?2, ?3)) || '|' || (SELECT format_date('EEE', ?1, ?2, ?3)),"
          " (SELECT format_date(?4 || '|EEE', ?1, ?2, ?3))", -1, &agree, 0) != SQLITE_OK ) abort();
  }
  if( size > 4096 ) return 0;
  split_args(data, size, args, lens, 4);
  /* direct parser invariants */
  if( sq_time_parse_text(args[0], lens[0], &t) == SQ_TIME_OK ){
    int64_t day = t.is_date ? t.day : sq_floor_div(t.ms, 86400000LL);
    int fd, wy, wn, y, m, d;
    int64_t ws;
    sq_civil_from_days(day, &y, &m, &d);
    if( y < 0 || y > 9999 ) abort();
    for(fd = 1; fd <= 7; fd++){
      sq_week_of(day, fd, 1 + (fd % 7), &wy, &wn, &ws);
      if( wn < 1 || wn > 53 || ws > day || day - ws > 6 || sq_dow(ws) != fd ) abort();
      if( wy < y - 1 || wy > y + 1 ) abort();
    }
  }
  for(i = 0; i < sizeof(sqls) / sizeof(sqls[0]); i++){
    sqlite3_stmt *st = stmts[i];
    int k, rc;
    for(k = 0; k < 4; k++) sqlite3_bind_text(st, k + 1, args[k], lens[k], SQLITE_STATIC);
    rc = sqlite3_step(st);
    if( rc == SQLITE_ROW ){
      int ty = sqlite3_column_type(st, 0);
      if( ty == SQLITE_BLOB || ty == SQLITE_FLOAT ) abort();
      if( ty == SQLITE_TEXT ){
        const char *z = (const char*)sqlite3_column_text(st, 0);
        if( !sq_utf8_valid(z, sqlite3_column_bytes(st, 0)) ) abort();
      }
    }else if( rc == SQLITE_ERROR ){
      const char *msg = sqlite3_errmsg(db);
      if( strncmp(msg, fnames[i], strlen(fnames[i])) != 0 ) abort();
      if( !sq_utf8_valid(msg, (sqlite3_int64)strlen(msg)) || strlen(msg) > 1200 ) abort();
    }else if( rc != SQLITE_DONE ){
      abort();
    }
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
  }
  /* the numeric path and ICU agree */
  for(i = 0; i < 4; i++) sqlite3_bind_text(agree, (int)i + 1, args[i], lens[i], SQLITE_STATIC);
  if( sqlite3_step(agree) == SQLITE_ROW && sqlite3_column_type(agree, 0) == SQLITE_TEXT
      && sqlite3_column_type(agree, 1) == SQLITE_TEXT ){
    const char *a = (const char*)sqlite3_column_text(agree, 0);
    const char *b = (const char*)sqlite3_column_text(agree, 1);
    if( strcmp(a, b) != 0 ) abort();
  }
  sqlite3_reset(agree);
  sqlite3_clear_bindings(agree);
  return 0;
}
