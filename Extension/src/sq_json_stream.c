/*
** sq_json_stream.c — json_stream: JSON files of any size into rows, in
** constant memory, with StreamQLite's incremental parser (sq_json.h).
**
** TABLE-VALUED FUNCTION
**
**   json_stream(FILENAME [, PATH])
**
**   Reads FILENAME in 64 KiB chunks and yields one row per element of
**   the array selected by PATH.  Columns:
**
**     value    the element as minified JSON text (strings keep their
**              quotes: '"abc"'), with SQLite's JSON subtype, so ->, ->>,
**              json_extract() and json_each() treat it as JSON
**     idx      0-based element index
**     line     1-based line where the element starts
**     offset   0-based byte offset where the element starts
**     filename, path   (hidden) the arguments
**
**   PATH:
**     '$' (default)   the top-level array's elements.  When the first
**                     top-level value is not an array, the file is read
**                     as NDJSON (JSON Lines): one row per top-level value,
**                     values separated by newlines (blank lines allowed).
**     'ndjson'        force NDJSON (e.g. for lines that are arrays).
**     '$.a.b', '$.a[2].b', '$."a key".b', '$[0]'
**                     the elements of the array at that path.  Other
**                     parts of the document are parsed (validated) but
**                     not kept.  If keys repeat, every match yields rows.
**   An empty (or all-whitespace) file gives no rows with path '$'.
**   FILENAME may be '/dev/stdin' or a pipe: the file is only read
**   sequentially, never seeked or stat'ed.  A FIFO is waited on until a
**   writer comes and until it closes, as a blocking read would, but the
**   wait stops on sqlite3_interrupt() (Ctrl-C in the shell, Python's
**   Connection.interrupt()): the file is opened with O_NONBLOCK and waited
**   on with poll() in 100 ms slices, asking the connection between slices
**   (and every 16 reads while data flows) whether it was interrupted; the
**   statement then fails with SQLITE_INTERRUPT, "interrupted" (sq_host.c
**   says how that is asked on SQLite 3.40 and on 3.41+).
**
**     SELECT idx, value->>'id', value->>'title' FROM json_stream('tasks.json');
**     SELECT value FROM json_stream('report.json', '$.data.items');
**     SELECT count(*) FROM json_stream('/dev/stdin');
**
** VIRTUAL TABLE WITH TYPED COLUMNS (the fast path; temp schema only)
**
**   CREATE VIRTUAL TABLE temp.incoming USING json_stream(
**       filename='tasks.json',
**       columns='id INTEGER, title TEXT, done INTEGER',
**       path='$',                     -- optional, as above
**       keys='id=task_id, title=name' -- optional: column=JSON key
**   );
**   INSERT INTO tasks SELECT * FROM incoming;
**
**   Each element must be a JSON object; its members go straight into the
**   declared columns during the one parse (no JSON text per row).
**   Keys to columns: each column is fed by its name, or by the key keys=
**   gives it (one key may feed several columns: keys='n_text=n' fills
**   both n and n_text, each by its own type).  A member's key matches
**     1. the column key equal to it byte for byte, else
**     2. the column key equal to it ignoring ASCII case (A-Z = a-z, as
**        SQLite compares column names: "ID" feeds column id); if two
**        column keys match it that way only (keys='a=Name, b=NAME' and a
**        member "name"), it is an error naming them, else
**     3. nothing: the member is ignored.
**   Two members of one object that feed the same columns ("id" and "ID",
**   or "id" twice) are an error naming both keys: SQLite's ->> would take
**   the first, JavaScript the last; json_stream does not guess.  A
**   missing member is NULL.  Values:
**     null           NULL
**     true/false     1 / 0
**     number         TEXT column: the literal as written ('1.50');
**                    REAL column: a double; other columns: an integer
**                    when the literal is an integer within 64 bits, else
**                    a double (integers beyond 64 bits become doubles:
**                    declare the column TEXT to keep them exact)
**     string         TEXT (the target table's affinity converts it on
**                    INSERT, as for any value)
**     object/array   minified JSON text with the JSON subtype
**   Declared types follow SQLite's affinity rules (INT → INTEGER, CHAR/
**   CLOB/TEXT → TEXT, REAL/FLOA/DOUB → REAL, BLOB or none, else NUMERIC).
**   Option values may be quoted with '…' or "…".
**
** ERRORS
**
**   Malformed JSON (RFC 8259, strict; see sq_json.h), invalid UTF-8,
**   nesting deeper than 1000, a truncated file, a path that is not found
**   or is not an array, a missing or unreadable file: the statement fails
**   with
**     json_stream: FILE: line L, byte B, element N: MESSAGE
**   (byte = 0-based offset; "element N" when inside the selected array).
**   Rows already produced are not undone by json_stream itself, but an
**   INSERT … SELECT that fails is rolled back as a whole by SQLite, so
**   nothing of that import is committed.
**
** LIMITS
**
**   Memory is constant: a 64 KiB read buffer plus the current element.
**   An element (its JSON text, or the sum of its typed values) larger
**   than 64 MiB or than SQLITE_LIMIT_LENGTH (whichever is smaller) is an
**   error, and so is a single string or number longer than that: a hostile
**   file cannot make json_stream allocate without bound.
**
** SECURITY
**
**   json_stream reads files, so no database file may make it read one:
**   - A json_stream table (CREATE VIRTUAL TABLE … USING json_stream) can
**     only live in the temp schema, which is never stored in a file:
**     creating one in main or an attached database is an error, and so is
**     opening one that is already in a file (planted through PRAGMA
**     writable_schema, or made by an older version):
**       json_stream: table main.x: json_stream tables read files, so they
**       can only live in the temp schema, never in a database file: …
**     This holds whatever trusted_schema or defensive mode say.
**   - The table-valued function and every table are registered with
**     SQLITE_VTAB_DIRECTONLY: usable in a user's own statements, never
**     from the views or triggers of a database schema.
**   The table-valued function still reads any file the process can read,
**   for whoever can type SQL.  Hosts that let other people run SQL
**   (Datasette, web SQL consoles) load the entry point without it:
**     .load ./build/streamqlite sqlite3_streamqlite_noread_init
**   (see streamqlite.c, ENTRY POINTS).
*/
#include "sq_internal.h"
#include "sq_json.h"

#include <string.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#ifndef O_CLOEXEC
# define O_CLOEXEC 0
#endif

#define JS_CHUNK        (64*1024)
#define JS_WAIT_MS      100    /* longest wait for input between interrupt checks */
#define JS_READS_PER_CHECK 16  /* reads between interrupt checks when data flows */
#define JS_MAX_ELEMENT  ((sqlite3_int64)64 << 20)
#define JS_SUBTYPE      74     /* 'J': SQLite's JSON subtype */

#if defined(__GNUC__) || defined(__clang__)
# define SQ_ALWAYS_INLINE inline __attribute__((always_inline))
#else
# define SQ_ALWAYS_INLINE inline
#endif

/* ------------------------------------------------------------ buffers */

typedef struct JsBuf { char *z; sqlite3_int64 n, cap; } JsBuf;

/* 0 on success; 1 too big; 2 out of memory */
static int jsbuf_grow(JsBuf *b, sqlite3_int64 add, sqlite3_int64 max){
  sqlite3_int64 need = b->n + add;
  if( need>max ) return 1;
  if( need>b->cap ){
    sqlite3_int64 cap = b->cap ? b->cap*2 : 256;
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
#define JSBUF_PUT(b, s, len, max, rc) do{ if( (len)>0 ){ \
  if( (b)->n + (sqlite3_int64)(len) <= (b)->cap || ((rc) = jsbuf_grow((b), (sqlite3_int64)(len), (max)))==0 ){ \
    memcpy((b)->z + (b)->n, (s), (len)); (b)->n += (sqlite3_int64)(len); } } }while(0)

/* Characters that need escaping when writing a JSON string. */
static const unsigned char kEsc[256] = {
  1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1, 1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,
  0,0,1,0,0,0,0,0,0,0,0,0,0,0,0,0, 0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,
  0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0, 0,0,0,0,0,0,0,0,0,0,0,0,1,0,0,0,
};

/* Appends a JSON string literal.  Returns 0 / 1 too big / 2 OOM. */
static int js_write_string(JsBuf *b, const char *s, size_t n, sqlite3_int64 max){
  int rc = 0;
  size_t i = 0;
  /* worst case 6 bytes per input byte; grow once for the common case */
  if( (rc = jsbuf_grow(b, (sqlite3_int64)n + 2, max))!=0 ) return rc;
  b->z[b->n++] = '"';
  while( i<n ){
    size_t j = i;
    while( j<n && !kEsc[(unsigned char)s[j]] ) j++;
    if( j>i ){ JSBUF_PUT(b, s+i, j-i, max, rc); if( rc ) return rc; i = j; }
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
      JSBUF_PUT(b, e, k, max, rc);
      if( rc ) return rc;
    }
  }
  JSBUF_PUT(b, "\"", 1, max, rc);
  return rc;
}

/* Appends one token as minified JSON; *sep tracks whether a ',' is due. */
static int js_write_token(JsBuf *b, int *sep, const sq_json_token *t, sqlite3_int64 max){
  int rc = 0;
  int ty = t->type;
  if( ty==SQ_JSON_END_OBJECT || ty==SQ_JSON_END_ARRAY ){
    JSBUF_PUT(b, ty==SQ_JSON_END_OBJECT ? "}" : "]", 1, max, rc);
    *sep = 1;
    return rc;
  }
  if( *sep ){ JSBUF_PUT(b, ",", 1, max, rc); if( rc ) return rc; }
  switch( ty ){
    case SQ_JSON_BEGIN_OBJECT: JSBUF_PUT(b, "{", 1, max, rc); *sep = 0; return rc;
    case SQ_JSON_BEGIN_ARRAY:  JSBUF_PUT(b, "[", 1, max, rc); *sep = 0; return rc;
    case SQ_JSON_KEY:
      rc = js_write_string(b, t->text, t->len, max);
      if( !rc ) JSBUF_PUT(b, ":", 1, max, rc);
      *sep = 0;
      return rc;
    case SQ_JSON_STRING: rc = js_write_string(b, t->text, t->len, max); break;
    case SQ_JSON_NUMBER: JSBUF_PUT(b, t->text, t->len, max, rc); break;
    case SQ_JSON_TRUE:   JSBUF_PUT(b, "true", 4, max, rc); break;
    case SQ_JSON_FALSE:  JSBUF_PUT(b, "false", 5, max, rc); break;
    default:             JSBUF_PUT(b, "null", 4, max, rc); break;
  }
  *sep = 1;
  return rc;
}

/* ------------------------------------------------------------ paths */

typedef struct JsStep {
  int is_index;
  sqlite3_int64 index;
  char *key;
  int nkey;
} JsStep;

typedef struct JsPath {
  int ndjson;         /* forced NDJSON */
  int nstep;
  JsStep *steps;
} JsPath;

static void js_path_free(JsPath *p){
  int i;
  for(i=0; i<p->nstep; i++) sqlite3_free(p->steps[i].key);
  sqlite3_free(p->steps);
  memset(p, 0, sizeof(*p));
}

/* Parses PATH; returns 0 or an error message (sqlite3_malloc'ed). */
static char *js_path_parse(const char *z, JsPath *out){
  const char *s = z;
  memset(out, 0, sizeof(*out));
  if( z==0 || strcmp(z, "$")==0 || z[0]==0 ) return 0;
  if( sqlite3_stricmp(z, "ndjson")==0 ){ out->ndjson = 1; return 0; }
  if( *s!='$' ) goto bad;
  s++;
  while( *s ){
    JsStep st;
    JsStep *a;
    memset(&st, 0, sizeof(st));
    if( *s=='.' ){
      s++;
      if( *s=='"' ){
        const char *b = ++s;
        while( *s && *s!='"' ) s++;
        if( *s!='"' ) goto bad;
        st.nkey = (int)(s-b);
        st.key = sqlite3_mprintf("%.*s", st.nkey, b);
        s++;
      }else{
        const char *b = s;
        while( *s && *s!='.' && *s!='[' ) s++;
        if( s==b ) goto bad;
        st.nkey = (int)(s-b);
        st.key = sqlite3_mprintf("%.*s", st.nkey, b);
      }
      if( !st.key ) goto nomem;
    }else if( *s=='[' ){
      sqlite3_int64 v = 0;
      s++;
      if( !(*s>='0' && *s<='9') ) goto bad;
      while( *s>='0' && *s<='9' ){
        v = v*10 + (*s-'0');
        if( v>((sqlite3_int64)1<<40) ) goto bad;
        s++;
      }
      if( *s!=']' ) goto bad;
      s++;
      st.is_index = 1;
      st.index = v;
    }else{
      goto bad;
    }
    a = sqlite3_realloc64(out->steps, sizeof(JsStep)*(sqlite3_uint64)(out->nstep+1));
    if( !a ){ sqlite3_free(st.key); goto nomem; }
    out->steps = a;
    out->steps[out->nstep++] = st;
    if( out->nstep>SQ_JSON_MAX_DEPTH ) goto bad;
  }
  return 0;
bad:
  js_path_free(out);
  {
    sqlite3_str *m = sqlite3_str_new(0);
    sqlite3_str_appendall(m, "json_stream: invalid path ");
    sq_str_value(m, z, (sqlite3_int64)strlen(z), 1);
    sqlite3_str_appendall(m, " (expected '$', '$.key', '$.\"key\"', '$[N]' steps, or 'ndjson')");
    return sqlite3_str_finish(m);
  }
nomem:
  js_path_free(out);
  return sqlite3_mprintf("json_stream: out of memory");
}

/* ------------------------------------------------------------ vtab */

enum { AFF_BLOB = 0, AFF_TEXT, AFF_NUMERIC, AFF_INTEGER, AFF_REAL };

typedef struct JsCol {
  char *name;
  char *key;          /* JSON key (the name unless renamed) */
  int nkey;
  int aff;
  int next;           /* next column with the same key, -1: none */
  int renamed;        /* keys= gave it its key */
} JsCol;

/* The distinct keys of a typed table, in column order; each fills the
** chain of columns col, aCol[col].next, … (keys='n_text=n' makes the
** key "n" fill both n and n_text). */
typedef struct JsKey {
  const char *key;    /* = aCol[col].key */
  int nkey;
  int col;            /* first column with this key */
} JsKey;

typedef struct JsVtab {
  sqlite3_vtab base;
  sqlite3 *db;
  int typed;
  char *zFile;        /* typed: the filename= option */
  char *zPath;        /* typed: the path= option */
  int nCol;
  JsCol *aCol;
  int nKey;
  JsKey *aKey;
} JsVtab;

/* Typed value slots. */
enum { SL_NULL = 0, SL_INT, SL_REAL, SL_TEXT, SL_JSON };
typedef struct JsSlot {
  int type;
  sqlite3_int64 i;
  double r;
  sqlite3_int64 off, len;   /* into the arena (SL_TEXT, SL_JSON) */
} JsSlot;

/* The member of the current element that filled a key's columns: for the
** error when a second member would fill them too. */
typedef struct JsSeen {
  sqlite3_int64 stamp;      /* the row's stamp, or 0 */
  int exact;                /* the member's key was the column key itself */
  sqlite3_int64 koff;       /* else its text, in the arena */
  int klen;
} JsSeen;

enum { MODE_AUTO = 0, MODE_ARRAY, MODE_NDJSON };

typedef struct JsCursor {
  sqlite3_vtab_cursor base;
  JsVtab *vt;
  int fd;
  char *zFile;              /* as given (for messages and the column) */
  char *zPathArg;
  JsPath path;
  sq_json_parser *p;
  unsigned char *chunk;
  size_t clen, cpos;
  int input_eof;            /* read() returned 0 */
  int reads;                /* reads since the last interrupt check */
  int finished;             /* sq_json_finish() done */
  int eof;                  /* no current row */
  sqlite3_int64 max_elem;

  int mode;
  int row_depth;            /* depth of the rows' tokens */
  int in_target;            /* inside the selected array (or NDJSON) */
  int targets;              /* selected arrays seen */
  int mdepth;               /* containers from the top matching the path */
  unsigned char *parent_obj;  /* [nstep+2]: container at depth d-1 is an object */
  unsigned char *key_ok;      /* [nstep+2]: last key at depth d matched */
  sqlite3_int64 *arr_idx;     /* [nstep+2]: elements seen at depth d */

  int in_row, row_ready;
  sqlite3_int64 nrows;      /* rows completed */
  sqlite3_int64 idx;        /* current row */
  sqlite3_int64 line, offset;
  JsBuf val;                /* untyped: the element's JSON */
  int sep;

  /* typed */
  JsSlot *slots;
  JsSeen *seen;             /* [nKey]: which member of this row filled each key's columns */
  sqlite3_int64 stamp;      /* this row's stamp (never repeats in a cursor) */
  JsBuf arena;
  int cur_col;              /* first column of the current key, -1: ignored */
  int guess;                /* next key (index into aKey) to try first */
  int nest_col;             /* first column being captured as JSON, -1 none */
  int nest_skip;            /* inside an ignored nested value */
  int nest_sep;

  char *zErr;               /* own error (the callback aborted) */
} JsCursor;

static const char *const kUntypedSchema =
  "CREATE TABLE x(value, idx INTEGER, line INTEGER, offset INTEGER,"
  " filename HIDDEN, path HIDDEN)";
#define JS_COL_VALUE    0
#define JS_COL_IDX      1
#define JS_COL_LINE     2
#define JS_COL_OFFSET   3
#define JS_COL_FILENAME 4
#define JS_COL_PATH     5

static int js_affinity(const char *zType){
  /* SQLite's rules (Datatypes In SQLite, 3.1) */
  char up[128];
  size_t i, n = strlen(zType);
  if( n>=sizeof(up) ) n = sizeof(up)-1;
  for(i=0; i<n; i++){ char c = zType[i]; up[i] = (c>='a' && c<='z') ? (char)(c-32) : c; }
  up[n] = 0;
  if( strstr(up, "INT") ) return AFF_INTEGER;
  if( strstr(up, "CHAR") || strstr(up, "CLOB") || strstr(up, "TEXT") ) return AFF_TEXT;
  if( strstr(up, "BLOB") || n==0 ) return AFF_BLOB;
  if( strstr(up, "REAL") || strstr(up, "FLOA") || strstr(up, "DOUB") ) return AFF_REAL;
  return AFF_NUMERIC;
}

/* "json_stream: BEFORE'VALUE'AFTER" with the value as sq_str_value()
** writes it (cut, escaped); n < 0: strlen. */
static char *js_msg(const char *before, const char *v, sqlite3_int64 n, const char *after){
  sqlite3_str *m = sqlite3_str_new(0);
  sqlite3_str_appendf(m, "json_stream: %s", before);
  sq_str_value(m, v, n<0 ? (sqlite3_int64)strlen(v) : n, 1);
  sqlite3_str_appendall(m, after);
  return sqlite3_str_finish(m);
}

/* Strips optional quotes around an option value; returns a new string. */
static char *js_unquote(const char *z, int n){
  while( n>0 && (*z==' ' || *z=='\t' || *z=='\n') ){ z++; n--; }
  while( n>0 && (z[n-1]==' ' || z[n-1]=='\t' || z[n-1]=='\n') ) n--;
  if( n>=2 && (z[0]=='\'' || z[0]=='"') && z[n-1]==z[0] ){
    char q = z[0];
    char *out = sqlite3_malloc(n);
    int i, o = 0;
    if( !out ) return 0;
    for(i=1; i<n-1; i++){
      out[o++] = z[i];
      if( z[i]==q && i+1<n-1 && z[i+1]==q ) i++;
    }
    out[o] = 0;
    return out;
  }
  return sqlite3_mprintf("%.*s", n, z);
}

/* Splits "a, b(1,2), c" at top-level commas; calls f for each trimmed part. */
static char *js_split(const char *z, char *(*f)(JsVtab*, const char*, int), JsVtab *vt){
  int depth = 0;
  const char *b = z, *s = z;
  char quote = 0;
  for(;; s++){
    char c = *s;
    if( quote ){ if( c==quote ) quote = 0; if( c ) continue; }
    if( c=='"' || c=='`' || c=='[' ){ if( c=='[' ) quote = ']'; else quote = c; continue; }
    if( c=='(' ) depth++;
    else if( c==')' ) depth--;
    if( c==0 || (c==',' && depth==0) ){
      const char *e = s;
      while( b<e && (*b==' ' || *b=='\t' || *b=='\n') ) b++;
      while( e>b && (e[-1]==' ' || e[-1]=='\t' || e[-1]=='\n') ) e--;
      if( e>b ){
        char *err = f(vt, b, (int)(e-b));
        if( err ) return err;
      }
      b = s+1;
      if( c==0 ) break;
    }
  }
  return 0;
}

/* One "name TYPE" of columns=. */
static char *js_add_column(JsVtab *vt, const char *z, int n){
  const char *s = z, *e = z+n;
  char *name;
  JsCol *a;
  if( *s=='"' || *s=='`' || *s=='[' ){
    char q = *s=='[' ? ']' : *s;
    const char *b = ++s;
    while( s<e && *s!=q ) s++;
    if( s>=e ) return js_msg("bad column definition ", z, n, "");
    name = sqlite3_mprintf("%.*s", (int)(s-b), b);
    s++;
  }else{
    const char *b = s;
    while( s<e && *s!=' ' && *s!='\t' && *s!='\n' ) s++;
    name = sqlite3_mprintf("%.*s", (int)(s-b), b);
  }
  if( !name ) return sqlite3_mprintf("json_stream: out of memory");
  while( s<e && (*s==' ' || *s=='\t' || *s=='\n') ) s++;
  a = sqlite3_realloc64(vt->aCol, sizeof(JsCol)*(sqlite3_uint64)(vt->nCol+1));
  if( !a ){ sqlite3_free(name); return sqlite3_mprintf("json_stream: out of memory"); }
  vt->aCol = a;
  memset(&a[vt->nCol], 0, sizeof(JsCol));
  a[vt->nCol].name = name;
  {
    char *type = sqlite3_mprintf("%.*s", (int)(e-s), s);
    if( !type ) return sqlite3_mprintf("json_stream: out of memory");
    a[vt->nCol].aff = js_affinity(type);
    sqlite3_free(type);
  }
  vt->nCol++;
  return 0;
}

/* One "column=key" of keys=. */
static char *js_add_rename(JsVtab *vt, const char *z, int n){
  const char *eq = memchr(z, '=', (size_t)n);
  char *col, *key;
  int i;
  if( !eq ) return js_msg("keys: expected column=key, got ", z, n, "");
  col = js_unquote(z, (int)(eq-z));
  key = js_unquote(eq+1, (int)(z+n-eq-1));
  if( !col || !key ){ sqlite3_free(col); sqlite3_free(key); return sqlite3_mprintf("json_stream: out of memory"); }
  for(i=0; i<vt->nCol; i++){
    if( sqlite3_stricmp(vt->aCol[i].name, col)==0 ){
      if( vt->aCol[i].renamed ){
        /* keys='a=x, a=y': which one?  Say so rather than pick one */
        char *err = js_msg("keys: column ", col, -1, " is given a key twice");
        sqlite3_free(col); sqlite3_free(key);
        return err;
      }
      sqlite3_free(vt->aCol[i].key);
      vt->aCol[i].key = key;
      vt->aCol[i].nkey = (int)strlen(key);
      vt->aCol[i].renamed = 1;
      sqlite3_free(col);
      return 0;
    }
  }
  {
    char *err = js_msg("keys: no column named ", col, -1, "");
    sqlite3_free(col); sqlite3_free(key);
    return err;
  }
}

/* Groups the columns by JSON key (after renames): vt->aKey and the
** aCol[].next chains. */
static char *js_build_keys(JsVtab *vt){
  int i, k;
  vt->aKey = sqlite3_malloc64(sizeof(JsKey)*(sqlite3_uint64)vt->nCol);
  if( !vt->aKey ) return sqlite3_mprintf("json_stream: out of memory");
  vt->nKey = 0;
  for(i=0; i<vt->nCol; i++){
    JsCol *col = &vt->aCol[i];
    col->next = -1;
    for(k=0; k<vt->nKey; k++){
      const JsKey *K = &vt->aKey[k];
      if( K->nkey==col->nkey && memcmp(K->key, col->key, (size_t)col->nkey)==0 ) break;
    }
    if( k<vt->nKey ){
      int j = vt->aKey[k].col;
      while( vt->aCol[j].next>=0 ) j = vt->aCol[j].next;
      vt->aCol[j].next = i;
    }else{
      vt->aKey[vt->nKey].key = col->key;
      vt->aKey[vt->nKey].nkey = col->nkey;
      vt->aKey[vt->nKey].col = i;
      vt->nKey++;
    }
  }
  return 0;
}

static void js_vtab_free(JsVtab *vt){
  int i;
  if( !vt ) return;
  for(i=0; i<vt->nCol; i++){ sqlite3_free(vt->aCol[i].name); sqlite3_free(vt->aCol[i].key); }
  sqlite3_free(vt->aCol);
  sqlite3_free(vt->aKey);
  sqlite3_free(vt->zFile);
  sqlite3_free(vt->zPath);
  sqlite3_free(vt);
}

static int js_connect(sqlite3 *db, void *pAux, int argc, const char *const *argv,
                      sqlite3_vtab **ppVtab, char **pzErr){
  JsVtab *vt;
  int rc, i;
  char *zColumns = 0, *zKeys = 0, *err = 0;
  (void)pAux;
  if( sqlite3_stricmp(argv[1], "temp")!=0
      && !(argc==3 && sqlite3_stricmp(argv[2], "json_stream")==0) ){
    /* Only the eponymous table-valued function json_stream (argv[1] is
    ** "main", no arguments) exists outside temp.  A named table in main or
    ** an attached database would live in a database file, and whoever
    ** opens that file would read the file it names.  xCreate and xConnect
    ** are this one function (SQLite makes a module eponymous only then), so
    ** both CREATE and opening a table already in a file (one planted
    ** through PRAGMA writable_schema) end here. */
    /* (the names come from the database file: written through sq_str_value) */
    sqlite3_str *m = sqlite3_str_new(0);
    sqlite3_str_appendall(m, "json_stream: table ");
    sq_str_value(m, argv[1], (sqlite3_int64)strlen(argv[1]), 0);
    sqlite3_str_appendall(m, ".");
    sq_str_value(m, argv[2], (sqlite3_int64)strlen(argv[2]), 0);
    sqlite3_str_appendall(m, ": json_stream tables read files, so they can only live in "
                             "the temp schema, never in a database file: CREATE VIRTUAL TABLE temp.");
    sq_str_value(m, argv[2], (sqlite3_int64)strlen(argv[2]), 0);
    sqlite3_str_appendall(m, " USING json_stream(...)");
    *pzErr = sqlite3_str_finish(m);
    return SQLITE_ERROR;
  }
  vt = sqlite3_malloc(sizeof(*vt));
  if( !vt ) return SQLITE_NOMEM;
  memset(vt, 0, sizeof(*vt));
  vt->db = db;
  if( argc>3 ){
    vt->typed = 1;
    for(i=3; i<argc && !err; i++){
      const char *a = argv[i];
      const char *eq = strchr(a, '=');
      int nk;
      char *v;
      if( !eq ){ err = js_msg("expected key=value, got ", a, -1, ""); break; }
      nk = (int)(eq-a);
      while( nk>0 && (a[nk-1]==' ' || a[nk-1]=='\t') ) nk--;
      v = js_unquote(eq+1, (int)strlen(eq+1));
      if( !v ){ err = sqlite3_mprintf("json_stream: out of memory"); break; }
      if( nk==8 && sqlite3_strnicmp(a, "filename", 8)==0 ){ sqlite3_free(vt->zFile); vt->zFile = v; }
      else if( nk==7 && sqlite3_strnicmp(a, "columns", 7)==0 ){ sqlite3_free(zColumns); zColumns = v; }
      else if( nk==4 && sqlite3_strnicmp(a, "path", 4)==0 ){ sqlite3_free(vt->zPath); vt->zPath = v; }
      else if( nk==4 && sqlite3_strnicmp(a, "keys", 4)==0 ){ sqlite3_free(zKeys); zKeys = v; }
      else{
        err = js_msg("unknown option ", a, nk, " (expected filename, columns, path, keys)");
        sqlite3_free(v);
      }
    }
    if( !err && !vt->zFile ) err = sqlite3_mprintf("json_stream: missing filename= option");
    if( !err && !zColumns ) err = sqlite3_mprintf("json_stream: missing columns= option");
    if( !err ) err = js_split(zColumns, js_add_column, vt);
    if( !err && vt->nCol==0 ) err = sqlite3_mprintf("json_stream: columns= declares no column");
    if( !err ){
      for(i=0; i<vt->nCol; i++){
        vt->aCol[i].key = sqlite3_mprintf("%s", vt->aCol[i].name);
        if( !vt->aCol[i].key ){ err = sqlite3_mprintf("json_stream: out of memory"); break; }
        vt->aCol[i].nkey = (int)strlen(vt->aCol[i].key);
      }
    }
    if( !err && zKeys ) err = js_split(zKeys, js_add_rename, vt);
    if( !err ) err = js_build_keys(vt);
    if( !err && vt->zPath ){
      JsPath tmp;
      err = js_path_parse(vt->zPath, &tmp);
      js_path_free(&tmp);
    }
    if( !err ){
      sqlite3_str *s = sqlite3_str_new(db);
      for(i=0; i<vt->nCol; i++){
        /* the declared type is re-quoted as an identifier-free string */
        const char *aff = vt->aCol[i].aff==AFF_INTEGER ? "INTEGER"
                        : vt->aCol[i].aff==AFF_TEXT ? "TEXT"
                        : vt->aCol[i].aff==AFF_REAL ? "REAL"
                        : vt->aCol[i].aff==AFF_NUMERIC ? "NUMERIC" : "";
        sqlite3_str_appendf(s, "%s\"%w\" %s", i ? ", " : "CREATE TABLE x(", vt->aCol[i].name, aff);
      }
      sqlite3_str_appendall(s, ")");
      {
        char *zSql = sqlite3_str_finish(s);
        if( !zSql ){ err = sqlite3_mprintf("json_stream: out of memory"); }
        else{
          rc = sqlite3_declare_vtab(db, zSql);
          if( rc!=SQLITE_OK ) err = sqlite3_mprintf("json_stream: bad columns= (%s)", sqlite3_errmsg(db));
          sqlite3_free(zSql);
        }
      }
    }
    sqlite3_free(zColumns);
    sqlite3_free(zKeys);
    if( err ){
      *pzErr = err;
      js_vtab_free(vt);
      return SQLITE_ERROR;
    }
  }else{
    rc = sqlite3_declare_vtab(db, kUntypedSchema);
    if( rc!=SQLITE_OK ){ js_vtab_free(vt); return rc; }
  }
#ifdef SQLITE_VTAB_DIRECTONLY
  sqlite3_vtab_config(db, SQLITE_VTAB_DIRECTONLY);
#endif
  *ppVtab = &vt->base;
  return SQLITE_OK;
}

static int js_disconnect(sqlite3_vtab *p){
  js_vtab_free((JsVtab*)p);
  return SQLITE_OK;
}

/* idxNum bits: 1 filename given, 2 path given. */
static int js_best_index(sqlite3_vtab *tab, sqlite3_index_info *info){
  JsVtab *vt = (JsVtab*)tab;
  int i, iFile = -1, iPath = -1, unusableFile = 0, n = 0;
  if( vt->typed ){
    info->estimatedCost = 1e6;
    info->estimatedRows = 1000000;
    return SQLITE_OK;
  }
  for(i=0; i<info->nConstraint; i++){
    const struct sqlite3_index_constraint *c = &info->aConstraint[i];
    if( c->op!=SQLITE_INDEX_CONSTRAINT_EQ ) continue;
    if( c->iColumn==JS_COL_FILENAME ){
      if( !c->usable ) unusableFile = 1; else iFile = i;
    }else if( c->iColumn==JS_COL_PATH ){
      if( !c->usable ) return SQLITE_CONSTRAINT;
      iPath = i;
    }
  }
  if( iFile<0 && unusableFile ) return SQLITE_CONSTRAINT;
  info->idxNum = 0;
  if( iFile>=0 ){
    info->aConstraintUsage[iFile].argvIndex = ++n;
    info->aConstraintUsage[iFile].omit = 1;
    info->idxNum |= 1;
  }
  if( iPath>=0 ){
    info->aConstraintUsage[iPath].argvIndex = ++n;
    info->aConstraintUsage[iPath].omit = 1;
    info->idxNum |= 2;
  }
  info->estimatedCost = iFile>=0 ? 1e6 : 1e12;
  info->estimatedRows = 1000000;
  return SQLITE_OK;
}

static int js_open(sqlite3_vtab *tab, sqlite3_vtab_cursor **ppCur){
  JsCursor *c = sqlite3_malloc(sizeof(*c));
  if( !c ) return SQLITE_NOMEM;
  memset(c, 0, sizeof(*c));
  c->vt = (JsVtab*)tab;
  c->fd = -1;
  c->eof = 1;
  *ppCur = &c->base;
  return SQLITE_OK;
}

static void js_reset(JsCursor *c){
  if( c->fd>=0 ){ close(c->fd); c->fd = -1; }
  sqlite3_free(c->zFile); c->zFile = 0;
  sqlite3_free(c->zPathArg); c->zPathArg = 0;
  js_path_free(&c->path);
  sqlite3_free(c->parent_obj); c->parent_obj = 0;
  sqlite3_free(c->key_ok); c->key_ok = 0;
  sqlite3_free(c->arr_idx); c->arr_idx = 0;
  sqlite3_free(c->zErr); c->zErr = 0;
  c->eof = 1;
}

static int js_close(sqlite3_vtab_cursor *cur){
  JsCursor *c = (JsCursor*)cur;
  js_reset(c);
  sq_json_free(c->p);
  sqlite3_free(c->chunk);
  sqlite3_free(c->val.z);
  sqlite3_free(c->arena.z);
  sqlite3_free(c->slots);
  sqlite3_free(c->seen);
  sqlite3_free(c);
  return SQLITE_OK;
}

/* Sets the cursor's error message (own errors, from the callback). */
static int js_fail(JsCursor *c, const char *msg){
  if( !c->zErr ) c->zErr = sqlite3_mprintf("%s", msg);
  return 2;   /* abort the parser */
}

static int js_buf_fail(JsCursor *c, int rc){
  if( rc==1 ){
    char m[96];
    sqlite3_snprintf(sizeof m, m, "element larger than %lld bytes", c->max_elem);
    return js_fail(c, m);
  }
  return js_fail(c, "out of memory");
}

/* ---- typed rows */

static SQ_ALWAYS_INLINE int js_key_eq(const JsKey *K, const char *k, size_t n){
  size_t i;
  if( (size_t)K->nkey!=n ) return 0;
  if( n>16 ) return memcmp(K->key, k, n)==0;
  for(i=0; i<n; i++) if( K->key[i]!=k[i] ) return 0;
  return 1;
}

/* Equal ignoring ASCII case (as SQLite compares column names); n bytes each. */
static int js_key_ieq(const char *a, const char *b, size_t n){
  size_t i;
  for(i=0; i<n; i++){
    unsigned char x = (unsigned char)a[i], y = (unsigned char)b[i];
    if( x>='A' && x<='Z' ) x += 32;
    if( y>='A' && y<='Z' ) y += 32;
    if( x!=y ) return 0;
  }
  return 1;
}

/* The key (index into aKey) a member's key goes to: the column key equal
** to it, else the one equal to it ignoring ASCII case; -1: none (the
** member is ignored); -2: several column keys equal it ignoring case only
** (keys='a=Name, b=NAME' and a member "name"; the error is set).  The key
** after the previous match is tried first (members usually come in the
** same order in every element).  *exact: matched byte for byte. */
static int js_find_key(JsCursor *c, const char *k, size_t n, int *exact){
  JsVtab *vt = c->vt;
  int i, g = c->guess, ci = -1;
  if( g<vt->nKey && js_key_eq(&vt->aKey[g], k, n) ){
    c->guess = g+1;
    *exact = 1;
    return g;
  }
  for(i=0; i<vt->nKey; i++){
    const JsKey *K = &vt->aKey[i];
    if( (size_t)K->nkey!=n ) continue;
    if( memcmp(K->key, k, n)==0 ){
      c->guess = i+1;
      *exact = 1;
      return i;
    }
    if( js_key_ieq(K->key, k, n) ){
      if( ci>=0 ){
        /* and no exact match may follow: look for one before failing */
        int j;
        for(j=i+1; j<vt->nKey; j++){
          if( js_key_eq(&vt->aKey[j], k, n) ){ c->guess = j+1; *exact = 1; return j; }
        }
        {
          sqlite3_str *m = sqlite3_str_new(0);
          char *z;
          sqlite3_str_appendall(m, "key ");
          sq_str_value(m, k, (sqlite3_int64)n, 1);
          sqlite3_str_appendall(m, " matches both ");
          sq_str_value(m, vt->aKey[ci].key, vt->aKey[ci].nkey, 1);
          sqlite3_str_appendall(m, " and ");
          sq_str_value(m, K->key, K->nkey, 1);
          sqlite3_str_appendall(m, " ignoring case (name it exactly in keys=)");
          z = sqlite3_str_finish(m);
          js_fail(c, z ? z : "out of memory");
          sqlite3_free(z);
          return -2;
        }
      }
      ci = i;
    }
  }
  *exact = 0;
  return ci;
}

/* A member with key k (n bytes) goes to key g: its first column, or -1
** after setting the error when another member of the same element already
** filled those columns ("id" and "ID", or "id" twice: which one is meant?
** json_stream(...)->>'id' would take the first, JavaScript the last). */
static int js_member_col(JsCursor *c, int g, const char *k, size_t n, int exact){
  JsSeen *sn = &c->seen[g];
  const JsKey *K = &c->vt->aKey[g];
  if( sn->stamp==c->stamp ){
    sqlite3_str *m = sqlite3_str_new(0);
    const char *prev = sn->exact ? K->key : c->arena.z + sn->koff;
    sqlite3_int64 nprev = sn->exact ? K->nkey : sn->klen;
    char *z;
    const char *col = c->vt->aCol[K->col].name;
    if( nprev==(sqlite3_int64)n && memcmp(prev, k, n)==0 ){
      sqlite3_str_appendall(m, "key ");
      sq_str_value(m, k, (sqlite3_int64)n, 1);
      sqlite3_str_appendall(m, " appears twice in one object (column ");
    }else{
      sqlite3_str_appendall(m, "keys ");
      sq_str_value(m, prev, nprev, 1);
      sqlite3_str_appendall(m, " and ");
      sq_str_value(m, k, (sqlite3_int64)n, 1);
      sqlite3_str_appendall(m, " of one object both match column ");
    }
    sq_str_value(m, col, (sqlite3_int64)strlen(col), 1);
    if( nprev==(sqlite3_int64)n && memcmp(prev, k, n)==0 ) sqlite3_str_appendall(m, ")");
    z = sqlite3_str_finish(m);
    js_fail(c, z ? z : "out of memory");
    sqlite3_free(z);
    return -2;
  }
  sn->stamp = c->stamp;
  sn->exact = exact;
  if( !exact ){
    int rc = 0;
    sn->koff = c->arena.n;
    sn->klen = (int)n;
    JSBUF_PUT(&c->arena, k, n, c->max_elem, rc);
    if( rc ){ js_buf_fail(c, rc); return -2; }
  }
  return K->col;
}

static int js_typed_scalar(JsCursor *c, int col, const sq_json_token *t){
  JsSlot *sl = &c->slots[col];
  int aff = c->vt->aCol[col].aff;
  int rc = 0;
  switch( t->type ){
    case SQ_JSON_NULL: sl->type = SL_NULL; return 0;
    case SQ_JSON_TRUE: sl->type = SL_INT; sl->i = 1; return 0;
    case SQ_JSON_FALSE: sl->type = SL_INT; sl->i = 0; return 0;
    case SQ_JSON_NUMBER:
      if( aff==AFF_TEXT ) break;   /* the literal, as text */
      if( aff!=AFF_REAL && (t->flags & SQ_JSON_F_INTEGER) ){
        int64_t v;
        if( sq_json_number_int64(t->text, t->len, &v) ){
          sl->type = SL_INT;
          sl->i = (sqlite3_int64)v;
          return 0;
        }
      }
      sl->type = SL_REAL;
      sl->r = sq_json_number_double(t->text, t->len);
      return 0;
    default: break;
  }
  sl->type = SL_TEXT;
  sl->off = c->arena.n;
  sl->len = (sqlite3_int64)t->len;
  JSBUF_PUT(&c->arena, t->text, t->len, c->max_elem, rc);
  if( rc ) return js_buf_fail(c, rc);
  return 0;
}

static int js_typed_event(JsCursor *c, const sq_json_token *t){
  int d = t->depth, ty = t->type, rd = c->row_depth;
  if( d==rd ){
    /* the END_OBJECT of the row */
    c->in_row = 0;
    c->row_ready = 1;
    return SQ_JSON_PAUSE;
  }
  if( d==rd+1 ){
    if( ty==SQ_JSON_KEY ){
      JsVtab *vt = c->vt;
      int exact = 0, g = c->guess;
      /* the hot path: the expected key, first in this object */
      if( g<vt->nKey && js_key_eq(&vt->aKey[g], t->text, t->len)
          && c->seen[g].stamp!=c->stamp ){
        c->guess = g+1;
        c->seen[g].stamp = c->stamp;
        c->seen[g].exact = 1;
        c->cur_col = vt->aKey[g].col;
        return 0;
      }
      g = js_find_key(c, t->text, t->len, &exact);
      if( g==-2 ) return 2;                 /* abort: error set */
      c->cur_col = g<0 ? -1 : js_member_col(c, g, t->text, t->len, exact);
      return c->cur_col==-2 ? 2 : 0;
    }
    if( ty==SQ_JSON_BEGIN_OBJECT || ty==SQ_JSON_BEGIN_ARRAY ){
      if( c->cur_col<0 ){ c->nest_skip = 1; return 0; }
      c->nest_col = c->cur_col;
      c->slots[c->nest_col].off = c->arena.n;
      c->nest_sep = 0;
      {
        int rc = js_write_token(&c->arena, &c->nest_sep, t, c->max_elem);
        if( rc ) return js_buf_fail(c, rc);
      }
      return 0;
    }else if( ty==SQ_JSON_END_OBJECT || ty==SQ_JSON_END_ARRAY ){
      if( c->nest_skip ){ c->nest_skip = 0; return 0; }
      if( c->nest_col>=0 ){
        int rc = js_write_token(&c->arena, &c->nest_sep, t, c->max_elem);
        sqlite3_int64 off = c->slots[c->nest_col].off;
        int col;
        if( rc ) return js_buf_fail(c, rc);
        for(col=c->nest_col; col>=0; col=c->vt->aCol[col].next){
          JsSlot *sl = &c->slots[col];
          sl->type = SL_JSON;
          sl->off = off;
          sl->len = c->arena.n - off;
        }
        c->nest_col = -1;
      }
      return 0;
    }else{
      int col, rc = 0;
      for(col=c->cur_col; col>=0 && rc==0; col=c->vt->aCol[col].next){
        rc = js_typed_scalar(c, col, t);
      }
      return rc;
    }
  }
  if( c->nest_col>=0 ){
    int rc = js_write_token(&c->arena, &c->nest_sep, t, c->max_elem);
    if( rc ) return js_buf_fail(c, rc);
  }
  return 0;
}

/* ---- the parser callbacks */

static int js_row_start(JsCursor *c, const sq_json_token *t){
  int ty = t->type;
  c->idx = c->nrows;
  c->line = (sqlite3_int64)t->line;
  c->offset = (sqlite3_int64)t->offset;
  if( c->vt->typed ){
    int i;
    if( ty!=SQ_JSON_BEGIN_OBJECT ){
      return js_fail(c, "expected an object (json_stream with columns= reads arrays of objects)");
    }
    for(i=0; i<c->vt->nCol; i++) c->slots[i].type = SL_NULL;
    c->stamp++;
    c->arena.n = 0;
    c->cur_col = -1;
    c->guess = 0;
    c->nest_col = -1;
    c->nest_skip = 0;
    c->in_row = 1;
    return 0;
  }
  c->val.n = 0;
  c->sep = 0;
  {
    int rc = js_write_token(&c->val, &c->sep, t, c->max_elem);
    if( rc ) return js_buf_fail(c, rc);
  }
  if( ty==SQ_JSON_BEGIN_OBJECT || ty==SQ_JSON_BEGIN_ARRAY ){
    c->in_row = 1;
    return 0;
  }
  c->row_ready = 1;
  return SQ_JSON_PAUSE;
}

static int js_is_value_start(int ty){
  return ty!=SQ_JSON_KEY && ty!=SQ_JSON_END_OBJECT && ty!=SQ_JSON_END_ARRAY;
}

static char *js_path_msg(JsCursor *c, const char *what);

static int js_event(void *user, const sq_json_token *t){
  JsCursor *c = (JsCursor*)user;
  int d = t->depth, ty = t->type;

  if( c->in_row ){
    if( c->vt->typed ) return js_typed_event(c, t);
    {
      int rc = js_write_token(&c->val, &c->sep, t, c->max_elem);
      if( rc ) return js_buf_fail(c, rc);
    }
    if( d==c->row_depth && (ty==SQ_JSON_END_OBJECT || ty==SQ_JSON_END_ARRAY) ){
      c->in_row = 0;
      c->row_ready = 1;
      return SQ_JSON_PAUSE;
    }
    return 0;
  }

  if( c->in_target ){
    if( d==c->row_depth && js_is_value_start(ty) ) return js_row_start(c, t);
    if( c->mode==MODE_ARRAY && ty==SQ_JSON_END_ARRAY && d==c->row_depth-1 ){
      c->in_target = 0;
      if( c->mdepth>d ) c->mdepth = d;
      return 0;
    }
    return 0;
  }

  if( c->mode==MODE_AUTO ){
    /* first token of the file: an array, or NDJSON */
    if( ty==SQ_JSON_BEGIN_ARRAY ){
      c->mode = MODE_ARRAY;
      c->row_depth = 1;
      c->in_target = 1;
      c->targets = 1;
      return 0;
    }
    c->mode = MODE_NDJSON;
    c->row_depth = 0;
    c->in_target = 1;
    return js_row_start(c, t);
  }

  /* path tracking (MODE_ARRAY, outside the selected array) */
  if( d==0 && c->targets>0 && c->path.nstep==0 && js_is_value_start(ty) ){
    return js_fail(c, "more than one top-level value after the top-level array "
                      "(for NDJSON whose lines are arrays, pass 'ndjson' as the path)");
  }
  if( ty==SQ_JSON_END_OBJECT || ty==SQ_JSON_END_ARRAY ){
    if( c->mdepth>d ) c->mdepth = d;
    return 0;
  }
  if( c->mdepth!=d || d>c->path.nstep ) return 0;
  if( ty==SQ_JSON_KEY ){
    const JsStep *st = &c->path.steps[d-1];
    c->key_ok[d] = !st->is_index && (size_t)st->nkey==t->len && memcmp(st->key, t->text, t->len)==0;
    return 0;
  }
  {
    int match;
    if( d==0 ){
      match = 1;
    }else if( c->parent_obj[d] ){
      match = c->key_ok[d];
    }else{
      const JsStep *st = &c->path.steps[d-1];
      match = st->is_index && st->index==c->arr_idx[d];
      c->arr_idx[d]++;
    }
    if( !match ) return 0;
    if( d==c->path.nstep ){
      if( ty!=SQ_JSON_BEGIN_ARRAY ){
        char *m = js_path_msg(c, ty==SQ_JSON_BEGIN_OBJECT ? "selects an object, not an array"
                                                          : "selects a scalar, not an array");
        int rc = js_fail(c, m ? m : "out of memory");
        sqlite3_free(m);
        return rc;
      }
      c->in_target = 1;
      c->targets++;
      c->row_depth = d+1;
      return 0;
    }
    if( ty==SQ_JSON_BEGIN_OBJECT || ty==SQ_JSON_BEGIN_ARRAY ){
      c->mdepth = d+1;
      c->parent_obj[d+1] = ty==SQ_JSON_BEGIN_OBJECT;
      c->key_ok[d+1] = 0;
      c->arr_idx[d+1] = 0;
    }
  }
  return 0;
}

/* Typed tables: the members of the current row first (the hot path). */
static int js_event_typed(void *user, const sq_json_token *t){
  JsCursor *c = (JsCursor*)user;
  if( c->in_row ) return js_typed_event(c, t);
  return js_event(user, t);
}

/* ---- errors */

/* "path 'PATH' WHAT" (sqlite3_free it; NULL when out of memory) */
static char *js_path_msg(JsCursor *c, const char *what){
  sqlite3_str *m = sqlite3_str_new(0);
  const char *z = c->zPathArg ? c->zPathArg : "$";
  sqlite3_str_appendall(m, "path ");
  sq_str_value(m, z, (sqlite3_int64)strlen(z), 1);
  sqlite3_str_appendf(m, " %s", what);
  return sqlite3_str_finish(m);
}

/* "json_stream: FILE: [line L, byte B, [element N: ]]MSG"; the file name
** as sq_str_value() writes it (cut, escaped). */
static int js_error(JsCursor *c, const char *msg, sqlite3_int64 line, sqlite3_int64 off, int with_elem){
  sqlite3_vtab *tab = &c->vt->base;
  sqlite3_str *m = sqlite3_str_new(0);
  sqlite3_str_appendall(m, "json_stream: ");
  sq_str_value(m, c->zFile, (sqlite3_int64)strlen(c->zFile), 0);
  if( with_elem ){
    sqlite3_str_appendf(m, ": line %lld, byte %lld, element %lld: %s",
                        line, off, c->in_row ? c->idx : c->nrows, msg);
  }else if( line>0 ){
    sqlite3_str_appendf(m, ": line %lld, byte %lld: %s", line, off, msg);
  }else{
    sqlite3_str_appendf(m, ": %s", msg);
  }
  sqlite3_free(tab->zErrMsg);
  tab->zErrMsg = sqlite3_str_finish(m);
  c->eof = 1;
  return SQLITE_ERROR;
}

static int js_parser_error(JsCursor *c){
  const sq_json_error *e = sq_json_error_info(c->p);
  const char *msg = (e->code==SQ_JSON_E_ABORTED && c->zErr) ? c->zErr : e->message;
  if( c->mode==MODE_ARRAY && c->path.nstep==0 && c->targets>0 && !c->in_target
      && e->code==SQ_JSON_E_SYNTAX && sq_json_depth(c->p)==0 ){
    /* The file began with an array, so it is one JSON value, not NDJSON
    ** (the parser runs in multi-value mode until the first token says
    ** which): say so, not "expected a newline between top-level values". */
    msg = "unexpected data after the top-level array";
  }
  return js_error(c, msg, (sqlite3_int64)e->line, (sqlite3_int64)e->offset,
                  c->in_target || c->in_row);
}

/* Reads the next chunk into c->chunk.  The file is open with O_NONBLOCK:
** a pipe or FIFO with nothing to read (no writer yet, or a writer that
** stalls) is waited on with poll() in slices of JS_WAIT_MS, and between
** slices (and every JS_READS_PER_CHECK reads while data flows) the
** connection is asked whether sqlite3_interrupt() was called: then the
** statement ends with SQLITE_INTERRUPT ("interrupted"). */
static int js_read(JsCursor *c){
  for(;;){
    struct pollfd pfd;
    ssize_t n;
    int r;
    if( c->reads>=JS_READS_PER_CHECK ){
      c->reads = 0;
      if( sq_interrupted(c->vt->db) ){ c->eof = 1; return SQLITE_INTERRUPT; }
    }
    pfd.fd = c->fd;
    pfd.events = POLLIN;
    pfd.revents = 0;
    r = poll(&pfd, 1, JS_WAIT_MS);
    if( r==0 || (r<0 && errno==EINTR) ){
      c->reads = JS_READS_PER_CHECK;     /* waited: check now */
      continue;
    }
    if( r<0 ){
      char m[200];
      sqlite3_snprintf(sizeof m, m, "read error: %s", strerror(errno));
      return js_error(c, m, 0, 0, 0);
    }
    c->reads++;
    n = read(c->fd, c->chunk, JS_CHUNK);
    if( n<0 && (errno==EAGAIN || errno==EWOULDBLOCK || errno==EINTR) ) continue;
    if( n<0 ){
      char m[200];
      sqlite3_snprintf(sizeof m, m, "read error: %s", strerror(errno));
      return js_error(c, m, 0, 0, 0);
    }
    if( n==0 ) c->input_eof = 1;
    c->clen = (size_t)n;
    c->cpos = 0;
    return SQLITE_OK;
  }
}

/* Advances to the next row (or EOF). */
static int js_advance(JsCursor *c){
  c->row_ready = 0;
  if( c->finished ){ c->eof = 1; return SQLITE_OK; }
  for(;;){
    if( c->cpos<c->clen ){
      int rc = sq_json_feed(c->p, c->chunk+c->cpos, c->clen-c->cpos);
      c->cpos += sq_json_consumed(c->p);
      if( rc==SQ_JSON_ERROR ) return js_parser_error(c);
      if( c->row_ready ){ c->nrows++; return SQLITE_OK; }
      if( rc==SQ_JSON_OK ) c->cpos = c->clen;
      continue;
    }
    if( c->input_eof ){
      if( sq_json_finish(c->p)!=SQ_JSON_OK ) return js_parser_error(c);
      c->finished = 1;
      if( c->row_ready ){ c->nrows++; return SQLITE_OK; }
      if( c->mode==MODE_ARRAY && c->targets==0 && c->path.nstep>0 ){
        char *m = js_path_msg(c, "not found");
        int rc = js_error(c, m ? m : "out of memory", 0, 0, 0);
        sqlite3_free(m);
        return rc;
      }
      c->eof = 1;
      return SQLITE_OK;
    }
    {
      int rc = js_read(c);
      if( rc!=SQLITE_OK ) return rc;
    }
  }
}

static int js_filter(sqlite3_vtab_cursor *cur, int idxNum, const char *idxStr,
                     int argc, sqlite3_value **argv){
  JsCursor *c = (JsCursor*)cur;
  JsVtab *vt = c->vt;
  const char *zFile = 0, *zPath = 0;
  char *err;
  int n = 0, lim, nstep;
  (void)idxStr; (void)argc;
  js_reset(c);
  if( vt->typed ){
    zFile = vt->zFile;
    zPath = vt->zPath;
  }else{
    if( idxNum & 1 ) zFile = (const char*)sqlite3_value_text(argv[n++]);
    if( idxNum & 2 ) zPath = (const char*)sqlite3_value_text(argv[n++]);
    if( !(idxNum & 1) ){
      sqlite3_free(vt->base.zErrMsg);
      vt->base.zErrMsg = sqlite3_mprintf("json_stream: missing the filename argument: "
                                         "json_stream(filename [, path])");
      return SQLITE_ERROR;
    }
    if( !zFile || ((idxNum & 2) && !zPath) ){
      sqlite3_free(vt->base.zErrMsg);
      vt->base.zErrMsg = sqlite3_mprintf("json_stream: the %s argument is NULL",
                                         zFile ? "path" : "filename");
      return SQLITE_ERROR;
    }
    /* a NUL would cut the name open() sees: another file than the one asked for */
    if( (int)strlen(zFile)!=sqlite3_value_bytes(argv[0])
        || ((idxNum & 2) && (int)strlen(zPath)!=sqlite3_value_bytes(argv[1])) ){
      sqlite3_str *m = sqlite3_str_new(0);
      int isPath = (int)strlen(zFile)==sqlite3_value_bytes(argv[0]);
      sqlite3_value *v = argv[isPath ? 1 : 0];
      sqlite3_str_appendf(m, "json_stream: the %s argument contains a NUL byte: ",
                          isPath ? "path" : "filename");
      sq_str_value(m, (const char*)sqlite3_value_text(v), sqlite3_value_bytes(v), 1);
      sqlite3_free(vt->base.zErrMsg);
      vt->base.zErrMsg = sqlite3_str_finish(m);
      return SQLITE_ERROR;
    }
  }
  c->zFile = sqlite3_mprintf("%s", zFile);
  c->zPathArg = zPath ? sqlite3_mprintf("%s", zPath) : 0;
  if( !c->zFile || (zPath && !c->zPathArg) ) return SQLITE_NOMEM;
  err = js_path_parse(zPath, &c->path);
  if( err ){
    sqlite3_free(vt->base.zErrMsg);
    vt->base.zErrMsg = err;
    return SQLITE_ERROR;
  }
  nstep = c->path.nstep;
  c->parent_obj = sqlite3_malloc64((sqlite3_uint64)(nstep+2));
  c->key_ok = sqlite3_malloc64((sqlite3_uint64)(nstep+2));
  c->arr_idx = sqlite3_malloc64(sizeof(sqlite3_int64)*(sqlite3_uint64)(nstep+2));
  if( !c->parent_obj || !c->key_ok || !c->arr_idx ) return SQLITE_NOMEM;
  memset(c->parent_obj, 0, (size_t)nstep+2);
  memset(c->key_ok, 0, (size_t)nstep+2);
  memset(c->arr_idx, 0, sizeof(sqlite3_int64)*((size_t)nstep+2));
  if( !c->chunk ){
    c->chunk = sqlite3_malloc(JS_CHUNK);
    if( !c->chunk ) return SQLITE_NOMEM;
  }
  if( vt->typed && !c->slots ){
    c->slots = sqlite3_malloc64(sizeof(JsSlot)*(sqlite3_uint64)vt->nCol);
    c->seen = sqlite3_malloc64(sizeof(JsSeen)*(sqlite3_uint64)vt->nKey);
    if( !c->slots || !c->seen ) return SQLITE_NOMEM;
    memset(c->slots, 0, sizeof(JsSlot)*(size_t)vt->nCol);
    memset(c->seen, 0, sizeof(JsSeen)*(size_t)vt->nKey);
  }
  if( !c->p ){
    c->p = sq_json_new(vt->typed ? js_event_typed : js_event, c);
    if( !c->p ) return SQLITE_NOMEM;
  }else{
    sq_json_reset(c->p);
  }
  lim = sqlite3_limit(vt->db, SQLITE_LIMIT_LENGTH, -1);
  c->max_elem = JS_MAX_ELEMENT;
  if( lim>0 && lim<c->max_elem ) c->max_elem = lim;
  sq_json_set_max_token(c->p, (size_t)c->max_elem);
  c->mode = c->path.ndjson ? MODE_NDJSON : (nstep==0 ? MODE_AUTO : MODE_ARRAY);
  sq_json_set_options(c->p, (c->mode==MODE_ARRAY && nstep>0) ? 0 : SQ_JSON_OPT_MULTIPLE);
  c->row_depth = 0;
  c->in_target = c->mode==MODE_NDJSON;
  c->targets = 0;
  c->mdepth = 0;
  c->in_row = 0;
  c->row_ready = 0;
  c->nrows = 0;
  c->idx = 0;
  c->clen = c->cpos = 0;
  c->input_eof = 0;
  c->finished = 0;
  c->eof = 0;
  c->reads = JS_READS_PER_CHECK;    /* check once before the first read */
  /* O_NONBLOCK: opening a FIFO does not wait for a writer (js_read waits,
  ** interruptibly); regular files ignore it. */
  c->fd = open(zFile, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if( c->fd<0 ){
    char m[200];
    sqlite3_snprintf(sizeof m, m, "cannot open: %s", strerror(errno));
    return js_error(c, m, 0, 0, 0);
  }
  return js_advance(c);
}

static int js_next(sqlite3_vtab_cursor *cur){
  return js_advance((JsCursor*)cur);
}

static int js_eof(sqlite3_vtab_cursor *cur){
  return ((JsCursor*)cur)->eof;
}

/* The text at b->z[off..off+len) as a TEXT result.  A buffer that never
** received a byte has z == NULL, and sqlite3_result_text64() turns a NULL
** pointer into SQL NULL: an empty string must stay ''. */
static void js_result_text(sqlite3_context *ctx, const JsBuf *b,
                           sqlite3_int64 off, sqlite3_int64 len){
  const char *z = len>0 ? b->z+off : "";
  sqlite3_result_text64(ctx, z, (sqlite3_uint64)len, SQLITE_TRANSIENT, SQLITE_UTF8);
}

static int js_column(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int i){
  JsCursor *c = (JsCursor*)cur;
  if( c->vt->typed ){
    JsSlot *sl = &c->slots[i];
    switch( sl->type ){
      case SL_INT:  sqlite3_result_int64(ctx, sl->i); break;
      case SL_REAL: sqlite3_result_double(ctx, sl->r); break;
      case SL_TEXT: js_result_text(ctx, &c->arena, sl->off, sl->len); break;
      case SL_JSON:
        js_result_text(ctx, &c->arena, sl->off, sl->len);
        sqlite3_result_subtype(ctx, JS_SUBTYPE);
        break;
      default: break;   /* NULL */
    }
    return SQLITE_OK;
  }
  switch( i ){
    case JS_COL_VALUE:
      js_result_text(ctx, &c->val, 0, c->val.n);
      sqlite3_result_subtype(ctx, JS_SUBTYPE);
      break;
    case JS_COL_IDX:    sqlite3_result_int64(ctx, c->idx); break;
    case JS_COL_LINE:   sqlite3_result_int64(ctx, c->line); break;
    case JS_COL_OFFSET: sqlite3_result_int64(ctx, c->offset); break;
    case JS_COL_FILENAME: sqlite3_result_text(ctx, c->zFile, -1, SQLITE_TRANSIENT); break;
    default:
      if( c->zPathArg ) sqlite3_result_text(ctx, c->zPathArg, -1, SQLITE_TRANSIENT);
      break;
  }
  return SQLITE_OK;
}

static int js_rowid(sqlite3_vtab_cursor *cur, sqlite_int64 *pRowid){
  *pRowid = ((JsCursor*)cur)->idx;
  return SQLITE_OK;
}

static sqlite3_module js_module = {
  0,                /* iVersion */
  js_connect,       /* xCreate: CREATE VIRTUAL TABLE … USING json_stream(…) */
  js_connect,       /* xConnect (also the eponymous table-valued function) */
  js_best_index,
  js_disconnect,
  js_disconnect,    /* xDestroy */
  js_open,
  js_close,
  js_filter,
  js_next,
  js_eof,
  js_column,
  js_rowid,
  0, 0, 0, 0, 0, 0, 0,
  0, 0, 0, 0
};

int sq_json_register(sqlite3 *db){
  return sqlite3_create_module(db, "json_stream", &js_module, 0);
}
