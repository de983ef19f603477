/*
** sq_csv_ingest.h — CSV as the second format of the ingest core.
**
** The one path from CSV bytes to typed rows: the reader of sq_csv.h
** delivers fields, this driver turns them into the format events of the
** ingest core (sq_ingest.h: begin_record / field_index / value_event /
** end_record), and the core matches fields to columns and coerces values
** exactly as it does for JSON.  The SQL virtual table csv_stream
** (Extension/src/sq_csv_stream.c) and the Swift library's importCSV both
** drive it, so the same file is stored the same way through both.
**
** USAGE
**
**     sq_ingest *g = sq_ingest_new(on_row, user);      // columns, keys,
**     sq_ingest_add_column(g, "id", -1, "INTEGER", -1, 0);   // strict…
**     sq_csv_options o;
**     sq_csv_options_init(&o);                          // header, ','…
**     sq_csv_ingest *d = sq_csv_ingest_new(g, &o);
**     while( (n = read(fd, buf, sizeof buf)) > 0 ){
**       if( sq_csv_ingest_feed(d, buf, n)==SQ_INGEST_ERROR ) break;
**     }
**     if( !sq_csv_ingest_error_info(d)->code ) sq_csv_ingest_finish(d);
**     if( sq_csv_ingest_error_info(d)->code ){
**       char *m = sq_csv_ingest_error_text(d);  // "line 7, byte 312, field 3 (amount): …"
**       …
**     }
**     sq_csv_ingest_free(d);  sq_ingest_free(g);
**
** FIELDS → COLUMNS
**
** With a header (the default), the first record names the fields and each
** name is matched to the core's columns and keys by the core's one rule
** (exact, else ignoring ASCII case; sq_ingest_map_key renames).  An empty
** header name is named cN (N: the field's 1-based position).  Two header
** names that are equal ignoring ASCII case are an error (which one would
** feed the column?).  Without a header, field i feeds column i.
** Every value is a string for the core (SQ_INGEST_K_STRING), or NULL
** (SQ_INGEST_K_NULL): an empty unquoted field, or the NULL marker; a
** quoted "" is ''.  So a column's declared type decides: INTEGER turns
** '12' into 12, REAL '1.5' into 1.5, a date column normalizes dates, and
** strict mode refuses what does not fit (sq_ingest.h, VALUES).
**
** TYPE INFERENCE (no declared columns)
**
** sq_csv_infer reads the first records (SQ_CSV_INFER_DEFAULT, 1000, or as
** asked) and gives each field a column: its header name (or cN) and the
** narrowest type that holds every non-empty value of those records
** exactly:
**   INTEGER  every value is an integer written canonically: -?[1-9][0-9]*
**            or 0, within 64 bits (so '007', '+1', '1.0', '-0' are not:
**            a ZIP code keeps its zeros)
**   REAL     every value is a decimal number (JSON number syntax: -?, no
**            leading zeros, a .fraction or an exponent) within a REAL's
**            range (no overflow to infinity, no underflow of 1e-400 to 0),
**            stored as its nearest double whatever its number of digits
**            (R and Python write a double with up to 17 significant digits:
**            '48.053808600000004' is that double again), or an integer a
**            double holds exactly (at most 2^53); only the spelling is not
**            kept ('1.50' is stored 1.5)
**   TEXT     anything else, and columns with no value in those records
** Dates and timestamps are TEXT, as written (declare a DATE/DATETIME column
** to have them validated and normalized).  Because the rest of the file
** was not looked at, the driver checks every later value of an inferred
** INTEGER or REAL column against the same rule (sq_csv_ingest_require):
** a value that does not fit is an error naming its line, byte and field —
** never a silently changed value.  Declare the columns to accept such
** values.
** Rejecting records (sq_csv_infer_skip_bad), a record the read would
** reject for its field count is left out of the inference: its values
** type nothing, and the records counted are the others.  Inside the
** sample no value is bad: one that does not fit a type makes its column
** TEXT.  What stops the read stops the inference too (broken quoting,
** invalid UTF-8: the next record's start is unknown).
**
** ERRORS
**
** Reader errors (sq_csv.h), header errors and core errors (sq_ingest.h)
** come back as one sq_csv_ingest_error: the code (SQ_CSV_IE_*), the
** message without position, and where: line, byte offset, column, the
** 0-based data record and field, and the field's header name.
** sq_csv_ingest_error_text() writes it the one way both SQL and Swift show
** it: "line L, byte B, field F (NAME): MESSAGE".
**
** MEMORY
**
** sqlite3_malloc64/sqlite3_free only; bounded by the reader's field limit
** and the core's record limit (the smaller of the two is applied to both).
*/
#ifndef SQ_CSV_INGEST_H
#define SQ_CSV_INGEST_H

#include <stddef.h>
#include <stdint.h>
#include "sq_csv.h"
#include "sq_ingest.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Reader options, as the SQL options and the Swift options spell them. */
typedef struct sq_csv_options {
  int header;              /* 1 (default): the first record names the fields */
  int delimiter;           /* default ',' */
  int quote;               /* default '"'; 0: no quoting */
  const char *null_text;   /* NULL marker (NULL: none) */
  size_t null_len;
  int empty_string;        /* 1: empty unquoted fields are '' (default NULL) */
  int pad_short;           /* 1: short records padded with NULLs (default: error) */
  size_t max_field;        /* field / record limit (0: SQ_CSV_DEFAULT_MAX_FIELD) */
} sq_csv_options;

void sq_csv_options_init(sq_csv_options *o);
/* Applies o to a reader: 0, or 1 for a bad delimiter/quote (message in
** *why, static text) or 2 when out of memory. */
int sq_csv_options_apply(sq_csv_parser *p, const sq_csv_options *o, const char **why);

/* Inferred column types: INTEGER, REAL (sq_number.h), DATE (every value a
** calendar day YYYY-MM-DD), DATETIME (every value a date-time or date
** starting YYYY-MM-DD, as sq_date.h reads it: stored as the one date text,
** so that text order is time order and `=` matches a Swift Date), TEXT. */
#define SQ_CSV_T_TEXT     1
#define SQ_CSV_T_INTEGER  2
#define SQ_CSV_T_REAL     3
#define SQ_CSV_T_DATE     4
#define SQ_CSV_T_DATETIME 5
#define SQ_CSV_INFER_DEFAULT 1000

/* Which inferred types a value fits (bit (1<<SQ_CSV_T_*); TEXT always). */
unsigned sq_csv_value_fits(const char *text, size_t n);
/* The type a column is inferred as when `fits` holds the bits every one of
** its values fits (sq_csv_value_fits, and-ed): the narrowest of INTEGER,
** REAL, DATE, DATETIME, in that order; else TEXT. */
int sq_csv_type_of_fits(unsigned fits);
/* Whether a value fits the one inferred type `type` (SQ_CSV_T_INTEGER …
** DATETIME): (sq_csv_value_fits(text, n) >> type) & 1, with the common
** shapes of that type checked inline (what the typed table and importCSV
** run for every value of an inferred column).  For a canonical integer of
** up to 18 digits or a decimal of up to 15 it also sets *v to the number
** (SQ_INGEST_V_INTEGER: sq_number_small_integer; SQ_INGEST_V_REAL:
** sq_number_small_decimal) for sq_ingest_field_number(); otherwise v->type
** is SQ_INGEST_V_NULL. */
int sq_csv_value_fits_type(int type, const char *text, size_t n, sq_ingest_value *v);
/* The declared type of an inferred column: "INTEGER", "REAL", "DATE",
** "DATETIME" or "TEXT". */
const char *sq_csv_type_name(int type);

/* Error codes. */
#define SQ_CSV_IE_NONE     0
#define SQ_CSV_IE_CSV      1   /* the reader's (sq_csv.h): syntax, UTF-8, ragged, too long */
#define SQ_CSV_IE_HEADER   2   /* duplicate header names, no header (empty input) */
#define SQ_CSV_IE_INGEST   3   /* the core's (sq_ingest.h): strict mode, ambiguous… */
#define SQ_CSV_IE_FIT      4   /* a value does not fit an inferred column */
#define SQ_CSV_IE_NOMEM    5
#define SQ_CSV_IE_OPTION   6   /* bad options */

typedef struct sq_csv_ingest_error {
  int code;                /* SQ_CSV_IE_* */
  int detail;              /* SQ_CSV_E_* or SQ_INGEST_E_* of the layer below */
  const char *message;     /* no position in it ("" when code is NONE) */
  uint64_t line;           /* 1-based; 0: no position */
  uint64_t offset;         /* 0-based byte offset */
  uint64_t column;         /* 1-based byte column */
  int64_t record;          /* 0-based data record (the header not counted), -1: header/none */
  int64_t field;           /* 0-based field, -1: none */
  const char *name;        /* the field's header name, or NULL */
} sq_csv_ingest_error;

/* ---- header names (the one rule: an empty name is cN — cN_2, cN_3, …
** when the header has cN itself; names equal ignoring ASCII case, or
** holding a NUL byte, are an error) ---------------------------------------- */

typedef struct sq_csv_names sq_csv_names;
sq_csv_names *sq_csv_names_new(void);
void sq_csv_names_free(sq_csv_names *h);
void sq_csv_names_clear(sq_csv_names *h);
/* Adds the name of header field e->field (in order).  0; 1 when it equals
** an earlier name ignoring ASCII case (*dup: that field, 0-based) or holds
** a NUL byte (*dup: -1); 2 when out of memory.  A name made for an empty
** header name may change until the header ends: read names after it. */
int sq_csv_names_add(sq_csv_names *h, const sq_csv_event *e, int64_t *dup);
int sq_csv_names_count(const sq_csv_names *h);
/* Name of field i (NUL terminated), or NULL past the header. */
const char *sq_csv_names_get(const sq_csv_names *h, int i, size_t *len);
/* The error for sq_csv_names_add's 1 (code SQ_CSV_IE_HEADER) into *err,
** its message written to buf[0..nbuf). */
void sq_csv_names_error(const sq_csv_names *h, const sq_csv_event *e, int64_t dup,
                        sq_csv_ingest_error *err, char *buf, size_t nbuf);

/* ---- inference ---------------------------------------------------------- */

typedef struct sq_csv_infer sq_csv_infer;

/* A new inference over the first `records` data records (0: the default). */
sq_csv_infer *sq_csv_infer_new(const sq_csv_options *o, int records);
/* Records are being rejected (on_error='skip', onError: .skip): a record
** with another field count than the header is left out of the inference
** (and out of `records`) instead of stopping it; the read that follows
** rejects it.  Call before the first feed. */
void sq_csv_infer_skip_bad(sq_csv_infer *f);
void sq_csv_infer_free(sq_csv_infer *f);
/* Feeds bytes: SQ_INGEST_OK (more wanted), SQ_INGEST_PAUSED (enough
** records, or SQ_CSV_INFER_MAX_BYTES bytes: stop reading; the rest of the
** chunk is not needed; a record cut there is not looked at and is no
** error) or SQ_INGEST_ERROR. */
#define SQ_CSV_INFER_MAX_BYTES ((uint64_t)16 << 20)
int sq_csv_infer_feed(sq_csv_infer *f, const void *bytes, size_t n);
/* End of input before enough records.  An input without any record is an
** error when a header is expected ("empty file: no header"). */
int sq_csv_infer_finish(sq_csv_infer *f);
int sq_csv_infer_count(const sq_csv_infer *f);
const char *sq_csv_infer_name(const sq_csv_infer *f, int i);
int sq_csv_infer_type(const sq_csv_infer *f, int i);
/* Data records looked at. */
int64_t sq_csv_infer_records(const sq_csv_infer *f);
const sq_csv_ingest_error *sq_csv_infer_error(const sq_csv_infer *f);

/* ---- the driver ----------------------------------------------------------- */

typedef struct sq_csv_ingest sq_csv_ingest;

/* A driver feeding the configured core g (not owned).  NULL when out of
** memory; a bad option is reported by the first feed. */
sq_csv_ingest *sq_csv_ingest_new(sq_ingest *g, const sq_csv_options *o);
void sq_csv_ingest_free(sq_csv_ingest *d);
/* Ready for a new input (resets the core too). */
void sq_csv_ingest_reset(sq_csv_ingest *d);
/* Column i (0-based) takes only values that fit `type` (SQ_CSV_T_INTEGER/
** REAL…: an inferred column; see TYPE INFERENCE): checked on the fields
** that feed it, by header name (whatever the header's order: another file
** than the one inferred from) or, with header=0, by position;
** inferred_from = records the type came from, for the message, or -1 for
** a type the caller declared (the message then says so). */
int sq_csv_ingest_require(sq_csv_ingest *d, int column, int type, int64_t inferred_from);

/* SQ_INGEST_OK, SQ_INGEST_PAUSED (the core's row callback paused: only
** sq_csv_ingest_consumed() bytes used) or SQ_INGEST_ERROR. */
/* Rejects records with errors instead of stopping (sq_ingest.h, REJECTING
** RECORDS): a value the core refuses, a value that does not fit an
** inferred type, a record with another field count than the header.  The
** reject's reason is the message an abort would give ("line L, byte B,
** field F (NAME): MESSAGE"), its field the header name.  Errors of the
** quoting (a quote inside an unquoted field, text after a closing quote,
** an unterminated quote) and invalid UTF-8 still stop: once the quoting is
** broken the next record's start is unknown (a line could be the middle
** of a quoted field), and a guess would import wrong rows.  Set before the
** first input; cb NULL stops again. */
void sq_csv_ingest_set_reject_callback(sq_csv_ingest *d, sq_ingest_reject_callback cb, void *user);
int sq_csv_ingest_feed(sq_csv_ingest *d, const void *bytes, size_t n);
size_t sq_csv_ingest_consumed(const sq_csv_ingest *d);
int sq_csv_ingest_finish(sq_csv_ingest *d);
/* Bytes consumed so far; data records delivered. */
uint64_t sq_csv_ingest_offset(const sq_csv_ingest *d);
int64_t sq_csv_ingest_records(const sq_csv_ingest *d);

const sq_csv_ingest_error *sq_csv_ingest_error_info(const sq_csv_ingest *d);
/* "line L, byte B, field F (NAME): MESSAGE" (parts without a value left
** out); sqlite3_free it; NULL when out of memory. */
char *sq_csv_error_text(const sq_csv_ingest_error *e);
char *sq_csv_ingest_error_text(const sq_csv_ingest *d);

#ifdef __cplusplus
}
#endif

#endif /* SQ_CSV_INGEST_H */
