/*
** sq_number.c — the one rule for a field's text as a number (sq_number.h).
**
** One pass over the bytes: the syntax, the significant digits, the first
** 19 of them as an integer m and the decimal exponent e.  When m is below
** 2^53 and |e| <= 22, m and 10^|e| are exact doubles and one IEEE
** multiplication or division rounds correctly (Clinger's fast path: the
** double strtod gives); anything else goes through strtod
** (sq_json_number_double), and its result is checked for overflow and
** underflow against the digits.
*/
#include "sq_number.h"
#include "sq_json.h"

#include <math.h>

/* Exact powers of ten (every one up to 1e22 is a double exactly). */
static const double kPow10[23] = {
  1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
  1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22
};

int sq_number_text(const char *s, size_t n, sq_number *out){
  size_t i = 0, a, nint = 0;
  int neg = 0, ndig = 0, sig = 0, pending = 0, real = 0;
  uint64_t m = 0;
  int64_t e = 0;
  if( i<n && s[i]=='-' ){ neg = 1; i++; }
  if( i>=n || (unsigned)(s[i]-'0')>9 ) return SQ_NUMBER_NOT;
  a = i;
  /* The mantissa's digits, ignoring the point, as m·10^e: leading zeros
  ** skipped; zeros after a non-zero digit wait in `pending` until another
  ** non-zero digit comes (then they are digits of m) or the mantissa ends
  ** (then they are a power of ten); m holds the first 19 significant
  ** digits, each one past those adds 1 to e; each fraction digit takes 1
  ** from e. */
  for(;;){
    for(; i<n && (unsigned)(s[i]-'0')<=9; i++){
      unsigned d = (unsigned)(s[i]-'0');
      if( real ) e--;
      if( d==0 ){ if( sig ) pending++; continue; }
      sig += pending + 1;
      for(; pending>0; pending--){ if( ndig<19 ){ m *= 10; ndig++; }else e++; }
      if( ndig<19 ){ m = m*10 + d; ndig++; }else e++;
    }
    if( real ) break;
    nint = i - a;
    if( i>=n || s[i]!='.' ) break;
    i++;
    real = 1;
    if( i>=n || (unsigned)(s[i]-'0')>9 ) return SQ_NUMBER_NOT;
  }
  e += pending;
  if( i<n && (s[i]=='e' || s[i]=='E') ){
    int64_t x = 0;
    int esign = 1;
    i++;
    real = 1;
    if( i<n && (s[i]=='+' || s[i]=='-') ){ if( s[i]=='-' ) esign = -1; i++; }
    if( i>=n || (unsigned)(s[i]-'0')>9 ) return SQ_NUMBER_NOT;
    for(; i<n && (unsigned)(s[i]-'0')<=9; i++){
      if( x<100000000 ) x = x*10 + (s[i]-'0');
    }
    e += esign*x;
  }
  if( i!=n ) return SQ_NUMBER_NOT;
  out->digits = sig;
  out->canonical = !(nint>1 && s[a]=='0');
  if( sig==0 && neg ) return SQ_NUMBER_NEG_ZERO;
  if( !real && sq_json_number_int64(s, n, &out->i) ){
    out->r = (double)out->i;
    return SQ_NUMBER_INTEGER;
  }
  /* a REAL is written as JSON writes it: no leading zeros */
  if( !out->canonical ) return SQ_NUMBER_NOT;
  if( sig==0 ){
    out->r = 0.0;
    return SQ_NUMBER_REAL;
  }
  if( m<=((uint64_t)1<<53) && e>=-22 && e<=22 ){
    double d = (double)m;
    d = e<0 ? d/kPow10[-e] : d*kPow10[e];
    out->r = neg ? -d : d;
    return SQ_NUMBER_REAL;        /* between 1e-22 and 2^53·1e22 */
  }
  out->r = sq_json_number_double(s, n);
  if( !isfinite(out->r) ) return SQ_NUMBER_INFINITE;
  if( out->r==0.0 ) return SQ_NUMBER_TINY;     /* non-zero digits, yet 0.0 */
  return SQ_NUMBER_REAL;
}

const char *sq_number_refusal(int kind){
  switch( kind ){
    case SQ_NUMBER_NOT:      return "is not a number";
    case SQ_NUMBER_INFINITE: return "is beyond the range of a REAL (it would be stored as infinity)";
    case SQ_NUMBER_TINY:     return "is too close to zero for a REAL (it would be stored as 0.0)";
    case SQ_NUMBER_NEG_ZERO: return "is a negative zero (SQLite keeps no sign on a zero: it would be stored as 0)";
    default:                 return "";
  }
}
