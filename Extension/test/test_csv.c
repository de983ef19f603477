/*
** test_csv.c — C tests of the incremental CSV reader (sq_csv.h).
**
** Every input is read whole, cut in two at every byte position, cut in
** three at every pair of positions (short inputs), fed byte by byte, and
** read pausing after every record: the event logs (type, text, flags,
** record, field, offset, line, column, end offset) and the final status or
** error must be identical.  Every unquoted field's text must be the bytes
** at its offset.
**
** Outside oracle: Python's csv module.  A few hundred generated tricky
** inputs (quoted delimiters, "", line ends inside quotes, LF/CRLF/CR,
** BOM, blank lines, non-ASCII, each delimiter) are written to a temporary
** directory; `python3` reads them all with csv.reader (strict, newline='',
** utf-8-sig) and prints each record's fields and reader.line_num; ours must
** print the same (a NULL reads as '', the line of the record's end is
** counted from its end offset).  Skipped with a note when python3 is
** missing.
*/
#include "sq_internal.h"
#include "sq_csv.h"
#include "sq_csv_ingest.h"
#include "sq_number.h"
#include "sq_json.h"
#include "sq_test.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <stdarg.h>
#include <unistd.h>

/* ------------------------------------------------------------ event log */

typedef struct Log {
  char *s; size_t n, cap;
  const char *doc;            /* the input, for the offset checks */
  size_t ndoc;
  int pause;                  /* pause after every record */
  int abort_at;               /* >0: abort at the abort_at-th event */
  int events;
  int bad_offset;
} Log;

static void log_text(Log *l, const char *t, size_t n){
  size_t i;
  log_add(l, "'", 1);
  for(i=0; i<n; i++){
    unsigned char c = (unsigned char)t[i];
    if( c<0x20 || c=='\'' || c=='\\' || c>=0x7f ) log_printf(l, "\\x%02x", c);
    else log_add(l, (const char*)&c, 1);
  }
  log_add(l, "'", 1);
}

static int on_event(void *u, const sq_csv_event *e){
  Log *l = (Log*)u;
  l->events++;
  if( e->type==SQ_CSV_FIELD ){
    log_add(l, "F ", 2);
    if( e->flags & SQ_CSV_F_NULL ) log_add(l, "NULL", 4);
    else log_text(l, e->text, e->len);
    log_printf(l, " f%u r%llu.%llu @%llu:%llu:%llu\n", e->flags & ~(SQ_CSV_F_COPIED|SQ_CSV_F_NULL),
               (unsigned long long)e->record, (unsigned long long)e->field,
               (unsigned long long)e->offset, (unsigned long long)e->line,
               (unsigned long long)e->column);
    /* an unquoted field is the bytes at its offset */
    if( !(e->flags & (SQ_CSV_F_QUOTED|SQ_CSV_F_NULL)) && e->len>0
        && (e->offset+e->len>l->ndoc || memcmp(l->doc+e->offset, e->text, e->len)!=0) ){
      l->bad_offset++;
    }
    if( (e->flags & SQ_CSV_F_QUOTED) && (e->offset>=l->ndoc || l->doc[e->offset]=='\0') ){
      l->bad_offset++;
    }
  }else{
    log_printf(l, "R %llu r%llu @%llu:%llu:%llu end %llu\n", (unsigned long long)e->field,
               (unsigned long long)e->record, (unsigned long long)e->offset,
               (unsigned long long)e->line, (unsigned long long)e->column,
               (unsigned long long)e->end_offset);
  }
  if( l->abort_at && l->events==l->abort_at ) return 7;
  if( e->type==SQ_CSV_RECORD && l->pause ) return SQ_CSV_PAUSE;
  return SQ_CSV_CONTINUE;
}

typedef struct Cfg {
  unsigned opts;
  int delim, quote;          /* 0: default */
  const char *null_marker;
  size_t max_field;          /* 0: default */
  int abort_at;
  size_t null_len;           /* 0: strlen(null_marker) */
} Cfg;

static const Cfg kDefault = {0, 0, 0, 0, 0, 0, 0};

static sq_csv_parser *new_reader(const Cfg *cfg, Log *l){
  sq_csv_parser *p = sq_csv_new(on_event, l);
  sq_csv_set_options(p, cfg->opts);
  if( cfg->delim ) SQ_CHECK(sq_csv_set_delimiter(p, cfg->delim)==0);
  if( cfg->quote ) SQ_CHECK(sq_csv_set_quote(p, cfg->quote==-1 ? 0 : cfg->quote)==0);
  if( cfg->null_marker ) sq_csv_set_null(p, cfg->null_marker, cfg->null_len ? cfg->null_len : strlen(cfg->null_marker));
  if( cfg->max_field ) sq_csv_set_max_field(p, cfg->max_field);
  return p;
}

static int feed_all(sq_csv_parser *p, const char *b, size_t n){
  for(;;){
    int rc = sq_csv_feed(p, b, n);
    if( rc!=SQ_CSV_PAUSED ) return rc;
    b += sq_csv_consumed(p);
    n -= sq_csv_consumed(p);
    if( n==0 ) return SQ_CSV_OK;
  }
}

/* Reads doc cut at cuts[0..ncut) (ascending), or in chunks of `every`
** bytes; returns the log (caller frees) ending in OK or the error. */
static char *read_cut(const char *doc, size_t n, const size_t *cuts, int ncut,
                      size_t every, const Cfg *cfg, int pause){
  Log l;
  sq_csv_parser *p;
  int rc = SQ_CSV_OK, k = 0;
  size_t pos = 0;
  memset(&l, 0, sizeof l);
  l.doc = doc; l.ndoc = n; l.pause = pause; l.abort_at = cfg->abort_at;
  p = new_reader(cfg, &l);
  log_add(&l, "", 0);
  while( rc==SQ_CSV_OK && pos<n ){
    size_t next;
    if( every ) next = pos+every<n ? pos+every : n;
    else next = k<ncut ? cuts[k++] : n;
    if( next<pos ) next = pos;
    rc = feed_all(p, doc+pos, next-pos);
    pos = next;
  }
  if( rc==SQ_CSV_OK ) rc = sq_csv_finish(p);
  if( rc==SQ_CSV_OK ){
    log_printf(&l, "OK %llu records", (unsigned long long)sq_csv_records(p));
  }else{
    const sq_csv_error *e = sq_csv_error_info(p);
    log_printf(&l, "ERROR %d @%llu:%llu:%llu r%llu.%llu %s", e->code,
               (unsigned long long)e->offset, (unsigned long long)e->line,
               (unsigned long long)e->column, (unsigned long long)e->record,
               (unsigned long long)e->field, e->message);
  }
  SQ_CHECK_MSG(l.bad_offset==0, "a field's offset does not point at its text");
  sq_csv_free(p);
  return l.s;
}

/* Every way of cutting gives the log of the whole input; returns it. */
static char *check_splits(const char *doc, size_t n, const Cfg *cfg){
  char *whole = read_cut(doc, n, 0, 0, 0, cfg, 0);
  size_t i, j;
  int bad = 0;
  for(i=0; i<=n && !bad; i++){
    char *got = read_cut(doc, n, &i, 1, 0, cfg, 0);
    if( strcmp(got, whole)!=0 ){
      bad = 1;
      SQ_CHECK_MSG(0, "split at %zu differs:\n--- whole\n%s\n--- split\n%s", i, whole, got);
    }
    free(got);
  }
  for(i=1; i<n && n<=48 && !bad; i++){
    for(j=i+1; j<n && !bad; j++){
      size_t cuts[2] = {i, j};
      char *got = read_cut(doc, n, cuts, 2, 0, cfg, 0);
      if( strcmp(got, whole)!=0 ){
        bad = 1;
        SQ_CHECK_MSG(0, "splits at %zu,%zu differ:\n--- whole\n%s\n--- split\n%s", i, j, whole, got);
      }
      free(got);
    }
  }
  if( !bad ){
    char *got = read_cut(doc, n, 0, 0, 1, cfg, 0);
    if( strcmp(got, whole)!=0 ){
      bad = 1;
      SQ_CHECK_MSG(0, "byte by byte differs:\n--- whole\n%s\n--- bytes\n%s", whole, got);
    }
    free(got);
  }
  if( !bad ){
    char *got = read_cut(doc, n, 0, 0, 3, cfg, 1);
    if( strcmp(got, whole)!=0 ){
      bad = 1;
      SQ_CHECK_MSG(0, "pausing differs:\n--- whole\n%s\n--- paused\n%s", whole, got);
    }
    free(got);
  }
  if( !bad ) SQ_CHECK(1);
  return whole;
}

static void expect_cfg(const char *doc, const Cfg *cfg, const char *want){
  char *got = check_splits(doc, strlen(doc), cfg);
  if( strcmp(got, want)==0 ) SQ_CHECK(1);
  else SQ_CHECK_MSG(0, "doc '%s':\n--- got\n%s\n--- want\n%s", doc, got, want);
  free(got);
}
static void expect_log(const char *doc, const char *want){ expect_cfg(doc, &kDefault, want); }

/* The final line of the log must start with `want`. */
static void expect_end_n(const char *doc, size_t n, const Cfg *cfg, const char *want){
  char *got = check_splits(doc, n, cfg);
  const char *last = strrchr(got, '\n');
  last = last ? last+1 : got;
  SQ_CHECK_MSG(strncmp(last, want, strlen(want))==0,
               "doc '%s': expected '%s...', got '%s'", doc, want, last);
  free(got);
}
static void expect_end(const char *doc, const Cfg *cfg, const char *want){
  expect_end_n(doc, strlen(doc), cfg, want);
}

/* ------------------------------------------------------------ tests */

static void test_basic(void){
  expect_log("a,b\n1,2\n",
    "F 'a' f0 r0.0 @0:1:1\nF 'b' f0 r0.1 @2:1:3\nR 2 r0 @0:1:1 end 3\n"
    "F '1' f0 r1.0 @4:2:1\nF '2' f0 r1.1 @6:2:3\nR 2 r1 @4:2:1 end 7\nOK 2 records");
  /* no final line end; CRLF */
  expect_log("a,b\r\n1,2",
    "F 'a' f0 r0.0 @0:1:1\nF 'b' f0 r0.1 @2:1:3\nR 2 r0 @0:1:1 end 3\n"
    "F '1' f0 r1.0 @5:2:1\nF '2' f0 r1.1 @7:2:3\nR 2 r1 @5:2:1 end 8\nOK 2 records");
  /* a lone CR ends a line too */
  expect_log("a\rb\r",
    "F 'a' f0 r0.0 @0:1:1\nR 1 r0 @0:1:1 end 1\nF 'b' f0 r1.0 @2:2:1\nR 1 r1 @2:2:1 end 3\nOK 2 records");
  /* empty input, only line ends */
  expect_log("", "OK 0 records");
  expect_log("\n\r\n\r", "OK 0 records");
  /* spaces are data */
  expect_log(" a , b ",
    "F ' a ' f0 r0.0 @0:1:1\nF ' b ' f0 r0.1 @4:1:5\nR 2 r0 @0:1:1 end 7\nOK 1 records");
}

static void test_quoted(void){
  /* delimiters, "" and line ends inside quotes; positions of the opening quote */
  expect_log("\"a,b\",\"x\"\"y\"\n\"l1\nl2\r\nl3\",z\n",
    "F 'a,b' f1 r0.0 @0:1:1\nF 'x\"y' f1 r0.1 @6:1:7\nR 2 r0 @0:1:1 end 12\n"
    "F 'l1\\x0al2\\x0d\\x0al3' f1 r1.0 @13:2:1\nF 'z' f0 r1.1 @25:4:5\nR 2 r1 @13:2:1 end 26\n"
    "OK 2 records");
  /* a quoted field closed by the end of the input; only "" */
  expect_log("\"\"\"\"", "F '\"' f1 r0.0 @0:1:1\nR 1 r0 @0:1:1 end 4\nOK 1 records");
  expect_log("\"abc\"", "F 'abc' f1 r0.0 @0:1:1\nR 1 r0 @0:1:1 end 5\nOK 1 records");
  /* a quote only opens a field at its start */
  {
    Cfg c = kDefault;
    c.opts = SQ_CSV_OPT_LAZY_QUOTES;
    expect_cfg("a\"b,\"c\"\n", &c,
      "F 'a\"b' f0 r0.0 @0:1:1\nF 'c' f1 r0.1 @4:1:5\nR 2 r0 @0:1:1 end 7\nOK 1 records");
  }
  /* another quote character; no quoting at all */
  {
    Cfg c = kDefault;
    c.quote = '\'';
    expect_cfg("'a,''b',\"c\"\n", &c,
      "F 'a,\\x27b' f1 r0.0 @0:1:1\nF '\"c\"' f0 r0.1 @8:1:9\nR 2 r0 @0:1:1 end 11\nOK 1 records");
    c.quote = -1;
    c.delim = '\t';
    expect_cfg("\"a\tb\"\n", &c,
      "F '\"a' f0 r0.0 @0:1:1\nF 'b\"' f0 r0.1 @3:1:4\nR 2 r0 @0:1:1 end 5\nOK 1 records");
  }
}

static void test_delimiters(void){
  const int d[] = { ',', '\t', ';', '|' };
  size_t k;
  for(k=0; k<sizeof d/sizeof d[0]; k++){
    Cfg c = kDefault;
    char doc[64], want[512];
    c.delim = d[k];
    snprintf(doc, sizeof doc, "x%cy\n\"%c\"%c\n", d[k], d[k], d[k]);
    snprintf(want, sizeof want,
      "F 'x' f0 r0.0 @0:1:1\nF 'y' f0 r0.1 @2:1:3\nR 2 r0 @0:1:1 end 3\n"
      "F '%s' f1 r1.0 @4:2:1\nF NULL f0 r1.1 @8:2:5\nR 2 r1 @4:2:1 end 8\nOK 2 records",
      d[k]=='\t' ? "\\x09" : (char[]){(char)d[k], 0});
    expect_cfg(doc, &c, want);
  }
  {
    sq_csv_parser *p = sq_csv_new(on_event, 0);
    SQ_CHECK(sq_csv_set_delimiter(p, '"')!=0);     /* the quote */
    SQ_CHECK(sq_csv_set_delimiter(p, '\n')!=0);
    SQ_CHECK(sq_csv_set_delimiter(p, '\r')!=0);
    SQ_CHECK(sq_csv_set_delimiter(p, 0)!=0);
    SQ_CHECK(sq_csv_set_delimiter(p, 0xC3)!=0);
    SQ_CHECK(sq_csv_set_quote(p, ',')!=0);         /* the delimiter */
    SQ_CHECK(sq_csv_set_quote(p, 0)==0);
    SQ_CHECK(sq_csv_set_delimiter(p, '"')==0);     /* no quote any more */
    sq_csv_free(p);
  }
}

static void test_nulls(void){
  /* empty unquoted: NULL; "" : '' */
  expect_log(",\"\",\n",
    "F NULL f0 r0.0 @0:1:1\nF '' f1 r0.1 @1:1:2\nF NULL f0 r0.2 @4:1:5\nR 3 r0 @0:1:1 end 4\nOK 1 records");
  /* the same at the end of the input, after a delimiter */
  expect_log("a,", "F 'a' f0 r0.0 @0:1:1\nF NULL f0 r0.1 @2:1:3\nR 2 r0 @0:1:1 end 2\nOK 1 records");
  {
    Cfg c = kDefault;
    c.opts = SQ_CSV_OPT_EMPTY_STRING;
    expect_cfg(",\"\"", &c,
      "F '' f0 r0.0 @0:1:1\nF '' f1 r0.1 @1:1:2\nR 2 r0 @0:1:1 end 3\nOK 1 records");
    c.opts = 0;
    c.null_marker = "NA";
    expect_cfg("NA,\"NA\",NAN,\n", &c,
      "F NULL f0 r0.0 @0:1:1\nF 'NA' f1 r0.1 @3:1:4\nF 'NAN' f0 r0.2 @8:1:9\n"
      "F NULL f0 r0.3 @12:1:13\nR 4 r0 @0:1:1 end 12\nOK 1 records");
    /* header fields are never NULL */
    c.opts = SQ_CSV_OPT_HEADER;
    expect_cfg("NA,\nNA,\n", &c,
      "F 'NA' f8 r0.0 @0:1:1\nF '' f8 r0.1 @3:1:4\nR 2 r0 @0:1:1 end 3\n"
      "F NULL f0 r1.0 @4:2:1\nF NULL f0 r1.1 @7:2:4\nR 2 r1 @4:2:1 end 7\nOK 2 records");
  }
  {
    /* several markers, NUL-separated: each one is NULL, quoted or longer it is text */
    Cfg c = kDefault;
    c.null_marker = "NA\0\\N\0-";
    c.null_len = 7;
    expect_cfg("NA,\\N,-,N,NAN,\"-\",--\n", &c,
      "F NULL f0 r0.0 @0:1:1\nF NULL f0 r0.1 @3:1:4\nF NULL f0 r0.2 @6:1:7\nF 'N' f0 r0.3 @8:1:9\n"
      "F 'NAN' f0 r0.4 @10:1:11\nF '-' f1 r0.5 @14:1:15\nF '--' f0 r0.6 @18:1:19\nR 7 r0 @0:1:1 end 20\n"
      "OK 1 records");
  }
}

static void test_bom(void){
  expect_log("\xEF\xBB\xBF" "a,b\n",
    "F 'a' f0 r0.0 @3:1:1\nF 'b' f0 r0.1 @5:1:3\nR 2 r0 @3:1:1 end 6\nOK 1 records");
  expect_log("\xEF\xBB\xBF", "OK 0 records");
  /* a BOM only counts at the very start */
  expect_log("a\n\xEF\xBB\xBF" "b\n",
    "F 'a' f0 r0.0 @0:1:1\nR 1 r0 @0:1:1 end 1\nF '\\xef\\xbb\\xbfb' f0 r1.0 @2:2:1\nR 1 r1 @2:2:1 end 6\nOK 2 records");
  /* bytes that start like a BOM but are text (U+FF01, U+FEFE) */
  expect_log("\xEF\xBC\x81,\xEF\xBB\xBE",
    "F '\\xef\\xbc\\x81' f0 r0.0 @0:1:1\nF '\\xef\\xbb\\xbe' f0 r0.1 @4:1:5\nR 2 r0 @0:1:1 end 7\nOK 1 records");
  expect_end("\xEF\xBB", &kDefault, "ERROR 4 @0:1:1 r0.0 invalid UTF-8");
  expect_end("\xEF\xBB,", &kDefault, "ERROR 4 @0:1:1 r0.0 invalid UTF-8");
  expect_end("\xEF", &kDefault, "ERROR 4 @0:1:1 r0.0 invalid UTF-8");
  {
    Cfg c = kDefault;
    c.opts = SQ_CSV_OPT_NO_UTF8_CHECK;
    expect_cfg("\xEF\xBB,x", &c,
      "F '\\xef\\xbb' f0 r0.0 @0:1:1\nF 'x' f0 r0.1 @3:1:4\nR 2 r0 @0:1:1 end 4\nOK 1 records");
  }
}

static void test_utf8(void){
  /* valid: 2, 3, 4 byte sequences, unquoted and quoted */
  expect_log("\xC3\xA9,\"\xE2\x82\xAC\",\xF0\x9F\x98\x80\n",
    "F '\\xc3\\xa9' f0 r0.0 @0:1:1\nF '\\xe2\\x82\\xac' f1 r0.1 @3:1:4\n"
    "F '\\xf0\\x9f\\x98\\x80' f0 r0.2 @9:1:10\nR 3 r0 @0:1:1 end 13\nOK 1 records");
  expect_end("a,\xC0\xAF\n", &kDefault, "ERROR 4 @2:1:3 r0.1 invalid UTF-8");        /* overlong */
  expect_end("a,b\nc\xE0\x80\xAF\n", &kDefault, "ERROR 4 @5:2:2 r1.0 invalid UTF-8");
  expect_end("\xED\xA0\x80", &kDefault, "ERROR 4 @0:1:1 r0.0 invalid UTF-8");      /* surrogate */
  expect_end("\xF4\x90\x80\x80", &kDefault, "ERROR 4 @0:1:1 r0.0 invalid UTF-8");  /* > U+10FFFF */
  expect_end("\xF5\x80\x80\x80", &kDefault, "ERROR 4 @0:1:1 r0.0 invalid UTF-8");
  expect_end("x\x80", &kDefault, "ERROR 4 @1:1:2 r0.0 invalid UTF-8");             /* stray */
  expect_end("\"x\xC3\"", &kDefault, "ERROR 4 @2:1:3 r0.0 invalid UTF-8");          /* cut by quote */
  expect_end("x\xE2\x82", &kDefault, "ERROR 4 @1:1:2 r0.0 invalid UTF-8");          /* cut by EOF */
  expect_end("x\xE2\x82,", &kDefault, "ERROR 4 @1:1:2 r0.0 invalid UTF-8");
  expect_end("x\xE2\x82\n", &kDefault, "ERROR 4 @1:1:2 r0.0 invalid UTF-8");
  expect_end("\"a\nb\xFF\"", &kDefault, "ERROR 4 @4:2:2 r0.0 invalid UTF-8");
  {
    Cfg c = kDefault;
    c.opts = SQ_CSV_OPT_NO_UTF8_CHECK;
    expect_cfg("\xFF,\"\xC0\"", &c,
      "F '\\xff' f0 r0.0 @0:1:1\nF '\\xc0' f1 r0.1 @2:1:3\nR 2 r0 @0:1:1 end 5\nOK 1 records");
  }
  /* NUL bytes are data */
  expect_end_n("a\0b,c", 5, &kDefault, "OK 1 records");
}

static void test_quote_errors(void){
  expect_end("a,b\"c\n", &kDefault, "ERROR 1 @3:1:4 r0.1 quote character inside an unquoted field");
  expect_end("a, \"b\"\n", &kDefault, "ERROR 1 @3:1:4 r0.1 quote character inside");
  expect_end("\"a\"b,c\n", &kDefault, "ERROR 2 @3:1:4 r0.0 expected a delimiter or a line end after the closing quote");
  expect_end("\"a\" ,c\n", &kDefault, "ERROR 2 @3:1:4 r0.0 expected a delimiter");
  expect_end("x\ny,\"abc\n\n", &kDefault, "ERROR 3 @4:2:3 r1.1 unterminated quoted field");
  expect_end("\"", &kDefault, "ERROR 3 @0:1:1 r0.0 unterminated");
  expect_end("a,\"\"\"", &kDefault, "ERROR 3 @2:1:3 r0.1 unterminated");
}

static void test_records(void){
  /* ragged: too few (at the line end), too many (at the first extra field) */
  expect_end("a,b,c\n1,2\n", &kDefault, "ERROR 6 @9:2:4 r1.2 record has 2 fields, the first record has 3");
  expect_end("a,b\n1,2,3,4\n", &kDefault, "ERROR 6 @8:2:5 r1.2 record has 4 fields, the first record has 2");
  expect_end("a,b\n1", &kDefault, "ERROR 6 @5:2:2 r1.1 record has 1 field, the first record has 2");
  /* the extra fields are never delivered */
  expect_log("a\n1,2\n",
    "F 'a' f0 r0.0 @0:1:1\nR 1 r0 @0:1:1 end 1\nF '1' f0 r1.0 @2:2:1\n"
    "ERROR 6 @4:2:3 r1.1 record has 2 fields, the first record has 1");
  {
    Cfg c = kDefault;
    c.opts = SQ_CSV_OPT_PAD_SHORT;
    expect_cfg("a,b,c\n1\n", &c,
      "F 'a' f0 r0.0 @0:1:1\nF 'b' f0 r0.1 @2:1:3\nF 'c' f0 r0.2 @4:1:5\nR 3 r0 @0:1:1 end 5\n"
      "F '1' f0 r1.0 @6:2:1\nF NULL f4 r1.1 @7:2:2\nF NULL f4 r1.2 @7:2:2\nR 3 r1 @6:2:1 end 7\nOK 2 records");
    expect_end("a\n1,2\n", &c, "ERROR 6 @4:2:3 r1.1 record has 2 fields");
    c.opts = SQ_CSV_OPT_RAGGED;
    expect_cfg("a\n1,2\n\n", &c,
      "F 'a' f0 r0.0 @0:1:1\nR 1 r0 @0:1:1 end 1\nF '1' f0 r1.0 @2:2:1\nF '2' f0 r1.1 @4:2:3\n"
      "R 2 r1 @2:2:1 end 5\nR 0 r2 @6:3:1 end 6\nOK 3 records");
  }
  /* blank lines: skipped with several fields (and before the first record) */
  expect_log("\n\na,b\r\n\r\n1,2\n\n",
    "F 'a' f0 r0.0 @2:3:1\nF 'b' f0 r0.1 @4:3:3\nR 2 r0 @2:3:1 end 5\n"
    "F '1' f0 r1.0 @9:5:1\nF '2' f0 r1.1 @11:5:3\nR 2 r1 @9:5:1 end 12\nOK 2 records");
  /* ... and a NULL field with one field per record */
  expect_log("h\n\n\"\"\nx\n",
    "F 'h' f0 r0.0 @0:1:1\nR 1 r0 @0:1:1 end 1\nF NULL f0 r1.0 @2:2:1\nR 1 r1 @2:2:1 end 2\n"
    "F '' f1 r2.0 @3:3:1\nR 1 r2 @3:3:1 end 5\nF 'x' f0 r3.0 @6:4:1\nR 1 r3 @6:4:1 end 7\nOK 4 records");
  /* CR LF across records, CR then CR: a blank line between */
  expect_log("a\r\rb",
    "F 'a' f0 r0.0 @0:1:1\nR 1 r0 @0:1:1 end 1\nF NULL f0 r1.0 @2:2:1\nR 1 r1 @2:2:1 end 2\n"
    "F 'b' f0 r2.0 @3:3:1\nR 1 r2 @3:3:1 end 4\nOK 3 records");
}

static void test_limits(void){
  Cfg c = kDefault;
  c.max_field = 4;
  expect_end("abcd,\"wxyz\",\"a\"\"b\"\n", &c, "OK 1 records");
  expect_end("abcde,x\n", &c, "ERROR 5 @0:1:1 r0.0 field longer than 4 bytes");
  expect_end("a,\"ab\"\"cd\"\n", &c, "ERROR 5 @2:1:3 r0.1 field longer than 4 bytes");
  expect_end("a\n\"a\nbcd\"", &c, "ERROR 5 @2:2:1 r1.0 field longer than 4 bytes");
  /* the length counts first, whatever follows or how the input is cut */
  expect_end("abcd\xC3\xA9\n", &c, "ERROR 5 @0:1:1");
  expect_end("abcdefgh\xFF\n", &c, "ERROR 5 @0:1:1");
  expect_end("abc\xFF\n", &c, "ERROR 4 @3:1:4");
  expect_end("abc\xE2\x82\xAC\n", &c, "ERROR 5 @0:1:1");
  expect_end("abc\xE2\x82\x41\n", &c, "ERROR 4 @3:1:4");
  expect_end("abcde\"x\n", &c, "ERROR 5 @0:1:1");
  expect_end("\"abcd\"x\n", &c, "ERROR 2 @6:1:7");
}

static void test_abort(void){
  Cfg c = kDefault;
  c.abort_at = 2;
  expect_end("a,b\n", &c, "ERROR 8 @2:1:3 r0.1 aborted by the callback");
  c.abort_at = 3;
  expect_end("a,b\n", &c, "ERROR 8 @0:1:1 r0.2 aborted by the callback");
}

static void test_reset_and_state(void){
  Log l;
  sq_csv_parser *p;
  memset(&l, 0, sizeof l);
  l.doc = "a,\"b\nc\"\n1,2\n"; l.ndoc = strlen(l.doc);
  p = sq_csv_new(on_event, &l);
  SQ_CHECK(sq_csv_feed(p, "a,\"b", 4)==SQ_CSV_OK);
  SQ_CHECK(sq_csv_offset(p)==4);
  SQ_CHECK(sq_csv_feed(p, "x\"\"", 3)==SQ_CSV_OK);
  sq_csv_reset(p);
  free(l.s); memset(&l, 0, sizeof l);
  l.doc = "a,\"b\nc\"\n1,2\n"; l.ndoc = strlen(l.doc);
  SQ_CHECK(sq_csv_feed(p, l.doc, l.ndoc)==SQ_CSV_OK);
  SQ_CHECK(sq_csv_finish(p)==SQ_CSV_OK);
  SQ_CHECK(sq_csv_records(p)==2);
  SQ_CHECK(sq_csv_width(p)==2);
  SQ_CHECK_STR(l.s, "F 'a' f0 r0.0 @0:1:1\nF 'b\\x0ac' f1 r0.1 @2:1:3\nR 2 r0 @0:1:1 end 7\n"
                    "F '1' f0 r1.0 @8:3:1\nF '2' f0 r1.1 @10:3:3\nR 2 r1 @8:3:1 end 11\n");
  /* after an error everything fails until reset */
  SQ_CHECK(sq_csv_feed(p, "\"x\"y", 4)==SQ_CSV_ERROR);
  SQ_CHECK(sq_csv_feed(p, "a", 1)==SQ_CSV_ERROR);
  SQ_CHECK(sq_csv_finish(p)==SQ_CSV_ERROR);
  sq_csv_reset(p);
  SQ_CHECK(sq_csv_feed(p, "x", 1)==SQ_CSV_OK);
  SQ_CHECK(sq_csv_error_info(p)->code==SQ_CSV_E_NONE);
  sq_csv_free(p);
  free(l.s);
}

/* A big field across many chunks, and many records: memory stays the
** field's size, the texts are right. */
static int big_ok;
static int on_big(void *u, const sq_csv_event *e){
  size_t i;
  (void)u;
  if( e->type!=SQ_CSV_FIELD || e->field!=1 ) return 0;
  if( e->len!=300000 ){ big_ok = 0; return 0; }
  for(i=0; i<e->len; i++) if( e->text[i]!=(i%7==3 ? '"' : 'x') ){ big_ok = 0; break; }
  return 0;
}
static void test_big(void){
  size_t n = 0, i;
  char *doc = malloc(700000);
  sq_csv_parser *p = sq_csv_new(on_big, 0);
  memcpy(doc, "a,\"", 3); n = 3;
  for(i=0; i<300000; i++){
    if( i%7==3 ){ doc[n++] = '"'; doc[n++] = '"'; } else doc[n++] = 'x';
  }
  memcpy(doc+n, "\"\n", 2); n += 2;
  big_ok = 1;
  for(i=0; i<n; i+=1000){
    SQ_CHECK(sq_csv_feed(p, doc+i, n-i<1000 ? n-i : 1000)==SQ_CSV_OK);
  }
  SQ_CHECK(sq_csv_finish(p)==SQ_CSV_OK);
  SQ_CHECK(big_ok);
  sq_csv_reset(p);
  big_ok = 1;
  SQ_CHECK(sq_csv_feed(p, doc, n)==SQ_CSV_OK);
  SQ_CHECK(sq_csv_finish(p)==SQ_CSV_OK);
  SQ_CHECK(big_ok);
  sq_csv_free(p);
  free(doc);
}

/* A 100 MB field with the default limit (64 MiB): an error at its first
** byte, reported once the limit is passed (the rest is never read). */
static int count_events(void *u, const sq_csv_event *e){ (void)e; (*(int*)u)++; return 0; }
static void test_huge_field(void){
  int events = 0, rc = SQ_CSV_OK;
  sq_csv_parser *p = sq_csv_new(count_events, &events);
  char *chunk = malloc(1 << 20);
  size_t fed = 0;
  memset(chunk, 'x', 1 << 20);
  rc = sq_csv_feed(p, "id\n", 3);
  while( rc==SQ_CSV_OK && fed < ((size_t)100 << 20) ){
    rc = sq_csv_feed(p, chunk, 1 << 20);
    fed += 1 << 20;
  }
  SQ_CHECK(rc==SQ_CSV_ERROR);
  SQ_CHECK(fed <= SQ_CSV_DEFAULT_MAX_FIELD + (1 << 20));
  SQ_CHECK(sq_csv_error_info(p)->code==SQ_CSV_E_TOO_LONG);
  SQ_CHECK(sq_csv_error_info(p)->line==2 && sq_csv_error_info(p)->offset==3);
  SQ_CHECK_STR(sq_csv_error_info(p)->message, "field longer than 67108864 bytes");
  SQ_CHECK(events==2);   /* the header's field and record */
  free(chunk);
  sq_csv_free(p);
}

/* ------------------------------------------------------------ oracle */

static unsigned long long rng = 88172645463325252ull;
static unsigned rnd(unsigned n){
  rng ^= rng<<13; rng ^= rng>>7; rng ^= rng<<17;
  return (unsigned)(rng % n);
}

typedef struct Buf { char *s; size_t n, cap; } Buf;
static void buf_add(Buf *b, const char *s, size_t n){
  if( b->n+n+1>b->cap ){ b->cap = (b->n+n+1)*2; b->s = realloc(b->s, b->cap); }
  memcpy(b->s+b->n, s, n);
  b->n += n;
  b->s[b->n] = 0;
}
static void buf_str(Buf *b, const char *s){ buf_add(b, s, strlen(s)); }

/* A generated input: random fields, quoting, line ends, blank lines. */
static void gen_doc(Buf *b, char delim){
  static const char *plain[] = { "a", "hello world", "42", "-1.5e3", "2024-05-01 12:00:00",
    "caf\xC3\xA9", "\xE2\x82\xAC" "5", "\xF0\x9F\x98\x80", "x y", "it's", "NA", "5\" pipe" };
  static const char *quoted[] = { "", "a,b", "say \"\"hi\"\"", "l1\nl2", "l1\r\nl2", "l1\rl2",
    "\"\"", ";|\t,", " padded ", "\xC3\xA9\n\xE2\x82\xAC", "\"\"\"\"" };
  static const char *eol[] = { "\n", "\r\n", "\r" };
  int nrec = 1 + (int)rnd(6), r, f;
  int nf = 1 + (int)rnd(4);
  if( rnd(8)==0 ) buf_str(b, "\xEF\xBB\xBF");
  for(r=0; r<nrec; r++){
    int k = rnd(10)==0 ? (int)rnd(5) : nf;   /* sometimes ragged */
    if( rnd(8)==0 ) buf_str(b, eol[rnd(3)]);  /* a blank line */
    for(f=0; f<k; f++){
      unsigned w = rnd(10);
      if( f ) buf_add(b, &delim, 1);
      if( w<4 ){
        const char *s = plain[rnd(sizeof plain/sizeof plain[0])];
        /* a plain value must not hold the delimiter */
        if( !strchr(s, delim) ) buf_str(b, s);
      }else if( w<8 ){
        buf_str(b, "\"");
        buf_str(b, quoted[rnd(sizeof quoted/sizeof quoted[0])]);
        buf_str(b, "\"");
      }
      /* else: empty */
    }
    if( k==0 && f==0 && rnd(2) ) buf_str(b, "\"\"");
    if( r<nrec-1 || rnd(2) ) buf_str(b, eol[rnd(3)]);
  }
}

/* Our reading of a document in the oracle's format: one line per record,
** " x" + hex for each field, then "Lfirst-last": the record's first line
** (ours) and last line (counted here from its end offset; Python's
** line_num). */
typedef struct Dump { Buf out; const char *doc; size_t n; } Dump;
static uint64_t line_at(const char *doc, uint64_t off){
  uint64_t i, line = 1;
  for(i=0; i<off; i++){
    if( doc[i]=='\r' ) line++;
    else if( doc[i]=='\n' && !(i>0 && doc[i-1]=='\r') ) line++;
  }
  return line;
}
static int on_dump(void *u, const sq_csv_event *e){
  Dump *d = (Dump*)u;
  char h[4];
  size_t i;
  if( e->type==SQ_CSV_FIELD ){
    buf_str(&d->out, " x");
    for(i=0; i<e->len; i++){
      snprintf(h, sizeof h, "%02x", (unsigned char)e->text[i]);
      buf_add(&d->out, h, 2);
    }
  }else{
    char ln[32];
    snprintf(ln, sizeof ln, "L%llu-%llu\n", (unsigned long long)e->line,
             (unsigned long long)line_at(d->doc, e->end_offset));
    buf_str(&d->out, ln);
  }
  return 0;
}

static const char *kOracle =
  "import csv, sys, os\n"
  "csv.field_size_limit(1 << 30)\n"
  "d = sys.argv[1]\n"
  "for i in range(int(sys.argv[2])):\n"
  "    delim = open(os.path.join(d, '%d.delim' % i)).read()\n"
  "    out = []\n"
  "    try:\n"
  "        with open(os.path.join(d, '%d.csv' % i), encoding='utf-8-sig', newline='') as f:\n"
  "            r = csv.reader(f, delimiter=delim, strict=True)\n"
  "            start = 1\n"
  "            for row in r:\n"
  "                out.append(''.join(' x' + v.encode('utf-8').hex() for v in row) + 'L%d-%d' % (start, r.line_num))\n"
  "                start = r.line_num + 1\n"
  "        print('\\n'.join(out) + ('\\n' if out else '') + 'OK')\n"
  "    except Exception as e:\n"
  "        print('ERROR')\n"
  "    print('=====')\n";

static void test_python_oracle(void){
  char dir[] = "/tmp/sq_csv_oracleXXXXXX";
  char path[512], cmd[1200];
  int ndocs = 400, i, compared = 0;
  Buf docs[400];
  char delims[400];
  FILE *f;
  Buf py = {0,0,0};
  char line[4096];
  if( system("python3 -c 'import csv' >/dev/null 2>&1")!=0 ){
    printf("test_csv: python3 not found, oracle comparison skipped\n");
    return;
  }
  if( !mkdtemp(dir) ){ SQ_CHECK_MSG(0, "mkdtemp"); return; }
  for(i=0; i<ndocs; i++){
    static const char ds[] = ",\t;|";
    memset(&docs[i], 0, sizeof docs[i]);
    delims[i] = ds[rnd(4)];
    gen_doc(&docs[i], delims[i]);
    if( !docs[i].s ) buf_add(&docs[i], "", 0);
    snprintf(path, sizeof path, "%s/%d.csv", dir, i);
    f = fopen(path, "wb"); fwrite(docs[i].s, 1, docs[i].n, f); fclose(f);
    snprintf(path, sizeof path, "%s/%d.delim", dir, i);
    f = fopen(path, "wb"); fputc(delims[i], f); fclose(f);
  }
  snprintf(path, sizeof path, "%s/oracle.py", dir);
  f = fopen(path, "wb"); fputs(kOracle, f); fclose(f);
  snprintf(cmd, sizeof cmd, "python3 %s/oracle.py %s %d", dir, dir, ndocs);
  f = popen(cmd, "r");
  while( fgets(line, sizeof line, f) ) buf_str(&py, line);
  pclose(f);
  {
    char *s = py.s;
    for(i=0; i<ndocs && s; i++){
      char *end = strstr(s, "=====\n");
      Dump d;
      sq_csv_parser *p;
      int rc;
      if( !end ) break;
      *end = 0;
      memset(&d, 0, sizeof d);
      d.doc = docs[i].s; d.n = docs[i].n;
      p = sq_csv_new(on_dump, &d);
      /* Python's reading: any field count, a quote inside an unquoted field is data */
      sq_csv_set_options(p, SQ_CSV_OPT_RAGGED | SQ_CSV_OPT_LAZY_QUOTES);
      sq_csv_set_delimiter(p, delims[i]);
      rc = sq_csv_feed(p, docs[i].s, docs[i].n);
      if( rc==SQ_CSV_OK ) rc = sq_csv_finish(p);
      buf_str(&d.out, rc==SQ_CSV_OK ? "OK\n" : "ERROR\n");
      SQ_CHECK_MSG(strcmp(d.out.s, s)==0, "doc %d differs from Python's csv:\n%s\n--- ours\n%s--- python\n%s",
                   i, docs[i].s, d.out.s, s);
      compared++;
      sq_csv_free(p);
      free(d.out.s);
      s = end+6;
    }
  }
  SQ_CHECK_MSG(compared==ndocs, "compared %d of %d documents with Python", compared, ndocs);
  for(i=0; i<ndocs; i++) free(docs[i].s);
  free(py.s);
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  if( system(cmd)!=0 ) SQ_CHECK_MSG(0, "rm");
}

/* ------------------------------------------------------------ inference values */

static void test_value_fits(void){
  static const struct { const char *v; unsigned want; } cases[] = {
    /* T=TEXT 2, I=INTEGER 4, R=REAL 8 */
    {"0", 2|4|8}, {"12", 2|4|8}, {"-12", 2|4|8}, {"9223372036854775807", 2|4},
    {"-9223372036854775808", 2|4|8}, {"9223372036854775808", 2|8}, {"007", 2}, {"+1", 2},
    {"-0", 2}, {"-0.0", 2}, {"-0e3", 2}, {"0e3", 2|8}, {"1.0", 2|8}, {"1.50", 2|8}, {"12.5e3", 2|8}, {"1E-5", 2|8},
    {"123456789012345", 2|4|8}, {"1234567890123456", 2|4|8}, {"0.1234567890123456", 2|8},
    {"48.053808600000004", 2|8}, {"9007199254740992", 2|4|8}, {"9007199254740993", 2|4},
    {"123456789012345678901", 2}, {"0.30000000000000004", 2|8}, {"-174.11362", 2|8},
    {"100000000000000000000", 2|8}, {"1e400", 2}, {"1e-400", 2}, {"0.0", 2|8},
    {".5", 2}, {"5.", 2}, {"1,5", 2}, {" 1", 2}, {"1 ", 2}, {"", 2}, {"NaN", 2},
    {"Infinity", 2}, {"0x10", 2}, {"-", 2}, {"1e", 2},
    /* D=DATE 16, DT=DATETIME 32 */
    {"2024-05-01", 2|16|32}, {"2024-05-01T12:00:00Z", 2|32}, {"2024-05-01 12:00:00.5+02:00", 2|32},
    {"2024-02-30", 2}, {"2024-05-01x", 2}, {"12:00", 2}, {"2460431.5", 2|8}, {"20240501", 2|4|8},
  };
  size_t i;
  char longv[400];
  for(i=0; i<sizeof cases/sizeof cases[0]; i++){
    unsigned got = sq_csv_value_fits(cases[i].v, strlen(cases[i].v));
    SQ_CHECK_MSG(got==cases[i].want, "sq_csv_value_fits('%s') = %u, want %u", cases[i].v, got, cases[i].want);
  }
  /* long plain decimals: 0.000…1 with 297 zeros is 1e-298 (REAL), with 320
  ** it underflows; 1 and 298 zeros is an integer no double holds exactly
  ** (1e298 is not 10^298: TEXT, though "1e298" is a REAL), likewise with 308
  ** zeros, and with 319 zeros it overflows */
  memset(longv, '0', sizeof longv);
  longv[1] = '.'; longv[299] = '1';
  SQ_CHECK(sq_csv_value_fits(longv, 300)==(2|8));
  longv[299] = '0'; longv[322] = '1';
  SQ_CHECK(sq_csv_value_fits(longv, 323)==2);
  memset(longv, '0', sizeof longv);
  longv[0] = '1';
  SQ_CHECK(sq_csv_value_fits(longv, 299)==2);
  SQ_CHECK(sq_csv_value_fits(longv, 309)==2);
  SQ_CHECK(sq_csv_value_fits("1e298", 5)==(2|8));
  SQ_CHECK(sq_csv_value_fits("1267650600228229401496703205376", 31)==(2|8));   /* 2^100: exact */
  SQ_CHECK(sq_csv_value_fits(longv, 320)==2);
}

/* The reference for sq_csv_value_fits (one pass through sq_number_text): a
** two-pass rule written independently of it. */
static unsigned ref_value_fits(const char *s, size_t n){
  unsigned r = 1u<<SQ_CSV_T_TEXT;
  size_t i = 0, a, b, k;
  int neg = 0, integer = 1, sig = 0;
  size_t first = (size_t)-1, last = 0;
  double d;
  if( i<n && s[i]=='-' ){ neg = 1; i++; }
  if( i>=n || s[i]<'0' || s[i]>'9' ) return r;
  a = i;
  if( s[i]=='0' ) i++; else while( i<n && s[i]>='0' && s[i]<='9' ) i++;
  if( i<n && s[i]=='.' ){
    i++;
    if( i>=n || s[i]<'0' || s[i]>'9' ) return r;
    while( i<n && s[i]>='0' && s[i]<='9' ) i++;
    integer = 0;
  }
  b = i;
  if( i<n && (s[i]=='e' || s[i]=='E') ){
    i++;
    if( i<n && (s[i]=='+' || s[i]=='-') ) i++;
    if( i>=n || s[i]<'0' || s[i]>'9' ) return r;
    while( i<n && s[i]>='0' && s[i]<='9' ) i++;
    integer = 0;
  }
  if( i!=n ) return r;
  for(k=a; k<b; k++){
    if( s[k]>='1' && s[k]<='9' ){ if( first==(size_t)-1 ) first = k; last = k; }
  }
  (void)sig; (void)last;
  if( neg && first==(size_t)-1 ) return r;    /* a negative zero: SQLite would keep 0 */
  d = sq_json_number_double(s, n);
  if( integer ){
    /* INTEGER within 64 bits; REAL when the double is the integer itself (long double
    ** holds every int64 and every double exactly) */
    int64_t v;
    char z[64];
    (void)z;
    if( sq_json_number_int64(s, n, &v) ){
      r |= 1u<<SQ_CSV_T_INTEGER;
      if( (long double)d==(long double)v ) r |= 1u<<SQ_CSV_T_REAL;   /* both exact in a long double */
    }else if( isfinite(d) ){
      char buf[400];
      if( n<sizeof buf && snprintf(buf, sizeof buf, "%.0f", d)==(int)n && memcmp(buf, s, n)==0 ) r |= 1u<<SQ_CSV_T_REAL;
    }
    return r;
  }
  if( isfinite(d) && (first==(size_t)-1 ? d==0.0 : fabs(d)>=DBL_MIN) ) r |= 1u<<SQ_CSV_T_REAL;
  return r;
}

/* sq_csv_value_fits_type (each type's common shapes inline) says what
** sq_csv_value_fits says of that type, and the number it hands over is the
** rule's (sq_number_text). Returns 1 when they agree. */
static int fits_type_agrees(const char *z, size_t n){
  unsigned all = sq_csv_value_fits(z, n);
  int t;
  for(t=SQ_CSV_T_INTEGER; t<=SQ_CSV_T_DATETIME; t++){
    sq_ingest_value v;
    sq_number x;
    int k = sq_csv_value_fits_type(t, z, n, &v);
    if( k!=(int)((all>>t)&1) ) return 0;
    if( v.type==SQ_INGEST_V_NULL ) continue;
    k = sq_number_text(z, n, &x);
    if( !(all>>t & 1) ) return 0;
    if( v.type==SQ_INGEST_V_INTEGER && !(t==SQ_CSV_T_INTEGER && k==SQ_NUMBER_INTEGER && x.i==v.i) ) return 0;
    if( v.type==SQ_INGEST_V_REAL
        && !(t==SQ_CSV_T_REAL && (k==SQ_NUMBER_INTEGER || k==SQ_NUMBER_REAL) && memcmp(&x.r, &v.r, sizeof v.r)==0) ){
      return 0;
    }
  }
  return 1;
}

/* sq_csv_value_fits_type agrees with sq_csv_value_fits on date and
** date-time texts: every common shape and mutations of it (a byte changed,
** cut, or added), days around month ends and 29 February. */
static void test_fits_type_dates(void){
  static const char *const base[] = {
    "2024-02-29", "2023-02-29", "1900-02-29", "2000-02-29", "0000-02-29", "9999-12-31",
    "2024-04-31", "2024-04-30", "2024-13-01", "2024-00-10", "2024-01-00",
    "2024-05-01 12:00", "2024-05-01T23:59:59", "2024-05-01 24:00:00", "2024-05-01 12:60",
    "2024-05-01 12:00:60", "2024-05-01 12:00:00.5", "2024-05-01 12:00:00.25Z",
    "2024-05-01T12:00:00.250z", "2024-05-01 12:00:00.2500", "2024-05-01 12:00Z",
    "2024-05-01 12:00:00+02:00", "2024-05-01  12:00", "2024-05-01 12:00:00.", " 2024-05-01",
    "2024-05-01 ", "2024-05-01 12:00.5", "1969-12-31 23:59:59.999",
  };
  const char alpha[] = "0123456789-: T.Zz+x";
  unsigned seed = 777;
  int bad = 0;
  long total = 0, r;
  size_t q;
  for(q=0; q<sizeof base/sizeof base[0]; q++){
    total++;
    if( !fits_type_agrees(base[q], strlen(base[q])) && bad++<10 ) SQ_CHECK_MSG(0, "'%s'", base[q]);
  }
  for(r=0; r<300000; r++){
    char z[40];
    size_t n;
    const char *b;
    seed = seed*1103515245u + 12345u;
    b = base[(seed>>16) % (sizeof base/sizeof base[0])];
    n = strlen(b);
    memcpy(z, b, n);
    seed = seed*1103515245u + 12345u;
    switch( (seed>>16)%4 ){
      case 0: z[(seed>>18)%n] = alpha[(seed>>24)%(sizeof alpha-1)]; break;
      case 1: n = (seed>>18)%n; break;
      case 2: if( n<39 ) z[n++] = alpha[(seed>>24)%(sizeof alpha-1)]; break;
      default: z[(seed>>18)%n] = (char)('0' + (seed>>24)%10); break;
    }
    total++;
    if( !fits_type_agrees(z, n) && bad++<10 ) SQ_CHECK_MSG(0, "'%.*s'", (int)n, z);
  }
  SQ_CHECK_MSG(bad==0, "%d of %ld date texts: sq_csv_value_fits_type disagrees", bad, total);
}

/* sq_csv_value_fits (one pass, the general case elsewhere) agrees with the
** reference on every string of up to 6 characters over the number alphabet,
** and on generated longer ones: integers around 18/19 digits and the int64
** bounds, decimals around 15/16 significant digits, leading and trailing
** zeros, exponents, junk at any place, lengths around 300. */
static void test_value_fits_agrees(void){
  static const char alpha[] = "0179-.eE+x";
  const int na = (int)sizeof alpha - 1;
  char z[400];
  int len, bad = 0;
  long total = 0, idx, count, j;
  unsigned seed = 12345;
  for(len=0; len<=6; len++){
    count = 1;
    for(j=0; j<len; j++) count *= na;
    for(idx=0; idx<count; idx++){
      long x = idx;
      for(j=0; j<len; j++){ z[j] = alpha[x % na]; x /= na; }
      total++;
      if( sq_csv_value_fits(z, (size_t)len)!=ref_value_fits(z, (size_t)len) ){
        if( bad++<10 ) SQ_CHECK_MSG(0, "'%.*s': %u, reference %u", len, z,
                                    sq_csv_value_fits(z, (size_t)len), ref_value_fits(z, (size_t)len));
      }
      if( !fits_type_agrees(z, (size_t)len) && bad++<10 ) SQ_CHECK_MSG(0, "'%.*s': fits_type", len, z);
    }
  }
  for(idx=0; idx<400000; idx++){
    int n = 0, k, m;
    seed = seed*1103515245u + 12345u;
    if( (seed>>16)&1 ) z[n++] = '-';
    seed = seed*1103515245u + 12345u;
    m = 1 + (int)((seed>>16) % 24);                    /* integer digits */
    for(k=0; k<m; k++){
      seed = seed*1103515245u + 12345u;
      z[n++] = (char)('0' + ((seed>>16)%4==0 ? 0 : (seed>>17)%10));
    }
    seed = seed*1103515245u + 12345u;
    if( (seed>>16)%3==0 ){                             /* a fraction */
      z[n++] = '.';
      seed = seed*1103515245u + 12345u;
      m = (int)((seed>>16) % 20);
      for(k=0; k<m; k++){
        seed = seed*1103515245u + 12345u;
        z[n++] = (char)('0' + ((seed>>16)%3==0 ? 0 : (seed>>17)%10));
      }
    }
    seed = seed*1103515245u + 12345u;
    if( (seed>>16)%7==0 ){                             /* an exponent */
      z[n++] = (seed>>19)&1 ? 'e' : 'E';
      if( (seed>>20)&1 ) z[n++] = (seed>>21)&1 ? '-' : '+';
      n += snprintf(z+n, 8, "%u", (seed>>22)%400);
    }
    seed = seed*1103515245u + 12345u;
    if( (seed>>16)%11==0 && n>0 ){                      /* junk somewhere */
      z[(seed>>18)%(unsigned)n] = "x. -+e"[(seed>>24)%6];
    }
    total++;
    if( sq_csv_value_fits(z, (size_t)n)!=ref_value_fits(z, (size_t)n) ){
      if( bad++<10 ) SQ_CHECK_MSG(0, "'%.*s': %u, reference %u", n, z,
                                  sq_csv_value_fits(z, (size_t)n), ref_value_fits(z, (size_t)n));
    }
    if( !fits_type_agrees(z, (size_t)n) && bad++<10 ) SQ_CHECK_MSG(0, "'%.*s': fits_type", n, z);
  }
  {
    /* the int64 bounds and 18/19 digits, signed */
    static const char *const v[] = {
      "999999999999999999", "-999999999999999999", "1000000000000000000", "-1000000000000000000",
      "9223372036854775807", "9223372036854775808", "-9223372036854775808", "-9223372036854775809",
      "000000000000000000000", "-0", "-0.0", "0.000000000000000000000001", "123456789012345.0",
      "1234567890123456.0", "1.00000000000000000000", "100000000000000000000.5",
    };
    size_t q;
    for(q=0; q<sizeof v/sizeof v[0]; q++){
      total++;
      SQ_CHECK_MSG(sq_csv_value_fits(v[q], strlen(v[q]))==ref_value_fits(v[q], strlen(v[q])),
                   "'%s'", v[q]);
    }
  }
  for(len=290; len<=330; len++){
    /* long decimals around the 300-character switch: 0.000…1 and 1000…0 */
    memset(z, '0', (size_t)len);
    z[1] = '.'; z[len-1] = '1';
    total++;
    if( sq_csv_value_fits(z, (size_t)len)!=ref_value_fits(z, (size_t)len) ) bad++;
    memset(z, '0', (size_t)len);
    z[0] = '1';
    total++;
    if( sq_csv_value_fits(z, (size_t)len)!=ref_value_fits(z, (size_t)len) ) bad++;
  }
  SQ_CHECK_MSG(bad==0, "%d of %ld strings disagree with the reference", bad, total);
}

/* The CSV driver of the ingest core: the same rows (and error) for every
** way of cutting the input. */
static int on_ingest_row(void *u, const sq_ingest_row *row){
  Log *l = (Log*)u;
  int i;
  log_printf(l, "row %lld @%llu:%llu:%llu", (long long)row->index, (unsigned long long)row->offset,
             (unsigned long long)row->line, (unsigned long long)row->column);
  for(i=0; i<row->ncol; i++){
    const sq_ingest_value *v = &row->values[i];
    switch( v->type ){
      case SQ_INGEST_V_INTEGER: log_printf(l, " i%lld", (long long)v->i); break;
      case SQ_INGEST_V_REAL: log_printf(l, " r%.17g", v->r); break;
      case SQ_INGEST_V_TEXT: log_add(l, " t", 2); log_text(l, v->text, v->len); break;
      case SQ_INGEST_V_OMITTED: log_add(l, " -", 2); break;
      default: log_add(l, " NULL", 5);
    }
  }
  log_add(l, "\n", 1);
  return (++l->events % 2) ? SQ_INGEST_PAUSE : SQ_INGEST_CONTINUE;
}

static char *ingest_cut(const char *doc, size_t n, size_t cut, int infer_qty){
  Log l;
  sq_ingest *g;
  sq_csv_ingest *d;
  sq_csv_options o;
  size_t pos = 0;
  int rc = SQ_INGEST_OK;
  memset(&l, 0, sizeof l);
  log_add(&l, "", 0);
  g = sq_ingest_new(on_ingest_row, &l);
  sq_ingest_add_column(g, "id", -1, "INTEGER", -1, SQ_INGEST_COL_DEFAULT);
  sq_ingest_add_column(g, "name", -1, "TEXT", -1, SQ_INGEST_COL_DEFAULT);
  sq_ingest_add_column(g, "qty", -1, "REAL", -1, SQ_INGEST_COL_DEFAULT);
  sq_ingest_add_column(g, "day", -1, "DATE", -1, SQ_INGEST_COL_DEFAULT);
  sq_ingest_add_column(g, "unused", -1, "TEXT", -1, SQ_INGEST_COL_DEFAULT);
  sq_ingest_map_key(g, "Full Name", -1, "name", -1);
  sq_csv_options_init(&o);
  d = sq_csv_ingest_new(g, &o);
  if( infer_qty ) sq_csv_ingest_require(d, 2, SQ_CSV_T_INTEGER, 2);
  while( rc!=SQ_INGEST_ERROR && pos<n ){
    size_t end = pos<cut ? cut : n;
    rc = sq_csv_ingest_feed(d, doc+pos, end-pos);
    pos = rc==SQ_INGEST_PAUSED ? pos + sq_csv_ingest_consumed(d) : end;
  }
  if( rc!=SQ_INGEST_ERROR ) rc = sq_csv_ingest_finish(d);
  if( rc==SQ_INGEST_ERROR ){
    char *t = sq_csv_ingest_error_text(d);
    log_printf(&l, "ERROR %d %s", sq_csv_ingest_error_info(d)->code, t);
    sqlite3_free(t);
  }else{
    log_printf(&l, "OK %lld", (long long)sq_csv_ingest_records(d));
  }
  sq_csv_ingest_free(d);
  sq_ingest_free(g);
  return l.s;
}

static void expect_ingest(const char *doc, int infer_qty, const char *want){
  size_t n = strlen(doc), i;
  char *whole = ingest_cut(doc, n, n, infer_qty);
  SQ_CHECK_MSG(strcmp(whole, want)==0, "doc '%s':\n--- got\n%s\n--- want\n%s", doc, whole, want);
  for(i=0; i<=n; i++){
    char *got = ingest_cut(doc, n, i, infer_qty);
    if( strcmp(got, whole)!=0 ){
      SQ_CHECK_MSG(0, "driver: split at %zu differs:\n%s\n---\n%s", i, whole, got);
      free(got);
      break;
    }
    free(got);
  }
  free(whole);
}

static void test_ingest_driver(void){
  expect_ingest("ID,Full Name,qty,day,extra\n1,\"Smith, J\",2.5,2024-05-01T14:00:00+02:00,x\n2,,,,\n", 0,
    "row 0 @27:2:1 i1 t'Smith, J' r2.5 t'2024-05-01 12:00:00.000' -\n"
    "row 1 @72:3:1 i2 NULL NULL NULL -\nOK 2");
  /* a value that does not fit a required (inferred) type: the line, byte and field */
  expect_ingest("id,name,qty\n1,a,10\n2,b,1.5\n", 1,
    "row 0 @12:2:1 i1 - r10 - -\n"   /* name: fed by "Full Name" only; day: no field */
    "ERROR 4 line 3, byte 23, field 3 (qty): '1.5' is not an integer written canonically (no leading "
    "zeros, no sign +, within 64 bits), and the column's type INTEGER was inferred from the first 2 "
    "records (declare the column's type to accept such values)");
  expect_ingest("id,ID\n1,2\n", 0,
    "ERROR 2 line 1, byte 3, field 2: header name 'ID' repeats field 1 ('id'): header names must "
    "differ, also ignoring case");
  expect_ingest("id,name\n1,\"x\n", 0,
    "ERROR 1 line 2, byte 10, field 2 (name): unterminated quoted field (the input ends before its closing quote)");
  expect_ingest("", 0, "ERROR 2 empty file: no header");
  expect_ingest("id,name\n", 0, "OK 0");
}

int main(void){
  test_basic();
  test_quoted();
  test_delimiters();
  test_nulls();
  test_bom();
  test_utf8();
  test_quote_errors();
  test_records();
  test_limits();
  test_abort();
  test_reset_and_state();
  test_big();
  test_huge_field();
  test_python_oracle();
  test_value_fits();
  test_value_fits_agrees();
  test_fits_type_dates();
  test_ingest_driver();
  return sq_test_done("test_csv");
}
