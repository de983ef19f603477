/*
** fuzz_common.h — what the libFuzzer harnesses (Extension/fuzz/fuzz_*.c) share.
**
** - rec_add(r, p, n): appends n bytes to a growable record of events, any struct
**   whose first members are `unsigned char *b; size_t n, cap;` (the harnesses
**   record what a parser emits for the whole input and for the same input cut
**   into pieces, and compare the two records byte for byte);
** - split_args(data, size, args, lens, max): the input as '\n'-separated arguments;
** - valid_utf8(s, n): a reference UTF-8 check (RFC 3629: no overlongs, no
**   surrogates, nothing above U+10FFFF) written independently of the
**   extension's own validator (sq_utf8_valid in sq_text.c), so that a bug there
**   is an oracle disagreement here, not a shared blind spot.
*/
#ifndef FUZZ_COMMON_H
#define FUZZ_COMMON_H
#include <stdlib.h>
#include <string.h>

static void fz_append(unsigned char **b, size_t *n, size_t *cap, const void *p, size_t k){
  if( *n+k>*cap ){
    *cap = (*n+k)*2 + 64;
    *b = realloc(*b, *cap);
    if( !*b ) abort();
  }
  if( k ) memcpy(*b+*n, p, k);
  *n += k;
}
#define rec_add(r, p, k) fz_append(&(r)->b, &(r)->n, &(r)->cap, (p), (k))

/* Splits data on '\n' into at most `max` arguments (pointers into data, lengths);
** arguments the input does not reach keep their defaults. */
static void split_args(const unsigned char *data, size_t size, const char **args, int *lens, int max){
  size_t i, start = 0;
  int na = 0;
  for(i = 0; i <= size && na < max; i++){
    if( i == size || data[i] == '\n' ){
      args[na] = (const char*)data + start;
      lens[na] = (int)(i - start);
      na++;
      start = i + 1;
    }
  }
}

static int valid_utf8(const unsigned char *s, size_t n){
  size_t i = 0;
  while( i<n ){
    unsigned c = s[i];
    size_t k, j;
    unsigned cp;
    if( c<0x80 ){ i++; continue; }
    if( c>=0xC2 && c<=0xDF ){ k = 1; cp = c&0x1F; }
    else if( c>=0xE0 && c<=0xEF ){ k = 2; cp = c&0x0F; }
    else if( c>=0xF0 && c<=0xF4 ){ k = 3; cp = c&0x07; }
    else return 0;
    if( i+k>=n ) return 0;
    for(j=1; j<=k; j++){
      if( (s[i+j]&0xC0)!=0x80 ) return 0;
      cp = (cp<<6) | (s[i+j]&0x3F);
    }
    if( (k==2 && cp<0x800) || (k==3 && cp<0x10000) || cp>0x10FFFF
        || (cp>=0xD800 && cp<=0xDFFF) ) return 0;
    i += k+1;
  }
  return 1;
}
#endif
