/*
** sq_ingest.c — the ingest core: records → typed rows (see sq_ingest.h,
** the manual), and its JSON driver on the push parser of sq_json.h.
**
** Layout of this file:
**   buffers and the one JSON escaper (nested values, whole values)
**   configuration: columns, key mappings, paths, options
**   the row assembler: key → columns, coercion, records → rows
**   the JSON driver: layouts and paths, tokens → format events
**   errors
*/
#include "sq_internal.h"
#include "sq_ingest.h"
#include "sq_json.h"
#include "sq_date.h"
#include "sq_number.h"

#include <math.h>
#include <stdarg.h>
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

/* 0 on success; 1 over `max`; 2 out of memory */
static int ingbuf_grow(IngBuf *b, int64_t add, int64_t max){
  int64_t need = b->n + add;
  if( need>max ) return 1;
  if( need>b->cap ){
    int64_t cap = b->cap ? b->cap*2 : 256;
    char *z;
    while( cap<need ) cap *= 2;
    if( cap>max+1 ) cap = max+1;
    z = sqlite3_realloc64(b->z, (sqlite3_uint64)cap);
    if( !z ) return 2;
    b->z = z;
    b->cap = cap;
  }
  return 0;
}
#define INGBUF_PUT(b, s, len, max, rc) do{ if( (len)>0 ){ \
  if( (b)->n + (int64_t)(len) <= (b)->cap || ((rc) = ingbuf_grow((b), (int64_t)(len), (max)))==0 ){ \
    memcpy((b)->z + (b)->n, (s), (len)); (b)->n += (int64_t)(len); } } }while(0)

int sq_ingest_buf_put(sq_ingest_buf *b, const char *s, int64_t n, int64_t max){
  int rc = 0;
  INGBUF_PUT(b, s, (size_t)n, max, rc);
  return rc;
}

/* ------------------------------------------------------------ the JSON escaper */

/* Bytes that need escaping in a JSON string: ", \ and U+0000..U+001F. */
static const unsigned char kEsc[256] = {
  1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1, 1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,
  0,0,1,0,0,0,0,0,0,0,0,0,0,0,0,0, 0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,
  0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0, 0,0,0,0,0,0,0,0,0,0,0,0,1,0,0,0,
};

/* Appends s[0..n) (valid UTF-8) as a JSON string literal: ", \, \b, \f,
** \n, \r, \t as short escapes, other control characters as \u00xx,
** everything else as is.  Returns 0 / 1 too big / 2 out of memory. */
int sq_ingest_json_string(IngBuf *b, const char *s, size_t n, int64_t max){
  int rc = 0;
  size_t i = 0;
  if( (rc = ingbuf_grow(b, (int64_t)n + 2, max))!=0 ) return rc;
  b->z[b->n++] = '"';
  while( i<n ){
    size_t j = i;
    while( j<n && !kEsc[(unsigned char)s[j]] ) j++;
    if( j>i ){ INGBUF_PUT(b, s+i, j-i, max, rc); if( rc ) return rc; i = j; }
    if( i<n ){
      unsigned char c = (unsigned char)s[i++];
      char e[8];
      size_t k = 2;
      e[0] = '\\';
      switch( c ){
        case '"':  e[1] = '"'; break;
        case '\\': e[1] = '\\'; break;
        case '\n': e[1] = 'n'; break;
        case '\r': e[1] = 'r'; break;
        case '\t': e[1] = 't'; break;
        case '\b': e[1] = 'b'; break;
        case '\f': e[1] = 'f'; break;
        default: {
          static const char hx[] = "0123456789abcdef";
          e[1] = 'u'; e[2] = '0'; e[3] = '0'; e[4] = hx[c>>4]; e[5] = hx[c&15];
          k = 6;
        }
      }
      INGBUF_PUT(b, e, k, max, rc);
      if( rc ) return rc;
    }
  }
  INGBUF_PUT(b, "\"", 1, max, rc);
  return rc;
}

/* Appends one token as minified JSON; *sep tracks whether a ',' is due. */
static int ing_json_token(IngBuf *b, int *sep, const sq_json_token *t, int64_t max){
  int rc = 0;
  int ty = t->type;
  if( ty==SQ_JSON_END_OBJECT || ty==SQ_JSON_END_ARRAY ){
    INGBUF_PUT(b, ty==SQ_JSON_END_OBJECT ? "}" : "]", 1, max, rc);
    *sep = 1;
    return rc;
  }
  if( *sep ){ INGBUF_PUT(b, ",", 1, max, rc); if( rc ) return rc; }
  switch( ty ){
    case SQ_JSON_BEGIN_OBJECT: INGBUF_PUT(b, "{", 1, max, rc); *sep = 0; return rc;
    case SQ_JSON_BEGIN_ARRAY:  INGBUF_PUT(b, "[", 1, max, rc); *sep = 0; return rc;
    case SQ_JSON_KEY:
      rc = sq_ingest_json_string(b, t->text, t->len, max);
      if( !rc ) INGBUF_PUT(b, ":", 1, max, rc);
      *sep = 0;
      return rc;
    case SQ_JSON_STRING: rc = sq_ingest_json_string(b, t->text, t->len, max); break;
    case SQ_JSON_NUMBER: INGBUF_PUT(b, t->text, t->len, max, rc); break;
    case SQ_JSON_TRUE:   INGBUF_PUT(b, "true", 4, max, rc); break;
    case SQ_JSON_FALSE:  INGBUF_PUT(b, "false", 5, max, rc); break;
    default:             INGBUF_PUT(b, "null", 4, max, rc); break;
  }
  *sep = 1;
  return rc;
}

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

typedef struct IngStep { int is_index; int64_t index; char *key; int nkey; } IngStep;

/* JSON driver modes. */
enum { M_AUTO = 0, M_ARRAY, M_NDJSON };

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
  int layout;                 /* SQ_INGEST_LAYOUT_*, or 0: a path */
  char *path_text;            /* as given to sq_ingest_json_path, for messages */
  IngStep *steps; int nstep;
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
  /* JSON driver */
  sq_json_parser *p;
  const sq_json_token *tok;   /* the token being handled (during sq_json_feed/finish) */
  int mode;
  int row_depth;
  int in_target;
  int targets_seen;
  sq_json_path *pm;           /* the path's matcher (sq_json.h), made from the steps */
  int cap_on, cap_sep;        /* capturing a nested value */
  int64_t cap_off;
  int wsep;                   /* whole values: separator state */
  int paused;
  /* error */
  sq_ingest_error err;
  char *errmsg;
  char *errkey;
  /* rejecting records (sq_ingest_set_reject_callback) */
  sq_ingest_reject_callback on_reject;
  void *ruser;
  int rec_bad;                /* the current record is being skipped (in_record is 0) */
  int rej_resync;             /* NDJSON: skipping to the line end after a syntax error */
  int64_t nrow;               /* records given to on_row */
  int64_t nrej;               /* records rejected */
  size_t jconsumed;           /* bytes of the last JSON feed used (when rejecting) */
  sq_ingest_error rej;        /* why the current record is skipped */
  char *rejmsg, *rejkey;
  sq_ingest_rawtext raw;      /* the bytes of the record in progress, for a reject's raw text */
  int row_raw;                /* rows carry their raw text too (sq_ingest_set_row_raw) */
  sq_ingest_row row;          /* the row given to on_row (its raw text 0 unless row_raw) */
  uint64_t jabs;              /* absolute offset of the next byte fed (JSON, rejecting) */
};

static int ing_fail_pos(sq_ingest *g, int code, const sq_ingest_pos *pos,
                        const char *key, size_t nkey, const char *fmt, ...);
static int ing_nomem(sq_ingest *g);

/* A position meaning "the JSON token being handled" (g->tok): the JSON
** driver's hot path passes it instead of copying each token's position. */
static const sq_ingest_pos ing_at_token_ = {0, 0, 0};
#define ING_TOK (&ing_at_token_)

/* ------------------------------------------------------------ types */

static int ing_contains_ci(const char *z, int n, const char *w){
  int m = (int)strlen(w), i, j;
  for(i=0; i+m<=n; i++){
    for(j=0; j<m; j++){
      char c = z[i+j];
      if( c>='a' && c<='z' ) c = (char)(c-32);
      if( c!=w[j] ) break;
    }
    if( j==m ) return 1;
  }
  return 0;
}

int sq_ingest_affinity(const char *type, int n){
  if( !type ) return SQ_INGEST_AFF_BLOB;
  if( n<0 ) n = (int)strlen(type);
  /* SQLite's rules, in their order (Datatypes In SQLite, 3.1) */
  if( ing_contains_ci(type, n, "INT") ) return SQ_INGEST_AFF_INTEGER;
  if( ing_contains_ci(type, n, "CHAR") || ing_contains_ci(type, n, "CLOB")
      || ing_contains_ci(type, n, "TEXT") ) return SQ_INGEST_AFF_TEXT;
  if( ing_contains_ci(type, n, "BLOB") || n==0 ) return SQ_INGEST_AFF_BLOB;
  if( ing_contains_ci(type, n, "REAL") || ing_contains_ci(type, n, "FLOA")
      || ing_contains_ci(type, n, "DOUB") ) return SQ_INGEST_AFF_REAL;
  return SQ_INGEST_AFF_NUMERIC;
}

int sq_ingest_type_is_date(const char *type, int n){
  if( !type ) return 0;
  if( n<0 ) n = (int)strlen(type);
  return ing_contains_ci(type, n, "TIME") ? 2 : ing_contains_ci(type, n, "DATE") ? 1 : 0;
}

const char *sq_ingest_declared_type(const char *type, int n){
  int aff = sq_ingest_affinity(type, n), d = sq_ingest_type_is_date(type, n);
  if( aff==SQ_INGEST_AFF_NUMERIC && d ) return d==2 ? "DATETIME" : "DATE";
  switch( aff ){
    case SQ_INGEST_AFF_INTEGER: return "INTEGER";
    case SQ_INGEST_AFF_TEXT: return "TEXT";
    case SQ_INGEST_AFF_REAL: return "REAL";
    case SQ_INGEST_AFF_NUMERIC: return "NUMERIC";
    default: return "";
  }
}

static const char *ing_aff_name(int aff){
  switch( aff ){
    case SQ_INGEST_AFF_INTEGER: return "INTEGER";
    case SQ_INGEST_AFF_REAL: return "REAL";
    case SQ_INGEST_AFF_TEXT: return "TEXT";
    case SQ_INGEST_AFF_NUMERIC: return "NUMERIC";
    default: return "BLOB";
  }
}

/* ASCII case-insensitive equality of two byte strings of length n. */
static int ing_ieq(const char *a, const char *b, size_t n){
  size_t i;
  for(i=0; i<n; i++){
    unsigned char x = (unsigned char)a[i], y = (unsigned char)b[i];
    if( x!=y ){
      if( x>='A' && x<='Z' ) x = (unsigned char)(x+32);
      if( y>='A' && y<='Z' ) y = (unsigned char)(y+32);
      if( x!=y ) return 0;
    }
  }
  return 1;
}

/* ------------------------------------------------------------ set-up */

sq_ingest *sq_ingest_new(sq_ingest_row_callback on_row, void *user){
  sq_ingest *g = sqlite3_malloc64(sizeof(*g));
  if( !g ) return 0;
  memset(g, 0, sizeof(*g));
  g->on_row = on_row;
  g->user = user;
  g->max_rec = SQ_INGEST_DEFAULT_MAX_RECORD;
  g->layout = SQ_INGEST_LAYOUT_ARRAY;
  g->err.message = "";
  g->err.record = -1;
  return g;
}

void sq_ingest_set_row_callback(sq_ingest *g, sq_ingest_row_callback on_row, void *user){
  g->on_row = on_row;
  g->user = user;
}

static void ing_free_path(sq_ingest *g){
  int i;
  for(i=0; i<g->nstep; i++) sqlite3_free(g->steps[i].key);
  sqlite3_free(g->steps);
  g->steps = 0;
  g->nstep = 0;
  sqlite3_free(g->path_text);
  g->path_text = 0;
}

static void ing_clear_error(sq_ingest *g){
  sqlite3_free(g->errmsg);
  sqlite3_free(g->errkey);
  g->errmsg = 0;
  g->errkey = 0;
  memset(&g->err, 0, sizeof(g->err));
  g->err.message = "";
  g->err.record = -1;
}

void sq_ingest_free(sq_ingest *g){
  int i;
  if( !g ) return;
  for(i=0; i<g->ncol; i++) sqlite3_free(g->cols[i].name);
  sqlite3_free(g->cols);
  for(i=0; i<g->nmap; i++) sqlite3_free(g->maps[i].key);
  sqlite3_free(g->maps);
  for(i=0; i<g->nfield; i++) sqlite3_free(g->fnames[i]);
  sqlite3_free(g->fnames);
  sqlite3_free(g->fnlen);
  sqlite3_free(g->ftarget);
  sqlite3_free(g->fcol);
  ing_free_path(g);
  sqlite3_free(g->targets);
  sqlite3_free(g->tcols);
  sqlite3_free(g->ident);
  sqlite3_free(g->slots);
  sqlite3_free(g->seen);
  sqlite3_free(g->seen_pos);
  sqlite3_free(g->seen_fld);
  sqlite3_free(g->seen_koff);
  sqlite3_free(g->seen_klen);
  sqlite3_free(g->named0);
  sqlite3_free(g->omitted);
  sqlite3_free(g->arena.z);
  sqlite3_free(g->keybuf.z);
  for(i=0; i<g->ncache; i++) sqlite3_free(g->cache[i].key);
  sq_json_free(g->p);
  sq_json_path_free(g->pm);
  ing_clear_error(g);
  sqlite3_free(g->rejmsg);
  sqlite3_free(g->rejkey);
  sq_ingest_rawtext_free(&g->raw);
  sqlite3_free(g);
}

static void ing_reset_json(sq_ingest *g){
  g->mode = g->layout==SQ_INGEST_LAYOUT_AUTO ? M_AUTO
          : g->layout==SQ_INGEST_LAYOUT_NDJSON ? M_NDJSON : M_ARRAY;
  g->row_depth = 0;
  g->in_target = g->mode==M_NDJSON;
  g->targets_seen = 0;
  g->cap_on = 0;
  g->paused = 0;
  if( g->pm ) sq_json_path_restart(g->pm);
  if( g->p ){
    sq_json_reset(g->p);
    sq_json_set_options(g->p, g->mode==M_ARRAY ? 0 : SQ_JSON_OPT_MULTIPLE);
  }
}

void sq_ingest_reset(sq_ingest *g){
  int i;
  ing_clear_error(g);
  g->in_record = 0;
  g->nrec = 0;
  g->nrow = 0;
  g->nrej = 0;
  g->rec_bad = 0;
  g->rej_resync = 0;
  g->jabs = 0;
  sq_ingest_rawtext_forget(&g->raw);
  g->have_field = 0;
  g->ncur = 0;
  if( g->prepared ){
    for(i=0; i<g->ncol; i++){ g->seen[i] = 0; g->named0[i] = 0; g->omitted[i] = 0; }
  }
  ing_reset_json(g);
}

/* 1 (and an error) when the configuration can no longer change. */
static int ing_config_closed(sq_ingest *g, const char *what){
  if( g->err.code ) return 1;
  if( !g->prepared ) return 0;
  ing_fail_pos(g, SQ_INGEST_E_CONFIG, 0, 0, 0, "%s after the input started", what);
  return 1;
}

int sq_ingest_add_column(sq_ingest *g, const char *name, int nname,
                         const char *type, int ntype, unsigned flags){
  IngCol *a;
  if( ing_config_closed(g, "a column added") ) return -1;
  if( !name ){ ing_fail_pos(g, SQ_INGEST_E_CONFIG, 0, 0, 0, "a column without a name"); return -1; }
  if( nname<0 ) nname = (int)strlen(name);
  if( type && ntype<0 ) ntype = (int)strlen(type);
  if( nname==0 ){ ing_fail_pos(g, SQ_INGEST_E_CONFIG, 0, 0, 0, "a column without a name"); return -1; }
  a = sqlite3_realloc64(g->cols, sizeof(IngCol)*((sqlite3_uint64)g->ncol+1));
  if( !a ){ ing_nomem(g); return -1; }
  g->cols = a;
  memset(&a[g->ncol], 0, sizeof(IngCol));
  a[g->ncol].name = sqlite3_malloc64((sqlite3_uint64)nname+1);
  if( !a[g->ncol].name ){ ing_nomem(g); return -1; }
  memcpy(a[g->ncol].name, name, (size_t)nname);
  a[g->ncol].name[nname] = 0;
  a[g->ncol].nname = nname;
  a[g->ncol].aff = sq_ingest_affinity(type, type ? ntype : 0);
  a[g->ncol].is_date = sq_ingest_type_is_date(type, type ? ntype : 0);
  a[g->ncol].flags = flags;
  return g->ncol++;
}

int sq_ingest_set_column_type(sq_ingest *g, int column, int affinity, int is_date){
  if( ing_config_closed(g, "a column type set") ) return SQ_INGEST_ERROR;
  if( column<0 || column>=g->ncol || affinity<SQ_INGEST_AFF_BLOB || affinity>SQ_INGEST_AFF_REAL ){
    return ing_fail_pos(g, SQ_INGEST_E_CONFIG, 0, 0, 0, "no column %d or no affinity %d", column, affinity);
  }
  g->cols[column].aff = affinity;
  g->cols[column].is_date = is_date<0 ? 0 : is_date>2 ? 2 : is_date;
  return SQ_INGEST_OK;
}

int sq_ingest_column_count(const sq_ingest *g){ return g->ncol; }

const char *sq_ingest_column_name(const sq_ingest *g, int column){
  return column>=0 && column<g->ncol ? g->cols[column].name : 0;
}

/* The column named z[0..n): exact, else ASCII case-insensitive; -1: none. */
static int ing_find_column(const sq_ingest *g, const char *z, int n){
  int i;
  for(i=0; i<g->ncol; i++){
    if( g->cols[i].nname==n && memcmp(g->cols[i].name, z, (size_t)n)==0 ) return i;
  }
  for(i=0; i<g->ncol; i++){
    if( g->cols[i].nname==n && ing_ieq(g->cols[i].name, z, (size_t)n) ) return i;
  }
  return -1;
}

int sq_ingest_map_key(sq_ingest *g, const char *key, int nkey, const char *column, int ncolumn){
  IngMap *a;
  int col;
  if( ing_config_closed(g, "a key mapping added") ) return SQ_INGEST_ERROR;
  if( !key || !column ) return ing_fail_pos(g, SQ_INGEST_E_CONFIG, 0, 0, 0, "a key mapping without key or column");
  if( nkey<0 ) nkey = (int)strlen(key);
  if( ncolumn<0 ) ncolumn = (int)strlen(column);
  col = ing_find_column(g, column, ncolumn);
  if( col<0 ){
    sqlite3_str *s = sqlite3_str_new(0);
    char *m;
    int rc;
    sqlite3_str_appendall(s, "no column named ");
    sq_str_value(s, column, ncolumn, 1);
    sqlite3_str_appendall(s, " (for the key ");
    sq_str_value(s, key, nkey, 1);
    sqlite3_str_appendall(s, ")");
    m = sqlite3_str_finish(s);
    if( !m ) return ing_nomem(g);
    rc = ing_fail_pos(g, SQ_INGEST_E_CONFIG, 0, key, (size_t)nkey, "%s", m);
    sqlite3_free(m);
    return rc;
  }
  a = sqlite3_realloc64(g->maps, sizeof(IngMap)*((sqlite3_uint64)g->nmap+1));
  if( !a ) return ing_nomem(g);
  g->maps = a;
  a[g->nmap].key = sqlite3_malloc64((sqlite3_uint64)nkey+1);
  if( !a[g->nmap].key ) return ing_nomem(g);
  memcpy(a[g->nmap].key, key, (size_t)nkey);
  a[g->nmap].key[nkey] = 0;
  a[g->nmap].nkey = nkey;
  a[g->nmap].col = col;
  g->nmap++;
  return SQ_INGEST_OK;
}

int sq_ingest_name_field(sq_ingest *g, int index, const char *name, int nname){
  if( g->err.code ) return SQ_INGEST_ERROR;
  if( index<0 || index>1000000 || !name ){
    return ing_fail_pos(g, SQ_INGEST_E_CONFIG, 0, 0, 0, "bad field index %d", index);
  }
  if( nname<0 ) nname = (int)strlen(name);
  if( index>=g->nfield ){
    int n = index+1, i;
    char **a = sqlite3_realloc64(g->fnames, sizeof(char*)*(sqlite3_uint64)n);
    int *l, *t;
    if( !a ) return ing_nomem(g);
    g->fnames = a;
    l = sqlite3_realloc64(g->fnlen, sizeof(int)*(sqlite3_uint64)n);
    if( !l ) return ing_nomem(g);
    g->fnlen = l;
    t = sqlite3_realloc64(g->ftarget, sizeof(int)*(sqlite3_uint64)n);
    if( !t ) return ing_nomem(g);
    g->ftarget = t;
    t = sqlite3_realloc64(g->fcol, sizeof(int)*(sqlite3_uint64)n);
    if( !t ) return ing_nomem(g);
    g->fcol = t;
    for(i=g->nfield; i<n; i++){ a[i] = 0; l[i] = 0; g->ftarget[i] = -1; t[i] = -1; }
    g->nfield = n;
  }
  sqlite3_free(g->fnames[index]);
  g->fnames[index] = sqlite3_malloc64((sqlite3_uint64)nname+1);
  if( !g->fnames[index] ) return ing_nomem(g);
  memcpy(g->fnames[index], name, (size_t)nname);
  g->fnames[index][nname] = 0;
  g->fnlen[index] = nname;
  g->ftarget[index] = -2;     /* resolved on first use */
  g->fcol[index] = -1;
  return SQ_INGEST_OK;
}

void sq_ingest_set_strict(sq_ingest *g, int strict){
  g->strict = strict==1;
  g->strict_values = strict!=0;
}
void sq_ingest_set_whole_values(sq_ingest *g, int whole){ if( !g->prepared ) g->whole = whole!=0; }
void sq_ingest_set_max_record(sq_ingest *g, int64_t max_bytes){
  if( max_bytes<1 ) max_bytes = 1;
  g->max_rec = max_bytes;
  if( g->p ) sq_json_set_max_token(g->p, (size_t)max_bytes);
}

/* Groups (key, column) pairs by exact key into targets. */
static int ing_build_targets(sq_ingest *g){
  int npair = 0, i, j, k;
  int *pk;                      /* pair → key index (maps: i, columns: nmap+i) */
  int *pc;
  const char **kz; int *kn;
  pk = sqlite3_malloc64(sizeof(int)*((sqlite3_uint64)g->nmap + (sqlite3_uint64)g->ncol + 1));
  pc = sqlite3_malloc64(sizeof(int)*((sqlite3_uint64)g->nmap + (sqlite3_uint64)g->ncol + 1));
  kz = sqlite3_malloc64(sizeof(char*)*((sqlite3_uint64)g->nmap + (sqlite3_uint64)g->ncol + 1));
  kn = sqlite3_malloc64(sizeof(int)*((sqlite3_uint64)g->nmap + (sqlite3_uint64)g->ncol + 1));
  g->targets = sqlite3_malloc64(sizeof(IngTarget)*((sqlite3_uint64)g->nmap + (sqlite3_uint64)g->ncol + 1));
  g->tcols = sqlite3_malloc64(sizeof(int)*((sqlite3_uint64)g->nmap + (sqlite3_uint64)g->ncol + 1));
  if( !pk || !pc || !kz || !kn || !g->targets || !g->tcols ){
    sqlite3_free(pk); sqlite3_free(pc); sqlite3_free(kz); sqlite3_free(kn);
    return ing_nomem(g);
  }
  for(i=0; i<g->ncol; i++) g->cols[i].mapped = 0;
  for(i=0; i<g->nmap; i++) g->cols[g->maps[i].col].mapped = 1;
  for(i=0; i<g->nmap; i++){
    kz[npair] = g->maps[i].key; kn[npair] = g->maps[i].nkey; pc[npair] = g->maps[i].col; npair++;
  }
  for(i=0; i<g->ncol; i++){
    if( g->cols[i].mapped ) continue;
    kz[npair] = g->cols[i].name; kn[npair] = g->cols[i].nname; pc[npair] = i; npair++;
  }
  /* pk[p]: the first pair with the same key */
  for(i=0; i<npair; i++){
    pk[i] = i;
    for(j=0; j<i; j++){
      if( kn[j]==kn[i] && memcmp(kz[j], kz[i], (size_t)kn[i])==0 ){ pk[i] = pk[j]; break; }
    }
  }
  g->ntarget = 0;
  k = 0;
  for(i=0; i<npair; i++){
    IngTarget *t;
    if( pk[i]!=i ) continue;
    t = &g->targets[g->ntarget++];
    t->key = kz[i];
    t->nkey = kn[i];
    t->start = k;
    for(j=i; j<npair; j++){
      int c = pc[j], d, dup = 0;
      if( pk[j]!=i ) continue;
      for(d=t->start; d<k; d++) if( g->tcols[d]==c ) dup = 1;
      if( !dup ) g->tcols[k++] = c;
    }
    t->n = k - t->start;
  }
  sqlite3_free(pk); sqlite3_free(pc); sqlite3_free(kz); sqlite3_free(kn);
  return SQ_INGEST_OK;
}

/* The path's matcher (the one rule of sq_json.h, shared with the Swift
** decoder's streamed arrays), made from the steps. */
static sq_json_path *ing_new_matcher(const sq_ingest *g){
  sq_json_path *m = sq_json_path_new();
  int i, rc = 0;
  for(i=0; m && !rc && i<g->nstep; i++){
    const IngStep *st = &g->steps[i];
    rc = st->is_index ? sq_json_path_add_index(m, st->index)
                      : sq_json_path_add_key(m, st->key, (size_t)st->nkey);
  }
  if( rc ){ sq_json_path_free(m); m = 0; }
  return m;
}

static int ing_prepare(sq_ingest *g){
  int i, n = g->ncol>0 ? g->ncol : 1;
  if( g->prepared ) return g->err.code ? SQ_INGEST_ERROR : SQ_INGEST_OK;
  if( g->err.code ) return SQ_INGEST_ERROR;
  if( !g->whole && g->ncol==0 ){
    return ing_fail_pos(g, SQ_INGEST_E_CONFIG, 0, 0, 0, "no columns");
  }
  if( ing_build_targets(g) ) return SQ_INGEST_ERROR;
  g->ident = sqlite3_malloc64(sizeof(int)*(sqlite3_uint64)n);
  g->slots = sqlite3_malloc64(sizeof(sq_ingest_value)*(sqlite3_uint64)n);
  g->seen = sqlite3_malloc64(sizeof(int64_t)*(sqlite3_uint64)n);
  g->seen_pos = sqlite3_malloc64(sizeof(int)*(sqlite3_uint64)n);
  g->seen_fld = sqlite3_malloc64(sizeof(int)*(sqlite3_uint64)n);
  g->seen_koff = sqlite3_malloc64(sizeof(int64_t)*(sqlite3_uint64)n);
  g->seen_klen = sqlite3_malloc64(sizeof(int64_t)*(sqlite3_uint64)n);
  g->named0 = sqlite3_malloc64((sqlite3_uint64)n);
  g->omitted = sqlite3_malloc64((sqlite3_uint64)n);
  g->pm = ing_new_matcher(g);
  if( !g->ident || !g->slots || !g->seen || !g->seen_pos || !g->seen_fld || !g->seen_koff
      || !g->seen_klen || !g->named0 || !g->omitted
      || !g->pm ){
    return ing_nomem(g);
  }
  for(i=0; i<n; i++){
    g->ident[i] = i; g->seen[i] = 0; g->seen_pos[i] = -1; g->seen_fld[i] = -1;
    g->seen_koff[i] = 0; g->seen_klen[i] = -1;
    g->named0[i] = 0; g->omitted[i] = 0;
  }
  memset(g->slots, 0, sizeof(sq_ingest_value)*(size_t)n);
  g->prepared = 1;
  ing_reset_json(g);
  return SQ_INGEST_OK;
}

/* ------------------------------------------------------------ errors */

/* The error's position: pos, or the current token's (ING_TOK), or none. */
static void ing_err_pos(sq_ingest *g, const sq_ingest_pos *pos){
  if( pos==ING_TOK ){
    if( !g->tok ) return;
    g->err.offset = g->tok->offset;
    g->err.line = g->tok->line;
    g->err.column = g->tok->column;
  }else if( pos ){
    g->err.offset = pos->offset;
    g->err.line = pos->line;
    g->err.column = pos->column;
  }
}

static int ing_mark_bad(sq_ingest *g, int code, char *msg, const char *key, size_t nkey,
                        const sq_ingest_pos *pos);

/* The errors that reject one record (sq_ingest.h, REJECTING RECORDS). */
static int ing_is_record_error(int code){
  return code==SQ_INGEST_E_STRICT || code==SQ_INGEST_E_AMBIGUOUS || code==SQ_INGEST_E_OMITTED
      || code==SQ_INGEST_E_DUPLICATE || code==SQ_INGEST_E_LAYOUT;
}

static int ing_fail_pos(sq_ingest *g, int code, const sq_ingest_pos *pos,
                        const char *key, size_t nkey, const char *fmt, ...){
  va_list ap;
  if( g->err.code ) return SQ_INGEST_ERROR;     /* the first error stays */
  if( g->on_reject && g->in_record && !g->whole && ing_is_record_error(code) ){
    char *m;
    va_start(ap, fmt);
    m = sqlite3_vmprintf(fmt, ap);
    va_end(ap);
    return ing_mark_bad(g, code, m, key, nkey, pos);
  }
  ing_clear_error(g);
  g->err.code = code;
  va_start(ap, fmt);
  g->errmsg = sqlite3_vmprintf(fmt, ap);
  va_end(ap);
  g->err.message = g->errmsg ? g->errmsg : "out of memory";
  if( key ){
    g->errkey = sqlite3_malloc64((sqlite3_uint64)nkey+1);
    if( g->errkey ){
      memcpy(g->errkey, key, nkey);
      g->errkey[nkey] = 0;
      g->err.key = g->errkey;
      g->err.nkey = nkey;
    }
  }
  g->err.record = (g->in_record || g->in_target) ? g->nrec : -1;
  ing_err_pos(g, pos);
  return SQ_INGEST_ERROR;
}

static int ing_nomem(sq_ingest *g){
  if( g->err.code ) return SQ_INGEST_ERROR;
  ing_clear_error(g);
  g->err.code = SQ_INGEST_E_NOMEM;
  g->err.message = "out of memory";
  g->err.record = (g->in_record || g->in_target) ? g->nrec : -1;
  return SQ_INGEST_ERROR;
}

/* Error of a failed buffer write (1: too big, 2: out of memory). */
static int ing_buf_fail(sq_ingest *g, int rc, const sq_ingest_pos *pos){
  if( rc==1 ){
    return ing_fail_pos(g, SQ_INGEST_E_TOO_BIG, pos, 0, 0, "element larger than %lld bytes",
                        (long long)g->max_rec);
  }
  ing_nomem(g);
  ing_err_pos(g, pos);
  return SQ_INGEST_ERROR;
}

/* A message naming a value (echoed by sq_str_value: cut, escaped). */
static int ing_fail_value(sq_ingest *g, const sq_ingest_pos *pos, const char *before,
                          const char *v, size_t n, int quoted, const char *after){
  sqlite3_str *s = sqlite3_str_new(0);
  char *m;
  int rc;
  sqlite3_str_appendall(s, before);
  sq_str_value(s, v, (sqlite3_int64)n, quoted);
  sqlite3_str_appendall(s, after);
  m = sqlite3_str_finish(s);
  if( !m ) return ing_nomem(g);
  rc = ing_fail_pos(g, SQ_INGEST_E_STRICT, pos, g->cur_key, g->cur_nkey, "%s", m);
  sqlite3_free(m);
  return rc;
}

static int ing_fail_col(sq_ingest *g, const sq_ingest_pos *pos, const char *v, size_t n,
                        int quoted, const char *what, int col){
  char *after = sqlite3_mprintf(what, g->cols[col].name);
  int rc;
  if( !after ) return ing_nomem(g);
  rc = ing_fail_value(g, pos, "", v, n, quoted, after);
  sqlite3_free(after);
  return rc;
}

const sq_ingest_error *sq_ingest_error_info(const sq_ingest *g){ return &g->err; }
int64_t sq_ingest_records(const sq_ingest *g){ return g->nrec; }

/* ------------------------------------------------------------ the row assembler */

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
  g->cap_on = 0;
}

int sq_ingest_begin_record(sq_ingest *g, const sq_ingest_pos *pos){
  static const sq_ingest_pos none = {0, 0, 0};
  if( ing_prepare(g) ) return SQ_INGEST_ERROR;
  if( g->in_record ) return ing_fail_pos(g, SQ_INGEST_E_MISUSE, pos, 0, 0, "a record begins inside a record");
  ing_begin(g, pos ? pos : &none);
  return SQ_INGEST_OK;
}

/* Two members of one record for column c: an error naming both keys. */
static int ing_fail_twice(sq_ingest *g, int c, const sq_ingest_pos *pos){
  sqlite3_str *m = sqlite3_str_new(0);
  const char *prev = 0;
  int64_t nprev = 0;
  char *z;
  int rc;
  if( g->seen_pos[c]>=0 ){
    prev = g->cache[g->seen_pos[c]].key;
    nprev = g->cache[g->seen_pos[c]].n;
  }else if( g->seen_fld[c]>=0 && g->seen_fld[c]<g->nfield && g->fnames[g->seen_fld[c]] ){
    prev = g->fnames[g->seen_fld[c]];
    nprev = g->fnlen[g->seen_fld[c]];
  }else if( g->seen_klen[c]>=0 && g->arena.z ){
    prev = g->arena.z + g->seen_koff[c];
    nprev = g->seen_klen[c];
  }
  if( !g->cur_key || !prev ){
    sqlite3_str_appendall(m, "two fields of one record both feed column ");
  }else if( nprev==(int64_t)g->cur_nkey && memcmp(prev, g->cur_key, g->cur_nkey)==0 ){
    sqlite3_str_appendall(m, "key ");
    sq_str_value(m, g->cur_key, (sqlite3_int64)g->cur_nkey, 1);
    sqlite3_str_appendall(m, " appears twice in one object (column ");
  }else{
    sqlite3_str_appendall(m, "keys ");
    sq_str_value(m, prev, nprev, 1);
    sqlite3_str_appendall(m, " and ");
    sq_str_value(m, g->cur_key, (sqlite3_int64)g->cur_nkey, 1);
    sqlite3_str_appendall(m, " of one object both match column ");
  }
  sq_str_value(m, g->cols[c].name, g->cols[c].nname, 1);
  if( g->cur_key && prev && nprev==(int64_t)g->cur_nkey && memcmp(prev, g->cur_key, g->cur_nkey)==0 ){
    sqlite3_str_appendall(m, ")");
  }
  z = sqlite3_str_finish(m);
  if( !z ) return ing_nomem(g);
  rc = ing_fail_pos(g, SQ_INGEST_E_DUPLICATE, pos, g->cur_key, g->cur_nkey, "%s", z);
  sqlite3_free(z);
  return rc;
}

/* The target of a key: exact, else ASCII case-insensitive (two matches:
** -2, with *other set); -1: unknown. */
static int ing_resolve(const sq_ingest *g, const char *k, size_t n, int *other){
  int i, found = -1;
  for(i=0; i<g->ntarget; i++){
    const IngTarget *t = &g->targets[i];
    if( (size_t)t->nkey==n && memcmp(t->key, k, n)==0 ) return i;
  }
  for(i=0; i<g->ntarget; i++){
    const IngTarget *t = &g->targets[i];
    if( (size_t)t->nkey==n && ing_ieq(t->key, k, n) ){
      if( found>=0 ){ *other = i; return -2 - found; }
      found = i;
    }
  }
  return found;
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
      return ing_fail_pos(g, SQ_INGEST_E_OMITTED, pos, g->cur_key, g->cur_nkey,
          "column %s has a DEFAULT and the first element has no key for it, so it is not "
          "inserted (give the key in the first element, or list the columns to insert)",
          g->cols[c].name);
    }
    if( g->seen[c]==g->nrec+1 ) return ing_fail_twice(g, c, pos);
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
      if( rc ) return ing_buf_fail(g, rc, pos);
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
    t = ing_resolve(g, k, n, &other);
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
      if( !m ) return ing_nomem(g);
      rc = ing_fail_pos(g, SQ_INGEST_E_AMBIGUOUS, pos, k, n, "%s", m);
      sqlite3_free(m);
      return rc;
    }
    if( p<ING_KEY_CACHE && p<=g->ncache && n<=ING_KEY_CACHE_LEN ){
      IngKeyCache *c = &g->cache[p];
      if( p==g->ncache ){ memset(c, 0, sizeof(*c)); g->ncache++; }
      if( c->cap<(int)n+1 ){
        char *z = sqlite3_realloc64(c->key, (sqlite3_uint64)n+1);
        if( !z ) return ing_nomem(g);
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
      if( rc ) return ing_nomem(g);
      g->cur_key = g->keybuf.z ? g->keybuf.z : "";
      g->cur_pos = -1;
    }
    g->cur_nkey = n;
  }
  if( t<0 ){
    g->ncur = 0;
    if( g->strict ){
      return ing_fail_pos(g, SQ_INGEST_E_STRICT, pos, k, n,
          "no column for this key (strict mode: map the key to a column, or turn strict mode off)");
    }
    return SQ_INGEST_OK;
  }
  g->cur = &g->tcols[g->targets[t].start];
  g->ncur = g->targets[t].n;
  return ing_take_field(g, pos);
}

int sq_ingest_field_key(sq_ingest *g, const char *key, size_t n, const sq_ingest_pos *pos){
  if( g->err.code ) return SQ_INGEST_ERROR;
  if( g->rec_bad ) return SQ_INGEST_OK;
  if( !g->in_record ) return ing_fail_pos(g, SQ_INGEST_E_MISUSE, pos, 0, 0, "a key outside a record");
  if( g->whole ) return ing_fail_pos(g, SQ_INGEST_E_MISUSE, pos, 0, 0, "a key in whole-value mode");
  return ing_key(g, key ? key : "", key ? n : 0, pos);
}

int sq_ingest_field_index(sq_ingest *g, int index, const sq_ingest_pos *pos){
  if( g->err.code ) return SQ_INGEST_ERROR;
  if( g->rec_bad ) return SQ_INGEST_OK;
  if( !g->in_record ) return ing_fail_pos(g, SQ_INGEST_E_MISUSE, pos, 0, 0, "a field outside a record");
  if( g->whole ) return ing_fail_pos(g, SQ_INGEST_E_MISUSE, pos, 0, 0, "a field in whole-value mode");
  g->field_pos++;
  g->have_field = 1;
  g->cur_key = 0;
  g->cur_nkey = 0;
  g->cur_pos = -1;
  g->cur_fld = -1;
  g->ncur = 0;
  if( g->nfield>0 ){
    if( index>=0 && index<g->nfield && g->fnames[index] ){
      int t = g->ftarget[index];
      g->cur_key = g->fnames[index];
      g->cur_nkey = (size_t)g->fnlen[index];
      g->cur_fld = index;
      if( t==-2 ){
        int other = -1;
        t = ing_resolve(g, g->fnames[index], (size_t)g->fnlen[index], &other);
        if( t<=-2 ){
          return ing_fail_pos(g, SQ_INGEST_E_AMBIGUOUS, pos, g->cur_key, g->cur_nkey,
                              "the field name matches two keys ignoring case (map it exactly)");
        }
        g->ftarget[index] = t;
        /* the plan of sq_ingest_field_text: the one column of the field,
        ** -3 for none, -1 for several (the general path) */
        g->fcol[index] = t<0 ? -3 : g->targets[t].n==1 ? g->tcols[g->targets[t].start] : -1;
      }
      if( t>=0 ){
        g->cur = &g->tcols[g->targets[t].start];
        g->ncur = g->targets[t].n;
      }
    }
  }else if( index>=0 && index<g->ncol ){
    g->cur = &g->ident[index];
    g->ncur = 1;
  }
  if( g->ncur==0 ){
    if( g->strict ){
      return ing_fail_pos(g, SQ_INGEST_E_STRICT, pos, g->cur_key, g->cur_nkey,
                          "field %d has no column (strict mode)", index+1);
    }
    return SQ_INGEST_OK;
  }
  return ing_take_field(g, pos);
}

/* A string holding a JSON number literal (-?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?). */
static int ing_is_json_number(const char *s, size_t n){
  size_t i = 0;
  if( i<n && s[i]=='-' ) i++;
  if( i>=n || s[i]<'0' || s[i]>'9' ) return 0;
  if( s[i]=='0' ) i++; else while( i<n && s[i]>='0' && s[i]<='9' ) i++;
  if( i<n && s[i]=='.' ){
    i++;
    if( i>=n || s[i]<'0' || s[i]>'9' ) return 0;
    while( i<n && s[i]>='0' && s[i]<='9' ) i++;
  }
  if( i<n && (s[i]=='e' || s[i]=='E') ){
    i++;
    if( i<n && (s[i]=='+' || s[i]=='-') ) i++;
    if( i>=n || s[i]<'0' || s[i]>'9' ) return 0;
    while( i<n && s[i]>='0' && s[i]<='9' ) i++;
  }
  return i==n;
}

/* Exactly an int64 (no fraction, in range). */
static int ing_double_is_int64(double d, int64_t *out){
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

/* The refusal of a number (sq_number.h) for column col: strict mode, or a
** number the column would change (ING_NUMBER_CHANGED). */
static int ing_fail_number(sq_ingest *g, const sq_ingest_pos *pos, const char *v, size_t n,
                           int quoted, int kind, int col){
  int aff = g->cols[col].aff;
  const char *why = kind==SQ_NUMBER_NOT || kind==SQ_NUMBER_REAL || kind==SQ_NUMBER_INTEGER
      ? (aff==SQ_INGEST_AFF_INTEGER ? "is not an integer" : "is not a number")
      : sq_number_refusal(kind);
  char *after = sqlite3_mprintf(" %s, column %s is %s%s", why, g->cols[col].name,
                                ing_aff_name(aff), ING_NUMBER_CHANGED(kind) ? "" : " (strict mode)");
  int rc;
  if( !after ) return ing_nomem(g);
  rc = ing_fail_value(g, pos, "", v, n, quoted, after);
  sqlite3_free(after);
  return rc;
}

ING_INLINE int ing_put_text(sq_ingest *g, sq_ingest_value *sl, int type, const char *z, size_t n,
                            const sq_ingest_pos *pos){
  int rc = 0;
  sl->type = type;
  sl->i = g->arena.n;         /* the offset, until the record ends */
  sl->len = n;
  INGBUF_PUT(&g->arena, z, n, g->max_rec, rc);
  if( rc ) return ing_buf_fail(g, rc, pos);
  return SQ_INGEST_OK;
}

/* Coerces one scalar into column col (the table of sq_ingest.h).
** `integer`: a NUMBER literal without fraction or exponent. */
/* A value of a kind column col does not take (SQ_INGEST_COL_KINDS): the
** record error. */
static ING_NOINLINE int ing_fail_kind(sq_ingest *g, int col, int kind, const sq_ingest_pos *pos){
  static const struct { unsigned flag; const char *name; } kinds[] = {
    { SQ_INGEST_COL_STRING, "strings" }, { SQ_INGEST_COL_NUMBER, "numbers" },
    { SQ_INGEST_COL_BOOL, "true/false" }, { SQ_INGEST_COL_NESTED, "objects or arrays" },
  };
  const char *what = kind==SQ_INGEST_K_STRING ? "a string"
                   : kind==SQ_INGEST_K_NUMBER ? "a number"
                   : kind==SQ_INGEST_K_TRUE ? "true"
                   : kind==SQ_INGEST_K_FALSE ? "false" : "a nested object/array";
  char takes[80];
  size_t k, m = 0;
  takes[0] = 0;
  for(k=0; k<sizeof kinds/sizeof kinds[0]; k++){
    if( g->cols[col].flags & kinds[k].flag ){
      sqlite3_snprintf((int)(sizeof takes - m), takes+m, "%s%s", m ? ", " : "", kinds[k].name);
      m += strlen(takes+m);
    }
  }
  return ing_fail_pos(g, SQ_INGEST_E_STRICT, pos, g->cur_key, g->cur_nkey,
                      "%s cannot go into %s column %s, which takes %s only (it would be stored changed)",
                      what, ing_aff_name(g->cols[col].aff), g->cols[col].name, m ? takes : "null");
}

/* Whether column col takes a value of JSON kind `flag` (SQ_INGEST_COL_*). */
#define ING_KIND_OK(g, col, flag) \
  (!((g)->cols[col].flags & SQ_INGEST_COL_KINDS) || ((g)->cols[col].flags & (flag)))

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
          return ing_fail_col(g, pos, z, n, 0,
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
        return ing_fail_number(g, pos, z, n, 0, k, col);
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
          return ing_fail_col(g, pos, z, n, 1,
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
        if( strict || ING_NUMBER_CHANGED(k) ) return ing_fail_number(g, pos, z, n, 1, k, col);
      }else if( aff==SQ_INGEST_AFF_NUMERIC && n>0 && (z[0]=='-' || (unsigned)(z[0]-'0')<=9) ){
        sq_number v;
        int k = sq_number_text(z, n, &v);
        if( ING_NUMBER_CHANGED(k) ) return ing_fail_number(g, pos, z, n, 1, k, col);
      }
      return ing_put_text(g, sl, SQ_INGEST_V_TEXT, z, n, pos);
    }
    default:   /* SQ_INGEST_K_JSON */
      if( strict && (aff==SQ_INGEST_AFF_INTEGER || aff==SQ_INGEST_AFF_REAL) ){
        return ing_fail_pos(g, SQ_INGEST_E_STRICT, pos, g->cur_key, g->cur_nkey,
                            "a nested object/array cannot go into %s column %s (strict mode)",
                            ing_aff_name(aff), g->cols[col].name);
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
      if( !ING_KIND_OK(g, c, flag) ) return ing_fail_kind(g, c, kind, pos);
    }
    if( ing_set(g, c, kind, integer, z, n, pos) ) return SQ_INGEST_ERROR;
  }
  return SQ_INGEST_OK;
}

int sq_ingest_value_event(sq_ingest *g, int kind, const char *text, size_t n, const sq_ingest_pos *pos){
  int integer = 0, rc;
  if( g->err.code ) return SQ_INGEST_ERROR;
  if( g->rec_bad ) return SQ_INGEST_OK;
  if( !g->in_record || !g->have_field || g->whole ){
    return ing_fail_pos(g, SQ_INGEST_E_MISUSE, pos, 0, 0, "a value without a field");
  }
  if( kind<SQ_INGEST_K_NULL || kind>SQ_INGEST_K_JSON ){
    return ing_fail_pos(g, SQ_INGEST_E_MISUSE, pos, 0, 0, "no value kind %d", kind);
  }
  if( !text ){ text = ""; n = 0; }
  if( kind==SQ_INGEST_K_NUMBER ){
    if( !ing_is_json_number(text, n) ){
      return ing_fail_pos(g, SQ_INGEST_E_MISUSE, pos, 0, 0, "a NUMBER value that is no number literal");
    }
    integer = memchr(text, '.', n)==0 && memchr(text, 'e', n)==0 && memchr(text, 'E', n)==0;
  }
  rc = ing_scalar(g, kind, integer, text, n, pos);
  g->have_field = 0;
  g->ncur = 0;
  return rc;
}

int sq_ingest_field_columns(sq_ingest *g, int index, const int **cols){
  int t, other = -1;
  if( ing_prepare(g)!=SQ_INGEST_OK || index<0 ) return 0;
  if( g->nfield==0 ){
    if( index>=g->ncol ) return 0;
    *cols = &g->ident[index];
    return 1;
  }
  if( index>=g->nfield || !g->fnames[index] ) return 0;
  t = g->ftarget[index];
  if( t==-2 ) t = ing_resolve(g, g->fnames[index], (size_t)g->fnlen[index], &other);
  if( t<0 ) return 0;       /* none, or two by case: its first use says so */
  *cols = &g->tcols[g->targets[t].start];
  return g->targets[t].n;
}

/* The plan of field `index` of a CSV-like input (fcol, or position i →
** column i without names): the same checks as ing_take_field (a DEFAULT
** column left out, a second field for the column), no key lookup, no copy
** of the name.  Returns the column the field's value goes to (its
** bookkeeping done), ING_FIELD_SKIP for a field no column takes, or
** ING_FIELD_SLOW when sq_ingest_field_index() must decide. */
#define ING_FIELD_SKIP (-2)
#define ING_FIELD_SLOW (-1)
ING_INLINE int ing_field_column(sq_ingest *g, int index){
  int c = -1;
  if( !g->err.code && g->in_record && !g->whole && !g->have_field && g->nrow>0 && index>=0 ){
    if( g->nfield>0 ){
      if( index<g->nfield ) c = g->fcol[index];
    }else if( index<g->ncol ){
      c = index;
    }
  }
  if( c<0 ){
    if( c==-3 && !g->strict ){    /* a field no column takes */
      g->field_pos++;
      return ING_FIELD_SKIP;
    }
    return ING_FIELD_SLOW;
  }
  if( g->seen[c]!=g->nrec+1 && !g->omitted[c] ){
    g->field_pos++;
    g->seen[c] = g->nrec+1;
    g->seen_pos[c] = -1;
    g->seen_fld[c] = g->nfield>0 ? index : -1;
    g->cur_fld = g->seen_fld[c];
    if( g->cur_fld>=0 ){
      g->cur_key = g->fnames[index];
      g->cur_nkey = (size_t)g->fnlen[index];
    }else{
      g->cur_key = 0;
      g->cur_nkey = 0;
    }
    return c;
  }
  return ING_FIELD_SLOW;
}

/* One field of a CSV-like input: sq_ingest_field_index() then
** sq_ingest_value_event() (K_STRING, or K_NULL when z is NULL) in one call.
** A field that feeds one column takes the plan of ing_field_column, then
** the coercion of ing_set. */
int sq_ingest_field_text(sq_ingest *g, int index, const char *z, size_t n, const sq_ingest_pos *pos){
  int c = ing_field_column(g, index), rc;
  if( c==ING_FIELD_SKIP ) return SQ_INGEST_OK;
  if( c>=0 ){
    if( !z ){
      g->slots[c].type = SQ_INGEST_V_NULL;
      return SQ_INGEST_OK;
    }
    return ing_set(g, c, SQ_INGEST_K_STRING, 0, z, n, pos);
  }
  rc = sq_ingest_field_index(g, index, pos);
  if( rc ) return rc;
  return sq_ingest_value_event(g, z ? SQ_INGEST_K_STRING : SQ_INGEST_K_NULL, z, z ? n : 0, pos);
}

int sq_ingest_field_number(sq_ingest *g, int index, const char *z, size_t n,
                           const sq_ingest_value *v, const sq_ingest_pos *pos){
  int c = ing_field_column(g, index), rc;
  if( c==ING_FIELD_SKIP ) return SQ_INGEST_OK;
  if( c>=0 ){
    const IngCol *col = &g->cols[c];
    if( !col->is_date && (v->type==SQ_INGEST_V_INTEGER ? col->aff==SQ_INGEST_AFF_INTEGER
                                                       : col->aff==SQ_INGEST_AFF_REAL) ){
      g->slots[c].type = v->type;
      g->slots[c].i = v->i;
      g->slots[c].r = v->r;
      return SQ_INGEST_OK;
    }
    return ing_set(g, c, SQ_INGEST_K_STRING, 0, z, n, pos);
  }
  rc = sq_ingest_field_index(g, index, pos);
  if( rc ) return rc;
  return sq_ingest_value_event(g, SQ_INGEST_K_STRING, z, n, pos);
}

/* The raw text of the row's record, ending at offset end
** (sq_ingest_set_row_raw). */
#if defined(__GNUC__) || defined(__clang__)
__attribute__((noinline))   /* (off the path of the rows without it) */
#endif
static void ing_row_raw(sq_ingest *g, uint64_t end){
  sq_ingest_row *row = &g->row;
  if( !g->on_reject || g->whole ){ row->raw = 0; return; }
  row->raw = sq_ingest_rawtext_get(&g->raw, g->rec_pos.offset, end, &row->nraw, &row->raw_truncated);
}

/* Ends the record: the row to the callback (with sq_ingest_set_row_raw
** its raw text, set by the caller: ing_row_raw).  Returns SQ_INGEST_OK,
** SQ_INGEST_PAUSED or SQ_INGEST_ERROR. */
static int ing_end(sq_ingest *g){
  sq_ingest_row *row = &g->row;
  int i, n, rc;
  if( g->whole ){
    sq_ingest_value *v = &g->slots[0];
    v->type = SQ_INGEST_V_JSON;
    v->text = g->arena.z ? g->arena.z : "";
    v->len = (size_t)g->arena.n;
    n = 1;
  }else{
    int64_t stamp = g->nrec+1;
    if( g->nrow==0 ){
      for(i=0; i<g->ncol; i++){
        if( (g->cols[i].flags & SQ_INGEST_COL_DEFAULT) && !g->named0[i] ) g->omitted[i] = 1;
      }
    }
    for(i=0; i<g->ncol; i++){
      sq_ingest_value *v = &g->slots[i];
      if( g->seen[i]!=stamp ){
        v->type = g->omitted[i] ? SQ_INGEST_V_OMITTED : SQ_INGEST_V_NULL;
      }else if( v->type>=SQ_INGEST_V_TEXT ){    /* TEXT, JSON */
        v->text = v->len>0 ? g->arena.z + v->i : "";
      }
    }
    n = g->ncol;
  }
  row->index = g->nrec;
  row->offset = g->rec_pos.offset;
  row->line = g->rec_pos.line;
  row->column = g->rec_pos.column;
  row->ncol = n;
  row->values = g->slots;
  rc = g->on_row ? g->on_row(g->user, row) : SQ_INGEST_CONTINUE;
  if( rc!=SQ_INGEST_CONTINUE && rc!=SQ_INGEST_PAUSE ){
    if( rc==SQ_INGEST_NOMEM ) ing_nomem(g);
    else ing_fail_pos(g, SQ_INGEST_E_ABORTED, &g->rec_pos, 0, 0, "stopped by the row callback");
    g->in_record = 0;
    return SQ_INGEST_ERROR;
  }
  g->in_record = 0;
  g->nrec++;
  g->nrow++;
  return rc==SQ_INGEST_PAUSE ? SQ_INGEST_PAUSED : SQ_INGEST_OK;
}

int sq_ingest_end_record(sq_ingest *g, const sq_ingest_pos *pos){
  if( g->err.code ) return SQ_INGEST_ERROR;
  if( g->rec_bad ) return sq_ingest_end_bad_record(g, pos ? pos->offset : g->rec_pos.offset);
  if( !g->in_record || g->whole ) return ing_fail_pos(g, SQ_INGEST_E_MISUSE, pos, 0, 0, "a record ends outside a record");
  if( g->row_raw ) ing_row_raw(g, pos ? pos->offset : g->rec_pos.offset);
  return ing_end(g);
}

int sq_ingest_fail(sq_ingest *g, int code, const char *message, const sq_ingest_pos *pos){
  if( code==SQ_INGEST_E_NONE ) code = SQ_INGEST_E_MISUSE;
  return ing_fail_pos(g, code, pos, 0, 0, "%s", message ? message : "error");
}

/* ------------------------------------------------------------ the JSON driver: set-up */

int sq_ingest_json_layout(sq_ingest *g, int layout){
  if( ing_config_closed(g, "the layout set") ) return SQ_INGEST_ERROR;
  if( layout<SQ_INGEST_LAYOUT_ARRAY || layout>SQ_INGEST_LAYOUT_AUTO ){
    return ing_fail_pos(g, SQ_INGEST_E_CONFIG, 0, 0, 0, "no layout %d", layout);
  }
  ing_free_path(g);
  g->layout = layout;
  return SQ_INGEST_OK;
}

static int ing_add_step(sq_ingest *g, int is_index, int64_t index, const char *key, int nkey){
  IngStep *a;
  if( g->nstep>=SQ_JSON_MAX_DEPTH ){
    return ing_fail_pos(g, SQ_INGEST_E_CONFIG, 0, 0, 0, "a path deeper than %d steps", SQ_JSON_MAX_DEPTH);
  }
  a = sqlite3_realloc64(g->steps, sizeof(IngStep)*((sqlite3_uint64)g->nstep+1));
  if( !a ) return ing_nomem(g);
  g->steps = a;
  memset(&a[g->nstep], 0, sizeof(IngStep));
  a[g->nstep].is_index = is_index;
  a[g->nstep].index = index;
  if( !is_index ){
    a[g->nstep].key = sqlite3_malloc64((sqlite3_uint64)nkey+1);
    if( !a[g->nstep].key ) return ing_nomem(g);
    memcpy(a[g->nstep].key, key, (size_t)nkey);
    a[g->nstep].key[nkey] = 0;
    a[g->nstep].nkey = nkey;
  }
  g->nstep++;
  g->layout = 0;
  return SQ_INGEST_OK;
}

int sq_ingest_json_path_key(sq_ingest *g, const char *key, int nkey){
  if( ing_config_closed(g, "a path step added") ) return SQ_INGEST_ERROR;
  if( !key ) return ing_fail_pos(g, SQ_INGEST_E_CONFIG, 0, 0, 0, "a path key that is NULL");
  if( nkey<0 ) nkey = (int)strlen(key);
  return ing_add_step(g, 0, 0, key, nkey);
}

int sq_ingest_json_path_index(sq_ingest *g, int64_t index){
  if( ing_config_closed(g, "a path step added") ) return SQ_INGEST_ERROR;
  if( index<0 ) return ing_fail_pos(g, SQ_INGEST_E_CONFIG, 0, 0, 0, "a negative path index");
  return ing_add_step(g, 1, index, 0, 0);
}

int sq_ingest_json_path(sq_ingest *g, const char *z, int n){
  const char *s, *e;
  if( ing_config_closed(g, "the path set") ) return SQ_INGEST_ERROR;
  ing_free_path(g);
  if( !z ){ g->layout = SQ_INGEST_LAYOUT_AUTO; return SQ_INGEST_OK; }
  if( n<0 ) n = (int)strlen(z);
  if( n==0 || (n==1 && z[0]=='$') ){ g->layout = SQ_INGEST_LAYOUT_AUTO; return SQ_INGEST_OK; }
  if( n==6 && sqlite3_strnicmp(z, "ndjson", 6)==0 ){ g->layout = SQ_INGEST_LAYOUT_NDJSON; return SQ_INGEST_OK; }
  s = z; e = z+n;
  if( *s!='$' ) goto bad;
  s++;
  g->layout = 0;
  while( s<e ){
    if( *s=='.' ){
      s++;
      if( s<e && *s=='"' ){
        const char *b = ++s;
        while( s<e && *s!='"' ) s++;
        if( s>=e ) goto bad;
        if( ing_add_step(g, 0, 0, b, (int)(s-b)) ) goto fail;
        s++;
      }else{
        const char *b = s;
        while( s<e && *s!='.' && *s!='[' ) s++;
        if( s==b ) goto bad;
        if( ing_add_step(g, 0, 0, b, (int)(s-b)) ) goto fail;
      }
    }else if( *s=='[' ){
      int64_t v = 0;
      s++;
      if( s>=e || !(*s>='0' && *s<='9') ) goto bad;
      while( s<e && *s>='0' && *s<='9' ){
        v = v*10 + (*s-'0');
        if( v>((int64_t)1<<40) ) goto bad;
        s++;
      }
      if( s>=e || *s!=']' ) goto bad;
      s++;
      if( ing_add_step(g, 1, v, 0, 0) ) goto fail;
    }else{
      goto bad;
    }
  }
  g->path_text = sqlite3_malloc64((sqlite3_uint64)n+1);
  if( !g->path_text ) return ing_nomem(g);
  memcpy(g->path_text, z, (size_t)n);
  g->path_text[n] = 0;
  return SQ_INGEST_OK;
bad:
  ing_free_path(g);
  g->layout = SQ_INGEST_LAYOUT_AUTO;
  {
    sqlite3_str *m = sqlite3_str_new(0);
    char *msg;
    int rc;
    sqlite3_str_appendall(m, "invalid path ");
    sq_str_value(m, z, n, 1);
    sqlite3_str_appendall(m, " (expected '$', '$.key', '$.\"key\"', '$[N]' steps, or 'ndjson')");
    msg = sqlite3_str_finish(m);
    if( !msg ) return ing_nomem(g);
    rc = ing_fail_pos(g, SQ_INGEST_E_CONFIG, 0, 0, 0, "%s", msg);
    sqlite3_free(msg);
    return rc;
  }
fail:
  ing_free_path(g);
  return SQ_INGEST_ERROR;
}

/* "path 'P' WHAT" (P as given, or written from the steps). */
static int ing_fail_path(sq_ingest *g, const sq_ingest_pos *pos, const char *what){
  sqlite3_str *m = sqlite3_str_new(0);
  char *msg;
  int rc;
  sqlite3_str_appendall(m, "path ");
  if( g->path_text ){
    sq_str_value(m, g->path_text, (sqlite3_int64)strlen(g->path_text), 1);
  }else{
    sqlite3_str *p = sqlite3_str_new(0);
    char *pz;
    int i;
    sqlite3_str_appendall(p, "$");
    for(i=0; i<g->nstep; i++){
      const IngStep *st = &g->steps[i];
      if( st->is_index ) sqlite3_str_appendf(p, "[%lld]", (long long)st->index);
      else{
        int j, plain = st->nkey>0;
        for(j=0; j<st->nkey; j++){
          char c = st->key[j];
          if( !((c>='a' && c<='z') || (c>='A' && c<='Z') || (c>='0' && c<='9') || c=='_') ) plain = 0;
        }
        if( plain ) sqlite3_str_appendf(p, ".%.*s", st->nkey, st->key);
        else sqlite3_str_appendf(p, ".\"%.*s\"", st->nkey, st->key);
      }
    }
    pz = sqlite3_str_finish(p);
    if( !pz ){ sqlite3_free(sqlite3_str_finish(m)); return ing_nomem(g); }
    sq_str_value(m, pz, (sqlite3_int64)strlen(pz), 1);
    sqlite3_free(pz);
  }
  sqlite3_str_appendf(m, " %s", what);
  msg = sqlite3_str_finish(m);
  if( !msg ) return ing_nomem(g);
  rc = ing_fail_pos(g, SQ_INGEST_E_LAYOUT, pos, 0, 0, "%s", msg);
  sqlite3_free(msg);
  return rc;
}

/* ------------------------------------------------------------ the JSON driver: tokens */

#define ING_POS(t) sq_ingest_pos pos_; pos_.offset = (t)->offset; pos_.line = (t)->line; pos_.column = (t)->column

static const char *ing_token_kind(int ty){
  switch( ty ){
    case SQ_JSON_BEGIN_OBJECT: return "an object";
    case SQ_JSON_BEGIN_ARRAY: return "an array";
    case SQ_JSON_STRING: return "a string";
    case SQ_JSON_NUMBER: return "a number";
    case SQ_JSON_NULL: return "null";
    default: return "a boolean";
  }
}

static int ing_is_value_start(int ty){
  return ty!=SQ_JSON_KEY && ty!=SQ_JSON_END_OBJECT && ty!=SQ_JSON_END_ARRAY;
}

/* The parser's status for an assembler result. */
#define ING_JSON_STATUS(rc) ((rc)==SQ_INGEST_OK ? SQ_JSON_CONTINUE : (rc)==SQ_INGEST_PAUSED ? SQ_JSON_PAUSE : 2)

/* A token inside a record (objects → columns): the hot path.  Each kind
** of token has its own small function, tail-called from the dispatcher
** (ing_json_event), so that none pays for the registers of the others. */

static ING_NOINLINE int ing_tok_key(sq_ingest *g, const sq_json_token *t){
  return ing_key(g, t->text, t->len, ING_TOK) ? 2 : SQ_JSON_CONTINUE;
}

static ING_NOINLINE int ing_tok_number(sq_ingest *g, const sq_json_token *t){
  return ing_scalar(g, SQ_INGEST_K_NUMBER, (t->flags & SQ_JSON_F_INTEGER)!=0, t->text, t->len, ING_TOK)
         ? 2 : SQ_JSON_CONTINUE;
}

static ING_NOINLINE int ing_tok_string(sq_ingest *g, const sq_json_token *t){
  return ing_scalar(g, SQ_INGEST_K_STRING, 0, t->text, t->len, ING_TOK) ? 2 : SQ_JSON_CONTINUE;
}

static ING_NOINLINE int ing_tok_literal(sq_ingest *g, int kind){
  return ing_scalar(g, kind, 0, 0, 0, ING_TOK) ? 2 : SQ_JSON_CONTINUE;
}

/* An object or array as a member's value begins: captured as JSON text. */
static ING_NOINLINE int ing_tok_nest_begin(sq_ingest *g, const sq_json_token *t){
  int j, rc;
  for(j=0; j<g->ncur; j++){
    if( !ING_KIND_OK(g, g->cur[j], SQ_INGEST_COL_NESTED) ){
      ing_fail_kind(g, g->cur[j], SQ_INGEST_K_JSON, ING_TOK);
      return 2;
    }
  }
  if( g->strict_values ){
    for(j=0; j<g->ncur; j++){
      int aff = g->cols[g->cur[j]].aff;
      if( aff==SQ_INGEST_AFF_INTEGER || aff==SQ_INGEST_AFF_REAL ){
        ing_fail_pos(g, SQ_INGEST_E_STRICT, ING_TOK, g->cur_key, g->cur_nkey,
                     "a nested %s cannot go into %s column %s (strict mode)",
                     t->type==SQ_JSON_BEGIN_OBJECT ? "object" : "array",
                     ing_aff_name(aff), g->cols[g->cur[j]].name);
        return 2;
      }
    }
  }
  g->cap_on = 1;
  g->cap_sep = 0;
  g->cap_off = g->arena.n;
  rc = ing_json_token(&g->arena, &g->cap_sep, t, g->max_rec);
  if( rc ){ ing_buf_fail(g, rc, ING_TOK); return 2; }
  return SQ_JSON_CONTINUE;
}

/* ... and ends: the text goes to the member's columns. */
static ING_NOINLINE int ing_tok_nest_end(sq_ingest *g, const sq_json_token *t){
  int j, rc = ing_json_token(&g->arena, &g->cap_sep, t, g->max_rec);
  if( rc ){ ing_buf_fail(g, rc, ING_TOK); return 2; }
  g->cap_on = 0;
  for(j=0; j<g->ncur; j++){
    sq_ingest_value *sl = &g->slots[g->cur[j]];
    sl->type = SQ_INGEST_V_JSON;
    sl->i = g->cap_off;
    sl->len = (size_t)(g->arena.n - g->cap_off);
  }
  return SQ_JSON_CONTINUE;
}

/* A token inside a nested value being captured. */
static ING_NOINLINE int ing_tok_nested(sq_ingest *g, const sq_json_token *t){
  int rc = ing_json_token(&g->arena, &g->cap_sep, t, g->max_rec);
  if( rc ){ ing_buf_fail(g, rc, ING_TOK); return 2; }
  return SQ_JSON_CONTINUE;
}

/* The record's END_OBJECT, t. */
static ING_NOINLINE int ing_tok_end_record(sq_ingest *g, const sq_json_token *t){
  int rc;
  if( g->row_raw ) ing_row_raw(g, t->offset+1);
  rc = ing_end(g);
  return ING_JSON_STATUS(rc);
}

ING_INLINE int ing_object_token(sq_ingest *g, const sq_json_token *t){
  int d = t->depth, rd = g->row_depth;
  if( d==rd+1 ){
    int ty = t->type;
    if( ty==SQ_JSON_KEY ) return ing_tok_key(g, t);
    if( g->ncur==0 ) return SQ_JSON_CONTINUE;     /* the value of an ignored key: skipped */
    switch( ty ){
      case SQ_JSON_NUMBER: return ing_tok_number(g, t);
      case SQ_JSON_STRING: return ing_tok_string(g, t);
      case SQ_JSON_TRUE:   return ing_tok_literal(g, SQ_INGEST_K_TRUE);
      case SQ_JSON_FALSE:  return ing_tok_literal(g, SQ_INGEST_K_FALSE);
      case SQ_JSON_NULL:   return ing_tok_literal(g, SQ_INGEST_K_NULL);
      case SQ_JSON_BEGIN_OBJECT:
      case SQ_JSON_BEGIN_ARRAY: return ing_tok_nest_begin(g, t);
      default:             return g->cap_on ? ing_tok_nest_end(g, t) : SQ_JSON_CONTINUE;
    }
  }
  if( d==rd ) return ing_tok_end_record(g, t);
  return g->cap_on ? ing_tok_nested(g, t) : SQ_JSON_CONTINUE;
}

/* A token inside a whole value. */
static ING_NOINLINE int ing_whole_token(sq_ingest *g, const sq_json_token *t){
  int rc = ing_json_token(&g->arena, &g->wsep, t, g->max_rec);
  if( rc ){ ing_buf_fail(g, rc, ING_TOK); return 2; }
  if( t->depth==g->row_depth && (t->type==SQ_JSON_END_OBJECT || t->type==SQ_JSON_END_ARRAY) ){
    rc = ing_end(g);
    return ING_JSON_STATUS(rc);
  }
  return SQ_JSON_CONTINUE;
}

/* The first token of an element of the selected array (or an NDJSON value). */
static int ing_record_start(sq_ingest *g, const sq_json_token *t){
  int ty = t->type;
  ING_POS(t);
  if( g->whole ){
    int rc;
    g->in_record = 1;
    g->rec_pos = pos_;
    g->arena.n = 0;
    g->wsep = 0;
    rc = ing_json_token(&g->arena, &g->wsep, t, g->max_rec);
    if( rc ){ ing_buf_fail(g, rc, &pos_); return 2; }
    if( ty==SQ_JSON_BEGIN_OBJECT || ty==SQ_JSON_BEGIN_ARRAY ) return SQ_JSON_CONTINUE;
    rc = ing_end(g);
    return ING_JSON_STATUS(rc);
  }
  if( ty!=SQ_JSON_BEGIN_OBJECT ){
    if( g->on_reject ){ g->in_record = 1; g->rec_pos = pos_; }
    ing_fail_pos(g, SQ_INGEST_E_LAYOUT, &pos_, 0, 0, "expected an object, found %s "
                 "(rows are read from JSON objects)", ing_token_kind(ty));
    return 2;
  }
  ing_begin(g, &pos_);
  return SQ_JSON_CONTINUE;
}

/* Tokens outside a record: layouts and paths. */
#if defined(__GNUC__) || defined(__clang__)
__attribute__((noinline))
#endif
static int ing_outside_token(sq_ingest *g, const sq_json_token *t){
  int d = t->depth, ty = t->type;

  if( g->in_target ){
    if( d==g->row_depth && ing_is_value_start(ty) ) return ing_record_start(g, t);
    if( g->mode==M_ARRAY && ty==SQ_JSON_END_ARRAY && d==g->row_depth-1 ){
      g->in_target = 0;
      sq_json_path_match(g->pm, t);
    }
    return SQ_JSON_CONTINUE;
  }

  if( g->mode==M_AUTO ){
    /* the first token of the input: an array, or NDJSON */
    if( ty==SQ_JSON_BEGIN_ARRAY ){
      g->mode = M_ARRAY;
      g->row_depth = 1;
      g->in_target = 1;
      g->targets_seen = 1;
      return SQ_JSON_CONTINUE;
    }
    g->mode = M_NDJSON;
    g->row_depth = 0;
    g->in_target = 1;
    return ing_record_start(g, t);
  }

  /* path tracking (M_ARRAY, outside the selected array) */
  if( d==0 && g->targets_seen>0 && g->nstep==0 && ing_is_value_start(ty) ){
    ING_POS(t);
    ing_fail_pos(g, SQ_INGEST_E_LAYOUT, &pos_, 0, 0, "more than one top-level value after the "
                 "top-level array (for NDJSON whose lines are arrays, pass 'ndjson' as the path)");
    return 2;
  }
  switch( sq_json_path_match(g->pm, t) ){
    case SQ_JSON_PATH_ARRAY:
      g->in_target = 1;
      g->targets_seen++;
      g->row_depth = d+1;
      return SQ_JSON_CONTINUE;
    case SQ_JSON_PATH_OTHER: {
      ING_POS(t);
      if( g->nstep==0 ){
        ing_fail_pos(g, SQ_INGEST_E_LAYOUT, &pos_, 0, 0, "expected an array %sat the top level, found %s",
                     g->whole ? "" : "of objects ", ing_token_kind(ty));
      }else{
        ing_fail_path(g, &pos_, ty==SQ_JSON_BEGIN_OBJECT ? "selects an object, not an array"
                                                         : "selects a scalar, not an array");
      }
      return 2;
    }
    default:
      return SQ_JSON_CONTINUE;
  }
}

/* The next record (the common case of ing_record_start). */
static ING_NOINLINE int ing_tok_begin_record(sq_ingest *g, const sq_json_token *t){
  sq_ingest_pos pos;
  pos.offset = t->offset; pos.line = t->line; pos.column = t->column;
  ing_begin(g, &pos);
  return SQ_JSON_CONTINUE;
}

/* The parser's callback: a dispatcher that tail-calls one small function
** per kind of token. */
static int ing_json_event(void *user, const sq_json_token *t){
  sq_ingest *g = (sq_ingest*)user;
  g->tok = t;
  if( g->in_record ) return g->whole ? ing_whole_token(g, t) : ing_object_token(g, t);
  if( g->in_target && t->depth==g->row_depth && t->type==SQ_JSON_BEGIN_OBJECT && !g->whole ){
    return ing_tok_begin_record(g, t);
  }
  return ing_outside_token(g, t);
}

/* ------------------------------------------------------------ the JSON driver: input */

static int ing_json_event_rej(void *user, const sq_json_token *t);

static int ing_json_ready(sq_ingest *g){
  if( g->err.code ) return SQ_INGEST_ERROR;
  if( !g->prepared && ing_prepare(g) ) return SQ_INGEST_ERROR;
  if( !g->p ){
    g->p = sq_json_new(g->on_reject ? ing_json_event_rej : ing_json_event, g);
    if( !g->p ) return ing_nomem(g);
    sq_json_set_max_token(g->p, (size_t)g->max_rec);
    sq_json_set_options(g->p, g->mode==M_ARRAY ? 0 : SQ_JSON_OPT_MULTIPLE);
  }
  return SQ_INGEST_OK;
}

/* The parser failed: our own error (the callback aborted), or its. */
static int ing_parser_error(sq_ingest *g){
  const sq_json_error *e = sq_json_error_info(g->p);
  const char *msg = e->message;
  sq_ingest_pos pos;
  if( g->err.code ) return SQ_INGEST_ERROR;
  if( g->mode==M_ARRAY && g->nstep==0 && g->layout==SQ_INGEST_LAYOUT_AUTO && g->targets_seen>0
      && !g->in_target && e->code==SQ_JSON_E_SYNTAX && sq_json_depth(g->p)==0 ){
    /* The input began with an array, so it is one JSON value, not NDJSON
    ** (the parser runs in multi-value mode until the first token says
    ** which): say so, not "expected a newline between top-level values". */
    msg = "unexpected data after the top-level array";
  }
  pos.offset = e->offset;
  pos.line = e->line;
  pos.column = e->column;
  if( e->code==SQ_JSON_E_NOMEM ){
    ing_nomem(g);
    g->err.offset = pos.offset; g->err.line = pos.line; g->err.column = pos.column;
    return SQ_INGEST_ERROR;
  }
  return ing_fail_pos(g, e->code==SQ_JSON_E_TOO_LONG ? SQ_INGEST_E_TOO_BIG : SQ_INGEST_E_JSON,
                      &pos, 0, 0, "%s", msg);
}

/* ------------------------------------------------------------ rejecting records */

void sq_ingest_set_reject_callback(sq_ingest *g, sq_ingest_reject_callback cb, void *user){
  g->on_reject = cb;
  g->ruser = user;
  if( g->p ) sq_json_set_callback(g->p, cb ? ing_json_event_rej : ing_json_event, g);
}

int sq_ingest_rejecting(const sq_ingest *g){ return g->on_reject!=0; }
void sq_ingest_set_row_raw(sq_ingest *g, int on){
  g->row_raw = on!=0;
  g->row.raw = 0;
}
int64_t sq_ingest_rejected(const sq_ingest *g){ return g->nrej; }
int sq_ingest_record_bad(const sq_ingest *g){ return g->rec_bad; }

/* The record in progress is skipped: msg (taken) says why, at pos. */
static int ing_mark_bad(sq_ingest *g, int code, char *msg, const char *key, size_t nkey,
                        const sq_ingest_pos *pos){
  if( !msg ) return ing_nomem(g);
  sqlite3_free(g->rejmsg);
  sqlite3_free(g->rejkey);
  g->rejkey = 0;
  memset(&g->rej, 0, sizeof(g->rej));
  g->rejmsg = msg;
  g->rej.code = code;
  g->rej.message = msg;
  if( key ){
    g->rejkey = sqlite3_malloc64((sqlite3_uint64)nkey+1);
    if( !g->rejkey ) return ing_nomem(g);
    memcpy(g->rejkey, key, nkey);
    g->rejkey[nkey] = 0;
    g->rej.key = g->rejkey;
    g->rej.nkey = nkey;
  }
  g->rej.record = g->nrec;
  if( pos==ING_TOK ){
    if( g->tok ){ g->rej.offset = g->tok->offset; g->rej.line = g->tok->line; g->rej.column = g->tok->column; }
  }else if( pos ){
    g->rej.offset = pos->offset; g->rej.line = pos->line; g->rej.column = pos->column;
  }
  g->rec_bad = 1;
  g->in_record = 0;
  g->have_field = 0;
  g->ncur = 0;
  g->cap_on = 0;
  return SQ_INGEST_ERROR;
}

int sq_ingest_reject_record(sq_ingest *g, int code, const char *message, const sq_ingest_pos *pos){
  static const sq_ingest_pos none = {0, 0, 0};
  if( g->err.code ) return SQ_INGEST_ERROR;
  if( !g->on_reject ) return sq_ingest_fail(g, code, message, pos);
  if( g->rec_bad ) return SQ_INGEST_OK;                /* the first error stays */
  if( !g->in_record ){
    if( ing_prepare(g) ) return SQ_INGEST_ERROR;
    ing_begin(g, pos ? pos : &none);
  }
  ing_mark_bad(g, code, sqlite3_mprintf("%s", message ? message : "error"), 0, 0, pos);
  return g->err.code ? SQ_INGEST_ERROR : SQ_INGEST_OK;
}

void sq_ingest_rawtext_chunk(sq_ingest_rawtext *w, const void *bytes, size_t n, uint64_t base){
  w->z = (const unsigned char*)bytes;
  w->n = n;
  w->base = base;
}

void sq_ingest_rawtext_forget(sq_ingest_rawtext *w){
  w->pre_on = 0;
  w->z = 0;
}

void sq_ingest_rawtext_free(sq_ingest_rawtext *w){
  sqlite3_free(w->pre.z);
  sqlite3_free(w->out.z);
  memset(w, 0, sizeof(*w));
}

void sq_ingest_rawtext_keep(sq_ingest_rawtext *w, size_t consumed, uint64_t s){
  uint64_t from, end;
  if( !w->z ) return;
  if( s==UINT64_MAX ){
    sq_ingest_rawtext_forget(w);
    return;
  }
  /* (kept bytes are the input's at their absolute offsets, whichever record
  ** they were kept for: they are reused when s lies within them) */
  if( !w->pre_on || s<w->pre_start || s>w->pre_start+(uint64_t)w->pre.n
      || s-w->pre_start>=(uint64_t)SQ_INGEST_RAW_MAX ){
    w->pre.n = 0;
    w->pre_on = 1;
    w->pre_start = s;
  }
  from = w->pre_start + (uint64_t)w->pre.n;
  end = w->base + consumed;
  if( from>=w->base && from<end && w->pre.n<SQ_INGEST_RAW_MAX ){
    uint64_t k = end - from;
    if( k > (uint64_t)(SQ_INGEST_RAW_MAX - w->pre.n) ) k = (uint64_t)(SQ_INGEST_RAW_MAX - w->pre.n);
    if( sq_ingest_buf_put(&w->pre, (const char*)w->z + (from - w->base), (int64_t)k,
                          SQ_INGEST_RAW_MAX) ){
      w->pre_on = 0;   /* out of memory: no raw text */
    }
  }
  w->z = 0;
}

const char *sq_ingest_rawtext_get(sq_ingest_rawtext *w, uint64_t s, uint64_t end,
                                  size_t *nraw, int *truncated){
  uint64_t want, cur;
  IngBuf *o = &w->out;
  if( w->z && s>=w->base && end>=s && end<=w->base+w->n && end-s<=SQ_INGEST_RAW_MAX ){
    /* all in the chunk, whole: no copy */
    *nraw = (size_t)(end - s);
    *truncated = 0;
    return (const char*)w->z + (s - w->base);
  }
  o->n = 0;
  if( end<s ) end = s;
  want = end - s;
  *truncated = want > SQ_INGEST_RAW_MAX;
  if( *truncated ) want = SQ_INGEST_RAW_MAX;
  if( w->pre_on && s>=w->pre_start && s<w->pre_start+(uint64_t)w->pre.n ){
    int64_t at = (int64_t)(s - w->pre_start);
    int64_t k = w->pre.n - at < (int64_t)want ? w->pre.n - at : (int64_t)want;
    sq_ingest_buf_put(o, w->pre.z + at, k, SQ_INGEST_RAW_MAX);
  }
  cur = s + (uint64_t)o->n;
  if( w->z && (uint64_t)o->n<want && cur>=w->base && cur<w->base+w->n ){
    uint64_t k = w->base + w->n - cur;
    if( k > want - (uint64_t)o->n ) k = want - (uint64_t)o->n;
    sq_ingest_buf_put(o, (const char*)w->z + (cur - w->base), (int64_t)k, SQ_INGEST_RAW_MAX);
  }
  if( *truncated && o->n>0 ){
    /* never end inside a UTF-8 sequence */
    int64_t i = o->n - 1, back = 0;
    while( i>0 && back<3 && ((unsigned char)o->z[i] & 0xC0)==0x80 ){ i--; back++; }
    if( (unsigned char)o->z[i]>=0xC0 ){
      unsigned char b = (unsigned char)o->z[i];
      int len = b>=0xF0 ? 4 : b>=0xE0 ? 3 : 2;
      if( o->n - i < len ) o->n = i;
    }
  }
  *nraw = (size_t)o->n;
  return o->z ? o->z : "";
}

int sq_ingest_rawtext_byte(const sq_ingest_rawtext *w, uint64_t i){
  if( w->pre_on && i>=w->pre_start && i<w->pre_start+(uint64_t)w->pre.n ){
    return (unsigned char)w->pre.z[i - w->pre_start];
  }
  if( w->z && i>=w->base && i<w->base+w->n ) return w->z[i - w->base];
  return -1;
}

void sq_ingest_raw_chunk(sq_ingest *g, const void *bytes, size_t n, uint64_t base){
  sq_ingest_rawtext_chunk(&g->raw, bytes, n, base);
}

/* After a feed: the first bytes of a record still in progress are kept
** (up to SQ_INGEST_RAW_MAX), for its raw text if it is rejected. */
void sq_ingest_raw_keep(sq_ingest *g, size_t consumed, uint64_t pending){
  uint64_t s = (g->in_record || g->rec_bad || g->rej_resync) ? g->rec_pos.offset : pending;
  sq_ingest_rawtext_keep(&g->raw, consumed, s);
}

int sq_ingest_end_bad_record(sq_ingest *g, uint64_t end){
  sq_ingest_reject r;
  int rc;
  if( g->err.code ) return SQ_INGEST_ERROR;
  if( !g->rec_bad ) return ing_fail_pos(g, SQ_INGEST_E_MISUSE, 0, 0, 0, "no record is being skipped");
  memset(&r, 0, sizeof(r));
  r.raw = sq_ingest_rawtext_get(&g->raw, g->rec_pos.offset, end, &r.nraw, &r.truncated);
  r.index = g->nrec;
  r.offset = g->rec_pos.offset;
  r.line = g->rec_pos.line;
  r.column = g->rec_pos.column;
  r.error = &g->rej;
  r.field = g->rej.key;
  r.nfield = g->rej.nkey;
  g->rec_bad = 0;
  g->raw.pre_on = 0;
  g->nrec++;
  g->nrej++;
  if( g->nrow==0 && g->prepared ) memset(g->named0, 0, (size_t)g->ncol);
  rc = g->on_reject(g->ruser, &r);
  if( rc!=SQ_INGEST_CONTINUE ){
    if( rc==SQ_INGEST_NOMEM ) return ing_nomem(g);
    ing_fail_pos(g, SQ_INGEST_E_ABORTED, &g->rec_pos, 0, 0, "stopped by the reject callback");
    return SQ_INGEST_ERROR;
  }
  return SQ_INGEST_OK;
}

/* Where a scalar element's bytes end: after its literal (a string: after
** its closing quote, when it is in the current chunk). */
static uint64_t ing_scalar_end(const sq_ingest *g, const sq_json_token *t){
  uint64_t o = t->offset;
  switch( t->type ){
    case SQ_JSON_NULL: case SQ_JSON_TRUE: return o+4;
    case SQ_JSON_FALSE: return o+5;
    case SQ_JSON_NUMBER: return o+t->len;
    default: break;
  }
  {
    /* the closing quote, through the bytes kept and the current chunk */
    uint64_t i = o+1;
    int esc = 0;
    for(;;){
      int c = sq_ingest_rawtext_byte(&g->raw, i);
      if( c<0 ) break;
      if( esc ) esc = 0;
      else if( c=='\\' ) esc = 1;
      else if( c=='"' ) return i+1;
      i++;
    }
  }
  return o + t->len + 2;
}

/* The parser's callback when rejecting: the tokens of a skipped record
** are dropped until the record's end, which rejects it. */
static int ing_json_event_rej(void *user, const sq_json_token *t){
  sq_ingest *g = (sq_ingest*)user;
  int rc, ty = t->type;
  if( !g->rec_bad ){
    rc = ing_json_event(user, t);
    if( rc!=2 || !g->rec_bad ) return rc;
    /* t made the record bad: an element that is a scalar ends here */
    if( t->depth==g->row_depth && ty!=SQ_JSON_BEGIN_OBJECT && ty!=SQ_JSON_BEGIN_ARRAY ){
      uint64_t end = (ty==SQ_JSON_END_OBJECT || ty==SQ_JSON_END_ARRAY) ? t->offset+1 : ing_scalar_end(g, t);
      return sq_ingest_end_bad_record(g, end)==SQ_INGEST_OK ? SQ_JSON_CONTINUE : 2;
    }
    return SQ_JSON_CONTINUE;
  }
  g->tok = t;
  if( t->depth==g->row_depth && (ty==SQ_JSON_END_OBJECT || ty==SQ_JSON_END_ARRAY) ){
    return sq_ingest_end_bad_record(g, t->offset+1)==SQ_INGEST_OK ? SQ_JSON_CONTINUE : 2;
  }
  return SQ_JSON_CONTINUE;
}

/* A syntax error of the parser while rejecting: in NDJSON the line's
** record is skipped up to the line end (rej_resync); elsewhere it stops,
** saying why it cannot be skipped. */
static int ing_json_syntax_rej(sq_ingest *g){
  const sq_json_error *e = sq_json_error_info(g->p);
  sq_ingest_pos pos;
  if( g->err.code ) return SQ_INGEST_ERROR;
  if( g->mode!=M_NDJSON || (e->code!=SQ_JSON_E_SYNTAX && e->code!=SQ_JSON_E_UTF8
                             && e->code!=SQ_JSON_E_DEPTH && e->code!=SQ_JSON_E_TRUNCATED) ){
    int rc = ing_parser_error(g);
    if( g->err.code==SQ_INGEST_E_JSON && g->errmsg ){
      char *m = sqlite3_mprintf("%s (a syntax error can be skipped only in NDJSON, at the line end: "
                                "inside a JSON array the next element cannot be found safely)", g->errmsg);
      if( m ){ sqlite3_free(g->errmsg); g->errmsg = m; g->err.message = m; }
    }
    return rc;
  }
  pos.offset = e->offset;
  pos.line = e->line;
  pos.column = e->column;
  if( !g->in_record && !g->rec_bad ){
    /* outside a value: the rejected record is the line from its start, or,
    ** after a record that ended on this line (rec_pos is still its start),
    ** the text from the error on */
    if( g->nrec>0 && g->rec_pos.line==e->line ){
      g->rec_pos = pos;
    }else{
      g->rec_pos.offset = e->offset - (e->column>0 ? e->column-1 : 0);
      g->rec_pos.line = e->line;
      g->rec_pos.column = 1;
    }
  }
  if( g->rec_bad ){
    g->rec_bad = 0;   /* (a syntax error in a skipped record: the line's error replaces it) */
  }
  g->in_record = 1;
  if( ing_mark_bad(g, SQ_INGEST_E_JSON, sqlite3_mprintf("%s", e->message), 0, 0, &pos)
      && g->err.code ) return SQ_INGEST_ERROR;
  g->rej_resync = 1;
  return SQ_INGEST_OK;
}

/* NDJSON, at the newline at absolute offset `at` (the parser has taken it):
** a value still open runs over the line end — one value per line — so the
** line is rejected and the parser starts again on the next line.  (No
** token is pending at a newline: a number or a literal ends there, and a
** raw newline in a string is the parser's error, found at that newline.) */
static int ing_json_line_end_rej(sq_ingest *g, uint64_t at){
  uint64_t line, start;
  sq_ingest_pos pos;
  if( !g->in_record && !g->rec_bad ) return SQ_INGEST_OK;
  sq_json_line(g->p, &line, &start);
  line--;                  /* the parser is on the next line already */
  pos.offset = at;
  pos.line = line;
  pos.column = at>=start ? at - start + 1 : 1;
  if( !g->rec_bad ){
    g->in_record = 1;
    if( ing_mark_bad(g, SQ_INGEST_E_JSON,
                     sqlite3_mprintf("the line ends inside the value (NDJSON: one value per line)"),
                     0, 0, &pos) && g->err.code ) return SQ_INGEST_ERROR;
  }
  if( sq_ingest_end_bad_record(g, at) ) return SQ_INGEST_ERROR;
  sq_json_restart_at(g->p, at + 1, line + 1);
  return SQ_INGEST_OK;
}

static int ing_json_feed_rej(sq_ingest *g, const unsigned char *b, size_t n){
  uint64_t abs0 = g->jabs;
  size_t used = 0;
  int rc;
  g->jconsumed = 0;
  sq_ingest_raw_chunk(g, b, n, abs0);
  for(;;){
    if( g->rej_resync ){
      const unsigned char *nl = used<n ? memchr(b+used, '\n', n-used) : 0;
      uint64_t line = g->rej.line;
      if( !nl ){ used = n; break; }
      used = (size_t)(nl - b) + 1;
      g->rej_resync = 0;
      if( sq_ingest_end_bad_record(g, abs0 + (uint64_t)(nl - b)) ) return SQ_INGEST_ERROR;
      sq_json_restart_at(g->p, abs0 + used, line + 1);
      continue;
    }
    if( used>=n ) break;
    {
      /* NDJSON (and input not known yet to be an array): fed line by line,
      ** so that a value running over a line end is found at that newline,
      ** however the input is cut, and the next line starts cleanly */
      size_t piece = n-used;
      const unsigned char *nl = g->mode!=M_ARRAY ? memchr(b+used, '\n', n-used) : 0;
      if( nl ) piece = (size_t)(nl - (b+used)) + 1;
      rc = sq_json_feed(g->p, b+used, piece);
      g->tok = 0;
      if( rc==SQ_JSON_OK ){
        used += piece;
        if( nl && g->mode==M_NDJSON && ing_json_line_end_rej(g, abs0 + used - 1) ) return SQ_INGEST_ERROR;
        if( used<n ) continue;
        break;
      }
    }
    if( rc==SQ_JSON_PAUSED ){
      used += sq_json_consumed(g->p);
      g->jconsumed = used;
      g->jabs = abs0 + used;
      sq_ingest_raw_keep(g, used, sq_json_pending_start(g->p));
      return SQ_INGEST_PAUSED;
    }
    if( rc==SQ_JSON_ERROR ){
      uint64_t at = sq_json_error_info(g->p)->offset;
      if( ing_json_syntax_rej(g) ) return SQ_INGEST_ERROR;
      if( at > abs0+used ) used = (size_t)(at - abs0);
      if( used>n ) used = n;
      continue;
    }
  }
  g->jconsumed = used;
  g->jabs = abs0 + used;
  {
    /* a chunk end: in NDJSON a line begun may be rejected from its start */
    uint64_t pending = sq_json_pending_start(g->p), line, start;
    if( g->mode==M_NDJSON ){
      sq_json_line(g->p, &line, &start);
      if( !(g->nrec>0 && g->rec_pos.line==line) && start<g->jabs && (pending==UINT64_MAX || start<pending) ){
        pending = start;
      }
    }
    sq_ingest_raw_keep(g, used, pending);
  }
  return SQ_INGEST_OK;
}

/* The end of the input while rejecting: a last line skipped or truncated. */
static int ing_json_finish_rej(sq_ingest *g){
  uint64_t end = g->jabs;
  int rc;
  if( !g->rej_resync ){
    rc = sq_json_finish(g->p);
    g->tok = 0;
    if( rc!=SQ_JSON_ERROR ) return SQ_INGEST_OK;
    if( ing_json_syntax_rej(g) ) return SQ_INGEST_ERROR;
  }
  g->rej_resync = 0;
  return sq_ingest_end_bad_record(g, end);
}

int sq_ingest_json_feed(sq_ingest *g, const void *bytes, size_t n){
  int rc;
  if( ing_json_ready(g) ) return SQ_INGEST_ERROR;
  if( g->on_reject ) return ing_json_feed_rej(g, (const unsigned char*)bytes, n);
  rc = sq_json_feed(g->p, bytes, n);
  g->tok = 0;
  if( rc==SQ_JSON_ERROR ) return ing_parser_error(g);
  return rc==SQ_JSON_PAUSED ? SQ_INGEST_PAUSED : SQ_INGEST_OK;
}

size_t sq_ingest_json_consumed(const sq_ingest *g){
  if( g->on_reject ) return g->jconsumed;
  return g->p ? sq_json_consumed(g->p) : 0;
}

uint64_t sq_ingest_json_offset(const sq_ingest *g){
  return g->p ? sq_json_offset(g->p) : 0;
}

int sq_ingest_json_finish(sq_ingest *g){
  int rc;
  if( ing_json_ready(g) ) return SQ_INGEST_ERROR;
  if( g->on_reject ){
    rc = ing_json_finish_rej(g);
    if( rc ) return rc;
  }else{
    rc = sq_json_finish(g->p);
    g->tok = 0;
    if( rc==SQ_JSON_ERROR ) return ing_parser_error(g);
  }
  if( g->err.code ) return SQ_INGEST_ERROR;
  if( g->mode==M_ARRAY && g->targets_seen==0 && g->nstep>0 ){
    sq_ingest_pos pos;
    pos.offset = sq_json_offset(g->p);
    pos.line = 0;
    pos.column = 0;
    rc = ing_fail_path(g, &pos, "not found");
    g->err.record = -1;
    return rc;
  }
  return SQ_INGEST_OK;
}
