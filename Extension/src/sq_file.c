/*
** sq_file.c — how StreamQLite reads a file named by a user (sq_file.h).
**
** json_stream (sq_json_stream.c) and csv_stream (sq_csv_stream.c) read
** through these helpers, called by their one driver (sq_file_table.c), and
** so do the Swift library's file imports and cursors (with db NULL: no
** interrupt checks):
**
**   - The file is opened O_RDONLY | O_CLOEXEC | O_NONBLOCK: opening a FIFO
**     does not wait for a writer (the reads wait, interruptibly); regular
**     files ignore O_NONBLOCK.  It is only read sequentially, never
**     seeked, so '/dev/stdin', pipes and FIFOs work.  A directory is
**     refused at open ("is a directory").
**   - A read waits for data with poll() in slices of SQ_FILE_WAIT_MS, and
**     between slices (and every SQ_FILE_READS_PER_CHECK reads while data
**     flows) asks the connection whether sqlite3_interrupt() was called
**     (sq_interrupted, sq_host.c): a FIFO without a writer, or a writer
**     that stalls, then ends the statement with SQLITE_INTERRUPT.
**   - A gzip or zstd file (its first bytes say so: sq_decompress.h) is
**     read decompressed, a chunk of SQ_FILE_RAW compressed bytes at a
**     time: sq_file_read gives the decompressed stream, whose positions
**     the parsers report.  A plain file is read into the caller's buffer
**     as it is.  Truncated or corrupt data is a read error saying "gzip" or
**     "zstd" and how many compressed bytes were read.
**   - The reading and decompressing of a compressed file run on a thread
**     of its own (sq_ahead) when it is worth it (sq_threads.h's one rule,
**     sq_pipe_worth_it_for: a second CPU online, and at least
**     SQ_PIPE_MIN_INPUT bytes compressed, or a pipe, or once that many
**     have come out decompressed; STREAMQLITE_THREADS=0 never, 2 always),
**     SQ_AHEAD_SLOTS chunks ahead: a small file is decompressed on the
**     reader's thread, which is faster than starting a thread for it, and
**     one that expands to a large input gets the thread for the rest, the
**     decoder handed over where it stands.  The thread calls the same
**     file_read_dz on its own copy of the sq_file (no connection: it never
**     calls SQLite's API but to allocate), and the reader takes chunks from
**     the ring.  The reader keeps the interrupt checks (waiting on the ring
**     in slices of SQ_FILE_WAIT_MS); closing stops the thread (its waits on
**     the file end within a slice) and joins it.  Without threads
**     (sqlite3_threadsafe() 0, or no thread could be made) the reader
**     decompresses itself.  A reader that is a thread of its own (f->stop
**     set: sq_pipe.h's worker, which parses while the caller inserts) gets
**     a read-ahead thread too: decompressing, parsing and inserting are
**     then three threads the system spreads over its cores, where two
**     would leave the parser's core doing two of them.
**   - f->stop (set by the owner after sq_file_open): a flag read between
**     waits; once set, reads end with SQLITE_INTERRUPT.  A thread that
**     reads for someone else (the pipe's worker) sets db NULL and this.
**
** Errors come back as a message (sqlite3_free it) without the file name;
** the caller says which function and file.
*/
#include "sq_internal.h"
#include "sq_decompress.h"
#include "sq_threads.h"

#include <string.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>

#ifndef O_CLOEXEC
# define O_CLOEXEC 0
#endif

#define SQ_FILE_WAIT_MS          100   /* longest wait between interrupt checks */
#define SQ_FILE_READS_PER_CHECK  16    /* reads between checks when data flows */
#define SQ_FILE_RAW              (64*1024)  /* compressed bytes read at a time */
#define SQ_AHEAD_SLOTS           4          /* chunks decompressed ahead */
#define SQ_AHEAD_CHUNK           (64*1024)

/* The read-ahead thread and its ring of decompressed chunks. */
typedef struct sq_ahead {
  pthread_t th;
  pthread_mutex_t mu;
  pthread_cond_t cv;          /* broadcast on every change */
  sq_file src;                /* the thread's: fd, decoder, raw buffer; no db */
  int stop;                   /* the reader closes: the thread ends */
  unsigned char *slot[SQ_AHEAD_SLOTS];
  size_t len[SQ_AHEAD_SLOTS];
  int head, count;            /* filled slots: count of them from head */
  size_t taken;               /* bytes of slot[head] given out */
  int done;                   /* the thread ended: the stream's end, or rc/err */
  int rc;
  char *err;
  long long nraw;
} sq_ahead;

int sq_file_open(sq_file *f, sqlite3 *db, const char *path, char **pzErr){
  struct stat st;
  memset(f, 0, sizeof(*f));
  f->db = db;
  f->reads = SQ_FILE_READS_PER_CHECK;     /* check once before the first read */
  f->fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if( f->fd<0 ){
    *pzErr = sqlite3_mprintf("cannot open: %s", strerror(errno));
    return SQLITE_ERROR;
  }
  if( fstat(f->fd, &st)==0 ){
    if( S_ISDIR(st.st_mode) ){
      close(f->fd);
      f->fd = -1;
      *pzErr = sqlite3_mprintf("cannot read: is a directory");
      return SQLITE_ERROR;
    }
    f->regular = S_ISREG(st.st_mode);
  }
  f->size = f->regular ? (long long)st.st_size : -1;
  return SQLITE_OK;
}

/* A read fails with msg (taken): SQLITE_ERROR, or SQLITE_NOMEM when the
** message could not be made (*pzErr NULL); -1. */
static sqlite3_int64 file_fail(int *rc, char **pzErr, char *msg){
  *pzErr = msg;
  *rc = msg ? SQLITE_ERROR : SQLITE_NOMEM;
  return -1;
}

/* One read() of the file, waiting interruptibly. */
static sqlite3_int64 file_read_raw(sq_file *f, void *buf, size_t n, int *rc, char **pzErr){
  *rc = SQLITE_OK;
  for(;;){
    struct pollfd pfd;
    ssize_t k;
    int r;
    if( f->stop && __atomic_load_n(f->stop, __ATOMIC_ACQUIRE) ){ *rc = SQLITE_INTERRUPT; return -1; }
    if( f->reads>=SQ_FILE_READS_PER_CHECK ){
      f->reads = 0;
      if( f->db && sq_interrupted(f->db) ){ *rc = SQLITE_INTERRUPT; return -1; }
    }
    pfd.fd = f->fd;
    pfd.events = POLLIN;
    pfd.revents = 0;
    r = poll(&pfd, 1, SQ_FILE_WAIT_MS);
    if( r==0 || (r<0 && errno==EINTR) ){
      f->reads = SQ_FILE_READS_PER_CHECK;  /* waited: check now */
      continue;
    }
    if( r<0 ) break;
    f->reads++;
    k = read(f->fd, buf, n);
    if( k<0 && (errno==EAGAIN || errno==EWOULDBLOCK || errno==EINTR) ) continue;
    if( k<0 ) break;
    if( k==0 && f->nraw<f->size ){
      /* truncated (or rewritten) while read: what is left is not the file that was opened */
      return file_fail(rc, pzErr, sqlite3_mprintf("the file shrank while it was read: %lld bytes when "
                                                  "opened, it ended after %lld", f->size, f->nraw));
    }
    f->nraw += k;
    return (sqlite3_int64)k;
  }
  return file_fail(rc, pzErr, sqlite3_mprintf("cannot read: %s", strerror(errno)));
}

/* Decompressed bytes into buf: at least one, or 0 at the end of the
** stream (checked: not inside a member or frame). */
static sqlite3_int64 file_read_dz(sq_file *f, unsigned char *buf, size_t n, int *rc, char **pzErr){
  for(;;){
    if( f->rawpos<f->rawlen || f->full ){
      size_t used = 0, made = 0;
      if( sq_dz_run(f->dz, f->raw+f->rawpos, f->rawlen-f->rawpos, &used, buf, n, &made)!=SQ_DZ_OK ){
        break;
      }
      f->rawpos += used;
      f->full = made==n;
      if( made>0 ) return (sqlite3_int64)made;
      if( f->rawpos<f->rawlen ){
        if( used>0 ) continue;
        return file_fail(rc, pzErr, sqlite3_mprintf("%s: the decoder stopped after %llu compressed bytes",
                         sq_dz_kind_name(sq_dz_kind(f->dz)), sq_dz_bytes_in(f->dz)));
      }
    }
    if( f->raw_eof ){
      if( sq_dz_end(f->dz)!=SQ_DZ_OK ) break;
      return 0;
    }
    {
      sqlite3_int64 k = file_read_raw(f, f->raw, SQ_FILE_RAW, rc, pzErr);
      if( k<0 ) return -1;
      f->rawpos = 0;
      f->rawlen = (size_t)k;
      if( k==0 ) f->raw_eof = 1;
    }
  }
  return file_fail(rc, pzErr, sqlite3_mprintf("%s", sq_dz_error(f->dz)));
}

/* ---- the read-ahead thread */

static _Thread_local unsigned long long ahead_started_here;

unsigned long long sq_file_ahead_started(void){
  return ahead_started_here;
}

static void *ahead_main(void *p){
  sq_ahead *a = (sq_ahead*)p;
  for(;;){
    int idx, rc = SQLITE_OK;
    char *why = 0;
    sqlite3_int64 k;
    pthread_mutex_lock(&a->mu);
    while( a->count==SQ_AHEAD_SLOTS && !a->stop ) pthread_cond_wait(&a->cv, &a->mu);
    if( a->stop ){
      a->done = 1;
      a->rc = SQLITE_INTERRUPT;
      pthread_mutex_unlock(&a->mu);
      return 0;
    }
    idx = (a->head + a->count) % SQ_AHEAD_SLOTS;
    pthread_mutex_unlock(&a->mu);
    k = file_read_dz(&a->src, a->slot[idx], SQ_AHEAD_CHUNK, &rc, &why);
    pthread_mutex_lock(&a->mu);
    a->nraw = a->src.nraw;
    if( k>0 ){
      a->len[idx] = (size_t)k;
      a->count++;
    }else{
      a->done = 1;
      a->rc = k<0 ? rc : SQLITE_OK;
      a->err = why;
    }
    pthread_cond_broadcast(&a->cv);
    pthread_mutex_unlock(&a->mu);
    if( k<=0 ) return 0;
  }
}

static void ahead_free(sq_ahead *a){
  int i;
  for(i=0; i<SQ_AHEAD_SLOTS; i++) sqlite3_free(a->slot[i]);
  sq_dz_free(a->src.dz);
  sqlite3_free(a->src.raw);
  sqlite3_free(a->err);
  pthread_cond_destroy(&a->cv);
  pthread_mutex_destroy(&a->mu);
  sqlite3_free(a);
}

/* Hands f's decoder and raw buffer to a new read-ahead thread: 0, or 1
** when there is none (f unchanged: the reader decompresses itself). */
static int ahead_start(sq_file *f){
  sq_ahead *a;
  int i;
  if( !sqlite3_threadsafe() ) return 1;
  a = sqlite3_malloc64(sizeof(*a));
  if( a ) memset(a, 0, sizeof(*a));
  if( !a ) return 1;
  pthread_mutex_init(&a->mu, 0);
  pthread_cond_init(&a->cv, 0);
  for(i=0; i<SQ_AHEAD_SLOTS; i++){
    a->slot[i] = sqlite3_malloc64(SQ_AHEAD_CHUNK);
    if( !a->slot[i] ) break;
  }
  a->src = *f;
  a->src.db = 0;
  a->src.stop = &a->stop;
  if( i<SQ_AHEAD_SLOTS || pthread_create(&a->th, 0, ahead_main, a)!=0 ){
    a->src.dz = 0;
    a->src.raw = 0;
    ahead_free(a);
    return 1;
  }
  f->dz = 0;
  f->raw = 0;
  f->ah = a;
  ahead_started_here++;
  return 0;
}

/* Decompressed bytes from the ring: as file_read_dz, with the waits for
** the thread in slices between interrupt checks. */
static sqlite3_int64 file_read_ahead(sq_file *f, unsigned char *buf, size_t n, int *rc, char **pzErr){
  sq_ahead *a = f->ah;
  *rc = SQLITE_OK;
  for(;;){
    struct timespec until;
    if( f->stop && __atomic_load_n(f->stop, __ATOMIC_ACQUIRE) ){ *rc = SQLITE_INTERRUPT; return -1; }
    if( f->reads>=SQ_FILE_READS_PER_CHECK ){
      f->reads = 0;
      if( f->db && sq_interrupted(f->db) ){ *rc = SQLITE_INTERRUPT; return -1; }
    }
    pthread_mutex_lock(&a->mu);
    f->nraw = a->nraw;
    if( a->count>0 ){
      size_t k = a->len[a->head] - a->taken;
      if( k>n ) k = n;
      memcpy(buf, a->slot[a->head] + a->taken, k);
      a->taken += k;
      if( a->taken==a->len[a->head] ){
        a->head = (a->head + 1) % SQ_AHEAD_SLOTS;
        a->count--;
        a->taken = 0;
        pthread_cond_broadcast(&a->cv);
      }
      pthread_mutex_unlock(&a->mu);
      f->reads++;
      return (sqlite3_int64)k;
    }
    if( a->done ){
      int r = a->rc;
      if( r!=SQLITE_OK ){
        *rc = r;
        *pzErr = a->err;
        a->err = 0;
        if( !*pzErr && r!=SQLITE_INTERRUPT ) *rc = SQLITE_NOMEM;
      }
      pthread_mutex_unlock(&a->mu);
      return r==SQLITE_OK ? 0 : -1;
    }
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_nsec += SQ_FILE_WAIT_MS * 1000000L;
    if( until.tv_nsec>=1000000000L ){ until.tv_sec++; until.tv_nsec -= 1000000000L; }
    pthread_cond_timedwait(&a->cv, &a->mu, &until);
    pthread_mutex_unlock(&a->mu);
    f->reads = SQ_FILE_READS_PER_CHECK;   /* waited: check now */
  }
}

long long sq_pipe_file_left(const sq_file *f){
  struct stat st;
  if( !f->regular || fstat(f->fd, &st)!=0 ) return -1;
  return st.st_size>f->nraw ? (long long)st.st_size-f->nraw : 0;
}

/* Decompressed bytes into buf, here or from a read-ahead thread started
** when the one rule of sq_threads.h says so (sq_pipe_worth_it_for), asked
** twice at most: at the first read, of the compressed bytes still to
** decode (those read, and the rest of a regular file; a pipe: unknown),
** and, when that was too small, once more when SQ_PIPE_MIN_INPUT bytes
** have come out decompressed (a small file that expands to a large input;
** the thread then takes the decoder where it stands).  A reader with a stop
** flag (sq_pipe.h's worker, parsing while the caller inserts) gets one by
** the same rule: three threads the system spreads over its cores. */
static sqlite3_int64 file_read_decoded(sq_file *f, unsigned char *buf, size_t n, int *rc, char **pzErr){
  sqlite3_int64 k;
  if( f->ahead_asked==0 || (f->ahead_asked==1 && f->nout>=SQ_PIPE_MIN_INPUT) ){
    long long size = f->nout;
    if( f->ahead_asked++==0 ){
      long long left = sq_pipe_file_left(f);
      size = left<0 ? -1 : left+(long long)(f->rawlen-f->rawpos);
    }
    if( sq_pipe_worth_it_for(size) && ahead_start(f)==0 ) return file_read_ahead(f, buf, n, rc, pzErr);
  }
  k = file_read_dz(f, buf, n, rc, pzErr);
  if( k>0 ) f->nout += k;
  return k;
}

/* The first read: enough bytes to tell a compressed file by its magic
** number (a pipe may give them a few at a time). */
static sqlite3_int64 file_read_first(sq_file *f, unsigned char *buf, size_t n, int *rc, char **pzErr){
  size_t have = 0;
  int kind, eof = 0;
  for(;;){
    sqlite3_int64 k = file_read_raw(f, buf+have, n-have, rc, pzErr);
    if( k<0 ) return -1;
    if( k==0 ) eof = 1;
    have += (size_t)k;
    kind = sq_dz_detect(buf, have, eof || have==n);
    if( kind!=SQ_DZ_AUTO ) break;
  }
  f->sniffed = 1;
  if( kind==SQ_DZ_PLAIN ) return (sqlite3_int64)have;
  f->dz = sq_dz_new(kind);
  /* (the first read may be larger than later ones: the caller's buffer) */
  f->raw = sqlite3_malloc64(have>SQ_FILE_RAW ? have : SQ_FILE_RAW);
  if( !f->dz || !f->raw ){ *rc = SQLITE_NOMEM; return -1; }
  memcpy(f->raw, buf, have);
  f->rawlen = have;
  f->raw_eof = eof;
  return file_read_decoded(f, buf, n, rc, pzErr);
}

long long sq_file_read(sq_file *f, void *buf, size_t n, int *rc, char **pzErr){
  if( f->ah ) return file_read_ahead(f, (unsigned char*)buf, n, rc, pzErr);
  if( f->dz ) return file_read_decoded(f, (unsigned char*)buf, n, rc, pzErr);
  if( !f->sniffed && n>0 ) return file_read_first(f, (unsigned char*)buf, n, rc, pzErr);
  return file_read_raw(f, buf, n, rc, pzErr);
}

void sq_file_close(sq_file *f){
  if( f->ah ){
    sq_ahead *a = f->ah;
    pthread_mutex_lock(&a->mu);
    __atomic_store_n(&a->stop, 1, __ATOMIC_RELEASE);
    pthread_cond_broadcast(&a->cv);
    pthread_mutex_unlock(&a->mu);
    pthread_join(a->th, 0);
    ahead_free(a);
    f->ah = 0;
  }
  if( f->fd>=0 ) close(f->fd);
  f->fd = -1;
  sq_dz_free(f->dz);
  f->dz = 0;
  sqlite3_free(f->raw);
  f->raw = 0;
}
