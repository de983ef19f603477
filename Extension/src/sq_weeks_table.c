/*
** sq_weeks_table.c — the locale_weeks table-valued function:
**
**   SELECT * FROM locale_weeks(start, end, locale [, tz [, style]])
**                              -> week, week_start, week_end, label
**
** every locale week that holds a day from start's local day to end's, in
** order, one row at a time (constant memory); end before start, and NULL
** arguments, are errors.  The arguments and the week computations are the
** locale-week functions' (sq_week_sql.h, sq_week_core.h); sq_week.c
** registers it with the functions' cache.
*/
#include "sq_week_sql.h"

#include <string.h>

/* Columns; the arguments are the hidden ones, in order */
#define LW_WEEK 0
#define LW_START 1
#define LW_END 2
#define LW_LABEL 3
#define LW_ARG_START 4     /* start_time, end_time, locale, tz, style */
#define LW_NARGS 5

static const char lw_name[] = "locale_weeks";

typedef struct LwTable {
  sqlite3_vtab base;
  SqWeekCache *c;
} LwTable;

typedef struct LwCursor {
  sqlite3_vtab_cursor base;
  int64_t ws, last;              /* this week's first day; the last week's */
  SqLocale loc;                  /* a copy: the cache may recycle its entry
                                 ** (CAL_ICU: loc.cal is the cursor's own clone) */
  int style;
  sqlite3_value *start_arg;      /* for error messages */
} LwCursor;

static int lw_connect(sqlite3 *db, void *aux, int argc, const char *const *argv,
                      sqlite3_vtab **pp, char **err){
  LwTable *t;
  int rc = sqlite3_declare_vtab(db, "CREATE TABLE x(week TEXT, week_start TEXT, week_end TEXT, "
      "label TEXT, start_time HIDDEN, end_time HIDDEN, locale HIDDEN, tz HIDDEN, style HIDDEN)");
  if( rc != SQLITE_OK ) return rc;
  t = sqlite3_malloc(sizeof(*t));
  if( !t ) return SQLITE_NOMEM;
  memset(t, 0, sizeof(*t));
  t->c = (SqWeekCache*)aux;
  sqlite3_vtab_config(db, SQLITE_VTAB_INNOCUOUS);
  *pp = &t->base;
  return SQLITE_OK;
}

static int lw_disconnect(sqlite3_vtab *p){ sqlite3_free(p); return SQLITE_OK; }

/* idxNum: bit i set when hidden argument i has an = constraint */
static int lw_best_index(sqlite3_vtab *tab, sqlite3_index_info *info){
  int i, pos[LW_NARGS], mask = 0, n = 0;
  for(i = 0; i < LW_NARGS; i++) pos[i] = -1;
  for(i = 0; i < info->nConstraint; i++){
    const struct sqlite3_index_constraint *k = &info->aConstraint[i];
    int a = k->iColumn - LW_ARG_START;
    if( a < 0 || a >= LW_NARGS ) continue;
    if( !k->usable || k->op != SQLITE_INDEX_CONSTRAINT_EQ ) return SQLITE_CONSTRAINT;
    pos[a] = i;
  }
  for(i = 0; i < LW_NARGS; i++){
    if( pos[i] < 0 ) continue;
    mask |= 1 << i;
    info->aConstraintUsage[pos[i]].argvIndex = ++n;
    info->aConstraintUsage[pos[i]].omit = 1;
  }
  if( (mask & 7) != 7 || (mask & 16 && !(mask & 8)) ){
    sqlite3_free(tab->zErrMsg);
    tab->zErrMsg = sqlite3_mprintf("locale_weeks: needs start_time, end_time and locale "
                                   "(then tz, then style)");
    return SQLITE_ERROR;
  }
  info->idxNum = mask;
  info->estimatedCost = 10;
  info->estimatedRows = 1000;
  /* rows come in time order; week keys of another calendar may not sort
  ** so as text (a 5-digit hebrew year), so ORDER BY week is SQLite's */
  if( info->nOrderBy == 1 && info->aOrderBy[0].iColumn >= LW_START
      && info->aOrderBy[0].iColumn <= LW_END && !info->aOrderBy[0].desc ){
    info->orderByConsumed = 1;
  }
  return SQLITE_OK;
}

static int lw_open(sqlite3_vtab *p, sqlite3_vtab_cursor **pp){
  LwCursor *cur = sqlite3_malloc(sizeof(*cur));
  if( !cur ) return SQLITE_NOMEM;
  memset(cur, 0, sizeof(*cur));
  cur->last = -1;
  *pp = &cur->base;
  return SQLITE_OK;
}

static int lw_close(sqlite3_vtab_cursor *p){
  LwCursor *cur = (LwCursor*)p;
  if( cur->loc.cal ) ucal_close(cur->loc.cal);
  sqlite3_value_free(cur->start_arg);
  sqlite3_free(cur);
  return SQLITE_OK;
}

/* Hands e's error to the table (none: out of memory) */
static int lw_fail(sqlite3_vtab_cursor *p, SqWeekErr *e){
  sqlite3_vtab *t = p->pVtab;
  if( !e->msg ) return SQLITE_NOMEM;
  sqlite3_free(t->zErrMsg);
  t->zErrMsg = e->msg;
  e->msg = 0;
  return SQLITE_ERROR;
}

/* The same for an error about one of the two times, which the message
** names: "locale_weeks: end_time: impossible date '2011-02-30'" */
static int lw_fail_time(sqlite3_vtab_cursor *p, SqWeekErr *e, const char *arg){
  const char *prefix = "locale_weeks: ";
  size_t n = strlen(prefix);
  if( !e->msg ) return SQLITE_NOMEM;
  if( strncmp(e->msg, prefix, n) == 0 ){
    char *m = sqlite3_mprintf("%s%s: %s", prefix, arg, e->msg + n);
    sqlite3_free(e->msg);
    e->msg = m;
  }
  return lw_fail(p, e);
}

static int lw_filter(sqlite3_vtab_cursor *p, int idxNum, const char *idxStr,
                     int argc, sqlite3_value **argv){
  LwCursor *cur = (LwCursor*)p;
  SqWeekCache *c = ((LwTable*)p->pVtab)->c;
  const char *const names[LW_NARGS] = { "start_time", "end_time", "locale", "tz", "style" };
  SqWeekErr e = { lw_name, 0 };
  SqWeekArg t0 = { sq_week_value_text, argv[0] }, t1 = { sq_week_value_text, argc > 1 ? argv[1] : 0 };
  SqLocale *L;
  SqZone *Z = 0;
  SqTime T0, T1;
  int64_t d0, d1;
  int i;
  cur->ws = 0;
  cur->last = -1;
  for(i = 0; i < argc; i++){
    if( sqlite3_value_type(argv[i]) == SQLITE_NULL ){
      sqlite3_free(p->pVtab->zErrMsg);
      p->pVtab->zErrMsg = sqlite3_mprintf("locale_weeks: %s is NULL", names[i]);
      return SQLITE_ERROR;
    }
  }
  L = sq_week_value_locale(c, argv[2], &e);
  if( !L ) return lw_fail(p, &e);
  if( cur->loc.cal ) ucal_close(cur->loc.cal);
  cur->loc = *L;
  cur->loc.cal = 0;
  if( L->cal_kind == CAL_ICU ){
    UErrorCode st = U_ZERO_ERROR;
    cur->loc.cal = ucal_clone(L->cal, &st);
    if( U_FAILURE(st) || !cur->loc.cal ){
      /* (ICU fails a clone for want of memory) */
      if( cur->loc.cal ){ ucal_close(cur->loc.cal); cur->loc.cal = 0; }
      return SQLITE_NOMEM;
    }
  }
  if( argc > 3 && !(Z = sq_week_value_zone(c, argv[3], &e)) ) return lw_fail(p, &e);
  cur->style = 1;
  if( argc > 4 && (cur->style = sq_week_value_style(argv[4], &e)) < 0 ) return lw_fail(p, &e);
  if( !sq_week_value_time(argv[0], &T0, &e) || !sq_week_local_day(&T0, Z, &t0, &d0, &e) ){
    return lw_fail_time(p, &e, "start_time");
  }
  if( !sq_week_value_time(argv[1], &T1, &e) || !sq_week_local_day(&T1, Z, &t1, &d1, &e) ){
    return lw_fail_time(p, &e, "end_time");
  }
  if( d1 < d0 ){
    sq_week_err_arg(&e, "end_time is before start_time: end_time", &t1);
    return lw_fail(p, &e);
  }
  sqlite3_value_free(cur->start_arg);
  if( !(cur->start_arg = sqlite3_value_dup(argv[0])) ) return SQLITE_NOMEM;
  cur->ws = sq_week_start_of(d0, &cur->loc);
  cur->last = sq_week_start_of(d1, &cur->loc);
  /* every week of the series lies in years 0000..9999, or no row comes */
  if( cur->ws < SQ_FIRST_DAY ){
    sq_week_err_arg(&e, "its week starts before 0000-01-01 (years 0000-9999): time", &t0);
    return lw_fail_time(p, &e, "start_time");
  }
  if( cur->last + 6 > SQ_LAST_DAY ){
    sq_week_err_arg(&e, "its week ends after 9999-12-31 (years 0000-9999): time", &t1);
    return lw_fail_time(p, &e, "end_time");
  }
  return SQLITE_OK;
}

static int lw_next(sqlite3_vtab_cursor *p){ ((LwCursor*)p)->ws += 7; return SQLITE_OK; }
static int lw_eof(sqlite3_vtab_cursor *p){
  LwCursor *cur = (LwCursor*)p;
  return cur->ws > cur->last;
}

static int lw_column(sqlite3_vtab_cursor *p, sqlite3_context *ctx, int col){
  LwCursor *cur = (LwCursor*)p;
  SqWeekErr e = { lw_name, 0 };
  SqWeekArg tv = { sq_week_value_text, cur->start_arg };
  char buf[384];
  int wy, wn, n = -1;
  switch( col ){
    case LW_WEEK:
      if( sq_week_key_of(&cur->loc, cur->loc.cal, cur->ws, &wy, &wn, &e) ){
        n = sq_week_key_text(wy, wn, buf);
      }
      break;
    case LW_START: n = sq_week_date_text(cur->ws, &tv, buf, &e); break;
    case LW_END: n = sq_week_date_text(cur->ws + 6, &tv, buf, &e); break;
    case LW_LABEL:
      n = sq_week_label(((LwTable*)p->pVtab)->c, &cur->loc, cur->style, cur->ws,
                        &tv, buf, (int)sizeof buf, &e);
      break;
    default: return SQLITE_OK;    /* the hidden arguments: NULL */
  }
  if( n >= 0 ) sqlite3_result_text(ctx, buf, n, SQLITE_TRANSIENT);
  else if( e.msg ){ sqlite3_result_error(ctx, e.msg, -1); sqlite3_free(e.msg); }
  else sqlite3_result_error_nomem(ctx);
  return SQLITE_OK;
}

static int lw_rowid(sqlite3_vtab_cursor *p, sqlite3_int64 *rowid){
  *rowid = ((LwCursor*)p)->ws;
  return SQLITE_OK;
}

static sqlite3_module lw_module = {
  0, 0, lw_connect, lw_best_index, lw_disconnect, 0, lw_open, lw_close, lw_filter,
  lw_next, lw_eof, lw_column, lw_rowid,
  0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0
};

int sq_weeks_table_register(sqlite3 *db, SqWeekCache *c){
  c->refs++;
  return sqlite3_create_module_v2(db, "locale_weeks", &lw_module, c, sq_week_cache_release);
}
