/*
** Public C interface of the StreamQLite core, as seen by the Swift library
** (module CStreamQLite) and by C programs that link the sources directly.
*/
#ifndef STREAMQLITE_H
#define STREAMQLITE_H

#include <sqlite3.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Registers every StreamQLite SQL function on `db`.  When the sources are
** compiled with SQLITE_CORE (as in the Swift package) pass NULL for the two
** last arguments. */
int sqlite3_streamqlite_init(sqlite3 *db, char **pzErrMsg,
                             const struct sqlite3_api_routines *pApi);

/* The same without the functions that read files (json_stream): for hosts
** that let other people run SQL (see streamqlite.c, ENTRY POINTS). */
int sqlite3_streamqlite_noread_init(sqlite3 *db, char **pzErrMsg,
                                    const struct sqlite3_api_routines *pApi);

/* A host's own "stop" answer, asked wherever StreamQLite asks whether
** sqlite3_interrupt() was called (json_stream and csv_stream waiting on a
** pipe or FIFO, between reads): `check(db)` returns non-zero when the
** statement running on `db` must end with SQLITE_INTERRUPT.  For hosts whose
** cancellation can come before the statement starts (SQLite clears an
** interrupt when a statement starts on an idle connection) or that stop
** through a progress handler, which a statement waiting on a file does not
** reach.  One per process (the Swift library's connection pools set it);
** NULL removes it. */
void sq_set_host_stop_check(int (*check)(sqlite3 *db));

#ifdef __cplusplus
}
#endif

#endif
