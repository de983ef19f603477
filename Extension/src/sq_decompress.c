/*
** sq_decompress.c — gzip and zstd input as one stream (sq_decompress.h,
** the manual).  zlib's inflate (gzip wrapper only) and libzstd's streaming
** decoder do the work; this file detects the format, runs concatenated
** members as one stream, and turns their failures into messages with the
** number of compressed bytes read.  Memory: zlib's 32 KiB window, zstd's window as
** the frame declares it (libzstd refuses above 2^27 bytes), a 4-byte head.
**
** A gzip member's trailer (the CRC-32 and length of its data) is checked
** here, not by zlib (inflateValidate off): sq_dz_crc32 runs the CRC with
** carry-less multiplication where the CPU has it (x86-64 PCLMULQDQ, about
** twenty times fewer instructions than zlib's tables, which it uses
** otherwise and for the tail of a buffer).  The 8 trailer bytes are the last
** 8 that inflate took when the member ended; the messages are zlib's.  A
** member's header is read with zlib's checks on (its optional CRC-16, FHCRC,
** which gzip never writes but gzip -t checks) and nothing else: zlib's
** validation goes off once the header is done, before any data.
*/
#include "sq_internal.h"
#include "sq_decompress.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#define ZSTD_STATIC_LINKING_ONLY   /* ZSTD_createDStream_advanced: our allocator */
#include <zstd.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
# define SQ_DZ_CLMUL 1
# include <immintrin.h>
#else
# define SQ_DZ_CLMUL 0
#endif

struct sq_dz {
  int kind;                 /* SQ_DZ_AUTO until decided */
  int started;              /* the decoder of kind is set up */
  int mid;                  /* inside a gzip member or zstd frame */
  int failed;
  int ended;                /* sq_dz_end called */
  unsigned char head[4];    /* AUTO: the first bytes, until the kind is known */
  size_t nhead, hpos;
  z_stream zs;
  uint32_t crc;             /* gzip: CRC-32 of the member's data so far */
  uint32_t msize;           /* gzip: its length, modulo 2^32 */
  unsigned char tail[8];    /* gzip: the last 8 compressed bytes taken */
  gz_header gzhead;         /* gzip: zlib's report of the member's header */
  int in_header;            /* gzip: the member's header is not read yet */
  ZSTD_DStream *ds;
  unsigned long long nin, nout;
  char msg[200];
};

static const unsigned char gz_magic[2] = {0x1f, 0x8b};
static const unsigned char zstd_magic[4] = {0x28, 0xb5, 0x2f, 0xfd};

/* A zstd skippable frame (0x184D2A50..5F, little-endian: pzstd's output
** begins with one) in the first n bytes, or those n bytes could begin one. */
static int zstd_skippable(const unsigned char *b, size_t n){
  static const unsigned char rest[3] = {0x2a, 0x4d, 0x18};
  if( n==0 ) return 1;
  if( (b[0] & 0xf0)!=0x50 ) return 0;
  return memcmp(b+1, rest, n>4 ? 3 : n-1)==0;
}

int sq_dz_detect(const void *p, size_t n, int at_end){
  const unsigned char *b = (const unsigned char*)p;
  if( n>=2 && memcmp(b, gz_magic, 2)==0 ) return SQ_DZ_GZIP;
  if( n>=4 && (memcmp(b, zstd_magic, 4)==0 || zstd_skippable(b, 4)) ) return SQ_DZ_ZSTD;
  if( !at_end && ((n<2 && memcmp(b, gz_magic, n)==0) || (n<4 && memcmp(b, zstd_magic, n)==0)
                  || (n<4 && zstd_skippable(b, n))) ){
    return SQ_DZ_AUTO;
  }
  return SQ_DZ_PLAIN;
}

const char *sq_dz_kind_name(int kind){
  switch( kind ){
    case SQ_DZ_GZIP: return "gzip";
    case SQ_DZ_ZSTD: return "zstd";
    default:         return "plain";
  }
}

/* zlib's and zstd's own allocations go through SQLite's allocator too (one
** hook for all the extension's memory: sqlite3_config(SQLITE_CONFIG_MALLOC)). */
static voidpf dz_zalloc(voidpf opaque, uInt items, uInt size){
  (void)opaque;
  return sqlite3_malloc64((sqlite3_uint64)items*size);
}
static void dz_zfree(voidpf opaque, voidpf p){ (void)opaque; sqlite3_free(p); }
static void *dz_zstd_alloc(void *opaque, size_t n){ (void)opaque; return sqlite3_malloc64(n); }
static void dz_zstd_free(void *opaque, void *p){ (void)opaque; sqlite3_free(p); }

sq_dz *sq_dz_new(int kind){
  sq_dz *z = sqlite3_malloc64(sizeof(*z));
  if( z ){
    memset(z, 0, sizeof(*z));
    z->kind = kind;
  }
  return z;
}

void sq_dz_free(sq_dz *z){
  if( !z ) return;
  if( z->started && z->kind==SQ_DZ_GZIP ) inflateEnd(&z->zs);
  if( z->ds ) ZSTD_freeDStream(z->ds);
  sqlite3_free(z);
}

int sq_dz_kind(const sq_dz *z){ return z->kind; }
const char *sq_dz_error(const sq_dz *z){ return z->msg; }
unsigned long long sq_dz_bytes_in(const sq_dz *z){ return z->nin; }
unsigned long long sq_dz_bytes_out(const sq_dz *z){ return z->nout; }

/* ---- CRC-32 (gzip's: reflected 0x04C11DB7, as zlib's crc32) */

#if SQ_DZ_CLMUL
/* The CRC register (not inverted) after b[0..n), n a multiple of 16 and at
** least 64: four 128-bit lanes folded 64 bytes at a time by carry-less
** multiplication, folded into one, reduced to 64 then 32 bits (Barrett).
** The constants are x^k mod P for the fold distances, and P and its
** quotient for the reduction, in the bit-reflected domain ("Fast CRC
** Computation for Generic Polynomials Using PCLMULQDQ Instruction",
** Gopal et al., Intel, 2009). */
__attribute__((target("pclmul,sse4.1")))
static uint32_t crc32_clmul(uint32_t crc, const unsigned char *b, size_t n){
  const __m128i k1k2 = _mm_set_epi64x(0x01c6e41596LL, 0x0154442bd4LL);
  const __m128i k3k4 = _mm_set_epi64x(0x00ccaa009eLL, 0x01751997d0LL);
  const __m128i k5 = _mm_set_epi64x(0, 0x0163cd6124LL);
  const __m128i pu = _mm_set_epi64x(0x01f7011641LL, 0x01db710641LL);
  const __m128i lo32 = _mm_setr_epi32(-1, 0, -1, 0);
  __m128i x0, x1, x2, x3, x4, t;
  x1 = _mm_xor_si128(_mm_loadu_si128((const __m128i*)(const void*)b), _mm_cvtsi32_si128((int)crc));
  x2 = _mm_loadu_si128((const __m128i*)(const void*)(b+16));
  x3 = _mm_loadu_si128((const __m128i*)(const void*)(b+32));
  x4 = _mm_loadu_si128((const __m128i*)(const void*)(b+48));
  b += 64; n -= 64;
#define FOLD(x, k, d) \
  (t = _mm_clmulepi64_si128((x), (k), 0x00), \
   _mm_xor_si128(_mm_xor_si128(_mm_clmulepi64_si128((x), (k), 0x11), t), (d)))
  while( n>=64 ){
    x1 = FOLD(x1, k1k2, _mm_loadu_si128((const __m128i*)(const void*)b));
    x2 = FOLD(x2, k1k2, _mm_loadu_si128((const __m128i*)(const void*)(b+16)));
    x3 = FOLD(x3, k1k2, _mm_loadu_si128((const __m128i*)(const void*)(b+32)));
    x4 = FOLD(x4, k1k2, _mm_loadu_si128((const __m128i*)(const void*)(b+48)));
    b += 64; n -= 64;
  }
  x1 = FOLD(x1, k3k4, x2);
  x1 = FOLD(x1, k3k4, x3);
  x1 = FOLD(x1, k3k4, x4);
  while( n>=16 ){
    x1 = FOLD(x1, k3k4, _mm_loadu_si128((const __m128i*)(const void*)b));
    b += 16; n -= 16;
  }
#undef FOLD
  /* 128 bits to 64 */
  x2 = _mm_clmulepi64_si128(x1, k3k4, 0x10);
  x1 = _mm_xor_si128(_mm_srli_si128(x1, 8), x2);
  x2 = _mm_srli_si128(x1, 4);
  x1 = _mm_xor_si128(_mm_clmulepi64_si128(_mm_and_si128(x1, lo32), k5, 0x00), x2);
  /* 64 bits to 32 */
  x0 = _mm_clmulepi64_si128(_mm_and_si128(x1, lo32), pu, 0x10);
  x0 = _mm_clmulepi64_si128(_mm_and_si128(x0, lo32), pu, 0x00);
  x1 = _mm_xor_si128(x1, x0);
  return (uint32_t)_mm_extract_epi32(x1, 1);
}

static int dz_has_clmul(void){
  static int has = -1;             /* a benign race: every thread finds the same */
  if( has<0 ) has = __builtin_cpu_supports("pclmul") && __builtin_cpu_supports("sse4.1");
  return has;
}
#endif

uint32_t sq_dz_crc32(uint32_t crc, const void *p, size_t n){
  const unsigned char *b = (const unsigned char*)p;
#if SQ_DZ_CLMUL
  if( n>=64 && dz_has_clmul() ){
    size_t k = n & ~(size_t)15;
    crc = ~crc32_clmul(~crc, b, k);
    b += k;
    n -= k;
  }
#endif
  while( n>0 ){                    /* zlib's sizes are uInt */
    uInt k = (uInt)(n > (1u<<30) ? (1u<<30) : n);
    crc = (uint32_t)crc32(crc, b, k);
    b += k;
    n -= k;
  }
  return crc;
}

static uint32_t le32(const unsigned char *b){
  return (uint32_t)b[0] | (uint32_t)b[1]<<8 | (uint32_t)b[2]<<16 | (uint32_t)b[3]<<24;
}

static int dz_fail(sq_dz *z, const char *what, const char *detail){
  z->failed = 1;
  snprintf(z->msg, sizeof z->msg, "%s: %s after %llu compressed bytes%s%s",
           sq_dz_kind_name(z->kind), what, z->nin, detail ? ": " : "", detail ? detail : "");
  return SQ_DZ_ERROR;
}

/* A gzip member begins: its header is read with zlib's checks (FHCRC); the
** data's CRC-32 is left to dz_step (sq_dz_crc32). */
static int dz_member_start(sq_dz *z){
  memset(&z->gzhead, 0, sizeof z->gzhead);   /* no name, comment or extra copied */
  z->in_header = 1;
  if( inflateGetHeader(&z->zs, &z->gzhead)!=Z_OK || inflateValidate(&z->zs, 1)!=Z_OK ){
    return dz_fail(z, "out of memory", 0);
  }
  return SQ_DZ_OK;
}

/* k compressed bytes at p taken: counted, and the last 8 kept (the trailer). */
static void dz_took(sq_dz *z, const unsigned char *p, size_t k){
  if( k ) z->mid = 1;
  z->nin += k;
  if( k>=8 ){
    memcpy(z->tail, p+k-8, 8);
  }else if( k ){
    memmove(z->tail, z->tail+k, 8-k);
    memcpy(z->tail+8-k, p, k);
  }
}

/* A gzip member ended (its trailer the last 8 bytes taken): the trailer is
** checked, and what follows is the next member. */
static int dz_member_end(sq_dz *z){
  if( le32(z->tail)!=z->crc ){
    z->nin -= 4;                 /* seen at the CRC-32's end, before the length */
    return dz_fail(z, "corrupt data", "incorrect data check");
  }
  if( le32(z->tail+4)!=z->msize ) return dz_fail(z, "corrupt data", "incorrect length check");
  z->crc = 0;
  z->msize = 0;
  z->mid = 0;
  if( inflateReset(&z->zs)!=Z_OK ) return dz_fail(z, "out of memory", 0);
  return dz_member_start(z);
}

static int dz_start(sq_dz *z){
  z->started = 1;
  if( z->kind==SQ_DZ_GZIP ){
    memset(&z->zs, 0, sizeof z->zs);
    z->zs.zalloc = dz_zalloc;
    z->zs.zfree = dz_zfree;
    /* 16+MAX_WBITS: the gzip wrapper (header, CRC-32, length) is checked */
    if( inflateInit2(&z->zs, 16+MAX_WBITS)!=Z_OK ){
      z->started = 0;
      return dz_fail(z, "out of memory", 0);
    }
    if( dz_member_start(z)!=SQ_DZ_OK ) return SQ_DZ_ERROR;
  }else if( z->kind==SQ_DZ_ZSTD ){
    ZSTD_customMem mem = { dz_zstd_alloc, dz_zstd_free, 0 };
    z->ds = ZSTD_createDStream_advanced(mem);
    if( !z->ds || ZSTD_isError(ZSTD_initDStream(z->ds)) ) return dz_fail(z, "out of memory", 0);
  }
  return SQ_DZ_OK;
}

/* One step of the decoder: *u bytes of src taken, *m bytes of out made. */
static int dz_step(sq_dz *z, const unsigned char *src, size_t nsrc, size_t *u,
                   unsigned char *out, size_t nout, size_t *m){
  *u = *m = 0;
  if( z->kind==SQ_DZ_PLAIN ){
    size_t k = nsrc<nout ? nsrc : nout;
    if( k ) memcpy(out, src, k);
    *u = *m = k;
  }else if( z->kind==SQ_DZ_GZIP ){
    int r;
    size_t hu = 0;
    if( z->in_header ){
      /* The header alone (no room for output), with zlib's checks on. */
      unsigned char none;
      z->zs.next_in = (Bytef*)src;
      z->zs.avail_in = (uInt)(nsrc > (1u<<30) ? (1u<<30) : nsrc);
      z->zs.next_out = &none;
      z->zs.avail_out = 0;
      r = inflate(&z->zs, Z_NO_FLUSH);
      hu = (size_t)(z->zs.next_in - (Bytef*)src);
      dz_took(z, src, hu);
      *u = hu;
      /* a member with no data may end here, its trailer taken too */
      if( r==Z_STREAM_END ) return dz_member_end(z);
      if( r==Z_MEM_ERROR ) return dz_fail(z, "out of memory", 0);
      if( r!=Z_OK && r!=Z_BUF_ERROR ) return dz_fail(z, "corrupt data", z->zs.msg ? z->zs.msg : "invalid data");
      if( z->gzhead.done!=1 ) return SQ_DZ_OK;   /* more header to come */
      if( inflateValidate(&z->zs, 0)!=Z_OK ) return dz_fail(z, "out of memory", 0);
      z->in_header = 0;
      src += hu;
      nsrc -= hu;
    }
    /* zlib's sizes are uInt: at most 1 GiB a step */
    z->zs.next_in = (Bytef*)src;
    z->zs.avail_in = (uInt)(nsrc > (1u<<30) ? (1u<<30) : nsrc);
    z->zs.next_out = out;
    z->zs.avail_out = (uInt)(nout > (1u<<30) ? (1u<<30) : nout);
    r = inflate(&z->zs, Z_NO_FLUSH);
    *u = (size_t)(z->zs.next_in - (Bytef*)src);
    *m = (size_t)(z->zs.next_out - out);
    dz_took(z, src, *u);
    *u += hu;
    z->crc = sq_dz_crc32(z->crc, out, *m);
    z->msize += (uint32_t)*m;
    if( r==Z_STREAM_END ){
      if( dz_member_end(z)!=SQ_DZ_OK ) return SQ_DZ_ERROR;
    }else if( r==Z_MEM_ERROR ){
      return dz_fail(z, "out of memory", 0);
    }else if( r==Z_NEED_DICT ){
      return dz_fail(z, "corrupt data", "a member asks for a preset dictionary");
    }else if( r!=Z_OK && r!=Z_BUF_ERROR ){
      return dz_fail(z, "corrupt data", z->zs.msg ? z->zs.msg : "invalid data");
    }
  }else{
    ZSTD_inBuffer ib;
    ZSTD_outBuffer ob;
    size_t r;
    ib.src = src; ib.size = nsrc; ib.pos = 0;
    ob.dst = out; ob.size = nout; ob.pos = 0;
    r = ZSTD_decompressStream(z->ds, &ob, &ib);
    *u = ib.pos;
    *m = ob.pos;
    if( ZSTD_isError(r) ){
      /* zstd does not say how far it got: the error lies in the bytes given */
      z->nin += nsrc;
      return dz_fail(z, "corrupt data", ZSTD_getErrorName(r));
    }
    z->nin += *u;
    /* 0: a frame is decoded and given out whole (a call with nothing to
    ** take or give before a frame begins says nothing) */
    if( *u || *m || z->mid ) z->mid = r!=0;
  }
  z->nout += *m;
  return SQ_DZ_OK;
}

int sq_dz_run(sq_dz *z, const void *in, size_t nin, size_t *used,
              void *outp, size_t nout, size_t *made){
  const unsigned char *src = (const unsigned char*)in;
  unsigned char *out = (unsigned char*)outp;
  *used = *made = 0;
  if( z->failed ) return SQ_DZ_ERROR;
  if( z->kind==SQ_DZ_AUTO ){
    int k;
    while( z->nhead<sizeof z->head && *used<nin ) z->head[z->nhead++] = src[(*used)++];
    k = sq_dz_detect(z->head, z->nhead, z->ended);
    if( k==SQ_DZ_AUTO ) return SQ_DZ_OK;
    z->kind = k;
  }
  if( !z->started && dz_start(z)!=SQ_DZ_OK ) return SQ_DZ_ERROR;
  for(;;){
    size_t u, m;
    int fromHead = z->hpos<z->nhead;
    const unsigned char *s = fromHead ? z->head+z->hpos : src+*used;
    size_t ns = fromHead ? z->nhead-z->hpos : nin-*used;
    if( dz_step(z, s, ns, &u, out+*made, nout-*made, &m)!=SQ_DZ_OK ) return SQ_DZ_ERROR;
    if( fromHead ) z->hpos += u; else *used += u;
    *made += m;
    if( *made==nout ) return SQ_DZ_OK;
    if( u==0 && m==0 ){
      /* no progress: all input taken (a decoder takes input while it has
      ** room to write) */
      return SQ_DZ_OK;
    }
  }
}

int sq_dz_end(sq_dz *z){
  if( z->failed ) return SQ_DZ_ERROR;
  z->ended = 1;
  if( z->kind==SQ_DZ_AUTO ) z->kind = sq_dz_detect(z->head, z->nhead, 1);
  if( z->mid ){
    return dz_fail(z, z->kind==SQ_DZ_GZIP ? "truncated: the input ends inside a member"
                                         : "truncated: the input ends inside a frame", 0);
  }
  return SQ_DZ_OK;
}
