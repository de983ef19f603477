/*
** test_reject.c — rejecting records (sq_ingest.h, REJECTING RECORDS;
** sq_csv_ingest_set_reject_callback): which records are rejected, their
** positions and raw text, for JSON arrays, NDJSON and CSV — the same log
** whole, split in two at every byte, byte by byte, and pausing after
** every row.
*/
#include "sq_ingest.h"
#include "sq_csv_ingest.h"
#include "sq_json_ingest.h"
#include "sq_internal.h"
#include "sq_test.h"

typedef struct Log { char *s; size_t n, cap; int pause; } Log;

static int on_row(void *u, const sq_ingest_row *r){
  Log *l = (Log*)u;
  int i;
  log_printf(l, "row %lld @%llu:%llu", (long long)r->index, (unsigned long long)r->line,
             (unsigned long long)r->offset);
  for(i=0; i<r->ncol; i++){
    const sq_ingest_value *v = &r->values[i];
    if( v->type==SQ_INGEST_V_INTEGER ) log_printf(l, " %lld", (long long)v->i);
    else if( v->type==SQ_INGEST_V_TEXT || v->type==SQ_INGEST_V_JSON ){
      log_add(l, " '", 2); log_add(l, v->text, v->len); log_add(l, "'", 1);
    }else log_printf(l, " null");
  }
  log_add(l, "\n", 1);
  return l->pause ? SQ_INGEST_PAUSE : SQ_INGEST_CONTINUE;
}

static int on_reject(void *u, const sq_ingest_reject *r){
  Log *l = (Log*)u;
  log_printf(l, "reject %lld @%llu:%llu err %llu:%llu", (long long)r->index, (unsigned long long)r->line,
             (unsigned long long)r->offset, (unsigned long long)r->error->line,
             (unsigned long long)r->error->offset);
  if( r->field ){ log_add(l, " field ", 7); log_add(l, r->field, r->nfield); }
  log_printf(l, "%s [", r->truncated ? " truncated" : "");
  { size_t i; for(i=0; i<r->nraw; i++){ if( r->raw[i] ) log_add(l, r->raw+i, 1); else log_add(l, "\\0", 2); } }
  log_add(l, "]", 1);
  if( r->reason ){ log_add(l, " ", 1); log_add(l, r->reason, strlen(r->reason)); }
  else{ log_add(l, " ", 1); log_add(l, r->error->message, strlen(r->error->message)); }
  log_add(l, "\n", 1);
  return SQ_INGEST_CONTINUE;
}

static const char *g_cols;    /* "id INTEGER,n INTEGER" */
static int g_csv, g_layout;

static sq_ingest *make_core(Log *l){
  sq_ingest *g = sq_ingest_new(on_row, l);
  char buf[256], *s, *e;
  snprintf(buf, sizeof buf, "%s", g_cols[0]=='!' ? g_cols+1 : g_cols);
  for(s=buf; s; s=e){
    char *sp;
    e = strchr(s, ',');
    if( e ) *e++ = 0;
    sp = strchr(s, ' ');
    if( sp ) *sp++ = 0;
    sq_ingest_add_column(g, s, -1, sp, -1, 0);
  }
  sq_ingest_set_strict(g, g_cols[0]!='!');     /* "!cols": lenient */
  if( !g_csv ){
    sq_ingest_json_layout(g, g_layout);
    sq_ingest_set_reject_callback(g, on_reject, l);
  }
  return g;
}

static char *run(const char *doc, size_t n, size_t cut, size_t every, int pause){
  Log l = {0, 0, 0, pause};
  sq_ingest *g;
  sq_csv_ingest *d = 0;
  size_t pos = 0;
  int rc = SQ_INGEST_OK;
  log_add(&l, "", 0);
  g = make_core(&l);
  if( g_csv ){
    sq_csv_options o;
    sq_csv_options_init(&o);
    d = sq_csv_ingest_new(g, &o);
    sq_csv_ingest_set_reject_callback(d, on_reject, &l);
  }
  while( rc==SQ_INGEST_OK && pos<n ){
    size_t next = every ? (pos+every<n ? pos+every : n) : (pos<cut ? cut : n);
    const char *b = doc+pos;
    size_t k = next-pos;
    for(;;){
      rc = d ? sq_csv_ingest_feed(d, b, k) : sq_ingest_json_feed(g, b, k);
      if( rc!=SQ_INGEST_PAUSED ) break;
      {
        size_t u = d ? sq_csv_ingest_consumed(d) : sq_ingest_json_consumed(g);
        b += u; k -= u;
      }
      rc = SQ_INGEST_OK;
      if( k==0 ) break;
    }
    pos = next;
  }
  if( rc==SQ_INGEST_OK ) rc = d ? sq_csv_ingest_finish(d) : sq_ingest_json_finish(g);
  if( rc!=SQ_INGEST_OK ){
    if( d ){
      char *t = sq_csv_ingest_error_text(d);
      log_printf(&l, "error %s\n", t ? t : "?");
      sqlite3_free(t);
    }else{
      log_printf(&l, "error %s\n", sq_ingest_error_info(g)->message);
    }
  }
  log_printf(&l, "records %lld rejected %lld\n", (long long)sq_ingest_records(g), (long long)sq_ingest_rejected(g));
  sq_csv_ingest_free(d);
  sq_ingest_free(g);
  return l.s;
}

/* Checks every way of feeding doc against the expected log. */
static void checkn(const char *cols, int csv, int layout, const char *doc, size_t n, const char *want){
  size_t i;
  char *got;
  /* (the whole input's log is the expected one; every other feeding must match it) */
  g_cols = cols; g_csv = csv; g_layout = layout;
  char *whole = run(doc, n, n, 0, 0);
  SQ_CHECK_STR(whole, want);
  want = whole;
  for(i=0; i<=n; i++){
    got = run(doc, n, i, 0, 0);
    if( strcmp(got, want)!=0 ){
      SQ_CHECK_MSG(0, "split at %zu differs:\n--- want\n%s--- got\n%s", i, want, got);
      free(got);
      free(whole);
      return;
    }
    free(got);
  }
  got = run(doc, n, 0, 1, 0);
  SQ_CHECK_MSG(strcmp(got, want)==0, "byte by byte:\n%s", got);
  free(got);
  got = run(doc, n, 0, 5, 1);
  SQ_CHECK_MSG(strcmp(got, want)==0, "paused:\n%s", got);
  free(got);
  free(whole);
}

static void check(const char *cols, int csv, int layout, const char *doc, const char *want){
  checkn(cols, csv, layout, doc, strlen(doc), want);
}

/* Type inference rejecting records (sq_csv_infer_skip_bad): a record of
** another field count types nothing and is not counted; "types: …" or the
** error, fed in two pieces cut at `cut`. */
static char *infer_log(const char *doc, size_t n, size_t cut, int skip){
  Log l = {0, 0, 0, 0};
  sq_csv_options o;
  sq_csv_infer *f;
  int rc = SQ_INGEST_OK, i;
  sq_csv_options_init(&o);
  f = sq_csv_infer_new(&o, 0);
  log_add(&l, "", 0);
  if( skip ) sq_csv_infer_skip_bad(f);
  if( cut>0 ) rc = sq_csv_infer_feed(f, doc, cut);
  if( rc==SQ_INGEST_OK && cut<n ) rc = sq_csv_infer_feed(f, doc+cut, n-cut);
  if( rc!=SQ_INGEST_ERROR ) rc = sq_csv_infer_finish(f);
  if( rc==SQ_INGEST_ERROR ){
    log_printf(&l, "error %s", sq_csv_infer_error(f)->message);
  }else{
    log_printf(&l, "records %lld:", (long long)sq_csv_infer_records(f));
    for(i=0; i<sq_csv_infer_count(f); i++){
      log_printf(&l, " %s %s", sq_csv_infer_name(f, i), sq_csv_type_name(sq_csv_infer_type(f, i)));
    }
  }
  sq_csv_infer_free(f);
  return l.s;
}

static void check_infer(const char *doc, int skip, const char *want){
  size_t n = strlen(doc), i;
  for(i=0; i<=n; i++){
    char *got = infer_log(doc, n, i, skip);
    int same = strcmp(got, want)==0;
    SQ_CHECK_MSG(same, "cut at %zu: got '%s', want '%s'", i, got, want);
    free(got);
    if( !same ) return;
  }
}

int main(void){
  /* CSV type inference with bad records in its sample: with skip_bad the
  ** long and the short record type nothing ('x' leaves n INTEGER); without
  ** it the first one stops the inference, as it would stop the read */
  check_infer("id,n,s\n1,10,a\n2,x,b,extra\n3\n4,40,c\n", 1,
              "records 2: id INTEGER n INTEGER s TEXT");
  check_infer("id,n,s\n1,10,a\n2,x,b,extra\n3\n4,40,c\n", 0,
              "error record has 4 fields, the first record has 3");
  /* a value that does not fit is no bad record: its column is TEXT */
  check_infer("id,n\n1,10\n2,x\n", 1, "records 2: id INTEGER n TEXT");

  /* NDJSON: a refused value, a line ending inside its value, a syntax
  ** error, an array, a number, a last line without a newline cut short */
  check("id INTEGER,n INTEGER", 0, SQ_INGEST_LAYOUT_NDJSON,
        "{\"id\":1,\"n\":10}\n{\"id\":2,\"n\":\"x\"}\n{\"id\":3,\"n\":\n{\"id\":4,\"n\":40}\n"
        "{\"id\":5 x}\n[1,2]\n7\n\n{\"id\":6,\"n\":60}\n{\"id\":7,",
        "row 0 @1:0 1 10\n"
        "reject 1 @2:16 err 2:28 field n [{\"id\":2,\"n\":\"x\"}] 'x' is not an integer, column n is INTEGER (strict mode)\n"
        "reject 2 @3:33 err 3:45 [{\"id\":3,\"n\":] the line ends inside the value (NDJSON: one value per line)\n"
        "row 3 @4:46 4 40\n"
        "reject 4 @5:62 err 5:70 [{\"id\":5 x}] expected ',' or '}'\n"
        "reject 5 @6:73 err 6:73 [[1,2]] expected an object, found an array (rows are read from JSON objects)\n"
        "reject 6 @7:79 err 7:79 [7] expected an object, found a number (rows are read from JSON objects)\n"
        "row 7 @9:82 6 60\n"
        "reject 8 @10:98 err 10:106 [{\"id\":7,] unexpected end of input (expected '}')\n"
        "records 9 rejected 6\n");
  /* a JSON array: value errors are skipped, the raw text is the element */
  check("id INTEGER", 0, SQ_INGEST_LAYOUT_ARRAY,
        "[{\"id\":1},\n {\"id\":\"two\", \"x\":[1,{\"y\":2}]},\"s\\\"q\", {\"id\":3}]",
        "row 0 @1:1 1\n"
        "reject 1 @2:12 err 2:18 field id [{\"id\":\"two\", \"x\":[1,{\"y\":2}]}] 'two' is not an integer, column id is INTEGER (strict mode)\n"
        "reject 2 @2:42 err 2:42 [\"s\\\"q\"] expected an object, found a string (rows are read from JSON objects)\n"
        "row 3 @2:50 3\n"
        "records 4 rejected 2\n");
  /* a syntax error inside an array stops */
  check("id INTEGER", 0, SQ_INGEST_LAYOUT_ARRAY,
        "[{\"id\":1},{\"id\":2 x},{\"id\":3}]",
        "row 0 @1:1 1\n"
        "error expected ',' or '}' (a syntax error can be skipped only in NDJSON, at the line end: "
        "inside a JSON array the next element cannot be found safely)\n"
        "records 1 rejected 0\n");
  /* CSV: a refused value, short and long records; quoting errors stop */
  check("id INTEGER,name TEXT,n INTEGER", 1, 0,
        "id,name,n\r\n1,a,10\r\n2,b,x\r\n3,\"c\r\nc\"\r\n4,d,40\r\n5,e,50,9\r\n6,f,60",
        "row 0 @2:11 1 'a' 10\n"
        "reject 1 @3:19 err 3:23 field n [2,b,x] line 3, byte 23, field 3 (n): 'x' is not an integer, column n is INTEGER (strict mode)\n"
        "reject 2 @4:26 err 5:34 field n [3,\"c\r\nc\"] line 5, byte 34, field 3 (n): record has 2 fields, the first record has 3\n"
        "row 3 @6:36 4 'd' 40\n"
        "reject 4 @7:44 err 7:51 [5,e,50,9] line 7, byte 51, field 4: record has 4 fields, the first record has 3\n"
        "row 5 @8:54 6 'f' 60\n"
        "records 6 rejected 3\n");
  check("a TEXT,b TEXT", 1, 0, "a,b\n1,x\"y\n2,z\n",
        "error line 2, byte 7, field 2 (b): quote character inside an unquoted field (quote the whole field and double the quote)\n"
        "records 0 rejected 0\n");
  /* a string cut by the line end, a record cut by the end of the input */
  check("id INTEGER", 0, SQ_INGEST_LAYOUT_NDJSON, "{\"1}\n\n{\"",
        "reject 0 @1:0 err 1:4 [{\"1}] unescaped control character in a string\n"
        "reject 1 @3:6 err 3:8 [{\"] unterminated string\n"
        "records 2 rejected 2\n");
  check("!id INTEGER,d DATE TEXT", 0, SQ_INGEST_LAYOUT_NDJSON,
        "{\"id\": }\n\n{\"id\": 2, \"d\": \"202315-\xb4\n{\"id\": 2, \"d\": \"202315-\xb4- 0012:00\"}\x02{\"id\": 1}\n\n{\"id\n\": 2, \"d\": \"202315--",
        "reject 0 @1:0 err 1:7 [{\"id\": }] expected a value (trailing comma?)\n"
        "reject 1 @3:10 err 3:33 [{\"id\": 2, \"d\": \"202315-\xb4] invalid UTF-8 in a string\n"
        "reject 2 @4:35 err 4:58 [{\"id\": 2, \"d\": \"202315-\xb4- 0012:00\"}\x02{\"id\": 1}] invalid UTF-8 in a string\n"
        "reject 3 @6:82 err 6:86 [{\"id] unescaped control character in a string\n"
        "reject 4 @7:87 err 7:87 [\": 2, \"] expected an object, found a string (rows are read from JSON objects)\n"
        "reject 5 @7:94 err 7:94 [d\": \"202315--] expected a newline between top-level values\n"
        "records 6 rejected 6\n");
  checkn("!id INTEGER,d DATE TEXT", 0, SQ_INGEST_LAYOUT_NDJSON, "{\x22""id\x00""\x00""\x00""\x00""\x00""\x00""\x00""\x00""\x22"":\x93""\x16""{1*}\x0a""\x0a""\x22"",s\x00""\x00""\x00""\x00""\x00""\x00""\x00""\x22""[\x22"" \x22"" 1, [tr{\x22""", 46,
         "reject 0 @1:0 err 1:4 [{\"id\\0\\0\\0\\0\\0\\0\\0\\0\":\x93\x16{1*}] unescaped control character in a string\n"
         "reject 1 @3:22 err 3:25 [\",s\\0\\0\\0\\0\\0\\0\\0\"[\" \" 1, [tr{\"] unescaped control character in a string\n"
         "records 2 rejected 2\n");
  checkn("!id INTEGER,d DATE TEXT", 0, SQ_INGEST_LAYOUT_NDJSON, "{\x22""id\x22"": 2}\x0a"" \x16""{: \x0a""\xd3""\xff""\xff""\xff""{\x22""id\x22"": 2, \x22""d\x22"": \x22""\x86""024-0\xcb""\xfd""\x84""\xd9""id", 48,
         "row 0 @1:0 2 null\n"
         "reject 1 @2:10 err 2:11 [ \x16{: ] expected a JSON value\n"
         "reject 2 @3:16 err 3:16 [\xd3\xff\xff\xff{\"id\": 2, \"d\": \"\x86""024-0\xcb\xfd\x84\xd9id] unexpected byte (expected a JSON value)\n"
         "records 3 rejected 2\n");
  checkn("!id INTEGER,d DATE TEXT", 0, SQ_INGEST_LAYOUT_NDJSON, "{\x22""i`\x22"": 2}\x0a""\x0a""{\x22""id\x22"": 2\x0a"" \x22""\x02""{{\x04""\x00""\x00""\x00""\x00""\x00""\x00""\x00""\x91""\xe4""  \x22""\x02"" 2}\x0a""\x0a""{\x22""id\x22"": 2\x0a""{\x04""2:\x22""00\x22""}\x0a""x", 64,
         "row 0 @1:0 null null\n"
         "reject 1 @3:11 err 3:19 [{\"id\": 2] the line ends inside the value (NDJSON: one value per line)\n"
         "reject 2 @4:20 err 4:22 [ \"\x02{{\x04\\0\\0\\0\\0\\0\\0\\0\x91\xe4  \"\x02 2}] unescaped control character in a string\n"
         "reject 3 @6:44 err 6:52 [{\"id\": 2] the line ends inside the value (NDJSON: one value per line)\n"
         "reject 4 @7:53 err 7:54 [{\x04""2:\"00\"}] expected a string key or '}'\n"
         "reject 5 @8:63 err 8:63 [x] expected a JSON value\n"
         "records 6 rejected 5\n");
  checkn("!id INTEGER,d DATE TEXT", 0, SQ_INGEST_LAYOUT_NDJSON, "{\x22""id\x22""}:\x0a"" \x22""\x0a""{id\x22"": 2,\x02""{\x22""\x16""{\x22""a~~~~~~~~fi\x22""id\x22""}:\x0a"" \x22""\x0a""{id\x22""}:\x0a"" \x22""*{id\x22"": 2,\x02""{\x22""\x16""{\x22""a~~~~~~d\x22"": 2,\x02""{\x22""\x16""{\x22""a~~~~~~~~fid\x22"": ", 104,
         "reject 0 @1:0 err 1:5 [{\"id\"}:] expected ':'\n"
         "reject 1 @2:8 err 2:10 [ \"] unescaped control character in a string\n"
         "reject 2 @3:11 err 3:12 [{id\": 2,\x02""{\"\x16""{\"a~~~~~~~~fi\"id\"}:] expected a string key or '}'\n"
         "reject 3 @4:43 err 4:45 [ \"] unescaped control character in a string\n"
         "reject 4 @5:46 err 5:47 [{id\"}:] expected a string key or '}'\n"
         "reject 5 @6:54 err 6:54 [\"*{id\"] expected an object, found a string (rows are read from JSON objects)\n"
         "reject 6 @6:60 err 6:60 [: 2,\x02""{\"\x16""{\"a~~~~~~d\": 2,\x02""{\"\x16""{\"a~~~~~~~~fid\": ] expected a newline between top-level values\n"
         "records 7 rejected 7\n");
  /* NDJSON strings holding a raw newline or another bad byte (in a value, a
  ** key, after an escape, after invalid UTF-8): the error is at the bad
  ** byte, and the line is the reject, the next line read on its own — at
  ** every split (the parser reports a bad byte where it reads it) */
  check("!id INTEGER,s TEXT", 0, SQ_INGEST_LAYOUT_NDJSON,
        "{\"id\":1,\"s\":\"a\nb\"}\n{\"id\":2,\"s\":\"ok\"}\n"
        "{\"i\nd\":3}\n{\"id\":4,\"s\":\"x\\\"\ny\"}\n"
        "{\"id\":5,\"s\":\"t\tab\"}\n{\"id\":6,\"s\":\"\xc3\ny\"}\n"
        "{\"id\":7,\"s\":\"\\u00\n{\"id\":8}\n{\"id\":9,\"s\":\"a\\\n\"}\n{\"id\":10}",
        "reject 0 @1:0 err 1:14 [{\"id\":1,\"s\":\"a] unescaped control character in a string\n"
        "reject 1 @2:15 err 2:15 [b\"}] expected a JSON value\n"
        "row 2 @3:19 2 'ok'\n"
        "reject 3 @4:37 err 4:40 [{\"i] unescaped control character in a string\n"
        "reject 4 @5:41 err 5:41 [d\":3}] expected a JSON value\n"
        "reject 5 @6:47 err 6:63 [{\"id\":4,\"s\":\"x\\\"] unescaped control character in a string\n"
        "reject 6 @7:64 err 7:64 [y\"}] expected a JSON value\n"
        "reject 7 @8:68 err 8:82 [{\"id\":5,\"s\":\"t\tab\"}] unescaped control character in a string\n"
        "reject 8 @9:88 err 9:101 [{\"id\":6,\"s\":\"\xc3] invalid UTF-8 in a string\n"
        "reject 9 @10:103 err 10:103 [y\"}] expected a JSON value\n"
        "reject 10 @11:107 err 11:124 [{\"id\":7,\"s\":\"\\u00] invalid \\u escape\n"
        "row 11 @12:125 8 null\n"
        "reject 12 @13:134 err 13:148 [{\"id\":9,\"s\":\"a\\] invalid escape in a string\n"
        "reject 13 @14:150 err 14:152 [\"}] unescaped control character in a string\n"
        "row 14 @15:153 10 null\n"
        "records 15 rejected 12\n");
  /* a long record: the first SQ_INGEST_RAW_MAX bytes, never half a UTF-8 character */
  {
    static char doc[12000];
    char *want, *got;
    size_t n = 0, i;
    n += (size_t)sprintf(doc+n, "{\"id\":\"");
    for(i=0; i<5000; i++) n += (size_t)sprintf(doc+n, i==4088 ? "\xc3\xa9" : "x");
    n += (size_t)sprintf(doc+n, "\"}\n{\"id\":1}\n");
    g_cols = "id INTEGER"; g_csv = 0; g_layout = SQ_INGEST_LAYOUT_NDJSON;
    got = run(doc, n, 0, 1000, 0);
    want = strstr(got, "truncated [");
    SQ_CHECK(want!=0);
    if( want ){
      char *end = strchr(want, ']');
      SQ_CHECK(end && end-(want+11)==4095);   /* 4096 would cut the é */
    }
    SQ_CHECK(strstr(got, "row 1 @2:5011 1\n")!=0);
    free(got);
  }
  /* sq_ingest_rawtext on its own (the Swift cursors' use): bytes kept across
  ** chunks, the cut at SQ_INGEST_RAW_MAX before a 4-byte character */
  {
    static char big[5000];
    sq_ingest_rawtext w;
    const char *z;
    size_t n = 0;
    int trunc = -1;
    memset(&w, 0, sizeof(w));
    sq_ingest_rawtext_chunk(&w, "ab\ncd", 5, 0);
    sq_ingest_rawtext_keep(&w, 5, 3);              /* the record "cd…" from offset 3 */
    sq_ingest_rawtext_chunk(&w, "efg", 3, 5);
    sq_ingest_rawtext_keep(&w, 3, 3);
    sq_ingest_rawtext_chunk(&w, "h\nij", 4, 8);
    SQ_CHECK(sq_ingest_rawtext_byte(&w, 3)=='c' && sq_ingest_rawtext_byte(&w, 8)=='h');
    SQ_CHECK(sq_ingest_rawtext_byte(&w, 2)==-1 && sq_ingest_rawtext_byte(&w, 12)==-1);
    z = sq_ingest_rawtext_get(&w, 3, 9, &n, &trunc);
    SQ_CHECK(n==6 && memcmp(z, "cdefgh", 6)==0 && trunc==0);
    sq_ingest_rawtext_keep(&w, 4, UINT64_MAX);     /* no record in progress: nothing kept */
    sq_ingest_rawtext_chunk(&w, "kl", 2, 12);
    z = sq_ingest_rawtext_get(&w, 3, 9, &n, &trunc);
    SQ_CHECK(n==0 && z!=0);
    /* a record longer than the limit, 1000 bytes a chunk: 4096 bytes kept, then cut
    ** before the 4-byte character at 4094 */
    memset(big, 'x', sizeof(big));
    memcpy(big+4094, "\xf0\x9f\x98\x80", 4);
    sq_ingest_rawtext_forget(&w);
    for(n=0; n<5000; n+=1000){
      sq_ingest_rawtext_chunk(&w, big+n, 1000, n);
      if( n<4000 ) sq_ingest_rawtext_keep(&w, 1000, 0);
    }
    SQ_CHECK(w.pre.n==4000);
    z = sq_ingest_rawtext_get(&w, 0, 5000, &n, &trunc);
    SQ_CHECK(n==4094 && trunc==1 && memcmp(z, big, 4094)==0);
    z = sq_ingest_rawtext_get(&w, 0, 4096, &n, &trunc);   /* exactly the limit: whole */
    SQ_CHECK(n==4096 && trunc==0);
    sq_ingest_rawtext_free(&w);
    SQ_CHECK(w.pre.z==0 && w.out.z==0);
  }
  return sq_test_done("test_reject");
}
