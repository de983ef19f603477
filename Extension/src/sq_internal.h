/*
** Internal declarations shared by the StreamQLite extension's C files.
** Every file of the extension includes this header first: it pulls in
** sqlite3ext.h (or sqlite3.h when compiled into the Swift library with
** SQLITE_CORE) and declares the `sqlite3_api` pointer.
*/
#ifndef SQ_INTERNAL_H
#define SQ_INTERNAL_H

#include "sqlite3ext.h"
SQLITE_EXTENSION_INIT3

#include <stddef.h>

/* Each module registers its SQL functions / virtual tables on `db`
** and returns SQLITE_OK or the first failure. */
int sq_week_register(sqlite3 *db);
int sq_json_register(sqlite3 *db);
int sq_csv_register(sqlite3 *db);

/* 1 when sqlite3_interrupt() was called on db while a statement runs
** (sq_host.c: exact on SQLite 3.41+, a probe statement before). */
int sq_interrupted(sqlite3 *db);
void sq_set_host_stop_check(int (*check)(sqlite3 *db));  /* streamqlite.h */

/* A file named in SQL, read sequentially and interruptibly, gzip and zstd
** decompressed: sq_file.h (public: the Swift library reads files through it). */
#include "sq_file.h"
/* A pipe, FIFO or terminal gives its bytes once: the tables refuse a second
** scan of one (a typed table: any second scan; the table-valued function: a
** cursor scanning the same name again, as the inner side of a join does). */
#define SQ_FILE_READ_ONCE "cannot be read twice: a pipe, FIFO or terminal gives its bytes once, " \
  "and this is a second scan of it (store the rows first: CREATE TEMP TABLE copy AS SELECT …)"

/* Virtual-table arguments (sq_args.c): key=value with an optionally
** quoted value; comma-separated lists; "name TYPE" columns; booleans
** 1/0/true/false/yes/no/on/off.  Returns 0, 1 (malformed), 2 (no memory),
** 3 (an empty value: '' is written for one), 4 (a quote not closed),
** 5 (a column type that names no type); *_error(rc): the words for 1/3/4/5.
** sq_arg_split: an empty item is an error "WHAT: item N is empty in '…'";
** a blank list has no items. */
typedef char *(*sq_arg_part_fn)(void *ctx, const char *part, int n);
char *sq_arg_unquote(const char *z, int n);
int sq_arg_value(const char *z, int n, char **out);
const char *sq_arg_value_error(int rc);
char *sq_arg_split(const char *z, const char *what, sq_arg_part_fn f, void *ctx);
int sq_arg_keyvalue(const char *z, int n, char **key, char **value);
int sq_arg_column(const char *z, int n, char **name, char **type);
const char *sq_arg_column_error(int rc);
int sq_arg_bool(const char *v, int *out);

/* xBestIndex of the file-reading tables (json_stream, csv_stream; sq_args.c):
** a typed table scans; the table-valued function needs its filename column
** (iFileCol) and takes its second hidden argument column (iArgCol) when
** given.  idxNum bits: 1 filename given, 2 second argument given. */
int sq_file_vtab_best_index(sqlite3_index_info *info, int typed, int iFileCol, int iArgCol);

/* Keeps the loaded extension, and libicu with it, in memory until the
** process ends (sq_host.c); a no-op when compiled into a program. */
void sq_pin_module(void);

/* 1 when v[0..n) is valid UTF-8 (sq_text.c). */
int sq_utf8_valid(const char *v, sqlite3_int64 n);

/* A value in an error message (sq_text.c): at most SQ_ECHO_MAX bytes
** of it, invalid UTF-8 and control characters as \xHH; `quoted` adds
** '…' around it (and the length after a cut value). */
#define SQ_ECHO_MAX 200
void sq_str_value(sqlite3_str *s, const char *v, sqlite3_int64 n, int quoted);
/* The same, unquoted, as a new string (sqlite3_free; NULL if out of memory). */
char *sq_value_text(const char *v, sqlite3_int64 n);

/* Error messages returned as `char *`, NULL meaning no error (the option
** and CREATE chains of the file tables, sq_arg_split and its callbacks,
** the reject options).  A message that cannot be allocated must not read
** as success: sq_err_msg(m) is m, or SQ_ERR_NOMEM (a static "out of memory")
** when m is NULL.  sq_err_free() frees either; sq_err_rc() hands one to
** SQLite: SQLITE_NOMEM and no message for SQ_ERR_NOMEM, else SQLITE_ERROR
** and *pzErr = err (sq_text.c). */
extern char sq_err_nomem[];
#define SQ_ERR_NOMEM sq_err_nomem
char *sq_err_msg(char *msg);
void sq_err_free(char *err);
int sq_err_rc(char *err, char **pzErr);

#define SQ_VERSION "0.1.0"

#endif
