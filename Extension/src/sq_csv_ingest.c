/*
** sq_csv_ingest.c — CSV as the second format of the ingest core: header
** names, type inference and the driver from reader events to the core's
** format events (sq_csv_ingest.h is the manual).
*/
#include "sq_internal.h"
#include "sq_csv_ingest.h"
#include "sq_json.h"
#include "sq_number.h"
#include "sq_date.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* ------------------------------------------------------------ options */

void sq_csv_options_init(sq_csv_options *o){
  memset(o, 0, sizeof(*o));
  o->header = 1;
  o->delimiter = ',';
  o->quote = '"';
}

int sq_csv_options_apply(sq_csv_parser *p, const sq_csv_options *o, const char **why){
  unsigned opts = 0;
  *why = 0;
  if( o->quote!=0 && sq_csv_set_quote(p, 0) ){ *why = "bad quote"; return 1; }
  if( sq_csv_set_delimiter(p, o->delimiter) ){
    *why = "the delimiter must be one ASCII character other than a line end or the quote";
    return 1;
  }
  if( sq_csv_set_quote(p, o->quote) ){
    *why = "the quote must be one ASCII character other than a line end or the delimiter";
    return 1;
  }
  if( o->header ) opts |= SQ_CSV_OPT_HEADER;
  if( o->empty_string ) opts |= SQ_CSV_OPT_EMPTY_STRING;
  if( o->pad_short ) opts |= SQ_CSV_OPT_PAD_SHORT;
  sq_csv_set_options(p, opts);
  if( sq_csv_set_null(p, o->null_text, o->null_len) ) return 2;
  sq_csv_set_max_field(p, o->max_field ? o->max_field : SQ_CSV_DEFAULT_MAX_FIELD);
  return 0;
}

/* ------------------------------------------------------------ values */

/* An integer whose double is itself (REAL holds it unchanged). */
static int int_is_double(int64_t i){
  double d = (double)i;
  if( d>=9223372036854775808.0 ) return 0;       /* 2^63: no int64 */
  return (int64_t)d==i;
}

/* An integer text beyond 64 bits whose double is that integer exactly. */
static int big_int_is_double(const char *s, size_t n, double d){
  char buf[400];
  int k;
  if( !isfinite(d) || n>=sizeof buf ) return 0;
  k = snprintf(buf, sizeof buf, "%.0f", d);
  return k>0 && (size_t)k==n && memcmp(buf, s, n)==0;
}

/* Which inferred types a value fits, by the one number rule (sq_number.h):
** INTEGER when it is an integer written canonically (02134 is not: ZIP
** codes stay TEXT); REAL when it is a decimal number (a fraction or an
** exponent) whose double is finite and normal (or zero for a zero): the
** nearest double, whatever the number of digits (a double written with 17
** significant digits is that double again; SQLite's REAL affinity, DuckDB
** and Python's float() read it so), or an integer a double holds exactly
** (any up to 2^53; past it only those the double does not change) — not
** beyond the range of a double, not a subnormal, not a negative zero.  The typed table and importCSV call this
** once per value of an inferred INTEGER/REAL column. */
unsigned sq_csv_value_fits(const char *s, size_t n){
  unsigned r = 1u<<SQ_CSV_T_TEXT;
  sq_number v;
  int k;
  if( sq_number_small_integer(s, n, &v.i) ){
    size_t a = s[0]=='-';
    if( s[a]=='0' && n-a>1 ) return r;                 /* leading zeros */
    return r | (1u<<SQ_CSV_T_INTEGER) | (int_is_double(v.i) ? 1u<<SQ_CSV_T_REAL : 0);
  }
  if( sq_number_small_decimal(s, n, &v.r) ) return r | (1u<<SQ_CSV_T_REAL);
  if( n>=10 && s[4]=='-' && s[7]=='-' && (unsigned)(s[0]-'0')<=9 && (unsigned)(s[5]-'0')<=9 ){
    /* never a number (a number has at most one '-' after its first byte) */
    char out[SQ_DATE_TEXT_MAX];
    if( n<64 && sq_date_normalize(s, (int)n, out)>=0 ){
      /* YYYY-MM-DD is the one time value of 10 bytes starting so */
      r |= n==10 ? (1u<<SQ_CSV_T_DATE) | (1u<<SQ_CSV_T_DATETIME) : 1u<<SQ_CSV_T_DATETIME;
    }
    return r;
  }
  k = sq_number_text(s, n, &v);
  if( k==SQ_NUMBER_INTEGER && v.canonical ){
    r |= 1u<<SQ_CSV_T_INTEGER;
    if( int_is_double(v.i) ) r |= 1u<<SQ_CSV_T_REAL;
  }else if( k==SQ_NUMBER_REAL && (v.r==0.0 || fabs(v.r)>=DBL_MIN) ){
    if( memchr(s, '.', n) || memchr(s, 'e', n) || memchr(s, 'E', n) || big_int_is_double(s, n, v.r) ){
      r |= 1u<<SQ_CSV_T_REAL;
    }
  }
  return r;
}

const char *sq_csv_type_name(int t){
  switch( t ){
    case SQ_CSV_T_INTEGER:  return "INTEGER";
    case SQ_CSV_T_REAL:     return "REAL";
    case SQ_CSV_T_DATE:     return "DATE";
    case SQ_CSV_T_DATETIME: return "DATETIME";
    default:                return "TEXT";
  }
}

/* ------------------------------------------------------------ errors */

char *sq_csv_error_text(const sq_csv_ingest_error *e){
  sqlite3_str *s = sqlite3_str_new(0);
  const char *sep = "";
  if( e->line>0 ){
    sqlite3_str_appendf(s, "line %llu, byte %llu", (unsigned long long)e->line,
                        (unsigned long long)e->offset);
    sep = ", ";
  }
  if( e->field>=0 ){
    sqlite3_str_appendf(s, "%sfield %lld", sep, (long long)e->field+1);
    if( e->name ){
      sqlite3_str_appendall(s, " (");
      sq_str_value(s, e->name, (sqlite3_int64)strlen(e->name), 0);
      sqlite3_str_appendall(s, ")");
    }
    sep = ", ";
  }
  if( *sep ) sqlite3_str_appendall(s, ": ");
  sqlite3_str_appendall(s, e->message ? e->message : "");
  return sqlite3_str_finish(s);
}

/* An error owned by an infer/driver object: the message is kept in `own`. */
typedef struct OwnError {
  sq_csv_ingest_error e;
  char *msg;
} OwnError;

static void own_clear(OwnError *o){
  sqlite3_free(o->msg);
  memset(o, 0, sizeof(*o));
  o->e.message = "";
  o->e.record = -1;
  o->e.field = -1;
}

/* Sets the error (the first one stays): msg is copied. */
static void own_set(OwnError *o, int code, int detail, const char *msg, uint64_t line,
                    uint64_t off, uint64_t col, int64_t record, int64_t field, const char *name){
  if( o->e.code ) return;
  o->e.code = code;
  o->e.detail = detail;
  sqlite3_free(o->msg);
  o->msg = sqlite3_mprintf("%s", msg ? msg : "");
  o->e.message = o->msg ? o->msg : "out of memory";
  o->e.line = line;
  o->e.offset = off;
  o->e.column = col;
  o->e.record = record;
  o->e.field = field;
  o->e.name = name;
}

/* ------------------------------------------------------------ header names */

struct sq_csv_names {
  int n, cap;
  char **z;
  size_t *len;
  unsigned char *gen;          /* 1: a name made for an empty header name */
};

sq_csv_names *sq_csv_names_new(void){
  sq_csv_names *h = sqlite3_malloc(sizeof(*h));
  if( h ) memset(h, 0, sizeof(*h));
  return h;
}

void sq_csv_names_clear(sq_csv_names *h){
  int i;
  for(i=0; i<h->n; i++) sqlite3_free(h->z[i]);
  h->n = 0;
}

void sq_csv_names_free(sq_csv_names *h){
  if( !h ) return;
  sq_csv_names_clear(h);
  sqlite3_free(h->z);
  sqlite3_free(h->len);
  sqlite3_free(h->gen);
  sqlite3_free(h);
}

static int ascii_ieq(const char *a, const char *b, size_t n){
  size_t i;
  for(i=0; i<n; i++){
    unsigned char x = (unsigned char)a[i], y = (unsigned char)b[i];
    if( x>='A' && x<='Z' ) x += 32;
    if( y>='A' && y<='Z' ) y += 32;
    if( x!=y ) return 0;
  }
  return 1;
}

/* The field (0-based) among the first h->n whose name equals z[0..n)
** ignoring ASCII case, or -1. */
static int names_find(const sq_csv_names *h, const char *z, size_t n){
  int i;
  for(i=0; i<h->n; i++){
    if( h->len[i]==n && ascii_ieq(h->z[i], z, n) ) return i;
  }
  return -1;
}

/* A name for field i whose header name is empty: cN (N = i+1), else the
** first free cN_2, cN_3, … */
static char *names_make(const sq_csv_names *h, int i){
  int k;
  for(k=1; ; k++){
    char *z = k==1 ? sqlite3_mprintf("c%d", i+1) : sqlite3_mprintf("c%d_%d", i+1, k);
    if( !z || names_find(h, z, strlen(z))<0 ) return z;
    sqlite3_free(z);
  }
}

int sq_csv_names_add(sq_csv_names *h, const sq_csv_event *e, int64_t *dup){
  char *z;
  size_t n = e->len;
  int i;
  if( h->n>=h->cap ){
    int cap = h->cap ? h->cap*2 : 16;
    char **a = sqlite3_realloc64(h->z, sizeof(char*)*(sqlite3_uint64)cap);
    size_t *l;
    unsigned char *g;
    if( !a ) return 2;
    h->z = a;
    l = sqlite3_realloc64(h->len, sizeof(size_t)*(sqlite3_uint64)cap);
    if( !l ) return 2;
    h->len = l;
    g = sqlite3_realloc64(h->gen, (sqlite3_uint64)cap);
    if( !g ) return 2;
    h->gen = g;
    h->cap = cap;
  }
  i = -1;
  if( n==0 ){
    z = names_make(h, h->n);
    if( !z ) return 2;
    h->gen[h->n] = 1;
    n = strlen(z);
  }else{
    if( memchr(e->text, 0, n) ){ *dup = -1; return 1; }
    i = names_find(h, e->text, n);
    if( i>=0 && !h->gen[i] ){ *dup = i; return 1; }
    z = sqlite3_malloc64((sqlite3_uint64)n+1);
    if( !z ) return 2;
    memcpy(z, e->text, n);
    z[n] = 0;
    h->gen[h->n] = 0;
  }
  h->z[h->n] = z;
  h->len[h->n] = n;
  h->n++;
  if( i>=0 ){
    /* a name made for an empty header name gives way to the header's own */
    char *w;
    h->len[i] = 0;             /* (not found while a new one is made) */
    w = names_make(h, i);
    if( !w ){ h->len[i] = strlen(h->z[i]); return 2; }
    sqlite3_free(h->z[i]);
    h->z[i] = w;
    h->len[i] = strlen(w);
  }
  return 0;
}

int sq_csv_names_count(const sq_csv_names *h){ return h->n; }

const char *sq_csv_names_get(const sq_csv_names *h, int i, size_t *len){
  if( i<0 || i>=h->n ){ if( len ) *len = 0; return 0; }
  if( len ) *len = h->len[i];
  return h->z[i];
}

void sq_csv_names_error(const sq_csv_names *h, const sq_csv_event *e, int64_t dup,
                        sq_csv_ingest_error *err, char *buf, size_t nbuf){
  sqlite3_str *s = sqlite3_str_new(0);
  char *m;
  sqlite3_str_appendall(s, "header name ");
  sq_str_value(s, e->text ? e->text : "", (sqlite3_int64)e->len, 1);
  if( dup<0 ){
    sqlite3_str_appendall(s, " holds a NUL byte, which no column name can");
  }else{
    sqlite3_str_appendf(s, " repeats field %lld (", (long long)dup+1);
    sq_str_value(s, h->z[dup], (sqlite3_int64)h->len[dup], 1);
    sqlite3_str_appendall(s, "): header names must differ, also ignoring case");
  }
  m = sqlite3_str_finish(s);
  sqlite3_snprintf((int)nbuf, buf, "%s", m ? m : "bad header name");
  sqlite3_free(m);
  memset(err, 0, sizeof(*err));
  err->code = SQ_CSV_IE_HEADER;
  err->message = buf;
  err->line = e->line;
  err->offset = e->offset;
  err->column = e->column;
  err->record = -1;
  err->field = (int64_t)e->field;
  err->name = 0;
}

/* The reader's error as an sq_csv_ingest_error (message pointing into the
** reader); `header`: record 0 is the header; names: for the field name. */
static void reader_error(const sq_csv_parser *p, int header, const sq_csv_names *names,
                         sq_csv_ingest_error *out){
  const sq_csv_error *r = sq_csv_error_info(p);
  memset(out, 0, sizeof(*out));
  out->code = r->code==SQ_CSV_E_NOMEM ? SQ_CSV_IE_NOMEM : SQ_CSV_IE_CSV;
  out->detail = r->code;
  out->message = r->message;
  out->line = r->line;
  out->offset = r->offset;
  out->column = r->column;
  out->record = header ? (int64_t)r->record - 1 : (int64_t)r->record;
  out->field = (int64_t)r->field;
  out->name = (names && !(header && r->record==0)) ? sq_csv_names_get(names, (int)r->field, 0) : 0;
}

/* ------------------------------------------------------------ inference */

/* pend: the current record's value (bit 0: one was there; the bits of
** sq_csv_value_fits), merged when the record ends whole (not ragged). */
typedef struct InferCol { int any; unsigned fits, pend; } InferCol;   /* fits: of every value so far */

struct sq_csv_infer {
  sq_csv_options o;
  sq_csv_parser *p;
  sq_csv_names *names;
  int max_records;
  int64_t records;
  int ncol, cap;
  InferCol *cols;
  char **gen;                  /* generated names (no header) */
  int done;
  int cut;                     /* stopped at SQ_CSV_INFER_MAX_BYTES */
  uint64_t bytes;              /* bytes fed */
  const char *bad;             /* bad option */
  OwnError err;
  char dupbuf[512];
};

static int infer_event(void *u, const sq_csv_event *e){
  sq_csv_infer *f = (sq_csv_infer*)u;
  if( e->type==SQ_CSV_FIELD ){
    if( e->flags & SQ_CSV_F_HEADER ){
      int64_t dup = -1;
      int rc = sq_csv_names_add(f->names, e, &dup);
      if( rc==1 ){
        sq_csv_ingest_error x;
        sq_csv_names_error(f->names, e, dup, &x, f->dupbuf, sizeof f->dupbuf);
        own_set(&f->err, x.code, 0, x.message, x.line, x.offset, x.column, -1, x.field, 0);
        return 2;
      }
      if( rc ){ own_set(&f->err, SQ_CSV_IE_NOMEM, 0, "out of memory", 0, 0, 0, -1, -1, 0); return 2; }
      return SQ_CSV_CONTINUE;
    }
    if( e->field>=(uint64_t)f->ncol ){
      int n = (int)e->field+1, i;
      if( e->field>=32767 ){
        own_set(&f->err, SQ_CSV_IE_CSV, 0, "more than 32767 fields", e->line, e->offset,
                e->column, (int64_t)f->records, (int64_t)e->field, 0);
        return 2;
      }
      if( n>f->cap ){
        int cap = f->cap ? f->cap*2 : 16;
        InferCol *a;
        while( cap<n ) cap *= 2;
        a = sqlite3_realloc64(f->cols, sizeof(InferCol)*(sqlite3_uint64)cap);
        if( !a ){ own_set(&f->err, SQ_CSV_IE_NOMEM, 0, "out of memory", 0, 0, 0, -1, -1, 0); return 2; }
        f->cols = a;
        f->cap = cap;
      }
      for(i=f->ncol; i<n; i++){
        InferCol *c = &f->cols[i];
        c->any = 0; c->fits = ~0u; c->pend = 0;
      }
      f->ncol = n;
    }
    f->cols[e->field].pend = (e->flags & SQ_CSV_F_NULL) ? 0 : 1u | sq_csv_value_fits(e->text, e->len);
    return SQ_CSV_CONTINUE;
  }
  if( f->o.header && e->record==0 ) return SQ_CSV_CONTINUE;
  {
    /* the record's values count when it is whole; a ragged one (only
    ** delivered with sq_csv_infer_skip_bad) is left out */
    int i, n = e->field<(uint64_t)f->ncol ? (int)e->field : f->ncol;
    for(i=0; i<n; i++){
      InferCol *c = &f->cols[i];
      unsigned fits = c->pend;
      c->pend = 0;
      if( !fits || (e->flags & SQ_CSV_F_RAGGED) ) continue;
      c->any = 1;
      c->fits &= fits;
    }
    if( e->flags & SQ_CSV_F_RAGGED ) return SQ_CSV_CONTINUE;
  }
  f->records++;
  if( f->records>=f->max_records ){ f->done = 1; return SQ_CSV_PAUSE; }
  return SQ_CSV_CONTINUE;
}

sq_csv_infer *sq_csv_infer_new(const sq_csv_options *o, int records){
  sq_csv_infer *f = sqlite3_malloc(sizeof(*f));
  if( !f ) return 0;
  memset(f, 0, sizeof(*f));
  f->o = *o;
  f->o.null_text = 0;          /* applied to the reader below; not kept */
  f->max_records = records>0 ? records : SQ_CSV_INFER_DEFAULT;
  own_clear(&f->err);
  f->p = sq_csv_new(infer_event, f);
  f->names = sq_csv_names_new();
  if( !f->p || !f->names ){ sq_csv_infer_free(f); return 0; }
  {
    int rc = sq_csv_options_apply(f->p, o, &f->bad);
    if( rc==2 ){ sq_csv_infer_free(f); return 0; }
  }
  return f;
}

void sq_csv_infer_skip_bad(sq_csv_infer *f){
  sq_csv_set_options(f->p, sq_csv_options_get(f->p) | SQ_CSV_OPT_REPORT_RAGGED);
}

void sq_csv_infer_free(sq_csv_infer *f){
  int i;
  if( !f ) return;
  sq_csv_free(f->p);
  sq_csv_names_free(f->names);
  if( f->gen ){ for(i=0; i<f->ncol; i++) sqlite3_free(f->gen[i]); sqlite3_free(f->gen); }
  sqlite3_free(f->cols);
  own_clear(&f->err);
  sqlite3_free(f);
}

static int infer_fail_reader(sq_csv_infer *f){
  if( !f->err.e.code ){
    sq_csv_ingest_error x;
    reader_error(f->p, f->o.header, f->names, &x);
    own_set(&f->err, x.code, x.detail, x.message, x.line, x.offset, x.column, x.record, x.field, x.name);
  }
  return SQ_INGEST_ERROR;
}

int sq_csv_infer_feed(sq_csv_infer *f, const void *bytes, size_t n){
  int rc;
  if( f->err.e.code ) return SQ_INGEST_ERROR;
  if( f->bad ){ own_set(&f->err, SQ_CSV_IE_OPTION, 0, f->bad, 0, 0, 0, -1, -1, 0); return SQ_INGEST_ERROR; }
  if( f->done ) return SQ_INGEST_PAUSED;
  rc = sq_csv_feed(f->p, bytes, n);
  if( rc==SQ_CSV_ERROR ) return infer_fail_reader(f);
  f->bytes += n;
  if( !f->done && f->bytes>=SQ_CSV_INFER_MAX_BYTES ){
    /* enough bytes: the records read so far decide; the one the sample
    ** cuts is not an error (the reader reads it whole later) */
    f->done = 1;
    f->cut = 1;
  }
  return f->done ? SQ_INGEST_PAUSED : SQ_INGEST_OK;
}

int sq_csv_infer_finish(sq_csv_infer *f){
  int i;
  if( f->err.e.code ) return SQ_INGEST_ERROR;
  if( f->bad ){ own_set(&f->err, SQ_CSV_IE_OPTION, 0, f->bad, 0, 0, 0, -1, -1, 0); return SQ_INGEST_ERROR; }
  if( !f->done && sq_csv_finish(f->p)==SQ_CSV_ERROR ) return infer_fail_reader(f);
  if( f->o.header ){
    if( f->cut && sq_csv_names_count(f->names)==0 ){
      own_set(&f->err, SQ_CSV_IE_HEADER, 0, "no whole header in the first 16 MiB, which type inference reads",
              0, 0, 0, -1, -1, 0);
      return SQ_INGEST_ERROR;
    }
    if( sq_csv_records(f->p)==0 && !f->cut ){
      own_set(&f->err, SQ_CSV_IE_HEADER, 0, "empty file: no header to name the columns",
              0, 0, 0, -1, -1, 0);
      return SQ_INGEST_ERROR;
    }
    /* the header decides the columns (a shorter first data record was
    ** padded or refused by the reader) */
    if( f->ncol<sq_csv_names_count(f->names) ){
      int n = sq_csv_names_count(f->names);
      InferCol *a = sqlite3_realloc64(f->cols, sizeof(InferCol)*(sqlite3_uint64)n);
      if( !a ){ own_set(&f->err, SQ_CSV_IE_NOMEM, 0, "out of memory", 0, 0, 0, -1, -1, 0); return SQ_INGEST_ERROR; }
      f->cols = a;
      for(i=f->ncol; i<n; i++){
        a[i].any = 0; a[i].fits = ~0u; a[i].pend = 0;
      }
      f->ncol = f->cap = n;
    }
  }else{
    if( f->ncol==0 ){
      own_set(&f->err, SQ_CSV_IE_HEADER, 0, "empty file: no field to make a column of",
              0, 0, 0, -1, -1, 0);
      return SQ_INGEST_ERROR;
    }
    f->gen = sqlite3_malloc64(sizeof(char*)*(sqlite3_uint64)f->ncol);
    if( !f->gen ){ own_set(&f->err, SQ_CSV_IE_NOMEM, 0, "out of memory", 0, 0, 0, -1, -1, 0); return SQ_INGEST_ERROR; }
    for(i=0; i<f->ncol; i++){
      f->gen[i] = sqlite3_mprintf("c%d", i+1);
      if( !f->gen[i] ){ own_set(&f->err, SQ_CSV_IE_NOMEM, 0, "out of memory", 0, 0, 0, -1, -1, 0); return SQ_INGEST_ERROR; }
    }
  }
  return SQ_INGEST_OK;
}

int sq_csv_infer_count(const sq_csv_infer *f){ return f->ncol; }

const char *sq_csv_infer_name(const sq_csv_infer *f, int i){
  if( i<0 || i>=f->ncol ) return 0;
  if( f->o.header ) return sq_csv_names_get(f->names, i, 0);
  return f->gen ? f->gen[i] : 0;
}

int sq_csv_type_of_fits(unsigned fits){
  static const int narrowest_first[] = { SQ_CSV_T_INTEGER, SQ_CSV_T_REAL, SQ_CSV_T_DATE, SQ_CSV_T_DATETIME };
  size_t k;
  for(k=0; k<sizeof narrowest_first/sizeof narrowest_first[0]; k++){
    if( fits & (1u<<narrowest_first[k]) ) return narrowest_first[k];
  }
  return SQ_CSV_T_TEXT;
}

int sq_csv_infer_type(const sq_csv_infer *f, int i){
  const InferCol *c;
  if( i<0 || i>=f->ncol ) return SQ_CSV_T_TEXT;
  c = &f->cols[i];
  return c->any ? sq_csv_type_of_fits(c->fits) : SQ_CSV_T_TEXT;
}

int64_t sq_csv_infer_records(const sq_csv_infer *f){ return f->records; }
const sq_csv_ingest_error *sq_csv_infer_error(const sq_csv_infer *f){ return &f->err.e; }

/* ------------------------------------------------------------ the driver */

struct sq_csv_ingest {
  sq_ingest *g;
  sq_csv_options o;
  sq_csv_parser *p;
  sq_csv_names *names;
  const char *bad;             /* bad option */
  int named;                   /* header names given to the core */
  int in_rec;
  int64_t nreq;
  unsigned char *req;          /* per field: SQ_CSV_T_* it must fit, 0: any */
  int64_t nreqcol;
  unsigned char *reqcol;       /* per column: the same (sq_csv_ingest_require) */
  int64_t ndeclcol;
  unsigned char *declcol;      /* per column: 1 when its type was declared, not inferred */
  int64_t inferred_from;
  int64_t cur_field;
  OwnError err;
  char dupbuf[512];
  /* rejecting records (sq_csv_ingest_set_reject_callback) */
  sq_ingest_reject_callback on_reject;
  void *ruser;
  int64_t bad_field;           /* the field that made the record bad, or -1 */
  uint64_t abs;                /* bytes fed and consumed so far (a BOM included) */
};

static const char *drv_name(const sq_csv_ingest *d, int64_t field){
  if( field<0 || field>INT32_MAX ) return 0;
  return sq_csv_names_get(d->names, (int)field, 0);
}

/* The core's error, with the field it concerns. */
static int drv_core_fail(sq_csv_ingest *d){
  const sq_ingest_error *x = sq_ingest_error_info(d->g);
  int64_t rec = x->record;
  own_set(&d->err, x->code==SQ_INGEST_E_NOMEM ? SQ_CSV_IE_NOMEM : SQ_CSV_IE_INGEST, x->code,
          x->message, x->line, x->offset, x->column, rec, d->cur_field, drv_name(d, d->cur_field));
  return 2;   /* abort the reader */
}

static int drv_fit_fail(sq_csv_ingest *d, const sq_csv_event *e, int type){
  sqlite3_str *s = sqlite3_str_new(0);
  char *m;
  const char *name = drv_name(d, (int64_t)e->field);
  const char *what = d->req[e->field]==SQ_CSV_T_INTEGER
                       ? "an integer written canonically (no leading zeros, no sign +, within 64 bits)"
                     : d->req[e->field]==SQ_CSV_T_REAL ? "a number a REAL holds"
                     : d->req[e->field]==SQ_CSV_T_DATE ? "a date YYYY-MM-DD"
                     : "a date or date-time starting YYYY-MM-DD";
  const int *cols = 0;
  int k, ncols = sq_ingest_field_columns(d->g, (int)e->field, &cols), declared = 0;
  for(k=0; k<ncols; k++) if( cols[k]<d->ndeclcol && d->declcol[cols[k]] ) declared = 1;
  sq_str_value(s, e->text, (sqlite3_int64)e->len, 1);
  if( declared ){
    sqlite3_str_appendf(s, " is not %s, the type %s its column was declared with",
                        what, sq_csv_type_name(d->req[e->field]));
  }else{
    sqlite3_str_appendf(s, " is not %s, and the column's type %s was inferred from the first "
                        "%lld records (declare the column's type to accept such values)",
                        what, sq_csv_type_name(d->req[e->field]), (long long)d->inferred_from);
  }
  m = sqlite3_str_finish(s);
  if( d->on_reject && m ){
    sq_ingest_pos pos;
    pos.offset = e->offset; pos.line = e->line; pos.column = e->column;
    d->bad_field = (int64_t)e->field;
    sq_ingest_reject_record(d->g, SQ_INGEST_E_STRICT, m, &pos);
    sqlite3_free(m);
    return sq_ingest_error_info(d->g)->code ? drv_core_fail(d) : SQ_CSV_CONTINUE;
  }
  own_set(&d->err, SQ_CSV_IE_FIT, 0, m ? m : "out of memory", e->line, e->offset, e->column,
          sq_ingest_records(d->g), (int64_t)e->field, name);
  sqlite3_free(m);
  (void)type;
  return 2;
}

/* The named fields' requirements: each field must fit what its columns
** require (the header's order may differ from the columns'). */
static int drv_field_requirements(sq_csv_ingest *d, int nfield){
  int i, k;
  unsigned char *a = sqlite3_realloc64(d->req, (sqlite3_uint64)(nfield>0 ? nfield : 1));
  if( !a ) return 1;
  d->req = a;
  d->nreq = nfield;
  for(i=0; i<nfield; i++){
    const int *cols = 0;
    int n = sq_ingest_field_columns(d->g, i, &cols);
    a[i] = 0;
    for(k=0; k<n; k++){
      unsigned char r = cols[k]<d->nreqcol ? d->reqcol[cols[k]] : 0;
      if( r && (!a[i] || r==SQ_CSV_T_INTEGER) ) a[i] = r;   /* INTEGER: the strictest */
    }
  }
  return 0;
}

/* The common shapes of each type, inline; the rest by the full rule. */
static inline int fits_type(int req, const char *s, size_t n, sq_ingest_value *v){
  size_t a = n>0 && s[0]=='-';
  v->type = SQ_INGEST_V_NULL;
  switch( req ){
    case SQ_CSV_T_INTEGER:
      if( n>a && (s[a]!='0' || n==1) && sq_number_small_integer(s, n, &v->i) ){
        v->type = SQ_INGEST_V_INTEGER;
        return 1;
      }
      break;
    case SQ_CSV_T_REAL:
      /* small_decimal takes -?(0|[1-9][0-9]*)(.[0-9]+)? of at most 15 digits, not -0 */
      if( sq_number_small_decimal(s, n, &v->r) ){
        v->type = SQ_INGEST_V_REAL;
        return 1;
      }
      break;
    case SQ_CSV_T_DATE:
      if( sq_date_common_shape(s, n)==10 ) return 1;
      break;
    default:
      if( sq_date_common_shape(s, n) ) return 1;
      break;
  }
  return (sq_csv_value_fits(s, n) & (1u<<req))!=0;
}

int sq_csv_value_fits_type(int type, const char *text, size_t n, sq_ingest_value *v){
  return fits_type(type, text, n, v);
}

/* A record with a wrong field count (only reported when rejecting,
** SQ_CSV_OPT_REPORT_RAGGED): it is rejected when it ends. */
static void drv_ragged(sq_csv_ingest *d){
  const sq_csv_error *x = sq_csv_error_info(d->p);
  sq_ingest_pos at;
  if( sq_ingest_record_bad(d->g) ) return;    /* the first error stays */
  at.offset = x->offset; at.line = x->line; at.column = x->column;
  d->bad_field = (int64_t)x->field;
  sq_ingest_reject_record(d->g, SQ_INGEST_E_LAYOUT, x->message, &at);
}

/* The core's reject: the reason as an abort would have written it, the
** field's header name. */
static int drv_reject(void *u, const sq_ingest_reject *r){
  sq_csv_ingest *d = (sq_csv_ingest*)u;
  sq_csv_ingest_error x;
  sq_ingest_reject r2 = *r;
  char *text;
  int rc;
  memset(&x, 0, sizeof(x));
  x.code = SQ_CSV_IE_INGEST;
  x.detail = r->error->code;
  x.message = r->error->message;
  x.line = r->error->line;
  x.offset = r->error->offset;
  x.column = r->error->column;
  x.record = r->index;
  x.field = d->bad_field;
  x.name = drv_name(d, d->bad_field);
  text = sq_csv_error_text(&x);
  d->bad_field = -1;
  if( !text ) return SQ_INGEST_NOMEM;
  r2.reason = text;
  if( x.name ){ r2.field = x.name; r2.nfield = strlen(x.name); }
  rc = d->on_reject(d->ruser, &r2);
  sqlite3_free(text);
  return rc;
}

void sq_csv_ingest_set_reject_callback(sq_csv_ingest *d, sq_ingest_reject_callback cb, void *user){
  d->on_reject = cb;
  d->ruser = user;
  d->bad_field = -1;
  sq_ingest_set_reject_callback(d->g, cb ? drv_reject : 0, d);
  sq_csv_set_options(d->p, cb ? (sq_csv_options_get(d->p) | SQ_CSV_OPT_REPORT_RAGGED)
                              : (sq_csv_options_get(d->p) & ~SQ_CSV_OPT_REPORT_RAGGED));
}

static int drv_event(void *u, const sq_csv_event *e){
  sq_csv_ingest *d = (sq_csv_ingest*)u;
  sq_ingest_pos pos;
  int rc;
  pos.offset = e->offset;
  pos.line = e->line;
  pos.column = e->column;
  if( e->type==SQ_CSV_FIELD ){
    if( e->flags & SQ_CSV_F_HEADER ){
      int64_t dup = -1;
      rc = sq_csv_names_add(d->names, e, &dup);
      if( rc==1 ){
        sq_csv_ingest_error x;
        sq_csv_names_error(d->names, e, dup, &x, d->dupbuf, sizeof d->dupbuf);
        own_set(&d->err, x.code, 0, x.message, x.line, x.offset, x.column, -1, x.field, 0);
        return 2;
      }
      if( rc ){ own_set(&d->err, SQ_CSV_IE_NOMEM, 0, "out of memory", 0, 0, 0, -1, -1, 0); return 2; }
      return SQ_CSV_CONTINUE;
    }
    if( !d->in_rec ){
      if( sq_ingest_begin_record(d->g, &pos)!=SQ_INGEST_OK ){ d->cur_field = -1; return drv_core_fail(d); }
      d->in_rec = 1;
    }
    d->cur_field = (int64_t)e->field;
    if( e->field>(uint64_t)INT32_MAX ) return SQ_CSV_CONTINUE;
    rc = -1;
    if( (int64_t)e->field<d->nreq && d->req[e->field] && !(e->flags & SQ_CSV_F_NULL) ){
      sq_ingest_value v;
      if( !fits_type(d->req[e->field], e->text, e->len, &v) ){
        if( d->on_reject && sq_ingest_record_bad(d->g) ) return SQ_CSV_CONTINUE;
        return drv_fit_fail(d, e, d->req[e->field]);
      }
      if( v.type!=SQ_INGEST_V_NULL ){
        rc = sq_ingest_field_number(d->g, (int)e->field, e->text, e->len, &v, &pos);
      }
    }
    if( rc<0 ){
      rc = sq_ingest_field_text(d->g, (int)e->field,
                                (e->flags & SQ_CSV_F_NULL) ? 0 : e->text ? e->text : "", e->len, &pos);
    }
    if( rc!=SQ_INGEST_OK ){
      if( d->on_reject && !sq_ingest_error_info(d->g)->code ){
        if( d->bad_field<0 ) d->bad_field = d->cur_field;
        return SQ_CSV_CONTINUE;     /* the record is skipped (sq_ingest_record_bad) */
      }
      return drv_core_fail(d);
    }
    return SQ_CSV_CONTINUE;
  }
  /* the end of a record */
  if( !d->named ){
    if( d->o.header ){
      int i, n = sq_csv_names_count(d->names);
      for(i=0; i<n; i++){
        size_t len;
        const char *z = sq_csv_names_get(d->names, i, &len);
        if( sq_ingest_name_field(d->g, i, z, (int)len)!=SQ_INGEST_OK ){ d->cur_field = i; return drv_core_fail(d); }
      }
      if( d->nreqcol>0 && drv_field_requirements(d, n) ){
        own_set(&d->err, SQ_CSV_IE_NOMEM, 0, "out of memory", 0, 0, 0, -1, -1, 0);
        return 2;
      }
    }
    d->named = 1;
    if( d->o.header && e->record==0 ) return SQ_CSV_CONTINUE;
  }
  if( !d->in_rec ) return SQ_CSV_CONTINUE;   /* (a record without fields: none is delivered) */
  d->in_rec = 0;
  d->cur_field = -1;
  if( e->flags & SQ_CSV_F_RAGGED ) drv_ragged(d);
  pos.offset = e->end_offset;     /* (a rejected record's raw text ends there) */
  rc = sq_ingest_end_record(d->g, &pos);
  if( rc==SQ_INGEST_PAUSED ) return SQ_CSV_PAUSE;
  if( rc!=SQ_INGEST_OK ) return drv_core_fail(d);
  return SQ_CSV_CONTINUE;
}

sq_csv_ingest *sq_csv_ingest_new(sq_ingest *g, const sq_csv_options *o){
  sq_csv_ingest *d = sqlite3_malloc(sizeof(*d));
  if( !d ) return 0;
  memset(d, 0, sizeof(*d));
  d->g = g;
  d->o = *o;
  d->o.null_text = 0;
  d->cur_field = -1;
  own_clear(&d->err);
  d->p = sq_csv_new(drv_event, d);
  d->names = sq_csv_names_new();
  if( !d->p || !d->names ){ sq_csv_ingest_free(d); return 0; }
  if( sq_csv_options_apply(d->p, o, &d->bad)==2 ){ sq_csv_ingest_free(d); return 0; }
  return d;
}

void sq_csv_ingest_free(sq_csv_ingest *d){
  if( !d ) return;
  sq_csv_free(d->p);
  sq_csv_names_free(d->names);
  sqlite3_free(d->req);
  sqlite3_free(d->reqcol);
  sqlite3_free(d->declcol);
  own_clear(&d->err);
  sqlite3_free(d);
}

void sq_csv_ingest_reset(sq_csv_ingest *d){
  sq_csv_reset(d->p);
  sq_csv_names_clear(d->names);
  sq_ingest_reset(d->g);
  d->named = 0;
  d->in_rec = 0;
  d->cur_field = -1;
  d->bad_field = -1;
  d->abs = 0;
  own_clear(&d->err);
}

/* a[0..*n) grown to at least k+1 bytes, the new ones 0; 1 when out of memory. */
static int req_grow(unsigned char **a, int64_t *n, int k){
  unsigned char *b;
  if( k<*n ) return 0;
  b = sqlite3_realloc64(*a, (sqlite3_uint64)k+1);
  if( !b ) return 1;
  memset(b+*n, 0, (size_t)(k+1-*n));
  *a = b;
  *n = k+1;
  return 0;
}

int sq_csv_ingest_require(sq_csv_ingest *d, int column, int type, int64_t inferred_from){
  unsigned char t = (unsigned char)(type==SQ_CSV_T_TEXT ? 0 : type);
  if( column<0 || column>32767 ) return SQ_INGEST_ERROR;
  /* by position until a header names the fields (drv_field_requirements) */
  if( req_grow(&d->reqcol, &d->nreqcol, column) || req_grow(&d->req, &d->nreq, column) ) return SQ_INGEST_ERROR;
  d->reqcol[column] = t;
  d->req[column] = t;
  if( inferred_from<0 ){
    if( req_grow(&d->declcol, &d->ndeclcol, column) ) return SQ_INGEST_ERROR;
    d->declcol[column] = 1;
  }else{
    d->inferred_from = inferred_from;
  }
  return SQ_INGEST_OK;
}

static int drv_fail_reader(sq_csv_ingest *d){
  if( !d->err.e.code ){
    sq_csv_ingest_error x;
    reader_error(d->p, d->o.header, d->names, &x);
    own_set(&d->err, x.code, x.detail, x.message, x.line, x.offset, x.column, x.record, x.field, x.name);
  }
  return SQ_INGEST_ERROR;
}

int sq_csv_ingest_feed(sq_csv_ingest *d, const void *bytes, size_t n){
  int rc;
  if( d->err.e.code ) return SQ_INGEST_ERROR;
  if( d->bad ){ own_set(&d->err, SQ_CSV_IE_OPTION, 0, d->bad, 0, 0, 0, -1, -1, 0); return SQ_INGEST_ERROR; }
  if( d->on_reject ){
    /* (the reader's offset stays at 0 while a BOM is being matched: count here) */
    sq_ingest_raw_chunk(d->g, bytes, n, d->abs);
    rc = sq_csv_feed(d->p, bytes, n);
    d->abs += sq_csv_consumed(d->p);
    sq_ingest_raw_keep(d->g, sq_csv_consumed(d->p), sq_csv_record_start(d->p));
  }else{
    rc = sq_csv_feed(d->p, bytes, n);
  }
  if( rc==SQ_CSV_ERROR ) return drv_fail_reader(d);
  return rc==SQ_CSV_PAUSED ? SQ_INGEST_PAUSED : SQ_INGEST_OK;
}

size_t sq_csv_ingest_consumed(const sq_csv_ingest *d){ return sq_csv_consumed(d->p); }

int sq_csv_ingest_finish(sq_csv_ingest *d){
  if( d->err.e.code ) return SQ_INGEST_ERROR;
  if( d->bad ){ own_set(&d->err, SQ_CSV_IE_OPTION, 0, d->bad, 0, 0, 0, -1, -1, 0); return SQ_INGEST_ERROR; }
  if( sq_csv_finish(d->p)==SQ_CSV_ERROR ) return drv_fail_reader(d);
  if( d->o.header && sq_csv_records(d->p)==0 ){
    own_set(&d->err, SQ_CSV_IE_HEADER, 0, "empty file: no header", 0, 0, 0, -1, -1, 0);
    return SQ_INGEST_ERROR;
  }
  return SQ_INGEST_OK;
}

uint64_t sq_csv_ingest_offset(const sq_csv_ingest *d){ return sq_csv_offset(d->p); }
int64_t sq_csv_ingest_records(const sq_csv_ingest *d){ return sq_ingest_records(d->g); }
const sq_csv_ingest_error *sq_csv_ingest_error_info(const sq_csv_ingest *d){ return &d->err.e; }
char *sq_csv_ingest_error_text(const sq_csv_ingest *d){ return sq_csv_error_text(&d->err.e); }
