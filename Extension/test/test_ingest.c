/*
** test_ingest.c — C tests of the ingest core (sq_ingest.h): the coercion
** table cell by cell (lenient and strict), the key → column rule (exact,
** ASCII case-insensitive, ambiguous, mappings, one key → several columns,
** several keys → one column, duplicates), DEFAULT columns, nested values
** through the one escaper, dates, layouts and paths, whole values, error
** positions and record indexes, the record limit, the format-neutral event
** API, pause and abort.
**
** Every JSON document is ingested whole, split in two at every byte
** position, fed byte by byte, and with a pause after every row: the row
** logs (values, record index, position) and the final status/error must be
** identical, and equal to the expected log.
*/
#include "sq_internal.h"
#include "sq_ingest.h"
#include "sq_json_ingest.h"
#include "sq_test.h"

#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ log */

typedef struct Log { char *s; size_t n, cap; int pause; int abort_at; } Log;

static void log_bytes(Log *l, const char *z, size_t n){
  size_t i;
  for(i=0; i<n; i++){
    unsigned char c = (unsigned char)z[i];
    if( c<0x20 || c>=0x7f || c=='\'' ) log_printf(l, "\\x%02x", c);
    else log_add(l, (const char*)&c, 1);
  }
}

static int on_row(void *u, const sq_ingest_row *r){
  Log *l = (Log*)u;
  int i;
  log_printf(l, "#%lld @%llu:%llu:%llu", (long long)r->index, (unsigned long long)r->offset,
             (unsigned long long)r->line, (unsigned long long)r->column);
  for(i=0; i<r->ncol; i++){
    const sq_ingest_value *v = &r->values[i];
    log_add(l, i ? "|" : " ", 1);
    switch( v->type ){
      case SQ_INGEST_V_NULL: log_add(l, "N", 1); break;
      case SQ_INGEST_V_INTEGER: log_printf(l, "%lld", (long long)v->i); break;
      case SQ_INGEST_V_REAL: log_printf(l, "r%.17g", v->r); break;
      case SQ_INGEST_V_TEXT:
      case SQ_INGEST_V_JSON:
        if( !v->text ) log_add(l, "(NULL POINTER)", 14);
        log_add(l, v->type==SQ_INGEST_V_JSON ? "j'" : "'", v->type==SQ_INGEST_V_JSON ? 2 : 1);
        log_bytes(l, v->text, v->len);
        log_add(l, "'", 1);
        break;
      case SQ_INGEST_V_OMITTED: log_add(l, "-", 1); break;
      default: log_add(l, "?", 1);
    }
  }
  log_add(l, "\n", 1);
  if( l->abort_at>0 && r->index+1==l->abort_at ) return 7;
  return l->pause ? SQ_INGEST_PAUSE : SQ_INGEST_CONTINUE;
}

static void log_end(Log *l, sq_ingest *g, int rc){
  const sq_ingest_error *e = sq_ingest_error_info(g);
  if( rc!=SQ_INGEST_ERROR ){
    log_printf(l, "OK %lld", (long long)sq_ingest_records(g));
    if( e->code ) log_printf(l, " BUT ERROR CODE %d", e->code);
    return;
  }
  log_printf(l, "ERR %d @%llu:%llu:%llu rec=%lld", e->code, (unsigned long long)e->offset,
             (unsigned long long)e->line, (unsigned long long)e->column, (long long)e->record);
  if( e->key ){ log_add(l, " key='", 6); log_bytes(l, e->key, e->nkey); log_add(l, "'", 1); }
  log_printf(l, ": %s", e->message);
}

/* ------------------------------------------------------------ set-up spec */

/* A test's configuration, re-applied to every core it makes:
** "c NAME TYPE [DEFAULT]" column, "m KEY=COLUMN" mapping, "strict",
** "path P", "layout array|ndjson|auto", "pk KEY", "pi N", "whole",
** "max N"; entries separated by ';'. */
static const char *g_spec;
static int g_abort_at;

static void apply_spec(sq_ingest *g, const char *spec){
  const char *s = spec;
  while( s && *s ){
    const char *e = strchr(s, ';');
    size_t n = e ? (size_t)(e-s) : strlen(s);
    char item[1024];
    while( n>0 && *s==' ' ){ s++; n--; }
    if( n>=sizeof item ) abort();
    memcpy(item, s, n);
    item[n] = 0;
    if( strncmp(item, "c ", 2)==0 ){
      char *name = item+2, *type = strchr(name, ' ');
      unsigned flags = 0;
      if( type ){
        char *d = strstr(type, " DEFAULT"), *k = strstr(type, " KINDS=");
        *type++ = 0;
        if( k ){
          /* the JSON kinds it takes: s(tring) n(umber) b(ool) o(bject/array) */
          const char *c;
          flags |= SQ_INGEST_COL_KINDS;
          for(c=k+7; *c; c++){
            flags |= *c=='s' ? SQ_INGEST_COL_STRING : *c=='n' ? SQ_INGEST_COL_NUMBER
                   : *c=='b' ? SQ_INGEST_COL_BOOL : *c=='o' ? SQ_INGEST_COL_NESTED : 0;
          }
          *k = 0;
        }
        if( d ){ *d = 0; flags |= SQ_INGEST_COL_DEFAULT; }
      }
      SQ_CHECK(sq_ingest_add_column(g, name, -1, type, -1, flags)>=0);
    }else if( strncmp(item, "m ", 2)==0 ){
      char *eq = strchr(item, '=');
      *eq = 0;
      sq_ingest_map_key(g, item+2, -1, eq+1, -1);
    }else if( strcmp(item, "strict")==0 ){
      sq_ingest_set_strict(g, 1);
    }else if( strncmp(item, "path ", 5)==0 ){
      sq_ingest_json_path(g, item+5, -1);
    }else if( strncmp(item, "layout ", 7)==0 ){
      sq_ingest_json_layout(g, strcmp(item+7, "ndjson")==0 ? SQ_INGEST_LAYOUT_NDJSON
                               : strcmp(item+7, "auto")==0 ? SQ_INGEST_LAYOUT_AUTO : SQ_INGEST_LAYOUT_ARRAY);
    }else if( strncmp(item, "pk ", 3)==0 ){
      sq_ingest_json_path_key(g, item+3, -1);
    }else if( strncmp(item, "pi ", 3)==0 ){
      sq_ingest_json_path_index(g, atoll(item+3));
    }else if( strcmp(item, "whole")==0 ){
      sq_ingest_set_whole_values(g, 1);
    }else if( strncmp(item, "max ", 4)==0 ){
      sq_ingest_set_max_record(g, atoll(item+4));
    }else if( item[0] ){
      fprintf(stderr, "bad spec item '%s'\n", item);
      abort();
    }
    s = e ? e+1 : 0;
  }
}

/* Feeds one chunk, resuming after pauses. */
static int feed_all(sq_ingest *g, const char *b, size_t n){
  for(;;){
    int rc = sq_ingest_json_feed(g, b, n);
    size_t k;
    if( rc!=SQ_INGEST_PAUSED ) return rc;
    k = sq_ingest_json_consumed(g);
    if( k>n ) return -99;
    b += k; n -= k;
    if( n==0 ) return SQ_INGEST_OK;
  }
}

/* Ingests doc[0..n) cut at `cut` (n: whole) or in chunks of `every`. */
static char *run(const char *doc, size_t n, size_t cut, size_t every, int pause){
  Log l = {0,0,0,pause,g_abort_at};
  sq_ingest *g = sq_ingest_new(on_row, &l);
  int rc = SQ_INGEST_OK;
  size_t pos = 0;
  log_add(&l, "", 0);
  apply_spec(g, g_spec);
  if( sq_ingest_error_info(g)->code ) rc = SQ_INGEST_ERROR;
  while( rc==SQ_INGEST_OK && pos<n ){
    size_t next = every ? (pos+every<n ? pos+every : n) : (pos<cut ? cut : n);
    rc = feed_all(g, doc+pos, next-pos);
    pos = next;
  }
  if( rc==SQ_INGEST_OK ) rc = sq_ingest_json_finish(g);
  log_end(&l, g, rc);
  sq_ingest_free(g);
  return l.s;
}

/* The log of doc under spec; every split, byte-by-byte feeding and pausing
** give the same.  Returns the whole log (caller frees). */
static char *ingest(const char *spec, const char *doc, size_t n){
  char *whole;
  size_t i;
  int bad = 0;
  g_spec = spec;
  whole = run(doc, n, n, 0, 0);
  for(i=0; i<=n && !bad; i++){
    char *got = run(doc, n, i, 0, 0);
    if( strcmp(got, whole)!=0 ){
      bad = 1;
      SQ_CHECK_MSG(0, "%s: split at %zu differs:\n--- whole\n%s\n--- split\n%s", doc, i, whole, got);
    }
    free(got);
  }
  if( !bad ){
    char *got = run(doc, n, 0, 1, 0);
    if( strcmp(got, whole)!=0 ){
      bad = 1;
      SQ_CHECK_MSG(0, "%s: byte by byte differs:\n--- whole\n%s\n--- bytes\n%s", doc, whole, got);
    }
    free(got);
  }
  if( !bad ){
    char *got = run(doc, n, 0, 7, 1);
    if( strcmp(got, whole)!=0 ){
      SQ_CHECK_MSG(0, "%s: pausing after every row differs:\n--- whole\n%s\n--- paused\n%s", doc, whole, got);
    }
    free(got);
  }
  return whole;
}

static void expect(const char *spec, const char *doc, const char *want){
  char *got = ingest(spec, doc, strlen(doc));
  SQ_CHECK_MSG(strcmp(got, want)==0, "spec %s\ndoc %s\n--- got\n%s\n--- want\n%s", spec, doc, got, want);
  free(got);
}

/* The last line of the log (the status) contains `want`. */
static void expect_end(const char *spec, const char *doc, const char *want){
  char *got = ingest(spec, doc, strlen(doc));
  const char *last = strrchr(got, '\n');
  last = last ? last+1 : got;
  SQ_CHECK_MSG(strstr(last, want)!=0, "spec %s\ndoc %s\n--- got\n%s\n--- want a last line containing\n%s",
               spec, doc, got, want);
  free(got);
}

/* ------------------------------------------------------------ coercion */

#define SIX "c i INTEGER;c r REAL;c t TEXT;c n NUMERIC;c b;c v VARCHAR(10)"

/* One record setting every column of SIX to `value`; the row must be `want`. */
static void coerce(const char *value, const char *want){
  char doc[512], exp[512];
  snprintf(doc, sizeof doc, "[{\"i\":%s,\"r\":%s,\"t\":%s,\"n\":%s,\"b\":%s,\"v\":%s}]",
           value, value, value, value, value, value);
  snprintf(exp, sizeof exp, "#0 @1:1:2 %s\nOK 1", want);
  expect(SIX, doc, exp);
}

static void test_coercion_lenient(void){
  /*      value                        INTEGER | REAL | TEXT | NUMERIC | BLOB | TEXT (VARCHAR) */
  coerce("null",                       "N|N|N|N|N|N");
  coerce("true",                       "1|r1|1|1|1|1");
  coerce("false",                      "0|r0|0|0|0|0");
  coerce("12",                         "12|r12|'12'|12|12|'12'");
  coerce("12.5",                       "r12.5|r12.5|'12.5'|r12.5|r12.5|'12.5'");
  coerce("12.0",                       "12|r12|'12.0'|r12|r12|'12.0'");
  coerce("1.50",                       "r1.5|r1.5|'1.50'|r1.5|r1.5|'1.50'");
  coerce("1e3",                        "1000|r1000|'1e3'|r1000|r1000|'1e3'");
  coerce("-2.5E-1",                    "r-0.25|r-0.25|'-2.5E-1'|r-0.25|r-0.25|'-2.5E-1'");
  coerce("9223372036854775807",        "9223372036854775807|r9.2233720368547758e+18|'9223372036854775807'|9223372036854775807|9223372036854775807|'9223372036854775807'");
  coerce("-9223372036854775808",       "-9223372036854775808|r-9.2233720368547758e+18|'-9223372036854775808'|-9223372036854775808|-9223372036854775808|'-9223372036854775808'");
  coerce("9223372036854775808",        "'9223372036854775808'|r9.2233720368547758e+18|'9223372036854775808'|'9223372036854775808'|'9223372036854775808'|'9223372036854775808'");
  coerce("123456789012345678901234",   "'123456789012345678901234'|r1.2345678901234569e+23|'123456789012345678901234'|'123456789012345678901234'|'123456789012345678901234'|'123456789012345678901234'");
  coerce("9.3e18",                     "r9.3e+18|r9.3e+18|'9.3e18'|r9.3e+18|r9.3e+18|'9.3e18'");
  coerce("\"12\"",                     "12|r12|'12'|'12'|'12'|'12'");
  coerce("\"-007\"",                   "-7|r-7|'-007'|'-007'|'-007'|'-007'");
  coerce("\"1.5\"",                    "'1.5'|r1.5|'1.5'|'1.5'|'1.5'|'1.5'");
  coerce("\"x1\"",                     "'x1'|'x1'|'x1'|'x1'|'x1'|'x1'");
  coerce("\" 7\"",                     "' 7'|' 7'|' 7'|' 7'|' 7'|' 7'");
  coerce("\"\"",                       "''|''|''|''|''|''");
  coerce("\"99999999999999999999\"",   "'99999999999999999999'|r1e+20|'99999999999999999999'|'99999999999999999999'|'99999999999999999999'|'99999999999999999999'");
  coerce("[]",                         "j'[]'|j'[]'|j'[]'|j'[]'|j'[]'|j'[]'");
  coerce("{\"a\":[1, {}]}",            "j'{\"a\":[1,{}]}'|j'{\"a\":[1,{}]}'|j'{\"a\":[1,{}]}'|j'{\"a\":[1,{}]}'|j'{\"a\":[1,{}]}'|j'{\"a\":[1,{}]}'");
}

/* A number that an INTEGER, REAL or NUMERIC column would change (beyond the
** range of a double, below its smallest normal value, a negative zero) is
** an error in every mode: as text, SQLite's affinity would change it all
** the same on INSERT.  TEXT and untyped (BLOB) columns keep the text. */
static void test_coercion_changed_numbers(void){
  static const char *const values[] = { "-0", "-0.0", "1e400", "-1e400", "1E-400", "\"1e400\"", "\"-0\"", "\"4.9e-325\"" };
  static const char *const types[] = { "INTEGER", "REAL", "NUMERIC" };
  size_t i, t;
  for(i=0; i<sizeof values/sizeof values[0]; i++){
    char spec[64], doc[128], want[128];
    const char *v = values[i];
    int quoted = v[0]=='"';
    for(t=0; t<3; t++){
      snprintf(spec, sizeof spec, "c c %s", types[t]);
      snprintf(doc, sizeof doc, "[{\"c\": %s}]", v);
      snprintf(want, sizeof want, "%s%.*s%s ", quoted ? "'" : "", (int)strlen(v)-2*quoted, v+quoted, quoted ? "'" : "");
      expect_end(spec, doc, want);
      expect_end(spec, doc, types[t]);
    }
    snprintf(doc, sizeof doc, "[{\"t\": %s, \"b\": %s}]", v, v);
    snprintf(want, sizeof want, "#0 @1:1:2 '%.*s'|'%.*s'\nOK 1", (int)strlen(v)-2*quoted, v+quoted,
             (int)strlen(v)-2*quoted, v+quoted);
    expect("c t TEXT;c b", doc, want);
  }
  expect_end("c c REAL", "[{\"c\": 1e400}]",
             "ERR 3 @7:1:8 rec=0 key='c': 1e400 is beyond the range of a REAL (it would be stored as infinity), column c is REAL");
  expect_end("c c INTEGER", "[{\"c\": -0}]",
             "-0 is a negative zero (SQLite keeps no sign on a zero: it would be stored as 0), column c is INTEGER");
}

/* Strict mode: the one-column doc [{"c": VALUE}] into a column of `type`. */
static void strict1(const char *type, const char *value, const char *want){
  char spec[128], doc[256];
  snprintf(spec, sizeof spec, "strict;c c %s", type);
  snprintf(doc, sizeof doc, "[{\"c\": %s}]", value);
  expect_end(spec, doc, want);
}

static void test_coercion_strict(void){
  /* lossless values pass */
  expect("strict;" SIX, "[{\"i\":12.0,\"r\":\"2.5\",\"t\":1.50,\"n\":\"x\",\"b\":true,\"v\":null}]",
         "#0 @1:1:2 12|r2.5|'1.50'|'x'|1|N\nOK 1");
  strict1("INTEGER", "1.5", "ERR 3 @7:1:8 rec=0 key='c': 1.5 is not an integer, column c is INTEGER (strict mode)");
  strict1("INTEGER", "1e400", "ERR 3 @7:1:8 rec=0 key='c': 1e400 is beyond the range of a REAL (it would be stored as infinity), column c is INTEGER");
  strict1("INT", "123456789012345678901234", "123456789012345678901234 is out of the 64-bit integer range, column c (strict mode)");
  strict1("NUMERIC", "123456789012345678901234", "is out of the 64-bit integer range");
  strict1("INTEGER", "\"x1\"", "ERR 3 @7:1:8 rec=0 key='c': 'x1' is not an integer, column c is INTEGER (strict mode)");
  strict1("INTEGER", "\"1.0\"", "'1.0' is not an integer");
  strict1("REAL", "\"high\"", "'high' is not a number, column c is REAL (strict mode)");
  strict1("REAL", "\"1.\"", "'1.' is not a number");
  strict1("REAL", "1e400", "1e400 is beyond the range of a REAL (it would be stored as infinity), column c is REAL");
  strict1("DOUBLE", "\"-1e400\"", "'-1e400' is beyond the range of a REAL");
  strict1("NUMERIC", "-1e400", "-1e400 is beyond the range of a REAL");
  strict1("", "1e999", "1e999 is beyond the range of a REAL");
  strict1("INTEGER", "[1]", "ERR 3 @7:1:8 rec=0 key='c': a nested array cannot go into INTEGER column c (strict mode)");
  strict1("REAL", "{\"a\":1}", "a nested object cannot go into REAL column c (strict mode)");
  strict1("DATETIME", "\"2024-13-01\"", "ERR 3 @7:1:8 rec=0 key='c': '2024-13-01' is not a date or date-time, column c is a date column (strict mode)");
  /* a long, odd value is echoed cut and escaped */
  {
    char doc[1200], *got;
    memset(doc, 0, sizeof doc);
    strcpy(doc, "[{\"c\": \"\\u0001");
    memset(doc+strlen(doc), 'x', 500);
    strcat(doc, "\"}]");
    g_spec = "strict;c c INTEGER";
    got = run(doc, strlen(doc), strlen(doc), 0, 0);
    SQ_CHECK_MSG(strstr(got, ": '\\x01xxxx") && strstr(got, "\xE2\x80\xA6' (501 bytes) is not an integer"), "%s", got);
    free(got);
  }
  /* text columns take anything but nothing is lost */
  expect("strict;c t TEXT", "[{\"t\": 1e400}, {\"t\": [1]}, {\"t\": 123456789012345678901234}]",
         "#0 @1:1:2 '1e400'\n#1 @15:1:16 j'[1]'\n#2 @27:1:28 '123456789012345678901234'\nOK 3");
}

static void test_dates(void){
  expect("c d DATETIME;c dt DATE TEXT;c ts TIMESTAMP",
         "[{\"d\": \"2024-05-01\", \"dt\": \"2024-05-01T14:00:00+02:00\", \"ts\": \"2024-05-01 12:00:00.5Z\"},\n"
         " {\"d\": \"2024-05-01T00:30:00.123456+01:00\", \"dt\": \"2024-02-29T23:59:59.5-01:30\", \"ts\": \"1969-12-31T23:00:00-02:00\"},\n"
         " {\"d\": \"soon\", \"dt\": 12, \"ts\": 12.5},\n"
         " {\"d\": \"2023-02-29\", \"dt\": \"2024-05-01T25:00\", \"ts\": \"\"}]",
         "#0 @1:1:2 '2024-05-01 00:00:00.000'|'2024-05-01 12:00:00.000'|'2024-05-01 12:00:00.500'\n"
         "#1 @90:2:2 '2024-04-30 23:30:00.123'|'2024-03-01 01:29:59.500'|'1970-01-01 01:00:00.000'\n"
         "#2 @206:3:2 'soon'|'12'|r12.5\n"
         "#3 @244:4:2 '2023-02-29'|'2024-05-01T25:00'|''\n"
         "OK 4");
}

/* ------------------------------------------------------------ keys */

static void test_key_rule(void){
  /* exact, else ASCII case-insensitive; unknown keys ignored */
  expect("c id INTEGER;c title TEXT",
         "[{\"ID\":1,\"TITLE\":\"a\"},{\"Id\":2,\"title\":\"b\",\"extra\":[1]},{\"t\\u00cdtle\":\"c\"}]",
         "#0 @1:1:2 1|'a'\n#1 @22:1:23 2|'b'\n#2 @55:1:56 N|N\nOK 3");
  /* ... strict: an unknown key is an error, with its key and position */
  expect("strict;c id INTEGER;c title TEXT",
         "[{\"ID\":1,\"TITLE\":\"a\"},\n{\"Id\":2,\"title\":\"b\",\"extra\":1}]",
         "#0 @1:1:2 1|'a'\n"
         "ERR 3 @43:2:21 rec=1 key='extra': no column for this key (strict mode: map the key to a column, or turn strict mode off)");
  /* ASCII only: a non-ASCII letter in another case is another key */
  expect("strict;c \xC3\xA9t\xC3\xA9 TEXT", "[{\"\xC3\x89T\xC3\x89\": 1}]",
         "ERR 3 @2:1:3 rec=0 key='\\xc3\\x89T\\xc3\\x89': no column for this key (strict mode: map the key to a column, or turn strict mode off)");
  /* an exact match wins over a case-insensitive one; two case-insensitive
  ** matches are ambiguous, in lenient mode too */
  expect("c a TEXT;c b TEXT;m Foo=a;m FOO=b",
         "[{\"Foo\":1,\"FOO\":2},\n{\"foo\":3}]",
         "#0 @1:1:2 '1'|'2'\n"
         "ERR 4 @21:2:2 rec=1 key='foo': key 'foo' matches both 'Foo' and 'FOO' ignoring case (map it exactly)");
  /* mappings: a mapped column is no longer fed by its own name */
  expect("c id INTEGER;c added DATETIME;m id_str=id;m date_added=added",
         "[{\"id_str\": \"17\", \"id\": 999, \"date_added\": \"2024-05-01T14:00:00+02:00\", \"added\": \"x\"}]",
         "#0 @1:1:2 17|'2024-05-01 12:00:00.000'\nOK 1");
  expect_end("strict;c id INTEGER;m id_str=id", "[{\"id_str\": 1, \"id\": 2}]",
             "ERR 3 @15:1:16 rec=0 key='id': no column for this key");
  /* the column of a mapping is found by name like SQLite's: case-insensitively */
  expect("c Title TEXT;m name=TITLE", "[{\"name\":\"n\",\"title\":\"t\"}]", "#0 @1:1:2 'n'\nOK 1");
  /* one key, several columns (each with its own affinity), also nested */
  expect("c n INTEGER;c n_text TEXT;c n_real REAL;c o;c o2 TEXT;m n=n_text;m n=n_real;m o=o2",
         "[{\"n\":5,\"o\":{\"k\":[1]}},{\"o\":\"s\",\"n\":\"7\"}]",
         "#0 @1:1:2 5|'5'|r5|j'{\"k\":[1]}'|j'{\"k\":[1]}'\n"
         "#1 @23:1:24 7|'7'|r7|'s'|'s'\nOK 2");
  /* a mapping onto another column's name */
  expect("c a TEXT;c n INTEGER;m n=a", "[{\"n\":5}]", "#0 @1:1:2 '5'|5\nOK 1");
  /* several keys, one column: either fills it; two members of one object
  ** for one column are an error naming both, in every mode (no guess) */
  expect("c a TEXT;m x=a;m y=a", "[{\"x\":1},{\"y\":3},\n{\"y\":3,\"x\":4}]",
         "#0 @1:1:2 '1'\n#1 @9:1:10 '3'\n"
         "ERR 11 @25:2:8 rec=2 key='x': keys 'y' and 'x' of one object both match column 'a'");
  expect("strict;c a TEXT;m x=a;m y=a", "[{\"x\":1},{\"x\":1,\"y\":2}]",
         "#0 @1:1:2 '1'\nERR 11 @16:1:17 rec=1 key='y': keys 'x' and 'y' of one object both match column 'a'");
  expect("c title TEXT", "[{\"title\":1,\"Title\":2}]",
         "ERR 11 @12:1:13 rec=0 key='Title': keys 'title' and 'Title' of one object both match column 'title'");
  expect("c a INTEGER;c b", "[{\"a\":1,\"b\":0},{\"a\":1,\"b\":0,\"a\":2}]",
         "#0 @1:1:2 1|0\nERR 11 @28:1:29 rec=1 key='a': key 'a' appears twice in one object (column 'a')");
  /* ... a repeated key that feeds no column is ignored like any unknown key */
  expect("c b INTEGER", "[{\"a\":1,\"a\":2,\"b\":3}]", "#0 @1:1:2 3\nOK 1");
  /* ... also for keys the per-position cache does not hold (long ones) */
  {
    char doc[1400], want[1400], k[301];
    memset(k, 'k', 300); k[300] = 0;
    snprintf(doc, sizeof doc, "[{\"%s\":1,\"%s\":2}]", k, k);
    snprintf(want, sizeof want, "ERR 11 @307:1:308 rec=0 key='%s': key '%.200s\xe2\x80\xa6' (300 bytes) "
             "appears twice in one object (column '%.200s\xe2\x80\xa6' (300 bytes))", k, k, k);
    g_spec = 0;
    {
      char spec[400];
      snprintf(spec, sizeof spec, "c %s", k);
      expect(spec, doc, want);
    }
  }
  /* keys in another order in each record (the per-position cache) */
  expect("c a INTEGER;c b INTEGER;c c INTEGER",
         "[{\"a\":1,\"b\":2,\"c\":3},{\"c\":3,\"b\":2,\"a\":1},{\"b\":2},{\"x\":0,\"a\":1,\"b\":2,\"c\":3}]",
         "#0 @1:1:2 1|2|3\n#1 @21:1:22 1|2|3\n#2 @41:1:42 N|2|N\n#3 @49:1:50 1|2|3\nOK 4");
  /* a mapping to a column that does not exist */
  expect("c a TEXT;m k=nope", "[]", "ERR 9 @0:0:0 rec=-1 key='k': no column named 'nope' (for the key 'k')");
}

static void test_default_columns(void){
  /* a DEFAULT column the first record does not name is left out (OMITTED) in
  ** every row, and naming it later is an error; one it names is filled */
  expect("c id INTEGER;c created TEXT DEFAULT;c other TEXT DEFAULT",
         "[{\"id\":1,\"other\":\"o\"},{\"id\":2},\n{\"id\":3,\"created\":\"x\"}]",
         "#0 @1:1:2 1|-|'o'\n#1 @22:1:23 2|-|N\n"
         "ERR 5 @40:2:9 rec=2 key='created': column created has a DEFAULT and the first element has no "
         "key for it, so it is not inserted (give the key in the first element, or list the columns to insert)");
  expect("c id INTEGER;c created TEXT DEFAULT", "[{\"created\":null,\"id\":1},{\"id\":2,\"created\":\"c\"}]",
         "#0 @1:1:2 1|N\n#1 @25:1:26 2|'c'\nOK 2");
}

/* A column of given kinds (SQ_INGEST_COL_KINDS) refuses a value of
** another kind, strict or not, where the coercion would change it; null and
** its own kinds go in as without the flag. */
static void test_column_kinds(void){
  expect("c i INTEGER KINDS=n;c t TEXT KINDS=s;c d DATE KINDS=s;c b INTEGER KINDS=b;c m TEXT KINDS=sno",
         "[{\"i\":12,\"t\":\"x\",\"d\":\"2024-01-02\",\"b\":true,\"m\":5},"
         "{\"i\":null,\"t\":null,\"d\":null,\"b\":false,\"m\":[1]},{\"m\":\"s\"}]",
         "#0 @1:1:2 12|'x'|'2024-01-02'|1|'5'\n#1 @50:1:51 N|N|N|0|j'[1]'\n#2 @97:1:98 N|N|N|N|'s'\nOK 3");
  expect_end("c i INTEGER KINDS=n", "[{\"i\":1},{\"i\":\"12\"}]",
             "key='i': a string cannot go into INTEGER column i, which takes numbers only (it would be stored changed)");
  expect_end("c t TEXT KINDS=s", "[{\"t\":5}]",
             "key='t': a number cannot go into TEXT column t, which takes strings only");
  expect_end("c t TEXT KINDS=s;strict", "[{\"t\":true}]",
             "key='t': true cannot go into TEXT column t, which takes strings only");
  expect_end("c i INTEGER KINDS=n", "[{\"i\":false}]", "false cannot go into INTEGER column i");
  expect_end("c b INTEGER KINDS=b", "[{\"b\":1}]", "a number cannot go into INTEGER column b, which takes true/false only");
  expect_end("c t TEXT KINDS=sn", "[{\"t\":{\"a\":1}}]",
             "a nested object/array cannot go into TEXT column t, which takes strings, numbers only");
  /* without the flag: the coercions as documented */
  expect("c i INTEGER;c t TEXT", "[{\"i\":\"12\",\"t\":5}]", "#0 @1:1:2 12|'5'\nOK 1");
}

/* ------------------------------------------------------------ nested values */

static void test_nested_escaper(void){
  /* the one escaper: short escapes for \b \f \n \r \t " \, \u00xx for other
  ** controls, nothing else escaped; numbers as written; no whitespace */
  expect("c v",
         "[{\"v\": [\"\\b\\f\\n\\r\\t\\\"\\\\\\/\\u0001\\u001f\\u007f\\u00e9\\u2028\\ud83d\\ude00\", "
         "{\"k\\b\": 1.50e+3, \"\\u0000\": [true, false, null, -0, {}]}]}]",
         "#0 @1:1:2 j'[\"\\b\\f\\n\\r\\t\\\"\\\\/\\u0001\\u001f\\x7f"
         "\\xc3\\xa9\\xe2\\x80\\xa8\\xf0\\x9f\\x98\\x80\",{\"k\\b\":1.50e+3,\"\\u0000\":[true,false,null,-0,{}]}]'\n"
         "OK 1");
  /* an ignored key's nested value is skipped; nested values do not leak
  ** into later columns */
  expect("c a TEXT;c b TEXT",
         "[{\"x\": {\"a\": 1, \"b\": [2]}, \"a\": [[], {\"b\": 3}], \"b\": \"s\"}]",
         "#0 @1:1:2 j'[[],{\"b\":3}]'|'s'\nOK 1");
}

/* ------------------------------------------------------------ layouts */

static const char kDoc[] =
  "{\"meta\": {\"n\": 2, \"items\": \"not this\"},\n"
  " \"data\": {\"skip\": [9, 9], \"items\": [{\"a\": 1}, {\"a\": 2}]},\n"
  " \"rows\": [[10, 11], [20, 21, {\"b\": [\"x\", \"y\"]}]],\n"
  " \"odd key.\": [true]}";

static void test_layouts(void){
  /* array (the default) */
  expect("c a INTEGER", " [ ] ", "OK 0");
  expect("c a INTEGER", "{\"a\": 1}",
         "ERR 2 @0:1:1 rec=-1: expected an array of objects at the top level, found an object");
  expect("c a INTEGER", "7", "ERR 2 @0:1:1 rec=-1: expected an array of objects at the top level, found a number");
  expect("c a INTEGER", "[{\"a\": 1},\n 7]",
         "#0 @1:1:2 1\nERR 2 @12:2:2 rec=1: expected an object, found a number (rows are read from JSON objects)");
  expect_end("c a INTEGER", "[{\"a\": 1}] [2]", "ERR 1 @11:1:12 rec=-1: unexpected data after the top-level value");
  expect_end("c a INTEGER", "", "ERR 1");
  /* NDJSON */
  expect("layout ndjson;c id INTEGER;c title TEXT",
         "{\"id\": 1, \"title\": \"a\"}\n{\"id\": 2, \"title\": \"b\"}\n\n{\"id\": 3, \"title\": \"c\"}\n",
         "#0 @0:1:1 1|'a'\n#1 @24:2:1 2|'b'\n#2 @49:4:1 3|'c'\nOK 3");
  expect("layout ndjson;c a INTEGER", "", "OK 0");
  expect("layout ndjson;c a INTEGER", "{\"a\":1} {\"a\":2}",
         "#0 @0:1:1 1\nERR 1 @8:1:9 rec=1: expected a newline between top-level values");
  expect("layout ndjson;c a INTEGER", "{\"a\":1}\n[1]",
         "#0 @0:1:1 1\nERR 2 @8:2:1 rec=1: expected an object, found an array (rows are read from JSON objects)");
  /* auto ('$'): an array, else NDJSON */
  expect("path $;c a INTEGER", "[{\"a\": 1}, {\"a\": 2}]", "#0 @1:1:2 1\n#1 @11:1:12 2\nOK 2");
  expect("path $;c a INTEGER", "{\"a\": 1}\n{\"a\": 2}", "#0 @0:1:1 1\n#1 @9:2:1 2\nOK 2");
  expect("path $;c a INTEGER", "  ", "OK 0");
  expect("path $;whole", "[1, 2]\n[3]",
         "#0 @1:1:2 j'1'\n#1 @4:1:5 j'2'\nERR 2 @7:2:1 rec=-1: more than one top-level value after the "
         "top-level array (for NDJSON whose lines are arrays, pass 'ndjson' as the path)");
  expect("path $;whole", "[1,2]x", "#0 @1:1:2 j'1'\n#1 @3:1:4 j'2'\nERR 1 @5:1:6 rec=-1: unexpected data after the top-level array");
  expect("path ndjson;whole", "[1, 2]\n[3]\n", "#0 @0:1:1 j'[1,2]'\n#1 @7:2:1 j'[3]'\nOK 2");
  /* paths */
  expect("path $.data.items;c a INTEGER", kDoc, "#0 @76:2:37 1\n#1 @86:2:47 2\nOK 2");
  expect("pk data;pk items;c a INTEGER", kDoc, "#0 @76:2:37 1\n#1 @86:2:47 2\nOK 2");
  expect("path $.rows[1];whole", kDoc, "#0 @119:3:22 j'20'\n#1 @123:3:26 j'21'\n#2 @127:3:30 j'{\"b\":[\"x\",\"y\"]}'\nOK 3");
  expect("pk rows;pi 1;pi 2;pk b;whole", kDoc, "#0 @134:3:37 j'\"x\"'\n#1 @139:3:42 j'\"y\"'\nOK 2");
  expect("path $.\"odd key.\";whole", kDoc, "#0 @162:4:15 j'true'\nOK 1");
  expect("path $.rows;whole", kDoc, "#0 @108:3:11 j'[10,11]'\n#1 @118:3:21 j'[20,21,{\"b\":[\"x\",\"y\"]}]'\nOK 2");
  expect("path $.data.nothing;c a", kDoc, "ERR 2 @168:0:0 rec=-1: path '$.data.nothing' not found");
  expect("pk data;pk no\"thing;c a", kDoc, "ERR 2 @168:0:0 rec=-1: path '$.data.\"no\"thing\"' not found");
  expect("path $.meta;c a", kDoc, "ERR 2 @9:1:10 rec=-1: path '$.meta' selects an object, not an array");
  expect("path $.meta.items;c a", kDoc, "ERR 2 @27:1:28 rec=-1: path '$.meta.items' selects a scalar, not an array");
  /* repeated keys: every match yields records */
  expect("path $.a;c x INTEGER", "{\"a\": [{\"x\": 1}], \"b\": {\"a\": [{\"x\": 9}]}, \"a\": [{\"x\": 2}]}",
         "#0 @7:1:8 1\n#1 @48:1:49 2\nOK 2");
  /* path syntax errors */
  expect("c a;path data.items", "[]",
         "ERR 9 @0:0:0 rec=-1: invalid path 'data.items' (expected '$', '$.key', '$.\"key\"', '$[N]' steps, or 'ndjson')");
  expect_end("c a;path $.rows[x]", "[]", "invalid path '$.rows[x]'");
  expect_end("c a;path $.", "[]", "invalid path '$.'");
  expect_end("c a;path $.\"open", "[]", "invalid path '$.\"open'");
}

/* ------------------------------------------------------------ errors and limits */

static void test_errors_and_limits(void){
  /* a syntax error inside a record, between records, outside the array */
  expect("c a INTEGER", "[{\"a\": 1},\n {\"a\": tru}]",
         "#0 @1:1:2 1\nERR 1 @18:2:8 rec=1: invalid literal (expected true, false or null)");
  expect("c a INTEGER", "[{\"a\": 1} x]", "#0 @1:1:2 1\nERR 1 @10:1:11 rec=1: expected ',' or ']'");
  expect("path $.d;c a INTEGER", "{\"x\": tru, \"d\": []}",
         "ERR 1 @6:1:7 rec=-1: invalid literal (expected true, false or null)");
  expect("c a INTEGER", "[{\"a\": 1}, {\"a\": 2", "#0 @1:1:2 1\nERR 1 @18:1:19 rec=1: unexpected end of input (expected '}')");
  /* the record limit: the sum of a record's values, a whole value */
  expect("max 20;c a TEXT;c b TEXT", "[{\"a\": \"0123456789\"},\n {\"a\": \"012345678901234\", \"b\": \"012345678901234\"}]",
         "#0 @1:1:2 '0123456789'|N\nERR 6 @53:2:32 rec=1: element larger than 20 bytes");
  expect("max 30;c a TEXT", "[{\"x\": \"0123456789012345678901234\", \"a\": 1}]", "#0 @1:1:2 '1'\nOK 1");
  expect("max 8;whole", "[[1,2],\n[1,2,3,4,5]]", "#0 @1:1:2 j'[1,2]'\nERR 6 @17:2:10 rec=1: element larger than 8 bytes");
  expect_end("max 8;c a TEXT", "[{\"a\": \"0123456789\"}]", "ERR 6 @7:1:8 rec=0: token longer than the token limit");
  /* the row callback stops */
  g_abort_at = 2;
  expect("c a INTEGER", "[{\"a\": 1}, {\"a\": 2}, {\"a\": 3}]",
         "#0 @1:1:2 1\n#1 @11:1:12 2\nERR 8 @11:1:12 rec=1: stopped by the row callback");
  g_abort_at = 0;
  /* no columns */
  expect("", "[]", "ERR 9 @0:0:0 rec=-1: no columns");
}

/* ------------------------------------------------------------ the event API */

static void test_event_api(void){
  Log l = {0,0,0,0,0};
  sq_ingest *g = sq_ingest_new(on_row, &l);
  sq_ingest_pos pos = {10, 2, 3};
  SQ_CHECK(sq_ingest_add_column(g, "a", -1, "INTEGER", -1, 0)==0);
  SQ_CHECK(sq_ingest_add_column(g, "b", -1, "TEXT", -1, 0)==1);
  SQ_CHECK(sq_ingest_affinity("VARCHAR(3)", -1)==SQ_INGEST_AFF_TEXT);
  SQ_CHECK(sq_ingest_affinity("DECIMAL(10,2)", -1)==SQ_INGEST_AFF_NUMERIC && sq_ingest_affinity("POINT", -1)==SQ_INGEST_AFF_INTEGER);
  SQ_CHECK(sq_ingest_affinity("", -1)==SQ_INGEST_AFF_BLOB);
  SQ_CHECK(sq_ingest_affinity("FLOATING POINT", -1)==SQ_INGEST_AFF_INTEGER);   /* "INT" first, as SQLite */
  SQ_CHECK(sq_ingest_type_is_date("timestamp", -1) && sq_ingest_type_is_date("Time", -1)
           && !sq_ingest_type_is_date("TEXT", -1));
  /* fields by position (no names): field i → column i */
  log_add(&l, "", 0);
  SQ_CHECK(sq_ingest_begin_record(g, &pos)==SQ_INGEST_OK);
  SQ_CHECK(sq_ingest_field_index(g, 0, &pos)==SQ_INGEST_OK);
  SQ_CHECK(sq_ingest_value_event(g, SQ_INGEST_K_STRING, "12", 2, &pos)==SQ_INGEST_OK);
  SQ_CHECK(sq_ingest_field_index(g, 1, &pos)==SQ_INGEST_OK);
  SQ_CHECK(sq_ingest_value_event(g, SQ_INGEST_K_NUMBER, "1.50", 4, &pos)==SQ_INGEST_OK);
  SQ_CHECK(sq_ingest_field_index(g, 2, &pos)==SQ_INGEST_OK);      /* no column: ignored */
  SQ_CHECK(sq_ingest_value_event(g, SQ_INGEST_K_STRING, "x", 1, &pos)==SQ_INGEST_OK);
  SQ_CHECK(sq_ingest_end_record(g, &pos)==SQ_INGEST_OK);
  /* named fields (a header): names matched by the key rule */
  SQ_CHECK(sq_ingest_name_field(g, 0, "B", -1)==SQ_INGEST_OK);
  SQ_CHECK(sq_ingest_name_field(g, 1, "a", -1)==SQ_INGEST_OK);
  SQ_CHECK(sq_ingest_begin_record(g, 0)==SQ_INGEST_OK);
  SQ_CHECK(sq_ingest_field_index(g, 1, 0)==SQ_INGEST_OK);
  SQ_CHECK(sq_ingest_value_event(g, SQ_INGEST_K_STRING, "7", 1, 0)==SQ_INGEST_OK);
  SQ_CHECK(sq_ingest_field_index(g, 0, 0)==SQ_INGEST_OK);
  SQ_CHECK(sq_ingest_value_event(g, SQ_INGEST_K_JSON, "[1]", 3, 0)==SQ_INGEST_OK);
  SQ_CHECK(sq_ingest_end_record(g, 0)==SQ_INGEST_OK);
  /* keys, NULL, booleans */
  SQ_CHECK(sq_ingest_begin_record(g, 0)==SQ_INGEST_OK);
  SQ_CHECK(sq_ingest_field_key(g, "A", 1, 0)==SQ_INGEST_OK);
  SQ_CHECK(sq_ingest_value_event(g, SQ_INGEST_K_TRUE, 0, 0, 0)==SQ_INGEST_OK);
  SQ_CHECK(sq_ingest_field_key(g, "b", 1, 0)==SQ_INGEST_OK);
  SQ_CHECK(sq_ingest_value_event(g, SQ_INGEST_K_NULL, 0, 0, 0)==SQ_INGEST_OK);
  SQ_CHECK(sq_ingest_end_record(g, 0)==SQ_INGEST_OK);
  SQ_CHECK_STR(l.s, "#0 @10:2:3 12|'1.50'\n#1 @0:0:0 7|j'[1]'\n#2 @0:0:0 1|N\n");
  /* misuse: a value without a field, a NUMBER that is no number */
  SQ_CHECK(sq_ingest_begin_record(g, 0)==SQ_INGEST_OK);
  SQ_CHECK(sq_ingest_value_event(g, SQ_INGEST_K_STRING, "x", 1, &pos)==SQ_INGEST_ERROR);
  SQ_CHECK(sq_ingest_error_info(g)->code==SQ_INGEST_E_MISUSE);
  SQ_CHECK(sq_ingest_error_info(g)->record==3 && sq_ingest_error_info(g)->line==2);
  /* the error stays until reset; configuration after the start is refused */
  SQ_CHECK(sq_ingest_end_record(g, 0)==SQ_INGEST_ERROR);
  sq_ingest_reset(g);
  SQ_CHECK(sq_ingest_error_info(g)->code==SQ_INGEST_E_NONE);
  SQ_CHECK(sq_ingest_add_column(g, "c", -1, 0, 0, 0)==-1);
  SQ_CHECK(sq_ingest_error_info(g)->code==SQ_INGEST_E_CONFIG);
  sq_ingest_reset(g);
  SQ_CHECK(sq_ingest_begin_record(g, 0)==SQ_INGEST_OK);
  SQ_CHECK(sq_ingest_field_key(g, "a", 1, 0)==SQ_INGEST_OK);
  SQ_CHECK(sq_ingest_value_event(g, SQ_INGEST_K_NUMBER, "1x", 2, 0)==SQ_INGEST_ERROR);
  sq_ingest_reset(g);
  /* strict: a field without a column */
  sq_ingest_set_strict(g, 1);
  SQ_CHECK(sq_ingest_begin_record(g, 0)==SQ_INGEST_OK);
  SQ_CHECK(sq_ingest_field_index(g, 5, 0)==SQ_INGEST_ERROR);
  SQ_CHECK(sq_ingest_error_info(g)->code==SQ_INGEST_E_STRICT);
  /* reset, then a JSON input on the same core; row indexes restart */
  sq_ingest_reset(g);
  l.n = 0;
  log_add(&l, "", 0);
  SQ_CHECK(sq_ingest_json_feed(g, "[{\"a\":\"1\"}]", 11)==SQ_INGEST_OK);
  SQ_CHECK(sq_ingest_json_finish(g)==SQ_INGEST_OK);
  SQ_CHECK_STR(l.s, "#0 @1:1:2 1|N\n");
  sq_ingest_free(g);
  free(l.s);
}

/* ------------------------------------------------------------ sq_ingest_field_text */

static unsigned long g_rand = 12345;
static unsigned rnd(unsigned n){
  g_rand = g_rand*6364136223846793005UL + 1442695040888963407UL;
  return (unsigned)((g_rand>>33) % n);
}

/* One generated CSV-like input through either path: the log of rows and
** the final status. */
static char *field_text_run(const char *spec, int nnames, const char *const *names,
                            int nrec, const int *nf, const char *const *vals, int fused){
  sq_ingest *g;
  Log l = {0};
  int r, f, k = 0, rc = SQ_INGEST_OK;
  sq_ingest_pos pos = {0, 1, 1};
  log_add(&l, "", 0);
  g = sq_ingest_new(on_row, &l);
  apply_spec(g, spec);
  for(f=0; f<nnames; f++) SQ_CHECK(sq_ingest_name_field(g, f, names[f], -1)==SQ_INGEST_OK);
  for(r=0; r<nrec && rc!=SQ_INGEST_ERROR; r++){
    pos.line = (uint64_t)r+2; pos.offset = (uint64_t)r*100; pos.column = 1;
    rc = sq_ingest_begin_record(g, &pos);
    for(f=0; f<nf[r] && rc!=SQ_INGEST_ERROR; f++, k++){
      const char *v = vals[k];
      pos.column = (uint64_t)f*10+1;
      if( fused ){
        rc = sq_ingest_field_text(g, f, v, v ? strlen(v) : 0, &pos);
      }else{
        rc = sq_ingest_field_index(g, f, &pos);
        if( rc!=SQ_INGEST_ERROR ){
          rc = sq_ingest_value_event(g, v ? SQ_INGEST_K_STRING : SQ_INGEST_K_NULL, v, v ? strlen(v) : 0, &pos);
        }
      }
    }
    if( rc!=SQ_INGEST_ERROR ) rc = sq_ingest_end_record(g, &pos);
  }
  log_end(&l, g, rc);
  sq_ingest_free(g);
  return l.s;
}

/* sq_ingest_field_text (the per-field plan) gives the rows and errors of
** sq_ingest_field_index + sq_ingest_value_event, on generated inputs:
** named and positional fields, renames (two names for one column: the
** duplicate error naming both), unknown names, strict mode, DEFAULT
** columns, every kind of value. */
static void test_field_text_same_as_events(void){
  static const char *const specs[] = {
    "c a INTEGER; c b REAL; c c TEXT; c d DATETIME; c e INTEGER DEFAULT",
    "c a INTEGER; c b REAL; c c TEXT; c d DATETIME; c e INTEGER DEFAULT; strict",
    "c a INTEGER; c b REAL; c full TEXT; m X=full; m Y=full",
    "c a INTEGER; c b REAL; c full TEXT; m X=full; m X=b; strict",
    "c a NUMERIC; c b; c c DATE",
  };
  static const char *const pool[] = { "a", "B", "c", "d", "e", "X", "Y", "zz", "full", "A2" };
  static const char *const values[] = {
    0, "", "12", "-7", "1.5", "1e3", "x", "2024-05-01T10:00:00+02:00", "007", "99999999999999999999",
    "0.1", "-0", "2024-02-30", "9007199254740993", "1.7976931348623157e309", " 1", "-",
  };
  int it, mismatches = 0;
  for(it=0; it<3000; it++){
    const char *spec = specs[rnd(sizeof specs/sizeof specs[0])];
    const char *names[6];
    const char *vals[64];
    int nf[8], nnames = rnd(3)==0 ? 0 : 1+(int)rnd(6), nrec = 1+(int)rnd(6), r, k = 0, i;
    char *a, *b;
    for(i=0; i<nnames; i++){
      int again;
      do{                      /* distinct names, as the CSV reader guarantees */
        int j;
        names[i] = pool[rnd(sizeof pool/sizeof pool[0])];
        again = 0;
        for(j=0; j<i; j++) if( strcmp(names[j], names[i])==0 ) again = 1;
      }while( again );
    }
    for(r=0; r<nrec; r++){
      nf[r] = nnames ? 1+(int)rnd((unsigned)nnames) : (int)rnd(7);   /* short records too */
      for(i=0; i<nf[r]; i++) vals[k++] = values[rnd(sizeof values/sizeof values[0])];
    }
    a = field_text_run(spec, nnames, names, nrec, nf, vals, 0);
    b = field_text_run(spec, nnames, names, nrec, nf, vals, 1);
    if( strcmp(a, b)!=0 ){
      if( mismatches++<3 ) fprintf(stderr, "spec %s\nevents:\n%s\nfield_text:\n%s\n", spec, a, b);
    }
    free(a); free(b);
  }
  SQ_CHECK(mismatches==0);
  /* the duplicate error names both header names */
  {
    static const char *const names[] = { "X", "Y" };
    static const char *const vals[] = { "1", "2", "3", "4" };
    static const int nf[] = { 2, 2 };
    char *m = field_text_run("c full TEXT; m X=full; m Y=full", 2, names, 2, nf, vals, 1);
    SQ_CHECK_STR(m, "ERR 11 @0:2:11 rec=0 key='Y': keys 'X' and 'Y' of one object both match column 'full'");
    free(m);
  }
}

/* REAL columns read numbers straight from the field bytes (a fast path for
** short mantissas and small exponents): every value must be the double
** strtod gives, bit for bit — decimal and exponent forms, 15 to 20 digits,
** the 2^53 boundary, subnormals; and an error for what a REAL cannot
** keep (sq_number.h): overflow, underflow to 0.0, negative zero. */
static double g_real;
static int g_real_type;
static int on_real(void *u, const sq_ingest_row *r){
  (void)u;
  g_real_type = r->values[0].type;
  g_real = r->values[0].r;
  return SQ_INGEST_CONTINUE;
}
/* A non-zero digit before any exponent. */
static int nonzero_mantissa(const char *s){
  for(; *s && *s!='e' && *s!='E'; s++) if( *s>='1' && *s<='9' ) return 1;
  return 0;
}
static void test_real_from_bytes(void){
  static const char *const fixed[] = {
    "0", "-0", "0.0", "-0.0", "0e5", "1", "0.1", "0.3", "1.5", "-2.25", "1e22", "1e23", "1e-22", "1e-23",
    "9007199254740992", "9007199254740993", "9007199254740995", "18014398509481985",
    "123456789012345678", "1234567890123456789", "12345678901234567890", "0.000001234567890123456789",
    "4.9e-324", "2.4703282292062327e-324", "2.2250738585072014e-308", "1.7976931348623157e308",
    "1.7976931348623159e308", "1e400", "1e-400", "3.14159265358979323846", "100000000000000000000000",
    "0.00000000000000000000000000001", "8.589973e9", "1.00000000000000011102230246251565404236316680908203125",
    "12.50", "1E5", "1e+5", "1e-0", "-1e-7",
  };
  sq_ingest *g = sq_ingest_new(on_real, 0);
  sq_ingest_pos pos = {0, 1, 1};
  int i, bad = 0, n = (int)(sizeof fixed/sizeof fixed[0]);
  SQ_CHECK(sq_ingest_add_column(g, "r", -1, "REAL", -1, 0)==0);
  /* record 0 takes the general path; the rest the planned one */
  SQ_CHECK(sq_ingest_begin_record(g, &pos)==SQ_INGEST_OK);
  SQ_CHECK(sq_ingest_field_text(g, 0, "1", 1, &pos)==SQ_INGEST_OK);
  SQ_CHECK(sq_ingest_end_record(g, &pos)==SQ_INGEST_OK);
  for(i=0; i<n+200000; i++){
    char b[64];
    const char *s;
    double want;
    int refused;
    if( i<n ){
      s = fixed[i];
    }else{
      /* sign, 1-20 digits, a point somewhere, maybe an exponent */
      int nd = 1+(int)rnd(20), k = 0, d, point = (int)rnd((unsigned)nd+2);
      if( rnd(2) ) b[k++] = '-';
      for(d=0; d<nd; d++){
        if( d==point && d>0 ) b[k++] = '.';
        b[k++] = (char)('0' + (d==0 ? 1+rnd(9) : rnd(10)));
      }
      if( rnd(3)==0 ) k += sprintf(b+k, "e%d", (int)rnd(80)-40);
      b[k] = 0;
      s = b;
    }
    want = strtod(s, 0);
    /* what a REAL cannot keep is an error: infinity, a non-zero value
    ** that would be 0.0, a negative zero */
    refused = !isfinite(want) || (want==0.0 && (signbit(want) || nonzero_mantissa(s)));
    if( refused ){
      /* each in a core of its own (an error ends a core's input) */
      int form;
      for(form=0; form<2; form++){
        sq_ingest *e = sq_ingest_new(on_real, 0);
        int rc;
        SQ_CHECK(sq_ingest_add_column(e, "r", -1, "REAL", -1, 0)==0);
        SQ_CHECK(sq_ingest_begin_record(e, &pos)==SQ_INGEST_OK);
        if( form==0 ){
          rc = sq_ingest_field_text(e, 0, s, strlen(s), &pos);
        }else{
          SQ_CHECK(sq_ingest_field_index(e, 0, &pos)==SQ_INGEST_OK);
          rc = sq_ingest_value_event(e, SQ_INGEST_K_NUMBER, s, strlen(s), &pos);
        }
        if( rc!=SQ_INGEST_ERROR || sq_ingest_error_info(e)->code!=SQ_INGEST_E_STRICT ){
          if( bad++<5 ) fprintf(stderr, "%s '%s': not refused\n", form ? "NUMBER" : "REAL", s);
        }
        sq_ingest_free(e);
      }
      continue;
    }
    SQ_CHECK(sq_ingest_begin_record(g, &pos)==SQ_INGEST_OK);
    SQ_CHECK(sq_ingest_field_text(g, 0, s, strlen(s), &pos)==SQ_INGEST_OK);
    SQ_CHECK(sq_ingest_end_record(g, &pos)==SQ_INGEST_OK);
    if( g_real_type!=SQ_INGEST_V_REAL || memcmp(&g_real, &want, sizeof want)!=0 ){
      if( bad++<5 ) fprintf(stderr, "REAL '%s': got %.17g (type %d), strtod %.17g\n", s, g_real, g_real_type, want);
    }
    /* a JSON number token: the same */
    SQ_CHECK(sq_ingest_begin_record(g, &pos)==SQ_INGEST_OK);
    SQ_CHECK(sq_ingest_field_index(g, 0, &pos)==SQ_INGEST_OK);
    SQ_CHECK(sq_ingest_value_event(g, SQ_INGEST_K_NUMBER, s, strlen(s), &pos)==SQ_INGEST_OK);
    SQ_CHECK(sq_ingest_end_record(g, &pos)==SQ_INGEST_OK);
    if( g_real_type!=SQ_INGEST_V_REAL || memcmp(&g_real, &want, sizeof want)!=0 ){
      if( bad++<5 ) fprintf(stderr, "NUMBER '%s': got %.17g, strtod %.17g\n", s, g_real, want);
    }
  }
  SQ_CHECK(bad==0);
  sq_ingest_free(g);
}

int main(void){
  test_coercion_lenient();
  test_coercion_changed_numbers();
  test_coercion_strict();
  test_dates();
  test_key_rule();
  test_default_columns();
  test_column_kinds();
  test_nested_escaper();
  test_layouts();
  test_errors_and_limits();
  test_event_api();
  test_field_text_same_as_events();
  test_real_from_bytes();
  return sq_test_done("test_ingest");
}
