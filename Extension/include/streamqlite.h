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

#ifdef __cplusplus
}
#endif

#endif
