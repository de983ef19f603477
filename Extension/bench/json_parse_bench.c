/*
** json_parse_bench.c — benchmark helpers for bench-json.sh.
**
**   json_parse_bench gen N FILE [ndjson]   write N task objects
**        {"id":…,"title":"…","done":…} as a JSON array (or NDJSON)
**   json_parse_bench parse FILE REPS       parse FILE with sq_json and with
**        YAJL's event parser (yajl_parse with callbacks), both fed the
**        same 64 KiB chunks from memory; REPS alternating runs each;
**        prints median MB/s of each and the ratio
**   json_parse_bench insert N DB           the insert ceiling: prepares one
**        INSERT INTO tasks and binds N generated rows (no JSON at all)
**   json_parse_bench big SIZE_MB FILE      write a JSON array of tasks of at
**        least SIZE_MB megabytes, streamed (for the memory check)
**
** Built by bench-json.sh with -DSQLITE_CORE against the system libsqlite3
** and -lyajl.
*/
#include "sq_internal.h"
#include "sq_json.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <yajl/yajl_parse.h>

static double now(void){
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec/1e9;
}

static int write_task(char *b, long i){
  return sprintf(b, "{\"id\":%ld,\"title\":\"task %ld\",\"done\":%s}",
                 i, i, (i%3==0) ? "true" : "false");
}

static int gen(long n, const char *path, int ndjson, double min_mb){
  FILE *f = fopen(path, "wb");
  char b[256];
  long i;
  double bytes = 0;
  if( !f ){ perror(path); return 1; }
  setvbuf(f, 0, _IOFBF, 1<<20);
  if( !ndjson ) fputs("[\n", f);
  for(i=1; min_mb>0 ? bytes<min_mb*1e6 : i<=n; i++){
    int k = write_task(b, i);
    if( !ndjson && i>1 ) fputs(",\n", f);
    fwrite(b, 1, (size_t)k, f);
    if( ndjson ) fputc('\n', f);
    bytes += k+2;
  }
  if( !ndjson ) fputs("\n]\n", f);
  fclose(f);
  return 0;
}

/* ---- sq_json */
static long sq_events;
static int sq_cb(void *u, const sq_json_token *t){
  (void)u; (void)t;
  sq_events++;
  return SQ_JSON_CONTINUE;
}
static double run_sq(const unsigned char *doc, size_t n){
  sq_json_parser *p = sq_json_new(sq_cb, 0);
  size_t pos = 0;
  double t0 = now();
  sq_events = 0;
  while( pos<n ){
    size_t k = n-pos < 65536 ? n-pos : 65536;
    if( sq_json_feed(p, doc+pos, k)!=SQ_JSON_OK ){ fprintf(stderr, "sq_json: %s\n", sq_json_error_info(p)->message); exit(1); }
    pos += k;
  }
  if( sq_json_finish(p)!=SQ_JSON_OK ){ fprintf(stderr, "sq_json finish failed\n"); exit(1); }
  t0 = now()-t0;
  sq_json_free(p);
  return t0;
}

/* ---- YAJL */
static long y_events;
static int y_null(void *c){ (void)c; y_events++; return 1; }
static int y_bool(void *c, int b){ (void)c; (void)b; y_events++; return 1; }
static int y_number(void *c, const char *s, size_t l){ (void)c; (void)s; (void)l; y_events++; return 1; }
static int y_string(void *c, const unsigned char *s, size_t l){ (void)c; (void)s; (void)l; y_events++; return 1; }
static int y_start_map(void *c){ (void)c; y_events++; return 1; }
static int y_map_key(void *c, const unsigned char *s, size_t l){ (void)c; (void)s; (void)l; y_events++; return 1; }
static int y_end_map(void *c){ (void)c; y_events++; return 1; }
static int y_start_array(void *c){ (void)c; y_events++; return 1; }
static int y_end_array(void *c){ (void)c; y_events++; return 1; }
/* yajl_number (raw literal) is given, so integer/double callbacks are unused:
** the same work as sq_json, which hands on the literal. */
static yajl_callbacks ycb = {
  y_null, y_bool, 0, 0, y_number, y_string,
  y_start_map, y_map_key, y_end_map, y_start_array, y_end_array
};
static double run_yajl(const unsigned char *doc, size_t n){
  yajl_handle h = yajl_alloc(&ycb, 0, 0);
  size_t pos = 0;
  double t0 = now();
  y_events = 0;
  yajl_config(h, yajl_dont_validate_strings, 0);   /* validate UTF-8, like sq_json */
  while( pos<n ){
    size_t k = n-pos < 65536 ? n-pos : 65536;
    if( yajl_parse(h, doc+pos, k)!=yajl_status_ok ){ fprintf(stderr, "yajl error\n"); exit(1); }
    pos += k;
  }
  if( yajl_complete_parse(h)!=yajl_status_ok ){ fprintf(stderr, "yajl error\n"); exit(1); }
  t0 = now()-t0;
  yajl_free(h);
  return t0;
}

static int dcmp(const void *a, const void *b){
  double x = *(const double*)a, y = *(const double*)b;
  return x<y ? -1 : x>y;
}

static int parse(const char *path, int reps){
  FILE *f = fopen(path, "rb");
  unsigned char *doc;
  long n;
  double ts[64], ty[64], ms, my;
  int i;
  if( !f ){ perror(path); return 1; }
  fseek(f, 0, SEEK_END); n = ftell(f); fseek(f, 0, SEEK_SET);
  doc = malloc((size_t)n);
  if( fread(doc, 1, (size_t)n, f)!=(size_t)n ){ perror("read"); return 1; }
  fclose(f);
  if( reps>64 ) reps = 64;
  for(i=0; i<reps; i++){
    ts[i] = run_sq(doc, (size_t)n);
    ty[i] = run_yajl(doc, (size_t)n);
  }
  if( sq_events!=y_events ){
    fprintf(stderr, "event counts differ: sq_json %ld, yajl %ld\n", sq_events, y_events);
    return 1;
  }
  qsort(ts, (size_t)reps, sizeof(double), dcmp);
  qsort(ty, (size_t)reps, sizeof(double), dcmp);
  ms = ts[reps/2]; my = ty[reps/2];
  printf("parser   file %.1f MB, %ld events, %d runs each, 64 KiB chunks, medians\n", n/1e6, sq_events, reps);
  printf("  %-10s %8.1f ms  %8.1f MB/s\n", "sq_json", ms*1e3, n/1e6/ms);
  printf("  %-10s %8.1f ms  %8.1f MB/s\n", "yajl", my*1e3, n/1e6/my);
  printf("  sq_json / yajl speed: %.2fx\n", my/ms);
  free(doc);
  return 0;
}

static int insert(long n, const char *dbpath){
  sqlite3 *db;
  sqlite3_stmt *st;
  char title[64];
  long i;
  double t0;
  if( sqlite3_open(dbpath, &db) ) return 1;
  sqlite3_exec(db, "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;"
                   "DROP TABLE IF EXISTS tasks;"
                   "CREATE TABLE tasks(id INTEGER PRIMARY KEY, title TEXT, done INTEGER);", 0, 0, 0);
  t0 = now();
  sqlite3_exec(db, "BEGIN", 0, 0, 0);
  if( sqlite3_prepare_v2(db, "INSERT INTO tasks(id,title,done) VALUES(?,?,?)", -1, &st, 0) ) return 1;
  for(i=1; i<=n; i++){
    int k = sprintf(title, "task %ld", i);
    sqlite3_bind_int64(st, 1, i);
    sqlite3_bind_text(st, 2, title, k, SQLITE_TRANSIENT);
    sqlite3_bind_int(st, 3, i%3==0);
    if( sqlite3_step(st)!=SQLITE_DONE ){ fprintf(stderr, "%s\n", sqlite3_errmsg(db)); return 1; }
    sqlite3_reset(st);
  }
  sqlite3_finalize(st);
  sqlite3_exec(db, "COMMIT", 0, 0, 0);
  printf("%.3f\n", now()-t0);
  sqlite3_close(db);
  return 0;
}

int main(int argc, char **argv){
  if( argc>=4 && strcmp(argv[1], "gen")==0 ) return gen(atol(argv[2]), argv[3], argc>4, 0);
  if( argc>=4 && strcmp(argv[1], "big")==0 ) return gen(0, argv[3], 0, atof(argv[2]));
  if( argc>=4 && strcmp(argv[1], "parse")==0 ) return parse(argv[2], atoi(argv[3]));
  if( argc>=4 && strcmp(argv[1], "insert")==0 ) return insert(atol(argv[2]), argv[3]);
  fprintf(stderr, "usage: see the header comment of json_parse_bench.c\n");
  return 2;
}
