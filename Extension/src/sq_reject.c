/*
** sq_reject.c — rejected records into a table and the error budget
** (sq_reject.h, the manual).  The ingest core (sq_ingest.h, REJECTING
** RECORDS) decides what a record error is and skips the record; this file
** writes each one as a row and stops the import when the budget is spent,
** for SQL tables and Swift imports alike.  The typed file tables' options
** on_error, max_errors, reject_table are read by their driver
** (sq_file_table.c), which calls these.
*/
#include "sq_internal.h"
#include "sq_reject.h"

#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ the reject table */

static const char *const rej_cols[] = {
  "file", "line", "offset", "record", "column", "reason", "raw", "raw_truncated"
};
#define REJ_NCOL ((int)(sizeof(rej_cols)/sizeof(rej_cols[0])))

struct sq_reject_sink {
  sqlite3 *db;
  sqlite3_stmt *ins;
  char *name;           /* schema.table, for messages */
};

char *sq_reject_table_check(sqlite3 *db, const char *schema, const char *table){
  sqlite3_stmt *st = 0;
  char *zSql, *err = 0;
  int rc, i, have[REJ_NCOL];
  zSql = sqlite3_mprintf("SELECT type, sql FROM \"%w\".sqlite_schema WHERE name=?1 COLLATE NOCASE", schema);
  if( !zSql ) return SQ_ERR_NOMEM;
  rc = sqlite3_prepare_v2(db, zSql, -1, &st, 0);
  sqlite3_free(zSql);
  if( rc!=SQLITE_OK ){
    err = rc==SQLITE_NOMEM ? SQ_ERR_NOMEM : sq_err_msg(sqlite3_mprintf("reject_table %s.%s: %s", schema, table, sqlite3_errmsg(db)));
    sqlite3_finalize(st);
    return err;
  }
  sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
  rc = sqlite3_step(st);
  if( rc==SQLITE_ROW ){
    const char *type = (const char*)sqlite3_column_text(st, 0);
    const char *sql = (const char*)sqlite3_column_text(st, 1);
    if( !type || strcmp(type, "table")!=0 || (sql && sqlite3_strnicmp(sql, "CREATE VIRTUAL", 14)==0) ){
      err = sq_err_msg(sqlite3_mprintf("reject_table %s.%s is a %s, not a table", schema, table,
                                   type && strcmp(type, "table")!=0 ? type : "virtual table"));
    }
  }else if( rc!=SQLITE_DONE ){
    err = rc==SQLITE_NOMEM ? SQ_ERR_NOMEM : sq_err_msg(sqlite3_mprintf("reject_table %s.%s: %s", schema, table, sqlite3_errmsg(db)));
  }
  sqlite3_finalize(st);
  if( err || rc==SQLITE_DONE ) return err;   /* missing: sq_reject_sink_open makes it */
  memset(have, 0, sizeof(have));
  rc = sqlite3_prepare_v2(db, "SELECT name FROM pragma_table_xinfo(?1, ?2)", -1, &st, 0);
  if( rc!=SQLITE_OK ){
    return rc==SQLITE_NOMEM ? SQ_ERR_NOMEM : sq_err_msg(sqlite3_mprintf("reject_table %s.%s: %s", schema, table, sqlite3_errmsg(db)));
  }
  sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
  sqlite3_bind_text(st, 2, schema, -1, SQLITE_STATIC);
  while( (rc = sqlite3_step(st))==SQLITE_ROW ){
    const char *c = (const char*)sqlite3_column_text(st, 0);
    if( !c ){ rc = SQLITE_NOMEM; break; }
    for(i=0; i<REJ_NCOL; i++) if( sqlite3_stricmp(c, rej_cols[i])==0 ) have[i] = 1;
  }
  sqlite3_finalize(st);
  if( rc!=SQLITE_DONE ){
    return rc==SQLITE_NOMEM ? SQ_ERR_NOMEM : sq_err_msg(sqlite3_mprintf("reject_table %s.%s: %s", schema, table, sqlite3_errstr(rc)));
  }
  for(i=0; i<REJ_NCOL; i++){
    if( !have[i] ){
      return sq_err_msg(sqlite3_mprintf("reject_table %s.%s has no column %s (a reject table has file, line, "
                                    "offset, record, column, reason, raw, raw_truncated)", schema, table, rej_cols[i]));
    }
  }
  return 0;
}

int sq_reject_table_make(sqlite3 *db, const char *schema, const char *table){
  char *zSql = sqlite3_mprintf("CREATE TABLE IF NOT EXISTS \"%w\".\"%w\"(file TEXT, line INTEGER, "
                               "\"offset\" INTEGER, record INTEGER, \"column\" TEXT, reason TEXT, raw TEXT, "
                               "raw_truncated INTEGER)", schema, table);
  int rc = zSql ? sqlite3_exec(db, zSql, 0, 0, 0) : SQLITE_NOMEM;
  sqlite3_free(zSql);
  return rc;
}

sq_reject_sink *sq_reject_sink_open(sqlite3 *db, const char *schema, const char *table, char **pzErr){
  sq_reject_sink *s;
  char *zSql;
  int rc;
  *pzErr = sq_reject_table_check(db, schema, table);
  if( *pzErr ){
    if( *pzErr==SQ_ERR_NOMEM ) *pzErr = 0;     /* NULL: out of memory */
    return 0;
  }
  s = sqlite3_malloc(sizeof(*s));
  if( !s ){ *pzErr = sqlite3_mprintf("out of memory"); return 0; }
  memset(s, 0, sizeof(*s));
  s->db = db;
  s->name = sqlite3_mprintf("%s.%s", schema, table);
  rc = s->name ? sq_reject_table_make(db, schema, table) : SQLITE_NOMEM;
  if( rc==SQLITE_OK ){
    zSql = sqlite3_mprintf("INSERT INTO \"%w\".\"%w\"(file, line, \"offset\", record, \"column\", "
                           "reason, raw, raw_truncated) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)", schema, table);
    rc = zSql ? sqlite3_prepare_v2(db, zSql, -1, &s->ins, 0) : SQLITE_NOMEM;
    sqlite3_free(zSql);
  }
  if( rc!=SQLITE_OK ){
    *pzErr = rc==SQLITE_NOMEM ? sqlite3_mprintf("out of memory")
           : sqlite3_mprintf("reject_table %s.%s: %s", schema, table, sqlite3_errmsg(db));
    sq_reject_sink_close(s);
    return 0;
  }
  return s;
}

/* 1 when z[0..n) is valid UTF-8 (the raw text of a reject may not be). */
static int rej_utf8(const unsigned char *z, size_t n){
  size_t i = 0;
  while( i<n ){
    unsigned char b = z[i];
    unsigned lo = 0x80, hi = 0xBF;
    int k;
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

int sq_reject_sink_write(sq_reject_sink *s, const char *file, const sq_ingest_reject *r,
                         const char *reason, char **pzErr){
  sqlite3_stmt *st = s->ins;
  int rc;
  if( file ) sqlite3_bind_text(st, 1, file, -1, SQLITE_STATIC);
  else sqlite3_bind_null(st, 1);
  sqlite3_bind_int64(st, 2, (sqlite3_int64)r->line);
  sqlite3_bind_int64(st, 3, (sqlite3_int64)r->offset);
  sqlite3_bind_int64(st, 4, (sqlite3_int64)r->index);
  if( r->field ) sqlite3_bind_text64(st, 5, r->field, (sqlite3_uint64)r->nfield, SQLITE_STATIC, SQLITE_UTF8);
  else sqlite3_bind_null(st, 5);
  sqlite3_bind_text(st, 6, reason, -1, SQLITE_STATIC);
  if( !r->raw ){
    sqlite3_bind_null(st, 7);   /* none given */
  }else if( rej_utf8((const unsigned char*)r->raw, r->nraw) ){
    sqlite3_bind_text64(st, 7, r->raw, (sqlite3_uint64)r->nraw, SQLITE_STATIC, SQLITE_UTF8);
  }else{
    sqlite3_bind_blob64(st, 7, r->raw, (sqlite3_uint64)r->nraw, SQLITE_STATIC);
  }
  sqlite3_bind_int(st, 8, r->truncated);
  rc = sqlite3_step(st);
  sqlite3_reset(st);
  sqlite3_clear_bindings(st);
  if( rc!=SQLITE_DONE ){
    *pzErr = sqlite3_mprintf("reject_table %s: %s", s->name, sqlite3_errmsg(s->db));
    return rc==SQLITE_ROW ? SQLITE_ERROR : rc;
  }
  return SQLITE_OK;
}

void sq_reject_sink_close(sq_reject_sink *s){
  if( !s ) return;
  sqlite3_finalize(s->ins);
  sqlite3_free(s->name);
  sqlite3_free(s);
}

/* ------------------------------------------------------------ the budget */

int sq_reject_parse_max(const char *value, int64_t *count, double *fraction){
  char *end = 0;
  double d = strtod(value, &end);
  if( value[0]==0 || *end || !(d>=0) || d>9e15 || (d>=1 && d!=(double)(int64_t)d) ) return 1;
  if( d>0 && d<1 ){ *fraction = d; *count = -1; }
  else{ *fraction = 0; *count = (int64_t)d; }
  return 0;
}

void sq_reject_budget_init(sq_reject_budget *b, int64_t max_count, double max_fraction, const char *option){
  memset(b, 0, sizeof(*b));
  b->max_count = max_count;
  b->max_fraction = max_fraction;
  b->option = option;
}

int sq_reject_budget_add(sq_reject_budget *b, const char *reason, char **pzErr){
  *pzErr = 0;
  sqlite3_free(b->last);
  b->last = sqlite3_mprintf("%s", reason);
  if( !b->last ) return 1;
  b->rejected++;
  if( b->max_count>=0 && b->rejected>b->max_count ){
    *pzErr = sqlite3_mprintf("more than %lld record%s rejected (%s=%lld); the last: %s",
                             (long long)b->max_count, b->max_count==1 ? "" : "s", b->option,
                             (long long)b->max_count, reason);
    return 1;
  }
  return 0;
}

int sq_reject_budget_end(sq_reject_budget *b, int64_t records, char **pzErr){
  *pzErr = 0;
  if( b->max_fraction>0 && (double)b->rejected > b->max_fraction*(double)records ){
    *pzErr = sqlite3_mprintf("%lld of %lld records rejected, more than %s=%g of them; the last: %s",
                             (long long)b->rejected, (long long)records, b->option, b->max_fraction,
                             b->last ? b->last : "");
    return 1;
  }
  return 0;
}

void sq_reject_budget_clear(sq_reject_budget *b){
  sqlite3_free(b->last);
  b->last = 0;
  b->rejected = 0;
}

int sq_reject_refused_row(int rc){
  return (rc & 0xff)==SQLITE_CONSTRAINT || (rc & 0xff)==SQLITE_MISMATCH;
}

/* A byte of an SQL name (or a non-ASCII one). */
static int rej_name_byte(unsigned char c){
  return c>=0x80 || c=='_' || c=='$' || (c>='0' && c<='9') || ((c|0x20)>='a' && (c|0x20)<='z');
}

/* z holds the word FAIL (any case), not as a part of a longer name. */
static int rej_says_fail(const char *z){
  const unsigned char *s = (const unsigned char*)z;
  size_t i;
  for(i=0; s[i]; i++){
    if( (s[i]|0x20)=='f' && (s[i+1]|0x20)=='a' && (s[i+2]|0x20)=='i' && (s[i+3]|0x20)=='l' ){
      unsigned char b = i>0 ? s[i-1] : ' ', a = s[i+4];
      if( !rej_name_byte(b) && !rej_name_byte(a) ) return 1;
    }
  }
  return 0;
}

int sq_reject_refusal_undone(sqlite3 *db){
  sqlite3_stmt *schemas = 0;
  int undone = 1;
  if( sqlite3_prepare_v2(db, "SELECT name FROM pragma_database_list", -1, &schemas, 0)!=SQLITE_OK ) return 0;
  while( undone && sqlite3_step(schemas)==SQLITE_ROW ){
    sqlite3_stmt *st = 0;
    char *sql = sqlite3_mprintf("SELECT sql FROM \"%w\".sqlite_schema WHERE type IN ('table','trigger') "
                                "AND sql IS NOT NULL", (const char*)sqlite3_column_text(schemas, 0));
    if( !sql || sqlite3_prepare_v2(db, sql, -1, &st, 0)!=SQLITE_OK ){
      undone = 0;
    }else{
      int rc;
      while( (rc = sqlite3_step(st))==SQLITE_ROW ){
        if( rej_says_fail((const char*)sqlite3_column_text(st, 0)) ){ undone = 0; break; }
      }
      if( rc!=SQLITE_ROW && rc!=SQLITE_DONE ) undone = 0;
    }
    sqlite3_finalize(st);
    sqlite3_free(sql);
  }
  sqlite3_finalize(schemas);
  return undone;
}
