/*
** sq_test.h — a tiny assertion helper for StreamQLite's C unit tests.
**
**   #include "sq_test.h"
**   int main(void){
**     SQ_CHECK(1+1==2);
**     SQ_CHECK_STR(got, "2011-02");
**     return sq_test_done("test_week");   // prints "test_week: N passed, N failed"
**   }
**
** Event logs: tests record what a parser or driver emits as text and compare
** logs (whole input against the same input cut into pieces, or against the
** expected text). log_add(l, bytes, n) and log_printf(l, fmt, ...) append to
** any struct whose first members are `char *s; size_t n, cap;` (s stays
** NUL-terminated).
*/
#ifndef SQ_TEST_H
#define SQ_TEST_H
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int sq_test_passed = 0, sq_test_failed = 0;

#define SQ_CHECK(cond) do{ if(cond){ sq_test_passed++; }else{ sq_test_failed++; \
  fprintf(stderr, "%s:%d: FAIL: %s\n", __FILE__, __LINE__, #cond); } }while(0)

#define SQ_CHECK_MSG(cond, ...) do{ if(cond){ sq_test_passed++; }else{ sq_test_failed++; \
  fprintf(stderr, "%s:%d: FAIL: %s: ", __FILE__, __LINE__, #cond); \
  fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); } }while(0)

#define SQ_CHECK_STR(got, want) do{ const char *g_=(got), *w_=(want); \
  if(g_ && w_ && strcmp(g_,w_)==0){ sq_test_passed++; }else{ sq_test_failed++; \
  fprintf(stderr, "%s:%d: FAIL: %s: got '%s', want '%s'\n", __FILE__, __LINE__, \
          #got, g_?g_:"(null)", w_?w_:"(null)"); } }while(0)

static inline void sq_test_log_add(char **s, size_t *n, size_t *cap, const char *b, size_t k){
  if( *n+k+1>*cap ){
    *cap = (*n+k+1)*2;
    *s = realloc(*s, *cap);
    if( !*s ){ fprintf(stderr, "out of memory\n"); exit(2); }
  }
  if( k ) memcpy(*s+*n, b, k);
  *n += k;
  (*s)[*n] = 0;
}
static inline void sq_test_log_printf(char **s, size_t *n, size_t *cap, const char *fmt, ...){
  char b[512];
  va_list ap;
  int k;
  va_start(ap, fmt);
  k = vsnprintf(b, sizeof b, fmt, ap);
  va_end(ap);
  if( k<0 ) k = 0;
  sq_test_log_add(s, n, cap, b, (size_t)k < sizeof b ? (size_t)k : sizeof b - 1);
}
#define log_add(l, b, k) sq_test_log_add(&(l)->s, &(l)->n, &(l)->cap, (b), (k))
#define log_printf(l, ...) sq_test_log_printf(&(l)->s, &(l)->n, &(l)->cap, __VA_ARGS__)

static int sq_test_done(const char *name){
  printf("%s: %d passed, %d failed\n", name, sq_test_passed, sq_test_failed);
  return sq_test_failed ? 1 : 0;
}
#endif
