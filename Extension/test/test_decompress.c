/*
** test_decompress.c — gzip and zstd input (sq_decompress.h, sq_file.c).
**
** The oracle is zlib's and libzstd's own compressors: what they compress
** comes back byte for byte, whatever the chunks the input and the output
** are cut into; concatenated members and frames are one stream; every
** truncation is an error unless it falls between members; a short plain
** input that begins like a magic number is plain; sq_file reads a gzip and
** a zstd file decompressed and names the format and offset of a corrupt one.
*/
#include "sq_internal.h"
#include "sq_decompress.h"
#include "sq_test.h"

#include <fcntl.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

typedef struct Buf { unsigned char *b; size_t n, cap; } Buf;

static void buf_add(Buf *x, const void *p, size_t k){
  if( x->n+k>x->cap ){
    x->cap = (x->n+k)*2+16;
    x->b = realloc(x->b, x->cap);
  }
  if( k ) memcpy(x->b+x->n, p, k);
  x->n += k;
}

static Buf gzip_of(const unsigned char *p, size_t n){
  Buf o = {0};
  z_stream s;
  unsigned char tmp[4096];
  int r;
  memset(&s, 0, sizeof s);
  deflateInit2(&s, 6, Z_DEFLATED, 16+MAX_WBITS, 8, Z_DEFAULT_STRATEGY);
  s.next_in = (Bytef*)p;
  s.avail_in = (uInt)n;
  do{
    s.next_out = tmp;
    s.avail_out = sizeof tmp;
    r = deflate(&s, Z_FINISH);
    buf_add(&o, tmp, sizeof tmp - s.avail_out);
  }while( r!=Z_STREAM_END );
  deflateEnd(&s);
  return o;
}

/* With a content checksum, as the zstd tool writes by default. */
static Buf zstd_of(const unsigned char *p, size_t n){
  Buf o = {0};
  size_t cap = ZSTD_compressBound(n);
  ZSTD_CCtx *c = ZSTD_createCCtx();
  ZSTD_CCtx_setParameter(c, ZSTD_c_compressionLevel, 3);
  ZSTD_CCtx_setParameter(c, ZSTD_c_checksumFlag, 1);
  o.b = malloc(cap);
  o.n = ZSTD_compress2(c, o.b, cap, p, n);
  o.cap = cap;
  ZSTD_freeCCtx(c);
  return o;
}

/* Decompresses in with input chunks of `step` bytes and an output buffer of
** `outsz` bytes; returns the output, *err the error (or "") */
static Buf run(int kind, const unsigned char *in, size_t n, size_t step, size_t outsz, char *err){
  Buf o = {0};
  unsigned char *out = malloc(outsz);
  sq_dz *z = sq_dz_new(kind);
  size_t pos = 0;
  err[0] = 0;
  while( pos<n ){
    size_t k = n-pos<step ? n-pos : step, p = 0, used, made;
    do{
      if( sq_dz_run(z, in+pos+p, k-p, &used, out, outsz, &made) ) goto fail;
      p += used;
      buf_add(&o, out, made);
    }while( p<k || made==outsz );
    pos += k;
  }
  if( sq_dz_end(z) ) goto fail;
  {
    size_t used, made;
    do{
      if( sq_dz_run(z, 0, 0, &used, out, outsz, &made) ) goto fail;
      buf_add(&o, out, made);
    }while( made==outsz );
  }
  goto done;
fail:
  strcpy(err, sq_dz_error(z));
done:
  sq_dz_free(z);
  free(out);
  return o;
}

static int same(const Buf *a, const unsigned char *p, size_t n){
  return a->n==n && (n==0 || memcmp(a->b, p, n)==0);
}

static void test_detect(void){
  SQ_CHECK(sq_dz_detect("\x1f\x8b", 2, 0)==SQ_DZ_GZIP);
  SQ_CHECK(sq_dz_detect("\x28\xb5\x2f\xfd", 4, 0)==SQ_DZ_ZSTD);
  SQ_CHECK(sq_dz_detect("\x1f", 1, 0)==SQ_DZ_AUTO);
  SQ_CHECK(sq_dz_detect("\x1f", 1, 1)==SQ_DZ_PLAIN);
  SQ_CHECK(sq_dz_detect("\x28\xb5\x2f", 3, 0)==SQ_DZ_AUTO);
  SQ_CHECK(sq_dz_detect("\x28\xb5x", 3, 0)==SQ_DZ_PLAIN);
  SQ_CHECK(sq_dz_detect("id,", 3, 0)==SQ_DZ_PLAIN);
  SQ_CHECK(sq_dz_detect("", 0, 0)==SQ_DZ_AUTO);
  SQ_CHECK(sq_dz_detect("", 0, 1)==SQ_DZ_PLAIN);
}

/* Plain input through SQ_DZ_AUTO, a short one that begins like a magic
** number among them. */
static void test_plain_through_auto(void){
  static const char *ins[] = {"", "\x1f", "\x28\xb5\x2f", "(", "id,name\n1,a\n"};
  char err[256];
  size_t i, step;
  for(i=0; i<sizeof ins/sizeof ins[0]; i++){
    size_t n = strlen(ins[i]);
    for(step=1; step<=4; step++){
      Buf o = run(SQ_DZ_AUTO, (const unsigned char*)ins[i], n, step, 3, err);
      SQ_CHECK_MSG(err[0]==0 && same(&o, (const unsigned char*)ins[i], n), "input %zu step %zu: %s", i, step, err);
      free(o.b);
    }
  }
}

static unsigned char *sample(size_t n){
  unsigned char *p = malloc(n);
  size_t i;
  unsigned x = 12345;
  for(i=0; i<n; i++){
    x = x*1103515245u + 12345u;
    /* text with repeats, so that matches span chunk ends */
    p[i] = (unsigned char)("id,title,done\n1,\"a, b\",true\n"[(x>>16) % 28]);
  }
  return p;
}

/* Every chunking of input and output gives the input back, for both
** formats, one member/frame and two concatenated (zstd with a skippable
** frame between). */
static void test_round_trip(void){
  size_t n = 3000, steps[] = {1, 2, 3, 7, 64, 100000}, outs[] = {1, 5, 4096};
  unsigned char *p = sample(n);
  Buf want = {0};
  Buf gz = gzip_of(p, n), zs = zstd_of(p, n);
  Buf gz2 = {0}, zs2 = {0};
  static const unsigned char skippable[] = {0x50,0x2a,0x4d,0x18, 3,0,0,0, 'x','y','z'};
  char err[256];
  size_t a, b;
  buf_add(&want, p, n); buf_add(&want, p, n);
  buf_add(&gz2, gz.b, gz.n); buf_add(&gz2, gz.b, gz.n);
  buf_add(&zs2, zs.b, zs.n); buf_add(&zs2, skippable, sizeof skippable); buf_add(&zs2, zs.b, zs.n);
  for(a=0; a<sizeof steps/sizeof steps[0]; a++){
    for(b=0; b<sizeof outs/sizeof outs[0]; b++){
      int kinds[] = {SQ_DZ_AUTO, SQ_DZ_GZIP};
      int k;
      for(k=0; k<2; k++){
        Buf o = run(kinds[k], gz.b, gz.n, steps[a], outs[b], err);
        SQ_CHECK_MSG(err[0]==0 && same(&o, p, n), "gzip step %zu out %zu: %s", steps[a], outs[b], err);
        free(o.b);
        o = run(kinds[k] ? SQ_DZ_ZSTD : SQ_DZ_AUTO, zs.b, zs.n, steps[a], outs[b], err);
        SQ_CHECK_MSG(err[0]==0 && same(&o, p, n), "zstd step %zu out %zu: %s", steps[a], outs[b], err);
        free(o.b);
      }
      {
        Buf o = run(SQ_DZ_AUTO, gz2.b, gz2.n, steps[a], outs[b], err);
        SQ_CHECK_MSG(err[0]==0 && same(&o, want.b, want.n), "gzip x2 step %zu: %s", steps[a], err);
        free(o.b);
        o = run(SQ_DZ_AUTO, zs2.b, zs2.n, steps[a], outs[b], err);
        SQ_CHECK_MSG(err[0]==0 && same(&o, want.b, want.n), "zstd x2 step %zu: %s", steps[a], err);
        free(o.b);
      }
    }
  }
  free(p); free(want.b); free(gz.b); free(zs.b); free(gz2.b); free(zs2.b);
}

/* Every prefix of two concatenated members is an error ("truncated",
** naming the format) unless it ends between the two. */
static void test_truncation(void){
  size_t n = 500, cut;
  unsigned char *p = sample(n);
  Buf gz = gzip_of(p, n), zs = zstd_of(p, n);
  Buf gz2 = {0}, zs2 = {0};
  char err[256];
  buf_add(&gz2, gz.b, gz.n); buf_add(&gz2, gz.b, gz.n);
  buf_add(&zs2, zs.b, zs.n); buf_add(&zs2, zs.b, zs.n);
  for(cut=1; cut<gz2.n; cut++){
    Buf o = run(SQ_DZ_AUTO, gz2.b, cut, 64, 4096, err);
    if( cut==gz.n ){
      SQ_CHECK_MSG(err[0]==0 && same(&o, p, n), "gzip cut at the member's end: %s", err);
    }else if( cut>=2 ){
      SQ_CHECK_MSG(strncmp(err, "gzip: ", 6)==0, "gzip cut %zu: '%s'", cut, err);
    }
    free(o.b);
  }
  for(cut=1; cut<zs2.n; cut++){
    Buf o = run(SQ_DZ_AUTO, zs2.b, cut, 64, 4096, err);
    if( cut==zs.n ){
      SQ_CHECK_MSG(err[0]==0 && same(&o, p, n), "zstd cut at the frame's end: %s", err);
    }else if( cut>=4 ){
      SQ_CHECK_MSG(strncmp(err, "zstd: truncated", 15)==0, "zstd cut %zu: '%s'", cut, err);
    }
    free(o.b);
  }
  {
    Buf o = run(SQ_DZ_AUTO, gz.b, gz.n-3, 1000, 4096, err);
    char want[100];
    snprintf(want, sizeof want, "gzip: truncated: the input ends inside a member after %zu compressed bytes", gz.n-3);
    SQ_CHECK_STR(err, want);
    free(o.b);
  }
  free(p); free(gz.b); free(zs.b); free(gz2.b); free(zs2.b);
}

/* Corrupt data: an error naming the format and an offset; never a crash. */
static void test_corruption(void){
  size_t n = 2000, i;
  unsigned char *p = sample(n);
  Buf gz = gzip_of(p, n), zs = zstd_of(p, n);
  char err[256];
  Buf o;
  gz.b[12] ^= 0xff;                 /* inside the first deflate block */
  o = run(SQ_DZ_AUTO, gz.b, gz.n, 100, 4096, err);
  SQ_CHECK_MSG(strncmp(err, "gzip: corrupt data after ", 25)==0, "'%s'", err);
  free(o.b);
  gz.b[12] ^= 0xff;
  gz.b[gz.n-5] ^= 1;                /* the CRC-32 */
  o = run(SQ_DZ_AUTO, gz.b, gz.n, 100, 4096, err);
  SQ_CHECK_MSG(strstr(err, "gzip: corrupt data") && strstr(err, "incorrect data check"), "'%s'", err);
  free(o.b);
  gz.b[gz.n-5] ^= 1;
  {
    /* a member followed by something else */
    Buf t = {0};
    buf_add(&t, gz.b, gz.n);
    buf_add(&t, "trailing", 8);
    o = run(SQ_DZ_AUTO, t.b, t.n, 100, 4096, err);
    SQ_CHECK_MSG(strncmp(err, "gzip: corrupt data", 18)==0, "'%s'", err);
    free(o.b); free(t.b);
  }
  for(i=4; i<zs.n; i+=7){
    zs.b[i] ^= 0x5a;
    o = run(SQ_DZ_AUTO, zs.b, zs.n, 50, 4096, err);
    SQ_CHECK_MSG(err[0]==0 ? same(&o, p, n) : strncmp(err, "zstd: ", 6)==0, "byte %zu: '%s'", i, err);
    free(o.b);
    zs.b[i] ^= 0x5a;
  }
  free(p); free(gz.b); free(zs.b);
}

/* sq_dz_crc32 is zlib's crc32 (the oracle) at every length, alignment and
** split: the carry-less path (64 bytes and more) and the table tail. */
static void test_crc32(void){
  size_t n, off, cut;
  unsigned char *p = sample(4200);
  for(n=0; n<=1100; n++){
    for(off=0; off<16; off+=5){
      uLong want = crc32(0, p+off, (uInt)n);
      SQ_CHECK_MSG(sq_dz_crc32(0, p+off, n)==(uint32_t)want, "n %zu off %zu", n, off);
    }
  }
  for(cut=0; cut<=4096; cut+=97){
    uLong want = crc32(0, p, 4096);
    SQ_CHECK_MSG(sq_dz_crc32(sq_dz_crc32(0, p, cut), p+cut, 4096-cut)==(uint32_t)want, "cut %zu", cut);
  }
  SQ_CHECK(sq_dz_crc32(0, "123456789", 9)==0xCBF43926u);   /* the check value of CRC-32 */
  free(p);
}

/* A gzip member's trailer: any changed byte of the CRC-32 or the length,
** in the first or second member, at any chunking, is an error with zlib's
** words; the intact stream reads whole. */
static void test_trailer(void){
  size_t n = 5000, i, s;
  size_t steps[] = {1, 3, 8, 100, 100000};
  unsigned char *p = sample(n);
  Buf gz = gzip_of(p, n), two = {0};
  char err[256];
  buf_add(&two, gz.b, gz.n); buf_add(&two, gz.b, gz.n);
  for(s=0; s<sizeof steps/sizeof steps[0]; s++){
    for(i=0; i<8; i++){
      size_t at[2] = { gz.n-8+i, two.n-8+i };
      int m;
      for(m=0; m<2; m++){
        Buf *b = m ? &two : &gz;
        Buf o;
        b->b[at[m]] ^= 0x10;
        o = run(SQ_DZ_AUTO, b->b, b->n, steps[s], 4096, err);
        {
          /* seen where zlib sees it: after the CRC-32, or after the length */
          char want[120];
          snprintf(want, sizeof want, "gzip: corrupt data after %zu compressed bytes: %s",
                   at[m]-i + (i<4 ? 4 : 8), i<4 ? "incorrect data check" : "incorrect length check");
          SQ_CHECK_MSG(strcmp(err, want)==0, "member %d byte %zu step %zu: '%s'", m+1, i, steps[s], err);
        }
        free(o.b);
        b->b[at[m]] ^= 0x10;
      }
    }
  }
  free(p); free(gz.b); free(two.b);
}

/* A member whose header has a CRC-16 (FHCRC: gzip never writes one, gzip -t
** checks it): decoded when it matches, "header crc mismatch" when it does not,
** as the first member and as the second, at every step size. */
static void test_header_crc(void){
  size_t n = 3000, s, steps[] = {1, 2, 11, 12, 13, 100000};
  unsigned char *p = sample(n);
  Buf gz = gzip_of(p, n), good = {0}, bad = {0}, second = {0};
  unsigned char head[12];
  uLong c;
  char err[256];
  memcpy(head, gz.b, 10);
  head[3] |= 0x02;                                  /* FHCRC */
  c = crc32(0, head, 10);
  head[10] = (unsigned char)(c & 0xff);
  head[11] = (unsigned char)((c >> 8) & 0xff);
  buf_add(&good, head, 12); buf_add(&good, gz.b+10, gz.n-10);
  head[11] ^= 0x40;
  buf_add(&bad, head, 12); buf_add(&bad, gz.b+10, gz.n-10);
  buf_add(&second, gz.b, gz.n); buf_add(&second, bad.b, bad.n);
  for(s=0; s<sizeof steps/sizeof steps[0]; s++){
    Buf o = run(SQ_DZ_AUTO, good.b, good.n, steps[s], 4096, err);
    SQ_CHECK_MSG(err[0]==0 && same(&o, p, n), "FHCRC good, step %zu: '%s'", steps[s], err);
    free(o.b);
    o = run(SQ_DZ_AUTO, bad.b, bad.n, steps[s], 4096, err);
    SQ_CHECK_MSG(strcmp(err, "gzip: corrupt data after 12 compressed bytes: header crc mismatch")==0 && o.n==0,
                 "FHCRC bad, step %zu: '%s', %zu bytes out", steps[s], err, o.n);
    free(o.b);
    o = run(SQ_DZ_AUTO, second.b, second.n, steps[s], 4096, err);
    {
      char want[120];
      snprintf(want, sizeof want, "gzip: corrupt data after %zu compressed bytes: header crc mismatch", gz.n+12);
      SQ_CHECK_MSG(strcmp(err, want)==0 && o.n<=n, "FHCRC bad second member, step %zu: '%s'", steps[s], err);
    }
    free(o.b);
  }
  free(gz.b); free(good.b); free(bad.b); free(second.b);
  /* Members with no data: the header's read may take the whole member. */
  {
    Buf empty = gzip_of(p, 0), two = {0};
    buf_add(&two, empty.b, empty.n); buf_add(&two, empty.b, empty.n);
    for(s=1; s<=two.n; s++){
      Buf o = run(SQ_DZ_AUTO, two.b, two.n, s, 7, err);
      SQ_CHECK_MSG(err[0]==0 && o.n==0, "two empty members, step %zu: '%s'", s, err);
      free(o.b);
    }
    free(empty.b); free(two.b);
  }
  free(p);
}

/* sq_file reads compressed files decompressed and names a corrupt one's
** format and offset (run with and without the read-ahead thread:
** STREAMQLITE_THREADS=2 and 0, since the file is under the size that
** starts it by itself). */
static void test_sq_file(void){
  sqlite3 *db;
  char path[] = "/tmp/sq_test_dzXXXXXX";
  size_t n = 200000;
  unsigned char *p = sample(n);
  Buf forms[2];
  int i, fd;
  sqlite3_open(":memory:", &db);
  forms[0] = gzip_of(p, n);
  forms[1] = zstd_of(p, n);
  for(i=0; i<2; i++){
    sq_file f;
    char *why = 0;
    int rc;
    Buf got = {0};
    static unsigned char chunk[300000];   /* larger than sq_file's own reads */
    sqlite3_int64 k;
    fd = mkstemp(path);
    SQ_CHECK(write(fd, forms[i].b, forms[i].n)==(ssize_t)forms[i].n);
    close(fd);
    SQ_CHECK(sq_file_open(&f, db, path, &why)==SQLITE_OK);
    while( (k = sq_file_read(&f, chunk, sizeof chunk, &rc, &why))>0 ) buf_add(&got, chunk, (size_t)k);
    SQ_CHECK_MSG(k==0 && same(&got, p, n), "%s: %s", i ? "zstd" : "gzip", why ? why : "");
    sq_file_close(&f);
    /* truncated */
    fd = open(path, O_WRONLY|O_TRUNC);
    SQ_CHECK(write(fd, forms[i].b, forms[i].n/2)==(ssize_t)(forms[i].n/2));
    close(fd);
    SQ_CHECK(sq_file_open(&f, db, path, &why)==SQLITE_OK);
    while( (k = sq_file_read(&f, chunk, sizeof chunk, &rc, &why))>0 ){}
    SQ_CHECK(k<0 && rc==SQLITE_ERROR && why && strstr(why, i ? "zstd: " : "gzip: ") && strstr(why, "compressed bytes"));
    sqlite3_free(why);
    sq_file_close(&f);
    unlink(path);
    strcpy(path, "/tmp/sq_test_dzXXXXXX");
    free(got.b); free(forms[i].b);
  }
  free(p);
  sqlite3_close(db);
}

/* A pipe that sends the start of a gzip member and stalls: the reader gets
** the bytes decoded so far, and closing while the read-ahead thread waits
** on the pipe returns within a wait slice (the thread is stopped and joined). */
static void test_stalled_pipe_close(void){
  size_t n = 100000;
  unsigned char *p = sample(n);
  Buf gz = gzip_of(p, n);
  int fds[2];
  char path[64];
  sq_file f;
  char *why = 0;
  int rc;
  unsigned char chunk[4096];
  long long k, got = 0;
  struct timespec t0, t1;
  SQ_CHECK(pipe(fds)==0);
  SQ_CHECK(write(fds[1], gz.b, gz.n/2)==(ssize_t)(gz.n/2));
  snprintf(path, sizeof path, "/proc/self/fd/%d", fds[0]);
  SQ_CHECK(sq_file_open(&f, 0, path, &why)==SQLITE_OK);
  while( got<1000 && (k = sq_file_read(&f, chunk, sizeof chunk, &rc, &why))>0 ) got += k;
  SQ_CHECK(got>=1000 && memcmp(chunk, p+got-k, (size_t)k)==0);
  clock_gettime(CLOCK_MONOTONIC, &t0);
  sq_file_close(&f);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  SQ_CHECK_MSG((t1.tv_sec-t0.tv_sec)*1000 + (t1.tv_nsec-t0.tv_nsec)/1000000 < 1000, "close took too long");
  close(fds[0]);
  close(fds[1]);
  free(p); free(gz.b);
}

/* A regular file truncated while it is read: an error saying so, not a
** short input taken for the whole file (plain and compressed). */
static void test_shrinking_file(void){
  size_t n = 300000;
  unsigned char *p = sample(n);
  Buf gz = gzip_of(p, n);
  int form;
  for(form=0; form<2; form++){
    char path[] = "/tmp/sq_test_shrinkXXXXXX";
    int fd = mkstemp(path);
    const unsigned char *b = form ? gz.b : p;
    size_t nb = form ? gz.n : n;
    sq_file f;
    char *why = 0;
    int rc = SQLITE_OK;
    unsigned char chunk[4096];
    long long k, got = 0;
    SQ_CHECK(write(fd, b, nb)==(ssize_t)nb);
    SQ_CHECK(sq_file_open(&f, 0, path, &why)==SQLITE_OK);
    k = sq_file_read(&f, chunk, sizeof chunk, &rc, &why);
    SQ_CHECK(k>0);
    SQ_CHECK(ftruncate(fd, (off_t)(nb*2/3))==0);
    while( (k = sq_file_read(&f, chunk, sizeof chunk, &rc, &why))>0 ) got += k;
    SQ_CHECK_MSG(k<0 && rc==SQLITE_ERROR && why && strstr(why, "the file shrank while it was read"),
                 "%s: k=%lld rc=%d why=%s", form ? "gzip" : "plain", k, rc, why ? why : "(none)");
    sqlite3_free(why);
    sq_file_close(&f);
    close(fd);
    unlink(path);
  }
  free(p); free(gz.b);
}

int main(void){
  test_detect();
  test_plain_through_auto();
  test_round_trip();
  test_truncation();
  test_corruption();
  test_crc32();
  test_trailer();
  test_header_crc();
  setenv("STREAMQLITE_THREADS", "2", 1);
  test_sq_file();
  setenv("STREAMQLITE_THREADS", "0", 1);
  test_sq_file();
  unsetenv("STREAMQLITE_THREADS");
  test_stalled_pipe_close();
  test_shrinking_file();
  return sq_test_done("test_decompress");
}
