/*
** sq_date.h — the one date codec of StreamQLite.
**
** Every date the Swift library writes (binding a Date, insert(contentsOf:),
** importJSON into a date column, dates inside nested JSON values) is this
** text, in UTC, with milliseconds:
**
**     YYYY-MM-DD HH:MM:SS.SSS        e.g. 2024-05-01 12:00:00.250
**
** It is what SQLite's own date functions read (and what datetime() writes,
** plus milliseconds), the locale-week functions read it, and for years
** 0000-9999 text order is time order.  Reading accepts every form SQLite's
** date functions accept (see sq_time.c): 'T' or space, optional seconds and
** fraction, 'Z' or ±HH:MM, a bare date (midnight UTC), a Julian day number.
*/
#ifndef SQ_DATE_H
#define SQ_DATE_H
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Bytes sq_date_format_ms may write (the text is 23 bytes for years 0..9999). */
#define SQ_DATE_TEXT_MAX 32

/* Writes `ms` (milliseconds since 1970-01-01T00:00Z) as the date text into
** out[0..SQ_DATE_TEXT_MAX) and returns its length (no terminating NUL).
** Years outside 0000-9999 are written with more digits or a sign; such text
** does not sort with the rest and SQLite's date functions do not read it. */
int sq_date_format_ms(int64_t ms, char *out);

/* Parses z[0..n) as a time value and sets *ms (a bare date is its midnight
** UTC).  Returns 0 when it is a time value, nonzero otherwise (the
** SQ_TIME_* codes of sq_time.h). */
int sq_date_parse_ms(const char *z, int n, int64_t *ms);

/* A number as a time value: SQLite's 'auto' rule, which StreamQLite applies
** on every path (the SQL week functions, Swift's Date from a stored number):
** from 0 to 5373484.5 (exclusive) it is a Julian day number (SQLite's own
** reading of a number: 2455563.5 is 2011-01-02), else Unix seconds
** (1293926400 is 2011-01-02).  Sets *seconds (since 1970-01-01T00:00Z) and
** returns 0, or SQ_TIME_RANGE outside the years 0000-9999.  The one
** ambiguity: Unix seconds of 1970-01-20 to 1970-03-04 read as Julian days. */
int sq_date_number_seconds(double x, double *seconds);

/* Normalizes a time value z[0..n) into the date text at out (as
** sq_date_format_ms); returns its length, or -1 when z is not a time value.
** A bare date (YYYY-MM-DD) stays a bare date: it is a calendar day, not an
** instant, and is never shifted. */
int sq_date_normalize(const char *z, int n, char *out);

#ifdef __cplusplus
}
#endif
#endif
