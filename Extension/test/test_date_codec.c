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

/* The reference for sq_date_normalize: the full parse, then the format. */
static int ref_normalize(const char *z, int n, char *out){
  SqTime t;
  if( sq_time_parse_text(z, n, &t) != SQ_TIME_OK ) return -1;
  if( t.is_date ) return sq_date_format_ms(t.day * 86400000LL, out) - 13;
  return sq_date_format_ms(t.ms, out);
}

/* sq_date_normalize's common shapes (read without date arithmetic) give
** the text of the full parse and format, byte for byte, and what they
** refuse the full rule refuses: generated dates and date-times of every
** shape (all days of years around leap rules, hours 0..24, fractions of 0
** to 4 digits, 'T'/space, Z), each also mutated (a byte changed, cut or
** added). */
static void test_normalize_common_shapes(void){
  static const char alpha[] = "0123456789-: T.Zz+";
  static const int years[] = { 0, 1, 4, 100, 400, 1900, 1969, 1970, 2000, 2023, 2024, 2100, 9999 };
  char z[48], a[SQ_DATE_TEXT_MAX + 1], b[SQ_DATE_TEXT_MAX + 1];
  long total = 0;
  int bad = 0, i;
  for(i = 0; i < 400000; i++){
    int n, ka, kb, y = years[next_rand() % 13], mo = (int)(next_rand() % 14), d = (int)(next_rand() % 33);
    int shape = (int)(next_rand() % 6);
    n = snprintf(z, sizeof z, "%04d-%02d-%02d", y, mo, d);
    if( shape > 0 ){
      n += snprintf(z + n, sizeof z - (size_t)n, "%c%02d:%02d", next_rand() % 2 ? ' ' : 'T',
                    (int)(next_rand() % 26), (int)(next_rand() % 61));
    }
    if( shape > 1 ) n += snprintf(z + n, sizeof z - (size_t)n, ":%02d", (int)(next_rand() % 61));
    if( shape > 2 ){
      int f = (int)(next_rand() % 5), k;
      z[n++] = '.';
      for(k = 0; k < f; k++) z[n++] = (char)('0' + next_rand() % 10);
    }
    if( shape > 3 && next_rand() % 2 ) z[n++] = next_rand() % 2 ? 'Z' : 'z';
    if( next_rand() % 3 == 0 ){
      uint64_t r = next_rand();
      switch( r % 3 ){
        case 0: z[(r >> 8) % (uint64_t)n] = alpha[(r >> 20) % (sizeof alpha - 1)]; break;
        case 1: n = (int)((r >> 8) % (uint64_t)n); break;
        default: z[n++] = alpha[(r >> 20) % (sizeof alpha - 1)]; break;
      }
    }
    total++;
    ka = sq_date_normalize(z, n, a);
    kb = ref_normalize(z, n, b);
    if( ka != kb || (ka > 0 && memcmp(a, b, (size_t)ka) != 0) ){
      if( bad++ < 5 ) fprintf(stderr, "normalize '%.*s': '%.*s' (%d), reference '%.*s' (%d)\n",
                              n, z, ka > 0 ? ka : 0, a, ka, kb > 0 ? kb : 0, b, kb);
    }
  }
  SQ_CHECK_MSG(bad == 0, "%d of %ld texts normalize differently from the full rule", bad, total);
}

int main(void){
  test_known_values();
  test_against_sqlite();
  test_normalize_common_shapes();
  return sq_test_done("test_date_codec");
}
