/*
** sq_csv_stream.c — csv_stream: CSV files of any size into rows, in
** constant memory, with StreamQLite's incremental reader (sq_csv.h) and,
** for typed columns, the ingest core (sq_ingest.h, sq_csv_ingest.h).
**
** TABLE-VALUED FUNCTION
**
**   csv_stream(FILENAME [, OPTIONS])
**
**   Reads FILENAME in 64 KiB chunks and yields one row per record (the
**   header not counted).  Columns:
**
**     value    the record as a JSON object keyed by the header names
**              ({"id":"1","name":"Smith, John","note":null}), with
**              SQLite's JSON subtype, so ->, ->>, json_extract() and
**              json_each() treat it as JSON.  Values are JSON strings as
**              written in the file (CAST them: value->>'qty' is TEXT), or
**              null (see NULL below).  Without a header the keys are c1,
**              c2, …
**     idx      0-based record index (the header not counted)
**     line     1-based line where the record starts
**     offset   0-based byte offset where the record starts
**     filename, options   (hidden) the arguments
**
**   OPTIONS is a list of key=value, separated by commas; a value may be
**   quoted with '…' or "…":
**     header=1|0           the first record is a header (default 1; also
**                          true/false, yes/no, on/off)
**     delimiter=C          one ASCII character (default ','); 'tab' or
**                          '\t' for a tab: delimiter=';', delimiter=tab,
**                          delimiter="|", delimiter=','
**     quote=C              the quote character (default '"'); quote=none
**                          (or '') for none
**     null=TEXT            an unquoted field equal to TEXT is NULL (e.g.
**                          null=NA, null='\N'); a quoted one stays text
**     empty=null|text      an empty unquoted field is NULL (default) or ''
**                          (a quoted "" is always '')
**     ragged=error|pad     a record with fewer fields than the header is an
**                          error (default) or padded with NULLs; more
**                          fields is always an error
**
**     SELECT idx, value->>'id', value->>'name' FROM csv_stream('people.csv');
**     SELECT value FROM csv_stream('data.tsv', 'delimiter=tab, null=NA');
**     SELECT count(*) FROM csv_stream('/dev/stdin');
**
**   The reader is RFC 4180 (sq_csv.h, GRAMMAR): quoted fields may hold
**   delimiters, "" and line ends; LF, CRLF and CR; a UTF-8 BOM is skipped.
**   Header names: an empty one is named cN (N: its 1-based position); two
**   names equal ignoring ASCII case are an error.  A header-only file
**   gives no rows; so does an empty file (a typed table that expects a
**   header fails on it: "empty file: no header").
**
**   FILENAME may be '/dev/stdin', a pipe or a FIFO: the file is read
**   sequentially, never seeked; a FIFO is waited on until a writer comes
**   and until it closes, and the wait stops on sqlite3_interrupt() (the
**   reads of sq_file.c, as json_stream's).
**
** VIRTUAL TABLE WITH TYPED COLUMNS (the fast path; temp schema only)
**
**   CREATE VIRTUAL TABLE temp.incoming USING csv_stream(
**       filename='stops.csv',
**       columns='stop_id TEXT, stop_lat REAL, stop_lon REAL, wheelchair INTEGER',
**       keys='wheelchair=wheelchair_boarding',   -- optional: column=header name
**       header=1, delimiter=',', quote='"', null=NA, empty=null, ragged=error,
**       strict=0                                 -- all optional
**   );
**   INSERT INTO stops SELECT * FROM incoming;
**
**   Fields go straight into the declared columns through the ingest core
**   (sq_ingest.h) during the one read — the same matching and coercion as
**   json_stream's typed columns and the Swift importCSV/importJSON:
**     - with a header, each header name feeds the column of that name
**       (exact, else ignoring ASCII case), or the columns keys= maps it to;
**       a header name without a column is ignored (strict=1: an error); a
**       column without a header name is NULL
**     - header=0: field i feeds column i
**     - a value is coerced by the column's declared type: INTEGER '12' →
**       12, REAL '1.5' → 1.5, a DATE/DATETIME/TIMESTAMP column normalizes
**       dates to 'YYYY-MM-DD HH:MM:SS.SSS' UTC (sq_date.h), TEXT keeps the
**       text; what does not fit is kept as text (strict=1: an error)
**
**   Without columns=, the columns are the header names (or c1, c2, … with
**   header=0) and their types are inferred from the first records
**   (infer=N, default 1000, and at most the first 16 MiB), by the rule of
**   sq_csv_ingest.h (TYPE INFERENCE): INTEGER when every value is an
**   integer written canonically ('007' is not: a ZIP code stays TEXT),
**   REAL when every value is a number of at most 15 significant digits,
**   else TEXT (dates too).  A later value that does not fit its inferred
**   column is an error naming its line, byte and field — never a silently
**   changed value; declare columns= to accept it.  Inference reads the
**   file's start when the table is created (and again if SQLite
**   reconnects it); from a pipe, FIFO or /dev/stdin, the bytes read then
**   are kept and replayed before the rest by the first scan.
**
** ERRORS
**
**   Malformed CSV (sq_csv.h: a quote inside an unquoted field, text after
**   a closing quote, an unterminated quoted field, invalid UTF-8, a field
**   larger than the limit, a record with another number of fields than
**   the header), duplicate header names, a value refused by strict mode or
**   not fitting an inferred column, a missing or unreadable file, a
**   directory: the statement fails with
**     csv_stream: FILE: line L, byte B, field F (NAME): MESSAGE
**   (byte = 0-based offset, F 1-based; parts without a value left out).
**   Rows already produced are not undone by csv_stream itself, but an
**   INSERT … SELECT that fails is rolled back as a whole by SQLite.
**
** LIMITS
**
**   Memory is constant: a 64 KiB read buffer plus the current record.  A
**   field or a record (its JSON text, or the sum of its typed values)
**   larger than 64 MiB or SQLITE_LIMIT_LENGTH (whichever is smaller) is an
**   error: a hostile file cannot make csv_stream allocate without bound.
**
** SECURITY
**
**   As json_stream (sq_json_stream.c, SECURITY): a csv_stream table reads
**   a file, so it can only live in the temp schema — creating one in main
**   or an attached database, or opening one planted in a database file, is
**   an error whatever trusted_schema says; the function and every table
**   are SQLITE_VTAB_DIRECTONLY (never from a schema's views or triggers);
**   and the no-read entry point sqlite3_streamqlite_noread_init does not
**   register csv_stream at all (streamqlite.c, ENTRY POINTS).
*/
#include "sq_internal.h"
#include "sq_csv.h"
#include "sq_csv_ingest.h"
#include "sq_ingest.h"

#include <string.h>

#define CS_CHUNK       (64*1024)
#define CS_MAX_RECORD  ((sqlite3_int64)64 << 20)
#define CS_SUBTYPE     74                   /* 'J': SQLite's JSON subtype */

/* ------------------------------------------------------------ options */

typedef struct CsOpts {
  sq_csv_options o;
  char *null_text;
  char *file;            /* typed: filename= */
  char *columns;         /* typed: columns= */
  char *keys;            /* typed: keys= */
  int strict;
  int infer;
} CsOpts;

static void cs_opts_init(CsOpts *p){
  memset(p, 0, sizeof(*p));
  sq_csv_options_init(&p->o);
}

static void cs_opts_free(CsOpts *p){
  sqlite3_free(p->null_text);
  sqlite3_free(p->file);
  sqlite3_free(p->columns);
  sqlite3_free(p->keys);
  memset(p, 0, sizeof(*p));
}

/* "csv_stream: option KEY: …" */
static char *cs_bad_option(const char *key, const char *value, const char *why){
  sqlite3_str *m = sqlite3_str_new(0);
  sqlite3_str_appendf(m, "csv_stream: option %s=", key);
  sq_str_value(m, value, (sqlite3_int64)strlen(value), 1);
  sqlite3_str_appendf(m, ": %s", why);
  return sqlite3_str_finish(m);
}

/* One key=value.  `typed`: the CREATE arguments (filename, columns, keys,
** strict, infer allowed). */
static char *cs_option(CsOpts *p, const char *key, char *value, int typed){
  int b;
  if( sqlite3_stricmp(key, "header")==0 ){
    if( sq_arg_bool(value, &b) ) return cs_bad_option(key, value, "expected 1 or 0 (true/false, yes/no, on/off)");
    p->o.header = b;
  }else if( sqlite3_stricmp(key, "delimiter")==0 ){
    int c = -1;
    if( sqlite3_stricmp(value, "tab")==0 || strcmp(value, "\\t")==0 ) c = '\t';
    else if( strlen(value)==1 ) c = (unsigned char)value[0];
    if( c<=0 || c>=0x80 || c=='\n' || c=='\r' ){
      return cs_bad_option(key, value, "expected one ASCII character (or tab)");
    }
    p->o.delimiter = c;
  }else if( sqlite3_stricmp(key, "quote")==0 ){
    int c = -1;
    if( value[0]==0 || sqlite3_stricmp(value, "none")==0 ) c = 0;
    else if( strlen(value)==1 ) c = (unsigned char)value[0];
    if( c<0 || c>=0x80 || c=='\n' || c=='\r' ){
      return cs_bad_option(key, value, "expected one ASCII character, or none");
    }
    p->o.quote = c;
  }else if( sqlite3_stricmp(key, "null")==0 ){
    sqlite3_free(p->null_text);
    p->null_text = value;
    p->o.null_text = value;
    p->o.null_len = strlen(value);
    return 0;
  }else if( sqlite3_stricmp(key, "empty")==0 ){
    if( sqlite3_stricmp(value, "null")==0 ) p->o.empty_string = 0;
    else if( sqlite3_stricmp(value, "text")==0 || sqlite3_stricmp(value, "string")==0 ) p->o.empty_string = 1;
    else return cs_bad_option(key, value, "expected null or text");
  }else if( sqlite3_stricmp(key, "ragged")==0 ){
    if( sqlite3_stricmp(value, "error")==0 ) p->o.pad_short = 0;
    else if( sqlite3_stricmp(value, "pad")==0 ) p->o.pad_short = 1;
    else return cs_bad_option(key, value, "expected error or pad");
  }else if( typed && sqlite3_stricmp(key, "filename")==0 ){
    sqlite3_free(p->file); p->file = value; return 0;
  }else if( typed && sqlite3_stricmp(key, "columns")==0 ){
    sqlite3_free(p->columns); p->columns = value; return 0;
  }else if( typed && sqlite3_stricmp(key, "keys")==0 ){
    sqlite3_free(p->keys); p->keys = value; return 0;
  }else if( typed && sqlite3_stricmp(key, "strict")==0 ){
    if( sq_arg_bool(value, &b) ) return cs_bad_option(key, value, "expected 1 or 0");
    p->strict = b;
  }else if( typed && sqlite3_stricmp(key, "infer")==0 ){
    int n = 0;
    const char *s = value;
    while( *s>='0' && *s<='9' && n<100000000 ) n = n*10 + (*s++ - '0');
    if( *s || n<1 || n>1000000 ) return cs_bad_option(key, value, "expected a number of records, 1 to 1000000");
    p->infer = n;
  }else{
    char *m = sqlite3_mprintf("csv_stream: unknown option '%s' (expected %s)", key,
        typed ? "filename, columns, keys, header, delimiter, quote, null, empty, ragged, strict, infer"
              : "header, delimiter, quote, null, empty, ragged");
    sqlite3_free(value);
    return m;
  }
  sqlite3_free(value);
  if( p->o.delimiter==p->o.quote ){
    return sqlite3_mprintf("csv_stream: the delimiter and the quote are the same character '%c'",
                           p->o.delimiter);
  }
  return 0;
}

typedef struct CsOptCtx { CsOpts *p; int typed; } CsOptCtx;

static char *cs_option_part(void *ctx, const char *z, int n){
  CsOptCtx *x = (CsOptCtx*)ctx;
  char *key, *value, *err;
  int rc = sq_arg_keyvalue(z, n, &key, &value);
  if( rc==1 ) return sqlite3_mprintf("csv_stream: expected key=value, got '%.*s'", n, z);
  if( rc==3 || rc==4 ) return sqlite3_mprintf("csv_stream: option '%.*s': %s", n, z, sq_arg_value_error(rc));
  if( rc ) return sqlite3_mprintf("csv_stream: out of memory");
  err = cs_option(x->p, key, value, x->typed);
  sqlite3_free(key);
  return err;
}

/* ------------------------------------------------------------ vtab */

typedef struct CsCol {
  char *name;
  char *type;          /* declared type as written ("" for none) */
  int inferred;        /* SQ_CSV_T_* when inferred, 0 when declared */
} CsCol;

typedef struct CsVtab {
  sqlite3_vtab base;
  sqlite3 *db;
  int typed;
  CsOpts opt;          /* typed: the CREATE arguments */
  int nCol;
  CsCol *aCol;
  int64_t inferred_from;
  /* a pipe read by inference: its open file and the bytes read, for the
  ** first scan */
  int read_once;       /* typed: a scan has read a pipe, FIFO or terminal */
  int has_pending;
  sq_file pending;
  unsigned char *sample;
  size_t nsample;
} CsVtab;

static const char *const kUntypedSchema =
  "CREATE TABLE x(value, idx INTEGER, line INTEGER, offset INTEGER,"
  " filename HIDDEN, options HIDDEN)";
#define CS_COL_VALUE    0
#define CS_COL_IDX      1
#define CS_COL_LINE     2
#define CS_COL_OFFSET   3
#define CS_COL_FILENAME 4
#define CS_COL_OPTIONS  5

static void cs_vtab_free(CsVtab *vt){
  int i;
  if( !vt ) return;
  for(i=0; i<vt->nCol; i++){ sqlite3_free(vt->aCol[i].name); sqlite3_free(vt->aCol[i].type); }
  sqlite3_free(vt->aCol);
  cs_opts_free(&vt->opt);
  if( vt->has_pending ) sq_file_close(&vt->pending);
  sqlite3_free(vt->sample);
  sqlite3_free(vt);
}

static char *cs_add_column(void *ctx, const char *z, int n){
  CsVtab *vt = (CsVtab*)ctx;
  char *name, *type;
  CsCol *a;
  int rc = sq_arg_column(z, n, &name, &type);
  if( rc==1 || rc==5 ){
    return sqlite3_mprintf("csv_stream: bad column definition '%.*s': %s", n, z, sq_arg_column_error(rc));
  }
  if( rc ) return sqlite3_mprintf("csv_stream: out of memory");
  a = sqlite3_realloc64(vt->aCol, sizeof(CsCol)*(sqlite3_uint64)(vt->nCol+1));
  if( !a ){ sqlite3_free(name); sqlite3_free(type); return sqlite3_mprintf("csv_stream: out of memory"); }
  vt->aCol = a;
  a[vt->nCol].name = name;
  a[vt->nCol].type = type;
  a[vt->nCol].inferred = 0;
  vt->nCol++;
  return 0;
}

/* keys='col=Header Name, …' are checked when the table is made (the core
** maps them again for each scan). */
static char *cs_check_key(void *ctx, const char *z, int n){
  CsVtab *vt = (CsVtab*)ctx;
  char *col, *key;
  int i, rc = sq_arg_keyvalue(z, n, &col, &key);
  if( rc==1 ) return sqlite3_mprintf("csv_stream: keys: expected column=header name, got '%.*s'", n, z);
  if( rc==3 || rc==4 ) return sqlite3_mprintf("csv_stream: keys: '%.*s': %s", n, z, sq_arg_value_error(rc));
  if( rc ) return sqlite3_mprintf("csv_stream: out of memory");
  for(i=0; i<vt->nCol; i++) if( sqlite3_stricmp(vt->aCol[i].name, col)==0 ) break;
  sqlite3_free(key);
  if( i<vt->nCol ){ sqlite3_free(col); return 0; }
  {
    char *err = sqlite3_mprintf("csv_stream: keys: no column named '%s'", col);
    sqlite3_free(col);
    return err;
  }
}

/* "csv_stream: FILE: DETAILS" from a structured error. */
static char *cs_error_msg(const char *file, const sq_csv_ingest_error *e){
  sqlite3_str *m = sqlite3_str_new(0);
  char *t = sq_csv_error_text(e);
  sqlite3_str_appendall(m, "csv_stream: ");
  sq_str_value(m, file, (sqlite3_int64)strlen(file), 0);
  sqlite3_str_appendf(m, ": %s", t ? t : "out of memory");
  sqlite3_free(t);
  return sqlite3_str_finish(m);
}

static char *cs_file_msg(const char *file, const char *what){
  sq_csv_ingest_error e;
  memset(&e, 0, sizeof e);
  e.message = what;
  e.field = -1;
  e.record = -1;
  return cs_error_msg(file, &e);
}

static sqlite3_int64 cs_max_record(sqlite3 *db){
  int lim = sqlite3_limit(db, SQLITE_LIMIT_LENGTH, -1);
  sqlite3_int64 m = CS_MAX_RECORD;
  if( lim>0 && lim<m ) m = lim;
  return m;
}

/* Infers the columns from the file's first records (no columns=). */
static char *cs_infer(CsVtab *vt){
  sq_file f;
  char *why = 0;
  sq_csv_infer *inf;
  unsigned char *buf;
  size_t total = 0;
  int rc = SQLITE_OK, irc = SQ_INGEST_OK, i;
  sq_csv_options o = vt->opt.o;
  o.max_field = (size_t)cs_max_record(vt->db);
  if( sq_file_open(&f, vt->db, vt->opt.file, &why)!=SQLITE_OK ){
    char *m = cs_file_msg(vt->opt.file, why ? why : "cannot open");
    sqlite3_free(why);
    return m;
  }
  inf = sq_csv_infer_new(&o, vt->opt.infer);
  buf = sqlite3_malloc(CS_CHUNK);
  if( !inf || !buf ){
    sq_csv_infer_free(inf); sqlite3_free(buf); sq_file_close(&f);
    return sqlite3_mprintf("csv_stream: out of memory");
  }
  for(;;){
    sqlite3_int64 n = sq_file_read(&f, buf, CS_CHUNK, &rc, &why);
    if( n<0 ) break;
    if( n==0 ){ irc = sq_csv_infer_finish(inf); break; }
    if( !f.regular ){
      unsigned char *s = sqlite3_realloc64(vt->sample, total+(size_t)n);
      if( !s ){ rc = SQLITE_NOMEM; break; }
      vt->sample = s;
      memcpy(s+total, buf, (size_t)n);
    }
    total += (size_t)n;
    irc = sq_csv_infer_feed(inf, buf, (size_t)n);
    if( irc==SQ_INGEST_ERROR ) break;
    if( irc==SQ_INGEST_PAUSED ){
      irc = sq_csv_infer_finish(inf);
      break;
    }
  }
  sqlite3_free(buf);
  if( rc!=SQLITE_OK || irc==SQ_INGEST_ERROR ){
    char *m;
    if( rc==SQLITE_INTERRUPT ) m = sqlite3_mprintf("interrupted");
    else if( rc==SQLITE_NOMEM ) m = sqlite3_mprintf("csv_stream: out of memory");
    else if( rc!=SQLITE_OK ) m = cs_file_msg(vt->opt.file, why ? why : "read error");
    else m = cs_error_msg(vt->opt.file, sq_csv_infer_error(inf));
    sqlite3_free(why);
    sq_csv_infer_free(inf);
    sq_file_close(&f);
    sqlite3_free(vt->sample); vt->sample = 0;
    return m;
  }
  vt->nCol = sq_csv_infer_count(inf);
  vt->aCol = sqlite3_malloc64(sizeof(CsCol)*(sqlite3_uint64)vt->nCol);
  if( !vt->aCol ){ vt->nCol = 0; sq_csv_infer_free(inf); sq_file_close(&f); return sqlite3_mprintf("csv_stream: out of memory"); }
  memset(vt->aCol, 0, sizeof(CsCol)*(size_t)vt->nCol);
  for(i=0; i<vt->nCol; i++){
    int t = sq_csv_infer_type(inf, i);
    vt->aCol[i].name = sqlite3_mprintf("%s", sq_csv_infer_name(inf, i));
    vt->aCol[i].type = sqlite3_mprintf("%s", sq_csv_type_name(t));
    vt->aCol[i].inferred = t;
    if( !vt->aCol[i].name || !vt->aCol[i].type ){ sq_csv_infer_free(inf); sq_file_close(&f); return sqlite3_mprintf("csv_stream: out of memory"); }
  }
  vt->inferred_from = sq_csv_infer_records(inf);
  sq_csv_infer_free(inf);
  if( f.regular ){
    sq_file_close(&f);
  }else{
    vt->has_pending = 1;
    vt->pending = f;
    vt->nsample = total;
  }
  return 0;
}

static int cs_connect(sqlite3 *db, void *pAux, int argc, const char *const *argv,
                      sqlite3_vtab **ppVtab, char **pzErr){
  CsVtab *vt;
  int rc, i;
  char *err = 0;
  (void)pAux;
  if( sqlite3_stricmp(argv[1], "temp")!=0
      && !(argc==3 && sqlite3_stricmp(argv[2], "csv_stream")==0) ){
    /* Only the eponymous table-valued function exists outside temp; a
    ** named table in a database file would make whoever opens the file
    ** read the file it names (the json_stream rule, sq_json_stream.c). */
    *pzErr = sqlite3_mprintf("csv_stream: table %s.%s: csv_stream tables read "
        "files, so they can only live in the temp schema, never in a database "
        "file: CREATE VIRTUAL TABLE temp.%s USING csv_stream(...)",
        argv[1], argv[2], argv[2]);
    return SQLITE_ERROR;
  }
  vt = sqlite3_malloc(sizeof(*vt));
  if( !vt ) return SQLITE_NOMEM;
  memset(vt, 0, sizeof(*vt));
  vt->db = db;
  vt->pending.fd = -1;
  cs_opts_init(&vt->opt);
  if( argc>3 ){
    vt->typed = 1;
    for(i=3; i<argc && !err; i++){
      CsOptCtx x;
      x.p = &vt->opt;
      x.typed = 1;
      err = cs_option_part(&x, argv[i], (int)strlen(argv[i]));
    }
    if( !err && !vt->opt.file ) err = sqlite3_mprintf("csv_stream: missing filename= option");
    if( !err && vt->opt.columns ){
      err = sq_arg_split(vt->opt.columns, "csv_stream: columns", cs_add_column, vt);
      if( !err && vt->nCol==0 ) err = sqlite3_mprintf("csv_stream: columns= declares no column");
    }else if( !err ){
      err = cs_infer(vt);
    }
    if( !err && vt->opt.keys ) err = sq_arg_split(vt->opt.keys, "csv_stream: keys", cs_check_key, vt);
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
        if( !zSql ) err = sqlite3_mprintf("csv_stream: out of memory");
        else{
          rc = sqlite3_declare_vtab(db, zSql);
          if( rc!=SQLITE_OK ) err = sqlite3_mprintf("csv_stream: bad columns (%s)", sqlite3_errmsg(db));
          sqlite3_free(zSql);
        }
      }
    }
    if( err ){
      *pzErr = err;
      cs_vtab_free(vt);
      return SQLITE_ERROR;
    }
  }else{
    rc = sqlite3_declare_vtab(db, kUntypedSchema);
    if( rc!=SQLITE_OK ){ cs_vtab_free(vt); return rc; }
  }
#ifdef SQLITE_VTAB_DIRECTONLY
  sqlite3_vtab_config(db, SQLITE_VTAB_DIRECTONLY);
#endif
  *ppVtab = &vt->base;
  return SQLITE_OK;
}

static int cs_disconnect(sqlite3_vtab *p){
  cs_vtab_free((CsVtab*)p);
  return SQLITE_OK;
}

/* idxNum bits: 1 filename given, 2 options given. */
static int cs_best_index(sqlite3_vtab *tab, sqlite3_index_info *info){
  return sq_file_vtab_best_index(info, ((CsVtab*)tab)->typed, CS_COL_FILENAME, CS_COL_OPTIONS);
}

/* ------------------------------------------------------------ cursor */

typedef sq_ingest_buf CsBuf;   /* the ingest core's buffer (sq_ingest.h) */

typedef struct CsCursor {
  sqlite3_vtab_cursor base;
  CsVtab *vt;
  sq_file f;
  int fopen;
  char *zOnce;                /* a pipe, FIFO or terminal this cursor has read */
  char *zFile;
  char *zOptions;
  CsOpts opt;                 /* the function's options */
  sqlite3_int64 max_rec;
  unsigned char *chunk;
  const unsigned char *cbuf;  /* the data being fed: chunk, or a replayed sample */
  size_t clen, cpos;
  unsigned char *replay;      /* a sample to feed before reading (owned) */
  size_t nreplay;
  int input_eof, finished, eof, row_ready;
  sqlite3_int64 idx, line, offset;
  char *zErr;                 /* set by a callback that aborts */

  /* table-valued function */
  sq_csv_parser *p;
  sq_csv_names *names;
  CsBuf val;                  /* the record's JSON object */
  CsBuf keys;                 /* the escaped keys, "name": each */
  sqlite3_int64 *keyoff;      /* keyoff[i]..keyoff[i+1]: key i in keys */
  int nkeys, capkeys;

  /* typed table */
  sq_ingest *g;
  sq_csv_ingest *d;
  const sq_ingest_value *vals;
  int nvals;
} CsCursor;

static int cs_fail(CsCursor *c, const sq_csv_event *e, const char *msg){
  sq_csv_ingest_error x;
  memset(&x, 0, sizeof x);
  x.message = msg;
  x.line = e->line;
  x.offset = e->offset;
  x.column = e->column;
  x.field = e->type==SQ_CSV_FIELD ? (int64_t)e->field : -1;
  x.record = -1;
  if( !c->zErr ) c->zErr = cs_error_msg(c->zFile, &x);
  return 2;
}

static int cs_buf_fail(CsCursor *c, const sq_csv_event *e, int rc){
  if( rc==1 ){
    char m[96];
    sqlite3_snprintf(sizeof m, m, "record larger than %lld bytes", c->max_rec);
    return cs_fail(c, e, m);
  }
  return cs_fail(c, e, "out of memory");
}

/* The escaped key of field i ("name":), made on first use. */
static int cs_key(CsCursor *c, const sq_csv_event *e, int i){
  while( c->nkeys<=i ){
    const char *z;
    size_t n;
    char gen[24];
    int rc;
    if( c->nkeys+1>=c->capkeys ){
      int cap = c->capkeys ? c->capkeys*2 : 32;
      sqlite3_int64 *a = sqlite3_realloc64(c->keyoff, sizeof(sqlite3_int64)*(sqlite3_uint64)cap);
      if( !a ) return cs_fail(c, e, "out of memory");
      c->keyoff = a;
      c->capkeys = cap;
      if( c->nkeys==0 ) a[0] = 0;
    }
    z = sq_csv_names_get(c->names, c->nkeys, &n);
    if( !z ){
      sqlite3_snprintf(sizeof gen, gen, "c%d", c->nkeys+1);
      z = gen;
      n = strlen(gen);
    }
    c->keys.n = c->keyoff[c->nkeys];
    rc = sq_ingest_json_string(&c->keys, z, n, c->max_rec);
    if( !rc ) rc = sq_ingest_buf_put(&c->keys, ":", 1, c->max_rec);
    if( rc ) return cs_buf_fail(c, e, rc);
    c->nkeys++;
    c->keyoff[c->nkeys] = c->keys.n;
  }
  return 0;
}

static int cs_tvf_event(void *u, const sq_csv_event *e){
  CsCursor *c = (CsCursor*)u;
  int rc;
  if( e->type==SQ_CSV_FIELD ){
    if( e->flags & SQ_CSV_F_HEADER ){
      int64_t dup = -1;
      rc = sq_csv_names_add(c->names, e, &dup);
      if( rc==1 ){
        sq_csv_ingest_error x;
        char buf[512];
        sq_csv_names_error(c->names, e, dup, &x, buf, sizeof buf);
        if( !c->zErr ) c->zErr = cs_error_msg(c->zFile, &x);
        return 2;
      }
      if( rc ) return cs_fail(c, e, "out of memory");
      return SQ_CSV_CONTINUE;
    }
    if( e->field>=32767 ) return cs_fail(c, e, "more than 32767 fields");
    if( (rc = cs_key(c, e, (int)e->field))!=0 ) return rc;
    if( e->field==0 ){
      c->val.n = 0;
      c->line = (sqlite3_int64)e->line;
      c->offset = (sqlite3_int64)e->offset;
      rc = sq_ingest_buf_put(&c->val, "{", 1, c->max_rec);
    }else{
      rc = sq_ingest_buf_put(&c->val, ",", 1, c->max_rec);
    }
    if( !rc ) rc = sq_ingest_buf_put(&c->val, c->keys.z + c->keyoff[e->field],
                             c->keyoff[e->field+1] - c->keyoff[e->field], c->max_rec);
    if( !rc ){
      if( e->flags & SQ_CSV_F_NULL ) rc = sq_ingest_buf_put(&c->val, "null", 4, c->max_rec);
      else rc = sq_ingest_json_string(&c->val, e->text, e->len, c->max_rec);
    }
    if( rc ) return cs_buf_fail(c, e, rc);
    return SQ_CSV_CONTINUE;
  }
  if( (e->record==0 && c->opt.o.header) || e->field==0 ) return SQ_CSV_CONTINUE;
  if( (rc = sq_ingest_buf_put(&c->val, "}", 1, c->max_rec))!=0 ) return cs_buf_fail(c, e, rc);
  c->idx = (sqlite3_int64)e->record - (c->opt.o.header ? 1 : 0);
  c->row_ready = 1;
  return SQ_CSV_PAUSE;
}

static int cs_row(void *u, const sq_ingest_row *row){
  CsCursor *c = (CsCursor*)u;
  c->vals = row->values;
  c->nvals = row->ncol;
  c->idx = row->index;
  c->line = (sqlite3_int64)row->line;
  c->offset = (sqlite3_int64)row->offset;
  c->row_ready = 1;
  return SQ_INGEST_PAUSE;
}

static int cs_open(sqlite3_vtab *tab, sqlite3_vtab_cursor **ppCur){
  CsCursor *c = sqlite3_malloc(sizeof(*c));
  if( !c ) return SQLITE_NOMEM;
  memset(c, 0, sizeof(*c));
  c->vt = (CsVtab*)tab;
  c->f.fd = -1;
  c->eof = 1;
  *ppCur = &c->base;
  return SQLITE_OK;
}

static void cs_reset(CsCursor *c){
  if( c->fopen ){ sq_file_close(&c->f); c->fopen = 0; }
  sqlite3_free(c->zFile); c->zFile = 0;
  sqlite3_free(c->zOptions); c->zOptions = 0;
  sqlite3_free(c->zErr); c->zErr = 0;
  sqlite3_free(c->replay); c->replay = 0;
  c->nreplay = 0;
  c->cbuf = 0;
  cs_opts_free(&c->opt);
  sq_csv_free(c->p); c->p = 0;
  sq_csv_ingest_free(c->d); c->d = 0;
  sq_ingest_free(c->g); c->g = 0;
  c->vals = 0;
  c->nvals = 0;
  c->nkeys = 0;
  c->keys.n = 0;
  if( c->names ) sq_csv_names_clear(c->names);
  c->eof = 1;
}

static int cs_close(sqlite3_vtab_cursor *cur){
  CsCursor *c = (CsCursor*)cur;
  cs_reset(c);
  sq_csv_names_free(c->names);
  sqlite3_free(c->chunk);
  sqlite3_free(c->val.z);
  sqlite3_free(c->keys.z);
  sqlite3_free(c->keyoff);
  sqlite3_free(c->zOnce);
  sqlite3_free(c);
  return SQLITE_OK;
}

static int cs_set_error(CsCursor *c, char *msg){
  sqlite3_vtab *tab = &c->vt->base;
  sqlite3_free(tab->zErrMsg);
  tab->zErrMsg = msg;
  c->eof = 1;
  return SQLITE_ERROR;
}

/* The reader's or driver's error as the statement's error. */
static int cs_input_error(CsCursor *c){
  if( c->zErr ){
    char *m = c->zErr;
    c->zErr = 0;
    return cs_set_error(c, m);
  }
  if( c->d ){
    return cs_set_error(c, cs_error_msg(c->zFile, sq_csv_ingest_error_info(c->d)));
  }else{
    const sq_csv_error *r = sq_csv_error_info(c->p);
    sq_csv_ingest_error x;
    memset(&x, 0, sizeof x);
    x.message = r->message;
    x.line = r->line;
    x.offset = r->offset;
    x.column = r->column;
    x.field = (int64_t)r->field;
    x.record = -1;
    if( !(c->opt.o.header && r->record==0) ) x.name = sq_csv_names_get(c->names, (int)r->field, 0);
    return cs_set_error(c, cs_error_msg(c->zFile, &x));
  }
}

/* Feeds the reader (function) or the driver (typed). */
static int cs_feed(CsCursor *c, const unsigned char *b, size_t n, size_t *used){
  int rc;
  if( c->d ){
    rc = sq_csv_ingest_feed(c->d, b, n);
    *used = sq_csv_ingest_consumed(c->d);
    return rc==SQ_INGEST_ERROR ? 2 : rc==SQ_INGEST_PAUSED ? 1 : 0;
  }
  rc = sq_csv_feed(c->p, b, n);
  *used = sq_csv_consumed(c->p);
  return rc==SQ_CSV_ERROR ? 2 : rc==SQ_CSV_PAUSED ? 1 : 0;
}

static int cs_finish(CsCursor *c){
  if( c->d ) return sq_csv_ingest_finish(c->d)==SQ_INGEST_ERROR;
  return sq_csv_finish(c->p)==SQ_CSV_ERROR;
}

/* Advances to the next row (or EOF). */
static int cs_advance(CsCursor *c){
  c->row_ready = 0;
  if( c->finished ){ c->eof = 1; return SQLITE_OK; }
  for(;;){
    if( c->cpos<c->clen ){
      size_t used = 0;
      int rc = cs_feed(c, c->cbuf+c->cpos, c->clen-c->cpos, &used);
      if( rc==2 ) return cs_input_error(c);
      c->cpos = rc==1 ? c->cpos+used : c->clen;
      if( c->row_ready ) return SQLITE_OK;
      continue;
    }
    if( c->input_eof ){
      if( cs_finish(c) ) return cs_input_error(c);
      c->finished = 1;
      if( c->row_ready ) return SQLITE_OK;
      c->eof = 1;
      return SQLITE_OK;
    }
    if( c->replay && c->cbuf!=c->replay ){
      /* the bytes inference read from this pipe come first (fed from their
      ** own buffer: it may be smaller than a chunk) */
      c->cbuf = c->replay;
      c->clen = c->nreplay;
      c->cpos = 0;
      continue;
    }
    {
      int rc = SQLITE_OK;
      char *why = 0;
      sqlite3_int64 n;
      if( c->replay ){
        sqlite3_free(c->replay);
        c->replay = 0;
        c->nreplay = 0;
      }
      if( !c->chunk ){
        c->chunk = sqlite3_malloc(CS_CHUNK);
        if( !c->chunk ) return SQLITE_NOMEM;
      }
      n = sq_file_read(&c->f, c->chunk, CS_CHUNK, &rc, &why);
      if( n<0 ){
        c->eof = 1;
        if( rc==SQLITE_INTERRUPT ) return SQLITE_INTERRUPT;
        rc = cs_set_error(c, cs_file_msg(c->zFile, why ? why : "read error"));
        sqlite3_free(why);
        return rc;
      }
      if( n==0 ) c->input_eof = 1;
      c->cbuf = c->chunk;
      c->clen = (size_t)n;
      c->cpos = 0;
    }
  }
}

/* One column=header name of keys= into the core. */
static char *cs_map_key(void *ctx, const char *z, int n){
  sq_ingest *g = (sq_ingest*)ctx;
  char *col, *key, *err = 0;
  if( sq_arg_keyvalue(z, n, &col, &key) ) return sqlite3_mprintf("csv_stream: out of memory");
  if( sq_ingest_map_key(g, key, -1, col, -1)!=SQ_INGEST_OK ){
    err = sqlite3_mprintf("csv_stream: keys: %s", sq_ingest_error_info(g)->message);
  }
  sqlite3_free(col);
  sqlite3_free(key);
  return err;
}

/* The typed table's core and driver for one scan. */
static int cs_make_driver(CsCursor *c){
  CsVtab *vt = c->vt;
  sq_csv_options o = vt->opt.o;
  int i;
  o.max_field = (size_t)c->max_rec;
  c->g = sq_ingest_new(cs_row, c);
  if( !c->g ) return SQLITE_NOMEM;
  for(i=0; i<vt->nCol; i++){
    if( sq_ingest_add_column(c->g, vt->aCol[i].name, -1, vt->aCol[i].type, -1, 0)<0 ){
      return cs_set_error(c, sqlite3_mprintf("csv_stream: bad column '%s'", vt->aCol[i].name));
    }
  }
  if( vt->opt.keys ){
    char *err = sq_arg_split(vt->opt.keys, "csv_stream: keys", cs_map_key, c->g);
    if( err ) return cs_set_error(c, err);
  }
  sq_ingest_set_strict(c->g, vt->opt.strict);
  sq_ingest_set_max_record(c->g, c->max_rec);
  c->d = sq_csv_ingest_new(c->g, &o);
  if( !c->d ) return SQLITE_NOMEM;
  for(i=0; i<vt->nCol; i++){
    if( vt->aCol[i].inferred
        && sq_csv_ingest_require(c->d, i, vt->aCol[i].inferred, vt->inferred_from)!=SQ_INGEST_OK ){
      return SQLITE_NOMEM;
    }
  }
  return SQLITE_OK;
}

static int cs_filter(sqlite3_vtab_cursor *cur, int idxNum, const char *idxStr,
                     int argc, sqlite3_value **argv){
  CsCursor *c = (CsCursor*)cur;
  CsVtab *vt = c->vt;
  const char *zFile = 0, *zOpt = 0;
  char *why = 0;
  int n = 0, rc;
  (void)idxStr; (void)argc;
  cs_reset(c);
  c->max_rec = cs_max_record(vt->db);
  if( vt->typed ){
    zFile = vt->opt.file;
  }else{
    if( idxNum & 1 ) zFile = (const char*)sqlite3_value_text(argv[n++]);
    if( idxNum & 2 ) zOpt = (const char*)sqlite3_value_text(argv[n++]);
    if( !(idxNum & 1) ){
      return cs_set_error(c, sqlite3_mprintf("csv_stream: missing the filename argument: "
                                             "csv_stream(filename [, options])"));
    }
    if( !zFile || ((idxNum & 2) && !zOpt) ){
      return cs_set_error(c, sqlite3_mprintf("csv_stream: the %s argument is NULL",
                                             zFile ? "options" : "filename"));
    }
    /* a NUL would cut the name open() sees: another file than the one asked for */
    if( (int)strlen(zFile)!=sqlite3_value_bytes(argv[0])
        || ((idxNum & 2) && (int)strlen(zOpt)!=sqlite3_value_bytes(argv[1])) ){
      sqlite3_str *m = sqlite3_str_new(0);
      int isOpt = (int)strlen(zFile)==sqlite3_value_bytes(argv[0]);
      sqlite3_value *v = argv[isOpt ? 1 : 0];
      sqlite3_str_appendf(m, "csv_stream: the %s argument contains a NUL byte: ",
                          isOpt ? "options" : "filename");
      sq_str_value(m, (const char*)sqlite3_value_text(v), sqlite3_value_bytes(v), 1);
      return cs_set_error(c, sqlite3_str_finish(m));
    }
  }
  c->zFile = sqlite3_mprintf("%s", zFile);
  c->zOptions = zOpt ? sqlite3_mprintf("%s", zOpt) : 0;
  if( !c->zFile || (zOpt && !c->zOptions) ) return SQLITE_NOMEM;
  c->input_eof = c->finished = 0;
  c->clen = c->cpos = 0;
  c->row_ready = 0;
  c->eof = 0;
  if( vt->typed ){
    rc = cs_make_driver(c);
    if( rc!=SQLITE_OK ) return rc;
    c->opt.o = vt->opt.o;
    c->opt.o.null_text = 0;
  }else{
    const char *why_opt = 0;
    cs_opts_init(&c->opt);
    if( zOpt ){
      CsOptCtx x;
      char *err;
      x.p = &c->opt;
      x.typed = 0;
      err = sq_arg_split(zOpt, "csv_stream: options", cs_option_part, &x);
      if( err ) return cs_set_error(c, err);
    }
    c->opt.o.max_field = (size_t)c->max_rec;
    if( !c->names ){
      c->names = sq_csv_names_new();
      if( !c->names ) return SQLITE_NOMEM;
    }
    c->p = sq_csv_new(cs_tvf_event, c);
    if( !c->p ) return SQLITE_NOMEM;
    rc = sq_csv_options_apply(c->p, &c->opt.o, &why_opt);
    if( rc==2 ) return SQLITE_NOMEM;
    if( rc ) return cs_set_error(c, sqlite3_mprintf("csv_stream: %s", why_opt));
  }
  if( (vt->typed && vt->read_once) || (c->zOnce && strcmp(c->zOnce, zFile)==0) ){
    return cs_set_error(c, cs_file_msg(zFile, SQ_FILE_READ_ONCE));
  }
  if( vt->typed && vt->has_pending ){
    /* the first scan of a pipe continues where inference stopped */
    vt->read_once = 1;
    sqlite3_free(c->zOnce);
    c->zOnce = sqlite3_mprintf("%s", zFile);
    c->f = vt->pending;
    c->fopen = 1;
    c->replay = vt->sample;
    c->nreplay = vt->nsample;
    vt->has_pending = 0;
    vt->sample = 0;
    vt->nsample = 0;
    return cs_advance(c);
  }
  if( sq_file_open(&c->f, vt->db, zFile, &why)!=SQLITE_OK ){
    rc = cs_set_error(c, cs_file_msg(zFile, why ? why : "cannot open"));
    sqlite3_free(why);
    return rc;
  }
  c->fopen = 1;
  if( !c->f.regular ){
    if( vt->typed ) vt->read_once = 1;
    sqlite3_free(c->zOnce);
    c->zOnce = sqlite3_mprintf("%s", zFile);
  }
  return cs_advance(c);
}

static int cs_next(sqlite3_vtab_cursor *cur){
  return cs_advance((CsCursor*)cur);
}

static int cs_eof(sqlite3_vtab_cursor *cur){
  return ((CsCursor*)cur)->eof;
}

static int cs_column(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int i){
  CsCursor *c = (CsCursor*)cur;
  if( c->vt->typed ){
    const sq_ingest_value *v;
    if( i<0 || i>=c->nvals ) return SQLITE_OK;
    v = &c->vals[i];
    switch( v->type ){
      case SQ_INGEST_V_INTEGER: sqlite3_result_int64(ctx, v->i); break;
      case SQ_INGEST_V_REAL: sqlite3_result_double(ctx, v->r); break;
      case SQ_INGEST_V_TEXT:
        sqlite3_result_text64(ctx, v->text, (sqlite3_uint64)v->len, SQLITE_TRANSIENT, SQLITE_UTF8);
        break;
      case SQ_INGEST_V_JSON:
        sqlite3_result_text64(ctx, v->text, (sqlite3_uint64)v->len, SQLITE_TRANSIENT, SQLITE_UTF8);
        sqlite3_result_subtype(ctx, CS_SUBTYPE);
        break;
      default: break;   /* NULL */
    }
    return SQLITE_OK;
  }
  switch( i ){
    case CS_COL_VALUE:
      sqlite3_result_text64(ctx, c->val.n ? c->val.z : "", (sqlite3_uint64)c->val.n,
                            SQLITE_TRANSIENT, SQLITE_UTF8);
      sqlite3_result_subtype(ctx, CS_SUBTYPE);
      break;
    case CS_COL_IDX:    sqlite3_result_int64(ctx, c->idx); break;
    case CS_COL_LINE:   sqlite3_result_int64(ctx, c->line); break;
    case CS_COL_OFFSET: sqlite3_result_int64(ctx, c->offset); break;
    case CS_COL_FILENAME: sqlite3_result_text(ctx, c->zFile, -1, SQLITE_TRANSIENT); break;
    default:
      if( c->zOptions ) sqlite3_result_text(ctx, c->zOptions, -1, SQLITE_TRANSIENT);
      break;
  }
  return SQLITE_OK;
}

static int cs_rowid(sqlite3_vtab_cursor *cur, sqlite_int64 *pRowid){
  *pRowid = ((CsCursor*)cur)->idx;
  return SQLITE_OK;
}

static sqlite3_module cs_module = {
  0,                /* iVersion */
  cs_connect,       /* xCreate: CREATE VIRTUAL TABLE … USING csv_stream(…) */
  cs_connect,       /* xConnect (also the eponymous table-valued function) */
  cs_best_index,
  cs_disconnect,
  cs_disconnect,    /* xDestroy */
  cs_open,
  cs_close,
  cs_filter,
  cs_next,
  cs_eof,
  cs_column,
  cs_rowid,
  0, 0, 0, 0, 0, 0, 0,
  0, 0, 0, 0
};

int sq_csv_register(sqlite3 *db){
  return sqlite3_create_module(db, "csv_stream", &cs_module, 0);
}
