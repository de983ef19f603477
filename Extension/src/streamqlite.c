/*
** StreamQLite: locale-aware weeks and JSON streaming for SQLite.
**
** Build and load (sqlite3 shell):
**
**     make                        -- builds build/streamqlite.so
**     sqlite3> .load ./build/streamqlite
**     sqlite3> SELECT streamqlite_version();
**
** SQL functions (see README.md for one section per function):
**
**   streamqlite_version()                  -> TEXT, e.g. '0.1.0'
**
** The locale-week functions live in sq_week.c, the JSON streaming
** functions in sq_json_stream.c; their header comments document them.
**
** This file holds the entry point.  Registration is table driven: each
** module's register function runs in order and the first failure is
** returned to the caller of sqlite3_load_extension().
**
** The same sources are compiled into the Swift package with SQLITE_CORE
** defined; the Swift library then calls sqlite3_streamqlite_init() on each
** connection it opens.
*/
#include "sq_internal.h"
SQLITE_EXTENSION_INIT1

#include <string.h>

/*
** streamqlite_version() -> TEXT
*/
static void sq_version_func(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  (void)argc; (void)argv;
  sqlite3_result_text(ctx, SQ_VERSION, -1, SQLITE_STATIC);
}

static int sq_core_register(sqlite3 *db){
  return sqlite3_create_function(db, "streamqlite_version", 0,
      SQLITE_UTF8|SQLITE_DETERMINISTIC|SQLITE_INNOCUOUS, 0,
      sq_version_func, 0, 0);
}

static int (*const sq_modules[])(sqlite3*) = {
  sq_core_register,
  sq_week_register,
  sq_json_register,
};

#ifdef _WIN32
__declspec(dllexport)
#endif
int sqlite3_streamqlite_init(sqlite3 *db, char **pzErrMsg,
                             const sqlite3_api_routines *pApi){
  int rc = SQLITE_OK;
  size_t i;
  SQLITE_EXTENSION_INIT2(pApi);
  for(i=0; rc==SQLITE_OK && i<sizeof(sq_modules)/sizeof(sq_modules[0]); i++){
    rc = sq_modules[i](db);
  }
  if( rc!=SQLITE_OK && pzErrMsg ){
    *pzErrMsg = sqlite3_mprintf("streamqlite: registration failed: %s",
                                sqlite3_errmsg(db));
  }
  return rc;
}
