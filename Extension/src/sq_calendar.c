/*
** sq_calendar.c — calendar arithmetic for the weekly-report functions.
** See sq_calendar.h; the SQL functions and their manual are in sq_week.c.
*/
#include "sq_calendar.h"
#include "sq_time.h"

#include <stdio.h>
#include <string.h>

/* ---- week keys ---------------------------------------------------------- */

static int dig(char c){ return c >= '0' && c <= '9'; }

int sq_week_key_parse(const char *z, int n, int *year, int *week, int *iso){
  int i = 0, y = 0;
  while( i < n && i < 6 && dig(z[i]) ) y = y*10 + (z[i++]-'0');
  if( i < 4 || i >= n || z[i] != '-' || (i > 4 && z[0] == '0') ) return 0;
  i++;
  *iso = i < n && z[i] == 'W';
  if( *iso ) i++;
  if( n - i != 2 || !dig(z[i]) || !dig(z[i+1]) ) return 0;
  *year = y;
  *week = (z[i]-'0')*10 + (z[i+1]-'0');
  return 1;
}

int sq_week_key_start(int year, int week, int first_day, int min_days, int64_t *start){
  int64_t s;
  if( week < 1 || week > 53 ) return 0;
  s = sq_week1_start(year, first_day, min_days) + 7 * (int64_t)(week - 1);
  /* every week year has 52 weeks, some 53 */
  if( week == 53 && s >= sq_week1_start((int64_t)year + 1, first_day, min_days) ) return 0;
  *start = s;
  return 1;
}

/* ---- week of month -------------------------------------------------------- */

int sq_week_of_month(int64_t day, int first_day, int min_days){
  int y, m, d, lead;
  sq_civil_from_days(day, &y, &m, &d);
  /* days of the month's first (partial) week before its first day */
  lead = (sq_dow(day - d + 1) - first_day + 7) % 7;
  return (d + lead - 1) / 7 + (7 - lead >= min_days ? 1 : 0);
}

/* ---- MySQL WEEK() ------------------------------------------------------- */

/* MySQL's mode bits (sql/sql_time.h: WEEK_MONDAY_FIRST, WEEK_YEAR,
** WEEK_FIRST_WEEKDAY, after week_mode()): bit 0 weeks start on Monday,
** bit 1 week 0 belongs to the previous year (1..53), bit 2 week 1 is the
** first week containing the first day of the week (else: with 4 days). */
int sq_mysql_week(int64_t day, int mode, int yearweek, int *year){
  int monday_first, week_year, first_weekday, y, m, d, wd;
  int64_t jan1, days;
  mode &= 7;
  if( !(mode & 1) ) mode ^= 4;
  if( yearweek ) mode |= 2;
  monday_first = mode & 1;
  week_year = (mode & 2) != 0;
  first_weekday = (mode & 4) != 0;
  sq_civil_from_days(day, &y, &m, &d);
  jan1 = sq_days_from_civil(y, 1, 1);
  /* weekday of January 1st, 0 = the first day of the week */
  wd = monday_first ? (sq_dow(jan1) + 5) % 7 : sq_dow(jan1) - 1;
  if( m == 1 && d <= 7 - wd ){
    if( !week_year && ((first_weekday && wd != 0) || (!first_weekday && wd >= 4)) ){
      *year = y;
      return 0;
    }
    week_year = 1;
    y--;
    days = 365 + sq_is_leap(y);
    jan1 -= days;
    wd = (int)((wd + 53 * 7 - days) % 7);
  }
  if( (first_weekday && wd != 0) || (!first_weekday && wd >= 4) ) days = day - (jan1 + (7 - wd));
  else days = day - (jan1 - wd);
  if( week_year && days >= 52 * 7 ){
    wd = (wd + 365 + sq_is_leap(y)) % 7;
    if( (!first_weekday && wd < 4) || (first_weekday && wd == 0) ){
      *year = y + 1;
      return 1;
    }
  }
  *year = y;
  return (int)(days / 7) + 1;
}

/* ---- fiscal calendars ----------------------------------------------------- */

static const char *const month_names[12] = {
  "january", "february", "march", "april", "may", "june", "july", "august",
  "september", "october", "november", "december"
};
static const char *const wday_names[7] = {
  "sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"
};

/* word w (n bytes) is `full` or its first three letters, any case */
static int name_is(const char *w, int n, const char *full){
  int i, fl = (int)strlen(full);
  if( n != fl && n != 3 ) return 0;
  for(i = 0; i < n; i++) if( (w[i] | 0x20) != full[i] ) return 0;
  return 1;
}
static int find_name(const char *w, int n, const char *const *names, int count){
  int i;
  for(i = 0; i < count; i++) if( name_is(w, n, names[i]) ) return i + 1;
  return 0;
}
static int word_is(const char *w, int n, const char *lit){
  int i;
  if( n != (int)strlen(lit) ) return 0;
  for(i = 0; i < n; i++) if( (w[i] | 0x20) != lit[i] ) return 0;
  return 1;
}

#define SQ_MAXWORDS 8

/* The clause's words (split on spaces); 0 when it has more than SQ_MAXWORDS */
static int split_words(const char *z, int n, const char **w, int *wl){
  int i = 0, k = 0;
  while( i < n ){
    int j;
    while( i < n && z[i] == ' ' ) i++;
    if( i >= n ) break;
    j = i;
    while( j < n && z[j] != ' ' ) j++;
    if( k == SQ_MAXWORDS ) return -1;
    w[k] = z + i; wl[k] = j - i; k++;
    i = j;
  }
  return k;
}

static int fail(char *err, int cap, const char *what, const char *z, int n){
  snprintf(err, (size_t)cap, "%s '%.*s'", what, n > 60 ? 60 : n, z);
  return 0;
}

int sq_fiscal_parse(const char *spec, int n, SqFiscalCal *cal, char *err, int errcap){
  static const char nrf[] = "4-5-4, saturday nearest end of january, named by start year, 53rd week in q4";
  int have_pattern = 0, have_end = 0, have_name = 0, have_53 = 0, q53 = 4, i, p;
  int pos = 0;
  {
    /* the preset, any case, surrounded by spaces or not */
    const char *a = spec, *b = spec + n;
    while( a < b && *a == ' ' ) a++;
    while( b > a && b[-1] == ' ' ) b--;
    if( word_is(a, (int)(b - a), "nrf") ){ spec = nrf; n = (int)strlen(nrf); }
  }
  memset(cal, 0, sizeof(*cal));
  for(i = 0; i < n; i++){
    unsigned char c = (unsigned char)spec[i];
    if( c < ' ' || c >= 0x7f ){
      snprintf(err, (size_t)errcap, "unexpected byte 0x%02X at byte %d", c, i + 1);
      return 0;
    }
  }
  while( pos <= n ){
    const char *w[SQ_MAXWORDS], *cz = spec + pos;
    int wl[SQ_MAXWORDS], k, cl = 0;
    while( pos + cl < n && spec[pos + cl] != ',' ) cl++;
    pos += cl + 1;
    while( cl > 0 && *cz == ' ' ){ cz++; cl--; }
    while( cl > 0 && cz[cl-1] == ' ' ) cl--;
    k = split_words(cz, cl, w, wl);
    if( k == 0 ) return fail(err, errcap, "empty part in", spec, n);
    if( k < 0 ) return fail(err, errcap, "unknown part", cz, cl);
    if( k == 1 && wl[0] == 5 && w[0][1] == '-' && w[0][3] == '-' ){
      static const char *const pats[3] = { "4-5-4", "4-4-5", "5-4-4" };
      int j, found = -1;
      for(j = 0; j < 3; j++) if( memcmp(w[0], pats[j], 5) == 0 ) found = j;
      if( found < 0 ) return fail(err, errcap, "unknown pattern (4-5-4, 4-4-5 or 5-4-4)", w[0], wl[0]);
      if( have_pattern++ ) return fail(err, errcap, "a second pattern", cz, cl);
      for(j = 0; j < 12; j++) cal->weeks[j] = pats[found][2 * (j % 3)] - '0';
    }else if( (k == 4 && word_is(w[0], wl[0], "last") && word_is(w[2], wl[2], "of"))
              || (k == 5 && word_is(w[1], wl[1], "nearest") && word_is(w[2], wl[2], "end")
                  && word_is(w[3], wl[3], "of")) ){
      int last = k == 4;
      int wd = find_name(w[last ? 1 : 0], wl[last ? 1 : 0], wday_names, 7);
      int mo = find_name(w[k-1], wl[k-1], month_names, 12);
      if( !wd ) return fail(err, errcap, "unknown weekday", w[last ? 1 : 0], wl[last ? 1 : 0]);
      if( !mo ) return fail(err, errcap, "unknown month", w[k-1], wl[k-1]);
      if( have_end++ ) return fail(err, errcap, "a second year end", cz, cl);
      cal->end_wday = wd;
      cal->end_month = mo;
      cal->nearest = !last;
    }else if( k == 4 && word_is(w[0], wl[0], "named") && word_is(w[1], wl[1], "by")
              && word_is(w[3], wl[3], "year")
              && (word_is(w[2], wl[2], "start") || word_is(w[2], wl[2], "end")) ){
      if( have_name++ ) return fail(err, errcap, "a second year naming", cz, cl);
      cal->named_by_start = word_is(w[2], wl[2], "start");
    }else if( k == 4 && word_is(w[0], wl[0], "53rd") && word_is(w[1], wl[1], "week")
              && word_is(w[2], wl[2], "in") ){
      if( wl[3] != 2 || (w[3][0] | 0x20) != 'q' || w[3][1] < '1' || w[3][1] > '4' ){
        return fail(err, errcap, "unknown quarter (q1..q4)", w[3], wl[3]);
      }
      if( have_53++ ) return fail(err, errcap, "a second 53rd week", cz, cl);
      q53 = w[3][1] - '0';
    }else{
      return fail(err, errcap, "unknown part", cz, cl);
    }
  }
  if( !have_pattern ) return fail(err, errcap, "no pattern (4-5-4, 4-4-5 or 5-4-4) in", spec, n);
  if( !have_end ){
    return fail(err, errcap, "no year end ('last saturday of january' or "
                "'saturday nearest end of january') in", spec, n);
  }
  p = 3 * q53 - 1;
  cal->extra_period = p;
  return 1;
}

/* The last day of the fiscal year that ends in cal->end_month of year y */
static int64_t fiscal_end(const SqFiscalCal *cal, int64_t y){
  int64_t last = sq_days_from_civil(y, cal->end_month, sq_days_in_month(y, cal->end_month));
  int back = (sq_dow(last) - cal->end_wday + 7) % 7;    /* 0..6 days back */
  if( cal->nearest && back > 3 ) return last - back + 7;
  return last - back;
}

void sq_fiscal_of(const SqFiscalCal *cal, int64_t day, SqFiscalDay *o){
  int y, m, d, i, wk;
  int64_t end, start, ps;
  sq_civil_from_days(day, &y, &m, &d);
  /* the year whose end month's year is y - 1, y or y + 1 */
  end = fiscal_end(cal, y);
  if( day > end ){ y++; end = fiscal_end(cal, y); }
  start = fiscal_end(cal, y - 1) + 1;
  if( day < start ){ y--; end = start - 1; start = fiscal_end(cal, y - 1) + 1; }
  o->year = y;
  if( cal->named_by_start ){
    /* the calendar year in which the fiscal year starts (NRF's words) */
    int sm, sd;
    sq_civil_from_days(start, &o->year, &sm, &sd);
  }
  o->year_start = start;
  o->year_end = end;
  o->weeks_in_year = (int)((end - start + 1) / 7);
  o->week = (int)((day - start) / 7) + 1;
  ps = start;
  for(i = 0; i < 12; i++){
    wk = cal->weeks[i] + (o->weeks_in_year == 53 && i == cal->extra_period);
    if( day < ps + 7 * wk || i == 11 ) break;
    ps += 7 * wk;
  }
  o->period = i + 1;
  o->quarter = i / 3 + 1;
  o->period_start = ps;
  o->period_end = ps + 7 * wk - 1;
  o->week_of_period = (int)((day - ps) / 7) + 1;
}
