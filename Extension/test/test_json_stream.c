/*
** test_json_stream.c — json_stream through the SQLite C API: reading a
** pipe (no seeking), documents larger than the 64 KiB read chunk with
** tokens across chunk boundaries, agreement with SQLite's own json_each,
** typed columns, the element size limit, reuse of a statement, reads that
** wait on a FIFO stopped by sqlite3_interrupt() (compiled in against the
** system SQLite: the probe-statement path of sq_host.c when it is 3.40).
*/
#include "sq_internal.h"
#include "streamqlite.h"
#include "sq_test.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static sqlite3 *db;
static char F_DOC[128], F_LIM[128];   /* temporary files */

static char *sql1(const char *sql, const char *a1){
  sqlite3_stmt *st = 0;
  char *out = 0;
  int rc = sqlite3_prepare_v2(db, sql, -1, &st, 0);
  if( rc==SQLITE_OK ){
    if( a1 ) sqlite3_bind_text(st, 1, a1, -1, SQLITE_TRANSIENT);
    rc = sqlite3_step(st);
    if( rc==SQLITE_ROW ){
      const char *t = (const char*)sqlite3_column_text(st, 0);
      out = strdup(t ? t : "NULL");
    }else if( rc!=SQLITE_DONE ){
      out = malloc(strlen(sqlite3_errmsg(db))+8);
      sprintf(out, "ERROR %s", sqlite3_errmsg(db));
    }else{
      out = strdup("DONE");
    }
  }else{
    out = malloc(strlen(sqlite3_errmsg(db))+8);
    sprintf(out, "ERROR %s", sqlite3_errmsg(db));
  }
  sqlite3_finalize(st);
  return out;
}

static void check_sql(const char *sql, const char *a1, const char *want){
  char *got = sql1(sql, a1);
  SQ_CHECK_MSG(strcmp(got, want)==0, "%s\n  got:  %s\n  want: %s", sql, got, want);
  free(got);
}
static void check_sql_err(const char *sql, const char *a1, const char *want){
  char *got = sql1(sql, a1);
  SQ_CHECK_MSG(strncmp(got, "ERROR", 5)==0 && strstr(got, want)!=0,
               "%s\n  got:  %s\n  want error containing: %s", sql, got, want);
  free(got);
}

/* A document of n objects whose titles have varied lengths (up to 70 000
** bytes, so strings cross the 64 KiB read chunks) and escapes. */
static char *make_doc(int n, int ndjson, size_t *len){
  size_t cap = 1<<20, o = 0;
  char *b = malloc(cap);
  int i;
  if( !ndjson ) b[o++] = '[';
  for(i=0; i<n; i++){
    size_t tl = (size_t)(i*37 % 200) + (i==77 ? 70000 : 0);
    size_t need = o + tl*2 + 200;
    size_t k;
    if( need>cap ){ while( need>cap ) cap *= 2; b = realloc(b, cap); }
    if( !ndjson && i>0 ){ b[o++] = ','; b[o++] = '\n'; }
    o += (size_t)sprintf(b+o, "{\"id\": %d, \"title\": \"", i);
    for(k=0; k<tl; k++){
      if( k%50==49 ){ memcpy(b+o, "\\u00e9", 6); o += 6; }
      else if( k%61==60 ){ memcpy(b+o, "\\\"", 2); o += 2; }
      else b[o++] = (char)('a' + (k+(size_t)i)%26);
    }
    o += (size_t)sprintf(b+o, "\", \"done\": %s, \"n\": {\"x\": [%d.5e1, null]}}%s",
                         i%2 ? "true" : "false", i, ndjson ? "\n" : "");
  }
  if( !ndjson ){ b[o++] = ']'; b[o++] = '\n'; }
  b[o] = 0;
  *len = o;
  return b;
}

typedef struct Writer { int fd; const char *b; size_t n; } Writer;
static void *writer_main(void *arg){
  Writer *w = (Writer*)arg;
  size_t pos = 0;
  while( pos<w->n ){
    size_t k = w->n-pos < 1000 ? w->n-pos : 1000;   /* small, odd writes */
    ssize_t r = write(w->fd, w->b+pos, k);
    if( r<=0 ) break;
    pos += (size_t)r;
  }
  close(w->fd);
  return 0;
}

static void write_file(const char *path, const char *b, size_t n){
  FILE *f = fopen(path, "wb");
  fwrite(b, 1, n, f);
  fclose(f);
}

static void test_pipe_and_chunks(void){
  size_t n;
  char *doc = make_doc(3000, 0, &n);
  int fds[2];
  pthread_t th;
  Writer w;
  char path[64];
  char *want;
  SQ_CHECK(n > 3*65536);
  write_file(F_DOC, doc, n);

  /* the same rows as SQLite's json_each over the text */
  {
    sqlite3_stmt *st;
    /* json_each materialized once (an automatic index on key), not
    ** re-parsed for each of the 3000 rows */
    sqlite3_prepare_v2(db,
      "WITH e AS MATERIALIZED (SELECT key, value FROM json_each(?1))"
      " SELECT count(*), sum(s.value->>'id' = e.value->>'id' AND s.value->>'title' = e.value->>'title'"
      "   AND s.value->>'done' = e.value->>'done' AND s.value->>'$.n.x[0]' = e.value->>'$.n.x[0]')"
      " FROM json_stream(?2) s CROSS JOIN e ON e.key = s.idx", -1, &st, 0);
    sqlite3_bind_text(st, 1, doc, (int)n, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, F_DOC, -1, SQLITE_STATIC);
    SQ_CHECK(sqlite3_step(st)==SQLITE_ROW);
    SQ_CHECK(sqlite3_column_int(st, 0)==3000);
    SQ_CHECK(sqlite3_column_int(st, 1)==3000);
    /* the statement runs again after a reset (xFilter on a used cursor) */
    sqlite3_reset(st);
    SQ_CHECK(sqlite3_step(st)==SQLITE_ROW);
    SQ_CHECK(sqlite3_column_int(st, 1)==3000);
    sqlite3_finalize(st);
  }
  want = sql1("SELECT sum(length(value->>'title')) || ',' || sum(value->>'id') FROM json_stream(?1)", F_DOC);

  /* the same document through a pipe: no seeking, no size */
  SQ_CHECK(pipe(fds)==0);
  w.fd = fds[1]; w.b = doc; w.n = n;
  pthread_create(&th, 0, writer_main, &w);
  snprintf(path, sizeof path, "/dev/fd/%d", fds[0]);
  check_sql("SELECT sum(length(value->>'title')) || ',' || sum(value->>'id') FROM json_stream(?1)", path, want);
  pthread_join(th, 0);
  close(fds[0]);

  /* typed columns agree with ->> */
  {
    char *q = sqlite3_mprintf("CREATE VIRTUAL TABLE temp.typed USING json_stream(filename='%q',"
                              " columns='id INTEGER, title TEXT, done INTEGER, n')", F_DOC);
    SQ_CHECK(sqlite3_exec(db, q, 0, 0, 0)==SQLITE_OK);
    sqlite3_free(q);
  }
  check_sql("WITH s AS MATERIALIZED (SELECT idx, value FROM json_stream(?1))"
            " SELECT count(*) FROM typed t CROSS JOIN s ON s.idx = t.id"
            " WHERE t.title = s.value->>'title' AND t.done = s.value->>'done' AND t.n = json(s.value->'n')",
            F_DOC, "3000");
  free(want);
  free(doc);

  /* NDJSON, through a pipe too */
  doc = make_doc(500, 1, &n);
  SQ_CHECK(pipe(fds)==0);
  w.fd = fds[1]; w.b = doc; w.n = n;
  pthread_create(&th, 0, writer_main, &w);
  snprintf(path, sizeof path, "/dev/fd/%d", fds[0]);
  check_sql("SELECT count(*) || ',' || sum(value->>'id') || ',' || max(line) FROM json_stream(?1)", path, "500,124750,500");
  pthread_join(th, 0);
  close(fds[0]);
  free(doc);
  unlink(F_DOC);
}

/* The element/token limit is min(64 MiB, SQLITE_LIMIT_LENGTH).  (The
** limit also applies to SQLite's own error message, so it stays >= 200.) */
static void test_limits(void){
  char doc[1024];
  char s150[151], s250[251];
  memset(s150, 'x', 150); s150[150] = 0;
  memset(s250, 'y', 250); s250[250] = 0;
  /* element 1: two 150-byte strings (element > 250 bytes); element 2: one
  ** 250-byte string */
  snprintf(doc, sizeof doc, "[{\"a\": 1},\n {\"a\": \"%s\", \"b\": \"%s\"},\n {\"c\": \"%s\"}]",
           s150, s150, s250);
  write_file(F_LIM, doc, strlen(doc));
  sqlite3_limit(db, SQLITE_LIMIT_LENGTH, 240);
  check_sql_err("SELECT count(*) FROM json_stream(?1)", F_LIM,
                "-lim.json: line 2, byte 177, element 1: element larger than 240 bytes");
  sqlite3_limit(db, SQLITE_LIMIT_LENGTH, 400);
  check_sql("SELECT count(*) FROM json_stream(?1) WHERE idx < 2", F_LIM, "2");
  sqlite3_limit(db, SQLITE_LIMIT_LENGTH, 1000000000);
  check_sql("SELECT count(*) FROM json_stream(?1)", F_LIM, "3");
  /* one string longer than the limit */
  snprintf(doc, sizeof doc, "[1,\n {\"c\": \"%s\"}]", s250);
  write_file(F_LIM, doc, strlen(doc));
  sqlite3_limit(db, SQLITE_LIMIT_LENGTH, 245);
  check_sql_err("SELECT count(*) FROM json_stream(?1)", F_LIM,
                "-lim.json: line 2, byte 11, element 1: token longer than the token limit");
  sqlite3_limit(db, SQLITE_LIMIT_LENGTH, 1000000000);
  unlink(F_LIM);
}

static double now_s(void){
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec/1e9;
}

/* Interrupts db after 200 ms; after 3 s, unblocks a reader that ignored it
** (opens and closes the FIFO's write end, or closes the stalled writer) so
** that the test fails instead of hanging. */
typedef struct Interrupter {
  const char *fifo;
  int stalled_fd;          /* writer to close, or -1 */
  int done;                /* atomic */
  double t_interrupt;
} Interrupter;
static void *interrupter_main(void *arg){
  Interrupter *it = (Interrupter*)arg;
  int i;
  usleep(200*1000);
  it->t_interrupt = now_s();
  sqlite3_interrupt(db);
  for(i=0; i<280 && !__atomic_load_n(&it->done, __ATOMIC_ACQUIRE); i++) usleep(10*1000);
  if( !__atomic_load_n(&it->done, __ATOMIC_ACQUIRE) ){
    if( it->stalled_fd>=0 ){ close(it->stalled_fd); it->stalled_fd = -1; }
    else{ int fd = open(it->fifo, O_WRONLY|O_NONBLOCK); if( fd>=0 ) close(fd); }
  }
  return 0;
}

static void check_interrupted(const char *sql, const char *fifo, int stalled_fd, const char *what){
  Interrupter it;
  pthread_t th;
  sqlite3_stmt *st = 0;
  int rc;
  double secs;
  memset(&it, 0, sizeof it);
  it.fifo = fifo;
  it.stalled_fd = stalled_fd;
  SQ_CHECK(sqlite3_prepare_v2(db, sql, -1, &st, 0)==SQLITE_OK);
  sqlite3_bind_text(st, 1, fifo, -1, SQLITE_STATIC);
  pthread_create(&th, 0, interrupter_main, &it);
  while( (rc = sqlite3_step(st))==SQLITE_ROW ){}
  secs = now_s();
  __atomic_store_n(&it.done, 1, __ATOMIC_RELEASE);
  pthread_join(th, 0);
  secs -= it.t_interrupt;
  SQ_CHECK_MSG(rc==SQLITE_INTERRUPT && strcmp(sqlite3_errmsg(db), "interrupted")==0 && secs<1.5,
               "%s: rc=%d '%s' %.2fs after sqlite3_interrupt()", what, rc, sqlite3_errmsg(db), secs);
  sqlite3_finalize(st);
  if( it.stalled_fd>=0 ) close(it.stalled_fd);
}

/* A FIFO nobody writes to, and a writer that sends "[1," and stalls:
** sqlite3_interrupt() ends the statement within a bound. */
static void test_interrupt(void){
  char fifo[160];
  const char *tmp = getenv("TMPDIR");
  int fd, r;
  if( !tmp || !*tmp ) tmp = "/tmp";
  snprintf(fifo, sizeof fifo, "%s/sq-json-test-%d.fifo", tmp, (int)getpid());
  unlink(fifo);
  SQ_CHECK(mkfifo(fifo, 0600)==0);
  check_interrupted("SELECT value FROM json_stream(?1)", fifo, -1, "FIFO without a writer");
  /* a writer (this process, read-write so that it needs no reader) sends
  ** the start of an array and stalls: row 1 comes, then the wait */
  fd = open(fifo, O_RDWR|O_NONBLOCK);
  SQ_CHECK(fd>=0);
  r = (int)write(fd, "[1,", 3);
  SQ_CHECK(r==3);
  check_interrupted("SELECT value FROM json_stream(?1)", fifo, fd, "writer sends '[1,' and stalls");
  /* the same through a typed table */
  fd = open(fifo, O_RDWR|O_NONBLOCK);
  SQ_CHECK(fd>=0);
  r = (int)write(fd, "[{\"a\": 1},", 10);
  SQ_CHECK(r==10);
  {
    char *q = sqlite3_mprintf("CREATE VIRTUAL TABLE temp.fifo_typed USING json_stream("
                              "filename='%q', columns='a INTEGER')", fifo);
    SQ_CHECK(sqlite3_exec(db, q, 0, 0, 0)==SQLITE_OK);
    sqlite3_free(q);
  }
  check_interrupted("SELECT a FROM fifo_typed WHERE ?1 IS NOT NULL", fifo, fd, "typed table, writer stalls");
  /* the connection is usable afterwards */
  check_sql("SELECT 40 + ?1", "2", "42");
  unlink(fifo);
}

int main(void){
  const char *tmp = getenv("TMPDIR");
  if( !tmp || !*tmp ) tmp = "/tmp";
  snprintf(F_DOC, sizeof F_DOC, "%s/sq-json-test-%d-doc.json", tmp, (int)getpid());
  snprintf(F_LIM, sizeof F_LIM, "%s/sq-json-test-%d-lim.json", tmp, (int)getpid());
  if( sqlite3_open(":memory:", &db)!=SQLITE_OK ) return 1;
  SQ_CHECK(sqlite3_streamqlite_init(db, 0, 0)==SQLITE_OK);
  test_pipe_and_chunks();
  test_limits();
  test_interrupt();
  sqlite3_close(db);
  return sq_test_done("test_json_stream");
}
