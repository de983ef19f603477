/*
** sq_time.c — parsing of SQLite time values and proleptic Gregorian
** week arithmetic.  See sq_time.h.  Accepted forms (those of SQLite's
** date functions, same meaning):
**
**   YYYY-MM-DD                         a calendar date (never shifted)
**   YYYY-MM-DD HH:MM[:SS[.SSS…]]       'T' may replace the space
**   HH:MM[:SS[.SSS…]]                  on 2000-01-01, as in SQLite
**   …time followed by Z or ±HH:MM      an offset; without one: UTC
**   DDDDDDD[.ddd]                      a Julian day number (as text)
**
** Leading/trailing spaces are ignored.  'now' is rejected (SQ_TIME_NOW):
** a deterministic function cannot read the clock.  Negative years and
** years past 9999 are out of range.
*/
#include "sq_internal.h"
#include "sq_time.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int64_t sq_floor_div(int64_t a, int64_t b){
  int64_t q = a / b;
  if( (a % b != 0) && ((a < 0) != (b < 0)) ) q--;
  return q;
}

int sq_is_leap(int64_t y){
  return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

int sq_days_in_month(int64_t y, int m){
  static const unsigned char dm[12] = {31,28,31,30,31,30,31,31,30,31,30,31};
  return m == 2 ? 28 + sq_is_leap(y) : dm[m-1];
}

/* H. Hinnant's days_from_civil / civil_from_days (proleptic Gregorian). */
int64_t sq_days_from_civil(int64_t y, int m, int d){
  int64_t era, yoe, doy, doe;
  y -= m <= 2;
  era = sq_floor_div(y, 400);
  yoe = y - era * 400;
  doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

void sq_civil_from_days(int64_t z, int *py, int *pm, int *pd){
  int64_t era, doe, yoe, y, doy, mp, d, m;
  z += 719468;
  era = sq_floor_div(z, 146097);
  doe = z - era * 146097;
  yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  y = yoe + era * 400;
  doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  mp = (5 * doy + 2) / 153;
  d = doy - (153 * mp + 2) / 5 + 1;
  m = mp < 10 ? mp + 3 : mp - 9;
  *py = (int)(y + (m <= 2));
  *pm = (int)m;
  *pd = (int)d;
}

int sq_dow(int64_t day){
  /* 1970-01-01 was a Thursday (5 in 1=Sunday numbering) */
  int64_t r = (day + 4) % 7;
  if( r < 0 ) r += 7;
  return (int)r + 1;
}

int sq_local_weekday(int64_t day, int first_day){
  return (sq_dow(day) - first_day + 7) % 7 + 1;
}

int64_t sq_week1_start(int64_t y, int first_day, int min_days){
  int64_t jan1 = sq_days_from_civil(y, 1, 1);
  int64_t ws = jan1 - (sq_dow(jan1) - first_day + 7) % 7;
  /* days of that week that fall in year y */
  if( 7 - (jan1 - ws) >= min_days ) return ws;
  return ws + 7;
}

void sq_week_of(int64_t day, int first_day, int min_days,
                int *week_year, int *week, int64_t *week_start){
  int y, m, d, wy;
  int64_t ws, w1;
  sq_civil_from_days(day, &y, &m, &d);
  ws = day - (sq_dow(day) - first_day + 7) % 7;
  wy = y;
  if( m == 12 && d >= 25 ){
    int64_t next = sq_week1_start(y + 1, first_day, min_days);
    if( ws >= next ){ wy = y + 1; w1 = next; goto done; }
  }
  w1 = sq_week1_start(y, first_day, min_days);
  if( ws < w1 ){
    wy = y - 1;
    w1 = sq_week1_start(y - 1, first_day, min_days);
  }
done:
  if( week_year ) *week_year = wy;
  if( week ) *week = (int)((ws - w1) / 7) + 1;
  if( week_start ) *week_start = ws;
}

/* ---- parsing ---------------------------------------------------------- */

static int digits(const char *z, int n, int *v){
  int i, r = 0;
  for(i = 0; i < n; i++){
    if( z[i] < '0' || z[i] > '9' ) return 0;
    r = r * 10 + (z[i] - '0');
  }
  *v = r;
  return 1;
}

static int is_space(char c){
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

/* Parses HH:MM[:SS[.fff]] [spaces] [Z|±HH:MM] at z[*pi..n).  Sets the
** time of day in ms and the offset in minutes. */
static int parse_hms(const char *z, int n, int *pi, int64_t *tod_ms, int *off_min){
  int i = *pi, h, mi, s = 0;
  double frac = 0;
  if( i + 5 > n || !digits(z + i, 2, &h) || z[i+2] != ':' || !digits(z + i + 3, 2, &mi) ) return 0;
  if( h > 24 || mi > 59 ) return 0;
  i += 5;
  if( i < n && z[i] == ':' ){
    if( i + 3 > n || !digits(z + i + 1, 2, &s) || s > 59 ) return 0;
    i += 3;
    if( i < n && z[i] == '.' && i + 1 < n && z[i+1] >= '0' && z[i+1] <= '9' ){
      double scale = 0.1;
      i++;
      while( i < n && z[i] >= '0' && z[i] <= '9' ){
        frac += (z[i] - '0') * scale;
        scale /= 10;
        i++;
      }
    }
  }
  *tod_ms = (int64_t)h * 3600000 + (int64_t)mi * 60000
          + (int64_t)((s + frac) * 1000.0 + 0.5);
  *off_min = 0;
  while( i < n && is_space(z[i]) ) i++;
  if( i < n && (z[i] == 'Z' || z[i] == 'z') ){
    i++;
  }else if( i < n && (z[i] == '+' || z[i] == '-') ){
    int oh, om, sign = z[i] == '-' ? -1 : 1;
    if( i + 6 > n || !digits(z + i + 1, 2, &oh) || z[i+3] != ':'
        || !digits(z + i + 4, 2, &om) || oh > 14 || om > 59 ) return 0;
    *off_min = sign * (oh * 60 + om);
    i += 6;
  }
  *pi = i;
  return 1;
}

static int is_julian_text(const char *z, int n){
  int i = 0, nd = 0;
  if( i < n && (z[i] == '+' || z[i] == '-') ) i++;
  while( i < n && z[i] >= '0' && z[i] <= '9' ){ i++; nd++; }
  if( i < n && z[i] == '.' ){
    i++;
    while( i < n && z[i] >= '0' && z[i] <= '9' ){ i++; nd++; }
  }
  if( nd == 0 ) return 0;
  if( i < n && (z[i] == 'e' || z[i] == 'E') ){
    int ne = 0;
    i++;
    if( i < n && (z[i] == '+' || z[i] == '-') ) i++;
    while( i < n && z[i] >= '0' && z[i] <= '9' ){ i++; ne++; }
    if( ne == 0 ) return 0;
  }
  return i == n;
}

#define SQ_MS_PER_DAY 86400000LL
#define SQ_DAY_MIN   (-719528LL)            /* 0000-01-01 */
#define SQ_DAY_MAX   (2932896LL)            /* 9999-12-31 */

int sq_time_from_julian(double jd, SqTime *out){
  double ijd;
  /* 1721059.5 = 0000-01-01T00:00Z; 5373484.5 = 10000-01-01T00:00Z */
  if( !(jd >= 1721059.5 && jd < 5373484.5) ) return SQ_TIME_RANGE;
  ijd = jd * 86400000.0 + 0.5;
  out->is_date = 0;
  out->day = 0;
  out->ms = (int64_t)ijd - 210866760000000LL;   /* JD of the Unix epoch in ms */
  return SQ_TIME_OK;
}

int sq_date_number_seconds(double x, double *seconds){
  if( x>=0.0 && x<5373484.5 ){
    if( x<1721059.5 ) return SQ_TIME_RANGE;      /* a Julian day before 0000-01-01 */
    *seconds = (x - 2440587.5) * 86400.0;
    return SQ_TIME_OK;
  }
  /* -62167219200 = 0000-01-01T00:00Z; 253402300800 = 10000-01-01T00:00Z */
  if( !(x>=-62167219200.0 && x<253402300800.0) ) return SQ_TIME_RANGE;
  *seconds = x;
  return SQ_TIME_OK;
}

int sq_time_from_number(double x, SqTime *out){
  double s;
  if( x>=0.0 && x<5373484.5 ) return sq_time_from_julian(x, out);
  if( sq_date_number_seconds(x, &s)!=SQ_TIME_OK ) return SQ_TIME_RANGE;
  out->is_date = 0;
  out->day = 0;
  out->ms = (int64_t)floor(s * 1000.0 + 0.5);
  return SQ_TIME_OK;
}

int sq_time_parse_text(const char *z, int n, SqTime *out){
  int i, y, m, d, off = 0, has_time = 0;
  int64_t tod = 0, day;
  while( n > 0 && is_space(z[0]) ){ z++; n--; }
  while( n > 0 && is_space(z[n-1]) ) n--;
  if( n == 3 && (z[0]|0x20) == 'n' && (z[1]|0x20) == 'o' && (z[2]|0x20) == 'w' ){
    return SQ_TIME_NOW;
  }
  if( n >= 10 && z[4] == '-' && z[7] == '-' ){
    if( !digits(z, 4, &y) || !digits(z + 5, 2, &m) || !digits(z + 8, 2, &d) ){
      return SQ_TIME_MALFORMED;
    }
    i = 10;
    if( i < n ){
      while( i < n && (is_space(z[i]) || z[i] == 'T') ) i++;
      if( !parse_hms(z, n, &i, &tod, &off) || i != n ) return SQ_TIME_MALFORMED;
      has_time = 1;
    }
    if( m < 1 || m > 12 || d < 1 || d > sq_days_in_month(y, m) ) return SQ_TIME_BADDATE;
  }else if( n >= 5 && z[2] == ':' ){
    i = 0;
    if( !parse_hms(z, n, &i, &tod, &off) || i != n ) return SQ_TIME_MALFORMED;
    y = 2000; m = 1; d = 1;
    has_time = 1;
  }else if( is_julian_text(z, n) ){
    char buf[64];
    if( n >= (int)sizeof(buf) ) return SQ_TIME_MALFORMED;
    memcpy(buf, z, n);
    buf[n] = 0;
    return sq_time_from_julian(strtod(buf, 0), out);
  }else{
    return SQ_TIME_MALFORMED;
  }
  day = sq_days_from_civil(y, m, d);
  if( !has_time ){
    out->is_date = 1;
    out->day = day;
    out->ms = day * SQ_MS_PER_DAY;
    return SQ_TIME_OK;
  }
  out->is_date = 0;
  out->day = 0;
  out->ms = day * SQ_MS_PER_DAY + tod - (int64_t)off * 60000;
  if( out->ms < SQ_DAY_MIN * SQ_MS_PER_DAY || out->ms >= (SQ_DAY_MAX + 1) * SQ_MS_PER_DAY ){
    return SQ_TIME_RANGE;
  }
  return SQ_TIME_OK;
}

/* ---- the date codec (sq_date.h) ------------------------------------------ */

#include "sq_date.h"

static char *put_digits(char *p, int64_t v, int width){
  char tmp[24];
  int n = 0;
  if( v < 0 ){ *p++ = '-'; v = -v; }
  do{ tmp[n++] = (char)('0' + v % 10); v /= 10; }while( v > 0 && n < 20 );
  while( n < width ) tmp[n++] = '0';
  while( n > 0 ) *p++ = tmp[--n];
  return p;
}

static int format_day(int64_t day, char *out){
  int y, m, d;
  char *p = out;
  sq_civil_from_days(day, &y, &m, &d);
  p = put_digits(p, y, 4); *p++ = '-';
  p = put_digits(p, m, 2); *p++ = '-';
  p = put_digits(p, d, 2);
  return (int)(p - out);
}

int sq_date_format_ms(int64_t ms, char *out){
  int64_t day = sq_floor_div(ms, SQ_MS_PER_DAY);
  int64_t rem = ms - day * SQ_MS_PER_DAY;
  char *p = out + format_day(day, out);
  *p++ = ' ';
  p = put_digits(p, rem / 3600000, 2); *p++ = ':';
  p = put_digits(p, rem / 60000 % 60, 2); *p++ = ':';
  p = put_digits(p, rem / 1000 % 60, 2); *p++ = '.';
  p = put_digits(p, rem % 1000, 3);
  return (int)(p - out);
}

int sq_date_parse_ms(const char *z, int n, int64_t *ms){
  SqTime t;
  int rc = sq_time_parse_text(z, n, &t);
  if( rc != SQ_TIME_OK ) return rc;
  *ms = t.is_date ? t.day * SQ_MS_PER_DAY : t.ms;
  return SQ_TIME_OK;
}

/* The date text of a text of sq_date_common_shape: its own digits. */
static int normalize_common(const char *z, int n, char *out){
  int k = sq_date_common_shape(z, (size_t)n);
  if( k==10 ){
    memcpy(out, z, 10);
  }else if( k==23 ){
    memcpy(out, z, 16);
    out[10] = ' ';
    if( n>16 && z[16]==':' ){
      out[16] = ':'; out[17] = z[17]; out[18] = z[18];
    }else{
      memcpy(out + 16, ":00", 3);
    }
    memcpy(out + 19, ".000", 4);
    if( n>20 && z[19]=='.' ){
      int i;
      for(i = 20; i < 23 && i < n && (unsigned)(z[i] - '0') <= 9; i++) out[i] = z[i];
    }
  }
  return k ? k : -1;
}

int sq_date_normalize(const char *z, int n, char *out){
  SqTime t;
  int k = normalize_common(z, n, out);
  if( k >= 0 ) return k;
  if( sq_time_parse_text(z, n, &t) != SQ_TIME_OK ) return -1;
  if( t.is_date ) return format_day(t.day, out);
  return sq_date_format_ms(t.ms, out);
}
