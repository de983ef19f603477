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
**
** Errors come back as a message (sqlite3_free it) without the file name;
** the caller says which function and file.
*/
#include "sq_internal.h"
#include "sq_decompress.h"

#include <string.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <unistd.h>
#include <sys/stat.h>

#ifndef O_CLOEXEC
# define O_CLOEXEC 0
#endif

#define SQ_FILE_WAIT_MS          100   /* longest wait between interrupt checks */
#define SQ_FILE_READS_PER_CHECK  16    /* reads between checks when data flows */
#define SQ_FILE_RAW              (64*1024)  /* compressed bytes read at a time */

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
  return SQLITE_OK;
}

/* One read() of the file, waiting interruptibly. */
static sqlite3_int64 file_read_raw(sq_file *f, void *buf, size_t n, int *rc, char **pzErr){
  *rc = SQLITE_OK;
  for(;;){
    struct pollfd pfd;
    ssize_t k;
    int r;
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
    f->nraw += k;
    return (sqlite3_int64)k;
  }
  *rc = SQLITE_ERROR;
  *pzErr = sqlite3_mprintf("cannot read: %s", strerror(errno));
  return -1;
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
        *rc = SQLITE_ERROR;
        *pzErr = sqlite3_mprintf("%s: the decoder stopped after %llu compressed bytes",
                                 sq_dz_kind_name(sq_dz_kind(f->dz)), sq_dz_bytes_in(f->dz));
        return -1;
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
  *rc = SQLITE_ERROR;
  *pzErr = sqlite3_mprintf("%s", sq_dz_error(f->dz));
  return -1;
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
  return file_read_dz(f, buf, n, rc, pzErr);
}

long long sq_file_read(sq_file *f, void *buf, size_t n, int *rc, char **pzErr){
  if( f->dz ) return file_read_dz(f, (unsigned char*)buf, n, rc, pzErr);
  if( !f->sniffed && n>0 ) return file_read_first(f, (unsigned char*)buf, n, rc, pzErr);
  return file_read_raw(f, buf, n, rc, pzErr);
}

void sq_file_close(sq_file *f){
  if( f->fd>=0 ) close(f->fd);
  f->fd = -1;
  sq_dz_free(f->dz);
  f->dz = 0;
  sqlite3_free(f->raw);
  f->raw = 0;
}
