/*
** sq_json_stream.c — json_stream: JSON files of any size into rows, in
** constant memory: a thin driver of the ingest core (sq_ingest.h) and its
** JSON driver on StreamQLite's incremental parser (sq_json.h).  This file
** reads the file and answers SQLite; the core selects the elements,
** matches keys, coerces values and writes nested values.
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
**       keys='id=task_id, title=name', -- optional: column=JSON key
**       strict=1                      -- optional: refuse lossy values
**   );
**   INSERT INTO tasks SELECT * FROM incoming;
**
**   Each element must be a JSON object; its members go straight into the
**   declared columns during the one parse (no JSON text per row).  The
**   rows are assembled by the ingest core (sq_ingest.h, the manual of
**   these rules), the same C code as the Swift library's importJSON: the
**   same file is stored the same way through both.
**   Keys to columns: each column is fed by its name, or by the key keys=
**   gives it (one key may feed several columns: keys='n_text=n' fills
**   both n and n_text, each by its own type).  A member's key matches
**     1. the column key equal to it byte for byte, else
**     2. the column key equal to it ignoring ASCII case (A-Z = a-z, as
**        SQLite compares column names: "ID" feeds column id); if two
**        column keys match it that way only (keys='a=Name, b=NAME' and a
**        member "name"), it is an error naming them, else
**     3. nothing: the member is ignored (strict=1: an error).
**   Two members of one object that feed the same column ("id" and "ID",
**   or "id" twice) are an error naming both keys: SQLite's ->> would take
**   the first, JavaScript the last; json_stream does not guess.  A
**   missing member is NULL.  Values, by the column's declared type
**   (SQLite's affinity rules: INT → INTEGER, CHAR/CLOB/TEXT → TEXT,
**   REAL/FLOA/DOUB → REAL, BLOB or none, else NUMERIC):
**     null           NULL
**     true/false     1 / 0 (REAL column: 1.0 / 0.0)
**     number         TEXT column: the literal as written ('1.50');
**                    REAL column: a double; INTEGER column: an integer
**                    (also 2.0 or 1e3), else a double; NUMERIC/BLOB:
**                    an integer when the literal is one, else a double.
**                    Integers beyond 64 bits: the literal as TEXT (an
**                    INTEGER/REAL/NUMERIC table column stores it as REAL)
**     string         TEXT; in an INTEGER column an integer when it is an
**                    integer literal ('12' → 12), in a REAL column a
**                    double when it is a JSON number ('7' → 7.0)
**     string in a DATE/DATETIME/TIMESTAMP/TIME… column
**                    validated and normalized to the library's one date
**                    text ('2024-05-01T14:00:00+02:00' → '2024-05-01
**                    12:00:00.000'; a bare date stays 'YYYY-MM-DD'), as
**                    sq_date.h writes it; other strings as they are
**     object/array   minified JSON text with the JSON subtype
**   strict=1: values that do not fit their column losslessly (a string
**   that is no integer in an INTEGER column, a fraction in an INTEGER
**   column, an integer beyond 64 bits, 1e400, a string that is no date in
**   a date column, an object in an INTEGER or REAL column) and unknown
**   keys are errors naming the key, the element and its position.
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
#include "sq_ingest.h"

#include <string.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#ifndef O_CLOEXEC
# define O_CLOEXEC 0
#endif

#define JS_CHUNK        (64*1024)
#define JS_SUBTYPE      74     /* 'J': SQLite's JSON subtype */

/* ------------------------------------------------------------ vtab */

typedef struct JsCol {
  char *name;
  char *type;         /* as declared in columns= */
  char *key;          /* keys= gave it this key, or NULL */
} JsCol;

typedef struct JsVtab {
  sqlite3_vtab base;
  sqlite3 *db;
  int typed;
  int strict;         /* typed: strict=1 */
  char *zFile;        /* typed: the filename= option */
  char *zPath;        /* typed: the path= option */
  int nCol;
  JsCol *aCol;
  int read_once;      /* typed: a scan has read a pipe, FIFO or terminal */
} JsVtab;

typedef struct JsCursor {
  sqlite3_vtab_cursor base;
  JsVtab *vt;
  sq_file file;             /* the input (sq_file.c) */
  char *zOnce;              /* a pipe, FIFO or terminal this cursor has read */
  char *zFile;              /* as given (for messages and the column) */
  char *zPathArg;
  sq_ingest *g;             /* the core, for this scan */
  unsigned char *chunk;
  size_t clen, cpos;
  int input_eof;            /* read() returned 0 */
  int finished;             /* the core's finish done */
  int eof;                  /* no current row */
  int row_ready;            /* the core handed over a row */
  sqlite3_int64 idx, line, offset;   /* the current row */
  const sq_ingest_value *vals;       /* its values (valid until the next feed) */
  int nval;
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

/* "json_stream: BEFORE'VALUE'AFTER" with the value as sq_str_value()
** writes it (cut, escaped); n < 0: strlen. */
static char *js_msg(const char *before, const char *v, sqlite3_int64 n, const char *after){
  sqlite3_str *m = sqlite3_str_new(0);
  sqlite3_str_appendf(m, "json_stream: %s", before);
  sq_str_value(m, v, n<0 ? (sqlite3_int64)strlen(v) : n, 1);
  sqlite3_str_appendall(m, after);
  return sqlite3_str_finish(m);
}

static char *js_add_column(void *ctx, const char *z, int n){
  JsVtab *vt = ctx;
  char *name, *type;
  JsCol *a;
  int rc = sq_arg_column(z, n, &name, &type);
  if( rc==1 || rc==5 ){
    char *m = js_msg("bad column definition ", z, n, ": ");
    char *err = sqlite3_mprintf("%s%s", m ? m : "", sq_arg_column_error(rc));
    sqlite3_free(m);
    return err;
  }
  if( rc ) return sqlite3_mprintf("json_stream: out of memory");
  a = sqlite3_realloc64(vt->aCol, sizeof(JsCol)*(sqlite3_uint64)(vt->nCol+1));
  if( !a || !type ){
    sqlite3_free(name); sqlite3_free(type);
    if( a ) vt->aCol = a;
    return sqlite3_mprintf("json_stream: out of memory");
  }
  vt->aCol = a;
  memset(&a[vt->nCol], 0, sizeof(JsCol));
  a[vt->nCol].name = name;
  a[vt->nCol].type = type;
  vt->nCol++;
  return 0;
}

/* One "column=key" of keys=. */
static char *js_add_rename(void *ctx, const char *z, int n){
  JsVtab *vt = ctx;
  const char *eq = memchr(z, '=', (size_t)n);
  char *col, *key;
  int i;
  if( !eq ) return js_msg("keys: expected column=key, got ", z, n, "");
  col = sq_arg_unquote(z, (int)(eq-z));
  key = sq_arg_unquote(eq+1, (int)(z+n-eq-1));
  if( !col || !key ){ sqlite3_free(col); sqlite3_free(key); return sqlite3_mprintf("json_stream: out of memory"); }
  for(i=0; i<vt->nCol; i++){
    if( sqlite3_stricmp(vt->aCol[i].name, col)==0 ){
      if( vt->aCol[i].key ){
        /* keys='a=x, a=y': which one?  Say so rather than pick one */
        char *err = js_msg("keys: column ", col, -1, " is given a key twice");
        sqlite3_free(col); sqlite3_free(key);
        return err;
      }
      vt->aCol[i].key = key;
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

static void js_vtab_free(JsVtab *vt){
  int i;
  if( !vt ) return;
  for(i=0; i<vt->nCol; i++){
    sqlite3_free(vt->aCol[i].name);
    sqlite3_free(vt->aCol[i].type);
    sqlite3_free(vt->aCol[i].key);
  }
  sqlite3_free(vt->aCol);
  sqlite3_free(vt->zFile);
  sqlite3_free(vt->zPath);
  sqlite3_free(vt);
}

static int js_on_row(void *user, const sq_ingest_row *row);

/* A core configured for this table and path: columns= and keys= (typed),
** whole values (the table-valued function), the path, strict=, the
** element limit.  NULL and *pzErr ("json_stream: …") on error. */
static sq_ingest *js_make_core(JsVtab *vt, JsCursor *c, const char *zPath, char **pzErr){
  sq_ingest *g = sq_ingest_new(js_on_row, c);
  int i, lim;
  sqlite3_int64 max = SQ_INGEST_DEFAULT_MAX_RECORD;
  if( !g ){ *pzErr = sqlite3_mprintf("json_stream: out of memory"); return 0; }
  if( vt->typed ){
    for(i=0; i<vt->nCol; i++) sq_ingest_add_column(g, vt->aCol[i].name, -1, vt->aCol[i].type, -1, 0);
    for(i=0; i<vt->nCol; i++){
      if( vt->aCol[i].key ) sq_ingest_map_key(g, vt->aCol[i].key, -1, vt->aCol[i].name, -1);
    }
    sq_ingest_set_strict(g, vt->strict);
  }else{
    sq_ingest_set_whole_values(g, 1);
  }
  sq_ingest_json_path(g, zPath, -1);
  lim = sqlite3_limit(vt->db, SQLITE_LIMIT_LENGTH, -1);
  if( lim>0 && lim<max ) max = lim;
  sq_ingest_set_max_record(g, max);
  if( sq_ingest_error_info(g)->code ){
    *pzErr = sqlite3_mprintf("json_stream: %s", sq_ingest_error_info(g)->message);
    sq_ingest_free(g);
    return 0;
  }
  return g;
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
      rc = sq_arg_value(eq+1, (int)strlen(eq+1), &v);
      if( rc==3 || rc==4 ){
        char *m = js_msg("option ", a, -1, ": ");
        err = sqlite3_mprintf("%s%s", m ? m : "", sq_arg_value_error(rc));
        sqlite3_free(m);
        break;
      }
      if( rc ){ err = sqlite3_mprintf("json_stream: out of memory"); break; }
      if( nk==8 && sqlite3_strnicmp(a, "filename", 8)==0 ){ sqlite3_free(vt->zFile); vt->zFile = v; }
      else if( nk==7 && sqlite3_strnicmp(a, "columns", 7)==0 ){ sqlite3_free(zColumns); zColumns = v; }
      else if( nk==4 && sqlite3_strnicmp(a, "path", 4)==0 ){ sqlite3_free(vt->zPath); vt->zPath = v; }
      else if( nk==4 && sqlite3_strnicmp(a, "keys", 4)==0 ){ sqlite3_free(zKeys); zKeys = v; }
      else if( nk==6 && sqlite3_strnicmp(a, "strict", 6)==0 ){
        if( strcmp(v, "1")==0 || sqlite3_stricmp(v, "true")==0 ) vt->strict = 1;
        else if( strcmp(v, "0")==0 || sqlite3_stricmp(v, "false")==0 ) vt->strict = 0;
        else err = js_msg("strict: expected 1 or 0, got ", v, -1, "");
        sqlite3_free(v);
      }
      else{
        err = js_msg("unknown option ", a, nk, " (expected filename, columns, path, keys, strict)");
        sqlite3_free(v);
      }
    }
    if( !err && !vt->zFile ) err = sqlite3_mprintf("json_stream: missing filename= option");
    if( !err && !zColumns ) err = sqlite3_mprintf("json_stream: missing columns= option");
    if( !err ) err = sq_arg_split(zColumns, "json_stream: columns", js_add_column, vt);
    if( !err && vt->nCol==0 ) err = sqlite3_mprintf("json_stream: columns= declares no column");
    if( !err && zKeys ) err = sq_arg_split(zKeys, "json_stream: keys", js_add_rename, vt);
    if( !err ){
      /* the core checks the path and the columns now, not at the first scan */
      sq_ingest *g = js_make_core(vt, 0, vt->zPath, &err);
      sq_ingest_free(g);
    }
    if( !err ){
      sqlite3_str *s = sqlite3_str_new(db);
      for(i=0; i<vt->nCol; i++){
        /* the type as written goes to the core; the table declares its kind */
        const char *t = sq_ingest_declared_type(vt->aCol[i].type, -1);
        sqlite3_str_appendf(s, "%s\"%w\" %s", i ? ", " : "CREATE TABLE x(", vt->aCol[i].name, t);
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
  return sq_file_vtab_best_index(info, ((JsVtab*)tab)->typed, JS_COL_FILENAME, JS_COL_PATH);
}

static int js_open(sqlite3_vtab *tab, sqlite3_vtab_cursor **ppCur){
  JsCursor *c = sqlite3_malloc(sizeof(*c));
  if( !c ) return SQLITE_NOMEM;
  memset(c, 0, sizeof(*c));
  c->vt = (JsVtab*)tab;
  c->file.fd = -1;
  c->eof = 1;
  *ppCur = &c->base;
  return SQLITE_OK;
}

static void js_reset(JsCursor *c){
  sq_file_close(&c->file);
  sqlite3_free(c->zFile); c->zFile = 0;
  sqlite3_free(c->zPathArg); c->zPathArg = 0;
  sq_ingest_free(c->g); c->g = 0;
  c->vals = 0;
  c->nval = 0;
  c->eof = 1;
}

static int js_close(sqlite3_vtab_cursor *cur){
  JsCursor *c = (JsCursor*)cur;
  js_reset(c);
  sqlite3_free(c->chunk);
  sqlite3_free(c->zOnce);
  sqlite3_free(c);
  return SQLITE_OK;
}

/* The core hands over a row: it is the cursor's current row until the
** next feed; the core pauses so that xNext returns. */
static int js_on_row(void *user, const sq_ingest_row *row){
  JsCursor *c = (JsCursor*)user;
  c->idx = row->index;
  c->line = (sqlite3_int64)row->line;
  c->offset = (sqlite3_int64)row->offset;
  c->vals = row->values;
  c->nval = row->ncol;
  c->row_ready = 1;
  return SQ_INGEST_PAUSE;
}

/* ---- errors */

/* "json_stream: FILE: [line L, byte B[, element N[, key 'K']]: ]MSG"; the
** file name and the key as sq_str_value() writes them (cut, escaped). */
static int js_error(JsCursor *c, const char *msg, sqlite3_int64 line, sqlite3_int64 off,
                    sqlite3_int64 elem, const char *key, size_t nkey){
  sqlite3_vtab *tab = &c->vt->base;
  sqlite3_str *m = sqlite3_str_new(0);
  sqlite3_str_appendall(m, "json_stream: ");
  sq_str_value(m, c->zFile, (sqlite3_int64)strlen(c->zFile), 0);
  if( line>0 ){
    sqlite3_str_appendf(m, ": line %lld, byte %lld", line, off);
    if( elem>=0 ) sqlite3_str_appendf(m, ", element %lld", elem);
    if( key ){
      sqlite3_str_appendall(m, ", key ");
      sq_str_value(m, key, (sqlite3_int64)nkey, 1);
    }
  }
  sqlite3_str_appendf(m, ": %s", msg);
  sqlite3_free(tab->zErrMsg);
  tab->zErrMsg = sqlite3_str_finish(m);
  c->eof = 1;
  return SQLITE_ERROR;
}

/* The core's error as the statement's. */
static int js_core_error(JsCursor *c){
  const sq_ingest_error *e = sq_ingest_error_info(c->g);
  int named = e->code==SQ_INGEST_E_STRICT;    /* other messages name their keys */
  if( e->code==SQ_INGEST_E_NOMEM ){ c->eof = 1; return SQLITE_NOMEM; }
  return js_error(c, e->message, (sqlite3_int64)e->line, (sqlite3_int64)e->offset, e->record,
                  named ? e->key : 0, e->nkey);
}

/* Reads the next chunk into c->chunk through sq_file_read (sq_file.c): a
** pipe or FIFO with nothing to read is waited on in slices, and between
** them the connection is asked whether sqlite3_interrupt() was called: then
** the statement ends with SQLITE_INTERRUPT ("interrupted"). */
static int js_read(JsCursor *c){
  int rc;
  char *err = 0;
  sqlite3_int64 n = sq_file_read(&c->file, c->chunk, JS_CHUNK, &rc, &err);
  if( n<0 ){
    if( rc==SQLITE_INTERRUPT ){ c->eof = 1; return SQLITE_INTERRUPT; }
    rc = js_error(c, err ? err : "read error", 0, 0, -1, 0, 0);
    sqlite3_free(err);
    return rc;
  }
  if( n==0 ) c->input_eof = 1;
  c->clen = (size_t)n;
  c->cpos = 0;
  return SQLITE_OK;
}

/* Advances to the next row (or EOF). */
static int js_advance(JsCursor *c){
  c->row_ready = 0;
  if( c->finished ){ c->eof = 1; return SQLITE_OK; }
  for(;;){
    if( c->cpos<c->clen ){
      int rc = sq_ingest_json_feed(c->g, c->chunk+c->cpos, c->clen-c->cpos);
      if( rc==SQ_INGEST_ERROR ) return js_core_error(c);
      c->cpos = rc==SQ_INGEST_PAUSED ? c->cpos + sq_ingest_json_consumed(c->g) : c->clen;
      if( c->row_ready ) return SQLITE_OK;
      continue;
    }
    if( c->input_eof ){
      if( sq_ingest_json_finish(c->g)!=SQ_INGEST_OK ) return js_core_error(c);
      c->finished = 1;
      if( c->row_ready ) return SQLITE_OK;
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
  char *err = 0;
  int n = 0;
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
  c->g = js_make_core(vt, c, zPath, &err);
  if( !c->g ){
    sqlite3_free(vt->base.zErrMsg);
    vt->base.zErrMsg = err;
    return SQLITE_ERROR;
  }
  if( !c->chunk ){
    c->chunk = sqlite3_malloc(JS_CHUNK);
    if( !c->chunk ) return SQLITE_NOMEM;
  }
  c->row_ready = 0;
  c->idx = 0;
  c->clen = c->cpos = 0;
  c->input_eof = 0;
  c->finished = 0;
  c->eof = 0;
  if( (vt->typed && vt->read_once) || (c->zOnce && strcmp(c->zOnce, zFile)==0) ){
    return js_error(c, SQ_FILE_READ_ONCE, 0, 0, -1, 0, 0);
  }
  {
    char *zOpenErr = 0;
    if( sq_file_open(&c->file, vt->db, zFile, &zOpenErr)!=SQLITE_OK ){
      int rc = js_error(c, zOpenErr ? zOpenErr : "cannot open", 0, 0, -1, 0, 0);
      sqlite3_free(zOpenErr);
      return rc;
    }
  }
  if( !c->file.regular ){
    if( vt->typed ) vt->read_once = 1;
    sqlite3_free(c->zOnce);
    c->zOnce = sqlite3_mprintf("%s", zFile);
  }
  return js_advance(c);
}

static int js_next(sqlite3_vtab_cursor *cur){
  return js_advance((JsCursor*)cur);
}

static int js_eof(sqlite3_vtab_cursor *cur){
  return ((JsCursor*)cur)->eof;
}

/* A TEXT result (the core's text is never NULL, so '' stays '', not NULL). */
static void js_result_text(sqlite3_context *ctx, const char *z, size_t n){
  sqlite3_result_text64(ctx, z ? z : "", (sqlite3_uint64)n, SQLITE_TRANSIENT, SQLITE_UTF8);
}

static int js_column(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int i){
  JsCursor *c = (JsCursor*)cur;
  if( c->vt->typed ){
    const sq_ingest_value *v;
    if( i<0 || i>=c->nval ) return SQLITE_OK;
    v = &c->vals[i];
    switch( v->type ){
      case SQ_INGEST_V_INTEGER: sqlite3_result_int64(ctx, v->i); break;
      case SQ_INGEST_V_REAL:    sqlite3_result_double(ctx, v->r); break;
      case SQ_INGEST_V_TEXT:    js_result_text(ctx, v->text, v->len); break;
      case SQ_INGEST_V_JSON:
        js_result_text(ctx, v->text, v->len);
        sqlite3_result_subtype(ctx, JS_SUBTYPE);
        break;
      default: break;   /* NULL */
    }
    return SQLITE_OK;
  }
  switch( i ){
    case JS_COL_VALUE:
      if( c->nval>0 ){
        js_result_text(ctx, c->vals[0].text, c->vals[0].len);
        sqlite3_result_subtype(ctx, JS_SUBTYPE);
      }
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
