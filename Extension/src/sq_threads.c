/*
** sq_threads.c — the one rule for a second thread (sq_threads.h, the
** manual): STREAMQLITE_THREADS, the CPUs online, and the size of an input
** worth a thread.
*/
#include "sq_internal.h"
#include "sq_threads.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* STREAMQLITE_THREADS: 0 (never a worker), 2 (always), else -1 (the rule;
** any other value is refused when the extension loads). */
static int pipe_threads_env(void){
  const char *env = getenv("STREAMQLITE_THREADS");
  if( env && strcmp(env, "0")==0 ) return 0;
  if( env && strcmp(env, "2")==0 ) return 2;
  return -1;
}

const char *sq_pipe_threads_env_error(void){
  const char *env = getenv("STREAMQLITE_THREADS");
  if( !env || env[0]==0 || strcmp(env, "0")==0 || strcmp(env, "2")==0 ) return 0;
  return "it must be 0 (read on the query's thread), 2 (a second thread for every scan), "
         "or unset (a second thread when it is worth it)";
}

/* The CPUs online, counted once (sysconf reads a file under /sys each
** time: a scan of a small file would pay it). */
static long pipe_cpus(void){
  static long n;
  long k = __atomic_load_n(&n, __ATOMIC_RELAXED);
  if( k==0 ){
    k = sysconf(_SC_NPROCESSORS_ONLN);
    if( k<1 ) k = 1;
    __atomic_store_n(&n, k, __ATOMIC_RELAXED);
  }
  return k;
}

int sq_pipe_worth_it(void){
  int env = pipe_threads_env();
  if( env>=0 ) return env!=0 && sqlite3_threadsafe()!=0;
  return pipe_cpus()>1 && sqlite3_threadsafe()!=0;
}

int sq_pipe_worth_it_scan(long long size, int rescan){
  if( !sq_pipe_worth_it() ) return 0;
  if( pipe_threads_env()==2 ) return 1;
  return !rescan && (size<0 || size>=SQ_PIPE_MIN_INPUT);
}

int sq_pipe_worth_it_for(long long size){
  return sq_pipe_worth_it_scan(size, 0);
}

long long sq_pipe_input_size(char *const *paths, int n){
  long long sum = 0;
  int i;
  for(i=0; i<n && sum<SQ_PIPE_MIN_INPUT; i++){
    struct stat st;
    if( stat(paths[i], &st)!=0 ) continue;
    if( !S_ISREG(st.st_mode) ) return -1;
    sum += (long long)st.st_size;
  }
  return sum;
}
