/*
** sq_reject.h — rejected records (sq_ingest.h, REJECTING RECORDS) into a
** table, and the error budget: the one implementation behind the typed
** tables' on_error='skip' (json_stream, csv_stream) and the Swift imports'
** onError: .skip.
**
** THE REJECT TABLE
**
**   CREATE TABLE name(file TEXT, line INTEGER, offset INTEGER,
**     record INTEGER, "column" TEXT, reason TEXT, raw TEXT,
**     raw_truncated INTEGER)
**
**   file     the input's name as given (NULL for input in memory)
**   line     1-based line where the record starts
**   offset   0-based byte offset where the record starts (in the input
**            as read: after decompression, if any)
**   record   0-based index of the record among the input's records, rows
**            and rejects alike (CSV: the header not counted) — the idx a
**            row of the same place would have had
**   column   the key (JSON) or header name (CSV) concerned, or NULL
**   reason   the message the same error stops an import with when
**            records are not skipped, position included
**   raw      the record's bytes from its first to its last (a JSON
**            element: to its closing brace; NDJSON and CSV: to the line
**            end, not included), at most 4096 bytes, cut before a UTF-8
**            character, never inside one; a BLOB when they are not UTF-8;
**            NULL when the sq_ingest_reject has none (raw NULL)
**   raw_truncated  1 when raw is shorter than the record
**
** The typed tables make the table when they are made (CREATE VIRTUAL
** TABLE), not while a scan runs; sq_reject_sink_open makes it again when
** it has been dropped since (in schema, e.g. "main" or "temp") and
** prepares its INSERT; an existing table must be a
** table (not a view or a virtual table) with these columns (more columns
** are fine: they get their DEFAULT).  sq_reject_table_check says so
** before anything is read.  Rows are written on the caller's connection,
** in its transaction.
**
** THE BUDGET
**
** max_errors N (a count: at most N records may be rejected; the N+1st
** stops the import) or F (0 < F < 1: at the end of the input, rejected >
** F × records read stops it, records read = rows + rejects).  The message
** names the count and the last reject's reason.
*/
#ifndef SQ_REJECT_H
#define SQ_REJECT_H

#include <sqlite3.h>
#include "sq_ingest.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sq_reject_sink sq_reject_sink;

/* NULL when schema.table is missing or a table with the reject columns;
** else the message ("reject_table main.v is a view, not a table"), or
** SQ_ERR_NOMEM (sq_internal.h) when out of memory; free with sq_err_free. */
char *sq_reject_table_check(sqlite3 *db, const char *schema, const char *table);
/* CREATE TABLE IF NOT EXISTS schema.table with the reject columns: an
** SQLite result code (the connection's message says what failed). */
int sq_reject_table_make(sqlite3 *db, const char *schema, const char *table);
/* Checks, creates when missing, prepares.  NULL and *pzErr on error. */
sq_reject_sink *sq_reject_sink_open(sqlite3 *db, const char *schema, const char *table, char **pzErr);
/* One reject (reason: its message).  SQLITE_OK, or an error and *pzErr. */
int sq_reject_sink_write(sq_reject_sink *s, const char *file, const sq_ingest_reject *r,
                         const char *reason, char **pzErr);
void sq_reject_sink_close(sq_reject_sink *s);

typedef struct sq_reject_budget {
  int64_t max_count;       /* -1: no count limit */
  double max_fraction;     /* 0: none */
  const char *option;      /* its name in messages: "max_errors", "maxErrors" */
  int64_t rejected;
  char *last;              /* the last reject's reason (owned) */
} sq_reject_budget;

/* max_errors as written: a count (0, 1, 2…) or a fraction (0 < F < 1).
** 0, or 1 for anything else. */
int sq_reject_parse_max(const char *value, int64_t *count, double *fraction);
void sq_reject_budget_init(sq_reject_budget *b, int64_t max_count, double max_fraction, const char *option);
/* One more reject: 0 (go on), or 1 when the import stops, with *pzErr
** the message (sqlite3_free; NULL when out of memory). */
int sq_reject_budget_add(sq_reject_budget *b, const char *reason, char **pzErr);
/* The input ended after `records` records: 0, or 1 and *pzErr as above. */
int sq_reject_budget_end(sq_reject_budget *b, int64_t records, char **pzErr);
void sq_reject_budget_clear(sq_reject_budget *b);

/* A record SQLite refuses to store: 1 when an INSERT of one row failed
** with `rc` (an extended result code) for that row's values — a
** constraint (NOT NULL, UNIQUE, PRIMARY KEY, CHECK, FOREIGN KEY, a
** trigger's RAISE(ABORT/FAIL), a STRICT column's type) or a datatype
** mismatch — so that an import skipping bad records rejects the record
** like any other bad one; 0 for what stops an import anyway (I/O, a full
** disk, an interrupt, a locked database…).  The Swift imports' onError:
** .skip uses it; the typed tables cannot: their rows are stored by the
** user's INSERT … SELECT, one SQLite statement. */
int sq_reject_refused_row(int rc);

/* Whether SQLite itself undoes an INSERT it refuses (sq_reject_refused_row)
** on this connection, so that a driver need not wrap each INSERT in a
** savepoint to take a refused row back: 1 when no FAIL conflict resolution
** can apply — the word FAIL (an ON CONFLICT FAIL clause, RAISE(FAIL, …),
** INSERT OR FAIL in a trigger) appears in no table's or trigger's SQL of any
** schema of the connection (a trigger may write to any table).  Then a
** refused INSERT (or INSERT OR REPLACE, or an upsert) ends as ABORT: SQLite
** rolls the statement back whole, the rows of a multi-row INSERT before the
** refused one and what triggers did included, with no ROLLBACK TO (which,
** after a table was created in the transaction, makes SQLite prepare every
** statement of the connection again).  0 when FAIL may leave a failed
** statement's earlier changes in place, or the schema cannot be read.
** The Swift imports' onError: .skip asks it when they start. */
int sq_reject_refusal_undone(sqlite3 *db);

#ifdef __cplusplus
}
#endif

#endif
