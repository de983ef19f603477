/*
** sq_file.h — reading a file named by a user: sequentially, interruptibly,
** and decompressed when it is gzip or zstd (sq_file.c, the manual).
**
** The SQL tables (json_stream, csv_stream, through sq_file_table.c) and the
** Swift library's file imports and cursors read files through these, so a
** file, pipe, FIFO or /dev/stdin, plain or compressed, is read alike by all.
**
**     sq_file f;
**     char *why = 0;
**     if( sq_file_open(&f, db, path, &why) ) … why …    // sqlite3_free(why)
**     while( (n = sq_file_read(&f, buf, sizeof buf, &rc, &why))>0 ) … n bytes …
**     // n==0: the end; n<0: rc is SQLITE_INTERRUPT or SQLITE_ERROR (why)
**     sq_file_close(&f);
**
** db: the connection whose sqlite3_interrupt() stops a read that waits (a
** FIFO without a writer, a stalled pipe); NULL: no such check.  Messages
** ("cannot open: …", "cannot read: …", "gzip: …", "zstd: …") do not name
** the file: the caller does.  A thread that reads for another (sq_pipe.h)
** passes db NULL and sets f.stop to a flag, polled between waits of at
** most 100 ms; it then decompresses on its own thread.  The struct moves
** by copy (an open one can be handed over; the old copy is then
** forgotten, not closed).
**
** A compressed file is read and decompressed on a second thread, a few
** 64 KiB chunks ahead of the reader (bounded: memory stays constant), so
** the caller's thread only parses; the bytes, errors and interrupt checks
** are the same as without it.  The thread is started by the rule of
** sq_threads.h (sq_pipe_worth_it_for): for a file of SQ_PIPE_MIN_INPUT
** (256 KiB) or more compressed, or a pipe, at the first read; for a smaller
** one once it has given that many bytes decompressed (a file that stays
** smaller is decompressed on the reader's thread: no thread start); never
** with one CPU online or STREAMQLITE_THREADS=0.  One sq_file is used by one
** thread at a time.
*/
#ifndef SQ_FILE_H
#define SQ_FILE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sqlite3 sqlite3;
struct sq_dz;

typedef struct sq_file {
  sqlite3 *db;
  int fd;
  int reads;                     /* reads since the last interrupt check */
  int regular;                   /* a regular file (it can be read again) */
  int sniffed;                   /* the first bytes were looked at */
  struct sq_dz *dz;              /* compressed: the decoder, else NULL */
  unsigned char *raw;            /* compressed: bytes read, not yet decoded */
  size_t rawpos, rawlen;
  int raw_eof, full;             /* read() gave 0; the last output filled the buffer */
  long long nraw;                /* bytes read from the file (compressed ones when compressed) */
  long long size;                /* a regular file: its size when opened (reading ends before: an
                                 ** error, the file shrank under the reader), else -1 */
  struct sq_ahead *ah;           /* compressed: the read-ahead thread, else NULL */
  long long nout;                /* compressed: bytes decompressed here */
  int ahead_asked;               /* compressed: times the rule was asked for the thread (0-2) */
  int *stop;                     /* a thread reading without db (the read-ahead thread,
                                 ** sq_pipe.h's worker): set, reads end (SQLITE_INTERRUPT) */
} sq_file;

int sq_file_open(sq_file *f, sqlite3 *db, const char *path, char **pzErr);
long long sq_file_read(sq_file *f, void *buf, size_t n, int *rc, char **pzErr);
void sq_file_close(sq_file *f);
/* The bytes of an open file not yet read (its size less f->nraw), or -1
** when it is not a regular file: the size sq_threads.h's rule is asked
** with for the rest of a file. */
long long sq_pipe_file_left(const sq_file *f);
/* Read-ahead threads started by this thread, for tests that check the rule. */
unsigned long long sq_file_ahead_started(void);

#ifdef __cplusplus
}
#endif
#endif
