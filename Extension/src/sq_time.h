/*
** sq_time.h — time-value parsing and proleptic Gregorian week arithmetic
** for the locale-week functions (sq_week.c).  Pure C, no ICU, no SQLite
** state: unit-tested by Extension/test/test_week_time.c.
*/
#ifndef SQ_TIME_H
#define SQ_TIME_H
#include <stdint.h>

/* A parsed time value.  A calendar date ("YYYY-MM-DD") is never shifted
** between zones: is_date=1 and `day` holds its day number.  Anything with
** a time of day (or a Julian day number) is an instant: is_date=0 and
** `ms` holds milliseconds since 1970-01-01T00:00Z. */
typedef struct SqTime {
  int is_date;
  int64_t day;     /* days since 1970-01-01 (when is_date) */
  int64_t ms;      /* ms since the Unix epoch, UTC (when !is_date) */
} SqTime;

/* Result codes of sq_time_parse_text */
#define SQ_TIME_OK       0
#define SQ_TIME_MALFORMED 1   /* not a form SQLite's date functions accept */
#define SQ_TIME_BADDATE  2   /* well-formed but impossible (2011-02-30) */
#define SQ_TIME_NOW      3   /* 'now': rejected, not deterministic */
#define SQ_TIME_RANGE    4   /* outside 0000-01-01 .. 9999-12-31 */

int sq_time_parse_text(const char *z, int n, SqTime *out);
int sq_time_from_julian(double jd, SqTime *out);
/* A number as a time value (sq_date.h, sq_date_number_seconds: a Julian
** day from 0 to 5373484.5, else Unix seconds). */
int sq_time_from_number(double x, SqTime *out);

int64_t sq_days_from_civil(int64_t y, int m, int d);
void sq_civil_from_days(int64_t z, int *y, int *m, int *d);
int sq_is_leap(int64_t y);
int sq_days_in_month(int64_t y, int m);
/* 1 = Sunday .. 7 = Saturday (ICU's UCAL_SUNDAY..UCAL_SATURDAY) */
int sq_dow(int64_t day);
int64_t sq_floor_div(int64_t a, int64_t b);

/* Week of `day` for a calendar whose weeks start on first_day (1=Sunday..
** 7=Saturday) and whose week 1 is the first week with at least min_days
** (1..7) days in the year.  Any output pointer may be NULL. */
void sq_week_of(int64_t day, int first_day, int min_days,
                int *week_year, int *week, int64_t *week_start);
/* Day number of the first day of week 1 of week year y. */
int64_t sq_week1_start(int64_t y, int first_day, int min_days);
/* 1..7, 1 = first_day */
int sq_local_weekday(int64_t day, int first_day);

#endif
