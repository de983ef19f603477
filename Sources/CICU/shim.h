/* The system's ICU C API (Debian: libicu-dev), as the Swift package's CICU
** system-library module: see Package.swift.  The headers the extension's
** locale-week code (Extension/src/sq_week_core.c, sq_weeks_table.c) uses. */
#include <unicode/ucal.h>
#include <unicode/udat.h>
#include <unicode/uloc.h>
#include <unicode/unumsys.h>
#include <unicode/ustring.h>
