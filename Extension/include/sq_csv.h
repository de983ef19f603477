/*
** sq_csv.h — StreamQLite's incremental (push) CSV reader, RFC 4180.
**
** The one CSV reader of the project: the SQL function and virtual table
** csv_stream (Extension/src/sq_csv_stream.c) and the Swift library
** (through `import CStreamQLite`: importCSV, typed CSV records) all use it.
** Plain C11, no SQLite types in this header.
**
** USAGE
**
**     static int on_event(void *user, const sq_csv_event *e){
**       if( e->type==SQ_CSV_FIELD ){
**         if( e->flags & SQ_CSV_F_NULL ) printf("field %llu: NULL\n", e->field);
**         else printf("field %llu: %.*s\n", e->field, (int)e->len, e->text);
**       }else{
**         printf("end of record %llu (line %llu)\n", e->record, e->line);
**       }
**       return SQ_CSV_CONTINUE;
**     }
**
**     sq_csv_parser *p = sq_csv_new(on_event, user);
**     sq_csv_set_delimiter(p, ';');                 // optional
**     int rc = SQ_CSV_OK;
**     while( rc!=SQ_CSV_ERROR && (n = read(fd, buf, sizeof buf)) > 0 ){
**       rc = sq_csv_feed(p, buf, n);
**     }
**     if( rc!=SQ_CSV_ERROR ) rc = sq_csv_finish(p);
**     if( rc==SQ_CSV_ERROR ){
**       const sq_csv_error *e = sq_csv_error_info(p);
**       fprintf(stderr, "line %llu, byte %llu, field %llu: %s\n",
**               e->line, e->offset, e->field+1, e->message);
**     }
**     sq_csv_free(p);
**
** Chunks may be of any size (down to one byte) and may cut the input
** anywhere: the events, their texts and positions, and the error are
** identical for every way of cutting the same input.
**
** EVENTS
**
** The callback receives a pointer to an sq_csv_event valid only during the
** call.
**   SQ_CSV_FIELD    one field.  `text`/`len`: its content (not NUL
**                   terminated; may contain NUL bytes), quotes removed and
**                   "" turned into ".  When the field lay within one chunk
**                   and had no "", `text` points into the caller's chunk (no
**                   copy), else into the reader's scratch buffer.  A NULL
**                   field (flag SQ_CSV_F_NULL, see NULL below) has
**                   text == NULL and len == 0.  `field` is its 0-based index
**                   in the record; `offset`/`line`/`column` are those of its
**                   first byte (the opening quote of a quoted field; for an
**                   empty field, the delimiter or line end that ends it).
**   SQ_CSV_RECORD   the end of a record.  `field` = the number of fields
**                   delivered for it; `offset`/`line`/`column` are those of
**                   the record's first byte; `end_offset` is the offset of
**                   the line end that ended it (the input's length at the
**                   end of the input).
** For both, `record` is the 0-based number of the record in the input (the
** header, when there is one, is record 0); `offset` is 0-based and counts
** every byte of the input (a BOM too), `line` is 1-based, `column` is the
** 1-based byte column in that line.
**
** The callback returns SQ_CSV_CONTINUE (0); SQ_CSV_PAUSE from an
** SQ_CSV_RECORD event (the reader stops right after that record:
** sq_csv_feed() returns SQ_CSV_PAUSED and sq_csv_consumed() tells how many
** bytes of that chunk were used; feed the rest of the chunk again to go
** on — from an SQ_CSV_FIELD event it counts as SQ_CSV_CONTINUE); or any
** other value to abort (the reader enters the error state with code
** SQ_CSV_E_ABORTED, at the position of the event that aborted).
**
** GRAMMAR (RFC 4180, strict by default)
**
** A record ends at a line end: LF, CRLF or a lone CR (each counts as one
** line).  The last record needs no line end.  Fields are separated by the
** delimiter (default ','; sq_csv_set_delimiter: any ASCII character but
** the quote, CR, LF and NUL — ',' '\t' ';' '|' in practice).  A field that
** starts with the quote character (default '"'; sq_csv_set_quote, 0 for
** none) is quoted: it ends at the next single quote character, and may
** hold delimiters, line ends (kept as they are: CRLF stays CRLF) and
** doubled quotes ("" is one "); after its closing quote must come a
** delimiter, a line end or the end of the input.  Nothing is trimmed:
** spaces are data.
** Accepted: one UTF-8 byte order mark (EF BB BF) at the very start
** (skipped; offsets still count it).
** Errors (code, and the position reported):
**   SQ_CSV_E_QUOTE        a quote character inside an unquoted field
**                         (a"b): the quote (SQ_CSV_OPT_LAZY_QUOTES keeps
**                         it as data instead)
**   SQ_CSV_E_AFTER_QUOTE  something other than a delimiter or a line end
**                         after a closing quote ("a"b): that byte
**   SQ_CSV_E_UNTERMINATED the input ends inside a quoted field: its
**                         opening quote
**   SQ_CSV_E_UTF8         invalid UTF-8 (overlong forms, surrogates, code
**                         points above U+10FFFF, stray continuation bytes,
**                         truncated sequences): the first byte of the bad
**                         sequence (SQ_CSV_OPT_NO_UTF8_CHECK passes bytes
**                         through unchecked)
**   SQ_CSV_E_TOO_LONG     a field's content longer than the field limit
**                         (default SQ_CSV_DEFAULT_MAX_FIELD, 64 MiB;
**                         sq_csv_set_max_field): the field's first byte.
**                         A hostile input cannot make the reader allocate
**                         without bound: its memory is its struct plus one
**                         scratch buffer no larger than the longest field
**                         (used only for fields with "" or cut by a chunk
**                         boundary).
**   SQ_CSV_E_RAGGED       a record with another number of fields than the
**                         first record (see RECORDS): for too many, the
**                         first field too many; for too few, the line end
**   SQ_CSV_E_NOMEM, SQ_CSV_E_ABORTED
** The error's `record` and `field` say where (0-based).
**
** NULL
**
** By default an empty unquoted field (a,,b) is NULL and a quoted empty
** field (a,"",b) is the empty string.  SQ_CSV_OPT_EMPTY_STRING makes both
** the empty string.  sq_csv_set_null(p, "NA", 2) adds a NULL marker: an
** unquoted field whose whole text is the marker is NULL too ("NA" quoted
** stays the text NA); several markers are given NUL-separated
** (sq_csv_set_null(p, "NA\0\\N", 5): NA and \N).  With SQ_CSV_OPT_HEADER, the fields of record 0 are
** the header: flagged SQ_CSV_F_HEADER and never NULL (an empty name is
** text "", len 0).
**
** RECORDS
**
** By default every record must have as many fields as the first record
** (the header, when there is one): a record with another count is an
** SQ_CSV_E_RAGGED error naming both counts, and the fields beyond the
** count are never delivered.  SQ_CSV_OPT_PAD_SHORT delivers the missing
** fields of a shorter record as NULL fields (flags SQ_CSV_F_NULL |
** SQ_CSV_F_PADDED, at the line end) instead; a longer record stays an
** error.  SQ_CSV_OPT_RAGGED accepts any count (no check, no padding).
** Blank lines (nothing between two line ends): with the check (the
** default, or SQ_CSV_OPT_PAD_SHORT) a blank line is one empty unquoted
** field when records have exactly one field — so a one-column NULL
** survives — and is skipped otherwise (blank lines before the first
** record are always skipped).  With SQ_CSV_OPT_RAGGED a blank line is a
** record of zero fields (as Python's csv module reads it).
**
** REUSE
**
** sq_csv_reset() makes the reader ready for a new input (offsets, lines,
** records and the field count of the first record start over; callback,
** options, delimiter, quote, NULL marker, limit and scratch memory are
** kept).
**
** MEMORY
**
** Compiled into the extension or the Swift library, the reader allocates
** through sqlite3_malloc64/sqlite3_realloc64/sqlite3_free (define
** SQ_CSV_USE_LIBC when compiling sq_csv.c to use malloc/realloc/free).
** Not thread safe per reader; distinct readers are independent.
*/
#ifndef SQ_CSV_H
#define SQ_CSV_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Event types. */
#define SQ_CSV_FIELD   1
#define SQ_CSV_RECORD  2

/* sq_csv_event.flags (SQ_CSV_FIELD) */
#define SQ_CSV_F_QUOTED  0x01u   /* the field was quoted */
#define SQ_CSV_F_NULL    0x02u   /* NULL (text == NULL, len == 0) */
#define SQ_CSV_F_PADDED  0x04u   /* added by SQ_CSV_OPT_PAD_SHORT */
#define SQ_CSV_F_HEADER  0x08u   /* a field of record 0 with SQ_CSV_OPT_HEADER */
#define SQ_CSV_F_COPIED  0x10u   /* text is in the reader's scratch buffer */
#define SQ_CSV_F_RAGGED  0x20u   /* a record event: its field count is wrong (SQ_CSV_OPT_REPORT_RAGGED) */

typedef struct sq_csv_event {
  int type;              /* SQ_CSV_FIELD or SQ_CSV_RECORD */
  unsigned flags;        /* SQ_CSV_F_* (fields) */
  const char *text;      /* field content; NULL for NULL fields and records */
  size_t len;            /* bytes at text */
  uint64_t record;       /* 0-based record number */
  uint64_t field;        /* FIELD: 0-based index; RECORD: fields delivered */
  uint64_t offset;       /* 0-based byte offset of the field's / record's first byte */
  uint64_t line;         /* 1-based line of that byte */
  uint64_t column;       /* 1-based byte column of that byte */
  uint64_t end_offset;   /* RECORD: offset of its line end (input length at EOF) */
} sq_csv_event;

/* Callback return values. */
#define SQ_CSV_CONTINUE 0
#define SQ_CSV_PAUSE    1
/* any other value aborts */

typedef int (*sq_csv_callback)(void *user, const sq_csv_event *event);

/* Return codes of sq_csv_feed() / sq_csv_finish(). */
#define SQ_CSV_OK      0
#define SQ_CSV_PAUSED  1
#define SQ_CSV_ERROR   2

/* Error codes (sq_csv_error.code). */
typedef enum sq_csv_error_code {
  SQ_CSV_E_NONE = 0,
  SQ_CSV_E_QUOTE = 1,          /* quote inside an unquoted field */
  SQ_CSV_E_AFTER_QUOTE = 2,    /* data after a closing quote */
  SQ_CSV_E_UNTERMINATED = 3,   /* input ends inside a quoted field */
  SQ_CSV_E_UTF8 = 4,           /* invalid UTF-8 */
  SQ_CSV_E_TOO_LONG = 5,       /* a field exceeds the field limit */
  SQ_CSV_E_RAGGED = 6,         /* field count differs from the first record */
  SQ_CSV_E_NOMEM = 7,          /* allocation failed */
  SQ_CSV_E_ABORTED = 8         /* the callback returned an abort value */
} sq_csv_error_code;

typedef struct sq_csv_error {
  int code;              /* an sq_csv_error_code */
  char message[128];     /* e.g. "invalid UTF-8" (no position in it) */
  uint64_t offset;       /* 0-based byte offset (see GRAMMAR for which byte) */
  uint64_t line;         /* 1-based line */
  uint64_t column;       /* 1-based byte column */
  uint64_t record;       /* 0-based record */
  uint64_t field;        /* 0-based field in that record */
} sq_csv_error;

#define SQ_CSV_DEFAULT_MAX_FIELD  ((size_t)64 << 20)

/* Options (sq_csv_set_options), or-ed. */
#define SQ_CSV_OPT_HEADER        0x01u  /* record 0 is a header (never NULL) */
#define SQ_CSV_OPT_EMPTY_STRING  0x02u  /* empty unquoted fields are '' not NULL */
#define SQ_CSV_OPT_PAD_SHORT     0x04u  /* short records padded with NULLs */
#define SQ_CSV_OPT_RAGGED        0x08u  /* no field count check at all */
#define SQ_CSV_OPT_LAZY_QUOTES   0x10u  /* a quote inside an unquoted field is data */
#define SQ_CSV_OPT_NO_UTF8_CHECK 0x20u  /* bytes are not checked for UTF-8 */
/* a record with another field count is no error: its SQ_CSV_RECORD event
** has flag SQ_CSV_F_RAGGED and sq_csv_error_info() describes it as the
** error would have (the reader goes on; rejecting records, sq_csv_ingest.h) */
#define SQ_CSV_OPT_REPORT_RAGGED 0x40u

typedef struct sq_csv_parser sq_csv_parser;

/* A new reader (delimiter ',', quote '"'), or NULL when out of memory. */
sq_csv_parser *sq_csv_new(sq_csv_callback callback, void *user);
void sq_csv_free(sq_csv_parser *p);

/* Ready for a new input (see REUSE). */
void sq_csv_reset(sq_csv_parser *p);

/* Replaces the callback and its user pointer. */
void sq_csv_set_callback(sq_csv_parser *p, sq_csv_callback callback, void *user);

void sq_csv_set_options(sq_csv_parser *p, unsigned options);
unsigned sq_csv_options_get(const sq_csv_parser *p);
/* The absolute offset of the record begun in the input so far but not
** yet ended (its fields may not be delivered yet), or UINT64_MAX. */
uint64_t sq_csv_record_start(const sq_csv_parser *p);
/* 0, or nonzero when the character is not allowed (see GRAMMAR) or equals
** the quote.  Set before the first feed. */
int sq_csv_set_delimiter(sq_csv_parser *p, int delimiter);
/* 0 for no quoting, else as for the delimiter; 0 or nonzero as above. */
int sq_csv_set_quote(sq_csv_parser *p, int quote);
/* The NULL marker (copied; len 0 or text NULL: none).  0, or nonzero when
** out of memory. */
int sq_csv_set_null(sq_csv_parser *p, const char *text, size_t len);
/* Field size limit in bytes of content (at least 1). */
void sq_csv_set_max_field(sq_csv_parser *p, size_t max_bytes);

/* Reads the next `len` bytes of input.  Returns SQ_CSV_OK (all bytes
** consumed), SQ_CSV_PAUSED (the callback asked to pause: only
** sq_csv_consumed() bytes were used) or SQ_CSV_ERROR.  After an error,
** feed/finish return SQ_CSV_ERROR until sq_csv_reset(). */
int sq_csv_feed(sq_csv_parser *p, const void *bytes, size_t len);

/* Bytes of the last sq_csv_feed() chunk that were consumed. */
size_t sq_csv_consumed(const sq_csv_parser *p);

/* End of input: delivers the last record when it had no line end, and
** reports an unterminated quoted field or a truncated UTF-8 sequence.
** Returns SQ_CSV_OK or SQ_CSV_ERROR (a pause request is ignored: the
** reader is done).  An empty input is no record and no error. */
int sq_csv_finish(sq_csv_parser *p);

/* Error details (code SQ_CSV_E_NONE if there was none). */
const sq_csv_error *sq_csv_error_info(const sq_csv_parser *p);

/* Bytes consumed so far; records completed so far; the field count of the
** first record (0 before it ended). */
uint64_t sq_csv_offset(const sq_csv_parser *p);
uint64_t sq_csv_records(const sq_csv_parser *p);
uint64_t sq_csv_width(const sq_csv_parser *p);

#ifdef __cplusplus
}
#endif

#endif /* SQ_CSV_H */
