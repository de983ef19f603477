/* Locale-aware week functions: being written (issue 2). */
#include "sq_internal.h"
int sq_week_register(sqlite3 *db){ (void)db; return SQLITE_OK; }
