/* The system's SQLite (Debian: libsqlite3-dev), as the Swift package's
** CSQLite system-library module: see Package.swift. */
#include <sqlite3.h>
