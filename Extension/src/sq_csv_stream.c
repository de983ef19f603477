/*
** sq_csv_stream.c — csv_stream: CSV files of any size into rows, in
** constant memory, with StreamQLite's incremental reader (sq_csv.h) and,
** for typed columns, the ingest core (sq_ingest.h, sq_csv_ingest.h).  The
** file-table driver (sq_file_table.h) reads the file and answers SQLite, as
** for json_stream; this file gives the CSV parts.
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
**   FILENAME may name several files (sq_files.h): a glob ('day-*.csv',
**   the matches sorted by name; matching nothing is an error) or a JSON
**   array of names ('["a.csv", "b.csv"]'), read one after the other: each
**   file has its own header, idx/line/offset count within it, the hidden
**   column filename names each row's file, and errors name the file.
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
**       strict=0,                                -- all optional
**       on_error=skip, reject_table=bad_stops, max_errors=100   -- optional
**   );
**   INSERT INTO stops SELECT * FROM incoming;
**
**   With several files (filename= a glob or a list), each file's header
**   is matched to the columns by name as below, and the hidden column
**   filename (unless a column has that name) names each row's file.
**
**   on_error='skip': bad records (a value strict mode refuses, another
**   field count) go to reject_table instead of stopping the statement
**   (sq_reject.h, sq_ingest.h REJECTING RECORDS; docs/sql/rejects.md).
**   The function form takes none of these options (an error says why:
**   sq_file_table.c, sq_ft_reject_function_option).
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
**       text; what does not fit is kept as text (strict=1: an error; with
**       on_error='skip' a reject, unless strict=0 is said)
**
**   Without columns=, the columns are the header names (or c1, c2, … with
**   header=0) and their types are inferred from the first records
**   (infer=N, default 1000, and at most the first 16 MiB), by the rule of
**   sq_csv_ingest.h (TYPE INFERENCE): INTEGER when every value is an
**   integer written canonically ('007' is not: a ZIP code stays TEXT),
**   REAL when every value is a decimal number a REAL holds (its nearest
**   double, whatever its digits) or an integer a double holds exactly,
**   else TEXT (dates too).  A later value that does not fit its inferred
**   column is an error naming its line, byte and field — never a silently
**   changed value; declare columns= to accept it.  With on_error='skip',
**   a record of another field count among the first records is left out
**   of the inference (its values type nothing; the scan rejects it like
**   any other); inside the sample no value is bad — one that does not fit
**   a type makes its column TEXT — and what stops a scan (broken quoting,
**   invalid UTF-8) stops the CREATE.  Inference reads the
**   file's start (the first file, with several) when the table is created
**   (and again if SQLite reconnects it); from a pipe, FIFO or /dev/stdin, the bytes read then
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
#include "sq_file_table.h"
#include "sq_csv.h"
#include "sq_csv_ingest.h"
#include "sq_json_ingest.h"   /* the one JSON string escaper (records as JSON objects) */

#include <string.h>

/* The driver (sq_file_table.c) runs the table; this file gives the CSV
** parts: the options, inference, the reader for a scan, the value column. */

/* ------------------------------------------------------------ options */

typedef struct CsOpts {
  sq_csv_options o;
  char *null_text;
  char *file;            /* typed: filename= */
  char *columns;         /* typed: columns= */
  char *keys;            /* typed: keys= */
  int strict;
  int infer;
  sq_ft_vtab *ft;        /* typed: the table (on_error=, …: sq_ft_reject_option) */
} CsOpts;

static void cs_opts_init(CsOpts *p){
  memset(p, 0, sizeof(*p));
  sq_csv_options_init(&p->o);
  p->strict = -1;            /* not said: lenient, or the values' strictness with on_error='skip' */
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
  return sq_err_msg(sqlite3_str_finish(m));
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
    char *m = 0;
    if( typed && p->ft && sq_ft_reject_option(p->ft, key, value, &m) ){
      sqlite3_free(value);
      return m;
    }
    if( !typed && (m = sq_ft_reject_function_option("csv_stream", key, (int)strlen(key)))!=0 ){
      sqlite3_free(value);
      return m;
    }
    m = sqlite3_mprintf("csv_stream: unknown option '%s' (expected %s)", key,
        typed ? "filename, columns, keys, header, delimiter, quote, null, empty, ragged, strict, infer, "
                SQ_FT_REJECT_OPTIONS
              : "header, delimiter, quote, null, empty, ragged");
    sqlite3_free(value);
    return sq_err_msg(m);
  }
  sqlite3_free(value);
  if( p->o.delimiter==p->o.quote ){
    return sq_err_msg(sqlite3_mprintf("csv_stream: the delimiter and the quote are the same character '%c'",
                                  p->o.delimiter));
  }
  return 0;
}

typedef struct CsOptCtx { CsOpts *p; int typed; } CsOptCtx;

static char *cs_option_part(void *ctx, const char *z, int n){
  CsOptCtx *x = (CsOptCtx*)ctx;
  char *key, *value, *err;
  int rc = sq_arg_keyvalue(z, n, &key, &value);
  if( rc==1 ) return sq_err_msg(sqlite3_mprintf("csv_stream: expected key=value, got '%.*s'", n, z));
  if( rc==3 || rc==4 ) return sq_err_msg(sqlite3_mprintf("csv_stream: option '%.*s': %s", n, z, sq_arg_value_error(rc)));
  if( rc ) return SQ_ERR_NOMEM;
  err = cs_option(x->p, key, value, x->typed);
  sqlite3_free(key);
  return err;
}

/* ------------------------------------------------------------ vtab */

typedef struct CsVtab {
  sq_ft_vtab ft;       /* zFile, aCol (inferred: SQ_CSV_T_* when inferred) */
  CsOpts opt;          /* typed: the CREATE arguments */
  int64_t inferred_from;
} CsVtab;

static void cs_free_vtab(sq_ft_vtab *p){
  cs_opts_free(&((CsVtab*)p)->opt);
}

static char *cs_add_column(void *ctx, const char *z, int n){
  sq_ft_vtab *vt = (sq_ft_vtab*)ctx;
  char *name, *type;
  int rc = sq_arg_column(z, n, &name, &type);
  if( rc==1 || rc==5 ){
    return sq_err_msg(sqlite3_mprintf("csv_stream: bad column definition '%.*s': %s", n, z, sq_arg_column_error(rc)));
  }
  if( rc || !sq_ft_add_column(vt, name, type) ) return SQ_ERR_NOMEM;
  return 0;
}

/* keys='col=Header Name, …' are checked when the table is made (the core
** maps them again for each scan). */
static char *cs_check_key(void *ctx, const char *z, int n){
  sq_ft_vtab *vt = (sq_ft_vtab*)ctx;
  char *col, *key;
  int i, rc = sq_arg_keyvalue(z, n, &col, &key);
  if( rc==1 ) return sq_err_msg(sqlite3_mprintf("csv_stream: keys: expected column=header name, got '%.*s'", n, z));
  if( rc==3 || rc==4 ) return sq_err_msg(sqlite3_mprintf("csv_stream: keys: '%.*s': %s", n, z, sq_arg_value_error(rc)));
  if( rc ) return SQ_ERR_NOMEM;
  for(i=0; i<vt->nCol; i++) if( sqlite3_stricmp(vt->aCol[i].name, col)==0 ) break;
  sqlite3_free(key);
  if( i<vt->nCol ){ sqlite3_free(col); return 0; }
  {
    char *err = sq_err_msg(sqlite3_mprintf("csv_stream: keys: no column named '%s'", col));
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

/* Infers the columns from the file's first records (no columns=); a
** pipe's bytes read here are kept by the driver for the first scan. */
static char *cs_infer(CsVtab *vt){
  sq_ft_vtab *ft = &vt->ft;
  char *why = 0;
  sq_csv_infer *inf;
  unsigned char *buf;
  int rc = SQLITE_OK, irc = SQ_INGEST_OK, i;
  sq_csv_options o = vt->opt.o;
  o.max_field = (size_t)sq_ft_max_record(ft->db);
  if( sq_ft_peek_open(ft, &why)!=SQLITE_OK ) return why;
  inf = sq_csv_infer_new(&o, vt->opt.infer);
  if( inf && ft->skip ) sq_csv_infer_skip_bad(inf);
  buf = sqlite3_malloc(SQ_FT_CHUNK);
  if( !inf || !buf ){
    sq_csv_infer_free(inf); sqlite3_free(buf); sq_ft_peek_done(ft, 0);
    return SQ_ERR_NOMEM;
  }
  for(;;){
    sqlite3_int64 n = sq_ft_peek_read(ft, buf, SQ_FT_CHUNK, &rc, &why);
    if( n<0 ) break;
    if( n==0 ){ irc = sq_csv_infer_finish(inf); break; }
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
    else if( rc==SQLITE_NOMEM ) m = 0;
    else if( rc!=SQLITE_OK ) m = sq_ft_file_msg(ft->fmt, ft->zPeek, why ? why : "read error");
    else m = cs_error_msg(ft->zPeek, sq_csv_infer_error(inf));
    sqlite3_free(why);
    sq_csv_infer_free(inf);
    sq_ft_peek_done(ft, 0);
    return sq_err_msg(m);
  }
  for(i=0; i<sq_csv_infer_count(inf); i++){
    int t = sq_csv_infer_type(inf, i);
    sq_ft_col *col = sq_ft_add_column(ft, sqlite3_mprintf("%s", sq_csv_infer_name(inf, i)),
                                      sqlite3_mprintf("%s", sq_csv_type_name(t)));
    if( !col ){ sq_csv_infer_free(inf); sq_ft_peek_done(ft, 0); return SQ_ERR_NOMEM; }
    col->inferred = t;
  }
  vt->inferred_from = sq_csv_infer_records(inf);
  sq_csv_infer_free(inf);
  sq_ft_peek_done(ft, 1);
  return 0;
}

/* The CREATE arguments (cs_option, typed) and the columns. */
static char *cs_configure(sq_ft_vtab *p, int argc, const char *const *argv){
  CsVtab *vt = (CsVtab*)p;
  char *err = 0;
  int i;
  cs_opts_init(&vt->opt);
  vt->opt.ft = p;
  for(i=3; i<argc && !err; i++){
    CsOptCtx x;
    x.p = &vt->opt;
    x.typed = 1;
    err = cs_option_part(&x, argv[i], (int)strlen(argv[i]));
  }
  p->zFile = vt->opt.file;       /* the driver's from here */
  vt->opt.file = 0;
  if( !err && !p->zFile ) err = sq_err_msg(sqlite3_mprintf("csv_stream: missing filename= option"));
  if( !err && vt->opt.columns ){
    err = sq_arg_split(vt->opt.columns, "csv_stream: columns", cs_add_column, p);
    if( !err && p->nCol==0 ) err = sq_err_msg(sqlite3_mprintf("csv_stream: columns= declares no column"));
  }else if( !err ){
    err = cs_infer(vt);
  }
  if( !err && vt->opt.keys ) err = sq_arg_split(vt->opt.keys, "csv_stream: keys", cs_check_key, p);
  /* asking for rejects: a value that does not fit its column is one (unless strict=0) */
  if( vt->opt.strict<0 ) vt->opt.strict = p->skip ? SQ_INGEST_STRICT_VALUES : 0;
  return err;
}

/* ------------------------------------------------------------ cursor */

typedef sq_ingest_buf CsBuf;   /* the ingest core's buffer (sq_ingest.h) */

typedef struct CsCursor {
  sq_ft_cursor ft;            /* g: the typed table's core */
  CsOpts opt;                 /* the function's options */
  char *zErr;                 /* set by a callback that aborts */

  /* table-valued function */
  sq_csv_parser *p;
  sq_csv_names *names;
  CsBuf val;                  /* the record's JSON object */
  CsBuf keys;                 /* the escaped keys, "name": each */
  sqlite3_int64 *keyoff;      /* keyoff[i]..keyoff[i+1]: key i in keys */
  int nkeys, capkeys;

  /* typed table */
  sq_csv_ingest *d;
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
  if( !c->zErr ) c->zErr = cs_error_msg(c->ft.zFile, &x);
  return 2;
}

static int cs_buf_fail(CsCursor *c, const sq_csv_event *e, int rc){
  if( rc==1 ){
    char m[96];
    sqlite3_snprintf(sizeof m, m, "record larger than %lld bytes", c->ft.max_record);
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
    rc = sq_ingest_json_string(&c->keys, z, n, c->ft.max_record);
    if( !rc ) rc = sq_ingest_buf_put(&c->keys, ":", 1, c->ft.max_record);
    if( rc ) return cs_buf_fail(c, e, rc);
    c->nkeys++;
    c->keyoff[c->nkeys] = c->keys.n;
  }
  return 0;
}

static int cs_tvf_event(void *u, const sq_csv_event *e){
  CsCursor *c = (CsCursor*)u;
  sqlite3_int64 max = c->ft.max_record;
  int rc;
  if( e->type==SQ_CSV_FIELD ){
    if( e->flags & SQ_CSV_F_HEADER ){
      int64_t dup = -1;
      rc = sq_csv_names_add(c->names, e, &dup);
      if( rc==1 ){
        sq_csv_ingest_error x;
        char buf[512];
        sq_csv_names_error(c->names, e, dup, &x, buf, sizeof buf);
        if( !c->zErr ) c->zErr = cs_error_msg(c->ft.zFile, &x);
        return 2;
      }
      if( rc ) return cs_fail(c, e, "out of memory");
      return SQ_CSV_CONTINUE;
    }
    if( e->field>=32767 ) return cs_fail(c, e, "more than 32767 fields");
    if( (rc = cs_key(c, e, (int)e->field))!=0 ) return rc;
    if( e->field==0 ){
      c->val.n = 0;
      c->ft.line = (sqlite3_int64)e->line;
      c->ft.offset = (sqlite3_int64)e->offset;
      rc = sq_ingest_buf_put(&c->val, "{", 1, max);
    }else{
      rc = sq_ingest_buf_put(&c->val, ",", 1, max);
    }
    if( !rc ) rc = sq_ingest_buf_put(&c->val, c->keys.z + c->keyoff[e->field],
                             c->keyoff[e->field+1] - c->keyoff[e->field], max);
    if( !rc ){
      if( e->flags & SQ_CSV_F_NULL ) rc = sq_ingest_buf_put(&c->val, "null", 4, max);
      else rc = sq_ingest_json_string(&c->val, e->text, e->len, max);
    }
    if( rc ) return cs_buf_fail(c, e, rc);
    return SQ_CSV_CONTINUE;
  }
  if( (e->record==0 && c->opt.o.header) || e->field==0 ) return SQ_CSV_CONTINUE;
  if( (rc = sq_ingest_buf_put(&c->val, "}", 1, max))!=0 ) return cs_buf_fail(c, e, rc);
  c->ft.idx = (sqlite3_int64)e->record - (c->opt.o.header ? 1 : 0);
  c->ft.row_ready = 1;
  return SQ_CSV_PAUSE;
}

static void cs_reset(sq_ft_cursor *p){
  CsCursor *c = (CsCursor*)p;
  sqlite3_free(c->zErr); c->zErr = 0;
  cs_opts_free(&c->opt);
  sq_csv_free(c->p); c->p = 0;
  sq_csv_ingest_free(c->d); c->d = 0;
  c->nkeys = 0;
  c->keys.n = 0;
  if( c->names ) sq_csv_names_clear(c->names);
}

static void cs_close_cursor(sq_ft_cursor *p){
  CsCursor *c = (CsCursor*)p;
  sq_csv_names_free(c->names);
  sqlite3_free(c->val.z);
  sqlite3_free(c->keys.z);
  sqlite3_free(c->keyoff);
}

/* The reader's or driver's error. */
static char *cs_error(sq_ft_cursor *p, int *rc){
  CsCursor *c = (CsCursor*)p;
  (void)rc;
  if( c->zErr ){
    char *m = c->zErr;
    c->zErr = 0;
    return m;
  }
  if( c->d ){
    return cs_error_msg(c->ft.zFile, sq_csv_ingest_error_info(c->d));
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
    return cs_error_msg(c->ft.zFile, &x);
  }
}

/* Feeds the reader (function) or the driver (typed). */
static int cs_feed(sq_ft_cursor *p, const unsigned char *b, size_t n, size_t *used){
  CsCursor *c = (CsCursor*)p;
  int rc;
  if( c->d ){
    rc = sq_csv_ingest_feed(c->d, b, n);
    *used = sq_csv_ingest_consumed(c->d);
    return rc==SQ_INGEST_ERROR ? SQ_FT_ERROR : rc==SQ_INGEST_PAUSED ? SQ_FT_PAUSED : SQ_FT_DONE;
  }
  rc = sq_csv_feed(c->p, b, n);
  *used = sq_csv_consumed(c->p);
  return rc==SQ_CSV_ERROR ? SQ_FT_ERROR : rc==SQ_CSV_PAUSED ? SQ_FT_PAUSED : SQ_FT_DONE;
}

static int cs_finish(sq_ft_cursor *p){
  CsCursor *c = (CsCursor*)p;
  if( c->d ) return sq_csv_ingest_finish(c->d)==SQ_INGEST_ERROR ? SQ_FT_ERROR : SQ_FT_DONE;
  return sq_csv_finish(c->p)==SQ_CSV_ERROR ? SQ_FT_ERROR : SQ_FT_DONE;
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
static int cs_make_driver(CsCursor *c, char **pzErr){
  CsVtab *vt = (CsVtab*)c->ft.vt;
  sq_ft_vtab *ft = &vt->ft;
  sq_csv_options o = vt->opt.o;
  int i;
  o.max_field = (size_t)c->ft.max_record;
  c->ft.g = sq_ft_core_new(&c->ft);
  if( !c->ft.g ) return SQLITE_NOMEM;
  for(i=0; i<ft->nCol; i++){
    if( sq_ingest_add_column(c->ft.g, ft->aCol[i].name, -1, ft->aCol[i].type, -1, 0)<0 ){
      if( sq_ingest_error_info(c->ft.g)->code==SQ_INGEST_E_NOMEM ) return SQLITE_NOMEM;
      *pzErr = sqlite3_mprintf("csv_stream: bad column '%s'", ft->aCol[i].name);
      return SQLITE_ERROR;
    }
  }
  if( vt->opt.keys ){
    char *err = sq_arg_split(vt->opt.keys, "csv_stream: keys", cs_map_key, c->ft.g);
    if( err ){ *pzErr = err; return SQLITE_ERROR; }
  }
  sq_ingest_set_strict(c->ft.g, vt->opt.strict);
  sq_ingest_set_max_record(c->ft.g, c->ft.max_record);
  c->d = sq_csv_ingest_new(c->ft.g, &o);
  if( !c->d ) return SQLITE_NOMEM;
  if( ft->skip ) sq_csv_ingest_set_reject_callback(c->d, sq_ft_on_reject, &c->ft);
  for(i=0; i<ft->nCol; i++){
    if( ft->aCol[i].inferred
        && sq_csv_ingest_require(c->d, i, ft->aCol[i].inferred, vt->inferred_from)!=SQ_INGEST_OK ){
      return SQLITE_NOMEM;
    }
  }
  return SQLITE_OK;
}

/* A scan: the typed table's driver, or the function's options and reader. */
static int cs_start(sq_ft_cursor *p, char **pzErr){
  CsCursor *c = (CsCursor*)p;
  CsVtab *vt = (CsVtab*)p->vt;
  const char *why_opt = 0;
  int rc;
  if( p->vt->typed ){
    rc = cs_make_driver(c, pzErr);
    if( rc!=SQLITE_OK ) return rc;
    c->opt.o = vt->opt.o;
    c->opt.o.null_text = 0;
    return SQLITE_OK;
  }
  cs_opts_init(&c->opt);
  if( p->zArg ){
    CsOptCtx x;
    x.p = &c->opt;
    x.typed = 0;
    *pzErr = sq_arg_split(p->zArg, "csv_stream: options", cs_option_part, &x);
    if( *pzErr ) return SQLITE_ERROR;
  }
  c->opt.o.max_field = (size_t)p->max_record;
  if( !c->names ){
    c->names = sq_csv_names_new();
    if( !c->names ) return SQLITE_NOMEM;
  }
  c->p = sq_csv_new(cs_tvf_event, c);
  if( !c->p ) return SQLITE_NOMEM;
  rc = sq_csv_options_apply(c->p, &c->opt.o, &why_opt);
  if( rc==2 ) return SQLITE_NOMEM;
  if( rc ){ *pzErr = sqlite3_mprintf("csv_stream: %s", why_opt); return SQLITE_ERROR; }
  return SQLITE_OK;
}

/* A reject's reason: the message the same error stops the scan with. */
static char *cs_reason(sq_ft_cursor *p, const sq_ingest_reject *r){
  sqlite3_str *m = sqlite3_str_new(0);
  sqlite3_str_appendall(m, "csv_stream: ");
  sq_str_value(m, p->zFile, (sqlite3_int64)strlen(p->zFile), 0);
  sqlite3_str_appendf(m, ": %s", r->reason ? r->reason : r->error->message);
  return sqlite3_str_finish(m);
}

/* The function's value: the record as a JSON object. */
static void cs_value(sq_ft_cursor *p, sqlite3_context *ctx){
  CsCursor *c = (CsCursor*)p;
  sqlite3_result_text64(ctx, c->val.n ? c->val.z : "", (sqlite3_uint64)c->val.n,
                        SQLITE_TRANSIENT, SQLITE_UTF8);
  sqlite3_result_subtype(ctx, SQ_FT_SUBTYPE);
}

static const sq_ft_format cs_format = {
  .zName = "csv_stream",
  .zArg = "options",
  .zBadColumns = "bad columns",
  .plainTableNames = 1,
  .szVtab = sizeof(CsVtab),
  .szCursor = sizeof(CsCursor),
  .xConfigure = cs_configure,
  .xFreeVtab = cs_free_vtab,
  .xStart = cs_start,
  .xFeed = cs_feed,
  .xFinish = cs_finish,
  .xError = cs_error,
  .xReason = cs_reason,
  .xValue = cs_value,
  .xReset = cs_reset,
  .xCloseCursor = cs_close_cursor,
};

int sq_csv_register(sqlite3 *db){
  return sq_ft_register(db, &cs_format);
}
