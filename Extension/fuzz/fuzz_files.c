/*
** fuzz_files.c — the filename argument of json_stream/csv_stream
** (sq_files.h): the JSON array of names, parsed without globbing
** (sq_files_expand_with + sq_files_push: each entry kept as written).
**
** Oracles:
**   - an accepted list is a JSON array of strings by SQLite's own JSON
**     (json_valid, json_each): the same names in the same order;
**   - a list SQLite finds valid, of non-empty strings without \u escapes
**     (SQLite does not refuse lone surrogates or \u0000; the parser does),
**     is accepted;
**   - a name that is not a list is taken as one entry, as written.
*/
#include "sq_internal.h"
#include "sq_files.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static sqlite3 *db;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size){
  char *spec, *why = 0;
  sq_files f;
  int rc, islist;
  if( !db && sqlite3_open(":memory:", &db)!=SQLITE_OK ) abort();
  if( memchr(data, 0, size) ) return 0;      /* SQL text: the driver refuses a NUL */
  spec = malloc(size+1);
  memcpy(spec, data, size);
  spec[size] = 0;
  memset(&f, 0, sizeof f);
  islist = sq_files_is_pattern(spec)==2;
  rc = sq_files_expand_with(&f, spec, sq_files_push, &why);
  if( rc==SQ_FILES_ERROR && !why ) abort();
  if( !islist ){
    if( rc!=SQ_FILES_OK || f.n!=1 || strcmp(f.a[0], spec)!=0 ) abort();
  }else{
    sqlite3_stmt *st;
    int valid = 0, plain = 1, n = 0;
    sqlite3_prepare_v2(db, "SELECT json_valid(?1) AND json_type(?1)='array'", -1, &st, 0);
    sqlite3_bind_text(st, 1, spec, -1, SQLITE_STATIC);
    if( sqlite3_step(st)==SQLITE_ROW ) valid = sqlite3_column_int(st, 0);
    sqlite3_finalize(st);
    if( rc==SQ_FILES_OK && !valid ) abort();
    if( valid ){
      sqlite3_prepare_v2(db, "SELECT type, value FROM json_each(?1)", -1, &st, 0);
      sqlite3_bind_text(st, 1, spec, -1, SQLITE_STATIC);
      while( sqlite3_step(st)==SQLITE_ROW ){
        const char *t = (const char*)sqlite3_column_text(st, 0);
        const char *v = (const char*)sqlite3_column_text(st, 1);
        if( strcmp(t, "text")!=0 || !v || !v[0] ) plain = 0;
        if( rc==SQ_FILES_OK ){
          if( n>=f.n || strcmp(t, "text")!=0 || strcmp(f.a[n], v)!=0 ) abort();
        }
        n++;
      }
      sqlite3_finalize(st);
      if( rc==SQ_FILES_OK && n!=f.n ) abort();
      if( plain && n>0 && !strstr(spec, "\\u") && rc!=SQ_FILES_OK ) abort();
    }
  }
  sqlite3_free(why);
  sq_files_clear(&f);
  free(spec);
  return 0;
}
