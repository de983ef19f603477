/*
** sq_file.c — how StreamQLite's SQL functions read a file named in SQL.
**
** json_stream (sq_json_stream.c) and csv_stream (sq_csv_stream.c) read
** through these helpers, called by their one driver (sq_file_table.c):
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
**
** Errors come back as a message (sqlite3_free it) without the file name;
** the caller says which function and file.
*/
#include "sq_internal.h"

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

sqlite3_int64 sq_file_read(sq_file *f, void *buf, size_t n, int *rc, char **pzErr){
  *rc = SQLITE_OK;
  for(;;){
    struct pollfd pfd;
    ssize_t k;
    int r;
    if( f->reads>=SQ_FILE_READS_PER_CHECK ){
      f->reads = 0;
      if( sq_interrupted(f->db) ){ *rc = SQLITE_INTERRUPT; return -1; }
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
    return (sqlite3_int64)k;
  }
  *rc = SQLITE_ERROR;
  *pzErr = sqlite3_mprintf("read error: %s", strerror(errno));
  return -1;
}

void sq_file_close(sq_file *f){
  if( f->fd>=0 ) close(f->fd);
  f->fd = -1;
}
