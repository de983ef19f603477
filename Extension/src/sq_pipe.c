/*
** sq_pipe.c — the worker thread and the bounded ring between it and the
** caller (sq_pipe.h, the manual).
**
** Items are laid out in a block one after the other, each an 8-aligned
** header (kind, size, the progress counters) and its payload: a row's
** fixed part, its sq_ingest_value array (TEXT/JSON pointing into the
** bytes that follow: a block does not move once the worker writes into
** it) and those bytes; a reject's fixed part and its strings (which the
** caller finds by their lengths when it takes the item).
**
** The ring is a list of blocks: `ready` (handed over, in order), the
** caller's `cur` (being read), the worker's `w` (being filled, unseen
** until handed over), `spare` (free) and, in hold mode, `held` (read
** past, kept until sq_pipe_release).  `count` is the handed-over blocks
** not yet read past (ready and cur): when it reaches nblocks the worker
** sleeps until the caller has read half of them (a wake-up every
** nblocks/2 blocks, not every block).  Held blocks do not count: the
** worker takes a spare block or allocates one, so holding never stalls
** it; a block given back while more than nblocks are allocated is freed.
** One mutex and one condition variable, signalled only when the other
** side sleeps on it.
*/
#include "sq_internal.h"
#include "sq_pipe.h"
#include "sq_file.h"

#include <pthread.h>
#include <string.h>
#include <time.h>

#if defined(__GNUC__) || defined(__clang__)
# define PIPE_INLINE   static inline __attribute__((always_inline))
# define PIPE_NOINLINE static __attribute__((noinline))
#else
# define PIPE_INLINE   static inline
# define PIPE_NOINLINE static
#endif

#define PIPE_WAIT_MS          100   /* longest wait between interrupt checks */
#define PIPE_BLOCKS_PER_CHECK 16    /* blocks between checks when rows flow */

typedef struct pipe_block {
  unsigned char *z;
  size_t cap, used;
  struct pipe_block *next;
} pipe_block;

struct sq_pipe {
  pthread_mutex_t mu;
  pthread_cond_t cv;
  size_t block;
  int n;                    /* nblocks */
  /* under mu */
  pipe_block *ready, *ready_last;   /* handed over, not yet read */
  int count;                /* ready blocks and cur */
  int wwaits;               /* the worker sleeps on cv */
  int cwaits;               /* the caller sleeps on cv (atomic: the worker peeks) */
  pipe_block *spare;        /* free blocks */
  int nalloc;               /* blocks allocated */
  int stop;                 /* atomic: the caller stops the worker */
  int done;                 /* the worker returned (under mu) */
  int started;
  pthread_t th;
  void (*run)(sq_pipe*, void*);
  void *arg;
  /* the worker's */
  pipe_block *w;            /* the block being filled, or NULL */
  size_t early;             /* hand the block over at this many bytes while the caller waits */
  uint64_t nhanded;         /* blocks handed over so far */
  int oom;
  int ended;                /* END or ERROR put */
  uint64_t bytes, raw;
  /* the caller's */
  pipe_block *cur;          /* the block being read, or NULL */
  size_t rpos;
  int hold;                 /* sq_pipe_hold: blocks read past are kept */
  pipe_block *held;         /* ... until sq_pipe_release */
  int taken;                /* blocks taken since the last interrupt check */
};

typedef struct pipe_hdr {
  uint32_t kind;
  uint32_t pad;
  uint64_t size;            /* header and payload, 8-aligned */
  uint64_t bytes, raw;
} pipe_hdr;

typedef struct pipe_row {
  int64_t index;
  uint64_t offset, line, column;
  int64_t ncol;
  uint64_t ntext;
} pipe_row;

/* A row item of kind PIPE_ROW_RAW (sq_pipe_put_row_raw; given to the
** caller as SQ_PIPE_ROW): the row's item as sq_pipe_put_row lays it out,
** then the record's raw text (8-aligned) and, last, its pipe_row_raw. */
#define PIPE_ROW_RAW 6
typedef struct pipe_row_raw {
  uint64_t nraw;
  int64_t truncated;
} pipe_row_raw;

typedef struct pipe_rej {
  int64_t index;
  uint64_t offset, line, column;
  int64_t truncated;
  int64_t code, record;
  uint64_t eoffset, eline, ecolumn;
  uint64_t nreason, nmsg, nkey, nfield, nraw;
  int64_t has_key, has_field, has_reason;
} pipe_rej;

typedef struct pipe_mark {
  int64_t what, a, b;
} pipe_mark;

typedef struct pipe_err {
  int64_t rc, has_msg;
  uint64_t nmsg;
} pipe_err;

#define ALIGN8(n) (((n)+7) & ~(size_t)7)
#define PIPE_EARLY  4096   /* bytes of a first block handed over to a waiting caller */

sq_pipe *sq_pipe_new(size_t block, int nblocks){
  sq_pipe *p;
  if( block==0 ) block = SQ_PIPE_BLOCK;
  if( nblocks==0 ) nblocks = SQ_PIPE_BLOCKS;
  if( nblocks<2 ) nblocks = 2;
  block = ALIGN8(block);
  p = sqlite3_malloc64(sizeof(*p));
  if( !p ) return 0;
  memset(p, 0, sizeof(*p));
  p->block = block;
  p->n = nblocks;
  p->early = PIPE_EARLY<block ? PIPE_EARLY : block;
  /* (blocks are allocated when first filled: a short scan uses one) */
  pthread_mutex_init(&p->mu, 0);
  pthread_cond_init(&p->cv, 0);
  return p;
}

static _Thread_local uint64_t pipe_started_here;

uint64_t sq_pipe_workers_started(void){
  return pipe_started_here;
}

/* ------------------------------------------------------------ spare blocks
** Blocks of the default size (SQ_PIPE_BLOCK) that ended pipes gave back,
** kept for the next pipe, at most one ring's worth (SQ_PIPE_BLOCKS): pipe
** after pipe (a Swift import of many files has one a file) the ring is
** memory already in use, not the allocator's, whose freed pages a worker
** thread's arena may have handed back to the system, to be faulted in again
** by the next. */

static pthread_mutex_t pipe_cache_mu = PTHREAD_MUTEX_INITIALIZER;
static pipe_block *pipe_cache;     /* under pipe_cache_mu */
static int pipe_cache_n;
static uint64_t pipe_blocks_made;  /* atomic */

uint64_t sq_pipe_blocks_allocated(void){
  return __atomic_load_n(&pipe_blocks_made, __ATOMIC_RELAXED);
}

/* A spare block for a pipe of `block`-byte blocks, or NULL. */
static pipe_block *pipe_cache_take(size_t block){
  pipe_block *b = 0;
  if( block!=SQ_PIPE_BLOCK ) return 0;
  pthread_mutex_lock(&pipe_cache_mu);
  if( pipe_cache ){
    b = pipe_cache;
    pipe_cache = b->next;
    pipe_cache_n--;
  }
  pthread_mutex_unlock(&pipe_cache_mu);
  return b;
}

/* A block a pipe no longer needs: kept as a spare (of the default size,
** while there is room), else freed. */
static void pipe_block_free(pipe_block *b){
  if( b->z && b->cap==SQ_PIPE_BLOCK ){
    pthread_mutex_lock(&pipe_cache_mu);
    if( pipe_cache_n<SQ_PIPE_BLOCKS ){
      b->next = pipe_cache;
      pipe_cache = b;
      pipe_cache_n++;
      pthread_mutex_unlock(&pipe_cache_mu);
      return;
    }
    pthread_mutex_unlock(&pipe_cache_mu);
  }
  sqlite3_free(b->z);
  sqlite3_free(b);
}

void sq_pipe_drop_spares(void){
  pipe_block *b;
  pthread_mutex_lock(&pipe_cache_mu);
  b = pipe_cache;
  pipe_cache = 0;
  pipe_cache_n = 0;
  pthread_mutex_unlock(&pipe_cache_mu);
  while( b ){
    pipe_block *next = b->next;
    sqlite3_free(b->z);
    sqlite3_free(b);
    b = next;
  }
}

/* ------------------------------------------------------------ the worker */

/* Hands the block being filled over (when it holds anything). */
static void pipe_publish(sq_pipe *p){
  if( !p->w || p->w->used==0 ) return;
  pthread_mutex_lock(&p->mu);
  p->w->next = 0;
  if( p->ready_last ) p->ready_last->next = p->w; else p->ready = p->w;
  p->ready_last = p->w;
  p->count++;
  if( __atomic_load_n(&p->cwaits, __ATOMIC_RELAXED) ) pthread_cond_broadcast(&p->cv);
  pthread_mutex_unlock(&p->mu);
  p->w = 0;
  p->nhanded++;
}

void sq_pipe_flush(sq_pipe *p){
  pipe_publish(p);
}

static void *pipe_main(void *arg){
  sq_pipe *p = (sq_pipe*)arg;
  p->run(p, p->arg);
  pipe_publish(p);
  pthread_mutex_lock(&p->mu);
  p->done = 1;
  pthread_cond_broadcast(&p->cv);
  pthread_mutex_unlock(&p->mu);
  return 0;
}

int sq_pipe_start(sq_pipe *p, void (*run)(sq_pipe *p, void *arg), void *arg){
  if( !sqlite3_threadsafe() ) return 1;
  p->run = run;
  p->arg = arg;
  if( pthread_create(&p->th, 0, pipe_main, p)!=0 ) return 1;
  p->started = 1;
  pipe_started_here++;
  return 0;
}

int *sq_pipe_stop_flag(sq_pipe *p){
  return &p->stop;
}

int sq_pipe_stopped(sq_pipe *p){
  return __atomic_load_n(&p->stop, __ATOMIC_ACQUIRE);
}

void sq_pipe_progress(sq_pipe *p, uint64_t bytes, uint64_t raw_bytes){
  p->bytes = bytes;
  p->raw = raw_bytes;
}

/* Room for an item of `size` bytes (8-aligned, header included) in the
** block being filled, taking the next block (waiting for one) when it does
** not fit.  NULL when stopped or out of memory. */
static unsigned char *pipe_reserve(sq_pipe *p, size_t size){
  pipe_block *blk;
  if( p->w ){
    blk = p->w;
    if( blk->used+size<=blk->cap ) return blk->z+blk->used;
    pipe_publish(p);
  }
  if( !p->w ){
    pthread_mutex_lock(&p->mu);
    if( p->count==p->n ){
      /* the ring is full: sleep until the caller has read half of it */
      p->wwaits = 1;
      while( p->count>p->n/2 && !sq_pipe_stopped(p) ) pthread_cond_wait(&p->cv, &p->mu);
      p->wwaits = 0;
    }
    if( sq_pipe_stopped(p) ){ pthread_mutex_unlock(&p->mu); return 0; }
    blk = p->spare;
    if( blk ) p->spare = blk->next; else p->nalloc++;
    pthread_mutex_unlock(&p->mu);
    if( !blk ) blk = pipe_cache_take(p->block);
    if( !blk ){
      __atomic_fetch_add(&pipe_blocks_made, 1, __ATOMIC_RELAXED);
      blk = sqlite3_malloc64(sizeof(*blk));
      if( !blk ){
        pthread_mutex_lock(&p->mu);
        p->nalloc--;
        pthread_mutex_unlock(&p->mu);
        p->oom = 1;
        return 0;
      }
      memset(blk, 0, sizeof(*blk));
    }
    blk->used = 0;
    blk->next = 0;
    p->w = blk;
  }
  blk = p->w;
  if( !blk->z || size>blk->cap || (blk->cap>p->block && size<=p->block) ){
    /* a record larger than a block: a block of its own; else back to size */
    size_t want = size>p->block ? size : p->block;
    unsigned char *z = sqlite3_realloc64(blk->z, want);
    if( !z ){ p->oom = 1; return 0; }
    blk->z = z;
    blk->cap = want;
  }
  return blk->z;
}

static void pipe_commit(sq_pipe *p, unsigned char *at, uint32_t kind, size_t size){
  pipe_hdr *h = (pipe_hdr*)at;
  h->kind = kind;
  h->pad = 0;
  h->size = size;
  h->bytes = p->bytes;
  h->raw = p->raw;
  p->w->used += size;
}

/* After a whole item (a row with its raw text, a reject): at the stream's
** start, the caller waiting, what there is goes over at PIPE_EARLY bytes,
** then at twice as many each time, up to whole blocks (the first rows
** without a block's wait; no wake-up a few rows later on). */
static void pipe_early(sq_pipe *p){
  if( p->early<p->block && p->w && p->w->used>=p->early && __atomic_load_n(&p->cwaits, __ATOMIC_RELAXED) ){
    p->early *= 2;
    pipe_publish(p);
  }
}

/* A row's item (sq_pipe_put_row without the early hand-over). */
static int pipe_put_row_item(sq_pipe *p, const sq_ingest_row *row){
  size_t ntext = 0, size;
  unsigned char *at, *text;
  pipe_row *r;
  sq_ingest_value *v;
  int i;
  if( sq_pipe_stopped(p) || p->oom ) return 1;
  for(i=0; i<row->ncol; i++){
    int t = row->values[i].type;
    if( t==SQ_INGEST_V_TEXT || t==SQ_INGEST_V_JSON ) ntext += row->values[i].len;
  }
  size = ALIGN8(sizeof(pipe_hdr) + sizeof(pipe_row) + sizeof(sq_ingest_value)*(size_t)row->ncol + ntext);
  at = pipe_reserve(p, size);
  if( !at ) return 1;
  r = (pipe_row*)(at+sizeof(pipe_hdr));
  r->index = row->index;
  r->offset = row->offset;
  r->line = row->line;
  r->column = row->column;
  r->ncol = row->ncol;
  r->ntext = ntext;
  v = (sq_ingest_value*)(r+1);
  text = (unsigned char*)(v+row->ncol);
  ntext = 0;
  for(i=0; i<row->ncol; i++){
    v[i] = row->values[i];
    if( v[i].type==SQ_INGEST_V_TEXT || v[i].type==SQ_INGEST_V_JSON ){
      if( v[i].len ) memcpy(text+ntext, v[i].text, v[i].len);
      v[i].text = (const char*)text + ntext;
      ntext += v[i].len;
    }else{
      v[i].text = 0;
    }
  }
  pipe_commit(p, at, SQ_PIPE_ROW, size);
  return 0;
}

int sq_pipe_put_row(sq_pipe *p, const sq_ingest_row *row){
  if( pipe_put_row_item(p, row) ) return 1;
  pipe_early(p);
  return 0;
}

/* sq_pipe_put_row_raw of a row with a raw text. */
PIPE_NOINLINE int pipe_put_row_raw(sq_pipe *p, const sq_ingest_row *row){
  uint64_t handed = p->nhanded;
  size_t at = p->w ? p->w->used : 0, extra;
  pipe_row_raw *x;
  extra = ALIGN8(row->nraw) + sizeof(pipe_row_raw);
  if( pipe_put_row_item(p, row) ) return 1;
  /* the row's item: where the block was filled to, or a new block's first */
  if( p->nhanded!=handed ) at = 0;
  if( p->w->used+extra>p->w->cap ){
    /* no room for the raw text after it: the row again, where both fit */
    size_t size = p->w->used - at;
    p->w->used = at;
    if( !pipe_reserve(p, size+extra) || pipe_put_row_item(p, row) ) return 1;
    at = p->w->used - size;
  }
  if( row->nraw ) memcpy(p->w->z + p->w->used, row->raw, row->nraw);
  x = (pipe_row_raw*)(p->w->z + p->w->used + extra - sizeof(pipe_row_raw));
  x->nraw = row->nraw;
  x->truncated = row->raw_truncated;
  ((pipe_hdr*)(p->w->z + at))->kind = PIPE_ROW_RAW;
  ((pipe_hdr*)(p->w->z + at))->size += extra;
  p->w->used += extra;
  pipe_early(p);
  return 0;
}

int sq_pipe_put_row_raw(sq_pipe *p, const sq_ingest_row *row){
  return row->raw ? pipe_put_row_raw(p, row) : sq_pipe_put_row(p, row);
}

int sq_pipe_put_reject(sq_pipe *p, const sq_ingest_reject *x, const char *reason){
  const sq_ingest_error *e = x->error;
  size_t nreason = reason ? strlen(reason) : 0;
  size_t nmsg = e && e->message ? strlen(e->message) : 0;
  size_t nkey = e && e->key ? e->nkey : 0;
  size_t nfield = x->field ? x->nfield : 0;
  size_t size = ALIGN8(sizeof(pipe_hdr) + sizeof(pipe_rej) + nreason+1 + nmsg+1 + nkey + nfield + x->nraw);
  unsigned char *at, *s;
  pipe_rej *r;
  if( sq_pipe_stopped(p) || p->oom ) return 1;
  at = pipe_reserve(p, size);
  if( !at ) return 1;
  r = (pipe_rej*)(at+sizeof(pipe_hdr));
  memset(r, 0, sizeof(*r));
  r->index = x->index;
  r->offset = x->offset;
  r->line = x->line;
  r->column = x->column;
  r->truncated = x->truncated;
  if( e ){
    r->code = e->code;
    r->record = e->record;
    r->eoffset = e->offset;
    r->eline = e->line;
    r->ecolumn = e->column;
    r->has_key = e->key!=0;
  }
  r->has_field = x->field!=0;
  r->has_reason = reason!=0;
  r->nreason = nreason;
  r->nmsg = nmsg;
  r->nkey = nkey;
  r->nfield = nfield;
  r->nraw = x->nraw;
  s = (unsigned char*)(r+1);
  if( nreason ) memcpy(s, reason, nreason);
  s[nreason] = 0;
  s += nreason+1;
  if( nmsg ) memcpy(s, e->message, nmsg);
  s[nmsg] = 0;
  s += nmsg+1;
  if( nkey ) memcpy(s, e->key, nkey);
  s += nkey;
  if( nfield ) memcpy(s, x->field, nfield);
  s += nfield;
  if( x->nraw ) memcpy(s, x->raw, x->nraw);
  pipe_commit(p, at, SQ_PIPE_REJECT, size);
  pipe_early(p);
  return 0;
}

int sq_pipe_put_mark(sq_pipe *p, int what, int64_t a, int64_t b){
  size_t size = ALIGN8(sizeof(pipe_hdr)+sizeof(pipe_mark));
  unsigned char *at;
  pipe_mark *m;
  if( sq_pipe_stopped(p) || p->oom ) return 1;
  at = pipe_reserve(p, size);
  if( !at ) return 1;
  m = (pipe_mark*)(at+sizeof(pipe_hdr));
  m->what = what;
  m->a = a;
  m->b = b;
  pipe_commit(p, at, SQ_PIPE_MARK, size);
  return 0;
}

/* END or ERROR: the last item, handed over at once.  Out of memory (or a
** put that failed for it before): the caller sees SQLITE_NOMEM when the
** worker is done (sq_pipe_next). */
static int pipe_put_last(sq_pipe *p, int kind, int rc, const char *message){
  size_t nmsg = message ? strlen(message) : 0;
  size_t size = ALIGN8(sizeof(pipe_hdr)+sizeof(pipe_err)+nmsg+1);
  unsigned char *at;
  pipe_err *e;
  if( p->ended || sq_pipe_stopped(p) ) return 1;
  if( p->oom && kind==SQ_PIPE_END ) return 1;
  at = pipe_reserve(p, size);
  if( !at ) return 1;
  e = (pipe_err*)(at+sizeof(pipe_hdr));
  e->rc = rc;
  e->has_msg = message!=0;
  e->nmsg = nmsg;
  if( nmsg ) memcpy(e+1, message, nmsg);
  ((char*)(e+1))[nmsg] = 0;
  pipe_commit(p, at, (uint32_t)kind, size);
  p->ended = 1;
  pipe_publish(p);
  return 0;
}

int sq_pipe_put_end(sq_pipe *p){
  return pipe_put_last(p, SQ_PIPE_END, SQLITE_OK, 0);
}

int sq_pipe_put_error(sq_pipe *p, int rc, const char *message){
  return pipe_put_last(p, SQ_PIPE_ERROR, rc, message);
}

/* ------------------------------------------------------------ one file into a core */

int sq_pipe_route_row(void *route, const sq_ingest_row *row){
  sq_pipe_route *r = (sq_pipe_route*)route;
  if( r->pipe ) return sq_pipe_put_row_raw(r->pipe, row) ? 1 : SQ_INGEST_CONTINUE;
  return r->row(r->row_user, row);
}

int sq_pipe_route_reject(void *route, const sq_ingest_reject *x){
  sq_pipe_route *r = (sq_pipe_route*)route;
  if( r->pipe ) return sq_pipe_put_reject(r->pipe, x, x->reason) ? 1 : SQ_INGEST_CONTINUE;
  return r->reject(r->reject_user, x);
}

void sq_pipe_read_run(sq_pipe *p, void *arg){
  sq_pipe_reader *r = (sq_pipe_reader*)arg;
  size_t size = r->chunk ? r->chunk : 64*1024;
  unsigned char *buf = sqlite3_malloc64(size);
  uint64_t fed = r->base;
  if( !buf ){ sq_pipe_put_error(p, SQLITE_NOMEM, 0); return; }
  r->file->stop = sq_pipe_stop_flag(p);
  for(;;){
    int rc = SQLITE_OK;
    char *why = 0;
    long long n;
    /* a read that may wait: the rows so far go first */
    if( !r->file->regular ) sq_pipe_flush(p);
    n = sq_file_read(r->file, buf, size, &rc, &why);
    if( n<0 ){
      if( rc!=SQLITE_INTERRUPT || !sq_pipe_stopped(p) ) sq_pipe_put_error(p, why ? rc : SQLITE_NOMEM, why);
      sqlite3_free(why);
      break;
    }
    if( n==0 ){ sq_pipe_put_end(p); break; }
    if( r->feed(r->ctx, buf, (size_t)n)!=SQ_INGEST_OK ){
      if( !sq_pipe_stopped(p) ) sq_pipe_put_error(p, SQ_PIPE_FEED_FAILED, 0);
      break;
    }
    fed += (uint64_t)n;
    sq_pipe_progress(p, fed, (uint64_t)r->file->nraw);
    if( sq_pipe_put_mark(p, SQ_PIPE_CHUNK_DONE, (int64_t)fed, r->records(r->ctx)) ) break;
  }
  r->file->stop = 0;
  sqlite3_free(buf);
}

/* ------------------------------------------------------------ the caller */

/* A row item's row (its raw text aside) into *it, as an SQ_PIPE_ROW (a
** row sets what a row has; the other fields are left as they were). */
PIPE_INLINE void pipe_read_row(sq_pipe_item *it, const pipe_hdr *h){
  const pipe_row *r = (const pipe_row*)(h+1);
  it->kind = SQ_PIPE_ROW;
  it->message = 0;
  it->rc = 0;
  it->bytes = h->bytes;
  it->raw_bytes = h->raw;
  it->row.index = r->index;
  it->row.offset = r->offset;
  it->row.line = r->line;
  it->row.column = r->column;
  it->row.ncol = (int)r->ncol;
  it->row.values = (const sq_ingest_value*)(r+1);
}

/* A PIPE_ROW_RAW item into *it: the row and its raw text. */
PIPE_NOINLINE void pipe_read_row_raw(sq_pipe_item *it, const pipe_hdr *h){
  const pipe_row_raw *x = (const pipe_row_raw*)((const unsigned char*)h + h->size - sizeof(pipe_row_raw));
  pipe_read_row(it, h);
  it->row.raw = (const char*)x - ALIGN8((size_t)x->nraw);
  it->row.nraw = (size_t)x->nraw;
  it->row.raw_truncated = (int)x->truncated;
}

/* The item at rpos of the caller's block into *it. */
static void pipe_read_item(sq_pipe *p, sq_pipe_item *it){
  unsigned char *at = p->cur->z + p->rpos;
  pipe_hdr *h = (pipe_hdr*)at;
  unsigned char *body = at+sizeof(pipe_hdr);
  if( h->kind==SQ_PIPE_ROW ){   /* the many */
    pipe_read_row(it, h);
    it->row.raw = 0;
    return;
  }
  if( h->kind==PIPE_ROW_RAW ){
    pipe_read_row_raw(it, h);
    return;
  }
  /* the others start from zero */
  memset(it, 0, sizeof(*it));
  it->kind = (int)h->kind;
  it->bytes = h->bytes;
  it->raw_bytes = h->raw;
  switch( h->kind ){
    case SQ_PIPE_REJECT: {
      pipe_rej *r = (pipe_rej*)body;
      const char *s = (const char*)(r+1);
      it->message = r->has_reason ? s : 0;
      s += r->nreason+1;
      it->error.code = (int)r->code;
      it->error.message = s;
      s += r->nmsg+1;
      it->error.key = r->has_key ? s : 0;
      it->error.nkey = r->nkey;
      s += r->nkey;
      it->error.record = r->record;
      it->error.offset = r->eoffset;
      it->error.line = r->eline;
      it->error.column = r->ecolumn;
      it->reject.index = r->index;
      it->reject.offset = r->offset;
      it->reject.line = r->line;
      it->reject.column = r->column;
      it->reject.error = &it->error;
      it->reject.field = r->has_field ? s : 0;
      it->reject.nfield = r->nfield;
      s += r->nfield;
      it->reject.reason = it->message;
      it->reject.raw = s;
      it->reject.nraw = r->nraw;
      it->reject.truncated = (int)r->truncated;
      break;
    }
    case SQ_PIPE_MARK: {
      pipe_mark *m = (pipe_mark*)body;
      it->what = (int)m->what;
      it->a = m->a;
      it->b = m->b;
      break;
    }
    default: {
      pipe_err *e = (pipe_err*)body;
      it->rc = (int)e->rc;
      it->message = e->has_msg ? (const char*)(e+1) : 0;
      break;
    }
  }
}

/* Test and debug builds overwrite what a block held when it is given back
** or freed, so that a caller still reading it sees wrong bytes at once. */
#if defined(SQ_PIPE_POISON) || defined(DEBUG) || defined(SQLITE_DEBUG)
# define pipe_poison(blk) do{ if( (blk)->z ) memset((blk)->z, 0xA5, (blk)->used); }while(0)
#else
# define pipe_poison(blk) ((void)0)
#endif

/* Gives a block read past back (under mu): to the spares, or freed while
** more than nblocks are allocated (held blocks made the worker allocate). */
static void pipe_recycle(sq_pipe *p, pipe_block *blk){
  pipe_poison(blk);
  if( p->nalloc>p->n ){
    p->nalloc--;
    pipe_block_free(blk);
  }else{
    blk->next = p->spare;
    p->spare = blk;
  }
}

int sq_pipe_next(sq_pipe *p, sq_pipe_item *it, int (*interrupted)(void *arg), void *arg){
  for(;;){
    if( p->cur ){
      pipe_block *blk = p->cur;
      if( p->rpos<blk->used ){
        pipe_hdr *h = (pipe_hdr*)(blk->z+p->rpos);
        pipe_read_item(p, it);
        /* the last item stays: asked again, it is given again */
        if( h->kind!=SQ_PIPE_END && h->kind!=SQ_PIPE_ERROR ) p->rpos += (size_t)h->size;
        return SQ_PIPE_OK;
      }
      p->cur = 0;
      if( p->hold ){
        blk->next = p->held;
        p->held = blk;
      }
      pthread_mutex_lock(&p->mu);
      p->count--;
      if( !p->hold ) pipe_recycle(p, blk);
      if( p->wwaits && p->count<=p->n/2 ) pthread_cond_broadcast(&p->cv);
      pthread_mutex_unlock(&p->mu);
    }
    pthread_mutex_lock(&p->mu);
    while( p->count==0 ){
      struct timespec until;
      int r;
      if( p->done ){
        /* the worker returned without a last item: stopped, or out of memory */
        pthread_mutex_unlock(&p->mu);
        memset(it, 0, sizeof(*it));
        it->kind = SQ_PIPE_ERROR;
        it->rc = p->oom ? SQLITE_NOMEM : SQLITE_INTERRUPT;
        return SQ_PIPE_OK;
      }
      clock_gettime(CLOCK_REALTIME, &until);
      until.tv_nsec += PIPE_WAIT_MS * 1000000L;
      if( until.tv_nsec>=1000000000L ){ until.tv_sec++; until.tv_nsec -= 1000000000L; }
      __atomic_store_n(&p->cwaits, 1, __ATOMIC_RELAXED);
      r = pthread_cond_timedwait(&p->cv, &p->mu, &until);
      __atomic_store_n(&p->cwaits, 0, __ATOMIC_RELAXED);
      if( r!=0 && p->count==0 && !p->done && interrupted ){
        /* waited a whole slice: ask (outside the lock) */
        pthread_mutex_unlock(&p->mu);
        if( interrupted(arg) ) return SQ_PIPE_INTERRUPTED;
        pthread_mutex_lock(&p->mu);
      }
    }
    p->cur = p->ready;
    p->ready = p->cur->next;
    if( !p->ready ) p->ready_last = 0;
    pthread_mutex_unlock(&p->mu);
    p->rpos = 0;
    if( ++p->taken>=PIPE_BLOCKS_PER_CHECK ){
      p->taken = 0;
      if( interrupted && interrupted(arg) ) return SQ_PIPE_INTERRUPTED;
    }
  }
}

void sq_pipe_hold(sq_pipe *p, int on){
  p->hold = on;
  if( !on ) sq_pipe_release(p);
}

void sq_pipe_release(sq_pipe *p){
  pipe_block *blk, *next;
  if( !p->held ) return;
  pthread_mutex_lock(&p->mu);
  for(blk=p->held; blk; blk=next){
    next = blk->next;
    pipe_recycle(p, blk);
  }
  p->held = 0;
  pthread_mutex_unlock(&p->mu);
}

int sq_pipe_db_interrupted(void *db){
  return sq_interrupted((sqlite3*)db);
}

void sq_pipe_stop(sq_pipe *p){
  if( !p ) return;
  pthread_mutex_lock(&p->mu);
  __atomic_store_n(&p->stop, 1, __ATOMIC_RELEASE);
  pthread_cond_broadcast(&p->cv);
  pthread_mutex_unlock(&p->mu);
  if( p->started ){
    pthread_join(p->th, 0);
    p->started = 0;
  }
}

static void pipe_free_list(pipe_block *blk){
  while( blk ){
    pipe_block *next = blk->next;
    pipe_poison(blk);
    pipe_block_free(blk);
    blk = next;
  }
}

void sq_pipe_free(sq_pipe *p){
  if( !p ) return;
  sq_pipe_stop(p);
  if( p->w ) p->w->next = 0;
  if( p->cur ) p->cur->next = 0;
  pipe_free_list(p->ready);
  pipe_free_list(p->spare);
  pipe_free_list(p->held);
  pipe_free_list(p->w);
  pipe_free_list(p->cur);
  pthread_cond_destroy(&p->cv);
  pthread_mutex_destroy(&p->mu);
  sqlite3_free(p);
}
