/*
** sq_pipe.h — the second core: an import's reading, decompressing,
** parsing and converting on a worker thread, its rows handed in order to
** the caller's thread through a bounded ring (sq_pipe.c).
**
** The ingest core (sq_ingest.h) turns records into rows; inserting them
** is SQLite's work on the caller's connection.  A pipe lets both run at
** once: a worker thread reads the input, feeds the format's reader and
** the core, and puts each finished row into the pipe; the caller takes
** them one at a time and inserts.  The typed tables (sq_file_table.c) and
** the Swift library's file imports use it.
**
**     static void run(sq_pipe *p, void *arg){        // the worker
**       … sq_file_open(&f, NULL, path, &why); f.stop = sq_pipe_stop_flag(p);
**       … the core's row callback: return sq_pipe_put_row(p, row);
**       … its reject callback:     return sq_pipe_put_reject(p, r, reason);
**       … sq_pipe_put_mark(p, MY_FILE_BEGINS, i, 0);
**       if( ok ) sq_pipe_put_end(p); else sq_pipe_put_error(p, rc, message);
**     }
**
**     sq_pipe *p = sq_pipe_new(0, 0);                 // default ring
**     if( sq_pipe_start(p, run, arg) ) … no thread: read on this one …
**     for(;;){
**       sq_pipe_item it;
**       if( sq_pipe_next(p, &it, interrupted, db) ) … interrupted: stop …
**       if( it.kind==SQ_PIPE_ROW ) … insert it.row …   // valid until the next call
**       else if( it.kind==SQ_PIPE_END || it.kind==SQ_PIPE_ERROR ) break;
**       …
**     }
**     sq_pipe_free(p);                                 // stops and joins the worker
**
** ORDER
**
** Items come out in the order the worker put them: rows, rejects, marks
** (the caller's own: a file begins, a file ends with N records…), then
** exactly one END or ERROR.  So an input that fails at record N gives its
** rows 0..N-1 first, then the error, as when read on one thread; a reject
** comes between the rows around it.
**
** THE RING
**
** nblocks blocks of block bytes (defaults SQ_PIPE_BLOCK, SQ_PIPE_BLOCKS:
** 8 × 64 KiB).  The worker fills one block with items (a row: its values
** and their TEXT/JSON bytes together) and hands it over when the next item
** does not fit, when it calls sq_pipe_flush (before a read that may wait:
** a pipe or FIFO gives rows as they arrive), and at END/ERROR; at the
** stream's start, while the caller waits, also at 4, 8, 16 and 32 KiB (its
** first rows do not wait for a whole block).  An item
** larger than a block gets a block of its own, grown to fit, and given
** back its normal size when next reused: memory stays at nblocks × block
** (blocks are allocated as first filled), more only while blocks hold
** records larger than a block (at most nblocks of them, each bounded by
** the core's record limit).  When every block is full the worker waits;
** the caller releases a block when it asks for the item after the
** block's last.  A pipe that ends leaves its blocks of the default size
** as spares for the next pipe (at most SQ_PIPE_BLOCKS of them, kept for
** the process): a file after file reuses memory already touched.
**
** HOLDING ITEMS
**
** An item is valid until the next sq_pipe_next.  After sq_pipe_hold(p, 1)
** every item taken stays valid until the next sq_pipe_release (or
** sq_pipe_hold(p, 0), or sq_pipe_free): a caller that gathers rows into
** batches (the Swift imports bind them into an N-row INSERT) binds their
** bytes where they lie and releases once the batch has run, instead of
** copying them.  The blocks held do not count against the ring: the worker
** takes another (allocated while more than nblocks are in use, freed when
** given back), so holding never stalls it and memory grows by what the
** caller holds (one batch of records).
**
** STOPPING
**
** sq_pipe_stop (and sq_pipe_free) sets the stop flag, wakes the worker
** wherever it waits on the ring, and joins it.  The worker's puts return
** nonzero once the flag is set; a row callback returns that to its core,
** which then stops (SQ_INGEST_E_ABORTED).  A worker blocked in a read
** must see the flag itself: sq_file (sq_file.h) polls it between waits
** of at most 100 ms when f.stop = sq_pipe_stop_flag(p).  The worker never
** calls into a connection: sqlite3_interrupt() is the caller's to check,
** in sq_pipe_next's waits (interrupted(arg), at least every 100 ms while
** waiting and every 16 blocks while rows flow); when it says so,
** sq_pipe_next returns SQ_PIPE_INTERRUPTED and the caller stops the pipe.
**
** THREADS
**
** sq_pipe_start returns nonzero when no thread can be made (or SQLite is
** built without threads, sqlite3_threadsafe() 0): the caller then reads
** on its own thread, as without a pipe.  Whether a worker is worth
** starting for an input is the one rule of sq_threads.h
** (sq_pipe_worth_it_for, sq_pipe_worth_it_scan; STREAMQLITE_THREADS),
** which the typed tables and the Swift file imports ask first.
**
** Memory: sqlite3_malloc64/sqlite3_free (thread safe).  The worker may
** call sqlite3_malloc, sqlite3_mprintf and sqlite3_str_* (no connection).
*/
#ifndef SQ_PIPE_H
#define SQ_PIPE_H

#include <stddef.h>
#include <stdint.h>
#include "sq_ingest.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SQ_PIPE_BLOCK   (64*1024)
#define SQ_PIPE_BLOCKS  8

/* Item kinds. */
#define SQ_PIPE_ROW     1
#define SQ_PIPE_REJECT  2
#define SQ_PIPE_MARK    3   /* the worker's own: what, a, b */
#define SQ_PIPE_END     4   /* the input ended (last item) */
#define SQ_PIPE_ERROR   5   /* the worker stopped: rc, message (last item) */
/* (6 is sq_pipe.c's own: a row with its raw text, given as SQ_PIPE_ROW) */

/* sq_pipe_next results. */
#define SQ_PIPE_OK          0
#define SQ_PIPE_INTERRUPTED 1

typedef struct sq_pipe sq_pipe;

typedef struct sq_pipe_item {
  int kind;                   /* SQ_PIPE_* */
  sq_ingest_row row;          /* ROW: values, their bytes and raw text in the pipe */
  sq_ingest_reject reject;    /* REJECT: error, field, raw, reason (= message) in the pipe */
  sq_ingest_error error;      /* REJECT: what reject.error points to */
  const char *message;        /* REJECT: the reason; ERROR: the message or NULL */
  int rc;                     /* ERROR: an SQLITE_* code */
  int what;                   /* MARK */
  int64_t a, b;               /* MARK */
  uint64_t bytes, raw_bytes;  /* the worker's sq_pipe_progress when it put the item */
} sq_pipe_item;

/* A pipe (block, nblocks 0: the defaults; nblocks at least 2), or NULL. */
sq_pipe *sq_pipe_new(size_t block, int nblocks);
/* Runs run(p, arg) on a new thread: 0, or nonzero when there is none. */
int sq_pipe_start(sq_pipe *p, void (*run)(sq_pipe *p, void *arg), void *arg);
/* Stops and joins the worker (if started); the pipe can then be freed. */
void sq_pipe_stop(sq_pipe *p);
/* sq_pipe_stop, then frees. */
void sq_pipe_free(sq_pipe *p);
/* Workers started by this thread (sq_pipe_start that made a thread), for
** tests that check the rule. */
uint64_t sq_pipe_workers_started(void);
/* Ring blocks allocated in this process (not taken from the spare blocks
** ended pipes leave: at most SQ_PIPE_BLOCKS of SQ_PIPE_BLOCK bytes), for
** tests. */
uint64_t sq_pipe_blocks_allocated(void);
/* Frees the spare blocks (they are made again as pipes end), for tests that
** count the bytes a scan gives back. */
void sq_pipe_drop_spares(void);

/* ---- the worker's side: 0, or nonzero when stopped (or out of memory:
** then END/ERROR is still put, as SQLITE_NOMEM if nothing else) */
int sq_pipe_put_row(sq_pipe *p, const sq_ingest_row *row);
/* sq_pipe_put_row, and the row's raw text when it has one (row->raw, see
** sq_ingest_set_row_raw): the item gives it back as row.raw (NULL for a
** row put without). */
int sq_pipe_put_row_raw(sq_pipe *p, const sq_ingest_row *row);
int sq_pipe_put_reject(sq_pipe *p, const sq_ingest_reject *r, const char *reason);
int sq_pipe_put_mark(sq_pipe *p, int what, int64_t a, int64_t b);
int sq_pipe_put_end(sq_pipe *p);
/* rc an SQLITE_* code; message may be NULL (copied). */
int sq_pipe_put_error(sq_pipe *p, int rc, const char *message);
/* Hands over the block being filled (before a read that may wait). */
void sq_pipe_flush(sq_pipe *p);
/* Bytes read so far (decompressed, and from the file): items put from now
** on carry them. */
void sq_pipe_progress(sq_pipe *p, uint64_t bytes, uint64_t raw_bytes);
/* The stop flag, for sq_file.stop (read atomically). */
int *sq_pipe_stop_flag(sq_pipe *p);
int sq_pipe_stopped(sq_pipe *p);

/* ---- a worker that reads one file into a core (the Swift imports) ------
** sq_pipe_read_run(p, reader) is a run function: it reads reader->file
** (sq_file_open'ed by the caller, which does not touch it until the
** worker is joined) in chunks of reader->chunk bytes and feeds each to
** reader->feed (its core's callbacks routed to the pipe: sq_pipe_route),
** then puts a mark
** SQ_PIPE_CHUNK_DONE (a: bytes fed, counting on from reader->base; b: the
** records so far, reader->records) and its progress.  At the end of the
** file: END (the caller finishes the core itself, after joining).  A read
** error: ERROR with SQLITE_ERROR and sq_file's message; a feed error:
** ERROR with SQ_PIPE_FEED_FAILED and no message (the core says why). */
typedef struct sq_pipe_reader {
  struct sq_file *file;
  size_t chunk;
  uint64_t base;
  int (*feed)(void *ctx, const void *bytes, size_t n);   /* SQ_INGEST_OK or SQ_INGEST_ERROR */
  int64_t (*records)(void *ctx);
  void *ctx;
} sq_pipe_reader;

#define SQ_PIPE_CHUNK_DONE  0x5143       /* the mark after each chunk */
#define SQ_PIPE_FEED_FAILED (-1)         /* ERROR's rc: the feed failed */

void sq_pipe_read_run(sq_pipe *p, void *reader);

/* A core's callbacks (user: the route) that go into route->pipe while it
** is set, else to the importer's own: an import can move to a worker in
** the middle of its input (CSV inference reads the first records on the
** caller's thread).  Set pipe before sq_pipe_start, clear it after
** sq_pipe_stop.  A reject's reason (r->reason) travels with it and comes
** back as reject.reason; a row's raw text (sq_ingest_set_row_raw) as
** row.raw. */
typedef struct sq_pipe_route {
  sq_ingest_row_callback row;
  void *row_user;
  sq_ingest_reject_callback reject;
  void *reject_user;
  sq_pipe *pipe;
} sq_pipe_route;
int sq_pipe_route_row(void *route, const sq_ingest_row *row);
int sq_pipe_route_reject(void *route, const sq_ingest_reject *r);

/* ---- the caller's side */
/* The next item, waiting for it; it (and its bytes) stays valid until the
** next call.  interrupted(arg) (may be NULL) is asked while waiting.
** After END or ERROR, every call gives END/ERROR again. */
int sq_pipe_next(sq_pipe *p, sq_pipe_item *it, int (*interrupted)(void *arg), void *arg);
/* Hold mode on or off (off releases): see HOLDING ITEMS. */
void sq_pipe_hold(sq_pipe *p, int on);
/* Gives back the blocks of the items taken so far, but the block of the
** last (those items are no longer valid). */
void sq_pipe_release(sq_pipe *p);
/* An `interrupted` for sq_pipe_next: arg is a sqlite3*; sqlite3_interrupt()
** was called on it, or the host's stop check says so (sq_interrupted). */
int sq_pipe_db_interrupted(void *db);

#ifdef __cplusplus
}
#endif
#endif
