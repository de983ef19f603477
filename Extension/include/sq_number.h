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

/* Exact powers of ten (every one up to 1e22 is a double exactly). */
static const double sq_number_pow10[23] = {
  1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
  1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22
};

/* The common REAL case of the rule, inline: 1 and *out when text[0..n) is
** -?(0|[1-9][0-9]*)(.[0-9]+)? with at most 15 digits and not a negative
** zero: the digits m are exact, and m / 10^f one correctly rounded
** division (strtod's double); 0 when sq_number_text must decide. */
static inline int sq_number_small_decimal(const char *text, size_t n, double *out){
  size_t k = n>0 && text[0]=='-', j;
  uint64_t m = 0;
  int nd = 0, f = -1;
  if( n<=k || n-k>16 ) return 0;
  if( text[k]=='0' && k+1<n && text[k+1]!='.' ) return 0;
  for(j=k; j<n; j++){
    unsigned d = (unsigned)(text[j]-'0');
    if( d<=9 ){ m = m*10 + d; nd++; if( f>=0 ) f++; }
    else if( text[j]=='.' && f<0 && j>k && j+1<n ) f = 0;
    else return 0;
  }
  if( nd>15 || (k && m==0) ) return 0;
  *out = f>0 ? (double)m / sq_number_pow10[f] : (double)m;
  if( k ) *out = -*out;
  return 1;
}

/* The common case of the rule, inline: 1 and *out when text[0..n) is
** -?[0-9]{1,18} and not a negative zero (SQ_NUMBER_INTEGER: at most 18
** digits always fit); 0 when sq_number_text must decide. */
static inline int sq_number_small_integer(const char *text, size_t n, int64_t *out){
  size_t k = n>0 && text[0]=='-', j;
  uint64_t v = 0;
  if( n<=k || n-k>18 ) return 0;
  for(j=k; j<n; j++){
    unsigned d = (unsigned)(text[j]-'0');
    if( d>9 ) return 0;
    v = v*10 + d;
  }
  if( k && v==0 ) return 0;
  *out = k ? -(int64_t)v : (int64_t)v;
  return 1;
}

/* Why a refusal (SQ_NUMBER_NOT … NEG_ZERO) is one, for error messages:
** "is not a number", "is beyond the range of a REAL (it would be
** infinity)", …; "" for INTEGER and REAL. */
const char *sq_number_refusal(int kind);

#ifdef __cplusplus
}
#endif
#endif
