/*
** sq_ingest.c — the ingest core: records of any input format → typed rows
** (sq_ingest.h is the manual).  A format driver hands it format events —
** a record begins, a field by key or position, a scalar value, the record
** ends — and it gives each record to the row callback as one value per
** column, coerced by the column's type, or rejects it.  The drivers live
** apart: sq_csv_ingest.c (CSV fields of sq_csv.c) calls the public events;
** sq_json_ingest.c (JSON tokens of sq_json.c), which works per token, the
** inline steps and the state of sq_ingest_internal.h.
**
** Layout of this file:
**   buffers
**   types: affinities and date columns of declared types
**   set-up: columns, key mappings, field names, options, preparing
**   errors
**   the row assembler: key → columns, coercion, records → rows (its
**     per-token steps are inline in sq_ingest_internal.h)
**   rejecting records, and a record's raw text across chunks
*/
#include "sq_ingest_internal.h"

#include <math.h>
#include <stdarg.h>
#include <string.h>

/* ------------------------------------------------------------ buffers */

int sq_ing_buf_grow(IngBuf *b, int64_t add, int64_t max){
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

int sq_ingest_buf_put(sq_ingest_buf *b, const char *s, int64_t n, int64_t max){
  int rc = 0;
  INGBUF_PUT(b, s, (size_t)n, max, rc);
  return rc;
}

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

const char *sq_ing_aff_name(int aff){
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
  g->err.message = "";
  g->err.record = -1;
  return g;
}

void sq_ingest_set_row_callback(sq_ingest *g, sq_ingest_row_callback on_row, void *user){
  g->on_row = on_row;
  g->user = user;
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
  if( g->drv_ops ) g->drv_ops->destroy(g);
  ing_clear_error(g);
  sqlite3_free(g->rejmsg);
  sqlite3_free(g->rejkey);
  sq_ingest_rawtext_free(&g->raw);
  sqlite3_free(g);
}

void sq_ingest_reset(sq_ingest *g){
  int i;
  ing_clear_error(g);
  g->in_record = 0;
  g->nrec = 0;
  g->nrow = 0;
  g->nrej = 0;
  g->rec_bad = 0;
  g->in_records = 0;
  sq_ingest_rawtext_forget(&g->raw);
  g->have_field = 0;
  g->ncur = 0;
  if( g->prepared ){
    for(i=0; i<g->ncol; i++){ g->seen[i] = 0; g->named0[i] = 0; g->omitted[i] = 0; }
  }
  if( g->drv_ops ) g->drv_ops->reset(g);
}

/* 1 (and an error) when the configuration can no longer change. */
int sq_ing_config_closed(sq_ingest *g, const char *what){
  if( g->err.code ) return 1;
  if( !g->prepared ) return 0;
  sq_ing_fail_pos(g, SQ_INGEST_E_CONFIG, 0, 0, 0, "%s after the input started", what);
  return 1;
}

int sq_ingest_add_column(sq_ingest *g, const char *name, int nname,
                         const char *type, int ntype, unsigned flags){
  IngCol *a;
  if( sq_ing_config_closed(g, "a column added") ) return -1;
  if( !name ){ sq_ing_fail_pos(g, SQ_INGEST_E_CONFIG, 0, 0, 0, "a column without a name"); return -1; }
  if( nname<0 ) nname = (int)strlen(name);
  if( type && ntype<0 ) ntype = (int)strlen(type);
  if( nname==0 ){ sq_ing_fail_pos(g, SQ_INGEST_E_CONFIG, 0, 0, 0, "a column without a name"); return -1; }
  a = sqlite3_realloc64(g->cols, sizeof(IngCol)*((sqlite3_uint64)g->ncol+1));
  if( !a ){ sq_ing_nomem(g); return -1; }
  g->cols = a;
  memset(&a[g->ncol], 0, sizeof(IngCol));
  a[g->ncol].name = sqlite3_malloc64((sqlite3_uint64)nname+1);
  if( !a[g->ncol].name ){ sq_ing_nomem(g); return -1; }
  memcpy(a[g->ncol].name, name, (size_t)nname);
  a[g->ncol].name[nname] = 0;
  a[g->ncol].nname = nname;
  a[g->ncol].aff = sq_ingest_affinity(type, type ? ntype : 0);
  a[g->ncol].is_date = sq_ingest_type_is_date(type, type ? ntype : 0);
  a[g->ncol].flags = flags;
  return g->ncol++;
}

int sq_ingest_set_column_type(sq_ingest *g, int column, int affinity, int is_date){
  if( sq_ing_config_closed(g, "a column type set") ) return SQ_INGEST_ERROR;
  if( column<0 || column>=g->ncol || affinity<SQ_INGEST_AFF_BLOB || affinity>SQ_INGEST_AFF_REAL ){
    return sq_ing_fail_pos(g, SQ_INGEST_E_CONFIG, 0, 0, 0, "no column %d or no affinity %d", column, affinity);
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
  if( sq_ing_config_closed(g, "a key mapping added") ) return SQ_INGEST_ERROR;
  if( !key || !column ) return sq_ing_fail_pos(g, SQ_INGEST_E_CONFIG, 0, 0, 0, "a key mapping without key or column");
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
    if( !m ) return sq_ing_nomem(g);
    rc = sq_ing_fail_pos(g, SQ_INGEST_E_CONFIG, 0, key, (size_t)nkey, "%s", m);
    sqlite3_free(m);
    return rc;
  }
  a = sqlite3_realloc64(g->maps, sizeof(IngMap)*((sqlite3_uint64)g->nmap+1));
  if( !a ) return sq_ing_nomem(g);
  g->maps = a;
  a[g->nmap].key = sqlite3_malloc64((sqlite3_uint64)nkey+1);
  if( !a[g->nmap].key ) return sq_ing_nomem(g);
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
    return sq_ing_fail_pos(g, SQ_INGEST_E_CONFIG, 0, 0, 0, "bad field index %d", index);
  }
  if( nname<0 ) nname = (int)strlen(name);
  if( index>=g->nfield ){
    int n = index+1, i;
    char **a = sqlite3_realloc64(g->fnames, sizeof(char*)*(sqlite3_uint64)n);
    int *l, *t;
    if( !a ) return sq_ing_nomem(g);
    g->fnames = a;
    l = sqlite3_realloc64(g->fnlen, sizeof(int)*(sqlite3_uint64)n);
    if( !l ) return sq_ing_nomem(g);
    g->fnlen = l;
    t = sqlite3_realloc64(g->ftarget, sizeof(int)*(sqlite3_uint64)n);
    if( !t ) return sq_ing_nomem(g);
    g->ftarget = t;
    t = sqlite3_realloc64(g->fcol, sizeof(int)*(sqlite3_uint64)n);
    if( !t ) return sq_ing_nomem(g);
    g->fcol = t;
    for(i=g->nfield; i<n; i++){ a[i] = 0; l[i] = 0; g->ftarget[i] = -1; t[i] = -1; }
    g->nfield = n;
  }
  sqlite3_free(g->fnames[index]);
  g->fnames[index] = sqlite3_malloc64((sqlite3_uint64)nname+1);
  if( !g->fnames[index] ) return sq_ing_nomem(g);
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
  if( g->drv_ops ) g->drv_ops->options(g);
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
    return sq_ing_nomem(g);
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

int sq_ing_prepare(sq_ingest *g){
  int i, n = g->ncol>0 ? g->ncol : 1;
  if( g->prepared ) return g->err.code ? SQ_INGEST_ERROR : SQ_INGEST_OK;
  if( g->err.code ) return SQ_INGEST_ERROR;
  if( !g->whole && g->ncol==0 ){
    return sq_ing_fail_pos(g, SQ_INGEST_E_CONFIG, 0, 0, 0, "no columns");
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
  if( !g->ident || !g->slots || !g->seen || !g->seen_pos || !g->seen_fld || !g->seen_koff
      || !g->seen_klen || !g->named0 || !g->omitted ){
    return sq_ing_nomem(g);
  }
  for(i=0; i<n; i++){
    g->ident[i] = i; g->seen[i] = 0; g->seen_pos[i] = -1; g->seen_fld[i] = -1;
    g->seen_koff[i] = 0; g->seen_klen[i] = -1;
    g->named0[i] = 0; g->omitted[i] = 0;
  }
  memset(g->slots, 0, sizeof(sq_ingest_value)*(size_t)n);
  g->prepared = 1;
  return SQ_INGEST_OK;
}

/* ------------------------------------------------------------ errors */

const sq_ingest_pos sq_ing_at_driver = {0, 0, 0};

/* pos, or where the driver is for SQ_ING_AT: 0 when there is no position. */
static const sq_ingest_pos *ing_where(const sq_ingest *g, const sq_ingest_pos *pos, sq_ingest_pos *at){
  if( pos!=SQ_ING_AT ) return pos;
  if( !g->drv_ops || !g->drv_ops->position(g, at) ) return 0;
  return at;
}

/* The error's position: pos, or where the driver is (SQ_ING_AT), or none. */
static void ing_err_pos(sq_ingest *g, const sq_ingest_pos *pos){
  sq_ingest_pos at;
  pos = ing_where(g, pos, &at);
  if( pos ){
    g->err.offset = pos->offset;
    g->err.line = pos->line;
    g->err.column = pos->column;
  }
}


/* The errors that reject one record (sq_ingest.h, REJECTING RECORDS). */
static int ing_is_record_error(int code){
  return code==SQ_INGEST_E_STRICT || code==SQ_INGEST_E_AMBIGUOUS || code==SQ_INGEST_E_OMITTED
      || code==SQ_INGEST_E_DUPLICATE || code==SQ_INGEST_E_LAYOUT;
}

int sq_ing_fail_pos(sq_ingest *g, int code, const sq_ingest_pos *pos,
                        const char *key, size_t nkey, const char *fmt, ...){
  va_list ap;
  if( g->err.code ) return SQ_INGEST_ERROR;     /* the first error stays */
  if( g->on_reject && g->in_record && !g->whole && ing_is_record_error(code) ){
    char *m;
    va_start(ap, fmt);
    m = sqlite3_vmprintf(fmt, ap);
    va_end(ap);
    return sq_ing_mark_bad(g, code, m, key, nkey, pos);
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
  g->err.record = (g->in_record || g->in_records) ? g->nrec : -1;
  ing_err_pos(g, pos);
  return SQ_INGEST_ERROR;
}

int sq_ing_nomem(sq_ingest *g){
  if( g->err.code ) return SQ_INGEST_ERROR;
  ing_clear_error(g);
  g->err.code = SQ_INGEST_E_NOMEM;
  g->err.message = "out of memory";
  g->err.record = (g->in_record || g->in_records) ? g->nrec : -1;
  return SQ_INGEST_ERROR;
}

/* Error of a failed buffer write (1: too big, 2: out of memory). */
int sq_ing_buf_fail(sq_ingest *g, int rc, const sq_ingest_pos *pos){
  if( rc==1 ){
    return sq_ing_fail_pos(g, SQ_INGEST_E_TOO_BIG, pos, 0, 0, "element larger than %lld bytes",
                        (long long)g->max_rec);
  }
  sq_ing_nomem(g);
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
  if( !m ) return sq_ing_nomem(g);
  rc = sq_ing_fail_pos(g, SQ_INGEST_E_STRICT, pos, g->cur_key, g->cur_nkey, "%s", m);
  sqlite3_free(m);
  return rc;
}

int sq_ing_fail_col(sq_ingest *g, const sq_ingest_pos *pos, const char *v, size_t n,
                        int quoted, const char *what, int col){
  char *after = sqlite3_mprintf(what, g->cols[col].name);
  int rc;
  if( !after ) return sq_ing_nomem(g);
  rc = ing_fail_value(g, pos, "", v, n, quoted, after);
  sqlite3_free(after);
  return rc;
}

const sq_ingest_error *sq_ingest_error_info(const sq_ingest *g){ return &g->err; }
int64_t sq_ingest_records(const sq_ingest *g){ return g->nrec; }

/* ------------------------------------------------------------ the row assembler */


int sq_ingest_begin_record(sq_ingest *g, const sq_ingest_pos *pos){
  static const sq_ingest_pos none = {0, 0, 0};
  if( sq_ing_prepare(g) ) return SQ_INGEST_ERROR;
  if( g->in_record ) return sq_ing_fail_pos(g, SQ_INGEST_E_MISUSE, pos, 0, 0, "a record begins inside a record");
  ing_begin(g, pos ? pos : &none);
  return SQ_INGEST_OK;
}

/* Two members of one record for column c: an error naming both keys. */
int sq_ing_fail_twice(sq_ingest *g, int c, const sq_ingest_pos *pos){
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
  if( !z ) return sq_ing_nomem(g);
  rc = sq_ing_fail_pos(g, SQ_INGEST_E_DUPLICATE, pos, g->cur_key, g->cur_nkey, "%s", z);
  sqlite3_free(z);
  return rc;
}

/* The target of a key: exact, else ASCII case-insensitive (two matches:
** -2, with *other set); -1: unknown. */
int sq_ing_resolve(const sq_ingest *g, const char *k, size_t n, int *other){
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


int sq_ingest_field_key(sq_ingest *g, const char *key, size_t n, const sq_ingest_pos *pos){
  if( g->err.code ) return SQ_INGEST_ERROR;
  if( g->rec_bad ) return SQ_INGEST_OK;
  if( !g->in_record ) return sq_ing_fail_pos(g, SQ_INGEST_E_MISUSE, pos, 0, 0, "a key outside a record");
  if( g->whole ) return sq_ing_fail_pos(g, SQ_INGEST_E_MISUSE, pos, 0, 0, "a key in whole-value mode");
  return ing_key(g, key ? key : "", key ? n : 0, pos);
}

int sq_ingest_field_index(sq_ingest *g, int index, const sq_ingest_pos *pos){
  if( g->err.code ) return SQ_INGEST_ERROR;
  if( g->rec_bad ) return SQ_INGEST_OK;
  if( !g->in_record ) return sq_ing_fail_pos(g, SQ_INGEST_E_MISUSE, pos, 0, 0, "a field outside a record");
  if( g->whole ) return sq_ing_fail_pos(g, SQ_INGEST_E_MISUSE, pos, 0, 0, "a field in whole-value mode");
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
        t = sq_ing_resolve(g, g->fnames[index], (size_t)g->fnlen[index], &other);
        if( t<=-2 ){
          return sq_ing_fail_pos(g, SQ_INGEST_E_AMBIGUOUS, pos, g->cur_key, g->cur_nkey,
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
      return sq_ing_fail_pos(g, SQ_INGEST_E_STRICT, pos, g->cur_key, g->cur_nkey,
                          "field %d has no column (strict mode)", index+1);
    }
    return SQ_INGEST_OK;
  }
  return ing_take_field(g, pos);
}

/* A string holding a number literal (-?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?). */
static int ing_is_number_literal(const char *s, size_t n){
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



/* The refusal of a number (sq_number.h) for column col: strict mode, or a
** number the column would change (ING_NUMBER_CHANGED). */
int sq_ing_fail_number(sq_ingest *g, const sq_ingest_pos *pos, const char *v, size_t n,
                           int quoted, int kind, int col){
  int aff = g->cols[col].aff;
  const char *why = kind==SQ_NUMBER_NOT || kind==SQ_NUMBER_REAL || kind==SQ_NUMBER_INTEGER
      ? (aff==SQ_INGEST_AFF_INTEGER ? "is not an integer" : "is not a number")
      : sq_number_refusal(kind);
  char *after = sqlite3_mprintf(" %s, column %s is %s%s", why, g->cols[col].name,
                                sq_ing_aff_name(aff), ING_NUMBER_CHANGED(kind) ? "" : " (strict mode)");
  int rc;
  if( !after ) return sq_ing_nomem(g);
  rc = ing_fail_value(g, pos, "", v, n, quoted, after);
  sqlite3_free(after);
  return rc;
}

/* Coerces one scalar into column col (the table of sq_ingest.h).
** `integer`: a NUMBER literal without fraction or exponent. */
/* A value of a kind column col does not take (SQ_INGEST_COL_KINDS): the
** record error. */
ING_NOINLINE int sq_ing_fail_kind(sq_ingest *g, int col, int kind, const sq_ingest_pos *pos){
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
  return sq_ing_fail_pos(g, SQ_INGEST_E_STRICT, pos, g->cur_key, g->cur_nkey,
                      "%s cannot go into %s column %s, which takes %s only (it would be stored changed)",
                      what, sq_ing_aff_name(g->cols[col].aff), g->cols[col].name, m ? takes : "null");
}




int sq_ingest_value_event(sq_ingest *g, int kind, const char *text, size_t n, const sq_ingest_pos *pos){
  int integer = 0, rc;
  if( g->err.code ) return SQ_INGEST_ERROR;
  if( g->rec_bad ) return SQ_INGEST_OK;
  if( !g->in_record || !g->have_field || g->whole ){
    return sq_ing_fail_pos(g, SQ_INGEST_E_MISUSE, pos, 0, 0, "a value without a field");
  }
  if( kind<SQ_INGEST_K_NULL || kind>SQ_INGEST_K_JSON ){
    return sq_ing_fail_pos(g, SQ_INGEST_E_MISUSE, pos, 0, 0, "no value kind %d", kind);
  }
  if( !text ){ text = ""; n = 0; }
  if( kind==SQ_INGEST_K_NUMBER ){
    if( !ing_is_number_literal(text, n) ){
      return sq_ing_fail_pos(g, SQ_INGEST_E_MISUSE, pos, 0, 0, "a NUMBER value that is no number literal");
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
  if( sq_ing_prepare(g)!=SQ_INGEST_OK || index<0 ) return 0;
  if( g->nfield==0 ){
    if( index>=g->ncol ) return 0;
    *cols = &g->ident[index];
    return 1;
  }
  if( index>=g->nfield || !g->fnames[index] ) return 0;
  t = g->ftarget[index];
  if( t==-2 ) t = sq_ing_resolve(g, g->fnames[index], (size_t)g->fnlen[index], &other);
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
ING_NOINLINE void sq_ing_row_raw(sq_ingest *g, uint64_t end){
  sq_ingest_row *row = &g->row;
  if( !g->on_reject || g->whole ){ row->raw = 0; return; }
  row->raw = sq_ingest_rawtext_get(&g->raw, g->rec_pos.offset, end, &row->nraw, &row->raw_truncated);
}

/* Ends the record: the row to the callback (with sq_ingest_set_row_raw
** its raw text, set by the caller: sq_ing_row_raw).  Returns SQ_INGEST_OK,
** SQ_INGEST_PAUSED or SQ_INGEST_ERROR. */
int sq_ing_end(sq_ingest *g){
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
    if( rc==SQ_INGEST_NOMEM ) sq_ing_nomem(g);
    else sq_ing_fail_pos(g, SQ_INGEST_E_ABORTED, &g->rec_pos, 0, 0, "stopped by the row callback");
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
  if( !g->in_record || g->whole ) return sq_ing_fail_pos(g, SQ_INGEST_E_MISUSE, pos, 0, 0, "a record ends outside a record");
  if( g->row_raw ) sq_ing_row_raw(g, pos ? pos->offset : g->rec_pos.offset);
  return sq_ing_end(g);
}

int sq_ingest_fail(sq_ingest *g, int code, const char *message, const sq_ingest_pos *pos){
  if( code==SQ_INGEST_E_NONE ) code = SQ_INGEST_E_MISUSE;
  return sq_ing_fail_pos(g, code, pos, 0, 0, "%s", message ? message : "error");
}

/* ------------------------------------------------------------ rejecting records */

void sq_ingest_set_reject_callback(sq_ingest *g, sq_ingest_reject_callback cb, void *user){
  g->on_reject = cb;
  g->ruser = user;
  if( g->drv_ops ) g->drv_ops->options(g);
}

int sq_ingest_rejecting(const sq_ingest *g){ return g->on_reject!=0; }
void sq_ingest_set_row_raw(sq_ingest *g, int on){
  g->row_raw = on!=0;
  g->row.raw = 0;
}
int64_t sq_ingest_rejected(const sq_ingest *g){ return g->nrej; }
int sq_ingest_record_bad(const sq_ingest *g){ return g->rec_bad; }

/* The record in progress is skipped: msg (taken) says why, at pos. */
int sq_ing_mark_bad(sq_ingest *g, int code, char *msg, const char *key, size_t nkey,
                    const sq_ingest_pos *pos){
  sq_ingest_pos at;
  if( !msg ) return sq_ing_nomem(g);
  sqlite3_free(g->rejmsg);
  sqlite3_free(g->rejkey);
  g->rejkey = 0;
  memset(&g->rej, 0, sizeof(g->rej));
  g->rejmsg = msg;
  g->rej.code = code;
  g->rej.message = msg;
  if( key ){
    g->rejkey = sqlite3_malloc64((sqlite3_uint64)nkey+1);
    if( !g->rejkey ) return sq_ing_nomem(g);
    memcpy(g->rejkey, key, nkey);
    g->rejkey[nkey] = 0;
    g->rej.key = g->rejkey;
    g->rej.nkey = nkey;
  }
  g->rej.record = g->nrec;
  pos = ing_where(g, pos, &at);
  if( pos ){
    g->rej.offset = pos->offset; g->rej.line = pos->line; g->rej.column = pos->column;
  }
  g->rec_bad = 1;
  g->in_record = 0;
  g->have_field = 0;
  g->ncur = 0;
  return SQ_INGEST_ERROR;
}

int sq_ingest_reject_record(sq_ingest *g, int code, const char *message, const sq_ingest_pos *pos){
  static const sq_ingest_pos none = {0, 0, 0};
  if( g->err.code ) return SQ_INGEST_ERROR;
  if( !g->on_reject ) return sq_ingest_fail(g, code, message, pos);
  if( g->rec_bad ) return SQ_INGEST_OK;                /* the first error stays */
  if( !g->in_record ){
    if( sq_ing_prepare(g) ) return SQ_INGEST_ERROR;
    ing_begin(g, pos ? pos : &none);
  }
  sq_ing_mark_bad(g, code, sqlite3_mprintf("%s", message ? message : "error"), 0, 0, pos);
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
  uint64_t s = (g->in_record || g->rec_bad) ? g->rec_pos.offset : pending;
  sq_ingest_rawtext_keep(&g->raw, consumed, s);
}

int sq_ingest_end_bad_record(sq_ingest *g, uint64_t end){
  sq_ingest_reject r;
  int rc;
  if( g->err.code ) return SQ_INGEST_ERROR;
  if( !g->rec_bad ) return sq_ing_fail_pos(g, SQ_INGEST_E_MISUSE, 0, 0, 0, "no record is being skipped");
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
    if( rc==SQ_INGEST_NOMEM ) return sq_ing_nomem(g);
    sq_ing_fail_pos(g, SQ_INGEST_E_ABORTED, &g->rec_pos, 0, 0, "stopped by the reject callback");
    return SQ_INGEST_ERROR;
  }
  return SQ_INGEST_OK;
}
