/*
** fuzz_decompress.c — libFuzzer harness for compressed input (sq_decompress.h).
**
** The first byte chooses what the rest is:
**   - bit 0 clear: the rest is compressed input as it comes (random bytes,
**     corrupt headers, members cut anywhere).  Read whole and cut into chunks
**     whose sizes come from the second byte (1..16), with output buffers of
**     1..16 bytes: both runs must agree on success, and when both succeed
**     give the same bytes.
**   - bit 0 set: the rest is plain text, compressed here (gzip by zlib,
**     zstd by libzstd: bit 1), as one member or two (bit 2), then cut after
**     a length taken from the second byte (bit 3: no cut).  Read in chunks:
**     the text comes back byte for byte (twice for two members); a cut gives
**     "truncated" unless it falls between the members, never wrong bytes.
** And two oracles: sq_dz_crc32 of the input is zlib's crc32; a gzip input
** (bit 0 clear) decodes or fails as zlib's own inflate with its trailer
** checks, member after member, and gives the same bytes.
*/
#include "sq_decompress.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>

#include "fuzz_common.h"

typedef struct Out { unsigned char *b; size_t n, cap; } Out;

/* Decodes in[0..n) cut into chunks of `step` bytes, output `outsz` at a
** time; returns 0 or 1 (error). */
static int decode(const uint8_t *in, size_t n, size_t step, size_t outsz, Out *o){
  unsigned char out[16];
  sq_dz *z = sq_dz_new(SQ_DZ_AUTO);
  size_t pos = 0, used, made;
  int rc = 1;
  if( !z ) abort();
  while( pos<n ){
    size_t k = n-pos<step ? n-pos : step, p = 0;
    do{
      if( sq_dz_run(z, in+pos+p, k-p, &used, out, outsz, &made) ) goto done;
      if( made>outsz || used>k-p ) abort();
      p += used;
      rec_add(o, out, made);
      if( o->n > (1u<<24) ) goto done;   /* a bomb: enough */
    }while( p<k || made==outsz );
    pos += k;
  }
  if( sq_dz_end(z) ) goto done;
  do{
    if( sq_dz_run(z, 0, 0, &used, out, outsz, &made) ) goto done;
    rec_add(o, out, made);
  }while( made==outsz );
  rc = 0;
done:
  if( rc && sq_dz_error(z)[0]==0 ) abort();   /* an error says what */
  sq_dz_free(z);
  return rc;
}

static void gzip_into(const uint8_t *p, size_t n, Out *o){
  z_stream s;
  unsigned char tmp[1024];
  int r;
  memset(&s, 0, sizeof s);
  if( deflateInit2(&s, 6, Z_DEFLATED, 16+MAX_WBITS, 8, Z_DEFAULT_STRATEGY)!=Z_OK ) abort();
  s.next_in = (Bytef*)p;
  s.avail_in = (uInt)n;
  do{
    s.next_out = tmp;
    s.avail_out = sizeof tmp;
    r = deflate(&s, Z_FINISH);
    rec_add(o, tmp, sizeof tmp - s.avail_out);
  }while( r!=Z_STREAM_END );
  deflateEnd(&s);
}

static void zstd_into(const uint8_t *p, size_t n, Out *o){
  size_t cap = ZSTD_compressBound(n), k;
  unsigned char *b = malloc(cap);
  ZSTD_CCtx *c = ZSTD_createCCtx();
  ZSTD_CCtx_setParameter(c, ZSTD_c_checksumFlag, 1);
  k = ZSTD_compress2(c, b, cap, p, n);
  if( ZSTD_isError(k) ) abort();
  rec_add(o, b, k);
  ZSTD_freeCCtx(c);
  free(b);
}

/* zlib's verdict on in[0..n) as one stream of gzip members (all its checks:
** the header's CRC-16, the data's CRC-32 and length): 0, 1 (error), or 2 (the
** output passed the cap). */
static int zlib_decode(const uint8_t *in, size_t n, Out *o){
  z_stream s;
  unsigned char tmp[4096];
  int r = Z_OK, rc = 1;
  memset(&s, 0, sizeof s);
  if( inflateInit2(&s, 16+MAX_WBITS)!=Z_OK ) abort();
  s.next_in = (Bytef*)in;
  s.avail_in = (uInt)n;
  for(;;){
    s.next_out = tmp;
    s.avail_out = sizeof tmp;
    r = inflate(&s, Z_NO_FLUSH);
    rec_add(o, tmp, sizeof tmp - s.avail_out);
    if( o->n > (1u<<24) ){ rc = 2; break; }
    if( r==Z_STREAM_END ){
      if( s.avail_in==0 ){ rc = 0; break; }
      if( inflateReset(&s)!=Z_OK ) abort();
      continue;
    }
    if( r!=Z_OK ) break;                /* an error, or the input ends inside a member */
  }
  inflateEnd(&s);
  return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size){
  unsigned mode, cut;
  const uint8_t *rest;
  size_t nrest;
  if( size<2 ) return 0;
  mode = data[0];
  cut = data[1];
  rest = data+2;
  nrest = size-2;
  if( !(mode & 1) ){
    Out a = {0}, b = {0};
    int ra = decode(rest, nrest, nrest ? nrest : 1, 16, &a);
    int rb = decode(rest, nrest, 1 + (cut & 15), 1 + (cut>>4), &b);
    if( ra!=rb ) abort();
    if( !ra && (a.n!=b.n || (a.n && memcmp(a.b, b.b, a.n)!=0)) ) abort();
    if( sq_dz_crc32(0, rest, nrest)!=(uint32_t)crc32(0, rest, (uInt)nrest) ) abort();
    if( sq_dz_detect(rest, nrest, 1)==SQ_DZ_GZIP ){
      Out z = {0};
      int rz = zlib_decode(rest, nrest, &z);
      if( rz!=2 && a.n<=(1u<<24) ){
        if( rz!=ra ) abort();
        if( !ra && (z.n!=a.n || (a.n && memcmp(z.b, a.b, a.n)!=0)) ) abort();
      }
      free(z.b);
    }
    free(a.b); free(b.b);
  }else{
    Out c = {0}, o = {0}, want = {0};
    size_t one, n;
    int two = (mode & 4)!=0, rc;
    if( mode & 2 ) zstd_into(rest, nrest, &c); else gzip_into(rest, nrest, &c);
    one = c.n;
    if( two ){
      unsigned char *copy = malloc(one);
      memcpy(copy, c.b, one);
      rec_add(&c, copy, one);
      free(copy);
    }
    n = (mode & 8) ? c.n : (cut * c.n) / 255;
    rec_add(&want, rest, nrest);
    if( two ) rec_add(&want, rest, nrest);
    rc = decode(c.b, n, 1 + ((mode>>4) & 15), 1 + (cut & 15), &o);
    if( n < ((mode & 2) ? 4u : 2u) ){
      /* shorter than the magic number: a plain input, given as it is */
      if( rc || o.n!=n || (n && memcmp(o.b, c.b, n)!=0) ) abort();
    }else if( n==c.n || n==one ){
      /* whole members: the text itself (once or twice) */
      size_t w = n==c.n ? want.n : nrest;
      if( rc || o.n!=w || (w && memcmp(o.b, want.b, w)!=0) ) abort();
    }else{
      /* a cut inside a member: an error, and never bytes the text does not have */
      if( !rc ) abort();
      if( o.n>want.n || (o.n && memcmp(o.b, want.b, o.n)!=0) ) abort();
    }
    free(c.b); free(o.b); free(want.b);
  }
  return 0;
}
