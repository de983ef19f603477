/*
** libstreamqlite-preload.so: the extension's functions in every SQLite connection a
** process opens, without the process loading anything itself.
**
** For programs that open their own connections and offer no way to load an extension:
** a dqlite node (dqlite-demo, an app built on go-dqlite or libdqlite) is the one this
** is made for (docs/cluster.md):
**
**     LD_PRELOAD=build/libstreamqlite-preload.so dqlite-demo --db 127.0.0.1:9001 …
**
** The library defines sqlite3_open_v2() and sqlite3_open(), which the program's own
** calls reach first (the preloaded library comes first in symbol lookup). The first
** call registers the entry point with sqlite3_auto_extension(), so SQLite runs it on
** that connection and every later one, then each call goes on to SQLite's own function.
** Registering at the first open, not when the library is loaded, matters: the
** registration initializes SQLite, after which sqlite3_config() fails, and go-dqlite
** calls sqlite3_config(SQLITE_CONFIG_SINGLETHREAD) when it starts (it panics with "set
** single thread mode: bad parameter or other API misuse" otherwise).
**
** The library holds the extension's sources compiled with SQLITE_CORE, linked to the
** system's libsqlite3 (the one the program uses: Debian's dqlite links it too).
**
** STREAMQLITE_PRELOAD chooses the entry point:
**   unset or "noread"  sqlite3_streamqlite_noread_init: everything except json_stream
**                      and csv_stream. The default, since a database node runs SQL
**                      that clients send over the network.
**   "all"              sqlite3_streamqlite_init: also the file readers, which then
**                      read files of the machine where the statement runs (a dqlite
**                      cluster's leader).
** Any other value stops the program at start with a message naming it, rather than
** running without the functions.
*/
#include <sqlite3.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "streamqlite.h"

typedef int (*sq_entry_fn)(sqlite3*, char**, const sqlite3_api_routines*);
static sq_entry_fn sq_entry;
static pthread_once_t sq_once = PTHREAD_ONCE_INIT;

/* Reads STREAMQLITE_PRELOAD when the library is loaded, so a wrong value stops the
** program at once; touches nothing of SQLite. */
__attribute__((constructor))
static void sq_preload_choose(void){
  const char *mode = getenv("STREAMQLITE_PRELOAD");
  if( mode==0 || mode[0]==0 || strcmp(mode, "noread")==0 ){
    sq_entry = sqlite3_streamqlite_noread_init;
  }else if( strcmp(mode, "all")==0 ){
    sq_entry = sqlite3_streamqlite_init;
  }else{
    fprintf(stderr, "libstreamqlite-preload: STREAMQLITE_PRELOAD must be 'noread' "
                    "(the default) or 'all', got '%.100s'\n", mode);
    exit(2);
  }
}

static void sq_preload_register(void){
  int rc = sqlite3_auto_extension((void(*)(void))sq_entry);
  if( rc!=SQLITE_OK ){
    fprintf(stderr, "libstreamqlite-preload: sqlite3_auto_extension failed: %s\n",
            sqlite3_errstr(rc));
    exit(2);
  }
}

int sqlite3_open_v2(const char *zFilename, sqlite3 **ppDb, int flags, const char *zVfs){
  static int (*real)(const char*, sqlite3**, int, const char*);
  pthread_once(&sq_once, sq_preload_register);
  if( real==0 ) *(void**)&real = dlsym(RTLD_NEXT, "sqlite3_open_v2");
  return real(zFilename, ppDb, flags, zVfs);
}

int sqlite3_open(const char *zFilename, sqlite3 **ppDb){
  static int (*real)(const char*, sqlite3**);
  pthread_once(&sq_once, sq_preload_register);
  if( real==0 ) *(void**)&real = dlsym(RTLD_NEXT, "sqlite3_open");
  return real(zFilename, ppDb);
}
