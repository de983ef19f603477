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
#include <stddef.h>
#include <stdint.h>
#include <string.h>

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

/* The shapes files hold, recognized without date arithmetic: YYYY-MM-DD
** (returns 10), and YYYY-MM-DD followed by one ' ' or 'T', HH:MM (hour
** below 24), optional :SS, optional '.' and 1 to 3 digits, optional Z
** (returns 23: the length of its date text).  No offset moves such an
** instant and no rounding carries, so its date text is its own digits.
** Returns 0 for every other text, valid or not (sq_date_normalize
** decides those). */
static inline int sq_date_digits_at(uint64_t w, uint64_t at){
  /* the bytes of w at the 0xFF bytes of `at` are '0'..'9' (w read little-endian) */
  uint64_t hi = at & 0xF0F0F0F0F0F0F0F0ULL, want = at & 0x3030303030303030ULL;
  return (w & hi)==want && ((w + 0x0606060606060606ULL) & hi)==want;
}

static inline int sq_date_common_shape(const char *z, size_t n){
  static const unsigned char dim[13] = {0,31,29,31,30,31,30,31,31,30,31,30,31};
  unsigned mo, d, i;
  if( n<10 || n>28 || (n>10 && n<16) ) return 0;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__==__ORDER_LITTLE_ENDIAN__
  {
    uint64_t w;
    memcpy(&w, z, 8);                                    /* YYYY-MM- */
    if( (w & 0xFF0000FF00000000ULL)!=0x2D00002D00000000ULL
        || !sq_date_digits_at(w, 0x00FFFF00FFFFFFFFULL) ) return 0;
    if( n==10 ){
      if( (unsigned)(z[8]-'0')>9 || (unsigned)(z[9]-'0')>9 ) return 0;
    }else{
      memcpy(&w, z + 8, 8);                              /* DD HH:MM */
      if( (w & 0x0000FF0000000000ULL)!=0x00003A0000000000ULL
          || !sq_date_digits_at(w, 0xFFFF00FFFF00FFFFULL) ) return 0;
    }
  }
#else
  for(i=0; i<(n==10 ? 10u : 16u); i++){
    if( (i==4 || i==7) ? z[i]!='-' : i==13 ? z[i]!=':' : i==10 ? 0 : (unsigned)(z[i]-'0')>9 ) return 0;
  }
#endif
  mo = (unsigned)(z[5]-'0')*10 + (unsigned)(z[6]-'0');
  d = (unsigned)(z[8]-'0')*10 + (unsigned)(z[9]-'0');
  if( mo-1>11 || d-1>=dim[mo] ) return 0;
  if( mo==2 && d==29 ){
    unsigned y = (unsigned)(z[0]-'0')*1000 + (unsigned)(z[1]-'0')*100
               + (unsigned)(z[2]-'0')*10 + (unsigned)(z[3]-'0');
    if( !(y%4==0 && (y%100!=0 || y%400==0)) ) return 0;
  }
  if( n==10 ) return 10;
  /* the digits of HH:MM are checked: hour below 24, minute below 60 */
  if( (z[10]!=' ' && z[10]!='T') || z[11]>'2' || (z[11]=='2' && z[12]>'3') || z[14]>'5' ) return 0;
  i = 16;
  if( i<n && z[i]==':' ){
    if( i+3>n || (unsigned)(z[i+1]-'0')>5 || (unsigned)(z[i+2]-'0')>9 ) return 0;
    i += 3;
    if( i<n && z[i]=='.' ){
      unsigned k;
      for(k=1; k<=3 && i+k<n && (unsigned)(z[i+k]-'0')<=9; k++){}
      if( k==1 ) return 0;
      i += k;
    }
  }
  if( i<n && (z[i]=='Z' || z[i]=='z') ) i++;
  return i==n ? 23 : 0;
}

/* Normalizes a time value z[0..n) into the date text at out (as
** sq_date_format_ms); returns its length, or -1 when z is not a time value.
** A bare date (YYYY-MM-DD) stays a bare date: it is a calendar day, not an
** instant, and is never shifted. */
int sq_date_normalize(const char *z, int n, char *out);

#ifdef __cplusplus
}
#endif
#endif
