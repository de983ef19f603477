/*
** test_json.c — C tests of the incremental JSON parser (sq_json.h).
**
** Every document is parsed whole, split in two at every byte position, and
** fed byte by byte: the event logs (type, text, flags, offset, line,
** column, depth) and the error must be identical.  The JSONTestSuite
** parsing cases are read in place from $SQ_JSON_TEST_SUITE or
** ../shared/json-test-suite/test_parsing (relative to the repository root,
** the working directory of `make test-c`): y_* must be accepted, n_* must
** be rejected, i_* may go either way (our choice is checked against the
** documented one) and never crash.
*/
#include "sq_internal.h"
#include "sq_json.h"
#include "sq_test.h"

#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>

/* ------------------------------------------------------------ event log */

typedef struct Log { char *s; size_t n, cap; int pause_every; int count; } Log;


static const char *type_name(int t){
  switch( t ){
    case SQ_JSON_NULL: return "null"; case SQ_JSON_FALSE: return "false";
    case SQ_JSON_TRUE: return "true"; case SQ_JSON_NUMBER: return "num";
    case SQ_JSON_STRING: return "str"; case SQ_JSON_KEY: return "key";
    case SQ_JSON_BEGIN_OBJECT: return "{"; case SQ_JSON_END_OBJECT: return "}";
    case SQ_JSON_BEGIN_ARRAY: return "["; case SQ_JSON_END_ARRAY: return "]";
  }
  return "?";
}

static int on_event(void *u, const sq_json_token *t){
  Log *l = (Log*)u;
  size_t i;
  log_printf(l, "%s", type_name(t->type));
  if( t->text ){
    log_add(l, " '", 2);
    for(i=0; i<t->len; i++){
      unsigned char c = (unsigned char)t->text[i];
      if( c<0x20 || c=='\'' || c=='\\' ) log_printf(l, "\\x%02x", c);
      else log_add(l, (const char*)&c, 1);
    }
    log_add(l, "'", 1);
  }
  if( t->flags ) log_printf(l, " f%u", t->flags);
  log_printf(l, " @%llu:%llu:%llu d%d\n", (unsigned long long)t->offset,
             (unsigned long long)t->line, (unsigned long long)t->column, t->depth);
  l->count++;
  if( l->pause_every && l->count % l->pause_every==0 ) return SQ_JSON_PAUSE;
  return SQ_JSON_CONTINUE;
}

/* Feeds one chunk, resuming after pauses. */
static int feed_all(sq_json_parser *p, const char *b, size_t n){
  for(;;){
    int rc = sq_json_feed(p, b, n);
    if( rc!=SQ_JSON_PAUSED ) return rc;
    b += sq_json_consumed(p);
    n -= sq_json_consumed(p);
    if( n==0 ) return SQ_JSON_OK;
  }
}

/* Parses doc[0..n) cut at the positions in cuts (ascending, ncut of them);
** cut_every>0 feeds chunks of that size instead.  Returns the log (caller
** frees) with the final status/error appended. */
static char *parse_cut(const char *doc, size_t n, const size_t *cuts, int ncut,
                       size_t every, unsigned opts, int pause_every){
  Log l = {0,0,0,pause_every,0};
  sq_json_parser *p = sq_json_new(on_event, &l);
  int rc = SQ_JSON_OK;
  size_t pos = 0;
  int k = 0;
  sq_json_set_options(p, opts);
  log_add(&l, "", 0);
  while( rc==SQ_JSON_OK && pos<n ){
    size_t next;
    if( every ) next = pos+every < n ? pos+every : n;
    else next = k<ncut ? cuts[k++] : n;
    if( next<pos ) next = pos;
    rc = feed_all(p, doc+pos, next-pos);
    pos = next;
  }
  if( rc==SQ_JSON_OK ) rc = sq_json_finish(p);
  if( rc==SQ_JSON_OK ){
    log_add(&l, "OK", 2);
  }else{
    const sq_json_error *e = sq_json_error_info(p);
    log_printf(&l, "ERROR %d @%llu:%llu:%llu %s", e->code,
               (unsigned long long)e->offset, (unsigned long long)e->line,
               (unsigned long long)e->column, e->message);
  }
  sq_json_free(p);
  return l.s;
}

static char *parse_whole(const char *doc, size_t n, unsigned opts){
  return parse_cut(doc, n, 0, 0, 0, opts, 0);
}

/* Every split gives the same log as the whole document.  Returns the
** whole log (caller frees). */
static char *check_splits(const char *name, const char *doc, size_t n, unsigned opts){
  char *whole = parse_whole(doc, n, opts);
  size_t i;
  int bad = 0;
  for(i=0; i<=n && !bad; i++){
    char *got = parse_cut(doc, n, &i, 1, 0, opts, 0);
    if( strcmp(got, whole)!=0 ){
      bad = 1;
      SQ_CHECK_MSG(0, "%s: split at %zu differs:\n--- whole\n%s\n--- split\n%s", name, i, whole, got);
    }
    free(got);
  }
  if( !bad ){
    char *got = parse_cut(doc, n, 0, 0, 1, opts, 0);
    if( strcmp(got, whole)!=0 ){
      bad = 1;
      SQ_CHECK_MSG(0, "%s: byte-by-byte differs:\n--- whole\n%s\n--- bytes\n%s", name, whole, got);
    }
    free(got);
  }
  if( !bad ){
    /* pausing after every event changes nothing either */
    char *got = parse_cut(doc, n, 0, 0, 3, opts, 1);
    if( strcmp(got, whole)!=0 ){
      bad = 1;
      SQ_CHECK_MSG(0, "%s: pausing differs:\n--- whole\n%s\n--- paused\n%s", name, whole, got);
    }
    free(got);
  }
  if( !bad ) SQ_CHECK(1);
  return whole;
}

/* doc must give exactly `want` (whole and every split). */
static void expect_log(const char *doc, unsigned opts, const char *want){
  char *got = check_splits(doc, doc, strlen(doc), opts);
  if( strcmp(got, want)==0 ) SQ_CHECK(1);
  else SQ_CHECK_MSG(0, "doc %s:\n--- got\n%s\n--- want\n%s", doc, got, want);
  free(got);
}

/* doc must be accepted / rejected; for rejected, the error text contains want. */
static void expect_ok(const char *doc){
  char *got = check_splits(doc, doc, strlen(doc), 0);
  const char *last = strrchr(got, '\n');
  last = last ? last+1 : got;
  SQ_CHECK_MSG(strcmp(last, "OK")==0, "expected OK for %s, got %s", doc, last);
  free(got);
}
static void expect_err_n(const char *doc, size_t n, unsigned opts, const char *want){
  char *got = check_splits(doc, doc, n, opts);
  const char *last = strrchr(got, '\n');
  last = last ? last+1 : got;
  SQ_CHECK_MSG(strncmp(last, "ERROR", 5)==0 && strstr(last, want)!=0,
               "expected error containing '%s' for '%s', got '%s'", want, doc, last);
  free(got);
}
static void expect_err(const char *doc, const char *want){
  expect_err_n(doc, strlen(doc), 0, want);
}

/* ------------------------------------------------------------ tests */

static void test_events_offsets_lines(void){
  expect_log("[1, \"a\", true]", 0,
    "[ @0:1:1 d0\n"
    "num '1' f1 @1:1:2 d1\n"
    "str 'a' @4:1:5 d1\n"
    "true @9:1:10 d1\n"
    "] @13:1:14 d0\n"
    "OK");
  expect_log("{\n  \"id\": -12,\n  \"t\": {\"x\": [null, false, 1.5e3]}\n}", 0,
    "{ @0:1:1 d0\n"
    "key 'id' @4:2:3 d1\n"
    "num '-12' f3 @10:2:9 d1\n"
    "key 't' @17:3:3 d1\n"
    "{ @22:3:8 d1\n"
    "key 'x' @23:3:9 d2\n"
    "[ @28:3:14 d2\n"
    "null @29:3:15 d3\n"
    "false @35:3:21 d3\n"
    "num '1.5e3' @42:3:28 d3\n"
    "] @47:3:33 d2\n"
    "} @48:3:34 d1\n"
    "} @50:4:1 d0\n"
    "OK");
  /* empty containers, top-level scalars */
  expect_log("[[],{},[{}]]", 0,
    "[ @0:1:1 d0\n[ @1:1:2 d1\n] @2:1:3 d1\n{ @4:1:5 d1\n} @5:1:6 d1\n"
    "[ @7:1:8 d1\n{ @8:1:9 d2\n} @9:1:10 d2\n] @10:1:11 d1\n] @11:1:12 d0\nOK");
  expect_log("  42  ", 0, "num '42' f1 @2:1:3 d0\nOK");
  expect_log("\"x\"", 0, "str 'x' @0:1:1 d0\nOK");
  expect_log("null", 0, "null @0:1:1 d0\nOK");
  /* CRLF: lines count '\n' */
  expect_log("[\r\n1,\r\n2]", 0,
    "[ @0:1:1 d0\nnum '1' f1 @3:2:1 d1\nnum '2' f1 @7:3:1 d1\n] @8:3:2 d0\nOK");
}

static void test_strings_escapes(void){
  expect_log("[\"a\\\"b\\\\c\\/d\\b\\f\\n\\r\\t\"]", 0,
    "[ @0:1:1 d0\nstr 'a\"b\\x5cc/d\\x08\\x0c\\x0a\\x0d\\x09' f4 @1:1:2 d1\n] @23:1:24 d0\nOK");
  /* \u escapes: ASCII, 2-byte, 3-byte, surrogate pair -> 4-byte UTF-8 */
  expect_log("[\"\\u0041\\u00e9\\u20AC\\uD83D\\uDE00\"]", 0,
    "[ @0:1:1 d0\nstr 'A\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80' f4 @1:1:2 d1\n] @33:1:34 d0\nOK");
  /* \u0000 -> NUL byte, flagged */
  expect_log("\"a\\u0000b\"", 0, "str 'a\\x00b' f12 @0:1:1 d0\nOK");
  /* raw UTF-8 passes through unchanged, no copy flag */
  expect_log("\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\"", 0,
    "str '\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80' @0:1:1 d0\nOK");
  expect_log("{\"\":\"\"}", 0, "{ @0:1:1 d0\nkey '' @1:1:2 d1\nstr '' @4:1:5 d1\n} @6:1:7 d0\nOK");
  /* a long string (beyond the SWAR block) with an escape at the end */
  expect_log("\"abcdefghijklmnopqrstuvwxyz0123456789\\n\"", 0,
    "str 'abcdefghijklmnopqrstuvwxyz0123456789\\x0a' f4 @0:1:1 d0\nOK");

  expect_err("[\"\\uD800\"]", "high surrogate not followed by a low surrogate");
  expect_err("[\"\\uD800\\u0041\"]", "high surrogate not followed by a low surrogate");
  expect_err("[\"\\uD800x\"]", "high surrogate not followed by a low surrogate");
  expect_err("[\"\\uDC00\"]", "lone low surrogate");
  expect_err("[\"\\u12G4\"]", "invalid \\u escape");
  expect_err("[\"\\u12\"]", "invalid \\u escape");
  expect_err("[\"\\x\"]", "invalid escape");
  expect_err("[\"\\'\"]", "invalid escape");
  expect_err("[\"a\tb\"]", "unescaped control character");
  expect_err("[\"a\nb\"]", "unescaped control character");
  expect_err("[\"abc", "unterminated string");
  expect_err("[\"abc\\", "unterminated string");
  expect_err("[\"abc\\u00", "unterminated string");
  expect_err("['a']", "expected a JSON value");
}

static void test_utf8(void){
  expect_err("[\"\xc0\xaf\"]", "invalid UTF-8");          /* overlong '/' */
  expect_err("[\"\xe0\x80\xaf\"]", "invalid UTF-8");      /* overlong 3-byte */
  expect_err("[\"\xf0\x80\x80\xaf\"]", "invalid UTF-8");  /* overlong 4-byte */
  expect_err("[\"\xed\xa0\x80\"]", "invalid UTF-8");      /* surrogate D800 in UTF-8 */
  expect_err("[\"\xed\xbf\xbf\"]", "invalid UTF-8");      /* surrogate DFFF */
  expect_err("[\"\xf4\x90\x80\x80\"]", "invalid UTF-8");  /* > U+10FFFF */
  expect_err("[\"\xf5\x80\x80\x80\"]", "invalid UTF-8");
  expect_err("[\"\x80\"]", "invalid UTF-8");              /* stray continuation */
  expect_err("[\"\xc3\"]", "invalid UTF-8");              /* cut by the quote */
  expect_err("[\"\xe2\x82\"]", "invalid UTF-8");
  expect_err("[\"\xff\"]", "invalid UTF-8");
  expect_err("[\"\xc3", "unterminated string");            /* cut by the end */
  expect_ok("[\"\xf4\x8f\xbf\xbf\"]");                      /* U+10FFFF */
  expect_ok("[\"\xed\x9f\xbf\xee\x80\x80\"]");              /* U+D7FF, U+E000 */
  /* invalid UTF-8 in a key, after an escape */
  expect_err("{\"\\n\xc0\":1}", "invalid UTF-8");
  expect_err("[\xc3\xa9]", "unexpected byte");
}

static void test_numbers(void){
  expect_log("[0,-0,12,-3.25,1e5,1E+5,1e-05,6.02e23,0.5]", 0,
    "[ @0:1:1 d0\nnum '0' f1 @1:1:2 d1\nnum '-0' f3 @3:1:4 d1\nnum '12' f1 @6:1:7 d1\n"
    "num '-3.25' f2 @9:1:10 d1\nnum '1e5' @15:1:16 d1\nnum '1E+5' @19:1:20 d1\n"
    "num '1e-05' @24:1:25 d1\nnum '6.02e23' @30:1:31 d1\nnum '0.5' @38:1:39 d1\n"
    "] @41:1:42 d0\nOK");
  /* big integers are passed on as literals */
  expect_log("[123456789012345678901234567890]", 0,
    "[ @0:1:1 d0\nnum '123456789012345678901234567890' f1 @1:1:2 d1\n] @31:1:32 d0\nOK");
  expect_err("[01]", "leading zero");
  expect_err("[-01]", "leading zero");
  expect_err("[00]", "leading zero");
  expect_err("[+1]", "expected a JSON value");
  expect_err("[.5]", "expected a JSON value");
  expect_err("[1.]", "invalid number");
  expect_err("[1.e5]", "invalid number");
  expect_err("[1e]", "invalid number");
  expect_err("[1e+]", "invalid number");
  expect_err("[-]", "invalid number");
  expect_err("[1-2]", "invalid number");
  expect_err("[1.2.3]", "invalid number");
  expect_err("[NaN]", "expected a JSON value");
  expect_err("[Infinity]", "expected a JSON value");
  expect_err("[-Infinity]", "invalid number");
  expect_err("1.", "truncated number");
  expect_err("-", "truncated number");
  expect_log("-5", 0, "num '-5' f3 @0:1:1 d0\nOK");

  {
    int64_t v = 0;
    SQ_CHECK(sq_json_number_int64("9223372036854775807", 19, &v) && v==INT64_MAX);
    SQ_CHECK(sq_json_number_int64("-9223372036854775808", 20, &v) && v==INT64_MIN);
    SQ_CHECK(!sq_json_number_int64("9223372036854775808", 19, &v));
    SQ_CHECK(!sq_json_number_int64("-9223372036854775809", 20, &v));
    SQ_CHECK(!sq_json_number_int64("1.5", 3, &v));
    SQ_CHECK(sq_json_number_int64("-0", 2, &v) && v==0);
    SQ_CHECK(sq_json_number_int64("999999999999999999", 18, &v) && v==999999999999999999LL);
    SQ_CHECK(sq_json_number_int64("-999999999999999999", 19, &v) && v==-999999999999999999LL);
    SQ_CHECK(sq_json_number_int64("1000000000000000000", 19, &v) && v==1000000000000000000LL);
    SQ_CHECK(sq_json_number_int64("42", 2, &v) && v==42);
    SQ_CHECK(!sq_json_number_int64("1e5", 3, &v));
    SQ_CHECK(!sq_json_number_int64("-", 1, &v));
    SQ_CHECK(sq_json_number_double("1.5e3", 5)==1500.0);
    SQ_CHECK(sq_json_number_double("-0.25", 5)==-0.25);
    SQ_CHECK(sq_json_number_double("1e400", 5) > 1e308);
  }
}

static void test_literals_grammar(void){
  expect_err("[tru]", "invalid literal");
  expect_err("[truex]", "invalid literal");
  expect_err("[True]", "expected a JSON value");
  expect_err("[nul", "truncated literal");
  expect_err("[1,]", "trailing comma");
  expect_err("{\"a\":1,}", "trailing comma in an object");
  expect_err("[1 2]", "expected ',' or ']'");
  expect_err("{\"a\" 1}", "expected ':'");
  expect_err("{\"a\":1 \"b\":2}", "expected ',' or '}'");
  expect_err("{1:2}", "expected a string key or '}'");
  expect_err("{\"a\":1,2}", "expected a string key");
  expect_err("[1}", "expected ',' or ']'");
  expect_err("{\"a\":1]", "expected ',' or '}'");
  expect_err("[1]]", "unexpected data after the top-level value");
  expect_err("[1] [2]", "unexpected data after the top-level value");
  expect_err("[1] x", "unexpected data after the top-level value");
  expect_err("", "empty input");
  expect_err("   ", "empty input");
  expect_err("[", "expected ']'");
  expect_err("{\"a\":[1,{", "expected '}'");
  expect_err("[1,", "expected ']'");
  expect_err("// c\n[1]", "expected a JSON value");
  expect_err("[1/*c*/]", "expected ',' or ']'");
  expect_err("[\x0c]", "expected a JSON value");      /* form feed is not whitespace */
  expect_err("[1,\xc2\xa0 2]", "unexpected byte");    /* NBSP is not whitespace */

  /* error position: line, column, offset */
  {
    const char *doc = "[\n  {\"a\": 1},\n  {\"a\": 2,}\n]";
    char *got = check_splits("pos", doc, strlen(doc), 0);
    const char *last = strrchr(got, '\n') + 1;
    SQ_CHECK_STR(last, "ERROR 1 @24:3:11 trailing comma in an object");
    free(got);
  }
}

static void test_bom(void){
  expect_log("\xef\xbb\xbf[1]", 0,
    "[ @3:1:4 d0\nnum '1' f1 @4:1:5 d1\n] @5:1:6 d0\nOK");
  expect_err("\xef\xbb\xbf\xef\xbb\xbf[1]", "unexpected byte");  /* only one BOM */
  expect_err(" \xef\xbb\xbf[1]", "unexpected byte");             /* only at the start */
  expect_err("\xef\xbb[1]", "byte order mark");
  expect_err("\xef\xbb", "byte order mark");
  expect_err("\xef\xbb\xbf", "empty input");
}

static void test_depth(void){
  char buf[2100];
  int i;
  /* exactly at the limit: accepted */
  for(i=0; i<SQ_JSON_MAX_DEPTH; i++){ buf[i] = '['; buf[SQ_JSON_MAX_DEPTH*2-1-i] = ']'; }
  {
    char *got = parse_whole(buf, SQ_JSON_MAX_DEPTH*2, 0);
    SQ_CHECK(strcmp(strrchr(got, '\n')+1, "OK")==0);
    free(got);
  }
  /* one more: rejected at the 1001st '[' */
  for(i=0; i<=SQ_JSON_MAX_DEPTH; i++){ buf[i] = '['; buf[(SQ_JSON_MAX_DEPTH+1)*2-1-i] = ']'; }
  {
    char *got = parse_whole(buf, (SQ_JSON_MAX_DEPTH+1)*2, 0);
    char want[80];
    snprintf(want, sizeof want, "ERROR 3 @%d:1:%d nesting too deep", SQ_JSON_MAX_DEPTH, SQ_JSON_MAX_DEPTH+1);
    SQ_CHECK_STR(strrchr(got, '\n')+1, want);
    free(got);
    got = parse_cut(buf, (SQ_JSON_MAX_DEPTH+1)*2, 0, 0, 7, 0, 0);
    SQ_CHECK_STR(strrchr(got, '\n')+1, want);
    free(got);
  }
  /* objects count too; a lowered limit */
  {
    Log l = {0,0,0,0,0};
    sq_json_parser *p = sq_json_new(on_event, &l);
    sq_json_set_max_depth(p, 2);
    SQ_CHECK(sq_json_feed(p, "{\"a\":[1]}", 9)==SQ_JSON_OK);
    SQ_CHECK(sq_json_finish(p)==SQ_JSON_OK);
    sq_json_reset(p);
    SQ_CHECK(sq_json_feed(p, "{\"a\":[{}]}", 10)==SQ_JSON_ERROR);
    SQ_CHECK(sq_json_error_info(p)->code==SQ_JSON_E_DEPTH);
    sq_json_free(p);
    free(l.s);
  }
}

static void test_multiple_ndjson(void){
  expect_log("{\"a\":1}\n[2]\n\n\"x\"\n3\n", SQ_JSON_OPT_MULTIPLE,
    "{ @0:1:1 d0\nkey 'a' @1:1:2 d1\nnum '1' f1 @5:1:6 d1\n} @6:1:7 d0\n"
    "[ @8:2:1 d0\nnum '2' f1 @9:2:2 d1\n] @10:2:3 d0\n"
    "str 'x' @13:4:1 d0\nnum '3' f1 @17:5:1 d0\nOK");
  expect_log("", SQ_JSON_OPT_MULTIPLE, "OK");
  expect_log("7", SQ_JSON_OPT_MULTIPLE, "num '7' f1 @0:1:1 d0\nOK");
  expect_err_n("{} {}", 5, SQ_JSON_OPT_MULTIPLE, "expected a newline between top-level values");
  expect_err_n("1\n{", 3, SQ_JSON_OPT_MULTIPLE, "expected '}'");
}

/* SQ_JSON_OPT_TRAILING_COMMAS: one comma after a value before the close,
** as Foundation's JSONDecoder (every split point, byte by byte, paused). */
static void test_trailing_commas(void){
  const unsigned T = SQ_JSON_OPT_TRAILING_COMMAS;
  expect_log("[1,]", T, "[ @0:1:1 d0\nnum '1' f1 @1:1:2 d1\n] @3:1:4 d0\nOK");
  expect_log("[1 , \n ]", T, "[ @0:1:1 d0\nnum '1' f1 @1:1:2 d1\n] @7:2:2 d0\nOK");
  expect_log("{\"a\":1,}", T,
    "{ @0:1:1 d0\nkey 'a' @1:1:2 d1\nnum '1' f1 @5:1:6 d1\n} @7:1:8 d0\nOK");
  expect_log("{\"a\":[true,],\"b\":{\"c\":null,},}", T,
    "{ @0:1:1 d0\nkey 'a' @1:1:2 d1\n[ @5:1:6 d1\ntrue @6:1:7 d2\n] @11:1:12 d1\n"
    "key 'b' @13:1:14 d1\n{ @17:1:18 d1\nkey 'c' @18:1:19 d2\nnull @22:1:23 d2\n"
    "} @27:1:28 d1\n} @29:1:30 d0\nOK");
  expect_log("[[],{},]", T,
    "[ @0:1:1 d0\n[ @1:1:2 d1\n] @2:1:3 d1\n{ @4:1:5 d1\n} @5:1:6 d1\n] @7:1:8 d0\nOK");
  /* strict JSON is unchanged */
  expect_log("[1,2]", T, "[ @0:1:1 d0\nnum '1' f1 @1:1:2 d1\nnum '2' f1 @3:1:4 d1\n] @4:1:5 d0\nOK");
  /* one comma, after a value, inside a container: nothing else */
  expect_err_n("[,]", 3, T, "expected a JSON value");
  expect_err_n("[,1]", 4, T, "expected a JSON value");
  expect_err_n("[1,,]", 5, T, "expected a JSON value");
  expect_err_n("[1,,2]", 6, T, "expected a JSON value");
  expect_err_n("{,}", 3, T, "expected a string key or '}'");
  expect_err_n("{\"a\":1,,}", 9, T, "expected a string key");
  expect_err_n("{\"a\":}", 6, T, "trailing comma?");
  expect_err_n("{\"a\",}", 6, T, "expected ':'");
  expect_err_n("[1,", 3, T, "expected ']'");
  expect_err_n("{\"a\":1,", 7, T, "expected '}'");
  expect_err_n("1,", 2, T, "unexpected data after the top-level value");
  expect_err_n("[1],", 4, T, "unexpected data after the top-level value");
  expect_err_n("[1,}", 4, T, "expected a value (trailing comma?)");
  expect_err_n("{\"a\":1,]", 8, T, "expected a string key");
  /* NDJSON with the option too */
  expect_log("[1,]\n{\"a\":2,}\n", T|SQ_JSON_OPT_MULTIPLE,
    "[ @0:1:1 d0\nnum '1' f1 @1:1:2 d1\n] @3:1:4 d0\n"
    "{ @5:2:1 d0\nkey 'a' @6:2:2 d1\nnum '2' f1 @10:2:6 d1\n} @12:2:8 d0\nOK");
  /* off by default */
  expect_err("[1,]", "trailing comma");
  expect_err("{\"a\":1,}", "trailing comma in an object");
}

static void test_pause_and_abort(void){
  Log l = {0,0,0,0,0};
  sq_json_parser *p = sq_json_new(on_event, &l);
  const char *doc = "[1,2,3]";
  int rc;
  l.pause_every = 2;          /* pause after '[' 1 ... */
  rc = sq_json_feed(p, doc, 7);
  SQ_CHECK(rc==SQ_JSON_PAUSED);
  SQ_CHECK(sq_json_consumed(p)==2);          /* "[1" */
  rc = sq_json_feed(p, doc+2, 5);
  SQ_CHECK(rc==SQ_JSON_PAUSED);
  SQ_CHECK(sq_json_consumed(p)==4);          /* ",2,3" */
  sq_json_free(p);
  free(l.s);
}

static int abort_cb(void *u, const sq_json_token *t){
  (void)u;
  return t->type==SQ_JSON_NUMBER ? 99 : SQ_JSON_CONTINUE;
}
static void test_abort_reset_limits(void){
  sq_json_parser *p = sq_json_new(abort_cb, 0);
  SQ_CHECK(sq_json_feed(p, "[true, 5]", 9)==SQ_JSON_ERROR);
  SQ_CHECK(sq_json_error_info(p)->code==SQ_JSON_E_ABORTED);
  SQ_CHECK(sq_json_error_info(p)->offset==7);
  SQ_CHECK(sq_json_feed(p, "[]", 2)==SQ_JSON_ERROR);    /* sticky */
  sq_json_reset(p);
  SQ_CHECK(sq_json_feed(p, "[]", 2)==SQ_JSON_OK);
  SQ_CHECK(sq_json_finish(p)==SQ_JSON_OK);
  /* token limit, whole and split */
  sq_json_reset(p);
  sq_json_set_max_token(p, 4);
  SQ_CHECK(sq_json_feed(p, "[\"abcd\"]", 8)==SQ_JSON_OK);
  SQ_CHECK(sq_json_finish(p)==SQ_JSON_OK);
  sq_json_reset(p);
  SQ_CHECK(sq_json_feed(p, "[\"abcde\"]", 9)==SQ_JSON_ERROR);
  SQ_CHECK(sq_json_error_info(p)->code==SQ_JSON_E_TOO_LONG);
  sq_json_reset(p);
  SQ_CHECK(sq_json_feed(p, "[\"ab", 4)==SQ_JSON_OK);
  SQ_CHECK(sq_json_feed(p, "cdefgh", 6)==SQ_JSON_ERROR);
  SQ_CHECK(sq_json_error_info(p)->code==SQ_JSON_E_TOO_LONG);
  sq_json_free(p);
}

/* The token limit is one rule whatever the chunking: parsed whole, cut
** in two at every position, and fed one byte at a time, each document with
** each limit gives the same outcome (OK, or the same error code, offset and
** message).  The rule: a string's raw bytes between its quotes, a number's
** run of number characters; true/false/null are not limited; an over-long
** token is refused before anything else in it is checked. */
typedef struct LimitOutcome { int rc, code; uint64_t offset; char msg[96]; } LimitOutcome;

static LimitOutcome limit_parse(const char *doc, size_t n, size_t limit,
                                size_t cut, int bytewise){
  LimitOutcome o;
  sq_json_parser *p = sq_json_new(0, 0);
  size_t i;
  int rc = SQ_JSON_OK;
  sq_json_set_max_token(p, limit);
  sq_json_set_options(p, SQ_JSON_OPT_MULTIPLE);
  if( bytewise ){
    for(i=0; i<n && rc!=SQ_JSON_ERROR; i++) rc = sq_json_feed(p, doc+i, 1);
  }else{
    rc = sq_json_feed(p, doc, cut);
    if( rc!=SQ_JSON_ERROR && cut<n ) rc = sq_json_feed(p, doc+cut, n-cut);
  }
  if( rc!=SQ_JSON_ERROR ) rc = sq_json_finish(p);
  memset(&o, 0, sizeof o);
  o.rc = rc;
  o.code = sq_json_error_info(p)->code;
  o.offset = sq_json_error_info(p)->offset;
  memcpy(o.msg, sq_json_error_info(p)->message, sizeof o.msg);
  sq_json_free(p);
  return o;
}

static void test_token_limit_any_cut(void){
  static const char *docs[] = {
    "[\"abcd\"]", "[\"abcde\"]", "[\"abc\"]", "\"abcd\"", "\"abcde\"",
    "{\"abcd\":1}", "{\"abcde\":1}",
    "[\"a\\nc\"]", "[\"a\\ncd\"]", "[\"\\u0041\"]", "[\"ab\\\"\"]",
    "[\"ab\x01\"]", "[\"ab\x01xyz\"]", "[\"a\001bcdefgh\"]", "[\"ab\xff\"]", "[\"ab\xffxyzw\"]",
    "[\"\xc3\xa9\xc3\xa9\"]", "[\"\xc3\xa9\xc3\xa9\xc3\xa9\"]",
    "[\"a\\", "[\"abcdef", "[\"ab",
    "[1234]", "[12345]", "[-123]", "[-1234]", "[1.5e3]", "[1.5e30]",
    "[01234]", "[0123456]", "[012]", "[1-2-3-4]", "[1-2]", "[1e+]", "[12345",
    "[false]", "[true,null]", "[falsey]", "[fals]", "[nulllllll]", "tru",
    "[\"abcd\",12345]", "{\"k\":\"abcdefghij\"}\n{\"k\":2}",
    /* bad bytes before the closing quote, or with none */
    "[\"ab\x01xyz", "[\"abcd\x01", "[\"a\nb\"]", "{\"k\nk\":1}", "[\"a\\qxyz", "[\"a\\\nb\"]",
    "[\"a\\u12g4", "[\"a\\uD800\\n", "[\"a\\uD800\\uD800", "[\"a\\uD800x", "[\"\xc3\xa9\xc3(",
    "[\"\xe2\x82", "[\"\\u00e9\xff", "{\"a\":\"x\ty\"}\n{\"a\":1}\n",
    "[\"abcdef\xec\x9c\"]", "[\"abcdefg\xec\x9c\"]", "[\"abcdef\xec\x9cx\"]",
  };
  size_t limits[] = { 1, 2, 3, 4, 5, 6, 64 };
  size_t d, l, cut;
  for(d=0; d<sizeof docs/sizeof docs[0]; d++){
    size_t n = strlen(docs[d]);
    for(l=0; l<sizeof limits/sizeof limits[0]; l++){
      LimitOutcome whole = limit_parse(docs[d], n, limits[l], n, 0), o;
      int same = 1;
      for(cut=0; cut<=n; cut++){
        o = limit_parse(docs[d], n, limits[l], cut, 0);
        if( o.rc!=whole.rc || o.code!=whole.code || o.offset!=whole.offset || strcmp(o.msg, whole.msg) ){
          same = 0;
          SQ_CHECK_MSG(0, "%s, limit %zu, cut at %zu: rc %d code %d offset %llu '%s'; whole: rc %d code %d offset %llu '%s'",
                       docs[d], limits[l], cut, o.rc, o.code, (unsigned long long)o.offset, o.msg,
                       whole.rc, whole.code, (unsigned long long)whole.offset, whole.msg);
          break;
        }
      }
      o = limit_parse(docs[d], n, limits[l], 0, 1);
      if( o.rc!=whole.rc || o.code!=whole.code || o.offset!=whole.offset || strcmp(o.msg, whole.msg) ){
        same = 0;
        SQ_CHECK_MSG(0, "%s, limit %zu, byte by byte: code %d offset %llu '%s'; whole: code %d offset %llu '%s'",
                     docs[d], limits[l], o.code, (unsigned long long)o.offset, o.msg,
                     whole.code, (unsigned long long)whole.offset, whole.msg);
      }
      if( same ) SQ_CHECK(1);
    }
  }
  /* the rule itself, on whole inputs */
  SQ_CHECK(limit_parse("[\"abcd\"]", 8, 4, 8, 0).rc==SQ_JSON_OK);        /* 4 bytes between the quotes */
  SQ_CHECK(limit_parse("[\"abcde\"]", 9, 4, 9, 0).code==SQ_JSON_E_TOO_LONG);
  SQ_CHECK(limit_parse("[\"a\\nc\"]", 8, 4, 8, 0).rc==SQ_JSON_OK);       /* raw: a \ n c */
  SQ_CHECK(limit_parse("[\"a\\ncd\"]", 9, 4, 9, 0).code==SQ_JSON_E_TOO_LONG); /* raw 5, decoded 4 */
  SQ_CHECK(limit_parse("[1234]", 6, 4, 6, 0).rc==SQ_JSON_OK);
  SQ_CHECK(limit_parse("[12345]", 7, 4, 7, 0).code==SQ_JSON_E_TOO_LONG);     /* was accepted whole */
  SQ_CHECK(limit_parse("[false]", 7, 1, 7, 0).rc==SQ_JSON_OK);             /* literals not limited */
  {
    /* a bad byte within the limit is the error, where it is; past it, too long */
    LimitOutcome o = limit_parse("[\"ab\x01xyz\"]", 11, 4, 11, 0);
    SQ_CHECK(o.code==SQ_JSON_E_SYNTAX && o.offset==4);
    o = limit_parse("[\"ab\x01xyz\"]", 11, 2, 11, 0);
    SQ_CHECK(o.code==SQ_JSON_E_TOO_LONG && o.offset==1);
    o = limit_parse("[\"a\\qxyz\"]", 10, 4, 10, 0);             /* a bad escape */
    SQ_CHECK(o.code==SQ_JSON_E_SYNTAX && o.offset==3);
    o = limit_parse("[\"ab\xffxyz", 8, 4, 8, 0);                 /* before the closing quote */
    SQ_CHECK(o.code==SQ_JSON_E_UTF8 && o.offset==4);
  }
}

/* The tape (sq_json_tape_event): the same tokens whole and fed byte by
** byte (texts in the input, or copied to the arena when escaped or cut);
** streamed: only the elements of the arrays the path selects, a pause after
** each, the failure type for an object at the path. */
static const char *tape_text(const sq_json_tape *t, size_t i, const char *doc){
  const sq_json_tape_token *k = &t->tokens[i];
  return (k->flags & SQ_JSON_TAPE_ARENA) ? (const char*)t->arena + k->position : doc + k->position;
}
static void test_tape(void){
  const char *doc = "{\"a\":[1,\"x\\ny\",true],\"b\":null,\"c\":{}}";
  size_t n = strlen(doc), i;
  int pass;
  for(pass=0; pass<2; pass++){
    sq_json_tape t;
    sq_json_parser *p;
    int rc = SQ_JSON_OK;
    SQ_CHECK(sq_json_tape_init(&t)==0);
    p = sq_json_new(sq_json_tape_event, &t);
    t.input_start = (const unsigned char*)doc;
    t.input_end = (const unsigned char*)doc + n;
    if( pass==0 ){
      rc = sq_json_feed(p, doc, n);
    }else{
      for(i=0; i<n && rc==SQ_JSON_OK; i++){ t.base = 0; rc = sq_json_feed(p, doc+i, 1); }
    }
    SQ_CHECK(rc==SQ_JSON_OK && sq_json_finish(p)==SQ_JSON_OK);
    /* { a [ 1 "x\ny" true ] b null c { } */
    SQ_CHECK(t.count==10);
    SQ_CHECK(t.tokens[0].kind==SQ_JSON_BEGIN_OBJECT && t.tokens[0].length==10 && t.tokens[0].position==0);
    SQ_CHECK(t.tokens[1].kind==SQ_JSON_KEY && t.tokens[1].length==1 && memcmp(tape_text(&t, 1, doc), "a", 1)==0);
    SQ_CHECK(t.tokens[2].kind==SQ_JSON_BEGIN_ARRAY && t.tokens[2].length==6);
    SQ_CHECK(t.tokens[3].kind==SQ_JSON_NUMBER && t.tokens[3].length==1 && tape_text(&t, 3, doc)[0]=='1');
    SQ_CHECK(t.tokens[4].kind==SQ_JSON_STRING && (t.tokens[4].flags & SQ_JSON_TAPE_ARENA)
             && t.tokens[4].length==3 && memcmp(tape_text(&t, 4, doc), "x\ny", 3)==0);
    {
      uint64_t off;
      memcpy(&off, t.arena + t.tokens[4].position - 8, 8);
      SQ_CHECK(off==8);                         /* the input offset of its quote */
    }
    SQ_CHECK(t.tokens[5].kind==SQ_JSON_TRUE && t.tokens[5].position==15);
    SQ_CHECK(t.tokens[7].kind==SQ_JSON_NULL);
    SQ_CHECK(t.tokens[9].kind==SQ_JSON_BEGIN_OBJECT && t.tokens[9].length==10);
    if( pass==1 ) SQ_CHECK(t.tokens[1].flags & SQ_JSON_TAPE_ARENA);   /* cut: copied */
    sq_json_free(p);
    sq_json_tape_release(&t);
  }
  /* streaming: the elements of every array at $.k, one pause each */
  {
    const char *d2 = "{\"k\":[{\"v\":1},2],\"x\":{\"k\":[9]},\"k\":[3]}";
    sq_json_tape t;
    sq_json_parser *p;
    int rc, got = 0;
    size_t at = 0, len = strlen(d2);
    SQ_CHECK(sq_json_tape_init(&t)==0);
    t.streaming = 1;
    t.matcher = sq_json_path_new();
    t.pause_depth = 2;
    sq_json_path_add_key(t.matcher, "k", 1);
    p = sq_json_new(sq_json_tape_event, &t);
    t.input_start = (const unsigned char*)d2;
    t.input_end = (const unsigned char*)d2 + len;
    for(;;){
      rc = sq_json_feed(p, d2+at, len-at);
      at += sq_json_consumed(p);
      t.base = at;
      t.input_start = (const unsigned char*)d2 + at;
      if( t.completed ){
        got++;
        if( got==1 ) SQ_CHECK(t.count==3 && t.tokens[0].kind==SQ_JSON_BEGIN_OBJECT && t.tokens[0].length==3);
        if( got==2 ) SQ_CHECK(t.count==1 && t.tokens[0].kind==SQ_JSON_NUMBER && t.tokens[0].position==14);
        if( got==3 ) SQ_CHECK(t.count==1 && t.tokens[0].position==len-3);
        sq_json_tape_clear(&t);
      }
      if( rc!=SQ_JSON_PAUSED ) break;
    }
    SQ_CHECK(rc==SQ_JSON_OK && sq_json_finish(p)==SQ_JSON_OK && got==3 && t.found);
    sq_json_free(p);
    sq_json_path_free(t.matcher);
    sq_json_tape_release(&t);
  }
  /* an object at the path aborts with its type */
  {
    sq_json_tape t;
    sq_json_parser *p;
    SQ_CHECK(sq_json_tape_init(&t)==0);
    t.streaming = 1;
    t.matcher = sq_json_path_new();
    t.pause_depth = 2;
    sq_json_path_add_key(t.matcher, "k", 1);
    p = sq_json_new(sq_json_tape_event, &t);
    SQ_CHECK(sq_json_feed(p, "{\"k\":{}}", 8)==SQ_JSON_ERROR);
    SQ_CHECK(t.failure_type==SQ_JSON_BEGIN_OBJECT && !t.found);
    sq_json_free(p);
    sq_json_path_free(t.matcher);
    sq_json_tape_release(&t);
  }
}

/* ------------------------------------------------------------ JSONTestSuite */

static char *read_file(const char *path, size_t *n){
  FILE *f = fopen(path, "rb");
  char *b;
  long sz;
  if( !f ) return 0;
  fseek(f, 0, SEEK_END);
  sz = ftell(f);
  fseek(f, 0, SEEK_SET);
  b = malloc((size_t)sz+1);
  *n = fread(b, 1, (size_t)sz, f);
  fclose(f);
  return b;
}

/* i_ cases we accept, as documented in sq_json.h: numbers of any size
** (passed on as literals), 500 nested arrays (limit 1000), a UTF-8 BOM.
** Every other i_ case (invalid UTF-8, UTF-16, lone surrogates) is rejected. */
static int i_case_accepted(const char *name){
  return strncmp(name, "i_number_", 9)==0
      || strcmp(name, "i_structure_500_nested_arrays.json")==0
      || strcmp(name, "i_structure_UTF-8_BOM_empty_object.json")==0;
}

/* n_ cases that SQ_JSON_OPT_TRAILING_COMMAS accepts (Foundation's
** JSONDecoder too): one comma after the last value, then the close. */
static int trailing_comma_case(const char *name){
  return strcmp(name, "n_array_extra_comma.json")==0            /* ["",] */
      || strcmp(name, "n_array_number_and_comma.json")==0       /* [1,] */
      || strcmp(name, "n_object_trailing_comma.json")==0;       /* {"id":0,} */
}

static int name_cmp(const void *a, const void *b){
  return strcmp(*(char*const*)a, *(char*const*)b);
}

static void test_json_suite(void){
  const char *dir = getenv("SQ_JSON_TEST_SUITE");
  DIR *d;
  struct dirent *de;
  char *names[1000];
  int nn = 0, i, ny = 0, nnok = 0, ni = 0, ntc = 0;
  if( !dir ) dir = "../shared/json-test-suite/test_parsing";
  d = opendir(dir);
  if( !d ){
    SQ_CHECK_MSG(0, "JSONTestSuite directory %s: %s (set SQ_JSON_TEST_SUITE)", dir, strerror(errno));
    return;
  }
  while( (de = readdir(d))!=0 && nn<1000 ){
    if( strstr(de->d_name, ".json") ) names[nn++] = strdup(de->d_name);
  }
  closedir(d);
  qsort(names, (size_t)nn, sizeof(char*), name_cmp);
  SQ_CHECK_MSG(nn>300, "only %d cases in %s", nn, dir);
  for(i=0; i<nn; i++){
    char path[1024];
    size_t n = 0;
    char *doc, *log;
    const char *last;
    int ok;
    snprintf(path, sizeof path, "%s/%s", dir, names[i]);
    doc = read_file(path, &n);
    if( !doc ){ SQ_CHECK_MSG(0, "cannot read %s", path); continue; }
    /* big files (deep nesting) only whole and in small chunks */
    if( n<=2000 ){
      log = check_splits(names[i], doc, n, 0);
    }else{
      char *l2;
      log = parse_whole(doc, n, 0);
      l2 = parse_cut(doc, n, 0, 0, 7, 0, 0);
      SQ_CHECK_MSG(strcmp(log, l2)==0, "%s: chunked differs", names[i]);
      free(l2);
    }
    last = strrchr(log, '\n');
    last = last ? last+1 : log;
    ok = strcmp(last, "OK")==0;
    {
      /* with SQ_JSON_OPT_TRAILING_COMMAS: the same, but for the n_ cases
      ** that are exactly one trailing comma after a value */
      char *tl = parse_whole(doc, n, SQ_JSON_OPT_TRAILING_COMMAS);
      const char *tlast = strrchr(tl, '\n');
      int tok;
      tlast = tlast ? tlast+1 : tl;
      tok = strcmp(tlast, "OK")==0;
      if( trailing_comma_case(names[i]) ){
        SQ_CHECK_MSG(tok && !ok, "%s: refused by default, accepted with trailing commas (%s)",
                     names[i], tlast);
        ntc++;
      }else{
        SQ_CHECK_MSG(strcmp(tl, log)==0, "%s: trailing commas option changes the log", names[i]);
      }
      free(tl);
    }
    if( names[i][0]=='y' ){
      SQ_CHECK_MSG(ok, "%s must be accepted: %s", names[i], last);
      ny++;
    }else if( names[i][0]=='n' ){
      SQ_CHECK_MSG(!ok, "%s must be rejected", names[i]);
      nnok++;
    }else{
      SQ_CHECK_MSG(ok==i_case_accepted(names[i]), "%s: documented choice is %s, got %s",
                   names[i], i_case_accepted(names[i]) ? "accept" : "reject", last);
      ni++;
    }
    free(log);
    free(doc);
    free(names[i]);
  }
  SQ_CHECK_MSG(ntc==3, "%d trailing-comma cases found, expected 3", ntc);
  printf("JSONTestSuite: %d y_, %d n_, %d i_ cases\n", ny, nnok, ni);
}

int main(void){
  test_events_offsets_lines();
  test_strings_escapes();
  test_utf8();
  test_numbers();
  test_literals_grammar();
  test_bom();
  test_depth();
  test_multiple_ndjson();
  test_trailing_commas();
  test_pause_and_abort();
  test_abort_reset_limits();
  test_token_limit_any_cut();
  test_tape();
  test_json_suite();
  return sq_test_done("test_json");
}
