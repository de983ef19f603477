/*
** sq_test.h — a tiny assertion helper for StreamQLite's C unit tests.
**
**   #include "sq_test.h"
**   int main(void){
**     SQ_CHECK(1+1==2);
**     SQ_CHECK_STR(got, "2011-02");
**     return sq_test_done("test_week");   // prints "test_week: N passed, N failed"
**   }
*/
#ifndef SQ_TEST_H
#define SQ_TEST_H
#include <stdio.h>
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

static int sq_test_done(const char *name){
  printf("%s: %d passed, %d failed\n", name, sq_test_passed, sq_test_failed);
  return sq_test_failed ? 1 : 0;
}
#endif
