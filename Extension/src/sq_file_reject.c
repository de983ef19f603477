/*
** sq_file_reject.c — rejected records of the typed file tables
** (json_stream, csv_stream): the options on_error, max_errors and
** reject_table, the reject table, and the error budget.  The ingest core
** (sq_ingest.h, REJECTING RECORDS) decides what a record error is and
** skips the record; this file writes each one as a row and stops the scan
** when the budget is spent.  Both formats use it through the driver
** (sq_file_table.h).
**
** The reject table ('[schema.]name', schema main when not given) is
**   CREATE TABLE name(file TEXT, line INTEGER, offset INTEGER,
**     record INTEGER, "column" TEXT, reason TEXT, raw TEXT,
**     raw_truncated INTEGER)
** created at the start of a scan when missing; an existing table must
** have these columns (others may be there: they get their DEFAULT).  Its
** rows are written by the statement that reads the table, in its
** transaction: when the statement fails, SQLite takes them back with the
** rest of it.
*/
#include "sq_file_table.h"

#include <stdlib.h>
#include <string.h>

static const char *const rej_cols[] = {
  "file", "line", "offset", "record", "column", "reason", "raw", "raw_truncated"
};
#define REJ_NCOL ((int)(sizeof(rej_cols)/sizeof(rej_cols[0])))

int sq_ft_reject_option(sq_ft_vtab *vt, const char *key, const char *value, char **pzErr){
  const char *zName = vt->fmt->zName;
  *pzErr = 0;
  if( sqlite3_stricmp(key, "on_error")==0 ){
    if( sqlite3_stricmp(value, "skip")==0 ) vt->skip = 1;
    else if( sqlite3_stricmp(value, "abort")==0 ) vt->skip = 0;
    else *pzErr = sqlite3_mprintf("%s: on_error: expected abort or skip, got '%q'", zName, value);
    return 1;
  }
  if( sqlite3_stricmp(key, "max_errors")==0 ){
    char *end = 0;
    double d = strtod(value, &end);
    if( value[0]==0 || *end || !(d>=0) || d>9e15 || (d>=1 && d!=(double)(sqlite3_int64)d) ){
      *pzErr = sqlite3_mprintf("%s: max_errors: expected a count of records (0, 1, 2…) or a "
                               "fraction of the records read (0 < F < 1), got '%q'", zName, value);
    }else if( d>0 && d<1 ){
      vt->max_frac = d;
      vt->max_errors = -1;
    }else{
      vt->max_frac = 0;
      vt->max_errors = (sqlite3_int64)d;
    }
    vt->max_errors_set = 1;
    return 1;
  }
  if( sqlite3_stricmp(key, "reject_table")==0 ){
    const char *dot = strchr(value, '.');
    sqlite3_free(vt->zRejSchema);
    sqlite3_free(vt->zRejTable);
    if( dot ){
      vt->zRejSchema = sqlite3_mprintf("%.*s", (int)(dot-value), value);
      vt->zRejTable = sqlite3_mprintf("%s", dot+1);
    }else{
      vt->zRejSchema = sqlite3_mprintf("main");
      vt->zRejTable = sqlite3_mprintf("%s", value);
    }
    if( !vt->zRejSchema || !vt->zRejTable ){
      *pzErr = sqlite3_mprintf("%s: out of memory", zName);
    }else if( !vt->zRejSchema[0] || !vt->zRejTable[0] ){
      *pzErr = sqlite3_mprintf("%s: reject_table: expected name or schema.name, got '%q'", zName, value);
    }
    return 1;
  }
  return 0;
}

/* The reject table, if it exists: a table with the reject columns. */
char *sq_ft_reject_check(sq_ft_vtab *vt){
  const char *zName = vt->fmt->zName;
  sqlite3_stmt *st = 0;
  char *zSql, *err = 0;
  int rc, i, have[REJ_NCOL];
  if( !vt->skip ){
    if( vt->zRejTable ) return sqlite3_mprintf("%s: reject_table needs on_error='skip'", zName);
    if( vt->max_errors_set ) return sqlite3_mprintf("%s: max_errors needs on_error='skip'", zName);
    return 0;
  }
  if( !vt->zRejTable ){
    return sqlite3_mprintf("%s: on_error='skip' needs reject_table='name': every skipped "
                           "record gets a row there", zName);
  }
  if( !vt->max_errors_set ) vt->max_errors = -1;
  zSql = sqlite3_mprintf("SELECT type, sql FROM \"%w\".sqlite_schema WHERE name=?1 COLLATE NOCASE",
                         vt->zRejSchema);
  if( !zSql ) return sqlite3_mprintf("%s: out of memory", zName);
  rc = sqlite3_prepare_v2(vt->db, zSql, -1, &st, 0);
  sqlite3_free(zSql);
  if( rc!=SQLITE_OK ){
    err = sqlite3_mprintf("%s: reject_table %s.%s: %s", zName, vt->zRejSchema, vt->zRejTable,
                          sqlite3_errmsg(vt->db));
    sqlite3_finalize(st);
    return err;
  }
  sqlite3_bind_text(st, 1, vt->zRejTable, -1, SQLITE_STATIC);
  rc = sqlite3_step(st);
  if( rc==SQLITE_ROW ){
    const char *type = (const char*)sqlite3_column_text(st, 0);
    const char *sql = (const char*)sqlite3_column_text(st, 1);
    if( !type || strcmp(type, "table")!=0 || (sql && sqlite3_strnicmp(sql, "CREATE VIRTUAL", 14)==0) ){
      err = sqlite3_mprintf("%s: reject_table %s.%s is a %s, not a table", zName, vt->zRejSchema,
                            vt->zRejTable, type && strcmp(type, "table")!=0 ? type : "virtual table");
    }
  }else if( rc!=SQLITE_DONE ){
    err = sqlite3_mprintf("%s: reject_table %s.%s: %s", zName, vt->zRejSchema, vt->zRejTable,
                          sqlite3_errmsg(vt->db));
  }
  sqlite3_finalize(st);
  if( err || rc==SQLITE_DONE ) return err;   /* missing: made by the first scan */
  /* an existing table: the reject columns must be there */
  memset(have, 0, sizeof(have));
  rc = sqlite3_prepare_v2(vt->db, "SELECT name FROM pragma_table_xinfo(?1, ?2)", -1, &st, 0);
  if( rc!=SQLITE_OK ) return sqlite3_mprintf("%s: %s", zName, sqlite3_errmsg(vt->db));
  sqlite3_bind_text(st, 1, vt->zRejTable, -1, SQLITE_STATIC);
  sqlite3_bind_text(st, 2, vt->zRejSchema, -1, SQLITE_STATIC);
  while( sqlite3_step(st)==SQLITE_ROW ){
    const char *c = (const char*)sqlite3_column_text(st, 0);
    for(i=0; c && i<REJ_NCOL; i++) if( sqlite3_stricmp(c, rej_cols[i])==0 ) have[i] = 1;
  }
  sqlite3_finalize(st);
  for(i=0; i<REJ_NCOL; i++){
    if( !have[i] ){
      return sqlite3_mprintf("%s: reject_table %s.%s has no column %s (a reject table has "
                             "file, line, offset, record, column, reason, raw, raw_truncated)",
                             zName, vt->zRejSchema, vt->zRejTable, rej_cols[i]);
    }
  }
  return 0;
}

int sq_ft_reject_begin(sq_ft_cursor *c, char **pzErr){
  sq_ft_vtab *vt = c->vt;
  char *zSql, *err;
  int rc;
  c->nrej = 0;
  if( !vt->skip ) return SQLITE_OK;
  /* the table may have been dropped or made since the CREATE: check again */
  err = sq_ft_reject_check(vt);
  if( err ){ *pzErr = err; return SQLITE_ERROR; }
  zSql = sqlite3_mprintf("CREATE TABLE IF NOT EXISTS \"%w\".\"%w\"(file TEXT, line INTEGER, "
                         "\"offset\" INTEGER, record INTEGER, \"column\" TEXT, reason TEXT, raw TEXT, "
                         "raw_truncated INTEGER)", vt->zRejSchema, vt->zRejTable);
  if( !zSql ) return SQLITE_NOMEM;
  rc = sqlite3_exec(vt->db, zSql, 0, 0, 0);
  sqlite3_free(zSql);
  if( rc==SQLITE_OK ){
    zSql = sqlite3_mprintf("INSERT INTO \"%w\".\"%w\"(file, line, \"offset\", record, \"column\", "
                           "reason, raw, raw_truncated) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
                           vt->zRejSchema, vt->zRejTable);
    if( !zSql ) return SQLITE_NOMEM;
    rc = sqlite3_prepare_v2(vt->db, zSql, -1, &c->rejStmt, 0);
    sqlite3_free(zSql);
  }
  if( rc!=SQLITE_OK ){
    *pzErr = sqlite3_mprintf("%s: reject_table %s.%s: %s", vt->fmt->zName, vt->zRejSchema,
                             vt->zRejTable, sqlite3_errmsg(vt->db));
    return SQLITE_ERROR;
  }
  return SQLITE_OK;
}

/* 1 when z[0..n) is valid UTF-8 (the raw text of a reject may not be). */
static int rej_utf8(const unsigned char *z, size_t n){
  size_t i = 0;
  while( i<n ){
    unsigned char b = z[i];
    int k;
    unsigned lo = 0x80, hi = 0xBF;
    if( b<0x80 ){ i++; continue; }
    if( b>=0xC2 && b<=0xDF ) k = 1;
    else if( b>=0xE0 && b<=0xEF ){ k = 2; if( b==0xE0 ) lo = 0xA0; if( b==0xED ) hi = 0x9F; }
    else if( b>=0xF0 && b<=0xF4 ){ k = 3; if( b==0xF0 ) lo = 0x90; if( b==0xF4 ) hi = 0x8F; }
    else return 0;
    if( i+(size_t)k>=n ) return 0;
    if( z[i+1]<lo || z[i+1]>hi ) return 0;
    if( k>=2 && (z[i+2]&0xC0)!=0x80 ) return 0;
    if( k==3 && (z[i+3]&0xC0)!=0x80 ) return 0;
    i += (size_t)k+1;
  }
  return 1;
}

int sq_ft_on_reject(void *cursor, const sq_ingest_reject *r){
  sq_ft_cursor *c = (sq_ft_cursor*)cursor;
  sq_ft_vtab *vt = c->vt;
  sqlite3_stmt *st = c->rejStmt;
  char *reason = vt->fmt->xReason(c, r);
  int rc;
  if( !reason ) return 1;
  sqlite3_free(c->zRejLast);
  c->zRejLast = reason;
  c->nrej++;
  if( vt->max_errors>=0 && c->nrej>vt->max_errors ){
    c->zRejErr = sqlite3_mprintf("%s: more than %lld record%s rejected (max_errors=%lld); the last: %s",
                                 vt->fmt->zName, vt->max_errors, vt->max_errors==1 ? "" : "s",
                                 vt->max_errors, reason);
    return 1;
  }
  sqlite3_bind_text(st, 1, c->zFile, -1, SQLITE_STATIC);
  sqlite3_bind_int64(st, 2, (sqlite3_int64)r->line);
  sqlite3_bind_int64(st, 3, (sqlite3_int64)r->offset);
  sqlite3_bind_int64(st, 4, (sqlite3_int64)r->index);
  if( r->field ) sqlite3_bind_text64(st, 5, r->field, (sqlite3_uint64)r->nfield, SQLITE_STATIC, SQLITE_UTF8);
  else sqlite3_bind_null(st, 5);
  sqlite3_bind_text(st, 6, reason, -1, SQLITE_STATIC);
  if( rej_utf8((const unsigned char*)r->raw, r->nraw) ){
    sqlite3_bind_text64(st, 7, r->raw, (sqlite3_uint64)r->nraw, SQLITE_STATIC, SQLITE_UTF8);
  }else{
    sqlite3_bind_blob64(st, 7, r->raw, (sqlite3_uint64)r->nraw, SQLITE_STATIC);
  }
  sqlite3_bind_int(st, 8, r->truncated);
  rc = sqlite3_step(st);
  sqlite3_reset(st);
  sqlite3_clear_bindings(st);
  if( rc!=SQLITE_DONE ){
    c->zRejErr = sqlite3_mprintf("%s: reject_table %s.%s: %s", vt->fmt->zName, vt->zRejSchema,
                                 vt->zRejTable, sqlite3_errmsg(vt->db));
    return 1;
  }
  return SQ_INGEST_CONTINUE;
}

int sq_ft_reject_end(sq_ft_cursor *c){
  sq_ft_vtab *vt = c->vt;
  sqlite3_int64 n;
  if( !vt->skip || vt->max_frac<=0 || !c->g ) return SQLITE_OK;
  n = (sqlite3_int64)sq_ingest_records(c->g);
  if( (double)c->nrej > vt->max_frac*(double)n ){
    c->zRejErr = sqlite3_mprintf("%s: %lld of %lld records rejected, more than max_errors=%g of "
                                 "them; the last: %s", vt->fmt->zName, c->nrej, n, vt->max_frac,
                                 c->zRejLast ? c->zRejLast : "");
    return SQLITE_ERROR;
  }
  return SQLITE_OK;
}

void sq_ft_reject_reset(sq_ft_cursor *c){
  sqlite3_finalize(c->rejStmt);
  c->rejStmt = 0;
  sqlite3_free(c->zRejErr);
  c->zRejErr = 0;
  sqlite3_free(c->zRejLast);
  c->zRejLast = 0;
  c->nrej = 0;
}

void sq_ft_reject_free(sq_ft_vtab *vt){
  sqlite3_free(vt->zRejSchema);
  sqlite3_free(vt->zRejTable);
}
