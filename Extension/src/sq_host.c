/*
** sq_host.c — what StreamQLite asks of the SQLite library that hosts it.
**
** sq_interrupted(db): has sqlite3_interrupt() been called on db while a
** statement runs?  json_stream waits on pipes and FIFOs (sq_json_stream.c)
** and asks this between waits, so Ctrl-C in the shell, Python's
** Connection.interrupt() or any host's sqlite3_interrupt() stops it.
**
**   SQLite 3.41 and later: sqlite3_is_interrupted(), the exact answer.
**     Loaded as an extension, it is reached through the host's
**     sqlite3_api_routines only when the host says it is 3.41+ (an older
**     host's routine table does not have it).  Compiled against 3.40
**     headers, whose table ends with value_encoding, the routine is the
**     next member.
**   Older SQLite (3.40.1 on Debian 12), or compiled in (SQLITE_CORE)
**     against older headers: a one-row probe statement, `SELECT 1`,
**     prepared, stepped and finalized on the same connection.  SQLite
**     documents that statements started after sqlite3_interrupt() while
**     others still run are interrupted too, so the probe fails with
**     SQLITE_INTERRUPT exactly when the running statement was
**     interrupted.  It costs a prepare and a step (microseconds), so
**     callers ask at most every few milliseconds of work (json_stream: on
**     each 100 ms wait and every 16 reads); nothing outlives the call (no
**     statement is left behind for a host that finalizes every statement
**     of a connection before closing it).
**
** A host may add its own answer (sq_set_host_stop_check, streamqlite.h),
** asked first: the Swift library's pools stop a cancelled read there, also
** one cancelled before its statement started (SQLite clears an interrupt
** when a statement starts on an idle connection).
**
** sq_pin_module(): keeps the loaded extension (and with it libicu) in
** memory for the life of the process.  A host that opens a connection per
** request loads the extension and closes the connection each time; SQLite
** then dlclose()s the extension, and when nothing else uses libicu it is
** unloaded too, leaving behind every cache ICU had filled (locale data,
** time zones, calendars: ~0.2-0.6 MB per cycle, never freed).  The first
** load therefore reopens the extension's own file (found with dladdr())
** with RTLD_NODELETE: the next loads are cheap and ICU's caches are
** reused.  (Freeing them instead, with u_cleanup(), would break any other
** ICU user in the process.)  Nothing to do when compiled into a program
** (SQLITE_CORE, the Swift library) or on Windows.
*/
#include "sq_internal.h"

#if !defined(SQLITE_CORE) && !defined(_WIN32)
# include <dlfcn.h>
#endif

typedef int (*sq_is_interrupted_fn)(sqlite3*);

/* The host's sqlite3_is_interrupted, or NULL when it has none. */
static sq_is_interrupted_fn sq_native_is_interrupted(void){
#if SQLITE_VERSION_NUMBER >= 3041000
  if( sqlite3_libversion_number()>=3041000 ) return sqlite3_is_interrupted;
#elif SQLITE_VERSION_NUMBER >= 3040000 && !defined(SQLITE_CORE)
  if( sqlite3_libversion_number()>=3041000 && sqlite3_api ){
    /* 3.40 headers: value_encoding is the last member; 3.41 appended
    ** is_interrupted right after it (the table only ever grows at its end) */
    const struct {
      sqlite3_api_routines v340;
      sq_is_interrupted_fn is_interrupted;
    } *api = (const void*)sqlite3_api;
    return api->is_interrupted;
  }
#endif
  return 0;
}

static int (*sq_host_stop)(sqlite3*) = 0;

void sq_set_host_stop_check(int (*check)(sqlite3 *db)){
  __atomic_store_n(&sq_host_stop, check, __ATOMIC_RELEASE);
}

int sq_interrupted(sqlite3 *db){
  sq_is_interrupted_fn native = sq_native_is_interrupted();
  int (*host)(sqlite3*) = __atomic_load_n(&sq_host_stop, __ATOMIC_ACQUIRE);
  sqlite3_stmt *probe = 0;
  int rc;
  if( host && host(db) ) return 1;
  if( native ) return native(db)!=0;
  rc = sqlite3_prepare_v2(db, "SELECT 1", -1, &probe, 0);
  if( rc==SQLITE_OK && probe ) rc = sqlite3_step(probe);
  sqlite3_finalize(probe);
  return rc==SQLITE_INTERRUPT;
}

void sq_pin_module(void){
#if !defined(SQLITE_CORE) && !defined(_WIN32)
  static volatile int pinned = 0;     /* a race only costs a second dlopen */
  Dl_info info;
  if( pinned ) return;
  if( dladdr((void*)sq_pin_module, &info) && info.dli_fname ){
    /* already loaded: RTLD_NOLOAD only sets the flag (the handle is kept,
    ** never closed) */
    void *h = dlopen(info.dli_fname, RTLD_NOW | RTLD_NODELETE | RTLD_NOLOAD);
    if( !h ) h = dlopen(info.dli_fname, RTLD_NOW | RTLD_NODELETE);
    if( h ) pinned = 1;
  }
#endif
}
