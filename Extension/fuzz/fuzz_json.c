/*
** fuzz_json.c — libFuzzer harness for the incremental JSON parser.
**
** The input is parsed twice: whole, and cut into chunks whose sizes come
** from the input's first bytes (1..64), pausing after some events.  Both
** runs must give the same event stream (type, text, flags, offset, line,
** column, depth) and the same final status/error; every string/key text
** must be valid UTF-8; the NDJSON mode is exercised on odd inputs, and a
** small token limit (3..8 bytes) on some: accepting or refusing a token
** must not depend on where the input was cut either.  The tape filled from
** the cut input must hold the whole run's tokens (check_tape).
*/
#include "sq_internal.h"
#include "sq_json.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"

typedef struct Rec {
  unsigned char *b;
  size_t n, cap;
  unsigned long events;
  int pause_mod;
} Rec;

static int on_event(void *u, const sq_json_token *t){
  Rec *r = (Rec*)u;
  rec_add(r, &t->type, sizeof t->type);
  rec_add(r, &t->flags, sizeof t->flags);
  rec_add(r, &t->offset, sizeof t->offset);
  rec_add(r, &t->line, sizeof t->line);
  rec_add(r, &t->column, sizeof t->column);
  rec_add(r, &t->depth, sizeof t->depth);
  rec_add(r, &t->len, sizeof t->len);
  if( t->len ) rec_add(r, t->text, t->len);
  if( (t->type==SQ_JSON_STRING || t->type==SQ_JSON_KEY)
      && !valid_utf8((const unsigned char*)t->text, t->len) ) abort();
  if( t->type==SQ_JSON_NUMBER ){
    int64_t v;
    (void)sq_json_number_int64(t->text, t->len, &v);
    (void)sq_json_number_double(t->text, t->len);
  }
  r->events++;
  if( r->pause_mod && r->events % (unsigned long)r->pause_mod==0 ) return SQ_JSON_PAUSE;
  return SQ_JSON_CONTINUE;
}

static void finish_rec(Rec *r, sq_json_parser *p, int rc){
  if( rc!=SQ_JSON_ERROR ) rc = sq_json_finish(p);
  rec_add(r, &rc, sizeof rc);
  if( rc==SQ_JSON_ERROR ){
    const sq_json_error *e = sq_json_error_info(p);
    rec_add(r, &e->code, sizeof e->code);
    rec_add(r, &e->offset, sizeof e->offset);
    rec_add(r, &e->line, sizeof e->line);
    rec_add(r, &e->column, sizeof e->column);
    rec_add(r, e->message, strlen(e->message));
  }
}

static int feed_all(sq_json_parser *p, const uint8_t *b, size_t n){
  for(;;){
    int rc = sq_json_feed(p, b, n);
    size_t k;
    if( rc!=SQ_JSON_PAUSED ) return rc;
    k = sq_json_consumed(p);
    if( k>n ) abort();
    b += k; n -= k;
    if( n==0 ) return SQ_JSON_OK;
  }
}

/* The tape (sq_json_tape_event) filled from the input cut into chunks holds
** one token per event of the whole run but the END ones, with the same kind,
** flags and text (in the input or copied to the arena), and each container's
** length is the index after its last token. */
static void check_tape(const Rec *whole, const uint8_t *doc, size_t n, unsigned opts,
                       size_t limit, const uint8_t *seed0){
  sq_json_tape t;
  sq_json_parser *p;
  const unsigned char *r = whole->b;
  uint32_t stack[SQ_JSON_MAX_DEPTH+2];
  int depth = 0;
  size_t pos = 0, seed_i = 0, k, i = 0;
  unsigned long e;
  uint8_t seed[4];
  memcpy(seed, seed0, 4);
  if( sq_json_tape_init(&t) ) return;
  p = sq_json_new(sq_json_tape_event, &t);
  if( !p ){ sq_json_tape_release(&t); return; }
  sq_json_set_options(p, opts);
  if( limit ) sq_json_set_max_token(p, limit);
  while( pos<n ){
    k = (size_t)(seed[seed_i++ & 3] + doc[pos]) % 13 + 1;
    if( k>n-pos ) k = n-pos;
    t.input_start = doc+pos;
    t.input_end = doc+pos+k;
    t.base = pos;
    if( sq_json_feed(p, doc+pos, k)==SQ_JSON_ERROR ) break;
    pos += k;
  }
  if( pos>=n ){ t.input_start = 0; (void)sq_json_finish(p); }
  for(e=0; e<whole->events; e++){
    int type, d;
    unsigned flags;
    uint64_t off;
    size_t len;
    memcpy(&type, r, sizeof type); r += sizeof type;
    memcpy(&flags, r, sizeof flags); r += sizeof flags;
    memcpy(&off, r, sizeof off); r += sizeof off;
    r += 2*sizeof(uint64_t);                      /* line, column */
    memcpy(&d, r, sizeof d); r += sizeof d; (void)d;
    memcpy(&len, r, sizeof len); r += sizeof len;
    if( type==SQ_JSON_END_OBJECT || type==SQ_JSON_END_ARRAY ){
      if( depth<=0 || t.tokens[stack[--depth]].length!=i ) abort();
    }else{
      const sq_json_tape_token *o;
      if( i>=t.count ) abort();
      o = &t.tokens[i];
      if( o->kind!=type || (o->flags & 0x7F)!=(flags & 0x7F) ) abort();
      if( type==SQ_JSON_STRING || type==SQ_JSON_KEY || type==SQ_JSON_NUMBER ){
        const unsigned char *x = (o->flags & SQ_JSON_TAPE_ARENA) ? t.arena + o->position : doc + o->position;
        uint64_t at;
        if( o->length!=len || (len && memcmp(x, r, len)!=0) ) abort();
        if( o->flags & SQ_JSON_TAPE_ARENA ) memcpy(&at, t.arena + o->position - 8, 8);
        else at = o->position - (type==SQ_JSON_NUMBER ? 0 : 1);
        if( at!=off ) abort();
      }else if( o->position!=off ){
        abort();
      }
      if( type==SQ_JSON_BEGIN_OBJECT || type==SQ_JSON_BEGIN_ARRAY ) stack[depth++] = (uint32_t)i;
      i++;
    }
    r += len;
  }
  if( i!=t.count ) abort();
  sq_json_free(p);
  sq_json_tape_release(&t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size){
  Rec whole = {0,0,0,0,0}, cut = {0,0,0,0,0};
  unsigned opts = 0;
  size_t limit = 0;
  sq_json_parser *p;
  int rc;
  size_t pos = 0, seed_i = 0;
  const uint8_t *doc = data;
  size_t n = size;
  uint8_t seed[4] = {1, 3, 7, 2};

  /* first byte: options + chunking seed, when it is not JSON-ish
  ** (0xF0..0xF7: trailing commas accepted too) */
  if( n>0 && data[0]>=0xF0 ){
    opts = (data[0] & 1) ? SQ_JSON_OPT_MULTIPLE : 0;
    if( !(data[0] & 8) ) opts |= SQ_JSON_OPT_TRAILING_COMMAS;
    seed[0] = (uint8_t)(data[0] & 7);
    if( data[0] & 2 ) limit = 1 + (size_t)(data[0] & 7);
    doc++; n--;
  }

  p = sq_json_new(on_event, &whole);
  if( !p ) return 0;
  sq_json_set_options(p, opts);
  if( limit ) sq_json_set_max_token(p, limit);
  rc = sq_json_feed(p, doc, n);
  if( rc==SQ_JSON_PAUSED ) abort();
  finish_rec(&whole, p, rc);
  sq_json_free(p);

  check_tape(&whole, doc, n, opts, limit, seed);

  p = sq_json_new(on_event, &cut);
  if( !p ){ free(whole.b); return 0; }
  sq_json_set_options(p, opts);
  if( limit ) sq_json_set_max_token(p, limit);
  cut.pause_mod = 3;
  rc = SQ_JSON_OK;
  while( rc!=SQ_JSON_ERROR && pos<n ){
    size_t k = (size_t)(seed[seed_i++ & 3] + (n>pos ? doc[pos] : 0)) % 13 + 1;
    if( k>n-pos ) k = n-pos;
    rc = feed_all(p, doc+pos, k);
    pos += k;
  }
  finish_rec(&cut, p, rc);
  sq_json_free(p);

  if( whole.n!=cut.n || memcmp(whole.b, cut.b, whole.n)!=0 ) abort();
  free(whole.b);
  free(cut.b);
  return 0;
}
