/*
** sq_calendar.h — calendar arithmetic for the weekly-report functions
** (sq_week.c): week keys read back, week of month, MySQL's WEEK() modes and
** retail/fiscal calendars (4-5-4, 4-4-5, 5-4-4).  Pure C, no ICU, no SQLite
** state, proleptic Gregorian days since 1970-01-01 (sq_time.h): unit-tested
** by Extension/test/test_calendar.c, the spec parser fuzzed by
** Extension/fuzz/fuzz_calendar.c.
*/
#ifndef SQ_CALENDAR_H
#define SQ_CALENDAR_H
#include <stdint.h>

/* A week key 'YYYY-WW' (iso = 0) or ISO 'YYYY-Www' (iso = 1), exactly those
** bytes (no spaces); the year has 4 digits, or 5 or 6 without a leading
** zero (years of other calendars: hebrew 5785, or past Gregorian 9999).
** Returns 1 and sets year and week (not yet checked against any calendar:
** 00 and 54 parse), or 0 if malformed. */
int sq_week_key_parse(const char *z, int n, int *year, int *week, int *iso);

/* The first day of week `week` of week year `year`, or 0 when that year has
** no such week (week < 1, or beyond its last week). */
int sq_week_key_start(int year, int week, int first_day, int min_days, int64_t *start);

/* ICU's WEEK_OF_MONTH ('W'): weeks start on first_day; week 1 is the first
** with at least min_days days of the month; days before it are week 0. */
int sq_week_of_month(int64_t day, int first_day, int min_days);

/* MySQL's WEEK(d, mode) (yearweek = 0) and YEARWEEK(d, mode) (yearweek = 1:
** *year receives the year the week belongs to), mode 0..7. */
int sq_mysql_week(int64_t day, int mode, int yearweek, int *year);

/* A fiscal (retail) calendar: 12 periods of 4 or 5 weeks, a year ending on
** a weekday at the end of a month, a 53rd week every 5 or 6 years. */
typedef struct SqFiscalCal {
  int weeks[12];        /* weeks per period in a 52-week year */
  int extra_period;     /* 0..11: the period that gets the 53rd week */
  int end_month;        /* 1..12 */
  int end_wday;         /* 1 = Sunday .. 7 = Saturday */
  int nearest;          /* 1: the weekday nearest the month's last day; 0: the last one in it */
  int named_by_start;   /* 1: year named for the calendar year in which it starts */
} SqFiscalCal;

/* Parses a calendar spec ('nrf', or '4-5-4, saturday nearest end of
** january, named by start year, 53rd week in q4', see sq_week.c).  Returns
** 1, or 0 with a message in err (at most errcap bytes, NUL-terminated). */
int sq_fiscal_parse(const char *spec, int n, SqFiscalCal *cal, char *err, int errcap);

/* Where `day` falls in calendar `cal` */
typedef struct SqFiscalDay {
  int year;                  /* the fiscal year's name */
  int64_t year_start, year_end;
  int weeks_in_year;         /* 52 or 53 */
  int week;                  /* 1..53 */
  int period;                /* 1..12 */
  int quarter;               /* 1..4 */
  int week_of_period;        /* 1..6 */
  int64_t period_start, period_end;
} SqFiscalDay;

void sq_fiscal_of(const SqFiscalCal *cal, int64_t day, SqFiscalDay *out);

#endif
