/*
** sq_ingest.h — StreamQLite's ingest core: records of a file → typed rows.
**
** The one implementation of "a record of some input format becomes a row
** of a table": which key or field feeds which column, how a value is
** coerced to the column's declared type (strict or lenient), how nested
** values are kept as JSON text, how dates are validated and normalized,
** which records are rejected.  It knows no input format: a format driver
** reads its input and hands the core format events (FORMAT EVENTS below)
** — sq_json_ingest.h for JSON (on the parser of sq_json.h), sq_csv_ingest.h
** for CSV (on the reader of sq_csv.h).  Their SQL tables (json_stream,
** csv_stream) and the Swift library's importJSON and importCSV drive the
** same core, so the same input is stored the same way through all of them.
** Depends on the C library only (stddef.h, stdint.h); the implementation
** (sq_ingest.c) allocates with sqlite3_malloc64 and has no SQLite types in
** its interface.
**
** USAGE (a driver of its own; JSON and CSV: their headers)
**
**     static int on_row(void *user, const sq_ingest_row *row){
**       for(int i=0; i<row->ncol; i++){
**         const sq_ingest_value *v = &row->values[i];
**         switch( v->type ){
**           case SQ_INGEST_V_INTEGER: … v->i …; break;
**           case SQ_INGEST_V_REAL:    … v->r …; break;
**           case SQ_INGEST_V_TEXT:
**           case SQ_INGEST_V_JSON:    … v->text, v->len …; break;
**           default:                  … NULL (or OMITTED) …
**         }
**       }
**       return SQ_INGEST_CONTINUE;            // or SQ_INGEST_PAUSE
**     }
**
**     sq_ingest *g = sq_ingest_new(on_row, user);
**     sq_ingest_add_column(g, "id", -1, "INTEGER", -1, 0);
**     sq_ingest_add_column(g, "added", -1, "DATETIME", -1, 0);
**     sq_ingest_map_key(g, "date_added", -1, "added", -1);
**     for each record:
**       sq_ingest_begin_record(g, &pos);
**       for each field:
**         sq_ingest_field_key(g, key, nkey, &pos);          // or _field_index
**         sq_ingest_value_event(g, SQ_INGEST_K_STRING, z, n, &pos);
**       if( sq_ingest_end_record(g, &pos)==SQ_INGEST_ERROR ) break;
**     const sq_ingest_error *e = sq_ingest_error_info(g);
**     if( e->code ) fprintf(stderr, "line %llu, record %lld: %s\n",
**                           e->line, e->record, e->message);
**     sq_ingest_free(g);
**
** COLUMNS
**
** sq_ingest_add_column(name, declared type, flags) appends a target
** column; the row has one value per column, in this order.  The declared
** type gives the column's affinity by SQLite's rules
** (https://sqlite.org/datatype3.html, 3.1): contains INT → INTEGER; CHAR,
** CLOB or TEXT → TEXT; BLOB or empty → BLOB; REAL, FLOA or DOUB → REAL;
** anything else → NUMERIC (sq_ingest_affinity).  A type containing DATE or
** TIME (DATE, DATETIME, TIMESTAMP, TIME…) also makes it a date column
** (sq_ingest_type_is_date).  Flag SQ_INGEST_COL_DEFAULT: the column has a
** DEFAULT in its table — it is filled only when the first record has a key
** for it; otherwise its value is SQ_INGEST_V_OMITTED in every row (the
** driver leaves it out of its INSERT so the DEFAULT applies) and a later
** record with a key for it is an error.  Flag SQ_INGEST_COL_KINDS with
** any of SQ_INGEST_COL_STRING, _NUMBER, _BOOL, _NESTED: the column takes
** only values of those JSON kinds (and null); a value of another kind is a
** record error (SQ_INGEST_E_STRICT), in strict and lenient mode alike,
** where the coercion would store it changed (a string "12" as 12, a number
** or true as text).  A table made from the kinds a sample of the input
** showed (importJSON createTable) sets them.  The field calls of CSV-like
** input (sq_ingest_field_text, _number: strings) do not look at them.
**
** KEYS → COLUMNS (the one matching rule)
**
** Every column is fed by its own name, unless a mapping names it: then by
** the mapping's keys only.  sq_ingest_map_key(key, column) adds a mapping;
** one key may feed several columns (each coerced by its own type), and
** several keys may feed one column.  The column in a mapping is found by
** name like SQLite finds a column (exact, else ASCII case-insensitively).
** A record's key is matched against the keys so configured:
**   1. a key equal byte for byte wins;
**   2. else a key equal ignoring ASCII case (A-Z = a-z; other bytes must
**      be equal), as SQLite compares column names — if two different
**      configured keys match that way ("Foo" and "FOO" for "foo"), the key
**      is ambiguous: an error, in strict and lenient mode alike;
**   3. else the key is unknown: ignored (strict mode: an error).
** A missing key leaves its columns NULL.  Two members of one record for
** the same column ("id" and "ID", "id" twice, or two keys mapped to one
** column) are an error naming both keys, in every mode: SQLite's ->> would
** take the first, JavaScript the last; the core does not guess.  CSV-like inputs name fields by position: sq_ingest_field_index()
** feeds field i to the columns its header name matches by the same rule
** (sq_ingest_name_field), or without names to column i.
**
** VALUES: COERCION BY AFFINITY (the one policy)
**
** | input          | INTEGER     | REAL        | TEXT          | NUMERIC/BLOB | date column¹ |
** | null           | NULL        | NULL        | NULL          | NULL         | NULL         |
** | true/false     | 1/0         | 1.0/0.0     | 1/0           | 1/0          | by affinity  |
** | integer 12     | 12          | 12.0        | '12' literal  | 12           | by affinity  |
** | number 12.5    | integral    | 12.5        | '12.5' literal| 12.5         | by affinity  |
** |                | (12.0, 1e3) |             | (as written)  |              |              |
** |                | → INTEGER,  |             |               |              |              |
** |                | else ²      |             |               |              |              |
** | string "12"    | 12 if it is | 12.0 if it  | '12'          | '12'         | ¹            |
** |                | an integer  | is a JSON   |               |              |              |
** |                | within 64   | number, else|               |              |              |
** |                | bits, else ²| ²           |               |              |              |
** | object/array   | JSON text ³ | JSON text ³ | JSON text     | JSON text    | JSON text    |
**
** ¹ Strings in a date column: any form SQLite's date functions accept
**   ('2024-05-01', '2024-05-01T14:00:00+02:00', '2024-05-01 12:00:00.5Z',
**   a Julian day number…) are validated and stored as the one date text of
**   sq_date.h ('YYYY-MM-DD' for a bare date, else 'YYYY-MM-DD HH:MM:SS.SSS'
**   in UTC: an offset is applied); other strings are ².  Other values are
**   coerced by the column's affinity.
** ² Strict mode: an error.  Lenient (default): the value is kept as it is
**   (a REAL, or the string as TEXT) and the table's affinity applies.
** ³ Strict mode: an error.
** Integers beyond 64 bits: the literal as TEXT (strict: an error) — an
** INTEGER, REAL or NUMERIC table column then stores it as REAL.  Numbers
** beyond a REAL's range (1e400): strict mode refuses them in REAL, NUMERIC
** and BLOB columns (they would become ±Inf); lenient keeps ±Inf.
** Nested values are minified JSON text: strings re-escaped (", \, \b, \f,
** \n, \r, \t short; other control characters \u00XX; nothing else —
** UTF-8 as is), numbers as written in the input, no whitespace.  The
** value type SQ_INGEST_V_JSON tells a driver to mark them as JSON (the
** virtual table gives them SQLite's JSON subtype).
**
** ROWS
**
** When a record ends, the row callback gets an sq_ingest_row: the record's
** index (0-based), where it starts (byte offset, line, column) and one
** sq_ingest_value per column.  TEXT/JSON values point into the core's
** memory (not NUL terminated; never NULL, also for ''), valid until the
** next call that gives the core input (feed, finish, or an event).  The
** callback returns SQ_INGEST_CONTINUE, SQ_INGEST_PAUSE (the feed call
** returns SQ_INGEST_PAUSED right after this record: the driver's consumed()
** tells how much of the chunk was used; feed the rest to go on — the
** virtual table produces one row per xNext this way) or any other value to
** stop (error SQ_INGEST_E_ABORTED; the driver keeps its own reason).
**
** WHOLE VALUES
**
** sq_ingest_set_whole_values(g, 1): no columns; each element of the
** selected array (any JSON value, not only objects) becomes a row with one
** SQ_INGEST_V_JSON value, the element as minified JSON (a string keeps its
** quotes).  json_stream's table-valued function uses it.
**
** ERRORS
**
** Every function returning int gives SQ_INGEST_OK, SQ_INGEST_PAUSED (feed
** only) or SQ_INGEST_ERROR; after an error the core stays in it (until
** sq_ingest_reset) and sq_ingest_error_info() says: code, message (no
** position in it), the key concerned (or NULL), the record index (-1 when
** not within the selected records; the next record's index when between
** two), and the position of the offending token (byte offset 0-based,
** line and column 1-based; line 0 when there is none, e.g. a path not
** found at the end).  JSON syntax errors (code SQ_INGEST_E_JSON) carry the
** parser's message and position (sq_json.h).
**
** REJECTING RECORDS INSTEAD OF STOPPING
**
** sq_ingest_set_reject_callback(g, cb, user) turns record errors from
** the end of the import into rejected records: the record is not given to
** the row callback; once its end is found, the reject callback gets an
** sq_ingest_reject (the record's index and start, the error an abort
** would have reported, and the record's first bytes) and the input goes
** on with the next record.  A record is a row or a reject, never a part
** of both; record indexes count both (a row's index is its position in
** the input).  Record errors are: a value strict mode refuses, an unknown
** key (strict), a key matching two keys (AMBIGUOUS), two members for one
** column (DUPLICATE), a key for a left-out DEFAULT column (OMITTED), an
** element that is not an object (LAYOUT), a format driver's own record
** error (sq_ingest_reject_record: a CSV record's field count, a value
** that does not fit an inferred type), and in NDJSON a JSON syntax error
** or a value running over its line end (a raw newline in a string is a
** syntax error at that newline) — one value per line:
** the rest of the line is skipped, the parser starts again after the
** line's newline and the reject spans the line (text after a complete
** value on its line is rejected on its own, from the error on: the value
** before it was a row already).  Everything else still stops the input: a syntax error
** inside a JSON array (the next element cannot be found safely), a
** record over the record limit, out of memory, a path not found.
** The record's bytes (raw) are the input from the record's first byte to
** its last (for a JSON element its closing brace, for NDJSON and CSV the
** line end, not included), at most SQ_INGEST_RAW_MAX bytes (truncated
** says so; a cut never splits a UTF-8 sequence of valid input).  The
** callback returns SQ_INGEST_CONTINUE, or anything else to stop
** (SQ_INGEST_E_ABORTED).
**
** MEMORY
**
** sqlite3_malloc64/sqlite3_free only.  Bounded: a record's values (the sum
** of its TEXT/JSON bytes), a whole value, and a single JSON token may not
** exceed the record limit (sq_ingest_set_max_record; default
** SQ_INGEST_DEFAULT_MAX_RECORD, 64 MiB): "element larger than N bytes".
** Key lookups are cached per key position (at most 256 positions of keys
** up to 256 bytes).  Not thread safe per core; distinct cores are
** independent.
*/
#ifndef SQ_INGEST_H
#define SQ_INGEST_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Return codes. */
#define SQ_INGEST_OK      0
#define SQ_INGEST_PAUSED  1
#define SQ_INGEST_ERROR   2

/* Row callback return values. */
#define SQ_INGEST_CONTINUE 0
#define SQ_INGEST_PAUSE    1
#define SQ_INGEST_NOMEM    3   /* (row and reject callbacks) stops: out of memory (SQ_INGEST_E_NOMEM) */
/* any other value stops (SQ_INGEST_E_ABORTED) */

/* Affinities (sq_ingest_affinity). */
#define SQ_INGEST_AFF_BLOB     0
#define SQ_INGEST_AFF_TEXT     1
#define SQ_INGEST_AFF_NUMERIC  2
#define SQ_INGEST_AFF_INTEGER  3
#define SQ_INGEST_AFF_REAL     4

/* Column flags (sq_ingest_add_column). */
#define SQ_INGEST_COL_DEFAULT  0x01u   /* has a DEFAULT: see COLUMNS */
#define SQ_INGEST_COL_KINDS    0x02u   /* only the kinds below: see COLUMNS */
#define SQ_INGEST_COL_STRING   0x04u
#define SQ_INGEST_COL_NUMBER   0x08u
#define SQ_INGEST_COL_BOOL     0x10u
#define SQ_INGEST_COL_NESTED   0x20u   /* an object or array */

/* Row value types. */
#define SQ_INGEST_V_NULL     0
#define SQ_INGEST_V_INTEGER  1
#define SQ_INGEST_V_REAL     2
#define SQ_INGEST_V_TEXT     3
#define SQ_INGEST_V_JSON     4   /* TEXT that is JSON (nested value, whole value) */
#define SQ_INGEST_V_OMITTED  5   /* a DEFAULT column the first record did not name */

/* Lexical kinds of a scalar value (format events, sq_ingest_value_event). */
#define SQ_INGEST_K_NULL     1
#define SQ_INGEST_K_FALSE    2
#define SQ_INGEST_K_TRUE     3
#define SQ_INGEST_K_NUMBER   4   /* a JSON number literal, as written */
#define SQ_INGEST_K_STRING   5   /* text (UTF-8) */
#define SQ_INGEST_K_JSON     6   /* a nested value, as minified JSON text */

/* Error codes (sq_ingest_error.code). */
#define SQ_INGEST_E_NONE       0
#define SQ_INGEST_E_JSON       1   /* JSON syntax/UTF-8/depth/truncation (sq_json.h) */
#define SQ_INGEST_E_LAYOUT     2   /* not an array of objects, path not found… */
#define SQ_INGEST_E_STRICT     3   /* strict mode: unknown key, lossy value; any mode: a number the column would change */
#define SQ_INGEST_E_AMBIGUOUS  4   /* a key matching two configured keys ignoring case */
#define SQ_INGEST_E_OMITTED    5   /* a key for a DEFAULT column the first record left out */
#define SQ_INGEST_E_TOO_BIG    6   /* record limit exceeded */
#define SQ_INGEST_E_NOMEM      7
#define SQ_INGEST_E_ABORTED    8   /* the row callback asked to stop */
#define SQ_INGEST_E_CONFIG     9   /* bad column, mapping, path, or call order */
#define SQ_INGEST_E_MISUSE    10   /* an event out of order (format drivers) */
#define SQ_INGEST_E_DUPLICATE 11   /* two members of one record for one column */

#define SQ_INGEST_DEFAULT_MAX_RECORD ((int64_t)64 << 20)

typedef struct sq_ingest sq_ingest;

typedef struct sq_ingest_value {
  int type;              /* SQ_INGEST_V_* */
  int64_t i;             /* INTEGER */
  double r;              /* REAL */
  const char *text;      /* TEXT, JSON: the bytes (not NUL terminated, never NULL) */
  size_t len;
} sq_ingest_value;

typedef struct sq_ingest_row {
  int64_t index;         /* 0-based record index */
  uint64_t offset;       /* 0-based byte offset where the record starts */
  uint64_t line;         /* 1-based line */
  uint64_t column;       /* 1-based byte column */
  int ncol;              /* values: one per column (whole values: 1) */
  const sq_ingest_value *values;
  const char *raw;       /* sq_ingest_set_row_raw: the record's raw text, as its */
  size_t nraw;           /* reject would carry it (valid as the values); else */
  int raw_truncated;     /* NULL (then nraw, raw_truncated are not set) */
} sq_ingest_row;

typedef int (*sq_ingest_row_callback)(void *user, const sq_ingest_row *row);

typedef struct sq_ingest_error {
  int code;              /* SQ_INGEST_E_* */
  const char *message;   /* "" when code is SQ_INGEST_E_NONE */
  const char *key;       /* the key concerned, or NULL */
  size_t nkey;
  int64_t record;        /* record index, or -1 */
  uint64_t offset;       /* 0-based byte offset of the offending token */
  uint64_t line;         /* 1-based; 0: no position */
  uint64_t column;       /* 1-based byte column */
} sq_ingest_error;

/* A position in the input (format events). */
typedef struct sq_ingest_pos {
  uint64_t offset, line, column;
} sq_ingest_pos;

/* ---- set-up ---------------------------------------------------------- */

/* A new core, or NULL when out of memory. */
sq_ingest *sq_ingest_new(sq_ingest_row_callback on_row, void *user);
void sq_ingest_free(sq_ingest *g);
/* Replaces the row callback and its user pointer. */
void sq_ingest_set_row_callback(sq_ingest *g, sq_ingest_row_callback on_row, void *user);

/* Ready for a new input: records and errors start over, and so does the
** state of a driver kept with the core (JSON: its parser and path); columns,
** mappings, options (and the JSON layout or path) are kept. */
void sq_ingest_reset(sq_ingest *g);

/* SQLite's affinity of a declared type (n < 0: NUL terminated), and
** whether it declares a date column: 2 when it contains TIME (DATETIME,
** TIMESTAMP: instants; a bare date is stored as its midnight UTC in full,
** '2024-05-02 00:00:00.000', so that it equals that instant's text), 1 when
** it contains DATE only (calendar days: a bare date stays '2024-05-02'),
** else 0. */
int sq_ingest_affinity(const char *type, int n);
int sq_ingest_type_is_date(const char *type, int n);
/* What a virtual table declares for a column of that type: the affinity's
** name (INTEGER, TEXT, REAL, NUMERIC, "" for BLOB), or DATETIME / DATE for
** a date column of NUMERIC affinity — the same affinity and date kind. */
const char *sq_ingest_declared_type(const char *type, int n);

/* Appends a column; returns its index, or -1 (error: empty name). Lengths
** < 0: NUL terminated; type may be NULL (no declared type: BLOB). */
int sq_ingest_add_column(sq_ingest *g, const char *name, int nname,
                         const char *type, int ntype, unsigned flags);
/* Overrides a column's affinity (SQ_INGEST_AFF_*) and date kind (0, 1, 2:
** as sq_ingest_type_is_date). */
int sq_ingest_set_column_type(sq_ingest *g, int column, int affinity, int is_date);
int sq_ingest_column_count(const sq_ingest *g);
const char *sq_ingest_column_name(const sq_ingest *g, int column);

/* Key `key` feeds `column` (found by name: exact, else ASCII case-insensitive).
** Error (SQ_INGEST_E_CONFIG) when there is no such column. */
int sq_ingest_map_key(sq_ingest *g, const char *key, int nkey, const char *column, int ncolumn);

/* CSV-like inputs: field `index` is named `name` (a header); its columns
** are found by the key rule. */
int sq_ingest_name_field(sq_ingest *g, int index, const char *name, int nname);

/* The columns field `index` feeds, by its name (the key rule) or, without
** names, by its position: their number, *cols their indexes (valid while
** the columns stay as they are); 0 when none (or two columns match its
** name ignoring case only: feeding the field says so). */
int sq_ingest_field_columns(sq_ingest *g, int index, const int **cols);

/* 0: lenient; 1: strict (an unknown key or field, and a value its column
** would change, are record errors); SQ_INGEST_STRICT_VALUES: only the
** values (what asking for rejects implies: a value that does not fit its
** column is a reject, a key no column takes is still ignored). */
#define SQ_INGEST_STRICT_VALUES 2
void sq_ingest_set_strict(sq_ingest *g, int strict);
void sq_ingest_set_whole_values(sq_ingest *g, int whole);
void sq_ingest_set_max_record(sq_ingest *g, int64_t max_bytes);

/* ---- format events (any input format) --------------------------------- */

/* A record begins / ends; a field is named by key or by position; a scalar
** value (kind SQ_INGEST_K_*; text for NUMBER/STRING/JSON) for the current
** field.  sq_ingest_end_record() calls the row callback and returns
** SQ_INGEST_OK, SQ_INGEST_PAUSED (the callback asked to pause) or
** SQ_INGEST_ERROR.  pos may be NULL (no position). */
int sq_ingest_begin_record(sq_ingest *g, const sq_ingest_pos *pos);
int sq_ingest_field_key(sq_ingest *g, const char *key, size_t n, const sq_ingest_pos *pos);
int sq_ingest_field_index(sq_ingest *g, int index, const sq_ingest_pos *pos);
int sq_ingest_value_event(sq_ingest *g, int kind, const char *text, size_t n, const sq_ingest_pos *pos);
/* CSV-like inputs: field `index` with the text z[0..n) (SQ_INGEST_K_STRING),
** or NULL (z == NULL) — sq_ingest_field_index() then sq_ingest_value_event()
** in one call, with the same results and errors; a field that feeds one
** column goes straight to its coercion by a per-field plan resolved on
** the first record (no key lookup per field). */
int sq_ingest_field_text(sq_ingest *g, int index, const char *z, size_t n, const sq_ingest_pos *pos);
/* sq_ingest_field_text() for a field whose text z[0..n) the driver has
** already read as a number by the common cases of the one number rule
** (sq_number.h): v is SQ_INGEST_V_INTEGER from sq_number_small_integer or
** SQ_INGEST_V_REAL from sq_number_small_decimal.  Into an INTEGER column
** (v INTEGER) or a REAL column (v REAL) v is stored as it is, the value
** sq_ingest_field_text() would store, without reading the text again;
** into any other column the text goes through sq_ingest_field_text(). */
int sq_ingest_field_number(sq_ingest *g, int index, const char *z, size_t n,
                           const sq_ingest_value *v, const sq_ingest_pos *pos);
int sq_ingest_end_record(sq_ingest *g, const sq_ingest_pos *pos);

/* A driver's own error (e.g. a syntax error of its format), with position. */
int sq_ingest_fail(sq_ingest *g, int code, const char *message, const sq_ingest_pos *pos);

/* ---- rejecting records (see REJECTING RECORDS) ------------------------- */

#define SQ_INGEST_RAW_MAX 4096

typedef struct sq_ingest_reject {
  int64_t index;         /* 0-based record index (rows and rejects alike) */
  uint64_t offset;       /* 0-based byte offset where the record starts */
  uint64_t line;         /* 1-based line where it starts */
  uint64_t column;       /* 1-based byte column where it starts */
  const sq_ingest_error *error;   /* as an abort would report it */
  const char *field;     /* the key or field name concerned, or NULL */
  size_t nfield;
  const char *reason;    /* a format driver's full message, or NULL (sq_csv_ingest fills it) */
  const char *raw;       /* the record's first bytes */
  size_t nraw;
  int truncated;         /* the record is longer than raw */
} sq_ingest_reject;

typedef int (*sq_ingest_reject_callback)(void *user, const sq_ingest_reject *r);

/* Rejects records with errors instead of stopping (cb NULL: stop, the
** default).  Set before the first input. */
void sq_ingest_set_reject_callback(sq_ingest *g, sq_ingest_reject_callback cb, void *user);
int sq_ingest_rejecting(const sq_ingest *g);
/* With a reject callback: every row carries the raw text its record
** would have as a reject (raw, nraw, raw_truncated: the same bytes, limit
** and cut), so that a driver that finds out later that the row cannot be
** stored (a constraint of its table) rejects it with its text.  Off by
** default (the text costs a copy per row); rows of column records only
** (not whole values). */
void sq_ingest_set_row_raw(sq_ingest *g, int on);
/* Records rejected so far. */
int64_t sq_ingest_rejected(const sq_ingest *g);

/* Format drivers other than JSON: the record in progress is bad (a record
** error of the format; in a record or at its end).  Without a reject
** callback this is sq_ingest_fail.  sq_ingest_record_bad() tells whether
** the current record is being skipped (its further events are ignored);
** sq_ingest_end_bad_record() ends it at byte offset `end` (exclusive) and
** calls the reject callback, and so does sq_ingest_end_record() with
** pos->offset as the end. */
int sq_ingest_reject_record(sq_ingest *g, int code, const char *message, const sq_ingest_pos *pos);
int sq_ingest_record_bad(const sq_ingest *g);
int sq_ingest_end_bad_record(sq_ingest *g, uint64_t end);
/* The bytes being fed (base: the absolute offset of bytes[0]) and, after
** the feed, how many were consumed and where a record not yet begun for
** the core may have started (its first field not delivered yet; or
** UINT64_MAX): the raw text of a reject spans chunks.  Only needed with a
** reject callback; the JSON driver calls them itself. */
void sq_ingest_raw_chunk(sq_ingest *g, const void *bytes, size_t n, uint64_t base);
void sq_ingest_raw_keep(sq_ingest *g, size_t consumed, uint64_t pending);

/* ---- results ------------------------------------------------------------ */

const sq_ingest_error *sq_ingest_error_info(const sq_ingest *g);
/* Records completed so far. */
int64_t sq_ingest_records(const sq_ingest *g);

/* ---- a growable buffer -----------------------------------------------------
** The core's and its drivers' (the arena of a record's text, nested values
** written as JSON: sq_json_ingest.h). */
typedef struct sq_ingest_buf { char *z; int64_t n, cap; } sq_ingest_buf;

/* Appends s[0..n) to b (sqlite3_realloc64).  Returns 0, 1 when b would grow
** past `max` bytes, 2 when out of memory. */
int sq_ingest_buf_put(sq_ingest_buf *b, const char *s, int64_t n, int64_t max);

/* ---- a record's raw text across chunks ------------------------------------
** The one definition of a reject's raw text (REJECTING RECORDS): the bytes
** [start, end) of the input, at most SQ_INGEST_RAW_MAX of them, never cut
** inside a UTF-8 sequence of valid input, `truncated` when the record is
** longer.  The core keeps one for its rejects; a reader of its own (the
** Swift CSV and JSON cursors) keeps another.  Bytes come from the chunk
** being read and, for a record begun in earlier chunks, from its first
** bytes kept when those chunks ended (at most SQ_INGEST_RAW_MAX: the
** memory is bounded).  All zeros is a valid empty one. */
typedef struct sq_ingest_rawtext {
  const unsigned char *z;   /* the chunk being read, at absolute offset base (NULL: none) */
  size_t n;
  uint64_t base;
  sq_ingest_buf pre;        /* the first bytes of the record in progress from earlier chunks */
  uint64_t pre_start;
  int pre_on;
  sq_ingest_buf out;        /* the last text made */
} sq_ingest_rawtext;

/* The chunk being read: bytes[0..n) at absolute offset `base`; it must
** stay valid until sq_ingest_rawtext_keep or the next chunk. */
void sq_ingest_rawtext_chunk(sq_ingest_rawtext *w, const void *bytes, size_t n, uint64_t base);
/* The reader used `consumed` bytes of the chunk and leaves it: the bytes
** from `start` (where the record in progress begins; UINT64_MAX: none)
** to there are kept, up to SQ_INGEST_RAW_MAX from `start`, and the chunk
** is forgotten. */
void sq_ingest_rawtext_keep(sq_ingest_rawtext *w, size_t consumed, uint64_t start);
/* The raw text of the record [start, end): the bytes kept, then the
** chunk's.  *nraw bytes at the result (valid until the next call, and
** while the chunk is: it may point into it; never NULL), *truncated set
** when the record is longer than them. */
const char *sq_ingest_rawtext_get(sq_ingest_rawtext *w, uint64_t start, uint64_t end,
                                  size_t *nraw, int *truncated);
/* The byte at absolute offset i when held (kept or in the chunk), else -1. */
int sq_ingest_rawtext_byte(const sq_ingest_rawtext *w, uint64_t i);
/* Forgets the chunk and the kept bytes (memory kept). */
void sq_ingest_rawtext_forget(sq_ingest_rawtext *w);
/* Frees its memory (then all zeros). */
void sq_ingest_rawtext_free(sq_ingest_rawtext *w);

#ifdef __cplusplus
}
#endif

#endif /* SQ_INGEST_H */
