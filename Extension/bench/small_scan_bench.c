/*
** small_scan_bench — what the typed tables' worker thread (sq_pipe.h) costs or
** gains for one scan of a small file: scans of csv_stream and json_stream
** typed tables over files of 1 KiB … 4 MiB (a count, and an INSERT … SELECT
** into a table emptied after each run), and the nested loop that re-scans a
** typed table for every row of an outer table of 100 rows (`a CROSS JOIN t`).
** Each case runs in turn, in one process, with the worker whatever the size
** (STREAMQLITE_THREADS=2), on one thread (=0) and by the rule
** (sq_pipe_worth_it_for: the variable unset), PAIRS times (default 31), each
** time enough runs for about 10 ms.
**
**   small_scan_bench EXT DIR [PAIRS]     (EXT: build/streamqlite.so)
**   small_scan_bench EXT DIR PAIRS gz    gzip'ed CSV files of 256 KiB … 8 MiB
**                                        (the insert; labelled by compressed KiB)
**   small_scan_bench EXT DIR PAIRS join  typed tables of 300 KiB … 8 MiB as the
**                                        inner loop of a join with 3 … 200 outer
**                                        rows (sq_pipe_worth_it_scan: a rescan
**                                        reads on the query's thread)
**   small_scan_bench EXT DIR PAIRS gzsmall  300 gzip'ed CSV files of 20 rows in
**                                        one csv_stream() call, and one of a
**                                        single row (sq_file's read-ahead thread:
**                                        the worker column forces it)
**
** Each line: the median wall and CPU time of one run with the worker and on
** one thread, and the medians of the rounds' ratios worker / one thread
** (below 1: the worker pays) and rule / one thread.
*/
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double clock_s(clockid_t id){
  struct timespec ts;
  clock_gettime(id, &ts);
  return (double)ts.tv_sec + ts.tv_nsec/1e9;
}

static int cmp_d(const void *a, const void *b){
  double x = *(const double*)a, y = *(const double*)b;
  return x<y ? -1 : x>y;
}
static double median(double *v, int n){
  qsort(v, (size_t)n, sizeof *v, cmp_d);
  return n%2 ? v[n/2] : (v[n/2-1]+v[n/2])/2;
}

/* A file of about `size` bytes: CSV with a header, or a JSON array. */
static void write_file(const char *path, long size, int json){
  FILE *f = fopen(path, "wb");
  long n = 0;
  int i;
  if( !f ){ perror(path); exit(1); }
  n += json ? fprintf(f, "[") : fprintf(f, "id,name,amount\n");
  for(i=0; n<size-40; i++){
    if( json ) n += fprintf(f, "%s{\"id\":%d,\"name\":\"name %d\",\"amount\":%d.25}", i ? ",\n" : "", i, i, i);
    else n += fprintf(f, "%d,name %d,%d.25\n", i, i, i);
  }
  if( json ) fprintf(f, "]\n");
  fclose(f);
}

static void exec_or_die(sqlite3 *db, const char *sql){
  char *err = 0;
  if( sqlite3_exec(db, sql, 0, 0, &err)!=SQLITE_OK ){ fprintf(stderr, "%s: %s\n", sql, err); exit(1); }
}

static sqlite3_stmt *clear;   /* DELETE FROM sink */

/* Runs st `reps` times (then empties sink); the wall and CPU seconds of one run. */
static void time_runs(sqlite3_stmt *st, int reps, double *wall, double *cpu){
  double w0 = clock_s(CLOCK_MONOTONIC), c0 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
  int r;
  for(r=0; r<reps; r++){
    while( sqlite3_step(st)==SQLITE_ROW ){}
    if( sqlite3_reset(st)!=SQLITE_OK ){ fprintf(stderr, "step failed\n"); exit(1); }
    sqlite3_step(clear);
    sqlite3_reset(clear);
  }
  *wall = (clock_s(CLOCK_MONOTONIC)-w0)/reps;
  *cpu = (clock_s(CLOCK_PROCESS_CPUTIME_ID)-c0)/reps;
}

static const char *ENV[3] = { "2", "0", 0 };   /* worker, one thread, the rule */

static void bench(sqlite3 *db, const char *label, const char *sql, int pairs){
  sqlite3_stmt *st = 0;
  double wall[3][128], cpu[3][128], ratio[128], rule[128], w, c;
  int reps = 1, p, k;
  if( sqlite3_prepare_v2(db, sql, -1, &st, 0)!=SQLITE_OK ){ fprintf(stderr, "%s\n", sqlite3_errmsg(db)); exit(1); }
  /* enough runs for about 10 ms (timed with the worker) */
  setenv("STREAMQLITE_THREADS", "2", 1);
  time_runs(st, 1, &w, &c);
  time_runs(st, 1, &w, &c);
  reps = (int)(0.01/w);
  if( reps<1 ) reps = 1;
  for(p=0; p<pairs; p++){
    for(k=0; k<3; k++){
      if( ENV[k] ) setenv("STREAMQLITE_THREADS", ENV[k], 1); else unsetenv("STREAMQLITE_THREADS");
      time_runs(st, reps, &wall[k][p], &cpu[k][p]);
    }
    ratio[p] = wall[0][p]/wall[1][p];
    rule[p] = wall[2][p]/wall[1][p];
  }
  printf("%-22s worker %9.1f us (cpu %9.1f)  one thread %9.1f us (cpu %9.1f)  worker/one %.2f  rule/one %.2f\n",
         label, median(wall[0], pairs)*1e6, median(cpu[0], pairs)*1e6, median(wall[1], pairs)*1e6,
         median(cpu[1], pairs)*1e6, median(ratio, pairs), median(rule, pairs));
  fflush(stdout);
  sqlite3_finalize(st);
}

int main(int argc, char **argv){
  static const long sizes[] = { 1024, 4096, 16384, 65536, 131072, 262144, 524288, 1048576, 4194304 };
  sqlite3 *db;
  char *err = 0;
  int pairs = argc>3 ? atoi(argv[3]) : 31, k, json;
  if( argc<3 ){ fprintf(stderr, "usage: small_scan_bench EXT DIR [PAIRS]\n"); return 2; }
  if( pairs<1 || pairs>128 ) pairs = 31;
  sqlite3_open(":memory:", &db);
  sqlite3_enable_load_extension(db, 1);
  if( sqlite3_load_extension(db, argv[1], "sqlite3_streamqlite_init", &err)!=SQLITE_OK ){ fprintf(stderr, "%s\n", err); return 1; }
  exec_or_die(db, "CREATE TABLE a(x INTEGER); WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i+1 FROM n WHERE i<99) "
                  "INSERT INTO a SELECT i FROM n;"
                  "CREATE TABLE sink(id INTEGER, name TEXT, amount REAL)");
  sqlite3_prepare_v2(db, "DELETE FROM sink", -1, &clear, 0);
  if( argc>4 && strcmp(argv[4], "join")==0 ){
    /* the typed table as a join's inner loop: outer rows a size (of a2's 200) */
    static const struct { long size; int outer; } js[] = {
      { 300*1024, 200 }, { 300*1024, 50 }, { 1048576, 100 }, { 2097152, 50 },
      { 4194304, 10 }, { 8388608, 3 },
    };
    exec_or_die(db, "CREATE TABLE a2(x INTEGER); WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i+1 FROM n WHERE i<199) "
                    "INSERT INTO a2 SELECT i*7 FROM n");
    for(json=0; json<2; json++){
      for(k=0; k<(int)(sizeof js/sizeof js[0]); k++){
        char path[512], label[64], *q;
        snprintf(path, sizeof path, "%s/j%ld.%s", argv[2], js[k].size, json ? "json" : "csv");
        write_file(path, js[k].size, json);
        q = sqlite3_mprintf("CREATE VIRTUAL TABLE IF NOT EXISTS temp.j%d_%ld USING %s(filename='%q', "
                            "columns='id INTEGER, name TEXT, amount REAL')",
                            json, js[k].size, json ? "json_stream" : "csv_stream", path);
        exec_or_die(db, q);
        sqlite3_free(q);
        q = sqlite3_mprintf("SELECT count(*) FROM (SELECT x FROM a2 LIMIT %d) o CROSS JOIN j%d_%ld b WHERE b.id=o.x",
                            js[k].outer, json, js[k].size);
        snprintf(label, sizeof label, "%s join %dx %ld KiB", json ? "json" : "csv", js[k].outer, js[k].size/1024);
        bench(db, label, q, pairs);
        sqlite3_free(q);
      }
    }
    exit(0);
  }
  if( argc>4 && strcmp(argv[4], "gzsmall")==0 ){
    char path[512], *q;
    for(k=0; k<300; k++){
      snprintf(path, sizeof path, "%s/gzs%03d.csv", argv[2], k);
      write_file(path, 400, 0);
      q = sqlite3_mprintf("gzip -f '%q'", path);
      if( system(q)!=0 ){ fprintf(stderr, "%s failed\n", q); return 1; }
      sqlite3_free(q);
    }
    snprintf(path, sizeof path, "%s/gztiny.csv", argv[2]);
    write_file(path, 60, 0);
    q = sqlite3_mprintf("gzip -f '%q'", path);
    if( system(q)!=0 ){ fprintf(stderr, "%s failed\n", q); return 1; }
    sqlite3_free(q);
    q = sqlite3_mprintf("SELECT count(*) FROM csv_stream('%q/gzs*.csv.gz')", argv[2]);
    bench(db, "gz 300 files function", q, pairs);
    sqlite3_free(q);
    q = sqlite3_mprintf("SELECT count(*) FROM csv_stream('%q/gztiny.csv.gz')", argv[2]);
    bench(db, "gz one line function", q, pairs);
    sqlite3_free(q);
    exit(0);
  }
  if( argc>4 && strcmp(argv[4], "gz")==0 ){
    /* gzip'ed CSV (about 4:1): what the rule's compressed size leaves on one thread */
    static const long gzsizes[] = { 262144, 524288, 1048576, 2097152, 4194304, 8388608 };
    for(k=0; k<(int)(sizeof gzsizes/sizeof gzsizes[0]); k++){
      char path[512], label[96], *q;
      FILE *f;
      long gz;
      snprintf(path, sizeof path, "%s/g%ld.csv", argv[2], gzsizes[k]);
      write_file(path, gzsizes[k], 0);
      q = sqlite3_mprintf("gzip -f '%q'", path);
      if( system(q)!=0 ){ fprintf(stderr, "%s failed\n", q); return 1; }
      sqlite3_free(q);
      strcat(path, ".gz");
      f = fopen(path, "rb");
      fseek(f, 0, SEEK_END);
      gz = ftell(f);
      fclose(f);
      q = sqlite3_mprintf("CREATE VIRTUAL TABLE temp.g%ld USING csv_stream(filename='%q', "
                          "columns='id INTEGER, name TEXT, amount REAL')", gzsizes[k], path);
      exec_or_die(db, q);
      sqlite3_free(q);
      q = sqlite3_mprintf("INSERT INTO sink SELECT id, name, amount FROM g%ld", gzsizes[k]);
      snprintf(label, sizeof label, "gz %ld KiB (%ld)", gz/1024, gzsizes[k]/1024);
      bench(db, label, q, pairs);
      sqlite3_free(q);
    }
    sqlite3_finalize(clear);
    sqlite3_close(db);
    return 0;
  }
  for(json=0; json<2; json++){
    for(k=0; k<(int)(sizeof sizes/sizeof sizes[0]); k++){
      char path[512], label[64];
      char *q;
      snprintf(path, sizeof path, "%s/s%ld.%s", argv[2], sizes[k], json ? "json" : "csv");
      write_file(path, sizes[k], json);
      q = sqlite3_mprintf("CREATE VIRTUAL TABLE temp.t%d_%ld USING %s(filename='%q', "
                          "columns='id INTEGER, name TEXT, amount REAL')",
                          json, sizes[k], json ? "json_stream" : "csv_stream", path);
      exec_or_die(db, q);
      sqlite3_free(q);
      q = sqlite3_mprintf("SELECT count(*), sum(id), sum(length(name)), sum(amount) FROM t%d_%ld", json, sizes[k]);
      snprintf(label, sizeof label, "%s count %ld KiB", json ? "json" : "csv", sizes[k]/1024);
      bench(db, label, q, pairs);
      sqlite3_free(q);
      q = sqlite3_mprintf("INSERT INTO sink SELECT id, name, amount FROM t%d_%ld", json, sizes[k]);
      snprintf(label, sizeof label, "%s insert %ld KiB", json ? "json" : "csv", sizes[k]/1024);
      bench(db, label, q, pairs);
      sqlite3_free(q);
      if( sizes[k]<=1048576 ){
        /* the typed table as the inner loop: one scan per row of a (100 rows) */
        q = sqlite3_mprintf("SELECT count(*) FROM a CROSS JOIN t%d_%ld b WHERE b.id=a.x", json, sizes[k]);
        snprintf(label, sizeof label, "%s join 100x %ld KiB", json ? "json" : "csv", sizes[k]/1024);
        bench(db, label, q, pairs);
        sqlite3_free(q);
      }
    }
  }
  sqlite3_finalize(clear);
  sqlite3_close(db);
  return 0;
}
