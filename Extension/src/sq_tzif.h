/*
** sq_tzif.h — the system's compiled time zone files (TZif, RFC 8536).
**
** A reader of /usr/share/zoneinfo/<zone> (the directory in the TZDIR
** environment variable instead, as glibc does, when it is an absolute path):
** versions 1 to 4, the 64-bit data block of version 2+, its transitions and
** local time types, and the footer's POSIX TZ string (std/dst names and
** offsets, Mm.w.d, Jn and n rules with RFC 8536's negative and over-24-hour
** times) for instants after the last transition.  Leap-second ("right/")
** files are refused.
**
**   sq_tzif *z = 0; char *err = 0;
**   int rc = sq_tzif_open("Africa/Cairo", &z, &err);   // SQ_TZIF_OK, ...
**   int32_t off;
**   if( rc == SQ_TZIF_OK && sq_tzif_offset(z, 1685620800, &off) ) ...  // 10800
**   sq_tzif_free(z); sqlite3_free(err);
**
** The zone ID is checked before it becomes a path (sq_tzif_valid_id): only
** [A-Za-z0-9_+-/], at most SQ_TZIF_MAXID bytes, no leading or trailing '/',
** no empty component ('a//b'), so no '.' or '..' either: nothing outside the
** zone directory can be named.  The file must be a regular file (a FIFO or
** device is refused without blocking) of at most SQ_TZIF_MAXFILE bytes.
** sq_tzif_parse() checks every count, index and offset; a malformed image
** gives NULL and a reason.  Memory: sqlite3_malloc64/sqlite3_free.
*/
#ifndef SQ_TZIF_H
#define SQ_TZIF_H
#include <stddef.h>
#include <stdint.h>

#define SQ_TZIF_MAXID   255
#define SQ_TZIF_MAXFILE (512 * 1024)

#define SQ_TZIF_OK      0
#define SQ_TZIF_NOFILE  1   /* no file for this ID in the zone directory */
#define SQ_TZIF_BADID   2   /* the ID cannot name a zone file */
#define SQ_TZIF_BAD     3   /* unreadable or malformed file (*err says why) */
#define SQ_TZIF_NOMEM   4

typedef struct sq_tzif sq_tzif;

/* 1 if `id` may become a path under the zone directory. */
int sq_tzif_valid_id(const char *id);

/* Opens the zone file of `id`; *out on SQ_TZIF_OK, else *err (sqlite3_free
** it; may be NULL on NOMEM). */
int sq_tzif_open(const char *id, sq_tzif **out, char **err);

/* Parses a TZif image of n bytes; NULL and *err (sqlite3_malloc'd, may be
** NULL on NOMEM) when malformed. */
sq_tzif *sq_tzif_parse(const unsigned char *buf, size_t n, char **err);

/* Parses a POSIX TZ string as found in a TZif footer (without the
** newlines) into *z's rule; 1 on success.  For tests. */
int sq_tzif_parse_posix(const char *s, size_t n, sq_tzif *z);

/* UTC offset (seconds east) at UTC instant t (seconds since 1970); 0 when t
** is beyond +-10^12 s. */
int sq_tzif_offset(const sq_tzif *z, int64_t t, int32_t *offset);

/* An empty zone (for sq_tzif_parse_posix tests); NULL on NOMEM. */
sq_tzif *sq_tzif_new(void);

void sq_tzif_free(sq_tzif *z);

#endif
