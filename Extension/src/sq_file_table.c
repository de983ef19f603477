/*
** sq_file_table.c — the file-table driver (sq_file_table.h, the manual):
** the one sqlite3_module of json_stream and csv_stream.  The formats
** (sq_json_stream.c, sq_csv_stream.c) give their names, options and a
** reader; everything else a table that reads a file does is here.
*/
#include "sq_file_table.h"
#include "sq_pipe.h"
#include "sq_threads.h"

#include <string.h>
#include <stdlib.h>

/* ------------------------------------------------------------ helpers */

sqlite3_int64 sq_ft_max_record(sqlite3 *db){
  int lim = sqlite3_limit(db, SQLITE_LIMIT_LENGTH, -1);
  sqlite3_int64 m = SQ_INGEST_DEFAULT_MAX_RECORD;
  if( lim>0 && lim<m ) m = lim;
  return m;
}

sq_ft_col *sq_ft_add_column(sq_ft_vtab *vt, char *name, char *type){
  sq_ft_col *a = sqlite3_realloc64(vt->aCol, sizeof(sq_ft_col)*(sqlite3_uint64)(vt->nCol+1));
  if( !a || !name || !type ){
    sqlite3_free(name); sqlite3_free(type);
    if( a ) vt->aCol = a;
    return 0;
  }
  vt->aCol = a;
  memset(&a[vt->nCol], 0, sizeof(sq_ft_col));
  a[vt->nCol].name = name;
  a[vt->nCol].type = type;
  return &a[vt->nCol++];
}

char *sq_ft_file_msg(const sq_ft_format *fmt, const char *file, const char *msg){
  sqlite3_str *m = sqlite3_str_new(0);
  sqlite3_str_appendf(m, "%s: ", fmt->zName);
  sq_str_value(m, file, (sqlite3_int64)strlen(file), 0);
  sqlite3_str_appendf(m, ": %s", msg);
  return sqlite3_str_finish(m);
}

/* The core hands over a row: it is the cursor's current row until the
** next feed; the core pauses so that xNext returns.  On the pipe's worker
** the row goes into the pipe (copied: sq_pipe_put_row) and the core goes
** on with the rest of the chunk. */
static int ft_on_row(void *user, const sq_ingest_row *row){
  sq_ft_cursor *c = (sq_ft_cursor*)user;
  if( c->pipe ){
    if( !sq_pipe_put_row(c->pipe, row) ) return SQ_INGEST_CONTINUE;
    return sq_pipe_stopped(c->pipe) ? 1 : SQ_INGEST_NOMEM;
  }
  c->idx = row->index;
  c->line = (sqlite3_int64)row->line;
  c->offset = (sqlite3_int64)row->offset;
  c->vals = row->values;
  c->nval = row->ncol;
  c->row_ready = 1;
  return SQ_INGEST_PAUSE;
}

sq_ingest *sq_ft_core_new(sq_ft_cursor *c){
  return sq_ingest_new(ft_on_row, c);
}

/* ---- reading the file when the table is made */

/* The first file the filename names (vt->zPeek): inference reads it alone. */
int sq_ft_peek_open(sq_ft_vtab *vt, char **pzErr){
  char *why = 0;
  sq_files f;
  int rc;
  memset(&f, 0, sizeof f);
  rc = sq_files_expand(&f, vt->zFile, &why);
  if( rc==SQ_FILES_OK ){
    sqlite3_free(vt->zPeek);
    vt->zPeek = sqlite3_mprintf("%s", f.a[0]);
    if( !vt->zPeek ) rc = SQ_FILES_NOMEM;
  }
  sq_files_clear(&f);
  if( rc!=SQ_FILES_OK ){
    *pzErr = rc==SQ_FILES_NOMEM ? SQ_ERR_NOMEM : sq_err_msg(sqlite3_mprintf("%s: %s", vt->fmt->zName, why));
    sqlite3_free(why);
    return SQLITE_ERROR;
  }
  if( sq_file_open(&vt->pending.file, vt->db, vt->zPeek, &why)!=SQLITE_OK ){
    *pzErr = sq_err_msg(sq_ft_file_msg(vt->fmt, vt->zPeek, why ? why : "cannot open"));
    sqlite3_free(why);
    return SQLITE_ERROR;
  }
  return SQLITE_OK;
}

sqlite3_int64 sq_ft_peek_read(sq_ft_vtab *vt, unsigned char *buf, size_t n, int *rc, char **pzErr){
  sq_ft_pending *p = &vt->pending;
  sqlite3_int64 k = sq_file_read(&p->file, buf, n, rc, pzErr);
  if( k>0 && !p->file.regular ){
    unsigned char *s = sqlite3_realloc64(p->sample, p->nsample+(size_t)k);
    if( !s ){ *rc = SQLITE_NOMEM; return -1; }
    p->sample = s;
    memcpy(s+p->nsample, buf, (size_t)k);
    p->nsample += (size_t)k;
  }
  return k;
}

void sq_ft_peek_done(sq_ft_vtab *vt, int ok){
  if( ok && !vt->pending.file.regular ){
    vt->pending.has = 1;
    return;
  }
  sq_file_close(&vt->pending.file);
  sqlite3_free(vt->pending.sample);
  vt->pending.sample = 0;
  vt->pending.nsample = 0;
}

/* Moves a pending pipe from `from` (which no longer has one) to `to`. */
static void ft_pending_move(sq_ft_pending *to, sq_ft_pending *from){
  *to = *from;
  memset(from, 0, sizeof(*from));
  from->file.fd = -1;
}

/* ------------------------------------------------------------ rejecting records
** The options on_error, max_errors, reject_table and a scan's rejects:
** sq_reject.h's table and budget, for the typed tables. */

int sq_ft_reject_option(sq_ft_vtab *vt, const char *key, const char *value, char **pzErr){
  const char *zName = vt->fmt->zName;
  *pzErr = 0;
  if( sqlite3_stricmp(key, "on_error")==0 ){
    if( sqlite3_stricmp(value, "skip")==0 ) vt->skip = 1;
    else if( sqlite3_stricmp(value, "abort")==0 ) vt->skip = 0;
    else *pzErr = sq_err_msg(sqlite3_mprintf("%s: on_error: expected abort or skip, got '%q'", zName, value));
    return 1;
  }
  if( sqlite3_stricmp(key, "max_errors")==0 ){
    int64_t n = -1;
    double f = 0;
    if( sq_reject_parse_max(value, &n, &f) ){
      *pzErr = sq_err_msg(sqlite3_mprintf("%s: max_errors: expected a count of records (0, 1, 2…) or a "
                                      "fraction of the records read (0 < F < 1), got '%q'", zName, value));
    }
    vt->max_errors = n;
    vt->max_frac = f;
    vt->max_errors_set = 1;
    return 1;
  }
  if( sqlite3_stricmp(key, "reject_table")==0 ){
    const char *dot = strchr(value, '.');
    sqlite3_free(vt->zRejSchema);
    sqlite3_free(vt->zRejTable);
    if( dot ){
      vt->zRejSchema = sqlite3_mprintf("%.*s", (int)(dot-value), value);
      vt->zRejTable = sqlite3_mprintf("%s", dot+1);
    }else{
      vt->zRejSchema = sqlite3_mprintf("main");
      vt->zRejTable = sqlite3_mprintf("%s", value);
    }
    if( !vt->zRejSchema || !vt->zRejTable ){
      *pzErr = SQ_ERR_NOMEM;
    }else if( !vt->zRejSchema[0] || !vt->zRejTable[0] ){
      *pzErr = sq_err_msg(sqlite3_mprintf("%s: reject_table: expected name or schema.name, got '%q'", zName, value));
    }
    return 1;
  }
  return 0;
}

char *sq_ft_reject_check(sq_ft_vtab *vt){
  const char *zName = vt->fmt->zName;
  char *m, *err;
  if( !vt->skip ){
    if( vt->zRejTable ) return sq_err_msg(sqlite3_mprintf("%s: reject_table needs on_error='skip'", zName));
    if( vt->max_errors_set ) return sq_err_msg(sqlite3_mprintf("%s: max_errors needs on_error='skip'", zName));
    return 0;
  }
  if( !vt->zRejTable ){
    return sq_err_msg(sqlite3_mprintf("%s: on_error='skip' needs reject_table='name': every skipped "
                                  "record gets a row there", zName));
  }
  if( !vt->max_errors_set ) vt->max_errors = -1;
  m = sq_reject_table_check(vt->db, vt->zRejSchema, vt->zRejTable);
  if( !m ){
    /* a missing one is made now, with the virtual table: made while a scan
    ** runs, it would change a schema under the statement that scans (a
    ** CREATE TABLE … AS SELECT would fail, or make a second table of the
    ** same name when it names the reject table) */
    int rc = sq_reject_table_make(vt->db, vt->zRejSchema, vt->zRejTable);
    if( rc==SQLITE_OK ) return 0;
    if( rc==SQLITE_NOMEM ) return SQ_ERR_NOMEM;
    return sq_err_msg(sqlite3_mprintf("%s: reject_table %s.%s: %s", zName, vt->zRejSchema, vt->zRejTable,
                                      sqlite3_errmsg(vt->db)));
  }
  err = m==SQ_ERR_NOMEM ? m : sq_err_msg(sqlite3_mprintf("%s: %s", zName, m));
  sq_err_free(m);
  return err;
}

/* A statement that writes is running on db. */
static int rej_writer_busy(sqlite3 *db){
  sqlite3_stmt *st = 0;
  while( (st = sqlite3_next_stmt(db, st))!=0 ){
    if( sqlite3_stmt_busy(st) && !sqlite3_stmt_readonly(st) ) return 1;
  }
  return 0;
}

int sq_ft_reject_begin(sq_ft_cursor *c, char **pzErr){
  sq_ft_vtab *vt = c->vt;
  char *m = 0;
  if( !vt->skip ) return SQLITE_OK;
  sq_reject_budget_init(&c->rejBudget, vt->max_errors, vt->max_frac, "max_errors");
  if( sqlite3_table_column_metadata(vt->db, vt->zRejSchema, vt->zRejTable, 0, 0, 0, 0, 0, 0)!=SQLITE_OK
      && rej_writer_busy(vt->db) ){
    /* dropped since the CREATE: making it now would change a schema under
    ** the statement that writes (SQLite aborts a CREATE TABLE … AS SELECT) */
    *pzErr = sqlite3_mprintf("%s: reject_table %s.%s was dropped after the virtual table was made: "
                             "make the virtual table again (it makes the reject table) or the reject "
                             "table itself before a statement that writes reads it", vt->fmt->zName,
                             vt->zRejSchema, vt->zRejTable);
    return *pzErr ? SQLITE_ERROR : SQLITE_NOMEM;
  }
  /* (checked again: the table may have been dropped or made since the CREATE) */
  c->rejSink = sq_reject_sink_open(vt->db, vt->zRejSchema, vt->zRejTable, &m);
  if( !c->rejSink ){
    *pzErr = sqlite3_mprintf("%s: %s", vt->fmt->zName, m ? m : "out of memory");
    sqlite3_free(m);
    return SQLITE_ERROR;
  }
  return SQLITE_OK;
}

int sq_ft_on_reject(void *cursor, const sq_ingest_reject *r){
  sq_ft_cursor *c = (sq_ft_cursor*)cursor;
  char *reason = c->vt->fmt->xReason(c, r);
  int rc;
  if( !reason ) return SQ_INGEST_NOMEM;
  rc = c->pipe ? sq_ft_pipe_reject(c, r, reason) : sq_ft_reject_take(c, c->zFile, r, reason);
  sqlite3_free(reason);
  return rc;
}

int sq_ft_reject_take(sq_ft_cursor *c, const char *file, const sq_ingest_reject *r, const char *reason){
  char *m = 0;
  int stop = sq_reject_budget_add(&c->rejBudget, reason, &m);
  if( !stop ) stop = sq_reject_sink_write(c->rejSink, file, r, reason, &m)!=SQLITE_OK;
  if( !stop ) return SQ_INGEST_CONTINUE;
  sq_err_free(c->zRejErr);
  c->zRejErr = m ? sq_err_msg(sqlite3_mprintf("%s: %s", c->vt->fmt->zName, m)) : SQ_ERR_NOMEM;
  sqlite3_free(m);
  return 1;
}

int sq_ft_reject_end(sq_ft_cursor *c, sqlite3_int64 records){
  char *m = 0;
  if( !c->vt->skip || !sq_reject_budget_end(&c->rejBudget, records, &m) ) return SQLITE_OK;
  sq_err_free(c->zRejErr);
  c->zRejErr = m ? sq_err_msg(sqlite3_mprintf("%s: %s", c->vt->fmt->zName, m)) : SQ_ERR_NOMEM;
  sqlite3_free(m);
  return SQLITE_ERROR;
}

void sq_ft_reject_reset(sq_ft_cursor *c){
  sq_reject_sink_close(c->rejSink);
  c->rejSink = 0;
  sq_reject_budget_clear(&c->rejBudget);
  sq_err_free(c->zRejErr);
  c->zRejErr = 0;
}

/* The table-valued functions (csv_stream('f', 'on_error=skip'),
** json_stream('f', 'on_error=skip')) refuse the reject options: a
** function's arguments are values of the statement, which may come from
** the rows of a table (FROM jobs, csv_stream(jobs.file, jobs.options)), so
** a database file someone else made could name the table to write; and a
** SELECT says it writes nothing (sqlite3_stmt_readonly), which hosts rely
** on.  A typed table's reject table is named in the user's own CREATE
** statement, in the temp schema. */
char *sq_ft_reject_function_option(const char *zName, const char *key, int nkey){
  static const char *const opts[] = { "on_error", "max_errors", "reject_table" };
  int i;
  while( nkey>0 && (key[0]==' ' || key[0]=='\t') ){ key++; nkey--; }
  while( nkey>0 && (key[nkey-1]==' ' || key[nkey-1]=='\t') ) nkey--;
  for(i=0; i<3; i++){
    if( nkey==(int)strlen(opts[i]) && sqlite3_strnicmp(key, opts[i], nkey)==0 ){
      return sq_err_msg(sqlite3_mprintf("%s: %s is an option of the typed table (CREATE VIRTUAL TABLE "
                             "temp.name USING %s(filename=…, on_error=skip, reject_table=…)), "
                             "not of the function: a SELECT writes no table, and a function's "
                             "arguments may come from the rows of a table", zName, opts[i], zName));
    }
  }
  return 0;
}

void sq_ft_reject_free(sq_ft_vtab *vt){
  sqlite3_free(vt->zRejSchema);
  sqlite3_free(vt->zRejTable);
}

/* ------------------------------------------------------------ vtab */

static void ft_vtab_free(sq_ft_vtab *vt){
  int i;
  if( !vt ) return;
  if( vt->fmt->xFreeVtab ) vt->fmt->xFreeVtab(vt);
  for(i=0; i<vt->nCol; i++){
    sqlite3_free(vt->aCol[i].name);
    sqlite3_free(vt->aCol[i].type);
    sqlite3_free(vt->aCol[i].key);
  }
  sqlite3_free(vt->aCol);
  sqlite3_free(vt->zFile);
  sqlite3_free(vt->zPeek);
  if( vt->pending.has ) sq_file_close(&vt->pending.file);
  sqlite3_free(vt->pending.sample);
  sq_ft_reject_free(vt);
  sqlite3_free(vt);
}

/* Only the eponymous table-valued function (argv[1] is "main", no
** arguments) exists outside temp.  A named table in main or an attached
** database would live in a database file, and whoever opens that file
** would read the file it names.  xCreate and xConnect are this one
** function (SQLite makes a module eponymous only then), so both CREATE and
** opening a table already in a file (one planted through PRAGMA
** writable_schema) end here. */
static char *ft_schema_error(const sq_ft_format *fmt, const char *const *argv){
  const char *zName = fmt->zName;
  sqlite3_str *m;
  if( fmt->plainTableNames ){
    return sq_err_msg(sqlite3_mprintf("%s: table %s.%s: %s tables read "
        "files, so they can only live in the temp schema, never in a database "
        "file: CREATE VIRTUAL TABLE temp.%s USING %s(...)",
        zName, argv[1], argv[2], zName, argv[2], zName));
  }
  /* (the names come from the database file: written through sq_str_value) */
  m = sqlite3_str_new(0);
  sqlite3_str_appendf(m, "%s: table ", zName);
  sq_str_value(m, argv[1], (sqlite3_int64)strlen(argv[1]), 0);
  sqlite3_str_appendall(m, ".");
  sq_str_value(m, argv[2], (sqlite3_int64)strlen(argv[2]), 0);
  sqlite3_str_appendf(m, ": %s tables read files, so they can only live in "
                         "the temp schema, never in a database file: CREATE VIRTUAL TABLE temp.", zName);
  sq_str_value(m, argv[2], (sqlite3_int64)strlen(argv[2]), 0);
  sqlite3_str_appendf(m, " USING %s(...)", zName);
  return sq_err_msg(sqlite3_str_finish(m));
}

/* CREATE TABLE x("name" KIND, …, filename HIDDEN): the type as written
** goes to the core; the table declares its kind. */
static char *ft_declare(sq_ft_vtab *vt){
  sqlite3_str *s = sqlite3_str_new(vt->db);
  char *zSql, *err = 0;
  int i;
  vt->iFileCol = vt->nCol;
  for(i=0; i<vt->nCol; i++){
    const char *t = sq_ingest_declared_type(vt->aCol[i].type, -1);
    sqlite3_str_appendf(s, "%s\"%w\" %s", i ? ", " : "CREATE TABLE x(", vt->aCol[i].name, t);
    if( sqlite3_stricmp(vt->aCol[i].name, "filename")==0 ) vt->iFileCol = -1;
  }
  /* each row's file, unless a column has that name */
  if( vt->iFileCol>=0 ) sqlite3_str_appendall(s, ", filename HIDDEN");
  sqlite3_str_appendall(s, ")");
  zSql = sqlite3_str_finish(s);
  if( !zSql ) return SQ_ERR_NOMEM;
  if( sqlite3_declare_vtab(vt->db, zSql)!=SQLITE_OK ){
    err = sq_err_msg(sqlite3_mprintf("%s: %s (%s)", vt->fmt->zName, vt->fmt->zBadColumns, sqlite3_errmsg(vt->db)));
  }
  sqlite3_free(zSql);
  return err;
}

static int ft_connect(sqlite3 *db, void *pAux, int argc, const char *const *argv,
                      sqlite3_vtab **ppVtab, char **pzErr){
  const sq_ft_format *fmt = (const sq_ft_format*)pAux;
  sq_ft_vtab *vt;
  int rc;
  if( sqlite3_stricmp(argv[1], "temp")!=0
      && !(argc==3 && sqlite3_stricmp(argv[2], fmt->zName)==0) ){
    return sq_err_rc(ft_schema_error(fmt, argv), pzErr);
  }
  vt = sqlite3_malloc64(fmt->szVtab);
  if( !vt ) return SQLITE_NOMEM;
  memset(vt, 0, fmt->szVtab);
  vt->db = db;
  vt->fmt = fmt;
  vt->pending.file.fd = -1;
  vt->iFileCol = -1;
  if( argc>3 ){
    char *err;
    vt->typed = 1;
    err = fmt->xConfigure(vt, argc, argv);
    if( !err ) err = sq_ft_reject_check(vt);
    if( !err ) err = ft_declare(vt);
    if( err ){
      ft_vtab_free(vt);
      return sq_err_rc(err, pzErr);
    }
  }else{
    char *zSql = sqlite3_mprintf("CREATE TABLE x(value, idx INTEGER, line INTEGER, offset INTEGER,"
                                 " filename HIDDEN, %s HIDDEN)", fmt->zArg);
    rc = zSql ? sqlite3_declare_vtab(db, zSql) : SQLITE_NOMEM;
    sqlite3_free(zSql);
    if( rc!=SQLITE_OK ){ ft_vtab_free(vt); return rc; }
  }
#ifdef SQLITE_VTAB_DIRECTONLY
  sqlite3_vtab_config(db, SQLITE_VTAB_DIRECTONLY);
#endif
  *ppVtab = &vt->base;
  return SQLITE_OK;
}

static int ft_disconnect(sqlite3_vtab *p){
  ft_vtab_free((sq_ft_vtab*)p);
  return SQLITE_OK;
}

/* The function's columns: value, idx, line, offset, filename, <arg>. */
#define FT_COL_VALUE    0
#define FT_COL_IDX      1
#define FT_COL_LINE     2
#define FT_COL_OFFSET   3
#define FT_COL_FILENAME 4
#define FT_COL_ARG      5

/* idxNum bits: 1 filename given, 2 the second argument given. */
static int ft_best_index(sqlite3_vtab *tab, sqlite3_index_info *info){
  return sq_file_vtab_best_index(info, ((sq_ft_vtab*)tab)->typed, FT_COL_FILENAME, FT_COL_ARG);
}

/* ------------------------------------------------------------ cursor */

static int ft_open(sqlite3_vtab *tab, sqlite3_vtab_cursor **ppCur){
  const sq_ft_format *fmt = ((sq_ft_vtab*)tab)->fmt;
  sq_ft_cursor *c = sqlite3_malloc64(fmt->szCursor);
  if( !c ) return SQLITE_NOMEM;
  memset(c, 0, fmt->szCursor);
  c->vt = (sq_ft_vtab*)tab;
  c->file.fd = -1;
  c->eof = 1;
  *ppCur = &c->base;
  return SQLITE_OK;
}

/* Ends the reading of the current file: the file, the format's reader
** (not the current row: on the pipe's worker that is the query's). */
static void ft_end_file(sq_ft_cursor *c){
  if( c->fopen ){ sq_file_close(&c->file); c->fopen = 0; }
  sqlite3_free(c->replay); c->replay = 0;
  c->nreplay = 0;
  c->cbuf = 0;
  if( c->vt->fmt->xReset ) c->vt->fmt->xReset(c);
  sq_ingest_free(c->g); c->g = 0;
}

/* No current row. */
static void ft_no_row(sq_ft_cursor *c){
  c->vals = 0;
  c->nval = 0;
  c->row_ready = 0;
  c->idx = 0;
}

static void ft_pipe_end(sq_ft_cursor *c);

static void ft_reset(sq_ft_cursor *c){
  ft_pipe_end(c);
  ft_end_file(c);
  ft_no_row(c);
  sq_ft_reject_reset(c);
  sq_files_clear(&c->files);
  c->zFile = 0;
  sqlite3_free(c->zArg); c->zArg = 0;
  c->eof = 1;
}

static int ft_close(sqlite3_vtab_cursor *cur){
  sq_ft_cursor *c = (sq_ft_cursor*)cur;
  ft_reset(c);
  if( c->vt->fmt->xCloseCursor ) c->vt->fmt->xCloseCursor(c);
  sqlite3_free(c->chunk);
  sqlite3_free(c->zOnce);
  sqlite3_free(c);
  return SQLITE_OK;
}

/* msg as the statement's error (taken; NULL or SQ_ERR_NOMEM: out of memory). */
static int ft_set_error(sq_ft_cursor *c, char *msg){
  sqlite3_vtab *tab = &c->vt->base;
  c->eof = 1;
  if( !msg || msg==SQ_ERR_NOMEM ) return SQLITE_NOMEM;
  sqlite3_free(tab->zErrMsg);
  tab->zErrMsg = msg;
  return SQLITE_ERROR;
}

static int ft_file_error(sq_ft_cursor *c, const char *file, const char *msg){
  return ft_set_error(c, sq_ft_file_msg(c->vt->fmt, file, msg));
}

/* The reject path stopped the scan (the budget spent, the reject table
** failed): its message (NULL: no memory) as the statement's error. */
static int ft_reject_error(sq_ft_cursor *c){
  char *m = c->zRejErr;
  c->zRejErr = 0;
  return ft_set_error(c, m);
}

/* The reader's error as the statement's. */
static int ft_reader_error(sq_ft_cursor *c){
  int rc = SQLITE_NOMEM;
  char *m;
  if( c->zRejErr ) return ft_reject_error(c);
  m = c->vt->fmt->xError(c, &rc);
  if( !m ){ c->eof = 1; return rc; }
  return ft_set_error(c, m);
}

/* Reads the next chunk through sq_file_read (sq_file.c): a pipe or FIFO
** with nothing to read is waited on in slices, and between them the
** connection is asked whether sqlite3_interrupt() was called: then the
** statement ends with SQLITE_INTERRUPT ("interrupted"). */
static int ft_read(sq_ft_cursor *c){
  int rc = SQLITE_OK;
  char *why = 0;
  sqlite3_int64 n;
  if( c->replay ){
    sqlite3_free(c->replay);
    c->replay = 0;
    c->nreplay = 0;
  }
  if( !c->chunk ){
    c->chunk = sqlite3_malloc(SQ_FT_CHUNK);
    if( !c->chunk ) return SQLITE_NOMEM;
  }
  n = sq_file_read(&c->file, c->chunk, SQ_FT_CHUNK, &rc, &why);
  if( n<0 ){
    c->eof = 1;
    if( rc==SQLITE_INTERRUPT || rc==SQLITE_NOMEM ){ sqlite3_free(why); return rc; }
    rc = ft_file_error(c, c->zFile, why ? why : "read error");
    sqlite3_free(why);
    return rc;
  }
  if( n==0 ) c->input_eof = 1;
  c->cbuf = c->chunk;
  c->clen = (size_t)n;
  c->cpos = 0;
  return SQLITE_OK;
}

static int ft_start_file(sq_ft_cursor *c);

/* Advances to the next row (or EOF): through the current file, then the
** next ones. */
static int ft_advance(sq_ft_cursor *c){
  const sq_ft_format *fmt = c->vt->fmt;
  c->row_ready = 0;
  for(;;){
    if( c->finished ){
      int rc;
      if( c->iFile+1>=c->files.n ){ c->eof = 1; return SQLITE_OK; }
      c->iFile++;
      rc = ft_start_file(c);
      if( rc!=SQLITE_OK ) return rc;
      continue;
    }
    if( c->cpos<c->clen ){
      size_t used = 0;
      int rc = fmt->xFeed(c, c->cbuf+c->cpos, c->clen-c->cpos, &used);
      if( rc==SQ_FT_ERROR ) return ft_reader_error(c);
      c->cpos = rc==SQ_FT_PAUSED ? c->cpos+used : c->clen;
      if( c->row_ready ){ c->rowid++; return SQLITE_OK; }
      continue;
    }
    if( c->input_eof ){
      if( fmt->xFinish(c)!=SQ_FT_DONE ) return ft_reader_error(c);
      if( c->g && sq_ft_reject_end(c, sq_ingest_records(c->g))!=SQLITE_OK ) return ft_reader_error(c);
      c->finished = 1;
      if( c->row_ready ){ c->rowid++; return SQLITE_OK; }
      continue;
    }
    if( c->replay && c->cbuf!=c->replay ){
      /* the bytes read when the table was made come first (fed from their
      ** own buffer: it may be smaller than a chunk) */
      c->cbuf = c->replay;
      c->clen = c->nreplay;
      c->cpos = 0;
      continue;
    }
    {
      int rc = ft_read(c);
      if( rc!=SQLITE_OK ) return rc;
    }
  }
}

/* The function's arguments: FILENAME, and the second when given. */
static int ft_args(sq_ft_cursor *c, int idxNum, sqlite3_value **argv,
                   const char **pzFile, const char **pzArg){
  const sq_ft_format *fmt = c->vt->fmt;
  const char *zFile = 0, *zArg = 0;
  int n = 0;
  if( idxNum & 1 ) zFile = (const char*)sqlite3_value_text(argv[n++]);
  if( idxNum & 2 ) zArg = (const char*)sqlite3_value_text(argv[n++]);
  if( !(idxNum & 1) ){
    return ft_set_error(c, sqlite3_mprintf("%s: missing the filename argument: "
                                           "%s(filename [, %s])", fmt->zName, fmt->zName, fmt->zArg));
  }
  if( !zFile || ((idxNum & 2) && !zArg) ){
    return ft_set_error(c, sqlite3_mprintf("%s: the %s argument is NULL",
                                           fmt->zName, zFile ? fmt->zArg : "filename"));
  }
  /* a NUL would cut the name open() sees: another file than the one asked for */
  if( (int)strlen(zFile)!=sqlite3_value_bytes(argv[0])
      || ((idxNum & 2) && (int)strlen(zArg)!=sqlite3_value_bytes(argv[1])) ){
    sqlite3_str *m = sqlite3_str_new(0);
    int isArg = (int)strlen(zFile)==sqlite3_value_bytes(argv[0]);
    sqlite3_value *v = argv[isArg ? 1 : 0];
    sqlite3_str_appendf(m, "%s: the %s argument contains a NUL byte: ",
                        fmt->zName, isArg ? fmt->zArg : "filename");
    sq_str_value(m, (const char*)sqlite3_value_text(v), sqlite3_value_bytes(v), 1);
    return ft_set_error(c, sqlite3_str_finish(m));
  }
  *pzFile = zFile;
  *pzArg = zArg;
  return SQLITE_OK;
}

/* The reader of c->files.a[c->iFile] anew: its state, the format's xStart. */
static int ft_begin_file(sq_ft_cursor *c, char **pzErr){
  ft_end_file(c);
  c->zFile = c->files.a[c->iFile];
  c->input_eof = c->finished = 0;
  c->clen = c->cpos = 0;
  return c->vt->fmt->xStart(c, pzErr);
}

/* Opens c->zFile (or takes the pipe read when the table was made: *pOnce
** 2; another pipe, FIFO or terminal: 1).  SQLITE_OK, or the error with
** *pzErr the message for the file ("cannot open: …"; NULL: no memory). */
static int ft_open_input(sq_ft_cursor *c, int *pOnce, char **pzErr){
  sq_ft_vtab *vt = c->vt;
  const char *zFile = c->zFile;
  /* (on the worker, the pending pipe is the one the scan took from vt) */
  sq_ft_pending *pend = c->pipe ? &c->claim : &vt->pending;
  const char *zPend = c->pipe ? c->zClaim : vt->zPeek;
  *pOnce = 0;
  if( c->zOnce && strcmp(c->zOnce, zFile)==0 ){
    *pzErr = sq_ft_file_msg(vt->fmt, zFile, SQ_FILE_READ_ONCE);
    return SQLITE_ERROR;
  }
  if( vt->typed && pend->has && zPend && strcmp(zPend, zFile)==0 ){
    /* the first scan of a pipe continues where the table's making stopped */
    sq_ft_pending got;
    ft_pending_move(&got, pend);
    *pOnce = 2;
    sqlite3_free(c->zOnce);
    c->zOnce = sqlite3_mprintf("%s", zFile);
    c->fopen = 1;
    c->file = got.file;
    c->replay = got.sample;
    c->nreplay = got.nsample;
    return SQLITE_OK;
  }
  {
    char *why = 0;
    if( sq_file_open(&c->file, c->pipe ? 0 : vt->db, zFile, &why)!=SQLITE_OK ){
      *pzErr = sq_ft_file_msg(vt->fmt, zFile, why ? why : "cannot open");
      sqlite3_free(why);
      return SQLITE_ERROR;
    }
  }
  c->fopen = 1;
  if( !c->file.regular ){
    *pOnce = 1;
    sqlite3_free(c->zOnce);
    c->zOnce = sqlite3_mprintf("%s", zFile);
  }
  return SQLITE_OK;
}

/* Starts reading c->files.a[c->iFile]: the format's reader anew, the
** file opened (or the pipe read when the table was made, for the first
** file of a typed table's first scan). */
static int ft_start_file(sq_ft_cursor *c){
  sq_ft_vtab *vt = c->vt;
  char *err = 0;
  int rc, once;
  sq_ft_reject_reset(c);
  ft_no_row(c);
  rc = ft_begin_file(c, &err);
  if( rc==SQLITE_OK && vt->typed ) rc = sq_ft_reject_begin(c, &err);
  if( rc!=SQLITE_OK ){
    if( !err ){ c->eof = 1; return rc; }
    return ft_set_error(c, err)==SQLITE_NOMEM ? SQLITE_NOMEM : rc;
  }
  rc = ft_open_input(c, &once, &err);
  if( rc!=SQLITE_OK ){
    if( !err ){ c->eof = 1; return SQLITE_NOMEM; }
    return ft_set_error(c, err);
  }
  if( once && vt->typed ) vt->read_once = 1;
  return SQLITE_OK;
}

/* ------------------------------------------------------------ the second core
** A typed scan on a worker (sq_pipe.h): ft_pipe_run reads every file and
** feeds the format's reader and the core there; the rows, rejects and
** these marks come to ft_pipe_advance on the caller's thread in order.
** What touches the connection (the reject table, sqlite3_interrupt(),
** vt's state, the statement's error) stays on the caller's thread. */

#define FT_MARK_FILE  1   /* a: the file index; it begins */
#define FT_MARK_ONCE  2   /* a: the file index; a pipe, FIFO or terminal */
#define FT_MARK_END   3   /* a: the file index, b: its records; it ended */

int sq_ft_pipe_reject(sq_ft_cursor *c, const sq_ingest_reject *r, const char *reason){
  if( !sq_pipe_put_reject(c->pipe, r, reason) ) return SQ_INGEST_CONTINUE;
  return sq_pipe_stopped(c->pipe) ? 1 : SQ_INGEST_NOMEM;
}

/* The worker's message for the reader's error (NULL: no memory). */
static int ft_pipe_reader_error(sq_ft_cursor *c, char **pzErr){
  int rc = SQLITE_NOMEM;
  if( sq_pipe_stopped(c->pipe) ) return SQLITE_INTERRUPT;
  if( c->zRejErr ){          /* the reject path stopped the reader */
    *pzErr = c->zRejErr;
    c->zRejErr = 0;
    return SQLITE_ERROR;
  }
  *pzErr = c->vt->fmt->xError(c, &rc);
  return *pzErr ? SQLITE_ERROR : rc;
}

/* n bytes to the format's reader, fed again after a pause: SQLITE_OK or
** the error. */
static int ft_pipe_feed(sq_ft_cursor *c, const unsigned char *z, size_t n, char **pzErr){
  size_t pos = 0, used = 0;
  while( pos<n ){
    int f = c->vt->fmt->xFeed(c, z+pos, n-pos, &used);
    if( f==SQ_FT_ERROR ) return ft_pipe_reader_error(c, pzErr);
    pos = f==SQ_FT_PAUSED ? pos+used : n;
  }
  return SQLITE_OK;
}

/* One file on the worker: SQLITE_OK, or an error code and *pzErr. */
static int ft_pipe_file(sq_ft_cursor *c, char **pzErr){
  const sq_ft_format *fmt = c->vt->fmt;
  sq_pipe *p = c->pipe;
  int rc, once;
  rc = ft_begin_file(c, pzErr);
  if( rc!=SQLITE_OK ) return rc;
  if( sq_pipe_put_mark(p, FT_MARK_FILE, c->iFile, 0) ) return SQLITE_INTERRUPT;
  rc = ft_open_input(c, &once, pzErr);
  if( rc!=SQLITE_OK ) return *pzErr ? rc : SQLITE_NOMEM;
  c->file.db = 0;
  c->file.stop = sq_pipe_stop_flag(p);
  if( once && sq_pipe_put_mark(p, FT_MARK_ONCE, c->iFile, 0) ) return SQLITE_INTERRUPT;
  if( !c->chunk ){
    c->chunk = sqlite3_malloc(SQ_FT_CHUNK);
    if( !c->chunk ) return SQLITE_NOMEM;
  }
  /* the bytes read when the table was made come first */
  if( c->replay && (rc = ft_pipe_feed(c, c->replay, c->nreplay, pzErr))!=SQLITE_OK ) return rc;
  for(;;){
    char *why = 0;
    sqlite3_int64 n;
    /* a read that may wait: the rows so far go first */
    if( !c->file.regular ) sq_pipe_flush(p);
    n = sq_file_read(&c->file, c->chunk, SQ_FT_CHUNK, &rc, &why);
    if( n<0 ){
      if( rc==SQLITE_INTERRUPT || rc==SQLITE_NOMEM ){ sqlite3_free(why); return rc; }
      *pzErr = sq_ft_file_msg(fmt, c->zFile, why ? why : "read error");
      sqlite3_free(why);
      return *pzErr ? SQLITE_ERROR : SQLITE_NOMEM;
    }
    if( n==0 ) break;
    if( (rc = ft_pipe_feed(c, c->chunk, (size_t)n, pzErr))!=SQLITE_OK ) return rc;
  }
  if( fmt->xFinish(c)!=SQ_FT_DONE ) return ft_pipe_reader_error(c, pzErr);
  if( sq_pipe_put_mark(p, FT_MARK_END, c->iFile, c->g ? sq_ingest_records(c->g) : 0) ){
    return SQLITE_INTERRUPT;
  }
  return SQLITE_OK;
}

static void ft_pipe_run(sq_pipe *p, void *arg){
  sq_ft_cursor *c = (sq_ft_cursor*)arg;
  int rc = SQLITE_OK;
  char *err = 0;
  for(c->iFile=0; c->iFile<c->files.n && rc==SQLITE_OK; c->iFile++){
    rc = ft_pipe_file(c, &err);
  }
  if( err==SQ_ERR_NOMEM ){ err = 0; rc = SQLITE_NOMEM; }
  /* (a put refused while the pipe was not stopped: out of memory) */
  if( rc==SQLITE_INTERRUPT && !sq_pipe_stopped(p) ) rc = SQLITE_NOMEM;
  if( rc==SQLITE_OK ) sq_pipe_put_end(p);
  else if( rc!=SQLITE_INTERRUPT || !sq_pipe_stopped(p) ) sq_pipe_put_error(p, rc, err);
  sqlite3_free(err);
}

/* Stops and joins the worker; the cursor's reading state is the caller's
** again, and a pending pipe the worker did not take goes back to vt. */
static void ft_pipe_end(sq_ft_cursor *c){
  sq_ft_vtab *vt = c->vt;
  if( !c->pipe ) return;
  sq_pipe_free(c->pipe);
  c->pipe = 0;
  if( c->claim.has ) ft_pending_move(&vt->pending, &c->claim);
  sqlite3_free(c->zClaim);
  c->zClaim = 0;
  c->zRowFile = 0;
}

/* A typed scan on a worker, when a second CPU can run it and the scan is
** worth it (sq_pipe_worth_it_scan: the cursor's first scan, of files large
** enough or not regular files; a rescan, the inner loop of a join, reads
** here).  0: started; else read on this thread. */
static int ft_pipe_begin(sq_ft_cursor *c){
  sq_ft_vtab *vt = c->vt;
  int rescan = c->nscan>1;
  if( !vt->typed || !sq_pipe_worth_it() ) return 1;
  if( !sq_pipe_worth_it_scan(rescan ? 0 : sq_pipe_input_size(c->files.a, c->files.n), rescan) ) return 1;
  c->pipe = sq_pipe_new(0, 0);
  if( !c->pipe ) return 1;
  if( vt->pending.has && vt->zPeek ){
    /* the pipe read when the table was made: the worker's, for this scan */
    c->zClaim = sqlite3_mprintf("%s", vt->zPeek);
    if( !c->zClaim ){ sq_pipe_free(c->pipe); c->pipe = 0; return 1; }
    ft_pending_move(&c->claim, &vt->pending);
  }
  if( sq_pipe_start(c->pipe, ft_pipe_run, c) ){
    ft_pipe_end(c);
    return 1;
  }
  return 0;
}

/* The next row from the worker (or EOF, or the error where it occurred). */
static int ft_pipe_advance(sq_ft_cursor *c){
  sq_ft_vtab *vt = c->vt;
  for(;;){
    sq_pipe_item it;
    char *err = 0;
    if( sq_pipe_next(c->pipe, &it, sq_pipe_db_interrupted, vt->db)!=SQ_PIPE_OK ){
      c->eof = 1;
      return SQLITE_INTERRUPT;
    }
    switch( it.kind ){
      case SQ_PIPE_ROW:
        c->idx = it.row.index;
        c->line = (sqlite3_int64)it.row.line;
        c->offset = (sqlite3_int64)it.row.offset;
        c->vals = it.row.values;
        c->nval = it.row.ncol;
        c->rowid++;
        return SQLITE_OK;
      case SQ_PIPE_REJECT:
        if( sq_ft_reject_take(c, c->zRowFile, &it.reject, it.message ? it.message : "")!=SQ_INGEST_CONTINUE ){
          return ft_reject_error(c);
        }
        break;
      case SQ_PIPE_MARK:
        if( it.what==FT_MARK_FILE ){
          c->zRowFile = c->files.a[it.a];
          sq_ft_reject_reset(c);
          if( sq_ft_reject_begin(c, &err)!=SQLITE_OK ){
            if( !err ){ c->eof = 1; return SQLITE_NOMEM; }
            return ft_set_error(c, err);
          }
        }else if( it.what==FT_MARK_ONCE ){
          vt->read_once = 1;
        }else if( it.what==FT_MARK_END ){
          if( sq_ft_reject_end(c, it.b)!=SQLITE_OK ){
            return ft_reject_error(c);
          }
        }
        break;
      case SQ_PIPE_END:
        c->eof = 1;
        return SQLITE_OK;
      default:
        c->eof = 1;
        if( !it.message ) return it.rc==SQLITE_OK ? SQLITE_ERROR : it.rc;
        return ft_set_error(c, sqlite3_mprintf("%s", it.message));
    }
  }
}

static int ft_filter(sqlite3_vtab_cursor *cur, int idxNum, const char *idxStr,
                     int argc, sqlite3_value **argv){
  sq_ft_cursor *c = (sq_ft_cursor*)cur;
  sq_ft_vtab *vt = c->vt;
  const char *zFile = 0, *zArg = 0;
  char *why = 0;
  int rc;
  (void)idxStr; (void)argc;
  ft_reset(c);
  c->nscan++;
  c->max_record = sq_ft_max_record(vt->db);
  if( vt->typed ){
    zFile = vt->zFile;
  }else{
    rc = ft_args(c, idxNum, argv, &zFile, &zArg);
    if( rc!=SQLITE_OK ) return rc;
  }
  c->zArg = zArg ? sqlite3_mprintf("%s", zArg) : 0;
  if( zArg && !c->zArg ) return SQLITE_NOMEM;
  if( vt->typed && vt->read_once ){
    return ft_file_error(c, zFile, SQ_FILE_READ_ONCE);
  }
  rc = sq_files_expand(&c->files, zFile, &why);
  if( rc!=SQ_FILES_OK ){
    if( rc==SQ_FILES_NOMEM ){ c->eof = 1; return SQLITE_NOMEM; }
    rc = ft_set_error(c, sqlite3_mprintf("%s: %s", vt->fmt->zName, why));
    sqlite3_free(why);
    return rc;
  }
  c->eof = 0;
  c->rowid = -1;
  c->iFile = -1;
  c->finished = 1;      /* ft_advance starts the first file */
  if( ft_pipe_begin(c)==0 ) return ft_pipe_advance(c);
  return ft_advance(c);
}

static int ft_next(sqlite3_vtab_cursor *cur){
  sq_ft_cursor *c = (sq_ft_cursor*)cur;
  return c->pipe ? ft_pipe_advance(c) : ft_advance(c);
}

static int ft_eof(sqlite3_vtab_cursor *cur){
  return ((sq_ft_cursor*)cur)->eof;
}

static int ft_column(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int i){
  sq_ft_cursor *c = (sq_ft_cursor*)cur;
  if( c->vt->typed ){
    const sq_ingest_value *v;
    if( i==c->vt->iFileCol ){
      sqlite3_result_text(ctx, c->pipe ? c->zRowFile : c->zFile, -1, SQLITE_TRANSIENT);
      return SQLITE_OK;
    }
    if( i<0 || i>=c->nval ) return SQLITE_OK;
    v = &c->vals[i];
    /* (the core's text is never NULL: '' stays '', not NULL) */
    switch( v->type ){
      case SQ_INGEST_V_INTEGER: sqlite3_result_int64(ctx, v->i); break;
      case SQ_INGEST_V_REAL:    sqlite3_result_double(ctx, v->r); break;
      case SQ_INGEST_V_TEXT:
        sqlite3_result_text64(ctx, v->text, (sqlite3_uint64)v->len, SQLITE_TRANSIENT, SQLITE_UTF8);
        break;
      case SQ_INGEST_V_JSON:
        sqlite3_result_text64(ctx, v->text, (sqlite3_uint64)v->len, SQLITE_TRANSIENT, SQLITE_UTF8);
        sqlite3_result_subtype(ctx, SQ_FT_SUBTYPE);
        break;
      default: break;   /* NULL */
    }
    return SQLITE_OK;
  }
  switch( i ){
    case FT_COL_VALUE:  c->vt->fmt->xValue(c, ctx); break;
    case FT_COL_IDX:    sqlite3_result_int64(ctx, c->idx); break;
    case FT_COL_LINE:   sqlite3_result_int64(ctx, c->line); break;
    case FT_COL_OFFSET: sqlite3_result_int64(ctx, c->offset); break;
    case FT_COL_FILENAME: sqlite3_result_text(ctx, c->zFile, -1, SQLITE_TRANSIENT); break;
    default:
      if( c->zArg ) sqlite3_result_text(ctx, c->zArg, -1, SQLITE_TRANSIENT);
      break;
  }
  return SQLITE_OK;
}

static int ft_rowid(sqlite3_vtab_cursor *cur, sqlite_int64 *pRowid){
  *pRowid = ((sq_ft_cursor*)cur)->rowid;
  return SQLITE_OK;
}

static sqlite3_module ft_module = {
  0,                /* iVersion */
  ft_connect,       /* xCreate: CREATE VIRTUAL TABLE … USING NAME(…) */
  ft_connect,       /* xConnect (also the eponymous table-valued function) */
  ft_best_index,
  ft_disconnect,
  ft_disconnect,    /* xDestroy */
  ft_open,
  ft_close,
  ft_filter,
  ft_next,
  ft_eof,
  ft_column,
  ft_rowid,
  0, 0, 0, 0, 0, 0, 0,
  0, 0, 0, 0
};

int sq_ft_register(sqlite3 *db, const sq_ft_format *fmt){
  return sqlite3_create_module(db, fmt->zName, &ft_module, (void*)fmt);
}
