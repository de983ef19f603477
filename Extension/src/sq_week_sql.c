/*
** sq_week_sql.c — reading the SQL arguments of the locale-week functions
** and the locale_weeks table into the core's values: see sq_week_sql.h.
*/
#include "sq_week_sql.h"

#include <string.h>

const char *sq_week_value_text(void *p, int *n){
  sqlite3_value *v = (sqlite3_value*)p;
  const char *z = (const char*)sqlite3_value_text(v);
  *n = sqlite3_value_bytes(v);
  return z;
}

static const char *type_name(int t){
  switch( t ){
    case SQLITE_INTEGER: return "integer";
    case SQLITE_FLOAT: return "real";
    case SQLITE_BLOB: return "blob";
    case SQLITE_NULL: return "null";
    default: return "text";
  }
}

void sq_week_type_err(SqWeekErr *e, const char *arg, const char *want, int t){
  char *m = sqlite3_mprintf("%s: %s must be %s, got %s", e->fn, arg, want, type_name(t));
  if( m ){ sq_week_err_set(e, m); sqlite3_free(m); }
  else sq_week_err_nomem(e);
}

/* The TEXT argument v, named arg in a type error: its text and bytes, or
** NULL after an error */
static const char *text_arg(sqlite3_value *v, const char *arg, int *n, SqWeekErr *e){
  const char *z;
  int t = sqlite3_value_type(v);
  if( t != SQLITE_TEXT ){ sq_week_type_err(e, arg, "TEXT", t); return 0; }
  z = (const char*)sqlite3_value_text(v);
  if( !z ){ sq_week_err_nomem(e); return 0; }
  *n = sqlite3_value_bytes(v);
  return z;
}

SqLocale *sq_week_value_locale_slow(SqWeekCache *c, sqlite3_value *v, SqWeekErr *e){
  const char *z;
  int n = 0;
  if( !v ) return sq_week_locale(c, 0, 0, e);
  if( !(z = text_arg(v, "locale", &n, e)) ) return 0;
  return sq_week_locale(c, z, n, e);
}

SqZone *sq_week_value_zone(SqWeekCache *c, sqlite3_value *v, SqWeekErr *e){
  const char *z;
  int n = 0;
  if( !(z = text_arg(v, "tz", &n, e)) ) return 0;
  return sq_week_zone(c, z, n, e);
}

int sq_week_value_time_slow(sqlite3_value *v, SqTime *T, SqWeekErr *e){
  const char *z;
  int t = sqlite3_value_type(v);
  if( t == SQLITE_INTEGER || t == SQLITE_FLOAT ){
    SqWeekArg a = { sq_week_value_text, v };
    return sq_week_time_number(sqlite3_value_double(v), &a, T, e);
  }
  if( t != SQLITE_TEXT ){
    sq_week_type_err(e, "time", "TEXT or a number (a Julian day, or Unix seconds)", t);
    return 0;
  }
  z = (const char*)sqlite3_value_text(v);
  if( !z ){ sq_week_err_nomem(e); return 0; }
  return sq_week_time_text(z, sqlite3_value_bytes(v), T, e);
}

int sq_week_value_style(sqlite3_value *v, SqWeekErr *e){
  const char *z;
  int n = 0, style;
  if( !(z = text_arg(v, "style", &n, e)) ) return -1;
  style = sq_week_style(z, n);
  if( style < 0 ) sq_week_err_value(e, "unknown style (short, medium or long)", z, n);
  return style;
}
