/*
** test_calendar.c — unit tests of the weekly-report arithmetic
** (sq_calendar.c): week keys back to days for all 49 week rules, week of
** month against a count by hand, and fiscal calendars: every spec form parses
** to what it says, bad specs fail naming the part, and for every pattern,
** year-end rule, weekday, month and 53rd-week quarter the weeks and periods
** of 1990..2040 tile each year exactly.
*/
#include "sq_calendar.h"
#include "sq_time.h"
#include "sq_test.h"

#include <stdio.h>
#include <string.h>

static void test_week_keys_invert_every_rule(void){
  int fd, md, ok = 1;
  int64_t day, lo = sq_days_from_civil(1990, 1, 1), hi = sq_days_from_civil(2030, 12, 31);
  for(fd = 1; fd <= 7; fd++) for(md = 1; md <= 7; md++){
    for(day = lo; day <= hi; day++){
      int wy, wn;
      int64_t ws, back;
      sq_week_of(day, fd, md, &wy, &wn, &ws);
      if( !sq_week_key_start(wy, wn, fd, md, &back) || back != ws ){ ok = 0; break; }
    }
    /* week 0 and the week after the year's last are refused */
    {
      int64_t s;
      int wn;
      sq_week_of(sq_days_from_civil(2020, 12, 31) - 3, fd, md, 0, &wn, 0);
      SQ_CHECK(!sq_week_key_start(2020, 0, fd, md, &s));
      SQ_CHECK_MSG(!sq_week_key_start(2020, wn + 1, fd, md, &s) || wn + 1 <= 53, "fd %d md %d", fd, md);
    }
  }
  SQ_CHECK(ok);
}

static void test_week_key_parse(void){
  int y, w, iso;
  SQ_CHECK(sq_week_key_parse("2011-02", 7, &y, &w, &iso) && y == 2011 && w == 2 && !iso);
  SQ_CHECK(sq_week_key_parse("2011-W53", 8, &y, &w, &iso) && y == 2011 && w == 53 && iso);
  SQ_CHECK(sq_week_key_parse("0000-00", 7, &y, &w, &iso) && y == 0 && w == 0);
  SQ_CHECK(!sq_week_key_parse("2011-2", 6, &y, &w, &iso));
  SQ_CHECK(!sq_week_key_parse("2011-w02", 8, &y, &w, &iso));
  SQ_CHECK(!sq_week_key_parse("2011/02", 7, &y, &w, &iso));
  SQ_CHECK(!sq_week_key_parse("2011-0x", 7, &y, &w, &iso));
  SQ_CHECK(!sq_week_key_parse("+011-02", 7, &y, &w, &iso));
  SQ_CHECK(sq_week_key_parse("12038-45", 8, &y, &w, &iso) && y == 12038 && w == 45 && !iso);
  SQ_CHECK(sq_week_key_parse("123456-W01", 10, &y, &w, &iso) && y == 123456 && w == 1 && iso);
  SQ_CHECK(!sq_week_key_parse("1234567-01", 10, &y, &w, &iso));
  SQ_CHECK(!sq_week_key_parse("02011-02", 8, &y, &w, &iso));
  SQ_CHECK(!sq_week_key_parse("201-02", 6, &y, &w, &iso));
  SQ_CHECK(!sq_week_key_parse("2011-02-", 8, &y, &w, &iso));
  SQ_CHECK(!sq_week_key_parse("2011-", 5, &y, &w, &iso));
}

/* Week of month by hand: walk the month's days, a new week at each first day */
static void test_week_of_month_by_counting(void){
  int fd, md, ok = 1;
  int64_t day, lo = sq_days_from_civil(2000, 1, 1), hi = sq_days_from_civil(2004, 12, 31);
  for(fd = 1; fd <= 7; fd++) for(md = 1; md <= 7; md++){
    int week = 0, first_week_days = 0, y, m, d;
    for(day = lo; day <= hi; day++){
      sq_civil_from_days(day, &y, &m, &d);
      if( d == 1 ){
        /* days of the month in its first (partial) week */
        first_week_days = 7 - (sq_dow(day) - fd + 7) % 7;
        week = first_week_days >= md ? 1 : 0;
      }else if( sq_dow(day) == fd ){
        week++;
      }
      if( sq_week_of_month(day, fd, md) != week ){ ok = 0; break; }
    }
  }
  SQ_CHECK(ok);
}

static int parse(const char *spec, SqFiscalCal *c, char *err){
  return sq_fiscal_parse(spec, (int)strlen(spec), c, err, 200);
}

static void test_fiscal_specs(void){
  SqFiscalCal c;
  char err[200];
  SQ_CHECK(parse("nrf", &c, err) && c.weeks[0] == 4 && c.weeks[1] == 5 && c.weeks[2] == 4
           && c.end_month == 1 && c.end_wday == 7 && c.nearest && c.named_by_start && c.extra_period == 11);
  SQ_CHECK(parse(" NRF ", &c, err) && c.nearest);
  SQ_CHECK(parse("5-4-4,last fri of jun,53rd week in q1", &c, err) && c.weeks[0] == 5 && c.weeks[11] == 4
           && c.end_month == 6 && c.end_wday == 6 && !c.nearest && !c.named_by_start && c.extra_period == 2);
  SQ_CHECK(parse("4-4-5, Sunday NEAREST end of December, named by end year", &c, err)
           && c.weeks[2] == 5 && c.end_wday == 1 && c.end_month == 12 && c.nearest && !c.named_by_start);
  SQ_CHECK(!parse("", &c, err) && strstr(err, "empty part"));
  SQ_CHECK(!parse("4-5-4", &c, err) && strstr(err, "no year end"));
  SQ_CHECK(!parse("last saturday of january", &c, err) && strstr(err, "no pattern"));
  SQ_CHECK(!parse("4-5-4, last saturday of january,", &c, err) && strstr(err, "empty part"));
  SQ_CHECK(!parse("4-5-4, last sat of janu", &c, err) && strcmp(err, "unknown month 'janu'") == 0);
  SQ_CHECK(!parse("4-5-4, last satur of jan", &c, err) && strcmp(err, "unknown weekday 'satur'") == 0);
  SQ_CHECK(!parse("4-5-4, last sat of jan, named by middle year", &c, err)
           && strcmp(err, "unknown part 'named by middle year'") == 0);
  SQ_CHECK(!parse("4-5-4, last sat of jan, last sun of feb", &c, err) && strstr(err, "a second year end"));
  SQ_CHECK(!parse("4-5-4, last sat of jan, 53rd week in q0", &c, err) && strstr(err, "unknown quarter"));
  SQ_CHECK(!parse("4-5-4, last sat of jan, 1 2 3 4 5 6 7 8 9", &c, err) && strstr(err, "unknown part"));
  SQ_CHECK(!parse("4-5-4, last sat of jan\n", &c, err) && strcmp(err, "unexpected byte 0x0A at byte 23") == 0);
}

/* Every calendar the grammar can say: years tile, periods tile years */
static void test_fiscal_years_tile(void){
  static const char *const pats[3] = { "4-5-4", "4-4-5", "5-4-4" };
  static const char *const days[7] = { "sun", "mon", "tue", "wed", "thu", "fri", "sat" };
  static const char *const months[12] = { "jan", "feb", "mar", "apr", "may", "jun", "jul",
                                          "aug", "sep", "oct", "nov", "dec" };
  int p, near, wd, mo, q, bad = 0, n53 = 0;
  for(p = 0; p < 3; p++) for(near = 0; near < 2; near++) for(wd = 0; wd < 7; wd++)
  for(mo = 0; mo < 12; mo++) for(q = 1; q <= 4; q += 3){
    char spec[120], err[200];
    SqFiscalCal c;
    SqFiscalDay D, prev;
    int64_t day, lo = sq_days_from_civil(1990, 1, 1), hi = sq_days_from_civil(2040, 12, 31);
    snprintf(spec, sizeof spec, near ? "%s, %s nearest end of %s, 53rd week in q%d"
             : "%s, last %s of %s, 53rd week in q%d", pats[p], days[wd], months[mo], q);
    if( !parse(spec, &c, err) ){ bad++; continue; }
    memset(&prev, 0, sizeof prev);
    for(day = lo; day <= hi; day++){
      int y, m, d, ey, em, ed, k, total = 0;
      sq_fiscal_of(&c, day, &D);
      sq_civil_from_days(D.year_end, &ey, &em, &ed);
      if( D.year_start > day || D.year_end < day || D.period_start > day || D.period_end < day
          || D.year_end - D.year_start + 1 != 7 * D.weeks_in_year
          || (D.weeks_in_year != 52 && D.weeks_in_year != 53)
          || sq_dow(D.year_end) != wd + 1
          || D.week != (int)((day - D.year_start) / 7) + 1
          || D.week_of_period != (int)((day - D.period_start) / 7) + 1
          || D.quarter != (D.period - 1) / 3 + 1 || D.period < 1 || D.period > 12 ){ bad++; break; }
      /* the end day: in its month (last) or within 3 days of its last day (nearest) */
      if( !near && (em != mo + 1 || ed + 7 <= sq_days_in_month(ey, em)) ){ bad++; break; }
      if( near ){
        int64_t last = sq_days_from_civil(ey - (em == 1 && mo == 11), mo + 1,
                                          sq_days_in_month(ey - (em == 1 && mo == 11), mo + 1));
        if( D.year_end - last > 3 || last - D.year_end > 3 ){ bad++; break; }
      }
      /* the periods' weeks add up to the year's; the 53rd week is in quarter q */
      for(k = 0; k < 12; k++) total += c.weeks[k];
      if( total != 52 ){ bad++; break; }
      if( D.period == 3 * q && D.weeks_in_year == 53
          && (D.period_end - D.period_start + 1) / 7 != c.weeks[D.period - 1] + 1 ){ bad++; break; }
      if( day > lo && day == prev.year_end + 1 ){
        if( D.year != prev.year + 1 || D.week != 1 || D.period != 1 ){ bad++; break; }
        n53 += D.weeks_in_year == 53;
      }else if( day > lo && (D.year != prev.year || D.year_start != prev.year_start) ){ bad++; break; }
      if( day > lo && day == prev.period_end + 1 && D.period != prev.period % 12 + 1 ){ bad++; break; }
      prev = D;
      (void)y; (void)m; (void)d;
    }
    if( bad ){ fprintf(stderr, "fiscal spec fails: %s (day %lld)\n", spec, (long long)day); break; }
  }
  SQ_CHECK(bad == 0);
  SQ_CHECK(n53 > 0);
}

int main(void){
  test_week_keys_invert_every_rule();
  test_week_key_parse();
  test_week_of_month_by_counting();
  test_fiscal_specs();
  test_fiscal_years_tile();
  return sq_test_done("test_calendar");
}
