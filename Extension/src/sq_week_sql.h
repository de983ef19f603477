/*
** sq_week_sql.h — the SQL side shared by the locale-week functions
** (sq_week.c) and the locale_weeks table (sq_weeks_table.c): reads their
** sqlite3_value arguments (locale, tz, time, style) into the values of the
** core (sq_week_core.h), with the type errors of the SQL functions
** ("locale_week: locale must be TEXT, got integer") in an SqWeekErr.
*/
#ifndef SQ_WEEK_SQL_H
#define SQ_WEEK_SQL_H
#include "sq_internal.h"
#include "sq_week_core.h"

/* Internal to the extension: calls bind within it (no PLT) */
#pragma GCC visibility push(hidden)

/* SqWeekArg.text of an sqlite3_value: its text and bytes */
const char *sq_week_value_text(void *v, int *n);

/* "FN: ARG must be WANT, got TYPE" (type: SQLITE_INTEGER, …) */
void sq_week_type_err(SqWeekErr *e, const char *arg, const char *want, int type);

/* The locale argument v (NULL: none, the ISO 8601 weeks) */
SqLocale *sq_week_value_locale_slow(SqWeekCache *c, sqlite3_value *v, SqWeekErr *e);
static inline SqLocale *sq_week_value_locale(SqWeekCache *c, sqlite3_value *v, SqWeekErr *e){
  const char *z;
  if( v && sqlite3_value_type(v) == SQLITE_TEXT && (z = (const char*)sqlite3_value_text(v)) != 0 ){
    return sq_week_locale(c, z, sqlite3_value_bytes(v), e);
  }
  return sq_week_value_locale_slow(c, v, e);
}
SqZone *sq_week_value_zone(SqWeekCache *c, sqlite3_value *v, SqWeekErr *e);
/* A time argument: TEXT, or a number (a Julian day, or Unix seconds) */
int sq_week_value_time_slow(sqlite3_value *v, SqTime *T, SqWeekErr *e);
static inline int sq_week_value_time(sqlite3_value *v, SqTime *T, SqWeekErr *e){
  const char *z;
  if( sqlite3_value_type(v) == SQLITE_TEXT && (z = (const char*)sqlite3_value_text(v)) != 0 ){
    return sq_week_time_text(z, sqlite3_value_bytes(v), T, e);
  }
  return sq_week_value_time_slow(v, T, e);
}
/* A label style argument: 0..2, or -1 after an error */
int sq_week_value_style(sqlite3_value *v, SqWeekErr *e);

/* Registers the locale_weeks table on db, sharing the functions' cache c
** (sq_weeks_table.c; takes a reference to c). */
int sq_weeks_table_register(sqlite3 *db, SqWeekCache *c);

#pragma GCC visibility pop

#endif
