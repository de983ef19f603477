/*
** fuzz_ingest.c — libFuzzer harness for the ingest core (sq_ingest.h) and
** its JSON driver.
**
** The first input byte chooses the set-up (strict or lenient, layout or a
** path, whole values, a small record limit, column types, mappings with
** keys differing in case); the rest is the document.  It is ingested twice:
** whole, and cut into chunks whose sizes come from the input, pausing
** after some rows.  Both runs must give the same rows and the same final
** status/error.  Every row is checked: TEXT and JSON values are valid
** UTF-8, every JSON value parses back as exactly one JSON value, a date
** column's normalized text normalizes to itself.  Every input runs once
** more rejecting records (sq_ingest_set_reject_callback; arrays, paths and
** NDJSON): the rejects are compared too, errors included, and a reject's
** raw text must be the input's bytes at its offset; so must each row's
** (sq_ingest_set_row_raw), to its closing brace.
*/
#include "sq_internal.h"
#include "sq_ingest.h"
#include "sq_json_ingest.h"
#include "sq_json.h"
#include "sq_date.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"

typedef struct Rec {
  unsigned char *b;
  size_t n, cap;
  unsigned long rows;
  int pause_mod;
} Rec;

static int count_tokens(void *u, const sq_json_token *t){
  (void)t;
  (*(int*)u)++;
  return SQ_JSON_CONTINUE;
}

/* The JSON text must parse as one value. */
static void check_json(const char *z, size_t n){
  int count = 0;
  sq_json_parser *p = sq_json_new(count_tokens, &count);
  if( !p ) return;
  if( sq_json_feed(p, z, n)!=SQ_JSON_OK || sq_json_finish(p)!=SQ_JSON_OK || count==0 ) abort();
  sq_json_free(p);
}

static int g_date_col = -1;
static const uint8_t *g_doc;   /* the document (rows' and rejects' raw text) */
static size_t g_ndoc;

static int on_row(void *u, const sq_ingest_row *row){
  Rec *r = (Rec*)u;
  int i;
  rec_add(r, &row->index, sizeof row->index);
  rec_add(r, &row->offset, sizeof row->offset);
  rec_add(r, &row->line, sizeof row->line);
  rec_add(r, &row->column, sizeof row->column);
  rec_add(r, &row->ncol, sizeof row->ncol);
  for(i=0; i<row->ncol; i++){
    const sq_ingest_value *v = &row->values[i];
    rec_add(r, &v->type, sizeof v->type);
    switch( v->type ){
      case SQ_INGEST_V_INTEGER: rec_add(r, &v->i, sizeof v->i); break;
      case SQ_INGEST_V_REAL: rec_add(r, &v->r, sizeof v->r); break;
      case SQ_INGEST_V_TEXT:
      case SQ_INGEST_V_JSON:
        if( !v->text ) abort();
        if( !valid_utf8((const unsigned char*)v->text, v->len) ) abort();
        if( v->type==SQ_INGEST_V_JSON ) check_json(v->text, v->len);
        if( i==g_date_col && v->type==SQ_INGEST_V_TEXT && v->len<256 ){
          char out[SQ_DATE_TEXT_MAX], again[SQ_DATE_TEXT_MAX];
          int k = sq_date_normalize(v->text, (int)v->len, out);
          if( k>=0 ){
            int k2 = sq_date_normalize(out, k, again);
            if( k2!=k || memcmp(out, again, (size_t)k)!=0 ) abort();
          }
        }
        rec_add(r, &v->len, sizeof v->len);
        rec_add(r, v->text, v->len);
        break;
      default: break;
    }
  }
  if( row->raw ){
    /* (rejecting, sq_ingest_set_row_raw) the record's raw text: the input's
    ** bytes at its offset, up to its closing brace unless cut */
    if( row->nraw>SQ_INGEST_RAW_MAX || row->offset>g_ndoc || row->nraw>g_ndoc-row->offset ) abort();
    if( row->nraw && memcmp(row->raw, g_doc+row->offset, row->nraw)!=0 ) abort();
    if( !row->raw_truncated && (row->nraw==0 || row->raw[row->nraw-1]!='}') ) abort();
    rec_add(r, &row->raw_truncated, sizeof row->raw_truncated);
    rec_add(r, row->raw, row->nraw);
  }
  r->rows++;
  if( r->pause_mod && r->rows % (unsigned long)r->pause_mod==0 ) return SQ_INGEST_PAUSE;
  return SQ_INGEST_CONTINUE;
}

static void setup(sq_ingest *g, unsigned cfg){
  static const char *const types[8] = {
    "INTEGER", "REAL", "TEXT", "NUMERIC", "", "DATETIME", "VARCHAR(9)", "DATE TEXT"
  };
  static const char *const names[6] = { "id", "a", "B", "title", "n", "d" };
  static const char *const paths[4] = { "$", "ndjson", "$.a", "$.a[1].b" };
  int i;
  g_date_col = -1;
  if( cfg & 0x01 ) sq_ingest_set_strict(g, 1);
  if( (cfg & 0x06)==0x06 ){
    sq_ingest_set_whole_values(g, 1);
  }else{
    for(i=0; i<6; i++){
      const char *t = types[(cfg>>3 ^ (unsigned)i*3) & 7];
      sq_ingest_add_column(g, names[i], -1, t, -1, (cfg & 0x80) && i==4 ? SQ_INGEST_COL_DEFAULT : 0);
      if( sq_ingest_type_is_date(t, -1) && g_date_col<0 ) g_date_col = i;
    }
    if( cfg & 0x40 ){
      sq_ingest_map_key(g, "Foo", -1, "a", -1);
      sq_ingest_map_key(g, "FOO", -1, "n", -1);
      sq_ingest_map_key(g, "x", -1, "title", -1);
    }
  }
  switch( (cfg>>1) & 3 ){
    case 0: break;                                     /* array */
    case 1: sq_ingest_json_layout(g, SQ_INGEST_LAYOUT_NDJSON); break;
    case 2: sq_ingest_json_path(g, paths[(cfg>>4) & 3], -1); break;
    default: sq_ingest_json_path(g, (cfg & 0x20) ? "$" : "$.a", -1); break;
  }
  if( cfg & 0x20 ) sq_ingest_set_max_record(g, 64);
}

/* A rejected record (every input also runs rejecting records): recorded
** for the comparison of whole and cut, its error included (message and
** position); its raw text must be the input's bytes at its offset, at
** most SQ_INGEST_RAW_MAX. */
static int on_reject(void *u, const sq_ingest_reject *x){
  Rec *r = (Rec*)u;
  if( x->nraw>SQ_INGEST_RAW_MAX || x->offset>g_ndoc || x->nraw>g_ndoc-x->offset ) abort();
  if( x->nraw && memcmp(x->raw, g_doc+x->offset, x->nraw)!=0 ) abort();
  if( !valid_utf8((const unsigned char*)x->error->message, strlen(x->error->message)) ) abort();
  rec_add(r, "R", 1);
  rec_add(r, &x->index, sizeof x->index);
  rec_add(r, &x->offset, sizeof x->offset);
  rec_add(r, &x->line, sizeof x->line);
  rec_add(r, &x->truncated, sizeof x->truncated);
  rec_add(r, x->raw, x->nraw);
  rec_add(r, &x->error->offset, sizeof x->error->offset);
  rec_add(r, &x->error->line, sizeof x->error->line);
  rec_add(r, x->error->message, strlen(x->error->message));
  return SQ_INGEST_CONTINUE;
}

static void finish_rec(Rec *r, sq_ingest *g, int rc){
  const sq_ingest_error *e;
  if( rc==SQ_INGEST_OK ) rc = sq_ingest_json_finish(g);
  rec_add(r, &rc, sizeof rc);
  e = sq_ingest_error_info(g);
  rec_add(r, &e->code, sizeof e->code);
  if( rc==SQ_INGEST_ERROR ){
    if( e->code==SQ_INGEST_E_NONE ) abort();
    if( !valid_utf8((const unsigned char*)e->message, strlen(e->message)) ) abort();
    rec_add(r, &e->offset, sizeof e->offset);
    rec_add(r, &e->line, sizeof e->line);
    rec_add(r, &e->column, sizeof e->column);
    rec_add(r, &e->record, sizeof e->record);
    rec_add(r, e->message, strlen(e->message));
    if( e->key ) rec_add(r, e->key, e->nkey);
  }else if( e->code!=SQ_INGEST_E_NONE ){
    abort();
  }
}

static int feed_all(sq_ingest *g, const uint8_t *b, size_t n){
  for(;;){
    int rc = sq_ingest_json_feed(g, b, n);
    size_t k;
    if( rc!=SQ_INGEST_PAUSED ) return rc;
    k = sq_ingest_json_consumed(g);
    if( k>n ) abort();
    b += k; n -= k;
    if( n==0 ) return SQ_INGEST_OK;
  }
}

static void run_once(const uint8_t *data, size_t size, int reject){
  Rec whole = {0,0,0,0,0}, cut = {0,0,0,0,0};
  sq_ingest *g;
  int rc;
  unsigned cfg;
  size_t pos = 0, k;
  const uint8_t *doc;
  size_t n;

  cfg = data[0];
  doc = data+1;
  n = size-1;
  g_doc = doc;
  g_ndoc = n;
  if( reject && (cfg & 0x06)==0x06 ) return;   /* whole values: no rejecting */

  g = sq_ingest_new(on_row, &whole);
  if( !g ) return;
  setup(g, cfg);
  if( reject ){ sq_ingest_set_reject_callback(g, on_reject, &whole); sq_ingest_set_row_raw(g, 1); }
  rc = sq_ingest_error_info(g)->code ? SQ_INGEST_ERROR : sq_ingest_json_feed(g, doc, n);
  if( rc==SQ_INGEST_PAUSED ) abort();
  finish_rec(&whole, g, rc);
  sq_ingest_free(g);

  g = sq_ingest_new(on_row, &cut);
  if( !g ){ free(whole.b); return; }
  setup(g, cfg);
  if( reject ){ sq_ingest_set_reject_callback(g, on_reject, &cut); sq_ingest_set_row_raw(g, 1); }
  cut.pause_mod = 2;
  rc = sq_ingest_error_info(g)->code ? SQ_INGEST_ERROR : SQ_INGEST_OK;
  while( rc==SQ_INGEST_OK && pos<n ){
    k = (size_t)((cfg + doc[pos]) % 11) + 1;
    if( k>n-pos ) k = n-pos;
    rc = feed_all(g, doc+pos, k);
    pos += k;
  }
  finish_rec(&cut, g, rc);
  sq_ingest_free(g);

  /* Token limit included: sq_json applies one rule whatever the chunking. */
  if( whole.n!=cut.n || memcmp(whole.b, cut.b, whole.n)!=0 ) abort();
  free(whole.b);
  free(cut.b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size){
  if( size<1 ) return 0;
  run_once(data, size, 0);
  run_once(data, size, 1);
  return 0;
}
