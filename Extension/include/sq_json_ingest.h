/*
** sq_json_ingest.h — JSON as a format of the ingest core.
**
** The one path from JSON bytes to typed rows: the push parser of sq_json.h
** delivers tokens, this driver follows the layout or path to the selected
** records and turns each object's members into the keys and values of the
** ingest core (sq_ingest.h), which matches keys to columns and coerces
** values exactly as it does for CSV (sq_csv_ingest.h).  The SQL virtual
** table json_stream (Extension/src/sq_json_stream.c) and the Swift
** library's importJSON both drive it, so the same document is stored the
** same way through both.  The driver keeps its state with the core: its
** calls take the core (sq_ingest *) as their handle, and sq_ingest_reset
** and sq_ingest_free reset and free the driver too.
**
** USAGE
**
**     sq_ingest *g = sq_ingest_new(on_row, user);     // sq_ingest.h: columns,
**     sq_ingest_add_column(g, "id", -1, "INTEGER", -1, 0);   // keys, strict…
**     sq_ingest_add_column(g, "title", -1, "TEXT", -1, 0);
**     sq_ingest_add_column(g, "added", -1, "DATETIME", -1, 0);
**     sq_ingest_map_key(g, "date_added", -1, "added", -1);
**     sq_ingest_json_path(g, "$.data.tasks", -1);   // or sq_ingest_json_layout()
**     while( (n = read(fd, buf, sizeof buf)) > 0 ){
**       if( sq_ingest_json_feed(g, buf, n)==SQ_INGEST_ERROR ) break;
**     }
**     if( !sq_ingest_error_info(g)->code ) sq_ingest_json_finish(g);
**     const sq_ingest_error *e = sq_ingest_error_info(g);
**     if( e->code ) fprintf(stderr, "line %llu, element %lld: %s\n",
**                           e->line, e->record, e->message);
**     sq_ingest_free(g);
**
** RECORDS
**
** Each selected element is a record: an object, whose members are the
** keys and values of the core (KEYS → COLUMNS, VALUES of sq_ingest.h; a
** nested object or array as a member's value is its minified JSON text);
** with sq_ingest_set_whole_values any value, as one minified JSON value.
** An element that is not an object is a record error (SQ_INGEST_E_LAYOUT).
**
** LAYOUTS AND PATHS
**
**   SQ_INGEST_LAYOUT_ARRAY    the top-level value is an array of records
**                             (default)
**   SQ_INGEST_LAYOUT_NDJSON   one record per top-level value, values
**                             separated by newlines, blank lines allowed
**   SQ_INGEST_LAYOUT_AUTO     ARRAY when the first value is an array, else
**                             NDJSON (and one top-level array only)
**   a path                    the elements of the array(s) at a path:
**                             steps added by sq_ingest_json_path_key/_index
**                             or parsed by sq_ingest_json_path from
**                             '$' (AUTO), '$.a.b', '$.a[2].b', '$."a key"',
**                             '$[0]', or 'ndjson' (NDJSON).  Other parts of
**                             the document are parsed (validated) and
**                             skipped; if keys repeat, every match yields
**                             records.  A path that selects an object or a
**                             scalar, or selects nothing, is an error.
**
** ERRORS AND REJECTS
**
** JSON syntax errors (code SQ_INGEST_E_JSON; a token over the record
** limit: SQ_INGEST_E_TOO_BIG) carry the parser's message and position
** (sq_json.h).  With a reject callback (sq_ingest.h, REJECTING RECORDS) a
** record's raw text runs from its first byte to its closing brace (NDJSON:
** to its line end); in NDJSON a syntax error or a value running over its
** line end rejects the line and the parser starts again on the next one;
** inside a JSON array a syntax error still stops the input.
**
** Depends on sq_ingest.h (the core and its buffer) and the C library.
*/
#ifndef SQ_JSON_INGEST_H
#define SQ_JSON_INGEST_H

#include <stddef.h>
#include <stdint.h>
#include "sq_ingest.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Layouts (sq_ingest_json_layout). */
#define SQ_INGEST_LAYOUT_ARRAY   1
#define SQ_INGEST_LAYOUT_NDJSON  2
#define SQ_INGEST_LAYOUT_AUTO    3

/* ---- set-up (before the first input) ----------------------------------- */

int sq_ingest_json_layout(sq_ingest *g, int layout);
/* Parses a json_stream path ('$', '$.a[2].b', '$."k"', 'ndjson'; n < 0: NUL
** terminated); error "invalid path '…' (expected …)". */
int sq_ingest_json_path(sq_ingest *g, const char *path, int n);
/* Appends a path step: an object key, or an array index. */
int sq_ingest_json_path_key(sq_ingest *g, const char *key, int nkey);
int sq_ingest_json_path_index(sq_ingest *g, int64_t index);

/* ---- input -------------------------------------------------------------- */

/* Parses the next bytes (any chunking).  SQ_INGEST_OK (all consumed),
** SQ_INGEST_PAUSED (only sq_ingest_json_consumed() bytes used) or
** SQ_INGEST_ERROR. */
int sq_ingest_json_feed(sq_ingest *g, const void *bytes, size_t n);
size_t sq_ingest_json_consumed(const sq_ingest *g);
/* End of input: a last record (a top-level number), a truncated document,
** a path that selected nothing.  SQ_INGEST_OK or SQ_INGEST_ERROR. */
int sq_ingest_json_finish(sq_ingest *g);
/* Bytes of input consumed so far. */
uint64_t sq_ingest_json_offset(const sq_ingest *g);

/* ---- the one JSON string escaper ----------------------------------------
** Used for nested values and whole values here and for the records the
** csv_stream function writes as JSON objects (sq_csv_stream.c): one escaper,
** so the same text is the same JSON whichever format it came from. */

/* Appends s[0..n) (valid UTF-8) as a JSON string literal: ", \, \b, \f,
** \n, \r, \t as short escapes, other control characters as \u00xx,
** everything else as is.  Returns as sq_ingest_buf_put (sq_ingest.h). */
int sq_ingest_json_string(sq_ingest_buf *b, const char *s, size_t n, int64_t max);

#ifdef __cplusplus
}
#endif

#endif /* SQ_JSON_INGEST_H */
