/*
** sq_file_table.h — the file-table driver: one sqlite3_module for every
** table that reads a file named in SQL (json_stream, csv_stream).
**
** The driver (sq_file_table.c) owns what every such table does alike:
**   - the module and the cursor life cycle (connect, disconnect, open,
**     close, filter, next, eof, column, rowid);
**   - the temp-schema rule and SQLITE_VTAB_DIRECTONLY (SECURITY in
**     sq_json_stream.c);
**   - the table-valued function's arguments (FILENAME and a second,
**     format-specific one: missing, NULL, a NUL byte) and its columns
**     value, idx, line, offset and the two hidden arguments;
**   - a typed table's column declaration (columns= or inferred) and its
**     typed values (the ingest core's rows, sq_ingest.h);
**   - the input: opening, 64 KiB reads through sq_file.c (pipes, FIFOs,
**     interrupt checks), "cannot be read twice" for pipes, the bytes a
**     table read when it was made (CSV inference) replayed before the rest;
**   - errors: "NAME: FILE: MESSAGE" for the file, the format's own
**     messages with positions as the statement's error.
**
** A format (sq_json_stream.c, sq_csv_stream.c) gives one sq_ft_format:
** its names, its CREATE options, and a reader for one scan (start, feed
** bytes, finish, the error that stopped it, the value column).  Its vtab
** and cursor structs begin with sq_ft_vtab / sq_ft_cursor (szVtab,
** szCursor say how large they are; the driver allocates and zeroes them).
** A typed table's reader hands its rows to the ingest core made with
** sq_ft_core_new(), which makes them the cursor's current row.
**
** Several files (sq_files.h: a glob or a JSON array of names) are read
** here one after the other, in the order of sq_files_expand: for each
** file the format's reader is ended (xReset, the core freed) and started
** again (xStart), so a format sees one file's bytes per scan of its reader
** (a CSV header per file; line, byte and element counted per file) and
** c->zFile names the file being read.  The column filename names each
** row's file (hidden in the typed tables).
**
** A typed table's scan runs on two threads when more than one CPU is
** online and it is worth it (sq_pipe_worth_it_scan, sq_threads.h: the
** cursor's first scan, of files large enough or a pipe or FIFO; never a
** rescan, such as each scan of a join's inner loop after the first, which
** reads on the query's thread): a worker reads the files, runs the
** format's reader and the core (ft_pipe_run), and the rows, rejects and
** file marks come to xNext in order; the reject table, the budget,
** sqlite3_interrupt() checks, vt's state and the statement's error stay
** on the query's thread.  The formats' callbacks (xStart, xFeed, xFinish,
** xError, xReason, xReset) may so run on the worker: they must not touch
** the connection (c->max_record, not sqlite3_limit).
** STREAMQLITE_THREADS=0 in the environment keeps every scan on the
** query's thread (2: a worker for every scan and rescan whatever the
** size).  The table-valued functions always read on the query's thread.
**
** Whatever is added at the input (other sources, several files, rows
** skipped on error) belongs here, once, for both formats: the format sees
** bytes and answers rows.
*/
#ifndef SQ_FILE_TABLE_H
#define SQ_FILE_TABLE_H

#include "sq_internal.h"
#include "sq_ingest.h"
#include "sq_files.h"
#include "sq_reject.h"

#define SQ_FT_CHUNK    (64*1024)    /* one read */
#define SQ_FT_SUBTYPE  74           /* 'J': SQLite's JSON subtype */

typedef struct sq_ft_format sq_ft_format;

/* A typed table's column: as declared in columns= (or inferred). */
typedef struct sq_ft_col {
  char *name;
  char *type;          /* as written ("" for none); the core reads it */
  char *key;           /* the format's: a key this column is fed by, or NULL */
  int inferred;        /* the format's: an inferred kind, 0 when declared */
} sq_ft_col;

/* A pipe read when the table was made (sq_ft_peek_*): its open file and
** the bytes read, for the first scan. */
typedef struct sq_ft_pending {
  int has;
  sq_file file;
  unsigned char *sample;
  size_t nsample;
} sq_ft_pending;

typedef struct sq_ft_vtab {
  sqlite3_vtab base;
  sqlite3 *db;
  const sq_ft_format *fmt;
  int typed;           /* CREATE VIRTUAL TABLE with arguments */
  char *zFile;         /* typed: filename= (the format's options set it) */
  char *zPeek;         /* typed: the first file it names, read when the table is made */
  int nCol;
  sq_ft_col *aCol;     /* typed: the columns */
  int iFileCol;        /* typed: the hidden filename column, or -1 */
  int read_once;       /* typed: a scan has read a pipe, FIFO or terminal */
  /* a pipe read when the table was made (sq_ft_peek_*): its open file and
  ** the bytes read, for the first scan */
  sq_ft_pending pending;
  /* rejecting records (sq_reject.h): on_error='skip' */
  int skip;                 /* on_error='skip' */
  sqlite3_int64 max_errors; /* max_errors=N, or -1: no count limit */
  double max_frac;          /* max_errors=0.F (0 < F < 1), or 0 */
  int max_errors_set;
  char *zRejSchema, *zRejTable;   /* reject_table='[schema.]name' */
} sq_ft_vtab;

typedef struct sq_ft_cursor {
  sqlite3_vtab_cursor base;
  sq_ft_vtab *vt;
  sq_file file;
  int fopen;
  char *zOnce;                /* a pipe, FIFO or terminal this cursor has read */
  sq_files files;             /* the files the filename names, read in this order */
  int iFile;                  /* files.a[iFile] is being read */
  const char *zFile;          /* that file (for messages and the filename column) */
  sqlite3_int64 rowid;        /* rows so far, all files */
  char *zArg;                 /* the function's second argument, or NULL */
  sqlite3_int64 max_record;   /* 64 MiB or SQLITE_LIMIT_LENGTH, the smaller */
  unsigned char *chunk;
  const unsigned char *cbuf;  /* the data being fed: chunk, or a replayed sample */
  size_t clen, cpos;
  unsigned char *replay;      /* a sample to feed before reading (owned) */
  size_t nreplay;
  int input_eof;              /* read() returned 0 */
  int finished;               /* the reader's finish done */
  int eof;                    /* no current row */
  int row_ready;              /* the reader handed over a row */
  sqlite3_int64 idx, line, offset;   /* the current row */
  sq_ingest *g;               /* the ingest core of this scan, or NULL (freed by the driver) */
  const sq_ingest_value *vals;       /* a typed row's values (valid until the next feed) */
  int nval;
  sq_reject_sink *rejSink;    /* the reject table (on_error='skip') */
  sq_reject_budget rejBudget; /* max_errors */
  char *zRejErr;              /* why the scan stopped in the reject path (owned) */
  /* the second core (sq_pipe.h): a typed scan's reading, parsing and
  ** converting on a worker thread.  The reading state above (file, fopen,
  ** zOnce, iFile, zFile, chunk to finished, g, the format's reader) is
  ** then the worker's until it is joined; the current row (rowid, eof,
  ** idx, line, offset, vals, nval, zRowFile) the query's */
  struct sq_pipe *pipe;       /* NULL: the scan is read on the caller's thread */
  const char *zRowFile;       /* pipe: the current row's file */
  sq_ft_pending claim;        /* pipe: vt's pending pipe, taken for this scan */
  char *zClaim;               /* its name (vt->zPeek) */
  int nscan;                  /* xFilter calls: a rescan (a join's inner loop) reads here */
} sq_ft_cursor;

/* Feed results. */
#define SQ_FT_DONE    0   /* all bytes taken */
#define SQ_FT_PAUSED  1   /* a row is ready; *used bytes taken */
#define SQ_FT_ERROR   2   /* xError says what */

struct sq_ft_format {
  const char *zName;          /* "json_stream": the module, and every message's prefix */
  const char *zArg;           /* the function's second argument ("path"), its hidden column:
                              ** value, idx, line, offset, filename HIDDEN, <zArg> HIDDEN */
  const char *zBadColumns;    /* "bad columns=": when SQLite refuses the declaration */
  int plainTableNames;        /* the temp-schema error writes names as they are */
  size_t szVtab, szCursor;    /* the format's structs (sq_ft_* first) */
  /* Typed: the CREATE arguments argv[3..] into vt (zFile, aCol: the
  ** columns declared or inferred, checked).  0 or the message. */
  char *(*xConfigure)(sq_ft_vtab *vt, int argc, const char *const *argv);
  void (*xFreeVtab)(sq_ft_vtab *vt);             /* the format's part only; may be 0 */
  /* A scan: the reader for c (c->zFile, c->zArg, c->max_record set).
  ** SQLITE_OK, or an error code with *pzErr the message (or NULL). */
  int (*xStart)(sq_ft_cursor *c, char **pzErr);
  int (*xFeed)(sq_ft_cursor *c, const unsigned char *b, size_t n, size_t *used);
  int (*xFinish)(sq_ft_cursor *c);               /* SQ_FT_DONE or SQ_FT_ERROR */
  /* The error that stopped xFeed/xFinish: the message, or NULL and *rc
  ** (SQLITE_NOMEM). */
  char *(*xError)(sq_ft_cursor *c, int *rc);
  void (*xValue)(sq_ft_cursor *c, sqlite3_context *ctx);  /* function: the value column */
  void (*xReset)(sq_ft_cursor *c);               /* ends the scan's reader (not c->g); may be 0 */
  void (*xCloseCursor)(sq_ft_cursor *c);         /* frees what xReset keeps; may be 0 */
  /* on_error='skip': the reject's reason, as xError would write the same
  ** error ("NAME: FILE: …"); NULL when out of memory. */
  char *(*xReason)(sq_ft_cursor *c, const sq_ingest_reject *r);
};

int sq_ft_register(sqlite3 *db, const sq_ft_format *fmt);

/* The longest record: 64 MiB or SQLITE_LIMIT_LENGTH, whichever is smaller. */
sqlite3_int64 sq_ft_max_record(sqlite3 *db);

/* One more column (takes name and type; NULL when out of memory, both freed). */
sq_ft_col *sq_ft_add_column(sq_ft_vtab *vt, char *name, char *type);

/* "NAME: FILE: MSG" (the file name as sq_str_value writes it, unquoted). */
char *sq_ft_file_msg(const sq_ft_format *fmt, const char *file, const char *msg);

/* A typed scan's ingest core: its rows become c's current row. */
sq_ingest *sq_ft_core_new(sq_ft_cursor *c);

/* Reading the file when the table is made (CSV inference): the first file
** the filename names (vt->zPeek; its messages name it): open, read
** (a pipe's bytes are kept for the first scan), then done: ok keeps a pipe
** open for the first scan, else it is closed and the bytes dropped. */
int sq_ft_peek_open(sq_ft_vtab *vt, char **pzErr);
sqlite3_int64 sq_ft_peek_read(sq_ft_vtab *vt, unsigned char *buf, size_t n, int *rc, char **pzErr);
void sq_ft_peek_done(sq_ft_vtab *vt, int ok);

/* ---- rejecting records (sq_reject.h) ----------------------------------
** Typed tables take on_error='abort' (default) or 'skip', max_errors=N or
** a fraction, reject_table='[schema.]name'.  A format's option parser
** hands every key it does not know to sq_ft_reject_option first: 0 when
** it is none of these; else 1 with *pzErr NULL or the message.  After the
** options, sq_ft_reject_check (the driver) checks them and the reject
** table before anything is read. */
int sq_ft_reject_option(sq_ft_vtab *vt, const char *key, const char *value, char **pzErr);
#define SQ_FT_REJECT_OPTIONS "on_error, max_errors, reject_table"
char *sq_ft_reject_check(sq_ft_vtab *vt);
/* A scan: creates the reject table when missing, prepares its INSERT. */
int sq_ft_reject_begin(sq_ft_cursor *c, char **pzErr);
/* The core's reject callback (user: the cursor); the format installs it. */
int sq_ft_on_reject(void *cursor, const sq_ingest_reject *r);
/* One reject of `file` with its reason into the budget and the table:
** SQ_INGEST_CONTINUE, or 1 with c->zRejErr saying why the scan stops. */
int sq_ft_reject_take(sq_ft_cursor *c, const char *file, const sq_ingest_reject *r, const char *reason);
/* A scan on a worker (c->pipe): the reject travels to the caller's thread. */
int sq_ft_pipe_reject(sq_ft_cursor *c, const sq_ingest_reject *r, const char *reason);
/* The input ended after `records` records: the fraction budget; SQLITE_OK
** or the error (zRejErr). */
int sq_ft_reject_end(sq_ft_cursor *c, sqlite3_int64 records);
void sq_ft_reject_reset(sq_ft_cursor *c);
void sq_ft_reject_free(sq_ft_vtab *vt);
/* The table-valued functions refuse these options (why: sq_file_table.c): the
** message when key[0..nkey) is one of them, else NULL. */
char *sq_ft_reject_function_option(const char *zName, const char *key, int nkey);

#endif
