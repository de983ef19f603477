/*
** StreamQLite: locale-aware weeks and JSON streaming for SQLite.
**
** Build and load (sqlite3 shell):
**
**     make                        -- builds build/streamqlite.so
**     sqlite3> .load ./build/streamqlite
**     sqlite3> SELECT streamqlite_version();
**
** SQL functions (docs/sql/ has one page per area):
**
**   streamqlite_version()                  -> TEXT, e.g. '0.1.0'
**
** The locale-week functions live in sq_week.c (their core in
** sq_week_core.c, the locale_weeks table in sq_weeks_table.c), the JSON streaming
** functions in sq_json_stream.c, the CSV streaming functions in
** sq_csv_stream.c; their header comments document them.
**
** ENTRY POINTS
**
**   sqlite3_streamqlite_init          everything (the default of .load and
**                                     sqlite3_load_extension())
**   sqlite3_streamqlite_noread_init   everything except what reads files
**                                     (json_stream, csv_stream): for hosts that let
**                                     other people run SQL (Datasette, a
**                                     web SQL console, a shared server)
**
**     sqlite3> .load ./build/streamqlite sqlite3_streamqlite_noread_init
**     datasette data.db --load-extension=build/streamqlite.so:sqlite3_streamqlite_noread_init
**
**   sqlite3_streamqlitenoread_init    the same as sqlite3_streamqlite_noread_init,
**                                     under the name SQLite derives from a file named
**                                     streamqlite_noread.so: `make install` puts that
**                                     name beside streamqlite.so, so a host that can
**                                     only name a file gets the no-read entry point
**                                     by default (.load streamqlite_noread)
**   sqlite3_modstreamqlite_init       sqlite3_streamqlite_init and
**   sqlite3_modstreamqlitenoread_init sqlite3_streamqlite_noread_init under the names
**                                     SQLite derives from mod_streamqlite.so and
**                                     mod_streamqlite_noread.so: the Debian package
**                                     puts those in the loader's path, so
**                                     `.load mod_streamqlite` needs no path (as
**                                     `.load mod_spatialite` does)
**
** A json_stream or csv_stream table (CREATE VIRTUAL TABLE … USING
** json_stream/csv_stream) can only live in the temp schema, so no database
** file can carry one (sq_json_stream.c, SECURITY);
** but the table-valued functions json_stream('any/file') and
** csv_stream('any/file') read whatever
** file the process can read, for whoever can type SQL: load the no-read
** entry point wherever the people typing SQL are not the people who own
** the files.
**
** Once loaded, the extension stays in memory until the process ends
** (sq_host.c, sq_pin_module): a host that loads it on every new
** connection and closes connections all the time keeps ICU's caches
** instead of leaking them at each unload.
**
** Registration is table driven: each module's register function runs in
** order and the first failure is returned to the caller of
** sqlite3_load_extension().
**
** The same sources are compiled into the Swift package with SQLITE_CORE
** defined; the Swift library then calls sqlite3_streamqlite_init() on each
** connection it opens (a trusted in-process host: everything).
*/
#include "sq_internal.h"
SQLITE_EXTENSION_INIT1

#include "sq_threads.h"

#include <stdlib.h>
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

/* The modules, in registration order; `reads_files` marks the ones the
** no-read entry point leaves out. */
static const struct {
  int (*reg)(sqlite3*);
  int reads_files;
} sq_modules[] = {
  { sq_core_register, 0 },
  { sq_week_register, 0 },
  { sq_json_register, 1 },     /* json_stream: reads files */
  { sq_csv_register, 1 },      /* csv_stream: reads files */
};

static int sq_register_all(sqlite3 *db, char **pzErrMsg, int with_files){
  int rc = SQLITE_OK;
  size_t i;
  const char *why = with_files ? sq_pipe_threads_env_error() : 0;
  if( why ){
    if( pzErrMsg ){
      sqlite3_str *m = sqlite3_str_new(0);
      const char *v = getenv("STREAMQLITE_THREADS");
      sqlite3_str_appendall(m, "streamqlite: the environment variable STREAMQLITE_THREADS is ");
      sq_str_value(m, v, (sqlite3_int64)strlen(v), 1);
      sqlite3_str_appendf(m, ": %s", why);
      *pzErrMsg = sqlite3_str_finish(m);
    }
    return SQLITE_ERROR;
  }
  sq_pin_module();      /* ICU's caches survive connection closes */
  for(i=0; rc==SQLITE_OK && i<sizeof(sq_modules)/sizeof(sq_modules[0]); i++){
    if( sq_modules[i].reads_files && !with_files ) continue;
    rc = sq_modules[i].reg(db);
  }
  if( rc!=SQLITE_OK && pzErrMsg ){
    *pzErrMsg = sqlite3_mprintf("streamqlite: registration failed: %s",
                                sqlite3_errmsg(db));
  }
  return rc;
}

#ifdef _WIN32
# define SQ_EXPORT __declspec(dllexport)
#else
# define SQ_EXPORT
#endif

SQ_EXPORT int sqlite3_streamqlite_init(sqlite3 *db, char **pzErrMsg,
                                       const sqlite3_api_routines *pApi){
  SQLITE_EXTENSION_INIT2(pApi);
  return sq_register_all(db, pzErrMsg, 1);
}

SQ_EXPORT int sqlite3_streamqlite_noread_init(sqlite3 *db, char **pzErrMsg,
                                              const sqlite3_api_routines *pApi){
  SQLITE_EXTENSION_INIT2(pApi);
  return sq_register_all(db, pzErrMsg, 0);
}

/* The same entry points under the names SQLite derives from other file names
** (ENTRY POINTS above). */
#define SQ_ENTRY_ALIAS(alias, target)                                      \
  SQ_EXPORT int alias(sqlite3 *db, char **pzErrMsg,                        \
                      const sqlite3_api_routines *pApi){                   \
    return target(db, pzErrMsg, pApi);                                     \
  }
SQ_ENTRY_ALIAS(sqlite3_streamqlitenoread_init, sqlite3_streamqlite_noread_init)
SQ_ENTRY_ALIAS(sqlite3_modstreamqlite_init, sqlite3_streamqlite_init)
SQ_ENTRY_ALIAS(sqlite3_modstreamqlitenoread_init, sqlite3_streamqlite_noread_init)
