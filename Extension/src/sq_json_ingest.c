/*
** sq_json_ingest.c — JSON as a format of the ingest core: the driver from
** the tokens of the push parser (sq_json.c) to the core's rows
** (sq_json_ingest.h is the manual; sq_ingest.h the core's).
**
** The driver follows the layout or path to the selected records, turns
** each object's members into keys and values of the row assembler (its
** inline steps, sq_ingest_internal.h: a call per token would cost more
** than the step), captures nested values and whole values as minified
** JSON text, and, when rejecting, skips bad records (NDJSON: up to the
** line end).  Its state hangs in the core's driver slot, so that the
** public calls take the core (sq_ingest *) as the handle.
**
** Layout of this file:
**   the one JSON escaper and the token → minified JSON writer
**   the driver's state and its calls from the core
**   set-up: layouts and paths
**   tokens → rows
**   input: feed and finish, and the same while rejecting records
*/
#include "sq_ingest_internal.h"
#include "sq_json_ingest.h"
#include "sq_json.h"

#include <string.h>

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
  int64_t need = b->n + (int64_t)n + 2;   /* the string and its quotes, unescaped */
  if( (need>b->cap || need>max) && (rc = sq_ing_buf_grow(b, (int64_t)n + 2, max))!=0 ) return rc;
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

typedef struct IngStep { int is_index; int64_t index; char *key; int nkey; } IngStep;

/* Modes: the layout, once the input has said which (AUTO: not yet). */
enum { M_AUTO = 0, M_ARRAY, M_NDJSON };

/* The driver's state, in the core's slot (g->drv). */
typedef struct IngJson {
  /* configuration */
  int layout;                 /* SQ_INGEST_LAYOUT_*, or 0: a path */
  char *path_text;            /* as given to sq_ingest_json_path, for messages */
  IngStep *steps; int nstep;
  /* input */
  sq_json_parser *p;
  const sq_json_token *tok;   /* the token being handled (during sq_json_feed/finish) */
  int mode;
  int row_depth;              /* the depth of the records' values */
  int targets_seen;           /* arrays the path selected */
  sq_json_path *pm;           /* the path's matcher (sq_json.h), made from the steps */
  int cap_on, cap_sep;        /* capturing a nested value */
  int64_t cap_off;
  int wsep;                   /* whole values: separator state */
  /* rejecting records */
  int rej_resync;             /* NDJSON: skipping to the line end after a syntax error */
  size_t jconsumed;           /* bytes of the last feed used */
  uint64_t jabs;              /* absolute offset of the next byte fed */
} IngJson;

#define JD(g) ((IngJson*)(g)->drv)

static int ing_json_event(void *user, const sq_json_token *t);
static int ing_json_event_rej(void *user, const sq_json_token *t);

static void ing_free_path(sq_ingest *g){
  int i;
  for(i=0; i<JD(g)->nstep; i++) sqlite3_free(JD(g)->steps[i].key);
  sqlite3_free(JD(g)->steps);
  JD(g)->steps = 0;
  JD(g)->nstep = 0;
  sqlite3_free(JD(g)->path_text);
  JD(g)->path_text = 0;
}

/* The input starts over (the core's records have, too). */
static void ing_reset_json(sq_ingest *g){
  IngJson *j = JD(g);
  j->mode = j->layout==SQ_INGEST_LAYOUT_AUTO ? M_AUTO
          : j->layout==SQ_INGEST_LAYOUT_NDJSON ? M_NDJSON : M_ARRAY;
  j->row_depth = 0;
  g->in_records = j->mode==M_NDJSON;
  j->targets_seen = 0;
  j->cap_on = 0;
  j->rej_resync = 0;
  j->jabs = 0;
  if( j->pm ) sq_json_path_restart(j->pm);
  if( j->p ){
    sq_json_reset(j->p);
    sq_json_set_options(j->p, j->mode==M_ARRAY ? 0 : SQ_JSON_OPT_MULTIPLE);
  }
}

static int ing_json_position(const sq_ingest *g, sq_ingest_pos *pos){
  const sq_json_token *t = JD(g)->tok;
  if( !t ) return 0;
  pos->offset = t->offset;
  pos->line = t->line;
  pos->column = t->column;
  return 1;
}

/* The record limit bounds a token; the reject callback picks the parser's. */
static void ing_json_options(sq_ingest *g){
  IngJson *j = JD(g);
  if( !j->p ) return;
  sq_json_set_max_token(j->p, (size_t)g->max_rec);
  sq_json_set_callback(j->p, g->on_reject ? ing_json_event_rej : ing_json_event, g);
}

static void ing_json_destroy(sq_ingest *g){
  IngJson *j = JD(g);
  ing_free_path(g);
  sq_json_free(j->p);
  sq_json_path_free(j->pm);
  sqlite3_free(j);
  g->drv = 0;
  g->drv_ops = 0;
}

static const sq_ing_driver ing_json_ops = {
  ing_json_position, ing_reset_json, ing_json_options, ing_json_destroy
};

/* The driver's state in g's slot, made on the first JSON call. */
static int ing_json_state(sq_ingest *g){
  IngJson *j;
  if( g->drv_ops==&ing_json_ops ) return SQ_INGEST_OK;
  if( g->drv_ops ) return sq_ing_fail_pos(g, SQ_INGEST_E_CONFIG, 0, 0, 0, "the core has another format's driver");
  j = sqlite3_malloc64(sizeof(*j));
  if( !j ) return sq_ing_nomem(g);
  memset(j, 0, sizeof(*j));
  j->layout = SQ_INGEST_LAYOUT_ARRAY;
  g->drv = j;
  g->drv_ops = &ing_json_ops;
  ing_reset_json(g);
  return SQ_INGEST_OK;
}

/* The driver's state when g has one, else NULL. */
static const IngJson *ing_json_of(const sq_ingest *g){
  return g->drv_ops==&ing_json_ops ? (const IngJson*)g->drv : 0;
}

/* The path's matcher (the one rule of sq_json.h, shared with the Swift
** decoder's streamed arrays), made from the steps. */
static sq_json_path *ing_new_matcher(const IngJson *j){
  sq_json_path *m = sq_json_path_new();
  int i, rc = 0;
  for(i=0; m && !rc && i<j->nstep; i++){
    const IngStep *st = &j->steps[i];
    rc = st->is_index ? sq_json_path_add_index(m, st->index)
                      : sq_json_path_add_key(m, st->key, (size_t)st->nkey);
  }
  if( rc ){ sq_json_path_free(m); m = 0; }
  return m;
}

/* ------------------------------------------------------------ set-up: layouts and paths */

int sq_ingest_json_layout(sq_ingest *g, int layout){
  if( sq_ing_config_closed(g, "the layout set") || ing_json_state(g) ) return SQ_INGEST_ERROR;
  if( layout<SQ_INGEST_LAYOUT_ARRAY || layout>SQ_INGEST_LAYOUT_AUTO ){
    return sq_ing_fail_pos(g, SQ_INGEST_E_CONFIG, 0, 0, 0, "no layout %d", layout);
  }
  ing_free_path(g);
  JD(g)->layout = layout;
  return SQ_INGEST_OK;
}

static int ing_add_step(sq_ingest *g, int is_index, int64_t index, const char *key, int nkey){
  IngStep *a;
  if( JD(g)->nstep>=SQ_JSON_MAX_DEPTH ){
    return sq_ing_fail_pos(g, SQ_INGEST_E_CONFIG, 0, 0, 0, "a path deeper than %d steps", SQ_JSON_MAX_DEPTH);
  }
  a = sqlite3_realloc64(JD(g)->steps, sizeof(IngStep)*((sqlite3_uint64)JD(g)->nstep+1));
  if( !a ) return sq_ing_nomem(g);
  JD(g)->steps = a;
  memset(&a[JD(g)->nstep], 0, sizeof(IngStep));
  a[JD(g)->nstep].is_index = is_index;
  a[JD(g)->nstep].index = index;
  if( !is_index ){
    a[JD(g)->nstep].key = sqlite3_malloc64((sqlite3_uint64)nkey+1);
    if( !a[JD(g)->nstep].key ) return sq_ing_nomem(g);
    memcpy(a[JD(g)->nstep].key, key, (size_t)nkey);
    a[JD(g)->nstep].key[nkey] = 0;
    a[JD(g)->nstep].nkey = nkey;
  }
  JD(g)->nstep++;
  JD(g)->layout = 0;
  return SQ_INGEST_OK;
}

int sq_ingest_json_path_key(sq_ingest *g, const char *key, int nkey){
  if( sq_ing_config_closed(g, "a path step added") || ing_json_state(g) ) return SQ_INGEST_ERROR;
  if( !key ) return sq_ing_fail_pos(g, SQ_INGEST_E_CONFIG, 0, 0, 0, "a path key that is NULL");
  if( nkey<0 ) nkey = (int)strlen(key);
  return ing_add_step(g, 0, 0, key, nkey);
}

int sq_ingest_json_path_index(sq_ingest *g, int64_t index){
  if( sq_ing_config_closed(g, "a path step added") || ing_json_state(g) ) return SQ_INGEST_ERROR;
  if( index<0 ) return sq_ing_fail_pos(g, SQ_INGEST_E_CONFIG, 0, 0, 0, "a negative path index");
  return ing_add_step(g, 1, index, 0, 0);
}

int sq_ingest_json_path(sq_ingest *g, const char *z, int n){
  const char *s, *e;
  if( sq_ing_config_closed(g, "the path set") || ing_json_state(g) ) return SQ_INGEST_ERROR;
  ing_free_path(g);
  if( !z ){ JD(g)->layout = SQ_INGEST_LAYOUT_AUTO; return SQ_INGEST_OK; }
  if( n<0 ) n = (int)strlen(z);
  if( n==0 || (n==1 && z[0]=='$') ){ JD(g)->layout = SQ_INGEST_LAYOUT_AUTO; return SQ_INGEST_OK; }
  if( n==6 && sqlite3_strnicmp(z, "ndjson", 6)==0 ){ JD(g)->layout = SQ_INGEST_LAYOUT_NDJSON; return SQ_INGEST_OK; }
  s = z; e = z+n;
  if( *s!='$' ) goto bad;
  s++;
  JD(g)->layout = 0;
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
  JD(g)->path_text = sqlite3_malloc64((sqlite3_uint64)n+1);
  if( !JD(g)->path_text ) return sq_ing_nomem(g);
  memcpy(JD(g)->path_text, z, (size_t)n);
  JD(g)->path_text[n] = 0;
  return SQ_INGEST_OK;
bad:
  ing_free_path(g);
  JD(g)->layout = SQ_INGEST_LAYOUT_AUTO;
  {
    sqlite3_str *m = sqlite3_str_new(0);
    char *msg;
    int rc;
    sqlite3_str_appendall(m, "invalid path ");
    sq_str_value(m, z, n, 1);
    sqlite3_str_appendall(m, " (expected '$', '$.key', '$.\"key\"', '$[N]' steps, or 'ndjson')");
    msg = sqlite3_str_finish(m);
    if( !msg ) return sq_ing_nomem(g);
    rc = sq_ing_fail_pos(g, SQ_INGEST_E_CONFIG, 0, 0, 0, "%s", msg);
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
  if( JD(g)->path_text ){
    sq_str_value(m, JD(g)->path_text, (sqlite3_int64)strlen(JD(g)->path_text), 1);
  }else{
    sqlite3_str *p = sqlite3_str_new(0);
    char *pz;
    int i;
    sqlite3_str_appendall(p, "$");
    for(i=0; i<JD(g)->nstep; i++){
      const IngStep *st = &JD(g)->steps[i];
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
    if( !pz ){ sqlite3_free(sqlite3_str_finish(m)); return sq_ing_nomem(g); }
    sq_str_value(m, pz, (sqlite3_int64)strlen(pz), 1);
    sqlite3_free(pz);
  }
  sqlite3_str_appendf(m, " %s", what);
  msg = sqlite3_str_finish(m);
  if( !msg ) return sq_ing_nomem(g);
  rc = sq_ing_fail_pos(g, SQ_INGEST_E_LAYOUT, pos, 0, 0, "%s", msg);
  sqlite3_free(msg);
  return rc;
}

/* ------------------------------------------------------------ tokens → rows */

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
  return ing_key(g, t->text, t->len, SQ_ING_AT) ? 2 : SQ_JSON_CONTINUE;
}

static ING_NOINLINE int ing_tok_number(sq_ingest *g, const sq_json_token *t){
  return ing_scalar(g, SQ_INGEST_K_NUMBER, (t->flags & SQ_JSON_F_INTEGER)!=0, t->text, t->len, SQ_ING_AT)
         ? 2 : SQ_JSON_CONTINUE;
}

static ING_NOINLINE int ing_tok_string(sq_ingest *g, const sq_json_token *t){
  return ing_scalar(g, SQ_INGEST_K_STRING, 0, t->text, t->len, SQ_ING_AT) ? 2 : SQ_JSON_CONTINUE;
}

static ING_NOINLINE int ing_tok_literal(sq_ingest *g, int kind){
  return ing_scalar(g, kind, 0, 0, 0, SQ_ING_AT) ? 2 : SQ_JSON_CONTINUE;
}

/* An object or array as a member's value begins: captured as JSON text. */
static ING_NOINLINE int ing_tok_nest_begin(sq_ingest *g, const sq_json_token *t){
  int j, rc;
  for(j=0; j<g->ncur; j++){
    if( !ING_KIND_OK(g, g->cur[j], SQ_INGEST_COL_NESTED) ){
      sq_ing_fail_kind(g, g->cur[j], SQ_INGEST_K_JSON, SQ_ING_AT);
      return 2;
    }
  }
  if( g->strict_values ){
    for(j=0; j<g->ncur; j++){
      int aff = g->cols[g->cur[j]].aff;
      if( aff==SQ_INGEST_AFF_INTEGER || aff==SQ_INGEST_AFF_REAL ){
        sq_ing_fail_pos(g, SQ_INGEST_E_STRICT, SQ_ING_AT, g->cur_key, g->cur_nkey,
                     "a nested %s cannot go into %s column %s (strict mode)",
                     t->type==SQ_JSON_BEGIN_OBJECT ? "object" : "array",
                     sq_ing_aff_name(aff), g->cols[g->cur[j]].name);
        return 2;
      }
    }
  }
  JD(g)->cap_on = 1;
  JD(g)->cap_sep = 0;
  JD(g)->cap_off = g->arena.n;
  rc = ing_json_token(&g->arena, &JD(g)->cap_sep, t, g->max_rec);
  if( rc ){ sq_ing_buf_fail(g, rc, SQ_ING_AT); return 2; }
  return SQ_JSON_CONTINUE;
}

/* ... and ends: the text goes to the member's columns. */
static ING_NOINLINE int ing_tok_nest_end(sq_ingest *g, const sq_json_token *t){
  int j, rc = ing_json_token(&g->arena, &JD(g)->cap_sep, t, g->max_rec);
  if( rc ){ sq_ing_buf_fail(g, rc, SQ_ING_AT); return 2; }
  JD(g)->cap_on = 0;
  for(j=0; j<g->ncur; j++){
    sq_ingest_value *sl = &g->slots[g->cur[j]];
    sl->type = SQ_INGEST_V_JSON;
    sl->i = JD(g)->cap_off;
    sl->len = (size_t)(g->arena.n - JD(g)->cap_off);
  }
  return SQ_JSON_CONTINUE;
}

/* A token inside a nested value being captured. */
static ING_NOINLINE int ing_tok_nested(sq_ingest *g, const sq_json_token *t){
  int rc = ing_json_token(&g->arena, &JD(g)->cap_sep, t, g->max_rec);
  if( rc ){ sq_ing_buf_fail(g, rc, SQ_ING_AT); return 2; }
  return SQ_JSON_CONTINUE;
}

/* The record's END_OBJECT, t. */
static ING_NOINLINE int ing_tok_end_record(sq_ingest *g, const sq_json_token *t){
  int rc;
  if( g->row_raw ) sq_ing_row_raw(g, t->offset+1);
  rc = sq_ing_end(g);
  return ING_JSON_STATUS(rc);
}

ING_INLINE int ing_object_token(sq_ingest *g, const sq_json_token *t){
  int d = t->depth, rd = JD(g)->row_depth;
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
      default:             return JD(g)->cap_on ? ing_tok_nest_end(g, t) : SQ_JSON_CONTINUE;
    }
  }
  if( d==rd ) return ing_tok_end_record(g, t);
  return JD(g)->cap_on ? ing_tok_nested(g, t) : SQ_JSON_CONTINUE;
}

/* A token inside a whole value. */
static ING_NOINLINE int ing_whole_token(sq_ingest *g, const sq_json_token *t){
  int rc = ing_json_token(&g->arena, &JD(g)->wsep, t, g->max_rec);
  if( rc ){ sq_ing_buf_fail(g, rc, SQ_ING_AT); return 2; }
  if( (t->type==SQ_JSON_END_OBJECT || t->type==SQ_JSON_END_ARRAY) && t->depth==JD(g)->row_depth ){
    rc = sq_ing_end(g);
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
    JD(g)->wsep = 0;
    rc = ing_json_token(&g->arena, &JD(g)->wsep, t, g->max_rec);
    if( rc ){ sq_ing_buf_fail(g, rc, &pos_); return 2; }
    if( ty==SQ_JSON_BEGIN_OBJECT || ty==SQ_JSON_BEGIN_ARRAY ) return SQ_JSON_CONTINUE;
    rc = sq_ing_end(g);
    return ING_JSON_STATUS(rc);
  }
  if( ty!=SQ_JSON_BEGIN_OBJECT ){
    if( g->on_reject ){ g->in_record = 1; g->rec_pos = pos_; }
    sq_ing_fail_pos(g, SQ_INGEST_E_LAYOUT, &pos_, 0, 0, "expected an object, found %s "
                 "(rows are read from JSON objects)", ing_token_kind(ty));
    return 2;
  }
  ing_begin(g, &pos_);
  JD(g)->cap_on = 0;
  return SQ_JSON_CONTINUE;
}

/* Tokens outside a record: layouts and paths. */
#if defined(__GNUC__) || defined(__clang__)
__attribute__((noinline))
#endif
static int ing_outside_token(sq_ingest *g, const sq_json_token *t){
  int d = t->depth, ty = t->type;

  if( g->in_records ){
    if( d==JD(g)->row_depth && ing_is_value_start(ty) ) return ing_record_start(g, t);
    if( JD(g)->mode==M_ARRAY && ty==SQ_JSON_END_ARRAY && d==JD(g)->row_depth-1 ){
      g->in_records = 0;
      sq_json_path_match(JD(g)->pm, t);
    }
    return SQ_JSON_CONTINUE;
  }

  if( JD(g)->mode==M_AUTO ){
    /* the first token of the input: an array, or NDJSON */
    if( ty==SQ_JSON_BEGIN_ARRAY ){
      JD(g)->mode = M_ARRAY;
      JD(g)->row_depth = 1;
      g->in_records = 1;
      JD(g)->targets_seen = 1;
      return SQ_JSON_CONTINUE;
    }
    JD(g)->mode = M_NDJSON;
    JD(g)->row_depth = 0;
    g->in_records = 1;
    return ing_record_start(g, t);
  }

  /* path tracking (M_ARRAY, outside the selected array) */
  if( d==0 && JD(g)->targets_seen>0 && JD(g)->nstep==0 && ing_is_value_start(ty) ){
    ING_POS(t);
    sq_ing_fail_pos(g, SQ_INGEST_E_LAYOUT, &pos_, 0, 0, "more than one top-level value after the "
                 "top-level array (for NDJSON whose lines are arrays, pass 'ndjson' as the path)");
    return 2;
  }
  switch( sq_json_path_match(JD(g)->pm, t) ){
    case SQ_JSON_PATH_ARRAY:
      g->in_records = 1;
      JD(g)->targets_seen++;
      JD(g)->row_depth = d+1;
      return SQ_JSON_CONTINUE;
    case SQ_JSON_PATH_OTHER: {
      ING_POS(t);
      if( JD(g)->nstep==0 ){
        sq_ing_fail_pos(g, SQ_INGEST_E_LAYOUT, &pos_, 0, 0, "expected an array %sat the top level, found %s",
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
  JD(g)->cap_on = 0;
  return SQ_JSON_CONTINUE;
}

/* The parser's callback: a dispatcher that tail-calls one small function
** per kind of token. */
static int ing_json_event(void *user, const sq_json_token *t){
  sq_ingest *g = (sq_ingest*)user;
  JD(g)->tok = t;
  if( g->in_record ) return g->whole ? ing_whole_token(g, t) : ing_object_token(g, t);
  if( g->in_records && t->depth==JD(g)->row_depth && t->type==SQ_JSON_BEGIN_OBJECT && !g->whole ){
    return ing_tok_begin_record(g, t);
  }
  return ing_outside_token(g, t);
}

/* ------------------------------------------------------------ input */

/* The driver ready for input: its state, the core prepared, the path's
** matcher and the parser made (ing_json_ready: the check of every feed). */
static ING_NOINLINE int ing_json_ready_slow(sq_ingest *g){
  if( g->err.code ) return SQ_INGEST_ERROR;
  if( ing_json_state(g) ) return SQ_INGEST_ERROR;
  if( !g->prepared && sq_ing_prepare(g) ) return SQ_INGEST_ERROR;
  if( !JD(g)->pm ){
    JD(g)->pm = ing_new_matcher(JD(g));
    if( !JD(g)->pm ) return sq_ing_nomem(g);
    ing_reset_json(g);
  }
  if( !JD(g)->p ){
    JD(g)->p = sq_json_new(g->on_reject ? ing_json_event_rej : ing_json_event, g);
    if( !JD(g)->p ) return sq_ing_nomem(g);
    sq_json_set_max_token(JD(g)->p, (size_t)g->max_rec);
    sq_json_set_options(JD(g)->p, JD(g)->mode==M_ARRAY ? 0 : SQ_JSON_OPT_MULTIPLE);
  }
  return SQ_INGEST_OK;
}

static inline int ing_json_ready(sq_ingest *g){
  if( g->drv_ops==&ing_json_ops && !g->err.code && JD(g)->p ) return SQ_INGEST_OK;
  return ing_json_ready_slow(g);
}

/* The parser failed: our own error (the callback aborted), or its. */
static int ing_parser_error(sq_ingest *g){
  const sq_json_error *e = sq_json_error_info(JD(g)->p);
  const char *msg = e->message;
  sq_ingest_pos pos;
  if( g->err.code ) return SQ_INGEST_ERROR;
  if( JD(g)->mode==M_ARRAY && JD(g)->nstep==0 && JD(g)->layout==SQ_INGEST_LAYOUT_AUTO && JD(g)->targets_seen>0
      && !g->in_records && e->code==SQ_JSON_E_SYNTAX && sq_json_depth(JD(g)->p)==0 ){
    /* The input began with an array, so it is one JSON value, not NDJSON
    ** (the parser runs in multi-value mode until the first token says
    ** which): say so, not "expected a newline between top-level values". */
    msg = "unexpected data after the top-level array";
  }
  pos.offset = e->offset;
  pos.line = e->line;
  pos.column = e->column;
  if( e->code==SQ_JSON_E_NOMEM ){
    sq_ing_nomem(g);
    g->err.offset = pos.offset; g->err.line = pos.line; g->err.column = pos.column;
    return SQ_INGEST_ERROR;
  }
  return sq_ing_fail_pos(g, e->code==SQ_JSON_E_TOO_LONG ? SQ_INGEST_E_TOO_BIG : SQ_INGEST_E_JSON,
                      &pos, 0, 0, "%s", msg);
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
    if( t->depth==JD(g)->row_depth && ty!=SQ_JSON_BEGIN_OBJECT && ty!=SQ_JSON_BEGIN_ARRAY ){
      uint64_t end = (ty==SQ_JSON_END_OBJECT || ty==SQ_JSON_END_ARRAY) ? t->offset+1 : ing_scalar_end(g, t);
      return sq_ingest_end_bad_record(g, end)==SQ_INGEST_OK ? SQ_JSON_CONTINUE : 2;
    }
    return SQ_JSON_CONTINUE;
  }
  JD(g)->tok = t;
  if( t->depth==JD(g)->row_depth && (ty==SQ_JSON_END_OBJECT || ty==SQ_JSON_END_ARRAY) ){
    return sq_ingest_end_bad_record(g, t->offset+1)==SQ_INGEST_OK ? SQ_JSON_CONTINUE : 2;
  }
  return SQ_JSON_CONTINUE;
}

/* A syntax error of the parser while rejecting: in NDJSON the line's
** record is skipped up to the line end (rej_resync); elsewhere it stops,
** saying why it cannot be skipped. */
static int ing_json_syntax_rej(sq_ingest *g){
  const sq_json_error *e = sq_json_error_info(JD(g)->p);
  sq_ingest_pos pos;
  if( g->err.code ) return SQ_INGEST_ERROR;
  if( JD(g)->mode!=M_NDJSON || (e->code!=SQ_JSON_E_SYNTAX && e->code!=SQ_JSON_E_UTF8
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
  if( sq_ing_mark_bad(g, SQ_INGEST_E_JSON, sqlite3_mprintf("%s", e->message), 0, 0, &pos)
      && g->err.code ) return SQ_INGEST_ERROR;
  JD(g)->rej_resync = 1;
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
  sq_json_line(JD(g)->p, &line, &start);
  line--;                  /* the parser is on the next line already */
  pos.offset = at;
  pos.line = line;
  pos.column = at>=start ? at - start + 1 : 1;
  if( !g->rec_bad ){
    g->in_record = 1;
    if( sq_ing_mark_bad(g, SQ_INGEST_E_JSON,
                     sqlite3_mprintf("the line ends inside the value (NDJSON: one value per line)"),
                     0, 0, &pos) && g->err.code ) return SQ_INGEST_ERROR;
  }
  if( sq_ingest_end_bad_record(g, at) ) return SQ_INGEST_ERROR;
  sq_json_restart_at(JD(g)->p, at + 1, line + 1);
  return SQ_INGEST_OK;
}

static int ing_json_feed_rej(sq_ingest *g, const unsigned char *b, size_t n){
  uint64_t abs0 = JD(g)->jabs;
  size_t used = 0;
  int rc;
  JD(g)->jconsumed = 0;
  sq_ingest_raw_chunk(g, b, n, abs0);
  for(;;){
    if( JD(g)->rej_resync ){
      const unsigned char *nl = used<n ? memchr(b+used, '\n', n-used) : 0;
      uint64_t line = g->rej.line;
      if( !nl ){ used = n; break; }
      used = (size_t)(nl - b) + 1;
      JD(g)->rej_resync = 0;
      if( sq_ingest_end_bad_record(g, abs0 + (uint64_t)(nl - b)) ) return SQ_INGEST_ERROR;
      sq_json_restart_at(JD(g)->p, abs0 + used, line + 1);
      continue;
    }
    if( used>=n ) break;
    {
      /* NDJSON (and input not known yet to be an array): fed line by line,
      ** so that a value running over a line end is found at that newline,
      ** however the input is cut, and the next line starts cleanly */
      size_t piece = n-used;
      const unsigned char *nl = JD(g)->mode!=M_ARRAY ? memchr(b+used, '\n', n-used) : 0;
      if( nl ) piece = (size_t)(nl - (b+used)) + 1;
      rc = sq_json_feed(JD(g)->p, b+used, piece);
      JD(g)->tok = 0;
      if( rc==SQ_JSON_OK ){
        used += piece;
        if( nl && JD(g)->mode==M_NDJSON && ing_json_line_end_rej(g, abs0 + used - 1) ) return SQ_INGEST_ERROR;
        if( used<n ) continue;
        break;
      }
    }
    if( rc==SQ_JSON_PAUSED ){
      used += sq_json_consumed(JD(g)->p);
      JD(g)->jconsumed = used;
      JD(g)->jabs = abs0 + used;
      sq_ingest_raw_keep(g, used, sq_json_pending_start(JD(g)->p));
      return SQ_INGEST_PAUSED;
    }
    if( rc==SQ_JSON_ERROR ){
      uint64_t at = sq_json_error_info(JD(g)->p)->offset;
      if( ing_json_syntax_rej(g) ) return SQ_INGEST_ERROR;
      if( at > abs0+used ) used = (size_t)(at - abs0);
      if( used>n ) used = n;
      continue;
    }
  }
  JD(g)->jconsumed = used;
  JD(g)->jabs = abs0 + used;
  {
    /* a chunk end: in NDJSON a line begun may be rejected from its start */
    uint64_t pending = sq_json_pending_start(JD(g)->p), line, start;
    if( JD(g)->mode==M_NDJSON ){
      sq_json_line(JD(g)->p, &line, &start);
      if( !(g->nrec>0 && g->rec_pos.line==line) && start<JD(g)->jabs && (pending==UINT64_MAX || start<pending) ){
        pending = start;
      }
    }
    sq_ingest_raw_keep(g, used, pending);
  }
  return SQ_INGEST_OK;
}

/* The end of the input while rejecting: a last line skipped or truncated. */
static int ing_json_finish_rej(sq_ingest *g){
  uint64_t end = JD(g)->jabs;
  int rc;
  if( !JD(g)->rej_resync ){
    rc = sq_json_finish(JD(g)->p);
    JD(g)->tok = 0;
    if( rc!=SQ_JSON_ERROR ) return SQ_INGEST_OK;
    if( ing_json_syntax_rej(g) ) return SQ_INGEST_ERROR;
  }
  JD(g)->rej_resync = 0;
  return sq_ingest_end_bad_record(g, end);
}

int sq_ingest_json_feed(sq_ingest *g, const void *bytes, size_t n){
  IngJson *j;
  int rc;
  if( ing_json_ready(g) ) return SQ_INGEST_ERROR;
  if( g->on_reject ) return ing_json_feed_rej(g, (const unsigned char*)bytes, n);
  j = JD(g);
  rc = sq_json_feed(j->p, bytes, n);
  j->tok = 0;
  if( rc==SQ_JSON_ERROR ) return ing_parser_error(g);
  return rc==SQ_JSON_PAUSED ? SQ_INGEST_PAUSED : SQ_INGEST_OK;
}

size_t sq_ingest_json_consumed(const sq_ingest *g){
  const IngJson *j = ing_json_of(g);
  if( !j || !j->p ) return 0;
  if( g->on_reject ) return j->jconsumed;
  return sq_json_consumed(j->p);
}

uint64_t sq_ingest_json_offset(const sq_ingest *g){
  const IngJson *j = ing_json_of(g);
  return j && j->p ? sq_json_offset(j->p) : 0;
}

int sq_ingest_json_finish(sq_ingest *g){
  int rc;
  if( ing_json_ready(g) ) return SQ_INGEST_ERROR;
  if( g->on_reject ){
    rc = ing_json_finish_rej(g);
    if( rc ) return rc;
  }else{
    rc = sq_json_finish(JD(g)->p);
    JD(g)->tok = 0;
    if( rc==SQ_JSON_ERROR ) return ing_parser_error(g);
  }
  if( g->err.code ) return SQ_INGEST_ERROR;
  if( JD(g)->mode==M_ARRAY && JD(g)->targets_seen==0 && JD(g)->nstep>0 ){
    sq_ingest_pos pos;
    pos.offset = sq_json_offset(JD(g)->p);
    pos.line = 0;
    pos.column = 0;
    rc = ing_fail_path(g, &pos, "not found");
    g->err.record = -1;
    return rc;
  }
  return SQ_INGEST_OK;
}

