/*
** sq_json.h — StreamQLite's incremental (push) JSON parser.
**
** The one JSON parser of the project: the SQL virtual table json_stream
** (Extension/src/sq_json_stream.c) and the Swift library (through
** `import CStreamQLite`) both use it.  Plain C11, no SQLite types in this
** header.
**
** USAGE
**
**     static int on_event(void *user, const sq_json_token *t){
**       switch( t->type ){
**         case SQ_JSON_KEY:    printf("key %.*s\n", (int)t->len, t->text); break;
**         case SQ_JSON_NUMBER: printf("num %.*s%s\n", (int)t->len, t->text,
**                                     (t->flags & SQ_JSON_F_INTEGER) ? " (int)" : "");
**                              break;
**         default: break;
**       }
**       return SQ_JSON_CONTINUE;
**     }
**
**     sq_json_parser *p = sq_json_new(on_event, user);
**     int rc = SQ_JSON_OK;
**     while( rc != SQ_JSON_ERROR && (n = read(fd, buf, sizeof buf)) > 0 ){
**       rc = sq_json_feed(p, buf, n);
**     }
**     if( rc != SQ_JSON_ERROR ) rc = sq_json_finish(p);
**     if( rc == SQ_JSON_ERROR ){
**       const sq_json_error *e = sq_json_error_info(p);
**       fprintf(stderr, "line %llu, byte %llu: %s\n", e->line, e->offset, e->message);
**     }
**     sq_json_free(p);
**
** Chunks may be of any size (down to one byte) and may split any token
** anywhere: the events, their texts, offsets and lines are identical for
** every way of cutting the same input.
**
** EVENTS
**
** The callback receives a pointer to an sq_json_token that is valid only
** during the call.  `text`/`len`:
**   SQ_JSON_KEY, SQ_JSON_STRING  the unescaped UTF-8 (not NUL terminated;
**                                may contain NUL bytes when the input had
**                                \u0000 — flag SQ_JSON_F_HAS_NUL).  When the
**                                string had no escapes and lay within one
**                                chunk, `text` points into the caller's
**                                chunk (no copy); otherwise into the
**                                parser's scratch buffer.
**   SQ_JSON_NUMBER               the literal exactly as in the input
**                                ("-12.5e3"); flags SQ_JSON_F_INTEGER (no
**                                fraction, no exponent), SQ_JSON_F_NEGATIVE.
**                                Use sq_json_number_int64/_double to convert.
**   all others                   text == NULL, len == 0.
** `offset` is the 0-based byte offset of the token's first byte in the
** whole input (a BOM counts), `line` the 1-based line (lines end at '\n'),
** `column` the 1-based byte column.  `depth` is the number of containers
** around the token: a top-level value has depth 0, the elements of a
** top-level array and the keys/values of a top-level object depth 1;
** SQ_JSON_BEGIN_x and its SQ_JSON_END_x have the same depth.  For
** SQ_JSON_END_x, offset/line/column are those of the closing bracket.
**
** The callback returns SQ_JSON_CONTINUE (0), SQ_JSON_PAUSE (the parser
** stops right after this token: sq_json_feed() returns SQ_JSON_PAUSED and
** sq_json_consumed() tells how many bytes of that chunk were used; feed
** the rest of the chunk again to go on), or any other value to abort (the
** parser enters the error state with code SQ_JSON_E_ABORTED).
**
** GRAMMAR (RFC 8259, strict)
**
** Rejected: trailing commas, leading zeros ("01"), "+1", ".5", "1.", NaN,
** Infinity, comments, single quotes, unescaped control characters
** (U+0000..U+001F) inside strings, invalid escapes, invalid UTF-8 anywhere
** (overlong forms, UTF-16 surrogates encoded in UTF-8 (ED A0..BF xx),
** code points above U+10FFFF, stray continuation bytes, truncated
** sequences), whitespace other than space, \t, \n, \r.
** Accepted: one UTF-8 byte order mark (EF BB BF) at the very start of the
** input (skipped; offsets still count it); any top-level value (not only
** objects/arrays); numbers of any size and precision (the literal is
** passed on as is: "implementation-defined" i_number_* cases are accepted).
** Escaped lone surrogates ("\uD800", "\uDC00", a high surrogate not
** followed by a low one) are rejected: the text handed to the callback is
** always valid UTF-8 (JSONTestSuite's i_string_..lone.. and invalid-surrogate
** cases are therefore rejected; the i_string_* cases with invalid UTF-8
** bytes are rejected too).
** Nesting deeper than SQ_JSON_MAX_DEPTH (1000) containers is an error.
** A single token (string, key, number) longer than the token limit
** (default SQ_JSON_DEFAULT_MAX_TOKEN, 64 MiB; sq_json_set_max_token) is an
** error (SQ_JSON_E_TOO_LONG at the token's first byte).  One rule, whatever
** the chunking: a string's or key's raw input bytes between its quotes
** (escapes counted as written: "a\n" is 3 bytes), a number's run of number
** characters; true/false/null are not limited.  A string is checked left
** to right up to the limit: its first bad byte (an unescaped control
** character, invalid UTF-8, a bad escape) is the error, at that byte,
** reported as soon as the byte is read (before the closing quote: a raw
** newline in a string is an error at that newline); a string with none
** in its first max_token bytes and longer than that is too long.  So
** whether an input is accepted, and which error it gets, never depends on
** where it was cut.
** So a hostile input cannot make the parser allocate without bound:
** the parser's memory is its fixed struct plus one scratch buffer no
** larger than the longest token (only used for strings with escapes or
** tokens split across chunks).
**
** SEVERAL TOP-LEVEL VALUES (NDJSON / JSON Lines)
**
** By default the input is one JSON value.  With sq_json_set_options(p,
** SQ_JSON_OPT_MULTIPLE) it is a sequence of values, each separated from
** the next by at least one newline (NDJSON); blank lines are allowed.
** SQ_JSON_OPT_TRAILING_COMMAS accepts one comma after the last element of
** an array or member of an object (the Swift JSONValueDecoder, as
** Foundation's JSONDecoder); the SQL functions and imports never set it.
**
** REUSE
**
** sq_json_reset() makes the parser ready for a new input (offsets and
** lines restart at 0/1; options, limits and the scratch buffer are kept).
**
** MEMORY
**
** Compiled into the extension or the Swift library, the parser allocates
** through sqlite3_malloc64/sqlite3_realloc64/sqlite3_free (define
** SQ_JSON_USE_LIBC when compiling sq_json.c to use malloc/realloc/free).
** Not thread safe per parser; distinct parsers are independent.
*/
#ifndef SQ_JSON_H
#define SQ_JSON_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Event / token types. */
typedef enum sq_json_type {
  SQ_JSON_NULL = 1,
  SQ_JSON_FALSE = 2,
  SQ_JSON_TRUE = 3,
  SQ_JSON_NUMBER = 4,
  SQ_JSON_STRING = 5,
  SQ_JSON_KEY = 6,
  SQ_JSON_BEGIN_OBJECT = 7,
  SQ_JSON_END_OBJECT = 8,
  SQ_JSON_BEGIN_ARRAY = 9,
  SQ_JSON_END_ARRAY = 10
} sq_json_type;

/* sq_json_token.flags */
#define SQ_JSON_F_INTEGER   0x01u  /* NUMBER: no fraction and no exponent */
#define SQ_JSON_F_NEGATIVE  0x02u  /* NUMBER: starts with '-' */
#define SQ_JSON_F_ESCAPED   0x04u  /* STRING/KEY: had at least one escape */
#define SQ_JSON_F_HAS_NUL   0x08u  /* STRING/KEY: contains a NUL byte (\u0000) */

typedef struct sq_json_token {
  int type;              /* an sq_json_type */
  unsigned flags;        /* SQ_JSON_F_* */
  const char *text;      /* see EVENTS above; NULL for non-text tokens */
  size_t len;            /* bytes at text */
  uint64_t offset;       /* 0-based byte offset of the token in the input */
  uint64_t line;         /* 1-based line of the token */
  uint64_t column;       /* 1-based byte column of the token */
  int depth;             /* containers around the token (top level: 0) */
} sq_json_token;

/* Callback return values. */
#define SQ_JSON_CONTINUE 0
#define SQ_JSON_PAUSE    1
/* any other value aborts */

typedef int (*sq_json_callback)(void *user, const sq_json_token *token);

/* Return codes of sq_json_feed() / sq_json_finish(). */
#define SQ_JSON_OK      0
#define SQ_JSON_PAUSED  1
#define SQ_JSON_ERROR   2

/* Error codes (sq_json_error.code). */
typedef enum sq_json_error_code {
  SQ_JSON_E_NONE = 0,
  SQ_JSON_E_SYNTAX = 1,     /* grammar violation */
  SQ_JSON_E_UTF8 = 2,       /* invalid UTF-8 in the input */
  SQ_JSON_E_DEPTH = 3,      /* nesting deeper than the depth limit */
  SQ_JSON_E_TOO_LONG = 4,   /* a token exceeds the token limit */
  SQ_JSON_E_TRUNCATED = 5,  /* sq_json_finish(): input ended inside a value */
  SQ_JSON_E_NOMEM = 6,      /* allocation failed */
  SQ_JSON_E_ABORTED = 7     /* the callback returned an abort value */
} sq_json_error_code;

typedef struct sq_json_error {
  int code;              /* an sq_json_error_code */
  char message[96];      /* e.g. "expected ',' or ']'" (no position in it) */
  uint64_t offset;       /* 0-based byte offset of the offending byte */
  uint64_t line;         /* 1-based line */
  uint64_t column;       /* 1-based byte column */
} sq_json_error;

#define SQ_JSON_MAX_DEPTH          1000
#define SQ_JSON_DEFAULT_MAX_TOKEN  ((size_t)64 << 20)

/* Options (sq_json_set_options). */
#define SQ_JSON_OPT_MULTIPLE 0x01u   /* newline-separated top-level values */
/* One comma before a closing bracket or brace: `[1,]`, `{"a":1,}` (as
** Foundation's JSONDecoder accepts; off by default: RFC 8259 refuses them).
** Only after a value: `[,]`, `{,}` and `[1,,]` stay errors. */
#define SQ_JSON_OPT_TRAILING_COMMAS 0x02u

typedef struct sq_json_parser sq_json_parser;

/* A new parser, or NULL when out of memory. */
sq_json_parser *sq_json_new(sq_json_callback callback, void *user);
void sq_json_free(sq_json_parser *p);

/* Ready for a new input; keeps callback, options, limits, scratch memory. */
void sq_json_reset(sq_json_parser *p);
/* Starts over (as sq_json_reset) as if the input began at absolute byte
** offset `offset`, at the start of line `line`: positions go on from there
** (NDJSON resynchronizing after a bad line, sq_json_ingest.c). */
void sq_json_restart_at(sq_json_parser *p, uint64_t offset, uint64_t line);
void sq_json_set_callback(sq_json_parser *p, sq_json_callback cb, void *user);
/* The absolute offset of a token begun in the input so far but not yet
** delivered (a string or number cut by the chunk end), or UINT64_MAX. */
uint64_t sq_json_pending_start(const sq_json_parser *p);
/* The current line (1-based) and the absolute offset where it starts. */
void sq_json_line(const sq_json_parser *p, uint64_t *line, uint64_t *line_start);

void sq_json_set_options(sq_json_parser *p, unsigned options);
/* Lower the nesting limit (1..SQ_JSON_MAX_DEPTH; other values are clamped). */
void sq_json_set_max_depth(sq_json_parser *p, int max_depth);
/* Token size limit in bytes (see GRAMMAR: raw bytes of one string/number). */
void sq_json_set_max_token(sq_json_parser *p, size_t max_bytes);

/* Parses the next `len` bytes of input.  Returns SQ_JSON_OK (all bytes
** consumed), SQ_JSON_PAUSED (the callback asked to pause: only
** sq_json_consumed() bytes were used) or SQ_JSON_ERROR.  After an error,
** feed/finish return SQ_JSON_ERROR until sq_json_reset(). */
int sq_json_feed(sq_json_parser *p, const void *bytes, size_t len);

/* Bytes of the last sq_json_feed() chunk that were consumed. */
size_t sq_json_consumed(const sq_json_parser *p);

/* End of input: delivers a pending top-level number and checks that the
** input is complete (SQ_JSON_E_TRUNCATED otherwise; an empty input is an
** error in single-value mode and fine in SQ_JSON_OPT_MULTIPLE mode).
** Returns SQ_JSON_OK or SQ_JSON_ERROR (a pause request is ignored). */
int sq_json_finish(sq_json_parser *p);

/* Error details (code SQ_JSON_E_NONE if there was none). */
const sq_json_error *sq_json_error_info(const sq_json_parser *p);

/* Total bytes consumed so far, and the current nesting depth. */
uint64_t sq_json_offset(const sq_json_parser *p);
int sq_json_depth(const sq_json_parser *p);

/* Number conversion helpers for SQ_JSON_NUMBER texts.
** sq_json_number_int64: 1 and *out set when the literal is an integer
** (SQ_JSON_F_INTEGER) within int64 range, else 0.
** sq_json_number_double: the nearest double (strtod semantics, C locale
** independent of LC_NUMERIC); always succeeds for a valid literal,
** overflow gives +/-HUGE_VAL. */
int sq_json_number_int64(const char *text, size_t len, int64_t *out);
double sq_json_number_double(const char *text, size_t len);

/* PATH MATCHING
**
** Which arrays of a document a path selects: the one rule behind the
** ingest core's JSON driver (json_stream, importJSON: '$.data.items',
** '$.a[2]."k.x"') and the Swift decoder's elements(of:layout: .arrayAt).
** A path is a list of steps, each an object key (compared byte for byte
** with the unescaped key) or an array index (0-based); no steps: the
** top-level value.  Every array found at the path is selected (a key that
** is repeated selects each of its arrays, in document order).
**
**     sq_json_path *m = sq_json_path_new();
**     sq_json_path_add_key(m, "data", 4);
**     ...  in the parser callback, for every token outside a selected array
**     ...  (and for the END_ARRAY closing one):
**     switch( sq_json_path_match(m, t) ){
**       case SQ_JSON_PATH_ARRAY: ... its elements come next, at depth
**                                     sq_json_path_steps(m)+1 ...
**       case SQ_JSON_PATH_OTHER: ... an object or a scalar at the path ...
**     }
**
** sq_json_path_restart() before a new document.  Allocation failures:
** sq_json_path_new returns NULL, the add functions SQ_JSON_E_NOMEM; more
** than SQ_JSON_MAX_DEPTH steps is SQ_JSON_E_DEPTH; 0 on success. */
typedef struct sq_json_path sq_json_path;

#define SQ_JSON_PATH_NO     0   /* the token is not a value at the path */
#define SQ_JSON_PATH_ARRAY  1   /* a BEGIN_ARRAY at the path: selected */
#define SQ_JSON_PATH_OTHER  2   /* an object or a scalar at the path */

sq_json_path *sq_json_path_new(void);
void sq_json_path_free(sq_json_path *m);
int sq_json_path_add_key(sq_json_path *m, const char *key, size_t n);
int sq_json_path_add_index(sq_json_path *m, int64_t index);
int sq_json_path_steps(const sq_json_path *m);
void sq_json_path_restart(sq_json_path *m);
int sq_json_path_match(sq_json_path *m, const sq_json_token *t);

/* TAPE
**
** A flat record of a document's tokens (the Swift decoder's input: no
** tree).  Pass sq_json_tape_event as the parser's callback with a tape as
** its user pointer.  Each token is 16 bytes:
**   strings, keys, numbers  position: the offset in the input of the text's
**                           first byte (text without escapes lying in the
**                           bytes between input_start and input_end, whose
**                           input offset is `base`), or with flag
**                           SQ_JSON_TAPE_ARENA its offset in the arena, where
**                           the parser's unescaped or carried text was
**                           copied, after its 8-byte input offset;
**                           length: the text's bytes.
**   null, true, false       position: the input offset.
**   objects, arrays         position: the bracket's offset; length: the
**                           index of the token after the container's last
**                           (end tokens are not stored: a subtree is
**                           skipped in one step).  An object's tokens are
**                           key, value, key, value...
** pause_depth >= 0: the callback pauses the parser after each value at that
** depth (`completed` counts them).  Streaming (`streaming` set): only the
** values inside the arrays `matcher` selects are recorded (`inside` while
** in one; `found` once one was); an object or scalar at the path aborts
** the parse with failure_type set to its type.  Without a matcher (NDJSON)
** set `inside` and pause_depth 0.  Growth beyond 2^32 tokens or out of
** memory aborts with `overflow` set.  sq_json_tape_clear empties it (memory
** kept); sq_json_tape_release frees its memory. */
#define SQ_JSON_TAPE_ARENA 0x80u

typedef struct sq_json_tape_token {
  uint64_t position;
  uint32_t length;
  uint8_t kind;          /* an sq_json_type */
  uint8_t flags;         /* SQ_JSON_F_* | SQ_JSON_TAPE_ARENA */
  uint16_t reserved;
} sq_json_tape_token;

typedef struct sq_json_tape {
  sq_json_tape_token *tokens;
  size_t count, capacity;
  unsigned char *arena;
  size_t arena_count, arena_capacity;
  int depth;
  int overflow;
  const unsigned char *input_start, *input_end;
  uint64_t base;
  int pause_depth;
  int64_t completed;
  uint64_t first_offset;
  int streaming, inside, found, failure_type;
  sq_json_path *matcher;
  uint32_t stack[SQ_JSON_MAX_DEPTH + 2];
} sq_json_tape;

/* 0, or SQ_JSON_E_NOMEM (the tape is then empty and needs no release). */
int sq_json_tape_init(sq_json_tape *t);
void sq_json_tape_release(sq_json_tape *t);
void sq_json_tape_clear(sq_json_tape *t);
int sq_json_tape_event(void *tape, const sq_json_token *token);

#ifdef __cplusplus
}
#endif

#endif /* SQ_JSON_H */
