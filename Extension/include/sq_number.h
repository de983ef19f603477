/*
** sq_number.h — what a field's text means as a number: the one rule.
**
** Every path that turns a field's text into a number calls
** sq_number_text(): the typed tables of csv_stream and json_stream (and
** their type inference), Swift's importCSV/importJSON (the same C ingest
** core), and Swift's CSVRecordCursor/CSVRowCursor.  So the same text is
** the same number, or the same refusal, everywhere
** (docs/sql/conversions.md is the user's table).
**
** A number is written -?[0-9]+ (an integer; leading zeros allowed) or as a
** JSON number literal -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?.
** Nothing else is: no spaces around it, no '+', no hex, no '.5' or '5.',
** no NaN or Infinity, no thousands separators.
**
**   SQ_NUMBER_INTEGER   -?[0-9]+ within 64 bits; i, and r = (double)i
**   SQ_NUMBER_REAL      any other number whose double is finite, and not
**                       0.0 unless written as a zero; r (the nearest double,
**                       as strtod gives it: subnormals too)
**   SQ_NUMBER_NOT       not a number
**   SQ_NUMBER_INFINITE  beyond the range of a double (1e400: would be ±inf)
**   SQ_NUMBER_TINY      not zero, but closer to it than any double
**                       (1e-400 would be 0.0)
**   SQ_NUMBER_NEG_ZERO  a negative zero (-0, -0.0, -0e5): SQLite keeps no
**                       sign on a zero in a table, so it would come back 0
**
** digits: the significant digits (first to last non-zero digit of the
** mantissa; 0 for a zero): at most 15 (DBL_DIG) and a normal double
** (|r| >= DBL_MIN) gives the text's value back exactly.  canonical: an
** integer written as SQLite writes it (no leading zeros).
*/
#ifndef SQ_NUMBER_H
#define SQ_NUMBER_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SQ_NUMBER_NOT       0
#define SQ_NUMBER_INTEGER   1
#define SQ_NUMBER_REAL      2
#define SQ_NUMBER_INFINITE  3
#define SQ_NUMBER_TINY      4
#define SQ_NUMBER_NEG_ZERO  5

typedef struct sq_number {
  int64_t i;         /* SQ_NUMBER_INTEGER */
  double r;          /* INTEGER, REAL */
  int digits;        /* significant digits of the mantissa */
  int canonical;     /* INTEGER: no leading zeros */
} sq_number;

/* Classifies text[0..n) (not NUL terminated): one of SQ_NUMBER_*. */
int sq_number_text(const char *text, size_t n, sq_number *out);

/* Why a refusal (SQ_NUMBER_NOT … NEG_ZERO) is one, for error messages:
** "is not a number", "is beyond the range of a REAL (it would be
** infinity)", …; "" for INTEGER and REAL. */
const char *sq_number_refusal(int kind);

#ifdef __cplusplus
}
#endif
#endif
