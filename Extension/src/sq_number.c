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

int sq_number_text(const char *s, size_t n, sq_number *out){
  size_t i = 0, a, nint;
  int neg = 0, nd = 0, last = 0, real = 0;
  unsigned d;
  uint64_t m = 0;
  int64_t e = 0;
  if( i<n && s[i]=='-' ){ neg = 1; i++; }
  if( i>=n || (unsigned)(s[i]-'0')>9 ) return SQ_NUMBER_NOT;
  a = i;
  /* The mantissa's digits from the first non-zero one, ignoring the point,
  ** as m·10^e: m holds the first 19 (each integer digit past those adds 1
  ** to e; each fraction digit before them takes 1 from e); nd counts
  ** them, `last` is the count at the last non-zero one (the significant
  ** digits). */
  for(; i<n && (d = (unsigned)(s[i]-'0'))<=9; i++){
    if( nd==0 && d==0 ) continue;
    nd++;
    if( d ) last = nd;
    if( nd<=19 ) m = m*10 + d; else e++;
  }
  nint = i - a;
  if( i<n && s[i]=='.' ){
    i++;
    real = 1;
    if( i>=n || (unsigned)(s[i]-'0')>9 ) return SQ_NUMBER_NOT;
    for(; i<n && (d = (unsigned)(s[i]-'0'))<=9; i++){
      if( nd==0 && d==0 ){ e--; continue; }
      nd++;
      if( d ) last = nd;
      if( nd<=19 ){ m = m*10 + d; e--; }
    }
  }
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
  out->digits = last;
  out->canonical = !(nint>1 && s[a]=='0');
  if( last==0 && neg ) return SQ_NUMBER_NEG_ZERO;
  if( !real && nd<=18 ){                 /* at most 18 digits: m is exact */
    out->i = neg ? -(int64_t)m : (int64_t)m;
    out->r = (double)out->i;
    return SQ_NUMBER_INTEGER;
  }
  if( !real && sq_json_number_int64(s, n, &out->i) ){
    out->r = (double)out->i;
    return SQ_NUMBER_INTEGER;
  }
  /* a REAL is written as JSON writes it: no leading zeros */
  if( !out->canonical ) return SQ_NUMBER_NOT;
  if( last==0 ){
    out->r = 0.0;
    return SQ_NUMBER_REAL;
  }
  if( m<=((uint64_t)1<<53) && e>=-22 && e<=22 ){
    double v = (double)m;
    v = e<0 ? v/sq_number_pow10[-e] : v*sq_number_pow10[e];
    out->r = neg ? -v : v;
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
