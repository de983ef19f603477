/*
** sq_threads.h — the one rule for a second thread: whether an input is
** worth reading on a thread of its own (sq_threads.c).
**
** Two threads may join a reader: sq_pipe.h's worker, which reads, parses
** and converts while the caller inserts, and sq_file.h's read-ahead
** thread, which reads and decompresses a gzip or zstd file while its
** reader parses.  Both start by this rule, asked when a scan, an import
** or a compressed read starts; it says nothing of how the threads run.
**
** sq_pipe_worth_it() says whether a second thread can run at once: more
** than one CPU online (counted when first asked) and SQLite built thread
** safe (sqlite3_threadsafe()).
**
** sq_pipe_worth_it_for(size) is the rule the typed tables and the Swift
** file imports follow when a scan or an import starts: a worker when a
** second thread can run and the input is worth it, that is its size is
** unknown (size < 0: a pipe, FIFO, terminal or other file that is not
** regular; it may stall, and the worker keeps the rows already read
** flowing meanwhile) or at least SQ_PIPE_MIN_INPUT bytes (starting and
** joining a thread costs more than it gains on a smaller file: a table
** re-scanned for each row of an outer loop, or many small files, would
** pay it on every scan).  The size is the bytes stored: for a gzip or zstd
** file, its compressed size (known without reading it).  It understates
** the work, but sq_file decompresses on a thread of its own (sq_file.h)
** with or without the worker, so the worker gains less there than on a
** plain file of the decompressed size.  sq_pipe_input_size and
** sq_pipe_file_left (sq_file.h) measure it.
**
** sq_pipe_worth_it_scan(size, rescan) is the same rule for the scans of
** one table cursor: its first scan as above, a rescan (the cursor filtered
** again in the same statement: the inner loop of a nested-loop join) on
** the caller's thread whatever the size.  (SQLite 3.40 opens a new cursor
** for each run of a correlated subquery: each is a first scan.)  Each
** rescan would pay a thread start and join and read up to the pipe's
** 512 KiB ring ahead even when it stops early, and the query's side of
** such a loop has too little to do a row to overlap with the worker's.
**
** sq_file (sq_file.h) asks sq_pipe_worth_it_for too before it starts its
** read-ahead thread, with a compressed file's size as stored, and once
** more with the bytes decompressed when they reach SQ_PIPE_MIN_INPUT: a
** small compressed file is decompressed on the reader's thread.
** STREAMQLITE_THREADS in the environment overrides the rule, for
** comparisons and tests: 0 keeps every scan and import on the caller's
** thread (and every compressed file decompressed there); 2 starts a
** worker (and a read-ahead thread) for every input and rescan whatever
** its size and the CPUs online (if SQLite is built thread safe).
*/
#ifndef SQ_THREADS_H
#define SQ_THREADS_H

#ifdef __cplusplus
extern "C" {
#endif

/* More than one CPU online (and SQLite thread safe): a worker can run
** beside the caller.  (STREAMQLITE_THREADS: see above.) */
int sq_pipe_worth_it(void);
/* STREAMQLITE_THREADS unset, empty, 0 or 2: NULL; else what is wrong with
** it (static text), for the extension to refuse to load rather than
** ignore a value it does not know. */
const char *sq_pipe_threads_env_error(void);

/* The smallest input, in bytes as stored, that a worker is started for. */
#define SQ_PIPE_MIN_INPUT  (256*1024)
/* A worker for an input of `size` bytes (< 0: unknown). */
int sq_pipe_worth_it_for(long long size);
/* The same for a table cursor's scan; rescan nonzero: not its first
** (never a worker, but with STREAMQLITE_THREADS=2). */
int sq_pipe_worth_it_scan(long long size, int rescan);
/* The size of the files paths[0..n) (a scan of them): the sum of their
** sizes, counted up to SQ_PIPE_MIN_INPUT; -1 when one is not a regular
** file (a path that cannot be stat'ed counts 0: opening it is the error). */
long long sq_pipe_input_size(char *const *paths, int n);

#ifdef __cplusplus
}
#endif
#endif
