/*
** Internal declarations shared by the StreamQLite extension's C files.
** Every file of the extension includes this header first: it pulls in
** sqlite3ext.h (or sqlite3.h when compiled into the Swift library with
** SQLITE_CORE) and declares the `sqlite3_api` pointer.
*/
#ifndef SQ_INTERNAL_H
#define SQ_INTERNAL_H

#include "sqlite3ext.h"
SQLITE_EXTENSION_INIT3

/* Each module registers its SQL functions / virtual tables on `db`
** and returns SQLITE_OK or the first failure. */
int sq_week_register(sqlite3 *db);
int sq_json_register(sqlite3 *db);

/* 1 when sqlite3_interrupt() was called on db while a statement runs
** (sq_host.c: exact on SQLite 3.41+, a probe statement before). */
int sq_interrupted(sqlite3 *db);

/* Keeps the loaded extension, and libicu with it, in memory until the
** process ends (sq_host.c); a no-op when compiled into a program. */
void sq_pin_module(void);

#define SQ_VERSION "0.1.0"

#endif
