/*
** fuzz_csv.c — libFuzzer harness for the incremental CSV reader (sq_csv.h).
**
** The first two bytes choose the options (header, empty string, pad,
** ragged, lazy quotes, no UTF-8 check), the delimiter, the quote, a NULL
** marker and a small field limit; the rest is the input.  It is read
** whole and cut into chunks whose sizes come from the input (1..13),
** pausing after every other record: both runs must give the same events
** (type, flags, text, record, field, offset, line, column, end offset) and
** the same status/error.  Checked on every event: a checked field's text
** is valid UTF-8, an unquoted field's text is the input's bytes at its
** offset, a field's index is below the first record's count unless ragged
** records are allowed, a record has that count, no text is longer than
** the limit.  The same input then goes through the CSV driver of the
** ingest core (sq_csv_ingest.h: header names, coercion into INTEGER, REAL,
** DATE and TEXT columns, a field required to fit INTEGER, names feeding two
** columns or one column fed by two names), whole and cut: the same rows
** (rejecting, with their raw text: sq_ingest_set_row_raw, the input's bytes)
** and the same error; and through type inference (sq_csv_infer, skipping
** bad records when the driver rejects them), whole and cut: the same
** columns and types, or the same error.  The whole input (up to 79 bytes) also goes through
** the one number rule (sq_number.h) against strtod/strtoll: an accepted
** number is their value bit for bit, a refusal is true of strtod's double.
*/
#include "sq_internal.h"
#include "sq_csv.h"
#include "sq_number.h"
#include "sq_csv_ingest.h"

#include <stdint.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"

typedef struct Rec {
  unsigned char *b;
  size_t n, cap;
  unsigned long records;
  int pause;
  unsigned opts;
  size_t max_field;
  const uint8_t *doc;
  size_t ndoc;
  uint64_t width;
  int have_width;
} Rec;

static int on_event(void *u, const sq_csv_event *e){
  Rec *r = (Rec*)u;
  unsigned flags = e->flags & ~SQ_CSV_F_COPIED;
  rec_add(r, &e->type, sizeof e->type);
  rec_add(r, &flags, sizeof flags);
  rec_add(r, &e->record, sizeof e->record);
  rec_add(r, &e->field, sizeof e->field);
  rec_add(r, &e->offset, sizeof e->offset);
  rec_add(r, &e->line, sizeof e->line);
  rec_add(r, &e->column, sizeof e->column);
  rec_add(r, &e->end_offset, sizeof e->end_offset);
  rec_add(r, &e->len, sizeof e->len);
  if( e->type==SQ_CSV_FIELD ){
    if( e->len ) rec_add(r, e->text, e->len);
    if( (e->flags & SQ_CSV_F_NULL) ? (e->text!=0 || e->len!=0) : e->text==0 ) abort();
    if( e->len>r->max_field ) abort();
    if( !(r->opts & SQ_CSV_OPT_NO_UTF8_CHECK)
        && !valid_utf8((const unsigned char*)e->text, e->len) ) abort();
    if( !(e->flags & (SQ_CSV_F_QUOTED|SQ_CSV_F_NULL)) && e->len
        && (e->offset+e->len>r->ndoc || memcmp(r->doc+e->offset, e->text, e->len)!=0) ) abort();
    if( r->have_width && !(r->opts & SQ_CSV_OPT_RAGGED) && e->field>=r->width ) abort();
    return SQ_CSV_CONTINUE;
  }
  if( !r->have_width ){ r->width = e->field; r->have_width = 1; }
  else if( !(r->opts & SQ_CSV_OPT_RAGGED) && e->field!=r->width ) abort();
  if( e->end_offset>r->ndoc || e->offset>e->end_offset ) abort();
  r->records++;
  if( r->pause && (r->records & 1) ) return SQ_CSV_PAUSE;
  return SQ_CSV_CONTINUE;
}

static void finish_rec(Rec *r, sq_csv_parser *p, int rc){
  if( rc!=SQ_CSV_ERROR ) rc = sq_csv_finish(p);
  rec_add(r, &rc, sizeof rc);
  if( rc==SQ_CSV_ERROR ){
    const sq_csv_error *e = sq_csv_error_info(p);
    if( e->offset>r->ndoc ) abort();
    rec_add(r, &e->code, sizeof e->code);
    rec_add(r, &e->offset, sizeof e->offset);
    rec_add(r, &e->line, sizeof e->line);
    rec_add(r, &e->column, sizeof e->column);
    rec_add(r, &e->record, sizeof e->record);
    rec_add(r, &e->field, sizeof e->field);
    rec_add(r, e->message, strlen(e->message));
  }else if( sq_csv_offset(p)!=r->ndoc ){
    abort();
  }
}

static int feed_all(sq_csv_parser *p, const uint8_t *b, size_t n){
  for(;;){
    int rc = sq_csv_feed(p, b, n);
    size_t k;
    if( rc!=SQ_CSV_PAUSED ) return rc;
    k = sq_csv_consumed(p);
    if( k>n ) abort();
    b += k; n -= k;
    if( n==0 ) return SQ_CSV_OK;
  }
}

static sq_csv_parser *make(Rec *r, uint8_t a, uint8_t b){
  static const char delims[] = ",\t;|";
  static const char quotes[] = "\"'";
  sq_csv_parser *p = sq_csv_new(on_event, r);
  if( !p ) return 0;
  r->opts = a & 0x3F;
  sq_csv_set_options(p, r->opts);
  if( sq_csv_set_delimiter(p, delims[b & 3]) ) abort();
  if( b & 4 ){ if( sq_csv_set_quote(p, 0) ) abort(); }
  else if( sq_csv_set_quote(p, quotes[(b>>3) & 1]) ) abort();
  if( b & 0x10 ) sq_csv_set_null(p, "NA", 2);
  r->max_field = (b & 0x20) ? 5 : SQ_CSV_DEFAULT_MAX_FIELD;
  sq_csv_set_max_field(p, r->max_field);
  return p;
}

/* ---- the CSV driver of the ingest core */

static int on_row(void *u, const sq_ingest_row *row){
  Rec *r = (Rec*)u;
  int i;
  rec_add(r, &row->index, sizeof row->index);
  rec_add(r, &row->offset, sizeof row->offset);
  rec_add(r, &row->line, sizeof row->line);
  for(i=0; i<row->ncol; i++){
    const sq_ingest_value *v = &row->values[i];
    rec_add(r, &v->type, sizeof v->type);
    if( v->type==SQ_INGEST_V_INTEGER ) rec_add(r, &v->i, sizeof v->i);
    else if( v->type==SQ_INGEST_V_REAL ) rec_add(r, &v->r, sizeof v->r);
    else if( v->type==SQ_INGEST_V_TEXT || v->type==SQ_INGEST_V_JSON ){
      if( !v->text ) abort();
      rec_add(r, &v->len, sizeof v->len);
      if( v->len ) rec_add(r, v->text, v->len);
    }
  }
  if( row->raw ){
    /* (rejecting, sq_ingest_set_row_raw) the record's raw text, as a reject's */
    if( row->nraw>SQ_INGEST_RAW_MAX || row->offset>r->ndoc || row->nraw>r->ndoc-row->offset ) abort();
    if( row->nraw && memcmp(row->raw, r->doc+row->offset, row->nraw)!=0 ) abort();
    rec_add(r, &row->raw_truncated, sizeof row->raw_truncated);
    rec_add(r, row->raw, row->nraw);
  }
  return (++r->records & 1) ? SQ_INGEST_PAUSE : SQ_INGEST_CONTINUE;
}

/* A rejected record (a & 0x08): recorded; its raw text must be the
** input's bytes at its offset, at most SQ_INGEST_RAW_MAX, and its reason
** the driver's message with a position. */
static int on_reject(void *u, const sq_ingest_reject *x){
  Rec *r = (Rec*)u;
  if( x->nraw>SQ_INGEST_RAW_MAX || x->offset>r->ndoc || x->nraw>r->ndoc-x->offset ) abort();
  if( x->nraw && memcmp(x->raw, r->doc+x->offset, x->nraw)!=0 ) abort();
  if( !x->reason ) abort();
  rec_add(r, "R", 1);
  rec_add(r, &x->index, sizeof x->index);
  rec_add(r, &x->offset, sizeof x->offset);
  rec_add(r, &x->line, sizeof x->line);
  rec_add(r, &x->truncated, sizeof x->truncated);
  rec_add(r, x->reason, strlen(x->reason));
  rec_add(r, x->raw, x->nraw);
  return SQ_INGEST_CONTINUE;
}

/* The CSV driver's and the inference's options, from the set-up bytes. */
static void driver_options(sq_csv_options *o, uint8_t a, uint8_t b){
  sq_csv_options_init(o);
  o->header = (a & 0x40) ? 0 : 1;
  o->delimiter = ",;\t|"[b & 3];
  o->empty_string = (a & 2)!=0;
  o->pad_short = (a & 4)!=0;
  o->max_field = 32;
}

static void drive(Rec *r, const uint8_t *doc, size_t n, uint8_t a, uint8_t b, int cut){
  sq_ingest *g = sq_ingest_new(on_row, r);
  sq_csv_ingest *d;
  sq_csv_options o;
  size_t pos = 0;
  int rc = SQ_INGEST_OK;
  const sq_csv_ingest_error *e;
  if( !g ) return;
  r->doc = doc;
  r->ndoc = n;
  sq_ingest_add_column(g, "a", -1, "TEXT", -1, SQ_INGEST_COL_DEFAULT);
  sq_ingest_add_column(g, "b", -1, "INTEGER", -1, 0);
  sq_ingest_add_column(g, "c", -1, "REAL", -1, 0);
  sq_ingest_add_column(g, "d", -1, "DATE", -1, 0);
  sq_ingest_map_key(g, "x", -1, "a", -1);
  if( b & 0x80 ){
    /* every path of sq_ingest_field_text's plan: a name feeding two
    ** columns (y), two names feeding one column (c, z: the duplicate
    ** error when both are in a record), names feeding nothing */
    sq_ingest_map_key(g, "c", -1, "c", -1);
    sq_ingest_map_key(g, "y", -1, "c", -1);
    sq_ingest_map_key(g, "y", -1, "d", -1);
    sq_ingest_map_key(g, "z", -1, "c", -1);
    sq_ingest_map_key(g, "d", -1, "d", -1);
  }
  sq_ingest_set_strict(g, b & 0x40 ? 1 : 0);
  sq_ingest_set_max_record(g, 64);
  driver_options(&o, a, b);
  d = sq_csv_ingest_new(g, &o);
  if( !d ){ sq_ingest_free(g); return; }
  if( a & 0x80 ) sq_csv_ingest_require(d, 1, SQ_CSV_T_INTEGER, 3);
  if( a & 0x08 ){ sq_csv_ingest_set_reject_callback(d, on_reject, r); sq_ingest_set_row_raw(g, 1); }
  while( rc!=SQ_INGEST_ERROR && pos<n ){
    size_t k = cut ? (size_t)(a + doc[pos] + pos) % 11 + 1 : n-pos;
    if( k>n-pos ) k = n-pos;
    rc = sq_csv_ingest_feed(d, doc+pos, k);
    if( rc==SQ_INGEST_PAUSED ){
      size_t used = sq_csv_ingest_consumed(d);
      if( used>k ) abort();
      pos += used;
    }else{
      pos += k;
    }
  }
  if( rc!=SQ_INGEST_ERROR ) rc = sq_csv_ingest_finish(d);
  rec_add(r, &rc, sizeof rc);
  e = sq_csv_ingest_error_info(d);
  rec_add(r, &e->code, sizeof e->code);
  if( e->code ){
    char *t = sq_csv_ingest_error_text(d);
    if( !t ) abort();
    rec_add(r, t, strlen(t));
    sqlite3_free(t);
    rec_add(r, &e->line, sizeof e->line);
    rec_add(r, &e->offset, sizeof e->offset);
  }
  sq_csv_ingest_free(d);
  sq_ingest_free(g);
}

/* Type inference (sq_csv_infer) over the first 1..8 records, rejecting
** records when the driver does (a & 0x08: sq_csv_infer_skip_bad): names,
** types, the records counted or the error, whole and cut alike. */
static void infer(Rec *r, const uint8_t *doc, size_t n, uint8_t a, uint8_t b, int cut){
  sq_csv_options o;
  sq_csv_infer *f;
  size_t pos = 0;
  int rc = SQ_INGEST_OK, i;
  driver_options(&o, a, b);
  f = sq_csv_infer_new(&o, 1 + ((b>>2) & 7));
  if( !f ) return;
  if( a & 0x08 ) sq_csv_infer_skip_bad(f);
  while( rc==SQ_INGEST_OK && pos<n ){
    size_t k = cut ? (size_t)(a + doc[pos] + pos) % 11 + 1 : n-pos;
    if( k>n-pos ) k = n-pos;
    rc = sq_csv_infer_feed(f, doc+pos, k);
    pos += k;
  }
  if( rc!=SQ_INGEST_ERROR ) rc = sq_csv_infer_finish(f);
  rec_add(r, &rc, sizeof rc);
  if( rc==SQ_INGEST_ERROR ){
    const sq_csv_ingest_error *e = sq_csv_infer_error(f);
    rec_add(r, &e->code, sizeof e->code);
    rec_add(r, &e->line, sizeof e->line);
    rec_add(r, &e->offset, sizeof e->offset);
    if( e->message ) rec_add(r, e->message, strlen(e->message));
  }else{
    int64_t k = sq_csv_infer_records(f);
    rec_add(r, &k, sizeof k);
    for(i=0; i<sq_csv_infer_count(f); i++){
      const char *name = sq_csv_infer_name(f, i);
      int t = sq_csv_infer_type(f, i);
      if( name ) rec_add(r, name, strlen(name)+1);
      rec_add(r, &t, sizeof t);
    }
  }
  sq_csv_infer_free(f);
}

/* run (drive, infer) on the whole input and cut: the same record. */
static void whole_and_cut(void (*run)(Rec*, const uint8_t*, size_t, uint8_t, uint8_t, int),
                          const uint8_t *doc, size_t n, uint8_t a, uint8_t b){
  Rec whole, cut;
  memset(&whole, 0, sizeof whole);
  memset(&cut, 0, sizeof cut);
  run(&whole, doc, n, a, b, 0);
  run(&cut, doc, n, a, b, 1);
  if( whole.n!=cut.n || memcmp(whole.b, cut.b, whole.n)!=0 ) abort();
  free(whole.b);
  free(cut.b);
}

/* sq_number_text against strtod/strtoll (the C locale). */
static void number_oracle(const uint8_t *data, size_t size){
  char buf[80];
  sq_number v;
  double d;
  int k;
  if( size>=sizeof buf ) return;
  k = sq_number_text((const char*)data, size, &v);
  if( k==SQ_NUMBER_NOT ) return;
  if( memchr(data, 0, size) ) abort();           /* a NUL is never a number */
  memcpy(buf, data, size);
  buf[size] = 0;
  d = strtod(buf, 0);
  switch( k ){
    case SQ_NUMBER_INTEGER: if( v.i!=strtoll(buf, 0, 10) || v.r!=(double)v.i ) abort(); break;
    case SQ_NUMBER_REAL:    if( memcmp(&d, &v.r, sizeof d)!=0 || (d==0.0 && signbit(d)) ) abort(); break;
    case SQ_NUMBER_INFINITE: if( isfinite(d) ) abort(); break;
    case SQ_NUMBER_TINY:    if( d!=0.0 ) abort(); break;
    case SQ_NUMBER_NEG_ZERO: if( d!=0.0 || !signbit(d) ) abort(); break;
    default: abort();
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size){
  Rec whole, cut;
  sq_csv_parser *p;
  int rc;
  size_t pos = 0;
  const uint8_t *doc;
  size_t n;
  uint8_t a = 0, b = 0;
  number_oracle(data, size);
  if( size>=2 ){ a = data[0]; b = data[1]; doc = data+2; n = size-2; }
  else{ doc = data; n = size; }

  memset(&whole, 0, sizeof whole);
  whole.doc = doc; whole.ndoc = n;
  p = make(&whole, a, b);
  if( !p ) return 0;
  rc = sq_csv_feed(p, doc, n);
  if( rc==SQ_CSV_PAUSED ) abort();
  finish_rec(&whole, p, rc);
  sq_csv_free(p);

  memset(&cut, 0, sizeof cut);
  cut.doc = doc; cut.ndoc = n; cut.pause = 1;
  p = make(&cut, a, b);
  if( !p ){ free(whole.b); return 0; }
  rc = SQ_CSV_OK;
  while( rc!=SQ_CSV_ERROR && pos<n ){
    size_t k = (size_t)(a + b + doc[pos] + pos) % 13 + 1;
    if( k>n-pos ) k = n-pos;
    rc = feed_all(p, doc+pos, k);
    pos += k;
  }
  finish_rec(&cut, p, rc);
  sq_csv_free(p);

  if( whole.n!=cut.n || memcmp(whole.b, cut.b, whole.n)!=0 ) abort();
  free(whole.b);
  free(cut.b);

  whole_and_cut(drive, doc, n, a, b);
  whole_and_cut(infer, doc, n, a, b);
  return 0;
}
