/*
** test_tzif.c — the TZif reader (sq_tzif.c): POSIX TZ footer rules, the
** system's zone files, malformed images, zone IDs that must not become paths.
*/
#include "sq_internal.h"
#include "sq_tzif.h"
#include "sq_test.h"

#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Offset of POSIX TZ string s at t; INT32_MIN when s is refused. */
static int32_t px(const char *s, int64_t t){
  sq_tzif *z = sq_tzif_new();
  int32_t off = INT32_MIN;
  if( z && sq_tzif_parse_posix(s, strlen(s), z) && !sq_tzif_offset(z, t, &off) ) off = INT32_MIN + 1;
  sq_tzif_free(z);
  return off;
}

/* Offset changes from `before` to `after` exactly at t. */
#define SQ_CHANGE(s, t, before, after) do{ \
  SQ_CHECK_MSG(px(s, (t) - 1) == (before), "%s at %lld-1: %d", s, (long long)(t), (int)px(s, (t) - 1)); \
  SQ_CHECK_MSG(px(s, (t)) == (after), "%s at %lld: %d", s, (long long)(t), (int)px(s, (t))); }while(0)

static void test_posix(void){
  /* no DST */
  SQ_CHECK(px("<+03>-3", 0) == 10800);
  SQ_CHECK(px("<+03>-3", 4102444800LL) == 10800);
  SQ_CHECK(px("UTC0", 1700000000) == 0);
  SQ_CHECK(px("<+0545>-5:45", 1700000000) == 20700);
  SQ_CHECK(px("<-0930>9:30", 1700000000) == -34200);
  SQ_CHECK(px("HST10", 1700000000) == -36000);
  /* US rules: second Sunday of March 02:00 EST, first Sunday of November 02:00 EDT */
  SQ_CHANGE("EST5EDT,M3.2.0,M11.1.0", 1710054000LL, -18000, -14400);   /* 2024-03-10T07:00Z */
  SQ_CHANGE("EST5EDT,M3.2.0,M11.1.0", 1730613600LL, -14400, -18000);   /* 2024-11-03T06:00Z */
  SQ_CHANGE("EST5EDT,M3.2.0,M11.1.0", 4108690800LL, -18000, -14400);   /* 2100-03-14T07:00Z */
  SQ_CHECK(px("EST5EDT,M3.2.0/2:00:00,M11.1.0/2", 1720000000) == -14400);
  /* Europe/Dublin: negative DST (standard time IST in summer, "DST" GMT in winter) */
  SQ_CHANGE("IST-1GMT0,M10.5.0,M3.5.0/1", 1729990800LL, 3600, 0);      /* 2024-10-27T01:00Z */
  SQ_CHANGE("IST-1GMT0,M10.5.0,M3.5.0/1", 1711846800LL, 0, 3600);      /* 2024-03-31T01:00Z */
  SQ_CHECK(px("IST-1GMT0,M10.5.0,M3.5.0/1", 1704067200LL) == 0);       /* 2024-01-01 */
  SQ_CHECK(px("IST-1GMT0,M10.5.0,M3.5.0/1", 1719792000LL) == 3600);    /* 2024-07-01 */
  /* America/Nuuk since 2023: negative rule times (the day before, local) */
  SQ_CHANGE("<-03>3<-02>,M3.5.0/-2,M10.5.0/-1", 1711846800LL, -10800, -7200);  /* 2024-03-31T01:00Z */
  SQ_CHANGE("<-03>3<-02>,M3.5.0/-2,M10.5.0/-1", 1729990800LL, -7200, -10800);  /* 2024-10-27T01:00Z */
  /* Southern hemisphere (Australia/Sydney): DST across New Year */
  SQ_CHANGE("AEST-10AEDT,M10.1.0,M4.1.0/3", 1728144000LL, 36000, 39600);  /* 2024-10-06T02:00+10 */
  SQ_CHANGE("AEST-10AEDT,M10.1.0,M4.1.0/3", 1743868800LL, 39600, 36000);  /* 2025-04-06T03:00+11 */
  SQ_CHECK(px("AEST-10AEDT,M10.1.0,M4.1.0/3", 1735689600LL) == 39600); /* 2025-01-01 */
  /* Jn: 1..365, February 29 never counted (J60 is March 1) */
  SQ_CHANGE("AAA0BBB,J60/0,J300/0", 1677628800LL, 0, 3600);            /* 2023-03-01T00:00Z */
  SQ_CHANGE("AAA0BBB,J60/0,J300/0", 1709251200LL, 0, 3600);            /* 2024-03-01T00:00Z */
  SQ_CHANGE("AAA0BBB,J60/0,J300/0", 1698361200LL, 3600, 0);            /* 2023-10-26T23:00Z */
  /* n: 0..365, February 29 counted */
  SQ_CHANGE("AAA0BBB,59/0,299/0", 1709164800LL, 0, 3600);              /* 2024-02-29T00:00Z */
  SQ_CHANGE("AAA0BBB,59/0,299/0", 1677628800LL, 0, 3600);              /* 2023-03-01T00:00Z */
  SQ_CHANGE("AAA0BBB,59/0,299/0", 1729897200LL, 3600, 0);              /* 2024-10-25T23:00Z */
  /* DST all year (RFC 8536 3.3.1): never standard time */
  SQ_CHECK(px("EST5EDT,0/0,J365/25", 1704069000LL) == -14400);         /* 2024-01-01T00:30Z */
  SQ_CHECK(px("EST5EDT,0/0,J365/25", 1704085200LL) == -14400);         /* 2024-01-01T05:00Z */
  SQ_CHECK(px("EST5EDT,0/0,J365/25", 1719792000LL) == -14400);
  SQ_CHECK(px("EST5EDT,0/0,J365/25", 1735707600LL) == -14400);         /* 2025-01-01T05:00Z */
  /* rule times up to 167 h (RFC 8536) */
  SQ_CHANGE("AAA0BBB,M3.5.0/167,M10.5.0/-167", 1712444400LL, 0, 3600);      /* 2024-03-31T00:00Z + 167 h */
  /* far instants */
  SQ_CHECK(px("UTC0", 1000000000001LL) == INT32_MIN + 1);
  /* refused */
  SQ_CHECK(px("", 0) == INT32_MIN);
  SQ_CHECK(px("EST", 0) == INT32_MIN);
  SQ_CHECK(px("ES5", 0) == INT32_MIN);
  SQ_CHECK(px("<AB>5", 0) == INT32_MIN);
  SQ_CHECK(px("<A#B>5", 0) == INT32_MIN);
  SQ_CHECK(px("<ABC5", 0) == INT32_MIN);
  SQ_CHECK(px("EST25", 0) == INT32_MIN);
  SQ_CHECK(px("EST5EDT", 0) == INT32_MIN);
  SQ_CHECK(px("EST5EDT,M3.2.0", 0) == INT32_MIN);
  SQ_CHECK(px("EST5EDT,M13.2.0,M11.1.0", 0) == INT32_MIN);
  SQ_CHECK(px("EST5EDT,M3.6.0,M11.1.0", 0) == INT32_MIN);
  SQ_CHECK(px("EST5EDT,M3.2.7,M11.1.0", 0) == INT32_MIN);
  SQ_CHECK(px("EST5EDT,M3.2.0/168,M11.1.0", 0) == INT32_MIN);
  SQ_CHECK(px("EST5EDT,J0,J365", 0) == INT32_MIN);
  SQ_CHECK(px("EST5EDT,J1,J366", 0) == INT32_MIN);
  SQ_CHECK(px("EST5EDT,0,366", 0) == INT32_MIN);
  SQ_CHECK(px("EST5EDT,M3.2.0,M11.1.0x", 0) == INT32_MIN);
  SQ_CHECK(px("EST5:60", 0) == INT32_MIN);
  SQ_CHECK(px("EST99999999999", 0) == INT32_MIN);
}

/* ---- TZif images ---- */

static unsigned char img[4096];

static size_t put32(size_t at, uint32_t v){
  img[at] = (unsigned char)(v >> 24); img[at + 1] = (unsigned char)(v >> 16);
  img[at + 2] = (unsigned char)(v >> 8); img[at + 3] = (unsigned char)v;
  return at + 4;
}
static size_t put64(size_t at, int64_t v){
  put32(at, (uint32_t)((uint64_t)v >> 32));
  return put32(at + 4, (uint32_t)v);
}
static size_t header(size_t at, char ver, uint32_t ntime, uint32_t ntype, uint32_t nchar){
  memcpy(img + at, "TZif", 4);
  img[at + 4] = (unsigned char)ver;
  memset(img + at + 5, 0, 15);
  put32(at + 20, 0); put32(at + 24, 0); put32(at + 28, 0);
  put32(at + 32, ntime); put32(at + 36, ntype);
  return put32(at + 40, nchar);
}
/* A v2 image: two transitions (2000, 2001) between types 0 (+1h "AAA"),
** 1 (+2h "BBB"); footer "\n<footer>\n".  Returns its size. */
static size_t build(const char *footer, int bad_index){
  size_t at = header(0, '2', 2, 2, 8);
  at = put32(at, 946684800); at = put32(at, 978307200);
  img[at++] = 1; img[at++] = 0;
  at = put32(at, 3600); img[at++] = 0; img[at++] = 0;
  at = put32(at, 7200); img[at++] = 1; img[at++] = 4;
  memcpy(img + at, "AAA\0BBB\0", 8); at += 8;
  at = header(at, '2', 2, 2, 8);
  at = put64(at, 946684800); at = put64(at, 978307200);
  img[at++] = (unsigned char)(bad_index ? 2 : 1); img[at++] = 0;
  at = put32(at, 3600); img[at++] = 0; img[at++] = 0;
  at = put32(at, 7200); img[at++] = 1; img[at++] = 4;
  memcpy(img + at, "AAA\0BBB\0", 8); at += 8;
  img[at++] = '\n';
  memcpy(img + at, footer, strlen(footer)); at += strlen(footer);
  img[at++] = '\n';
  return at;
}

static int parses(size_t n, const char *why){
  char *err = 0;
  sq_tzif *z = sq_tzif_parse(img, n, &err);
  int ok = z != 0;
  if( !ok && why ) SQ_CHECK_MSG(err && strstr(err, why), "reason '%s', want '%s'", err ? err : "(null)", why);
  sq_tzif_free(z);
  sqlite3_free(err);
  return ok;
}

static void test_images(void){
  size_t n = build("<+03>-3", 0), i;
  char *err = 0;
  sq_tzif *z;
  int32_t off = 0;
  SQ_CHECK(parses(n, 0));
  z = sq_tzif_parse(img, n, &err);
  SQ_CHECK(z != 0);
  if( z ){
    SQ_CHECK(sq_tzif_offset(z, 0, &off) && off == 3600);                 /* before: type 0 */
    SQ_CHECK(sq_tzif_offset(z, 946684799, &off) && off == 3600);
    SQ_CHECK(sq_tzif_offset(z, 946684800, &off) && off == 7200);
    SQ_CHECK(sq_tzif_offset(z, 978307199, &off) && off == 7200);
    SQ_CHECK(sq_tzif_offset(z, 978307200, &off) && off == 10800);        /* footer */
    SQ_CHECK(sq_tzif_offset(z, 4102444800LL, &off) && off == 10800);
  }
  sq_tzif_free(z);
  /* empty footer: the last transition's type goes on */
  n = build("", 0);
  z = sq_tzif_parse(img, n, &err);
  SQ_CHECK(z && sq_tzif_offset(z, 2000000000, &off) && off == 3600);
  sq_tzif_free(z);
  /* every strict prefix of a valid image is refused */
  n = build("EST5EDT,M3.2.0,M11.1.0", 0);
  SQ_CHECK(parses(n, 0));
  for(i = 0; i < n; i++) SQ_CHECK_MSG(!parses(i, 0), "prefix of %zu bytes accepted", i);
  SQ_CHECK(!parses(20, "truncated header"));
  /* index out of range */
  n = build("<+03>-3", 1);
  SQ_CHECK(!parses(n, "transition type index out of range"));
  /* counts beyond the file */
  n = build("<+03>-3", 0);
  put32(32, 1000);
  SQ_CHECK(!parses(n, "counts beyond the file"));
  put32(32, 0xffffffffu);
  SQ_CHECK(!parses(n, "counts beyond the file"));
  n = build("<+03>-3", 0);
  put32(44 + 8 + 2 + 12 + 8 + 40, 0x7fffffff);     /* second header's char count */
  SQ_CHECK(!parses(n, "counts beyond the file"));
  /* no types, bad magic, bad version, leap seconds, bad footer, designation index */
  n = build("<+03>-3", 0); put32(36, 0);
  SQ_CHECK(!parses(n, "type count"));
  n = build("<+03>-3", 0); img[0] = 'X';
  SQ_CHECK(!parses(n, "magic"));
  n = build("<+03>-3", 0); img[4] = '9';
  SQ_CHECK(!parses(n, "version"));
  n = build("<+03>-3", 0); put32(28, 1);
  SQ_CHECK(!parses(n, "leap"));
  n = build("EST5EDT,M3.2.0", 0);
  SQ_CHECK(!parses(n, "POSIX TZ string"));
  n = build("<+03>-3", 0); img[n - 1] = 'x';
  SQ_CHECK(!parses(n, "footer"));
  n = build("<+03>-3", 0); img[118 + 16 + 2 + 6 + 5] = 8;       /* v2 type 1 desigidx */
  SQ_CHECK(!parses(n, "designation index"));
  n = build("<+03>-3", 0); put64(74 + 44 + 8, 946684800);       /* v2 times not ascending */
  SQ_CHECK(!parses(n, "ascending"));
}

static void test_files(void){
  sq_tzif *z = 0;
  char *err = 0;
  int32_t off = 0;
  static const char *const bad[] = {
    "../etc/passwd", "/etc/passwd", "a//b", ".", "..", "", "America/../../etc/passwd",
    "America/", "America/New York", "America/New_York\n", "America\\New_York", "Europe/./Paris",
    "%2e%2e/etc/passwd", "~root", 0
  };
  int i;
  char longid[300];
  for(i = 0; bad[i]; i++){
    int rc = sq_tzif_open(bad[i], &z, &err);
    SQ_CHECK_MSG(rc == SQ_TZIF_BADID && z == 0 && !sq_tzif_valid_id(bad[i]), "'%s': rc %d", bad[i], rc);
    sqlite3_free(err); err = 0;
  }
  memset(longid, 'A', sizeof longid - 1); longid[sizeof longid - 1] = 0;
  SQ_CHECK(!sq_tzif_valid_id(longid));
  SQ_CHECK(sq_tzif_valid_id("America/Argentina/Buenos_Aires"));
  SQ_CHECK(sq_tzif_valid_id("Etc/GMT+5") && sq_tzif_valid_id("Etc/GMT-14"));
  SQ_CHECK(sq_tzif_open("Mars/Olympus", &z, &err) == SQ_TZIF_NOFILE && !z);
  sqlite3_free(err); err = 0;
  SQ_CHECK(sq_tzif_open("America", &z, &err) == SQ_TZIF_NOFILE && !z);   /* a directory */
  sqlite3_free(err); err = 0;
  /* the system's tzdata (Debian's tzdata package) */
  if( sq_tzif_open("America/New_York", &z, &err) == SQ_TZIF_OK ){
    SQ_CHECK(sq_tzif_offset(z, 1719792000LL, &off) && off == -14400);
    SQ_CHECK(sq_tzif_offset(z, 1704067200LL, &off) && off == -18000);
    SQ_CHECK(sq_tzif_offset(z, 4118000000LL, &off) && off == -14400);   /* 2100-06, footer */
    SQ_CHECK(sq_tzif_offset(z, -3000000000LL, &off) && off == -17762);  /* 1874, LMT */
    sq_tzif_free(z); z = 0;
  }else{
    SQ_CHECK_MSG(0, "America/New_York: %s (is Debian's tzdata installed?)", err ? err : "no file");
  }
  sqlite3_free(err); err = 0;
  /* Egypt has DST again since 2023 (ICU 72's data predates that) */
  if( sq_tzif_open("Africa/Cairo", &z, &err) == SQ_TZIF_OK ){
    SQ_CHECK(sq_tzif_offset(z, 1685620800LL, &off) && off == 10800);    /* 2023-06-01T12:00Z */
    sq_tzif_free(z); z = 0;
  }else SQ_CHECK_MSG(0, "Africa/Cairo: %s", err ? err : "no file");
  sqlite3_free(err); err = 0;
  /* TZDIR: another directory, absolute paths only; a FIFO or a non-TZif file is refused */
  {
    char dir[] = "/tmp/test_tzif_XXXXXX", p[128];
    FILE *f;
    if( mkdtemp(dir) ){
      snprintf(p, sizeof p, "%s/Bad", dir);
      f = fopen(p, "w"); if( f ){ fputs("This is not a zone file; it is text, longer than a TZif header.\n", f); fclose(f); }
      snprintf(p, sizeof p, "%s/Fifo", dir);
      SQ_CHECK(mkfifo(p, 0600) == 0);
      setenv("TZDIR", dir, 1);
      SQ_CHECK(sq_tzif_open("Bad", &z, &err) == SQ_TZIF_BAD && err && strstr(err, "magic"));
      sqlite3_free(err); err = 0;
      SQ_CHECK(sq_tzif_open("Fifo", &z, &err) == SQ_TZIF_BAD && err && strstr(err, "not a regular file"));
      sqlite3_free(err); err = 0;
      SQ_CHECK(sq_tzif_open("America/New_York", &z, &err) == SQ_TZIF_NOFILE);
      sqlite3_free(err); err = 0;
      setenv("TZDIR", "relative/dir", 1);
      SQ_CHECK(sq_tzif_open("America/New_York", &z, &err) == SQ_TZIF_OK);
      sq_tzif_free(z); z = 0;
      sqlite3_free(err); err = 0;
      unsetenv("TZDIR");
      remove(p);
      snprintf(p, sizeof p, "%s/Bad", dir); remove(p);
      rmdir(dir);
    }else SQ_CHECK(0);
  }
}

int main(void){
  test_posix();
  test_images();
  test_files();
  return sq_test_done("test_tzif");
}
