/*
** test_date_codec.c — the one date codec (sq_date.h) against SQLite's own
** date functions as the oracle: for instants across years 0000..9999 the
** text we write equals strftime('%Y-%m-%d %H:%M:%f', …, 'unixepoch'), SQLite
** reads it back to the same millisecond, our parser reads it back exactly,
** and text order is time order.
*/
#include "sq_internal.h"
#include "sq_time.h"
#include "sq_date.h"
#include "sq_test.h"

#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const int64_t MS_MIN = -62167219200000LL;   /* 0000-01-01 00:00:00.000 */
static const int64_t MS_MAX = 253402300799999LL;   /* 9999-12-31 23:59:59.999 */

static uint64_t rng = 0x9E3779B97F4A7C15ULL;
static uint64_t next_rand(void){
  rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
  return rng;
}

static void fmt(int64_t ms, char *buf){
  int n = sq_date_format_ms(ms, buf);
  buf[n] = 0;
}

static void test_known_values(void){
  char buf[SQ_DATE_TEXT_MAX + 1];
  int64_t ms;
  fmt(0, buf);                 SQ_CHECK_STR(buf, "1970-01-01 00:00:00.000");
  fmt(1714564800250LL, buf);   SQ_CHECK_STR(buf, "2024-05-01 12:00:00.250");
  fmt(-1, buf);                SQ_CHECK_STR(buf, "1969-12-31 23:59:59.999");
  fmt(MS_MIN, buf);            SQ_CHECK_STR(buf, "0000-01-01 00:00:00.000");
  fmt(MS_MAX, buf);            SQ_CHECK_STR(buf, "9999-12-31 23:59:59.999");
  SQ_CHECK(sq_date_parse_ms("2024-05-01T12:00:00.250Z", 24, &ms) == 0 && ms == 1714564800250LL);
  SQ_CHECK(sq_date_parse_ms("2024-05-01 14:00:00.250+02:00", 29, &ms) == 0 && ms == 1714564800250LL);
  SQ_CHECK(sq_date_parse_ms("2024-05-01", 10, &ms) == 0 && ms == 1714521600000LL);
  SQ_CHECK(sq_date_parse_ms("2024-02-30", 10, &ms) != 0);
  SQ_CHECK(sq_date_parse_ms("yesterday", 9, &ms) != 0);
  SQ_CHECK(sq_date_parse_ms("", 0, &ms) != 0);
  {
    char out[SQ_DATE_TEXT_MAX + 1];
    int n = sq_date_normalize("2024-05-01T12:00:00.25Z", 23, out);
    SQ_CHECK(n == 23); out[n > 0 ? n : 0] = 0;
    SQ_CHECK_STR(out, "2024-05-01 12:00:00.250");
    n = sq_date_normalize("2024-05-01", 10, out);
    SQ_CHECK(n == 10); out[n > 0 ? n : 0] = 0;
    SQ_CHECK_STR(out, "2024-05-01");
    SQ_CHECK(sq_date_normalize("2024-13-01", 10, out) == -1);
  }
}

static void test_against_sqlite(void){
  sqlite3 *db;
  sqlite3_stmt *st, *back;
  char buf[SQ_DATE_TEXT_MAX + 1], prev[SQ_DATE_TEXT_MAX + 1] = "";
  int64_t prev_ms = MS_MIN - 1;
  int i, bad_fmt = 0, bad_sqlite_back = 0, bad_back = 0, bad_order = 0;
  sqlite3_open(":memory:", &db);
  sqlite3_prepare_v2(db, "SELECT strftime('%Y-%m-%d %H:%M:%f', ?1 / 1000.0, 'unixepoch')", -1, &st, 0);
  sqlite3_prepare_v2(db, "SELECT CAST(round((julianday(?1) - 2440587.5) * 86400000.0) AS INTEGER)", -1, &back, 0);
  for(i = 0; i < 200000; i++){
    int64_t ms, got;
    /* sorted walk through the whole range with random steps */
    ms = MS_MIN + (int64_t)((double)(MS_MAX - MS_MIN) * i / 200000.0) + (int64_t)(next_rand() % 86400000ULL);
    if( ms > MS_MAX ) ms = MS_MAX;
    if( ms <= prev_ms ) continue;
    fmt(ms, buf);
    sqlite3_bind_int64(st, 1, ms);
    if( sqlite3_step(st) == SQLITE_ROW ){
      const char *s = (const char*)sqlite3_column_text(st, 0);
      if( !s || strcmp(s, buf) != 0 ){
        if( bad_fmt++ < 3 ) fprintf(stderr, "format %lld: ours '%s', sqlite '%s'\n", (long long)ms, buf, s ? s : "(null)");
      }
    }
    sqlite3_reset(st);
    sqlite3_bind_text(back, 1, buf, -1, SQLITE_STATIC);
    if( sqlite3_step(back) == SQLITE_ROW && sqlite3_column_int64(back, 0) != ms ){
      if( bad_sqlite_back++ < 3 ) fprintf(stderr, "sqlite reads '%s' as %lld, not %lld\n", buf, (long long)sqlite3_column_int64(back, 0), (long long)ms);
    }
    sqlite3_reset(back);
    if( sq_date_parse_ms(buf, (int)strlen(buf), &got) != 0 || got != ms ) bad_back++;
    if( prev[0] && strcmp(prev, buf) >= 0 ) bad_order++;
    strcpy(prev, buf);
    prev_ms = ms;
  }
  SQ_CHECK_MSG(bad_fmt == 0, "%d texts differ from strftime", bad_fmt);
  SQ_CHECK_MSG(bad_sqlite_back == 0, "%d texts SQLite reads back differently", bad_sqlite_back);
  SQ_CHECK_MSG(bad_back == 0, "%d texts we read back differently", bad_back);
  SQ_CHECK_MSG(bad_order == 0, "%d texts out of time order", bad_order);
  sqlite3_finalize(st);
  sqlite3_finalize(back);
  sqlite3_close(db);
}

int main(void){
  test_known_values();
  test_against_sqlite();
  return sq_test_done("test_date_codec");
}
