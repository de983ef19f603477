/*
** sq_ingest_internal.h — the ingest core's inside, for the format drivers
** of this directory (not installed: include/ has the public sq_ingest.h).
**
** The core's state (struct sq_ingest) and the row assembler's steps that a
** driver takes for every token of its input — a record begins, a key
** picks its columns, a scalar is coerced into them — as static inline
** functions, so that a driver calling them per token pays no call for
** them.  The public format events of sq_ingest.h are these same steps
** behind a call and the checks of the call order; a driver that calls
** per field, not per token (sq_csv_ingest.c), uses those.  The slow and
** rare paths (errors, the end of a record, preparing the columns) are
** functions of sq_ingest.c, declared here as sq_ing_*.
**
** A driver that keeps its own state with the core (sq_json_ingest.c: its
** parser, layout and path, reached through the public sq_ingest handle)
** puts it in the core's driver slot: drv, and drv_ops, the calls by which
** the core tells it of a reset, a changed option, the core's end, and
** asks it where the input is (SQ_ING_AT).
*/
#ifndef SQ_INGEST_INTERNAL_H
#define SQ_INGEST_INTERNAL_H

#include "sq_internal.h"
#include "sq_ingest.h"
#include "sq_date.h"
#include "sq_number.h"

#include <string.h>

#if defined(__GNUC__) || defined(__clang__)
# define ING_INLINE static inline __attribute__((always_inline))
# define ING_NOINLINE __attribute__((noinline))
# define ING_UNLIKELY(x) __builtin_expect(!!(x), 0)
#else
# define ING_INLINE static inline
# define ING_NOINLINE
# define ING_UNLIKELY(x) (x)
#endif

#define ING_KEY_CACHE      256    /* key positions cached per record */
#define ING_KEY_CACHE_LEN  256    /* longest key cached */

/* ------------------------------------------------------------ buffers */

typedef sq_ingest_buf IngBuf;   /* sq_ingest.h */

/* Makes room for `add` more bytes: 0 on success; 1 over `max`; 2 out of
** memory. */
int sq_ing_buf_grow(IngBuf *b, int64_t add, int64_t max);
/* Appends s[0..len) to b; sets rc as sq_ing_buf_grow when it fails. */
#define INGBUF_PUT(b, s, len, max, rc) do{ if( (len)>0 ){ \
  if( (b)->n + (int64_t)(len) <= (b)->cap || ((rc) = sq_ing_buf_grow((b), (int64_t)(len), (max)))==0 ){ \
    memcpy((b)->z + (b)->n, (s), (len)); (b)->n += (int64_t)(len); } } }while(0)

/* ------------------------------------------------------------ state */

typedef struct IngCol {
  char *name;
  int nname;
  int aff;
  int is_date;
  unsigned flags;
  int mapped;         /* a mapping names this column: its own name is no key */
} IngCol;

typedef struct IngMap { char *key; int nkey; int col; } IngMap;

/* A distinct configured key and the columns it feeds (tcols[start..+n)). */
typedef struct IngTarget { const char *key; int nkey; int start, n; } IngTarget;

typedef struct IngKeyCache { char *key; int n, cap; int target; } IngKeyCache;

/* The calls of a driver that keeps its state in the core's slot (drv). */
typedef struct sq_ing_driver {
  /* Where the input is (the token being handled): 1 and *pos, or 0. */
  int (*position)(const sq_ingest *g, sq_ingest_pos *pos);
  void (*reset)(sq_ingest *g);      /* sq_ingest_reset, after the core's reset */
  void (*options)(sq_ingest *g);    /* the record limit or the reject callback changed */
  void (*destroy)(sq_ingest *g);    /* sq_ingest_free: frees drv */
} sq_ing_driver;

struct sq_ingest {
  sq_ingest_row_callback on_row;
  void *user;
  /* configuration */
  IngCol *cols; int ncol;
  IngMap *maps; int nmap;
  char **fnames; int *fnlen; int *ftarget; int nfield;   /* named fields (CSV headers) */
  int *fcol;                  /* per named field: its one column once resolved, else -1 (the plan) */
  int strict, whole;
  int strict_values;              /* lossy values are refused (strict, or SQ_INGEST_STRICT_VALUES) */
  int64_t max_rec;
  /* prepared */
  int prepared;
  IngTarget *targets; int ntarget;
  int *tcols;                 /* columns of the targets */
  int *ident;                 /* ident[i] = i: field i by position */
  sq_ingest_value *slots;     /* the row's values; TEXT/JSON: offset in .i until the record ends */
  int64_t *seen;              /* per column: record+1 that set it */
  int *seen_pos;              /* per column: the cache position of the key that set it, or -1 */
  int *seen_fld;              /* per column: the named field that set it, or -1 */
  int64_t *seen_koff, *seen_klen;   /* per column, for -1: that key in the arena */
  unsigned char *named0;      /* per column: the first record named it */
  unsigned char *omitted;     /* per column: left out (DEFAULT) */
  /* records */
  IngBuf arena;               /* TEXT/JSON bytes of the current record */
  int in_record;
  int in_records;             /* the driver is in the part of its input that holds the
                              ** records: an error between two is the next record's */
  int64_t nrec;               /* records completed */
  sq_ingest_pos rec_pos;
  int field_pos;              /* fields seen in the record */
  const int *cur;             /* the current field's columns (cur[0..ncur)) */
  int ncur;
  int have_field;
  const char *cur_key; size_t cur_nkey;   /* the current field's key (for errors) */
  int cur_pos;                /* its position in the key cache, or -1 */
  int cur_fld;                /* the current field's index when it is a named field, or -1 */
  IngBuf keybuf;              /* an uncached key */
  IngKeyCache cache[ING_KEY_CACHE];
  int ncache;
  /* the driver slot */
  void *drv;
  const sq_ing_driver *drv_ops;
  /* error */
  sq_ingest_error err;
  char *errmsg;
  char *errkey;
  /* rejecting records (sq_ingest_set_reject_callback) */
  sq_ingest_reject_callback on_reject;
  void *ruser;
  int rec_bad;                /* the current record is being skipped (in_record is 0) */
  int64_t nrow;               /* records given to on_row */
  int64_t nrej;               /* records rejected */
  sq_ingest_error rej;        /* why the current record is skipped */
  char *rejmsg, *rejkey;
  sq_ingest_rawtext raw;      /* the bytes of the record in progress, for a reject's raw text */
  int row_raw;                /* rows carry their raw text too (sq_ingest_set_row_raw) */
  sq_ingest_row row;          /* the row given to on_row (its raw text 0 unless row_raw) */
};

/* A position meaning "where the driver is" (drv_ops->position, asked only
** when an error needs it): a driver's per-token path passes it instead of
** copying each token's position. */
extern const sq_ingest_pos sq_ing_at_driver;
#define SQ_ING_AT (&sq_ing_at_driver)

/* ------------------------------------------------------------ the core's functions */

/* Prepares the columns and key targets on first input (then the
** configuration is closed).  SQ_INGEST_OK or SQ_INGEST_ERROR. */
int sq_ing_prepare(sq_ingest *g);
/* 1 (and an error) when the configuration can no longer change. */
int sq_ing_config_closed(sq_ingest *g, const char *what);
/* Errors: the first stays; a record error with a reject callback marks
** the record bad instead (sq_ing_mark_bad).  All return SQ_INGEST_ERROR. */
int sq_ing_fail_pos(sq_ingest *g, int code, const sq_ingest_pos *pos,
                    const char *key, size_t nkey, const char *fmt, ...);
int sq_ing_nomem(sq_ingest *g);
/* A failed buffer write (rc 1: too big, 2: out of memory). */
int sq_ing_buf_fail(sq_ingest *g, int rc, const sq_ingest_pos *pos);
int sq_ing_fail_twice(sq_ingest *g, int c, const sq_ingest_pos *pos);
int sq_ing_fail_col(sq_ingest *g, const sq_ingest_pos *pos, const char *v, size_t n,
                    int quoted, const char *what, int col);
int sq_ing_fail_number(sq_ingest *g, const sq_ingest_pos *pos, const char *v, size_t n,
                       int quoted, int kind, int col);
ING_NOINLINE int sq_ing_fail_kind(sq_ingest *g, int col, int kind, const sq_ingest_pos *pos);
/* The record in progress is skipped: msg (taken) says why, at pos. */
int sq_ing_mark_bad(sq_ingest *g, int code, char *msg, const char *key, size_t nkey,
                    const sq_ingest_pos *pos);
/* The target of a key: exact, else ASCII case-insensitive (two matches:
** -2 - the first, with *other set); -1: unknown. */
int sq_ing_resolve(const sq_ingest *g, const char *k, size_t n, int *other);
/* The name of an affinity (SQ_INGEST_AFF_*), for messages. */
const char *sq_ing_aff_name(int aff);
/* The raw text of the row's record, ending at offset end (sq_ingest_set_row_raw). */
ING_NOINLINE void sq_ing_row_raw(sq_ingest *g, uint64_t end);
/* Ends the record: the row to the callback.  SQ_INGEST_OK, SQ_INGEST_PAUSED
** or SQ_INGEST_ERROR. */
int sq_ing_end(sq_ingest *g);

/* ------------------------------------------------------------ the row assembler's steps */

/* A record begins (the core is prepared). */
ING_INLINE void ing_begin(sq_ingest *g, const sq_ingest_pos *pos){
  /* no loop over the columns: a column no member filled (seen[] is not
  ** this record's) is NULL or OMITTED when the record ends */
  g->in_record = 1;
  g->rec_pos = *pos;
  g->arena.n = 0;
  g->field_pos = 0;
  g->have_field = 0;
  g->ncur = 0;
  g->cur_key = 0;
  g->cur_nkey = 0;
  g->cur_fld = -1;
}

/* The current field now feeds cur[0..ncur): checks against DEFAULT
** columns left out and against a second member for the same column (an
** error in every mode: SQLite's ->> would take the first, JavaScript the
** last — no guess), and notes which member filled each column. */
ING_INLINE int ing_take_field(sq_ingest *g, const sq_ingest_pos *pos){
  int j;
  for(j=0; j<g->ncur; j++){
    int c = g->cur[j];
    if( g->omitted[c] ){
      return sq_ing_fail_pos(g, SQ_INGEST_E_OMITTED, pos, g->cur_key, g->cur_nkey,
          "column %s has a DEFAULT and the first element has no key for it, so it is not "
          "inserted (give the key in the first element, or list the columns to insert)",
          g->cols[c].name);
    }
    if( g->seen[c]==g->nrec+1 ) return sq_ing_fail_twice(g, c, pos);
    g->seen[c] = g->nrec+1;
    g->slots[c].type = SQ_INGEST_V_NULL;     /* until its value comes */
    g->seen_pos[c] = g->cur_pos;
    g->seen_fld[c] = g->cur_fld;
    if( g->cur_pos<0 && g->cur_fld<0 && g->cur_key ){
      /* an uncached key (not a field name, which stays): kept for that message */
      int rc = 0;
      g->seen_koff[c] = g->arena.n;
      g->seen_klen[c] = (int64_t)g->cur_nkey;
      INGBUF_PUT(&g->arena, g->cur_key, g->cur_nkey, g->max_rec, rc);
      if( rc ) return sq_ing_buf_fail(g, rc, pos);
    }
    if( g->nrow==0 ) g->named0[c] = 1;
  }
  return SQ_INGEST_OK;
}

/* Equal byte strings of length n: keys of up to 16 bytes in two
** overlapping word compares, without a call (never reading outside
** a[0..n) and b[0..n)). */
ING_INLINE int ing_eq(const char *a, const char *b, size_t n){
  if( n>=8 ){
    uint64_t x0, y0, x1, y1;
    if( n>16 ) return memcmp(a, b, n)==0;
    memcpy(&x0, a, 8); memcpy(&y0, b, 8);
    memcpy(&x1, a+n-8, 8); memcpy(&y1, b+n-8, 8);
    return ((x0^y0) | (x1^y1))==0;
  }
  if( n>=4 ){
    uint32_t x0, y0, x1, y1;
    memcpy(&x0, a, 4); memcpy(&y0, b, 4);
    memcpy(&x1, a+n-4, 4); memcpy(&y1, b+n-4, 4);
    return ((x0^y0) | (x1^y1))==0;
  }
  if( n==0 ) return 1;
  return a[0]==b[0] && a[n>>1]==b[n>>1] && a[n-1]==b[n-1];
}

/* Resolves a key (through the per-position cache) into g->cur. */
ING_INLINE int ing_key(sq_ingest *g, const char *k, size_t n, const sq_ingest_pos *pos){
  int p = g->field_pos++;
  int t;
  g->have_field = 1;
  g->cur_fld = -1;
  if( p<g->ncache && (size_t)g->cache[p].n==n && ing_eq(g->cache[p].key, k, n) ){
    t = g->cache[p].target;
    g->cur_key = g->cache[p].key;
    g->cur_nkey = n;
    g->cur_pos = p;
    if( t>=0 && g->targets[t].n==1 ){
      /* the common case: a known key for one column (ing_take_field's checks) */
      int c = g->tcols[g->targets[t].start];
      g->cur = &g->tcols[g->targets[t].start];
      g->ncur = 1;
      if( g->seen[c]!=g->nrec+1 && !g->omitted[c] && g->nrow>0 ){
        g->seen[c] = g->nrec+1;
        g->slots[c].type = SQ_INGEST_V_NULL;
        g->seen_pos[c] = p;
        g->seen_fld[c] = -1;
        return SQ_INGEST_OK;
      }
      return ing_take_field(g, pos);
    }
  }else{
    int other = -1;
    t = sq_ing_resolve(g, k, n, &other);
    if( t<=-2 ){
      const IngTarget *a = &g->targets[-2 - t], *b = &g->targets[other];
      sqlite3_str *s = sqlite3_str_new(0);
      char *m;
      int rc;
      sqlite3_str_appendall(s, "key ");
      sq_str_value(s, k, (sqlite3_int64)n, 1);
      sqlite3_str_appendall(s, " matches both ");
      sq_str_value(s, a->key, a->nkey, 1);
      sqlite3_str_appendall(s, " and ");
      sq_str_value(s, b->key, b->nkey, 1);
      sqlite3_str_appendall(s, " ignoring case (map it exactly)");
      m = sqlite3_str_finish(s);
      if( !m ) return sq_ing_nomem(g);
      rc = sq_ing_fail_pos(g, SQ_INGEST_E_AMBIGUOUS, pos, k, n, "%s", m);
      sqlite3_free(m);
      return rc;
    }
    if( p<ING_KEY_CACHE && p<=g->ncache && n<=ING_KEY_CACHE_LEN ){
      IngKeyCache *c = &g->cache[p];
      if( p==g->ncache ){ memset(c, 0, sizeof(*c)); g->ncache++; }
      if( c->cap<(int)n+1 ){
        char *z = sqlite3_realloc64(c->key, (sqlite3_uint64)n+1);
        if( !z ) return sq_ing_nomem(g);
        c->key = z;
        c->cap = (int)n+1;
      }
      memcpy(c->key, k, n);
      c->n = (int)n;
      c->target = t;
      g->cur_key = c->key;
      g->cur_pos = p;
    }else{
      int rc = 0;
      g->keybuf.n = 0;
      INGBUF_PUT(&g->keybuf, k, n, (int64_t)n+1, rc);
      if( rc ) return sq_ing_nomem(g);
      g->cur_key = g->keybuf.z ? g->keybuf.z : "";
      g->cur_pos = -1;
    }
    g->cur_nkey = n;
  }
  if( t<0 ){
    g->ncur = 0;
    if( g->strict ){
      return sq_ing_fail_pos(g, SQ_INGEST_E_STRICT, pos, k, n,
          "no column for this key (strict mode: map the key to a column, or turn strict mode off)");
    }
    return SQ_INGEST_OK;
  }
  g->cur = &g->tcols[g->targets[t].start];
  g->ncur = g->targets[t].n;
  return ing_take_field(g, pos);
}

/* Exactly an int64 (no fraction, in range). */
static inline int ing_double_is_int64(double d, int64_t *out){
  if( !(d>=-9223372036854775808.0 && d<9223372036854775808.0) ) return 0;
  if( (double)(int64_t)d!=d ) return 0;
  *out = (int64_t)d;
  return 1;
}

/* A number that an INTEGER, REAL or NUMERIC column would change, whatever
** the mode: kept as text it would fare no better, since SQLite's column
** affinity turns such text into the same changed number on INSERT ('1e400'
** into a REAL column is Inf, '-0' is 0). */
#define ING_NUMBER_CHANGED(k) ((k)==SQ_NUMBER_INFINITE || (k)==SQ_NUMBER_TINY || (k)==SQ_NUMBER_NEG_ZERO)

ING_INLINE int ing_put_text(sq_ingest *g, sq_ingest_value *sl, int type, const char *z, size_t n,
                            const sq_ingest_pos *pos){
  int rc = 0;
  sl->type = type;
  sl->i = g->arena.n;         /* the offset, until the record ends */
  sl->len = n;
  INGBUF_PUT(&g->arena, z, n, g->max_rec, rc);
  if( rc ) return sq_ing_buf_fail(g, rc, pos);
  return SQ_INGEST_OK;
}

/* Whether column col takes a value of kind `flag` (SQ_INGEST_COL_*). */
#define ING_KIND_OK(g, col, flag) \
  (!((g)->cols[col].flags & SQ_INGEST_COL_KINDS) || ((g)->cols[col].flags & (flag)))

/* Coerces one scalar into column col (the table of sq_ingest.h).
** `integer`: a NUMBER literal without fraction or exponent. */
ING_INLINE int ing_set(sq_ingest *g, int col, int kind, int integer, const char *z, size_t n,
                       const sq_ingest_pos *pos){
  sq_ingest_value *sl = &g->slots[col];
  int aff = g->cols[col].aff;
  int strict = g->strict_values;
  switch( kind ){
    case SQ_INGEST_K_NULL:
      sl->type = SQ_INGEST_V_NULL;
      return SQ_INGEST_OK;
    case SQ_INGEST_K_TRUE:
    case SQ_INGEST_K_FALSE: {
      int v = kind==SQ_INGEST_K_TRUE;
      if( aff==SQ_INGEST_AFF_REAL ){ sl->type = SQ_INGEST_V_REAL; sl->r = v; }
      else{ sl->type = SQ_INGEST_V_INTEGER; sl->i = v; }
      return SQ_INGEST_OK;
    }
    case SQ_INGEST_K_NUMBER: {
      sq_number v;
      int k;
      if( aff==SQ_INGEST_AFF_TEXT ) return ing_put_text(g, sl, SQ_INGEST_V_TEXT, z, n, pos);
      if( integer && n<=18 && !(z[0]=='-' && z[1]=='0') ){
        /* up to 18 characters of -?[1-9][0-9]* (the parser or
        ** sq_ingest_value_event checked the syntax) always fit: read here,
        ** without a call */
        size_t j = z[0]=='-';
        uint64_t u = 0;
        for(; j<n; j++) u = u*10 + (uint64_t)(z[j]-'0');
        v.i = z[0]=='-' ? -(int64_t)u : (int64_t)u;
        v.r = (double)v.i;
        k = SQ_NUMBER_INTEGER;
      }else{
        k = sq_number_text(z, n, &v);
      }
      if( k==SQ_NUMBER_INTEGER ){
        if( aff==SQ_INGEST_AFF_REAL ){ sl->type = SQ_INGEST_V_REAL; sl->r = v.r; }
        else{ sl->type = SQ_INGEST_V_INTEGER; sl->i = v.i; }
        return SQ_INGEST_OK;
      }
      if( k==SQ_NUMBER_REAL && integer && aff!=SQ_INGEST_AFF_REAL ){
        /* beyond 64 bits: the literal */
        if( strict ){
          return sq_ing_fail_col(g, pos, z, n, 0,
                              " is out of the 64-bit integer range, column %s (strict mode)", col);
        }
        return ing_put_text(g, sl, SQ_INGEST_V_TEXT, z, n, pos);
      }
      if( k==SQ_NUMBER_REAL ){
        int64_t e;
        /* an integral value written with a fraction or exponent (2.0, 1e3)
        ** is that integer when its digits are all kept (15 at most) */
        if( aff==SQ_INGEST_AFF_INTEGER && v.digits<=15 && ing_double_is_int64(v.r, &e) ){
          sl->type = SQ_INGEST_V_INTEGER;
          sl->i = e;
          return SQ_INGEST_OK;
        }
        if( !(strict && aff==SQ_INGEST_AFF_INTEGER) ){
          sl->type = SQ_INGEST_V_REAL;
          sl->r = v.r;
          return SQ_INGEST_OK;
        }
      }
      if( strict || (ING_NUMBER_CHANGED(k) && aff!=SQ_INGEST_AFF_BLOB) ){
        return sq_ing_fail_number(g, pos, z, n, 0, k, col);
      }
      return ing_put_text(g, sl, SQ_INGEST_V_TEXT, z, n, pos);
    }
    case SQ_INGEST_K_STRING: {
      if( g->cols[col].is_date ){
        char out[SQ_DATE_TEXT_MAX];
        int k = n<256 ? sq_date_normalize(z, (int)n, out) : -1;
        if( k==10 && g->cols[col].is_date==2 ){
          /* a bare date in an instant (TIME) column: its midnight, in full */
          memcpy(out+10, " 00:00:00.000", 13);
          k = 23;
        }
        if( k>=0 ) return ing_put_text(g, sl, SQ_INGEST_V_TEXT, out, (size_t)k, pos);
        if( strict ){
          return sq_ing_fail_col(g, pos, z, n, 1,
                              " is not a date or date-time, column %s is a date column (strict mode)", col);
        }
        return ing_put_text(g, sl, SQ_INGEST_V_TEXT, z, n, pos);
      }
      if( aff==SQ_INGEST_AFF_INTEGER || aff==SQ_INGEST_AFF_REAL ){
        sq_number v;
        int k;
        if( aff==SQ_INGEST_AFF_INTEGER ? sq_number_small_integer(z, n, &sl->i)
                                       : sq_number_small_decimal(z, n, &sl->r) ){
          sl->type = aff==SQ_INGEST_AFF_INTEGER ? SQ_INGEST_V_INTEGER : SQ_INGEST_V_REAL;
          return SQ_INGEST_OK;
        }
        k = sq_number_text(z, n, &v);
        if( k==SQ_NUMBER_INTEGER && aff==SQ_INGEST_AFF_INTEGER ){
          sl->type = SQ_INGEST_V_INTEGER;
          sl->i = v.i;
          return SQ_INGEST_OK;
        }
        if( (k==SQ_NUMBER_INTEGER || k==SQ_NUMBER_REAL) && aff==SQ_INGEST_AFF_REAL ){
          sl->type = SQ_INGEST_V_REAL;
          sl->r = v.r;
          return SQ_INGEST_OK;
        }
        if( strict || ING_NUMBER_CHANGED(k) ) return sq_ing_fail_number(g, pos, z, n, 1, k, col);
      }else if( aff==SQ_INGEST_AFF_NUMERIC && n>0 && (z[0]=='-' || (unsigned)(z[0]-'0')<=9) ){
        sq_number v;
        int k = sq_number_text(z, n, &v);
        if( ING_NUMBER_CHANGED(k) ) return sq_ing_fail_number(g, pos, z, n, 1, k, col);
      }
      return ing_put_text(g, sl, SQ_INGEST_V_TEXT, z, n, pos);
    }
    default:   /* SQ_INGEST_K_JSON */
      if( strict && (aff==SQ_INGEST_AFF_INTEGER || aff==SQ_INGEST_AFF_REAL) ){
        return sq_ing_fail_pos(g, SQ_INGEST_E_STRICT, pos, g->cur_key, g->cur_nkey,
                            "a nested object/array cannot go into %s column %s (strict mode)",
                            sq_ing_aff_name(aff), g->cols[col].name);
      }
      return ing_put_text(g, sl, SQ_INGEST_V_JSON, z, n, pos);
  }
}

/* The scalar of the current field into each of its columns. */
ING_INLINE int ing_scalar(sq_ingest *g, int kind, int integer, const char *z, size_t n,
                          const sq_ingest_pos *pos){
  int j;
  for(j=0; j<g->ncur; j++){
    int c = g->cur[j];
    if( ING_UNLIKELY(g->cols[c].flags & SQ_INGEST_COL_KINDS) && kind!=SQ_INGEST_K_NULL ){
      unsigned flag = kind==SQ_INGEST_K_STRING ? SQ_INGEST_COL_STRING
                    : kind==SQ_INGEST_K_NUMBER ? SQ_INGEST_COL_NUMBER
                    : kind==SQ_INGEST_K_TRUE || kind==SQ_INGEST_K_FALSE ? SQ_INGEST_COL_BOOL
                    : SQ_INGEST_COL_NESTED;
      if( !ING_KIND_OK(g, c, flag) ) return sq_ing_fail_kind(g, c, kind, pos);
    }
    if( ing_set(g, c, kind, integer, z, n, pos) ) return SQ_INGEST_ERROR;
  }
  return SQ_INGEST_OK;
}

#endif /* SQ_INGEST_INTERNAL_H */
