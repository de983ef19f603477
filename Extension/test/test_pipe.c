/*
** test_pipe.c — the second core (sq_pipe.h): the ring at every size
** boundary (items smaller than, equal to and larger than a block, rings of
** 2 and 3 blocks) gives every item back in order with its bytes (a row's
** raw text too: sq_pipe_put_row_raw); an error
** after N rows comes after those N rows; stopping mid-stream joins a worker
** waiting on a full ring; sq_pipe_next's interrupt check ends a wait for a
** worker that gives nothing.  Then the typed tables through SQLite: every
** query gives the same rows, rejects and errors with the worker as without
** it (STREAMQLITE_THREADS=2 and 0), over several files, rejects and errors
** at record N; a scan starts a worker only when its files are worth it
** (sq_pipe_worth_it_for: not a small file, nor each scan of a join's inner
** loop; a FIFO always), and only its first scan when a join re-scans it
** (sq_pipe_worth_it_scan), with the same rows either side of the threshold;
** sq_file's read-ahead thread by the same rule (none for a small .gz, nor
** for 300 of them in one glob);
** a LIMIT on a FIFO whose writer stalls ends at once; and
** sqlite3_interrupt() ends a scan whose worker waits on a FIFO.  And
** sq_pipe_read_run (the Swift imports' worker) gives a core's rows as the
** same core fed on one thread, with a mark after each chunk.
*/
#include "sq_internal.h"
#include "streamqlite.h"
#include "sq_pipe.h"
#include "sq_threads.h"
#include "sq_file.h"
#include "sq_json_ingest.h"
#include "sq_test.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

static double now_s(void){
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec/1e9;
}

/* ------------------------------------------------------------ the ring */

/* Item i of the synthetic stream: a row, a reject every 7th, a mark every
** 11th; row texts of lengths crossing the block size; every 5th row (from
** 2) with a raw text of such a length too (sq_pipe_put_row_raw), every 5th
** (from 4) put by it without one. */
typedef struct Gen {
  int nitems;
  int fail_at;          /* put an ERROR instead of item fail_at, or -1 */
  size_t maxlen;        /* longest text */
  int slow_consumer;
} Gen;

static size_t gen_len(const Gen *g, int i, int col){
  size_t m = g->maxlen+1;
  return (size_t)((i*131 + col*71) % (int)m);
}
static char gen_ch(int i, int col, size_t k){ return (char)('a' + (i + col*3 + (int)k) % 26); }

static void gen_run(sq_pipe *p, void *arg){
  Gen *g = (Gen*)arg;
  int i;
  char *buf = malloc(g->maxlen+1);
  for(i=0; i<g->nitems; i++){
    if( i==g->fail_at ){
      sq_pipe_put_error(p, SQLITE_ERROR, "stopped at item N");
      free(buf);
      return;
    }
    if( i%11==10 ){
      if( sq_pipe_put_mark(p, 7, i, -i) ) break;
    }else if( i%7==6 ){
      sq_ingest_reject r;
      sq_ingest_error e;
      size_t n = gen_len(g, i, 0), k;
      for(k=0; k<n; k++) buf[k] = gen_ch(i, 0, k);
      memset(&r, 0, sizeof r);
      memset(&e, 0, sizeof e);
      e.code = SQ_INGEST_E_STRICT;
      e.message = "bad value";
      e.key = "kk";
      e.nkey = 2;
      e.record = i;
      e.line = (uint64_t)i+1;
      r.index = i;
      r.line = (uint64_t)i+1;
      r.offset = (uint64_t)i*10;
      r.error = &e;
      r.field = "fld";
      r.nfield = 3;
      r.raw = buf;
      r.nraw = n;
      r.truncated = i%2;
      if( sq_pipe_put_reject(p, &r, "the reason") ) break;
    }else{
      sq_ingest_value v[3];
      sq_ingest_row row;
      char *t[2];
      int c;
      for(c=0; c<2; c++){
        size_t n = gen_len(g, i, c+1), k;
        t[c] = malloc(n+1);
        for(k=0; k<n; k++) t[c][k] = gen_ch(i, c+1, k);
        memset(&v[c], 0, sizeof v[c]);
        v[c].type = c==0 ? SQ_INGEST_V_TEXT : SQ_INGEST_V_JSON;
        v[c].text = t[c];
        v[c].len = n;
      }
      memset(&v[2], 0, sizeof v[2]);
      v[2].type = i%3==0 ? SQ_INGEST_V_NULL : SQ_INGEST_V_INTEGER;
      v[2].i = (int64_t)i*1000003;
      memset(&row, 0, sizeof row);
      row.index = i;
      row.offset = (uint64_t)i*10;
      row.line = (uint64_t)i+1;
      row.column = 1;
      row.ncol = 3;
      row.values = v;
      if( i%5==2 ){
        size_t n = gen_len(g, i, 0), k;
        for(k=0; k<n; k++) buf[k] = gen_ch(i, 0, k);
        row.raw = buf;
        row.nraw = n;
        row.raw_truncated = i%2;
      }
      sq_pipe_progress(p, (uint64_t)i*10, (uint64_t)i*3);
      c = i%5==2 || i%5==4 ? sq_pipe_put_row_raw(p, &row) : sq_pipe_put_row(p, &row);
      free(t[0]);
      free(t[1]);
      if( c ) break;
    }
  }
  free(buf);
  sq_pipe_put_end(p);
}

static int text_is(const char *z, size_t n, int i, int col, size_t want){
  size_t k;
  if( n!=want ) return 0;
  for(k=0; k<n; k++) if( z[k]!=gen_ch(i, col, k) ) return 0;
  return 1;
}

/* Item i of g's stream, as the caller takes it. */
static int item_ok(const Gen *g, int i, const sq_pipe_item *it){
  int bad = 0;
  if( i%11==10 ){
    if( it->kind!=SQ_PIPE_MARK || it->what!=7 || it->a!=i || it->b!=-i ) bad = 1;
  }else if( i%7==6 ){
    if( it->kind!=SQ_PIPE_REJECT || it->reject.index!=i || it->reject.line!=(uint64_t)i+1
        || it->reject.offset!=(uint64_t)i*10 || strcmp(it->message, "the reason")!=0
        || strcmp(it->reject.error->message, "bad value")!=0 || it->reject.error->nkey!=2
        || memcmp(it->reject.error->key, "kk", 2)!=0 || it->reject.error->record!=i
        || it->reject.nfield!=3 || memcmp(it->reject.field, "fld", 3)!=0 || it->reject.truncated!=i%2
        || !text_is(it->reject.raw, it->reject.nraw, i, 0, gen_len(g, i, 0)) ) bad = 1;
  }else{
    const sq_ingest_value *v = it->row.values;
    if( it->kind!=SQ_PIPE_ROW || it->row.index!=i || it->row.ncol!=3 || it->row.line!=(uint64_t)i+1
        || it->bytes!=(uint64_t)i*10 || it->raw_bytes!=(uint64_t)i*3
        || v[0].type!=SQ_INGEST_V_TEXT || v[1].type!=SQ_INGEST_V_JSON
        || !text_is(v[0].text, v[0].len, i, 1, gen_len(g, i, 1))
        || !text_is(v[1].text, v[1].len, i, 2, gen_len(g, i, 2))
        || (i%3==0 ? v[2].type!=SQ_INGEST_V_NULL : (v[2].type!=SQ_INGEST_V_INTEGER || v[2].i!=(int64_t)i*1000003))
        || (i%5==2 ? !it->row.raw || it->row.raw_truncated!=i%2
                     || !text_is(it->row.raw, it->row.nraw, i, 0, gen_len(g, i, 0))
                   : it->row.raw!=0) ){
      bad = 1;
    }
  }
  return !bad;
}

/* Reads the whole stream and checks every item; returns the items seen. */
static int check_stream(size_t block, int nblocks, Gen *g){
  sq_pipe *p = sq_pipe_new(block, nblocks);
  sq_pipe_item it;
  int i = 0, bad = 0;
  SQ_CHECK(p!=0);
  SQ_CHECK(sq_pipe_start(p, gen_run, g)==0);
  for(;;){
    SQ_CHECK(sq_pipe_next(p, &it, 0, 0)==SQ_PIPE_OK);
    if( it.kind==SQ_PIPE_END || it.kind==SQ_PIPE_ERROR ) break;
    if( g->slow_consumer && i%5==0 ) usleep(200);
    if( !item_ok(g, i, &it) ) bad++;
    i++;
  }
  SQ_CHECK_MSG(bad==0, "block %zu x %d, maxlen %zu: %d items wrong", block, nblocks, g->maxlen, bad);
  if( g->fail_at>=0 ){
    SQ_CHECK_MSG(it.kind==SQ_PIPE_ERROR && it.rc==SQLITE_ERROR && i==g->fail_at
                 && it.message && strcmp(it.message, "stopped at item N")==0,
                 "block %zu: error after %d items (want %d)", block, i, g->fail_at);
  }else{
    SQ_CHECK_MSG(it.kind==SQ_PIPE_END && i==g->nitems, "block %zu x %d: %d of %d items", block, nblocks, i, g->nitems);
  }
  /* the last item again */
  SQ_CHECK(sq_pipe_next(p, &it, 0, 0)==SQ_PIPE_OK && (it.kind==SQ_PIPE_END || it.kind==SQ_PIPE_ERROR));
  sq_pipe_free(p);
  return i;
}

/* Pipe after pipe of the default ring (a Swift import of many files: one a
** file) the blocks are the spares the last ones left, not new allocations:
** a pipe never has more than a ring (SQ_PIPE_BLOCKS) at once and the spares
** keep a ring, so twenty pipes make at most one ring's blocks, however far
** each worker ran ahead of its reader. */
static void test_spare_blocks_reused(void){
  Gen g = { 3000, -1, 900, 0 };
  uint64_t before, after;
  int k;
  sq_pipe_drop_spares();
  before = sq_pipe_blocks_allocated();
  for(k=0; k<20; k++){
    g.slow_consumer = k%2;
    check_stream(0, 0, &g);
  }
  after = sq_pipe_blocks_allocated();
  SQ_CHECK_MSG(after-before>0 && after-before<=SQ_PIPE_BLOCKS,
               "%llu blocks allocated by 20 pipes of a %d-block ring",
               (unsigned long long)(after-before), SQ_PIPE_BLOCKS);
  /* other block sizes are the pipe's own */
  before = sq_pipe_blocks_allocated();
  check_stream(4096, 4, &g);
  SQ_CHECK(sq_pipe_blocks_allocated()>before);
}

static void test_ring_sizes(void){
  /* the smallest row item is ~32+48+3*40 = 200 bytes: blocks of 200..2 KiB
  ** meet items smaller, equal and larger; texts up to 3 KiB exceed them */
  size_t blocks[] = { 8, 200, 208, 256, 512, 1000, 2048, 64*1024 };
  size_t lens[] = { 0, 1, 50, 700, 3000 };
  int nb, b, l;
  for(nb=2; nb<=3; nb++){
    for(b=0; b<(int)(sizeof blocks/sizeof blocks[0]); b++){
      for(l=0; l<(int)(sizeof lens/sizeof lens[0]); l++){
        Gen g;
        memset(&g, 0, sizeof g);
        g.nitems = 600;
        g.fail_at = -1;
        g.maxlen = lens[l];
        g.slow_consumer = (b+l)%3==0;
        check_stream(blocks[b], nb, &g);
      }
    }
  }
  {
    /* the default ring, a long stream */
    Gen g;
    memset(&g, 0, sizeof g);
    g.nitems = 100000;
    g.fail_at = -1;
    g.maxlen = 300;
    check_stream(0, 0, &g);
  }
}

/* Hold mode: items taken stay valid until sq_pipe_release, however many
** blocks they span (batches of 1 to more items than the ring holds: the
** worker allocates past nblocks rather than stall), checked just before
** each release; after the last release the blocks kept are at most
** nblocks again. */
static void check_hold(size_t block, int nblocks, size_t maxlen, int batch){
  Gen g;
  sq_pipe *p = sq_pipe_new(block, nblocks);
  sq_pipe_item *kept = malloc(sizeof(sq_pipe_item)*(size_t)batch);
  sq_pipe_item it;
  int i = 0, n = 0, bad = 0, k;
  sqlite3_int64 before, after;
  /* the process-wide spares (blocks of the default size that ended pipes
  ** leave, up to SQ_PIPE_BLOCKS) are not this pipe's: how many a run leaves
  ** there depends on how far the worker ran ahead, so none are counted */
  sq_pipe_drop_spares();
  before = sqlite3_memory_used();
  memset(&g, 0, sizeof g);
  g.nitems = 900;
  g.fail_at = -1;
  g.maxlen = maxlen;
  SQ_CHECK(p!=0 && kept!=0 && before>0);
  sq_pipe_hold(p, 1);
  SQ_CHECK(sq_pipe_start(p, gen_run, &g)==0);
  for(;;){
    SQ_CHECK(sq_pipe_next(p, &it, 0, 0)==SQ_PIPE_OK);
    if( it.kind!=SQ_PIPE_END && it.kind!=SQ_PIPE_ERROR ){
      kept[n] = it;
      kept[n].reject.error = &kept[n].error;
      n++;
      i++;
    }
    if( n==batch || it.kind==SQ_PIPE_END || it.kind==SQ_PIPE_ERROR ){
      for(k=0; k<n; k++) if( !item_ok(&g, i-n+k, &kept[k]) ) bad++;
      /* what the caller would do with the batch: the worker fills the ring meanwhile */
      if( i%3==0 ) usleep(100);
      sq_pipe_release(p);
      n = 0;
    }
    if( it.kind==SQ_PIPE_END || it.kind==SQ_PIPE_ERROR ) break;
  }
  SQ_CHECK_MSG(bad==0 && it.kind==SQ_PIPE_END && i==g.nitems,
               "hold: block %zu x %d, maxlen %zu, batch %d: %d items wrong, %d of %d",
               block, nblocks, maxlen, batch, bad, i, g.nitems);
  sq_pipe_stop(p);
  sq_pipe_drop_spares();
  after = sqlite3_memory_used();
  /* the ring's blocks (each at most the largest item), the pipe itself */
  SQ_CHECK_MSG(after - before <= (sqlite3_int64)(nblocks + 1) * (sqlite3_int64)(block + 2*maxlen + 1024) + 4096,
               "hold: block %zu x %d, batch %d: %lld bytes kept after the last release",
               block, nblocks, batch, (long long)(after - before));
  sq_pipe_free(p);
  free(kept);
}

static void test_hold(void){
  size_t blocks[] = { 200, 1000, 64*1024 };
  size_t lens[] = { 0, 50, 3000 };
  int batches[] = { 1, 7, 50, 400 };
  int b, l, k;
  for(b=0; b<(int)(sizeof blocks/sizeof blocks[0]); b++){
    for(l=0; l<(int)(sizeof lens/sizeof lens[0]); l++){
      for(k=0; k<(int)(sizeof batches/sizeof batches[0]); k++){
        check_hold(blocks[b], 2 + (b+k)%2, lens[l], batches[k]);
      }
    }
  }
}

/* An error at item N comes after items 0..N-1, whatever the ring. */
static void test_error_at_n(void){
  int n[] = { 0, 1, 6, 10, 77, 599 };
  int k;
  for(k=0; k<(int)(sizeof n/sizeof n[0]); k++){
    Gen g;
    memset(&g, 0, sizeof g);
    g.nitems = 600;
    g.fail_at = n[k];
    g.maxlen = 400;
    check_stream(256, 2, &g);
  }
}

/* Stopped after a few items, the worker waiting on a full ring ends. */
static void test_stop_mid_stream(void){
  Gen g;
  sq_pipe *p = sq_pipe_new(512, 2);
  sq_pipe_item it;
  double t;
  int i;
  memset(&g, 0, sizeof g);
  g.nitems = 1000000;
  g.fail_at = -1;
  g.maxlen = 100;
  SQ_CHECK(sq_pipe_start(p, gen_run, &g)==0);
  for(i=0; i<5; i++) SQ_CHECK(sq_pipe_next(p, &it, 0, 0)==SQ_PIPE_OK && it.kind!=SQ_PIPE_END);
  usleep(50*1000);           /* the worker fills the ring and waits */
  t = now_s();
  sq_pipe_free(p);
  SQ_CHECK_MSG(now_s()-t<0.5, "stop took %.2fs", now_s()-t);
}

/* A worker that gives nothing: sq_pipe_next asks interrupted() while it waits. */
static void idle_run(sq_pipe *p, void *arg){
  (void)arg;
  while( !sq_pipe_stopped(p) ) usleep(5*1000);
}
static int asked;
static int interrupt_third(void *arg){
  (void)arg;
  return ++asked>=3;
}
/* A worker that puts `nrows` rows of 500 bytes, then waits (at most 3 s)
** until the caller has taken a row, then ends. */
typedef struct Early { int nrows; int taken; } Early;
static void early_run(sq_pipe *p, void *arg){
  Early *e = (Early*)arg;
  char text[500];
  int i;
  memset(text, 'x', sizeof text);
  for(i=0; i<e->nrows; i++){
    sq_ingest_value v;
    sq_ingest_row row;
    memset(&v, 0, sizeof v);
    v.type = SQ_INGEST_V_TEXT;
    v.text = text;
    v.len = sizeof text;
    memset(&row, 0, sizeof row);
    row.index = i;
    row.ncol = 1;
    row.values = &v;
    if( sq_pipe_put_row(p, &row) ) return;
  }
  for(i=0; i<300 && !__atomic_load_n(&e->taken, __ATOMIC_ACQUIRE); i++) usleep(10*1000);
  sq_pipe_put_end(p);
}

/* At the stream's start a waiting caller gets the first rows once a few KiB
** are there, without waiting for a whole block (a file's first rows, each
** file of many); later, whole blocks: 10 rows of 500 bytes reach it while
** the worker holds them, where 64 KiB blocks would wait for the worker. */
static void test_early_first_rows(void){
  Early e = { 10, 0 };
  sq_pipe *p = sq_pipe_new(64*1024, 4);
  sq_pipe_item it;
  double t = now_s();
  SQ_CHECK(sq_pipe_start(p, early_run, &e)==0);
  SQ_CHECK(sq_pipe_next(p, &it, 0, 0)==SQ_PIPE_OK && it.kind==SQ_PIPE_ROW && it.row.index==0);
  SQ_CHECK_MSG(now_s()-t<1.0, "the first row came after %.2f s", now_s()-t);
  __atomic_store_n(&e.taken, 1, __ATOMIC_RELEASE);
  {
    int n = 1;
    while( sq_pipe_next(p, &it, 0, 0)==SQ_PIPE_OK && it.kind==SQ_PIPE_ROW ){
      SQ_CHECK(it.row.index==n && it.row.values[0].len==500);
      n++;
    }
    SQ_CHECK(it.kind==SQ_PIPE_END && n==10);
  }
  sq_pipe_free(p);
}

static void test_interrupt_wait(void){
  sq_pipe *p = sq_pipe_new(0, 0);
  sq_pipe_item it;
  double t = now_s();
  asked = 0;
  SQ_CHECK(sq_pipe_start(p, idle_run, 0)==0);
  SQ_CHECK(sq_pipe_next(p, &it, interrupt_third, 0)==SQ_PIPE_INTERRUPTED);
  SQ_CHECK_MSG(asked==3 && now_s()-t<1.0, "asked %d times in %.2fs", asked, now_s()-t);
  sq_pipe_free(p);
  /* a worker that returns without END: an ERROR (interrupted) */
  p = sq_pipe_new(0, 0);
  SQ_CHECK(sq_pipe_start(p, idle_run, 0)==0);
  sq_pipe_stop(p);
  SQ_CHECK(sq_pipe_next(p, &it, 0, 0)==SQ_PIPE_OK && it.kind==SQ_PIPE_ERROR && it.rc==SQLITE_INTERRUPT);
  sq_pipe_free(p);
}

/* ------------------------------------------------------------ typed tables */

static sqlite3 *db;
static char DIR[160];

typedef struct Out { char *s; size_t n, cap; } Out;

/* Every row of every statement in sql (text, '|' between columns), then
** "ERROR msg" or "OK". */
static char *run_all(const char *sql){
  Out o;
  const char *tail = sql;
  memset(&o, 0, sizeof o);
  log_add(&o, "", 0);
  while( tail && *tail ){
    sqlite3_stmt *st = 0;
    int rc = sqlite3_prepare_v2(db, tail, -1, &st, &tail);
    if( rc!=SQLITE_OK ){ log_printf(&o, "ERROR %s\n", sqlite3_errmsg(db)); break; }
    if( !st ) break;
    while( (rc = sqlite3_step(st))==SQLITE_ROW ){
      int i;
      for(i=0; i<sqlite3_column_count(st); i++){
        const char *t = (const char*)sqlite3_column_text(st, i);
        if( i ) log_add(&o, "|", 1);
        if( t ) log_add(&o, t, strlen(t)); else log_add(&o, "NULL", 4);
      }
      log_add(&o, "\n", 1);
    }
    if( rc!=SQLITE_DONE ) log_printf(&o, "ERROR %s\n", sqlite3_errmsg(db));
    sqlite3_finalize(st);
    if( rc!=SQLITE_DONE ) break;
  }
  return o.s;
}

static void write_file(const char *name, const char *text){
  char path[300];
  FILE *f;
  snprintf(path, sizeof path, "%s/%s", DIR, name);
  f = fopen(path, "wb");
  fputs(text, f);
  fclose(f);
}

/* Drops every table of temp and main. */
static void drop_all(void){
  const char *schemas[] = { "temp", "main" };
  int k;
  for(k=0; k<2; k++){
    for(;;){
      sqlite3_stmt *st = 0;
      char *q = sqlite3_mprintf("SELECT name FROM \"%w\".sqlite_schema WHERE type='table' LIMIT 1", schemas[k]);
      char *drop = 0;
      sqlite3_prepare_v2(db, q, -1, &st, 0);
      sqlite3_free(q);
      if( sqlite3_step(st)==SQLITE_ROW ){
        drop = sqlite3_mprintf("DROP TABLE \"%w\".\"%w\"", schemas[k], (const char*)sqlite3_column_text(st, 0));
      }
      sqlite3_finalize(st);
      if( !drop ) break;
      sqlite3_exec(db, drop, 0, 0, 0);
      sqlite3_free(drop);
    }
  }
}

/* sql (%s: the directory) with the worker and without, each on an empty
** database: the same output, and it holds `want` when given. */
static void check_same(const char *sql, const char *want){
  char *q = sqlite3_mprintf(sql, DIR, DIR, DIR);
  char *with, *without;
  /* (2: the worker whatever the file's size) */
  setenv("STREAMQLITE_THREADS", "2", 1);
  drop_all();
  with = run_all(q);
  setenv("STREAMQLITE_THREADS", "0", 1);
  drop_all();
  without = run_all(q);
  unsetenv("STREAMQLITE_THREADS");
  SQ_CHECK_MSG(strcmp(with, without)==0, "%s\n  worker:  %s\n  one thread: %s", q, with, without);
  if( want ) SQ_CHECK_MSG(strstr(with, want)!=0, "%s\n  got: %s\n  want: %s", q, with, want);
  free(with);
  free(without);
  sqlite3_free(q);
}

static void test_tables_alike(void){
  Out big;
  int i;
  memset(&big, 0, sizeof big);
  /* a file of 20,000 rows whose record 15,000 has a bad value (strict) */
  log_add(&big, "[", 1);
  for(i=0; i<20000; i++){
    if( i ) log_add(&big, ",\n", 2);
    if( i==15000 ) log_printf(&big, "{\"id\": %d, \"t\": \"x\", \"n\": \"oops\"}", i);
    else log_printf(&big, "{\"id\": %d, \"t\": \"%.*s\", \"n\": %d.5}", i, i%300, "abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyz", i);
  }
  log_add(&big, "]", 1);
  write_file("big.json", big.s);
  free(big.s);
  write_file("a.csv", "id,name\n1,ann\n2,bob\n3,x,extra\n4,dan\n");
  write_file("b.csv", "name,id\neve,5\nfay,six\n7\ngus,8\n");
  write_file("c.csv", "id,name\n9,hal\n");
  write_file("d.ndjson", "{\"id\":1,\"n\":10}\n{\"id\":2,\"n\":\"x\"}\n{\"id\":3,\"n\":\n{\"id\":4,\"n\":40}\n[1,2]\n7\n{\"id\":6,\"n\":60}\n");
  write_file("e.ndjson", "{\"id\":8,\"n\":80}\n{\"id\":9,\"n\":\"y\"}\n");

  /* error at record N: rows 0..N-1, then the error */
  check_same("CREATE VIRTUAL TABLE temp.j USING json_stream(filename='%s/big.json', "
             "columns='id INTEGER, t TEXT, n REAL', strict=1);"
             "SELECT count(*), sum(id), sum(length(t)), sum(n) FROM (SELECT * FROM j LIMIT 15000);"
             "SELECT id, t, n FROM j;", "ERROR json_stream: ");
  check_same("CREATE VIRTUAL TABLE temp.j USING json_stream(filename='%s/big.json', "
             "columns='id INTEGER, t TEXT, n REAL', strict=1);"
             "SELECT count(*) FROM (SELECT * FROM j LIMIT 3);"
             "SELECT id FROM j LIMIT 2;"
             "SELECT max(id) FROM j WHERE id<15000 AND rowid<15000;", "3\n0\n1\n");
  /* several files: the filename column, each file's own header; CSV inference */
  check_same("CREATE VIRTUAL TABLE temp.c USING csv_stream(filename='%s/[abc].csv', "
             "columns='id INTEGER, name TEXT', on_error='skip', reject_table='crej');"
             "SELECT id, name, replace(filename, '%s/', '') FROM c;"
             "SELECT replace(file, '%s/', ''), line, offset, record, \"column\", raw, raw_truncated FROM crej ORDER BY rowid;",
             "1|ann|a.csv\n");
  check_same("CREATE VIRTUAL TABLE temp.ci USING csv_stream(filename='%s/a.csv', on_error='skip', reject_table='cirej');"
             "SELECT * FROM ci; SELECT line, record, raw FROM cirej;"
             "CREATE VIRTUAL TABLE temp.cs USING csv_stream(filename='%s/[ab].csv', columns='id INTEGER, name TEXT', strict=1);"
             "SELECT * FROM cs;", 0);
  /* NDJSON rejects (a value over its line end, not objects) and budgets */
  check_same("CREATE VIRTUAL TABLE temp.n USING json_stream(filename='%s/[de].ndjson', path='ndjson', "
             "columns='id INTEGER, n INTEGER', strict=1, on_error='skip', reject_table='nrej');"
             "SELECT id, n, replace(filename, '%s/', '') FROM n;"
             "SELECT line, offset, record, \"column\", raw FROM nrej ORDER BY rowid;"
             "SELECT count(*) FROM n;", "6|60|d.ndjson\n");
  check_same("CREATE VIRTUAL TABLE temp.n2 USING json_stream(filename='%s/d.ndjson', path='ndjson', "
             "columns='id INTEGER, n INTEGER', strict=1, on_error='skip', reject_table='nrej2', max_errors=2);"
             "SELECT id, n FROM n2;", "ERROR json_stream: more than 2 records rejected");
  check_same("CREATE VIRTUAL TABLE temp.n3 USING json_stream(filename='%s/d.ndjson', path='ndjson', "
             "columns='id INTEGER, n INTEGER', strict=1, on_error='skip', reject_table='nrej3', max_errors=0.3);"
             "SELECT id, n FROM n3;", "rejected, more than max_errors=0.3");
  /* a file that cannot be opened among others; a glob matching nothing */
  check_same("CREATE VIRTUAL TABLE temp.m USING csv_stream(filename='[\"%s/c.csv\", \"%s/none.csv\"]', columns='id INTEGER');"
             "SELECT id FROM m;", "9\nERROR csv_stream: ");
  /* many small files: the worker starts file after file while the query
  ** reads the rows of earlier ones (a row's values stay until the next) */
  {
    char name[64];
    for(i=0; i<300; i++){
      snprintf(name, sizeof name, "many/f%03d.csv", i);
      if( i==0 ){
        char d[300];
        snprintf(d, sizeof d, "%s/many", DIR);
        mkdir(d, 0700);
      }
      write_file(name, i%2 ? "id,name\n1,a\n2,b\n3,c\n" : "name,id\nx,4\ny,5\n");
    }
  }
  check_same("CREATE VIRTUAL TABLE temp.mf USING csv_stream(filename='%s/many/f*.csv', columns='id INTEGER, name TEXT');"
             "SELECT count(*), count(id), count(name), sum(id), count(DISTINCT filename) FROM mf;"
             "SELECT count(*) FROM mf WHERE id IS NULL OR name IS NULL OR filename IS NULL;", "750|750|750|2250|300\n0\n");
  /* the same statement again, and two cursors of one table at once */
  check_same("CREATE VIRTUAL TABLE temp.c USING csv_stream(filename='%s/[abc].csv', "
             "columns='id INTEGER, name TEXT', on_error='skip', reject_table='crej');"
             "SELECT count(*) FROM c; SELECT count(*) FROM c;"
             "SELECT a.id, b.id FROM c a, c b WHERE a.id=b.id ORDER BY 1;", 0);
}

/* text gzip-compressed into DIR/name, the last `cut` bytes left out. */
static void write_text_gz(const char *name, const char *text, size_t cut){
  char path[300];
  uLong n = (uLong)strlen(text), cap = compressBound(n) + 64;
  unsigned char *b = malloc(cap);
  z_stream z;
  FILE *f;
  memset(&z, 0, sizeof z);
  deflateInit2(&z, 6, Z_DEFLATED, 16+MAX_WBITS, 8, Z_DEFAULT_STRATEGY);
  z.next_in = (Bytef*)text; z.avail_in = (uInt)n;
  z.next_out = b; z.avail_out = (uInt)cap;
  SQ_CHECK(deflate(&z, Z_FINISH)==Z_STREAM_END);
  snprintf(path, sizeof path, "%s/%s", DIR, name);
  f = fopen(path, "wb");
  fwrite(b, 1, z.total_out - cut, f);
  fclose(f);
  deflateEnd(&z);
  free(b);
}

/* A compressed file read by the worker: decompressed on a read-ahead
** thread of the worker's (sq_file.c) while the worker parses; the same rows,
** errors and stops as on one thread. */
static void test_compressed_on_worker(void){
  Out big;
  int i;
  memset(&big, 0, sizeof big);
  log_add(&big, "id,name,n\n", 10);
  for(i=0; i<60000; i++){
    if( i==45000 ) log_printf(&big, "%d,\"bad, row\",oops\n", i);
    else log_printf(&big, "%d,\"%.*s\",%d.25\n", i, i%40, "abcdefghij\"\"klmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ", i);
  }
  write_text_gz("wbig.csv.gz", big.s, 0);
  write_text_gz("wcut.csv.gz", big.s, 5000);
  free(big.s);
  /* every row; a strict error at record 45,000 after its rows */
  check_same("CREATE VIRTUAL TABLE temp.g USING csv_stream(filename='%s/wbig.csv.gz', "
             "columns='id INTEGER, name TEXT, n REAL');"
             "SELECT count(*), sum(id), sum(length(name)), sum(n), count(DISTINCT name) FROM g;"
             "CREATE VIRTUAL TABLE temp.gs USING csv_stream(filename='%s/wbig.csv.gz', "
             "columns='id INTEGER, name TEXT, n REAL', strict=1);"
             "SELECT count(*), max(id) FROM (SELECT * FROM gs LIMIT 45000);"
             "SELECT count(*) FROM gs;", "ERROR csv_stream: ");
  /* a scan that stops early, again and again (the read-ahead thread is
  ** stopped and joined each time); a truncated file's error */
  check_same("CREATE VIRTUAL TABLE temp.g USING csv_stream(filename='%s/wbig.csv.gz', "
             "columns='id INTEGER, name TEXT, n REAL');"
             "SELECT id FROM g LIMIT 1; SELECT sum(id) FROM (SELECT id FROM g LIMIT 20000);"
             "SELECT a.id FROM (SELECT id FROM g LIMIT 3) a, (SELECT id FROM g LIMIT 2) b ORDER BY 1;"
             "CREATE VIRTUAL TABLE temp.t USING csv_stream(filename='%s/wcut.csv.gz', columns='id INTEGER, name TEXT, n REAL');"
             "SELECT count(*) FROM t;", "ERROR csv_stream: ");
}

/* A CSV file of exactly `size` bytes: a header, rows "i,ni", the last row's
** name padded with x. */
static void write_sized(const char *name, long size){
  Out o;
  int i = 0, k;
  memset(&o, 0, sizeof o);
  log_add(&o, "id,name\n", 8);
  while( (long)o.n<size-40 ){ log_printf(&o, "%d,n%d\n", i, i); i++; }
  k = snprintf(0, 0, "%d,", i);
  log_printf(&o, "%d,", i);
  while( (long)o.n<size-1 ) log_add(&o, "x", 1);
  log_add(&o, "\n", 1);
  SQ_CHECK((long)o.n==size && (long)o.n>=k);
  write_file(name, o.s);
  free(o.s);
}

/* Workers this thread started while sql ran (the rule as it is, no
** STREAMQLITE_THREADS), and its output into *pOut. */
static uint64_t workers_for(const char *sql, char **pOut){
  uint64_t n0;
  unsetenv("STREAMQLITE_THREADS");
  n0 = sq_pipe_workers_started();
  *pOut = run_all(sql);
  return sq_pipe_workers_started()-n0;
}

/* sq_pipe_worth_it_for: STREAMQLITE_THREADS=0 never, 2 always; else a
** second CPU and an input of unknown size or at least SQ_PIPE_MIN_INPUT. */
static void test_worth_it_rule(void){
  int two = sq_pipe_worth_it();
  setenv("STREAMQLITE_THREADS", "0", 1);
  SQ_CHECK(!sq_pipe_worth_it_for(-1) && !sq_pipe_worth_it_for(1LL<<40));
  setenv("STREAMQLITE_THREADS", "2", 1);
  SQ_CHECK(sq_pipe_worth_it_for(0) && sq_pipe_worth_it_for(-1));
  unsetenv("STREAMQLITE_THREADS");
  SQ_CHECK(!sq_pipe_worth_it_for(0) && !sq_pipe_worth_it_for(SQ_PIPE_MIN_INPUT-1));
  SQ_CHECK(sq_pipe_worth_it_for(SQ_PIPE_MIN_INPUT)==two && sq_pipe_worth_it_for(-1)==two);
}

/* sq_pipe_worth_it_scan: a cursor's first scan as sq_pipe_worth_it_for; a
** rescan never, whatever its size, but with STREAMQLITE_THREADS=2. */
static void test_worth_it_scan_rule(void){
  int two = sq_pipe_worth_it();
  static const long long sizes[] = { -1, 0, SQ_PIPE_MIN_INPUT-1, SQ_PIPE_MIN_INPUT, 1LL<<40 };
  int i;
  unsetenv("STREAMQLITE_THREADS");
  for(i=0; i<(int)(sizeof sizes/sizeof sizes[0]); i++){
    SQ_CHECK(sq_pipe_worth_it_scan(sizes[i], 0)==sq_pipe_worth_it_for(sizes[i]));
    SQ_CHECK_MSG(!sq_pipe_worth_it_scan(sizes[i], 1), "a rescan of %lld bytes gets a worker", sizes[i]);
  }
  setenv("STREAMQLITE_THREADS", "2", 1);
  SQ_CHECK(sq_pipe_worth_it_scan(0, 1) && sq_pipe_worth_it_scan(1LL<<40, 1));
  setenv("STREAMQLITE_THREADS", "0", 1);
  SQ_CHECK(!sq_pipe_worth_it_scan(-1, 0) && !sq_pipe_worth_it_scan(1LL<<40, 1));
  unsetenv("STREAMQLITE_THREADS");
  (void)two;
}

/* A typed scan starts a worker only when its files are worth it: none for
** a file one byte under SQ_PIPE_MIN_INPUT, nor for each scan of a small
** table re-scanned as the inner loop of a join; one at SQ_PIPE_MIN_INPUT,
** and for small files that add up to it.  The rows are the same either
** side of the threshold and as on one thread. */
static void test_small_files_no_worker(void){
  int two = sq_pipe_worth_it();
  char *q, *got, *one;
  uint64_t n;
  char d[300];
  int i;
  write_sized("under.csv", SQ_PIPE_MIN_INPUT-1);
  write_sized("at.csv", SQ_PIPE_MIN_INPUT);
  snprintf(d, sizeof d, "%s/parts", DIR);
  mkdir(d, 0700);
  for(i=0; i<4; i++){
    char name[64];
    snprintf(name, sizeof name, "parts/p%d.csv", i);
    write_sized(name, SQ_PIPE_MIN_INPUT/4);
  }
  drop_all();
  q = sqlite3_mprintf(
    "CREATE VIRTUAL TABLE temp.u USING csv_stream(filename='%q/under.csv', columns='id INTEGER, name TEXT');"
    "CREATE VIRTUAL TABLE temp.v USING csv_stream(filename='%q/at.csv', columns='id INTEGER, name TEXT');"
    "CREATE VIRTUAL TABLE temp.w USING csv_stream(filename='%q/parts/p*.csv', columns='id INTEGER, name TEXT');"
    "CREATE VIRTUAL TABLE temp.s USING csv_stream(filename='%q/c.csv', columns='id INTEGER, name TEXT');"
    "CREATE TABLE temp.outer50(x INTEGER);"
    "WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM k WHERE i<50) INSERT INTO outer50 SELECT i FROM k;"
    "CREATE TABLE temp.outer5(x INTEGER);"
    "INSERT INTO outer5 SELECT x*7 FROM outer50 WHERE x<=5;",
    DIR, DIR, DIR, DIR);
  got = run_all(q);
  SQ_CHECK_STR(got, "");
  free(got);
  sqlite3_free(q);
  {
    static const struct { const char *sql; int worker; } cases[] = {
      { "SELECT count(*), sum(id), sum(length(name)), max(name) FROM u", 0 },
      { "SELECT count(*), sum(id), sum(length(name)), max(name) FROM v", 1 },
      { "SELECT count(*), sum(id), sum(length(name)), max(name), count(DISTINCT filename) FROM w", 1 },
      /* the inner loop: one scan of s (14 bytes) for each of the 50 rows */
      { "SELECT count(*), sum(s.id), group_concat(DISTINCT s.name) FROM outer50 CROSS JOIN s WHERE s.id=outer50.x % 10", 0 },
      /* the inner loop over a file at the threshold: its first scan on a
      ** worker, the 4 rescans of the same cursor on the query's thread */
      { "SELECT count(*), sum(v.id), group_concat(v.name) FROM outer5 CROSS JOIN v WHERE v.id=outer5.x", 1 },
      /* a correlated subquery: the same rows (SQLite 3.40 opens a new cursor
      ** for each run of it, each a first scan: not counted) */
      { "SELECT x, (SELECT count(*) FROM v WHERE v.id<outer5.x) FROM outer5", -1 },
    };
    for(i=0; i<(int)(sizeof cases/sizeof cases[0]); i++){
      n = workers_for(cases[i].sql, &got);
      setenv("STREAMQLITE_THREADS", "0", 1);
      one = run_all(cases[i].sql);
      unsetenv("STREAMQLITE_THREADS");
      SQ_CHECK_MSG(strcmp(got, one)==0 && strstr(got, "ERROR")==0, "%s\n  rule: %s\n  one thread: %s", cases[i].sql, got, one);
      SQ_CHECK_MSG(cases[i].worker<0 || n==(uint64_t)(cases[i].worker && two),
                   "%s: %llu workers started", cases[i].sql, (unsigned long long)n);
      free(got);
      free(one);
    }
  }
  /* STREAMQLITE_THREADS=2 still forces a worker on every rescan (how
  ** make test-sql covers the worker under the joins) */
  if( two ){
    uint64_t n0;
    setenv("STREAMQLITE_THREADS", "2", 1);
    n0 = sq_pipe_workers_started();
    got = run_all("SELECT count(*) FROM outer5 CROSS JOIN v WHERE v.id=outer5.x");
    n = sq_pipe_workers_started()-n0;
    unsetenv("STREAMQLITE_THREADS");
    SQ_CHECK_STR(got, "5\n");
    SQ_CHECK_MSG(n==5, "%llu workers for 5 scans with STREAMQLITE_THREADS=2", (unsigned long long)n);
    free(got);
  }
  /* either side of the threshold: the same rows (the file one byte longer
  ** differs only in its last name's padding) */
  {
    char *u, *v;
    workers_for("SELECT group_concat(id || ':' || substr(name, 1, 8), ',') FROM u", &u);
    workers_for("SELECT group_concat(id || ':' || substr(name, 1, 8), ',') FROM v", &v);
    SQ_CHECK_MSG(strlen(u)>1000 && strcmp(u, v)==0, "under and at the threshold differ");
    free(u);
    free(v);
  }
  drop_all();
}

/* `rows` CSV rows "i,<32 hex digits>" gzip'ed into DIR/name (the digits of
** an LCG: about 2:1, so the compressed size grows with rows; same: the same
** digits on every row, which compress to almost nothing); its size. */
static long write_gz_rows(const char *name, int rows, int same){
  char path[300], line[64];
  uint64_t x = 88172645463325252ULL;
  struct stat st;
  uint64_t a = 0, b = 0;
  gzFile g;
  int i;
  snprintf(path, sizeof path, "%s/%s", DIR, name);
  g = gzopen(path, "wb6");
  SQ_CHECK(g!=0);
  gzputs(g, "id,hex\n");
  for(i=0; i<rows; i++){
    if( !same || i==0 ){
      x = x*6364136223846793005ULL + 1442695040888963407ULL; a = x;
      x = x*6364136223846793005ULL + 1442695040888963407ULL; b = x;
    }
    snprintf(line, sizeof line, "%d,%016llx%016llx\n", i, (unsigned long long)a, (unsigned long long)b);
    gzputs(g, line);
  }
  gzclose(g);
  SQ_CHECK(stat(path, &st)==0);
  return (long)st.st_size;
}

static long write_gz(const char *name, int rows){
  return write_gz_rows(name, rows, 0);
}

static uint64_t last_hash;   /* read_through's: FNV-1a of the bytes read */

/* Reads DIR/name through sq_file: its decompressed bytes (their hash in
** last_hash); the read-ahead threads started into *pAhead. */
static long long read_through(const char *name, unsigned long long *pAhead){
  char path[300], *why = 0;
  static unsigned char buf[65536];
  unsigned long long a0 = sq_file_ahead_started();
  long long k, total = 0;
  sq_file f;
  int rc;
  snprintf(path, sizeof path, "%s/%s", DIR, name);
  SQ_CHECK(sq_file_open(&f, db, path, &why)==SQLITE_OK);
  last_hash = 14695981039346656037ULL;
  while( (k = sq_file_read(&f, buf, sizeof buf, &rc, &why))>0 ){
    long long i;
    for(i=0; i<k; i++) last_hash = (last_hash ^ buf[i]) * 1099511628211ULL;
    total += k;
  }
  SQ_CHECK_MSG(k==0, "%s: %s", name, why ? why : "");
  sq_file_close(&f);
  *pAhead = sq_file_ahead_started()-a0;
  return total;
}

/* sq_file's read-ahead thread follows the same rule (sq_pipe_worth_it_for
** on the compressed size, then on the bytes decompressed): none for a
** one-line .gz nor for 300 small ones read by one glob, one for a file of
** SQ_PIPE_MIN_INPUT compressed bytes or more, and one for a small file
** that expands past SQ_PIPE_MIN_INPUT (with a second CPU); STREAMQLITE_THREADS=2 starts it for the small
** file, =0 for none.  The bytes are the same every way. */
static void test_small_gz_no_ahead(void){
  int two = sq_pipe_worth_it();
  long small = write_gz("tiny.csv.gz", 1), big = write_gz("big.csv.gz", 16000);
  unsigned long long n;
  long long bytes, again;
  uint64_t hbig;
  char d[300], *q, *got, *one;
  int i;
  SQ_CHECK_MSG(small<SQ_PIPE_MIN_INPUT && big>=SQ_PIPE_MIN_INPUT, "gz sizes %ld and %ld", small, big);
  unsetenv("STREAMQLITE_THREADS");
  bytes = read_through("tiny.csv.gz", &n);
  SQ_CHECK_MSG(bytes==7+35 && n==0, "a one-line .gz: %lld bytes, %llu read-ahead threads", bytes, n);
  bytes = read_through("big.csv.gz", &n);
  SQ_CHECK_MSG(n==(unsigned long long)two, "%ld compressed bytes: %llu read-ahead threads", big, n);
  hbig = last_hash;
  /* a small file that expands to SQ_PIPE_MIN_INPUT and more: the thread
  ** for the rest once that much came out (the bytes as on one thread) */
  {
    long packed = write_gz_rows("packed.csv.gz", 20000, 1);
    long long here;
    long long out;
    uint64_t h;
    SQ_CHECK_MSG(packed<SQ_PIPE_MIN_INPUT/2, "packed.csv.gz: %ld bytes", packed);
    out = read_through("packed.csv.gz", &n);
    h = last_hash;
    SQ_CHECK_MSG(out>2*SQ_PIPE_MIN_INPUT && n==(unsigned long long)two,
                 "%ld bytes expanding to %lld: %llu read-ahead threads", packed, out, n);
    setenv("STREAMQLITE_THREADS", "0", 1);
    here = read_through("packed.csv.gz", &n);
    unsetenv("STREAMQLITE_THREADS");
    SQ_CHECK(here==out && last_hash==h && n==0);
    q = sqlite3_mprintf("SELECT count(*), count(DISTINCT substr(value, instr(value, ',')+1)) "
                        "FROM csv_stream('%q/packed.csv.gz')", DIR);
    got = run_all(q);
    SQ_CHECK_STR(got, "20000|1\n");
    free(got);
    sqlite3_free(q);
  }
  setenv("STREAMQLITE_THREADS", "2", 1);
  again = read_through("tiny.csv.gz", &n);
  SQ_CHECK_MSG(again==7+35 && n==1, "STREAMQLITE_THREADS=2: %llu read-ahead threads", n);
  setenv("STREAMQLITE_THREADS", "0", 1);
  again = read_through("big.csv.gz", &n);
  SQ_CHECK_MSG(again==bytes && last_hash==hbig && n==0, "STREAMQLITE_THREADS=0: %llu read-ahead threads", n);
  unsetenv("STREAMQLITE_THREADS");
  /* 300 small files in one call of the function and of a typed table */
  snprintf(d, sizeof d, "%s/gzs", DIR);
  mkdir(d, 0700);
  for(i=0; i<300; i++){
    char name[64];
    snprintf(name, sizeof name, "gzs/f%03d.csv.gz", i);
    write_gz(name, 3);
  }
  drop_all();
  q = sqlite3_mprintf("CREATE VIRTUAL TABLE temp.z USING csv_stream(filename='%q/gzs/f*.csv.gz', columns='id INTEGER, hex TEXT');"
                      "SELECT count(*), sum(id), count(DISTINCT hex), count(DISTINCT filename) FROM z;"
                      "SELECT count(*), count(DISTINCT filename) FROM csv_stream('%q/gzs/f*.csv.gz');", DIR, DIR);
  {
    unsigned long long a0 = sq_file_ahead_started();
    uint64_t w0 = sq_pipe_workers_started();
    got = run_all(q);
    SQ_CHECK_MSG(sq_file_ahead_started()-a0==0 && sq_pipe_workers_started()-w0==0,
                 "300 small .gz: %llu read-ahead threads, %llu workers",
                 sq_file_ahead_started()-a0, (unsigned long long)(sq_pipe_workers_started()-w0));
  }
  SQ_CHECK_STR(got, "900|900|3|300\n900|300\n");
  drop_all();
  setenv("STREAMQLITE_THREADS", "2", 1);
  one = run_all(q);
  unsetenv("STREAMQLITE_THREADS");
  SQ_CHECK_STR(one, got);
  free(got);
  free(one);
  sqlite3_free(q);
  drop_all();
}

/* A FIFO whose writer sent a few rows and stalls: LIMIT ends the scan at
** once (the worker waiting on the FIFO is stopped and joined), and
** sqlite3_interrupt() ends a scan whose worker waits. */
typedef struct Interrupter { double t; int done; int fd; } Interrupter;
static void *interrupter_main(void *arg){
  Interrupter *it = (Interrupter*)arg;
  int i;
  usleep(200*1000);
  it->t = now_s();
  sqlite3_interrupt(db);
  for(i=0; i<280 && !__atomic_load_n(&it->done, __ATOMIC_ACQUIRE); i++) usleep(10*1000);
  if( !__atomic_load_n(&it->done, __ATOMIC_ACQUIRE) ){ close(it->fd); it->fd = -1; }
  return 0;
}

/* A typed table over the FIFO holding bytes[0..n) (one record, "a\n1\n"
** in some form) and nothing more: its scan gives the row, then waits, and
** ends with SQLITE_INTERRUPT within a second of sqlite3_interrupt(). */
static void check_interrupted_fifo(const char *fifo, const char *table, const void *bytes, int n,
                                   const char *what){
  Interrupter it;
  pthread_t th;
  sqlite3_stmt *st = 0;
  char *q;
  int fd, r, rc;
  double t;
  fd = open(fifo, O_RDWR|O_NONBLOCK);
  r = (int)write(fd, bytes, (size_t)n);
  SQ_CHECK(r==n);
  q = sqlite3_mprintf("CREATE VIRTUAL TABLE temp.%s USING csv_stream(filename='%q', columns='a INTEGER')", table, fifo);
  SQ_CHECK(sqlite3_exec(db, q, 0, 0, 0)==SQLITE_OK);
  sqlite3_free(q);
  memset(&it, 0, sizeof it);
  it.fd = fd;
  q = sqlite3_mprintf("SELECT a FROM %s", table);
  SQ_CHECK(sqlite3_prepare_v2(db, q, -1, &st, 0)==SQLITE_OK);
  sqlite3_free(q);
  pthread_create(&th, 0, interrupter_main, &it);
  r = 0;
  while( (rc = sqlite3_step(st))==SQLITE_ROW ) r++;
  t = now_s();
  __atomic_store_n(&it.done, 1, __ATOMIC_RELEASE);
  pthread_join(th, 0);
  SQ_CHECK_MSG(rc==SQLITE_INTERRUPT && r==1 && t-it.t<1.0,
               "%s: rc %d after %d rows, %.2fs after sqlite3_interrupt()", what, rc, r, t-it.t);
  sqlite3_finalize(st);
  if( it.fd>=0 ) close(it.fd);
}

static void test_fifo(void){
  char fifo[300], *q;
  int fd, r;
  double t;
  snprintf(fifo, sizeof fifo, "%s/p.fifo", DIR);
  SQ_CHECK(mkfifo(fifo, 0600)==0);
  fd = open(fifo, O_RDWR|O_NONBLOCK);
  SQ_CHECK(fd>=0);
  r = (int)write(fd, "a,b\n1,2\n3,4\n5,6\n", 16);
  SQ_CHECK(r==16);
  q = sqlite3_mprintf("CREATE VIRTUAL TABLE temp.f USING csv_stream(filename='%q', columns='a INTEGER, b INTEGER')", fifo);
  SQ_CHECK(sqlite3_exec(db, q, 0, 0, 0)==SQLITE_OK);
  sqlite3_free(q);
  t = now_s();
  {
    /* a FIFO's size is unknown: a worker, whatever it holds */
    char *got;
    uint64_t n = workers_for("SELECT a, b FROM f LIMIT 2", &got);
    SQ_CHECK_STR(got, "1|2\n3|4\n");
    SQ_CHECK_MSG(n==(uint64_t)sq_pipe_worth_it(), "%llu workers for a FIFO", (unsigned long long)n);
    free(got);
  }
  SQ_CHECK_MSG(now_s()-t<0.5, "LIMIT on a stalled FIFO took %.2fs", now_s()-t);
  /* read once: a second scan says so */
  {
    char *got = run_all("SELECT a FROM f");
    SQ_CHECK_MSG(strstr(got, "cannot be read twice")!=0 || strstr(got, "ERROR")!=0, "%s", got);
    free(got);
  }
  close(fd);
  /* interrupt while the worker waits */
  check_interrupted_fifo(fifo, "g", "a\n1\n", 4, "plain");
  /* the same through gzip: a member flushed after its first record, then
  ** nothing (the read-ahead thread waits on the FIFO, the worker on it) */
  {
    unsigned char gz[256];
    z_stream z;
    memset(&z, 0, sizeof z);
    deflateInit2(&z, 6, Z_DEFLATED, 16+MAX_WBITS, 8, Z_DEFAULT_STRATEGY);
    z.next_in = (Bytef*)"a\n1\n"; z.avail_in = 4;
    z.next_out = gz; z.avail_out = sizeof gz;
    SQ_CHECK(deflate(&z, Z_SYNC_FLUSH)==Z_OK);
    check_interrupted_fifo(fifo, "gz", gz, (int)z.total_out, "gzip");
    deflateEnd(&z);
  }
  unlink(fifo);
}

/* sq_pipe_read_run: a core fed on the worker (its callbacks routed into the
** pipe) gives the rows of the same core fed the whole file here, with a
** mark after each chunk; the core's finish afterwards, here. */
static int log_row(void *user, const sq_ingest_row *row){
  Out *o = (Out*)user;
  int i;
  log_printf(o, "%lld@%llu:", (long long)row->index, (unsigned long long)row->offset);
  for(i=0; i<row->ncol; i++){
    const sq_ingest_value *v = &row->values[i];
    if( v->type==SQ_INGEST_V_INTEGER ) log_printf(o, " i%lld", (long long)v->i);
    else if( v->type==SQ_INGEST_V_REAL ) log_printf(o, " r%.17g", v->r);
    else if( v->type==SQ_INGEST_V_TEXT || v->type==SQ_INGEST_V_JSON ){ log_add(o, " t", 2); log_add(o, v->text, v->len); }
    else log_add(o, " null", 5);
  }
  log_add(o, "\n", 1);
  return SQ_INGEST_CONTINUE;
}

static sq_ingest *json_core(sq_pipe_route *route){
  sq_ingest *g = sq_ingest_new(sq_pipe_route_row, route);
  sq_ingest_add_column(g, "id", -1, "INTEGER", -1, 0);
  sq_ingest_add_column(g, "t", -1, "TEXT", -1, 0);
  sq_ingest_add_column(g, "n", -1, "REAL", -1, 0);
  return g;
}
static int json_feed(void *g, const void *b, size_t n){ return sq_ingest_json_feed((sq_ingest*)g, b, n); }
static int64_t json_records(void *g){ return sq_ingest_records((sq_ingest*)g); }

static void test_read_run(void){
  char path[300], *whole = 0;
  Out direct, piped;
  sq_pipe_route route;
  sq_ingest *g;
  sq_file f;
  sq_pipe *p;
  sq_pipe_reader r;
  sq_pipe_item it;
  char *why = 0;
  uint64_t last = 0;
  int marks = 0, monotone = 1;
  long size;
  FILE *fp;
  snprintf(path, sizeof path, "%s/big.json", DIR);
  fp = fopen(path, "rb");
  fseek(fp, 0, SEEK_END);
  size = ftell(fp);
  fseek(fp, 0, SEEK_SET);
  whole = malloc((size_t)size);
  SQ_CHECK(fread(whole, 1, (size_t)size, fp)==(size_t)size);
  fclose(fp);
  memset(&direct, 0, sizeof direct);
  memset(&piped, 0, sizeof piped);
  memset(&route, 0, sizeof route);
  route.row = log_row;
  route.row_user = &direct;
  g = json_core(&route);
  SQ_CHECK(sq_ingest_json_feed(g, whole, (size_t)size)==SQ_INGEST_OK && sq_ingest_json_finish(g)==SQ_INGEST_OK);
  sq_ingest_free(g);
  free(whole);

  route.row_user = &piped;
  g = json_core(&route);
  SQ_CHECK(sq_file_open(&f, 0, path, &why)==SQLITE_OK);
  p = sq_pipe_new(4096, 2);
  memset(&r, 0, sizeof r);
  r.file = &f;
  r.chunk = 5000;
  r.feed = json_feed;
  r.records = json_records;
  r.ctx = g;
  route.pipe = p;
  SQ_CHECK(sq_pipe_start(p, sq_pipe_read_run, &r)==0);
  for(;;){
    SQ_CHECK(sq_pipe_next(p, &it, 0, 0)==SQ_PIPE_OK);
    if( it.kind==SQ_PIPE_ROW ) log_row(&piped, &it.row);
    else if( it.kind==SQ_PIPE_MARK ){
      marks++;
      if( it.what!=SQ_PIPE_CHUNK_DONE || (uint64_t)it.a<=last || it.bytes!=(uint64_t)it.a ) monotone = 0;
      last = (uint64_t)it.a;
    }else break;
  }
  SQ_CHECK(it.kind==SQ_PIPE_END);
  sq_pipe_stop(p);
  route.pipe = 0;
  SQ_CHECK(sq_ingest_json_finish(g)==SQ_INGEST_OK);
  SQ_CHECK_MSG(monotone && last==(uint64_t)size && marks==(int)((size+4999)/5000),
               "%d marks, last at %llu of %ld", marks, (unsigned long long)last, size);
  SQ_CHECK_MSG(direct.n>0 && piped.n==direct.n && memcmp(direct.s, piped.s, direct.n)==0,
               "rows differ (%zu and %zu bytes of log)", direct.n, piped.n);
  sq_pipe_free(p);
  sq_file_close(&f);
  sq_ingest_free(g);
  free(direct.s);
  free(piped.s);
}

int main(void){
  const char *tmp = getenv("TMPDIR");
  char cmd[400];
  if( !tmp || !*tmp ) tmp = "/tmp";
  test_ring_sizes();
  test_hold();
  test_error_at_n();
  test_stop_mid_stream();
  test_interrupt_wait();
  test_early_first_rows();
  test_spare_blocks_reused();
  if( !sq_pipe_worth_it() ) fprintf(stderr, "test_pipe: one CPU: the tables read on one thread\n");
  snprintf(DIR, sizeof DIR, "%s/sq-pipe-test-%d", tmp, (int)getpid());
  mkdir(DIR, 0700);
  if( sqlite3_open(":memory:", &db)!=SQLITE_OK ) return 1;
  SQ_CHECK(sqlite3_streamqlite_init(db, 0, 0)==SQLITE_OK);
  test_worth_it_rule();
  test_worth_it_scan_rule();
  test_tables_alike();
  test_compressed_on_worker();
  test_small_files_no_worker();
  test_small_gz_no_ahead();
  test_read_run();
  test_fifo();
  sqlite3_close(db);
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", DIR);
  if( system(cmd)!=0 ) fprintf(stderr, "could not remove %s\n", DIR);
  return sq_test_done("test_pipe");
}
