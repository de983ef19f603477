/*
** fuzz_tzif.c — libFuzzer harness for the TZif reader (sq_tzif.c).
**
** The input is parsed as a TZif image (sq_tzif_parse, what sq_tzif_open
** runs on a zone file's bytes) and, from its first newline on, as a POSIX TZ
** string (sq_tzif_parse_posix, the footer rule).  A refused image must come
** with a reason; an accepted one must answer sq_tzif_offset at instants
** across its whole range (years -31,000..31,000, transitions, the footer's
** years) with offsets within RFC 8536's bounds, and refuse instants beyond
** +-10^12 s.  Seeds: real zone files (Extension/fuzz/corpus/fuzz_tzif).
*/
#include "sq_internal.h"
#include "sq_tzif.h"

#include <sqlite3.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static void probe(const sq_tzif *z, uint64_t seed){
  static const int64_t fixed[] = {
    -1000000000000LL, -62135596800LL, -2208988800LL, -1, 0, 1, 946684800LL, 1700000000LL,
    2147483647LL, 2147483648LL, 4102444800LL, 253402300799LL, 1000000000000LL
  };
  size_t i;
  int32_t off;
  for(i = 0; i < sizeof fixed / sizeof fixed[0]; i++){
    if( !sq_tzif_offset(z, fixed[i], &off) || off < -89999 - 24 * 3600 || off > 93599 + 24 * 3600 ) abort();
  }
  for(i = 0; i < 64; i++){
    int64_t t;
    seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
    t = (int64_t)(seed >> 24) % 1000000000000LL;
    if( !sq_tzif_offset(z, t, &off) || off < -89999 - 24 * 3600 || off > 93599 + 24 * 3600 ) abort();
  }
  if( sq_tzif_offset(z, 1000000000001LL, &off) || sq_tzif_offset(z, -1000000000001LL, &off) ) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size){
  char *err = 0;
  sq_tzif *z = sq_tzif_parse(data, size, &err);
  uint64_t seed = size;
  const uint8_t *nl;
  size_t i;
  for(i = 0; i < size && i < 64; i++) seed = seed * 131 + data[i];
  if( z ){
    if( err ) abort();
    probe(z, seed);
    sq_tzif_free(z);
  }else if( !err || !err[0] ){
    abort();   /* NULL without a reason (no allocation fails here) */
  }
  sqlite3_free(err);
  nl = size ? memchr(data, '\n', size) : 0;
  if( nl ){
    const char *s = (const char*)nl + 1;
    size_t n = size - (size_t)(nl + 1 - data);
    const char *e = memchr(s, '\n', n);
    if( e ) n = (size_t)(e - s);
    z = sq_tzif_new();
    if( !z ) abort();
    if( sq_tzif_parse_posix(s, n, z) ){
      /* std offsets 0..24 h, DST rule times within +-167 h: the offsets stay within 25 h */
      int32_t off;
      for(i = 0; i < 16; i++){
        seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
        if( !sq_tzif_offset(z, (int64_t)(seed >> 24) % 100000000000LL, &off)
            || off < -25 * 3600 || off > 25 * 3600 ) abort();
      }
    }
    sq_tzif_free(z);
  }
  return 0;
}
