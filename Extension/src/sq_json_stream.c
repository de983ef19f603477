/*
** sq_json_stream.c — json_stream: JSON files of any size into rows, in
** constant memory: the SQL table of the ingest core's JSON driver
** (sq_json_ingest.h, on StreamQLite's incremental parser of sq_json.h).  The
** file-table driver (sq_file_table.h) reads the file and answers SQLite for
** json_stream and csv_stream alike; this file gives the JSON parts (options,
** the core for a scan, the value column); the JSON driver selects the
** elements and writes nested values, the core matches keys and coerces
** values.
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
**   FILENAME may name several files (sq_files.h): a glob
**   ('logs/2026-*.ndjson', the matches sorted by name; matching nothing is
**   an error) or a JSON array of names, read one after the other as if
**   each were alone (idx/line/offset within it); the hidden column
**   filename names each row's file (typed tables too, unless a column has
**   that name), and errors name the file.
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
**   on_error='skip', reject_table='[schema.]name', max_errors=N or 0.F:
**   bad elements go to the reject table instead of stopping the statement
**   (sq_reject.h, sq_ingest.h REJECTING RECORDS; docs/sql/rejects.md).
**   Only the typed table takes them: json_stream('f', 'on_error=skip') is
**   an error saying why (sq_file_table.c, sq_ft_reject_function_option).
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
#include "sq_file_table.h"
#include "sq_json_ingest.h"

#include <string.h>

/* The driver (sq_file_table.c) runs the table; this file gives the JSON
** parts: the CREATE options, the core for a scan, the value column. */

typedef struct JsVtab {
  sq_ft_vtab ft;      /* zFile, aCol (key: keys= gave it this key) */
  int strict;         /* typed: strict=1 */
  char *zPath;        /* typed: the path= option */
} JsVtab;

typedef struct JsCursor {
  sq_ft_cursor ft;    /* g: the core, for this scan */
} JsCursor;

/* "json_stream: BEFORE'VALUE'AFTER" with the value as sq_str_value()
** writes it (cut, escaped); n < 0: strlen. */
static char *js_msg(const char *before, const char *v, sqlite3_int64 n, const char *after){
  sqlite3_str *m = sqlite3_str_new(0);
  sqlite3_str_appendf(m, "json_stream: %s", before);
  sq_str_value(m, v, n<0 ? (sqlite3_int64)strlen(v) : n, 1);
  sqlite3_str_appendall(m, after);
  return sq_err_msg(sqlite3_str_finish(m));
}

static char *js_add_column(void *ctx, const char *z, int n){
  sq_ft_vtab *vt = ctx;
  char *name, *type;
  int rc = sq_arg_column(z, n, &name, &type);
  if( rc==1 || rc==5 ){
    char *m = js_msg("bad column definition ", z, n, ": ");
    char *err = m==SQ_ERR_NOMEM ? m : sq_err_msg(sqlite3_mprintf("%s%s", m, sq_arg_column_error(rc)));
    sq_err_free(m);
    return err;
  }
  if( rc || !sq_ft_add_column(vt, name, type) ) return SQ_ERR_NOMEM;
  return 0;
}

/* One "column=key" of keys=. */
static char *js_add_rename(void *ctx, const char *z, int n){
  sq_ft_vtab *vt = ctx;
  const char *eq = memchr(z, '=', (size_t)n);
  char *col, *key;
  int i;
  if( !eq ) return js_msg("keys: expected column=key, got ", z, n, "");
  col = sq_arg_unquote(z, (int)(eq-z));
  key = sq_arg_unquote(eq+1, (int)(z+n-eq-1));
  if( !col || !key ){ sqlite3_free(col); sqlite3_free(key); return SQ_ERR_NOMEM; }
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

static void js_free_vtab(sq_ft_vtab *p){
  sqlite3_free(((JsVtab*)p)->zPath);
}

/* A core configured for this table and path: columns= and keys= (typed),
** whole values (the table-valued function), the path, strict=, the
** element limit.  c: the scan's cursor (NULL: only checked, when the table
** is made).  NULL and *pzErr ("json_stream: …") on error. */
static sq_ingest *js_make_core(JsVtab *vt, sq_ft_cursor *c, const char *zPath, char **pzErr){
  sq_ingest *g = c ? sq_ft_core_new(c) : sq_ingest_new(0, 0);
  int i;
  if( !g ){ *pzErr = SQ_ERR_NOMEM; return 0; }
  if( vt->ft.typed ){
    for(i=0; i<vt->ft.nCol; i++) sq_ingest_add_column(g, vt->ft.aCol[i].name, -1, vt->ft.aCol[i].type, -1, 0);
    for(i=0; i<vt->ft.nCol; i++){
      if( vt->ft.aCol[i].key ) sq_ingest_map_key(g, vt->ft.aCol[i].key, -1, vt->ft.aCol[i].name, -1);
    }
    sq_ingest_set_strict(g, vt->strict);
  }else{
    sq_ingest_set_whole_values(g, 1);
  }
  sq_ingest_json_path(g, zPath, -1);
  /* (a scan may run on a worker: the limit its cursor read) */
  sq_ingest_set_max_record(g, c ? c->max_record : sq_ft_max_record(vt->ft.db));
  if( sq_ingest_error_info(g)->code ){
    *pzErr = sq_ingest_error_info(g)->code==SQ_INGEST_E_NOMEM ? SQ_ERR_NOMEM
           : sq_err_msg(sqlite3_mprintf("json_stream: %s", sq_ingest_error_info(g)->message));
    sq_ingest_free(g);
    return 0;
  }
  return g;
}

/* The CREATE arguments: filename, columns, path, keys, strict. */
static char *js_configure(sq_ft_vtab *p, int argc, const char *const *argv){
  JsVtab *vt = (JsVtab*)p;
  char *zColumns = 0, *zKeys = 0, *err = 0;
  int i, rc;
  vt->strict = -1;           /* not said: lenient, or the values' strictness with on_error='skip' */
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
      err = m==SQ_ERR_NOMEM ? m : sq_err_msg(sqlite3_mprintf("%s%s", m, sq_arg_value_error(rc)));
      sq_err_free(m);
      break;
    }
    if( rc ){ err = SQ_ERR_NOMEM; break; }
    if( nk==8 && sqlite3_strnicmp(a, "filename", 8)==0 ){ sqlite3_free(p->zFile); p->zFile = v; }
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
      char *key = sqlite3_mprintf("%.*s", nk, a);
      if( !key ) err = SQ_ERR_NOMEM;
      else if( !sq_ft_reject_option(p, key, v, &err) ){
        err = js_msg("unknown option ", a, nk, " (expected filename, columns, path, keys, strict, "
                     SQ_FT_REJECT_OPTIONS ")");
      }
      sqlite3_free(key);
      sqlite3_free(v);
    }
  }
  if( !err && !p->zFile ) err = sq_err_msg(sqlite3_mprintf("json_stream: missing filename= option"));
  if( !err && !zColumns ) err = sq_err_msg(sqlite3_mprintf("json_stream: missing columns= option"));
  if( !err ) err = sq_arg_split(zColumns, "json_stream: columns", js_add_column, p);
  if( !err && p->nCol==0 ) err = sq_err_msg(sqlite3_mprintf("json_stream: columns= declares no column"));
  /* asking for rejects: a value that does not fit its column is one (unless strict=0) */
  if( vt->strict<0 ) vt->strict = p->skip ? SQ_INGEST_STRICT_VALUES : 0;
  if( !err && zKeys ) err = sq_arg_split(zKeys, "json_stream: keys", js_add_rename, p);
  if( !err ){
    /* the core checks the path and the columns now, not at the first scan */
    sq_ingest *g = js_make_core(vt, 0, vt->zPath, &err);
    sq_ingest_free(g);
  }
  sqlite3_free(zColumns);
  sqlite3_free(zKeys);
  return err;
}

/* A scan: the core for the table's path (typed) or the path argument. */
static int js_start(sq_ft_cursor *c, char **pzErr){
  JsVtab *vt = (JsVtab*)c->vt;
  if( !vt->ft.typed && c->zArg ){
    /* json_stream('f', 'on_error=skip'): a reject option for the path */
    const char *eq = strchr(c->zArg, '=');
    if( eq && (*pzErr = sq_ft_reject_function_option("json_stream", c->zArg, (int)(eq-c->zArg)))!=0 ){
      return SQLITE_ERROR;
    }
  }
  c->g = js_make_core(vt, c, vt->ft.typed ? vt->zPath : c->zArg, pzErr);
  if( c->g && vt->ft.skip ) sq_ingest_set_reject_callback(c->g, sq_ft_on_reject, c);
  return c->g ? SQLITE_OK : SQLITE_ERROR;
}

static int js_feed(sq_ft_cursor *c, const unsigned char *b, size_t n, size_t *used){
  int rc = sq_ingest_json_feed(c->g, b, n);
  if( rc==SQ_INGEST_ERROR ) return SQ_FT_ERROR;
  if( rc==SQ_INGEST_PAUSED ){ *used = sq_ingest_json_consumed(c->g); return SQ_FT_PAUSED; }
  return SQ_FT_DONE;
}

static int js_finish(sq_ft_cursor *c){
  return sq_ingest_json_finish(c->g)!=SQ_INGEST_OK ? SQ_FT_ERROR : SQ_FT_DONE;
}

/* The core's error: "json_stream: FILE: [line L, byte B[, element N[, key
** 'K']]: ]MSG"; the file name and the key as sq_str_value() writes them
** (cut, escaped). */
static char *js_error_text(sq_ft_cursor *c, const sq_ingest_error *e){
  int named = e->code==SQ_INGEST_E_STRICT;    /* other messages name their keys */
  sqlite3_int64 line = (sqlite3_int64)e->line;
  sqlite3_str *m = sqlite3_str_new(0);
  sqlite3_str_appendall(m, "json_stream: ");
  sq_str_value(m, c->zFile, (sqlite3_int64)strlen(c->zFile), 0);
  if( line>0 ){
    sqlite3_str_appendf(m, ": line %lld, byte %lld", line, (sqlite3_int64)e->offset);
    if( e->record>=0 ) sqlite3_str_appendf(m, ", element %lld", (sqlite3_int64)e->record);
    if( named && e->key ){
      sqlite3_str_appendall(m, ", key ");
      sq_str_value(m, e->key, (sqlite3_int64)e->nkey, 1);
    }
  }
  sqlite3_str_appendf(m, ": %s", e->message);
  return sqlite3_str_finish(m);
}

static char *js_error(sq_ft_cursor *c, int *rc){
  const sq_ingest_error *e = sq_ingest_error_info(c->g);
  if( e->code==SQ_INGEST_E_NOMEM ){ *rc = SQLITE_NOMEM; return 0; }
  return js_error_text(c, e);
}

/* A reject's reason: the message the same error stops the scan with. */
static char *js_reason(sq_ft_cursor *c, const sq_ingest_reject *r){
  return js_error_text(c, r->error);
}

/* The function's value: the element as JSON text. */
static void js_value(sq_ft_cursor *c, sqlite3_context *ctx){
  if( c->nval>0 ){
    sqlite3_result_text64(ctx, c->vals[0].text ? c->vals[0].text : "", (sqlite3_uint64)c->vals[0].len,
                          SQLITE_TRANSIENT, SQLITE_UTF8);
    sqlite3_result_subtype(ctx, SQ_FT_SUBTYPE);
  }
}

/* (no xReset: the scan's core is the driver's c->g) */
static const sq_ft_format js_format = {
  .zName = "json_stream",
  .zArg = "path",
  .zBadColumns = "bad columns=",
  .szVtab = sizeof(JsVtab),
  .szCursor = sizeof(JsCursor),
  .xConfigure = js_configure,
  .xFreeVtab = js_free_vtab,
  .xStart = js_start,
  .xFeed = js_feed,
  .xFinish = js_finish,
  .xError = js_error,
  .xReason = js_reason,
  .xValue = js_value,
};

int sq_json_register(sqlite3 *db){
  return sq_ft_register(db, &js_format);
}
