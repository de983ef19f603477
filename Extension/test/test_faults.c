/*
** test_faults.c — every failed allocation and every I/O error gives a clean
** error, never a crash, a leak, a wrong answer or half a statement.
**
** As SQLite's own tests do (test_malloc.c, test_vfs.c), the workloads run
** again and again with one fault injected at the Nth opportunity, for N =
** 1, 2, 3 … until a run ends before its Nth one:
**
**   allocations  SQLite's allocator, which the extension shares (its
**                parsers, readers, decompressors and ring buffers too), is
**                replaced through sqlite3_config(SQLITE_CONFIG_MALLOC) by one
**                that wraps the default and can be told to fail;
**   I/O          the database is opened through "faulty", a VFS over the
**                default one whose xRead, xWrite, xSync and xTruncate can be
**                told to fail (SQLITE_IOERR_READ, SQLITE_FULL,
**                SQLITE_IOERR_FSYNC, SQLITE_IOERR_TRUNCATE);
**
** each transient (the Nth fails, the ones after succeed) and persistent (the
** Nth and every one after fail).  The workloads cover every SQL function and
** table of the extension: weeks with and without zones and labels,
** locale_weeks, fiscal and MySQL functions, format_date, json_stream and
** csv_stream functions and typed tables over plain, gzip and zstd files,
** globs, rejects into a table, the second core's worker.  Each run must:
**
**   - end in success with exactly the rows of the run without faults, or in
**     an error that says what failed (SQLITE_NOMEM or "out of memory"; an
**     I/O or disk-full code or message): a fault is never reported as
**     something else;
**   - leave the database, opened again, passing PRAGMA integrity_check and
**     holding the whole statement's effect or none of it (the workload's
**     `state` query gives the one or the other);
**   - give back every byte (sqlite3_memory_used() after the connection is
**     closed is what it was before it was opened, spare pipe blocks dropped).
**
** Allocations made by the extension's own threads (the pipe's worker, the
** read-ahead thread, the decompressor) fail the same way.  The number of
** failure points exercised per workload is printed.  STREAMQLITE_FAULT_STEP=k
** runs every kth N only (a quick look); the default is every N.
*/
#include "sqlite3.h"
#include "sq_test.h"
#include "sq_pipe.h"
#include "fault_vfs.h"

#include <stdint.h>
#include <unistd.h>
#include <sys/stat.h>
#include <zlib.h>
#include <zstd.h>

int sqlite3_streamqlite_init(sqlite3 *db, char **pzErrMsg, const void *pApi);

/* ------------------------------------------------------------ the allocator */

#define FAULT_ALLOC 1
#define FAULT_IO    2
static const char *const fault_name[] = { "", "allocation", "I/O" };

static sq_fault_countdown allocs;    /* the allocator's countdown (fault_vfs.h) */

static sqlite3_mem_methods real_mem;

static void *fm_malloc(int n){ return sq_fault_now(&allocs) ? 0 : real_mem.xMalloc(n); }
static void fm_free(void *p){ real_mem.xFree(p); }
static void *fm_realloc(void *p, int n){ return sq_fault_now(&allocs) ? 0 : real_mem.xRealloc(p, n); }
static int fm_size(void *p){ return real_mem.xSize(p); }
static int fm_roundup(int n){ return real_mem.xRoundup(n); }
static int fm_init(void *a){ return real_mem.xInit(a); }
static void fm_shutdown(void *a){ real_mem.xShutdown(a); }

static void install_allocator(void){
  static sqlite3_mem_methods m;
  if( sqlite3_config(SQLITE_CONFIG_GETMALLOC, &real_mem)!=SQLITE_OK ){
    fprintf(stderr, "test_faults: SQLITE_CONFIG_GETMALLOC failed\n"); exit(2);
  }
  m = real_mem;
  m.xMalloc = fm_malloc; m.xFree = fm_free; m.xRealloc = fm_realloc;
  m.xSize = fm_size; m.xRoundup = fm_roundup; m.xInit = fm_init; m.xShutdown = fm_shutdown;
  if( sqlite3_config(SQLITE_CONFIG_MALLOC, &m)!=SQLITE_OK
   || sqlite3_config(SQLITE_CONFIG_LOOKASIDE, 0, 0)!=SQLITE_OK
   || sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 1)!=SQLITE_OK
   || sqlite3_initialize()!=SQLITE_OK ){
    fprintf(stderr, "test_faults: the failing allocator could not be installed\n"); exit(2);
  }
}

/* ------------------------------------------------------------ the files */

static char dir[64];

static void write_file(const char *name, const char *text){
  char path[256];
  FILE *f;
  snprintf(path, sizeof path, "%s/%s", dir, name);
  f = fopen(path, "wb");
  if( !f || fwrite(text, 1, strlen(text), f)!=strlen(text) || fclose(f)!=0 ){
    fprintf(stderr, "test_faults: cannot write %s\n", path); exit(2);
  }
}

static void write_gzip(const char *name, const char *text){
  char path[256];
  gzFile g;
  snprintf(path, sizeof path, "%s/%s", dir, name);
  g = gzopen(path, "wb");
  if( !g || gzwrite(g, text, (unsigned)strlen(text))!=(int)strlen(text) || gzclose(g)!=Z_OK ){
    fprintf(stderr, "test_faults: cannot write %s\n", path); exit(2);
  }
}

static void write_zstd(const char *name, const char *text){
  size_t cap = ZSTD_compressBound(strlen(text));
  char *buf = malloc(cap);
  size_t n = ZSTD_compress(buf, cap, text, strlen(text), 3);
  char path[256];
  FILE *f;
  snprintf(path, sizeof path, "%s/%s", dir, name);
  f = fopen(path, "wb");
  if( ZSTD_isError(n) || !f || fwrite(buf, 1, n, f)!=n || fclose(f)!=0 ){
    fprintf(stderr, "test_faults: cannot write %s\n", path); exit(2);
  }
  free(buf);
}

/* A CSV of `rows` people, one of them (id 7) with a score that is no number. */
static char *people_csv(int rows){
  char *s = 0; size_t n = 0, cap = 0;
  int i;
  sq_test_log_printf(&s, &n, &cap, "id,name,score\n");
  for(i=1; i<=rows; i++){
    if( i==7 ) sq_test_log_printf(&s, &n, &cap, "%d,\"Person, %d\",x%d\n", i, i, i);
    else sq_test_log_printf(&s, &n, &cap, "%d,Person %d,%d.5\n", i, i, i);
  }
  return s;
}

static char *people_ndjson(int rows){
  char *s = 0; size_t n = 0, cap = 0;
  int i;
  for(i=1; i<=rows; i++){
    sq_test_log_printf(&s, &n, &cap, "{\"id\":%d,\"name\":\"P\\u00e9 %d\",\"tags\":[%d,{\"k\":true}]}\n", i, i, i);
  }
  return s;
}

static void make_files(void){
  char *csv = people_csv(40), *nd = people_ndjson(30);
  char sub[128];
  int i;
  snprintf(dir, sizeof dir, "/tmp/sq_oom_XXXXXX");
  if( !mkdtemp(dir) ){ perror("mkdtemp"); exit(2); }
  write_file("people.csv", csv);
  {
    char *big = people_csv(3000);
    write_gzip("many-people.csv.gz", big);
    free(big);
  }
  write_gzip("people.csv.gz", csv);
  write_zstd("people.ndjson.zst", nd);
  write_file("people.ndjson", nd);
  write_file("array.json", "{\"data\":[{\"id\":1,\"when\":\"2024-03-10\"},{\"id\":2,\"when\":\"2024-12-30\"},"
                           "{\"id\":\"three\",\"when\":null},{\"id\":4,\"when\":\"2025-01-05\"}]}");
  snprintf(sub, sizeof sub, "%s/many", dir);
  if( mkdir(sub, 0700)!=0 ){ perror("mkdir"); exit(2); }
  for(i=0; i<12; i++){
    char name[64], text[64];
    snprintf(name, sizeof name, "many/part%02d.csv", i);
    snprintf(text, sizeof text, "a,b\n%d,x\n%d,y\n", i, i*10);
    write_file(name, text);
  }
  free(csv); free(nd);
}

static void remove_files(void){
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  if( system(cmd)!=0 ) fprintf(stderr, "test_faults: could not remove %s\n", dir);
}

/* ------------------------------------------------------------ the workloads */

typedef struct workload {
  const char *name;
  const char *setup;     /* run before, without failures */
  const char *sql;       /* run with the countdown */
  const char *state;     /* the database's state afterwards (NULL: no writes) */
  const char *cleanup;   /* run after, without failures, on a new connection (temp tables are gone) */
  int threads;           /* STREAMQLITE_THREADS for this workload (-1: unset) */
  int io_only;           /* swept for I/O errors only (a large write: its allocations are the small ones') */
} workload;

static const workload workloads[] = {
  { "weeks",
    0,
    "SELECT locale_week('2024-03-10', 'de_DE'), locale_week_start('2024-03-10', 'en_US'),"
    " locale_week_number('2024-01-01', 'en_US'), locale_week_year('2024-12-30', 'de_DE'),"
    " locale_weekday('2024-03-10', 'fr_FR'), locale_week_rules('ar_SA'), locale_week('2024-03-10');",
    0, 0, -1, 0 },
  { "weeks with zones",
    0,
    "SELECT locale_week('2024-03-10T03:30:00Z', 'en_US', 'America/New_York'),"
    " locale_week_start(1710041400, 'de_DE', 'Europe/Berlin'),"
    " locale_week_end('2024-12-31 23:59:59+05:00', 'en_GB', 'Asia/Tokyo');",
    0, 0, -1, 0 },
  { "labels and parsing",
    0,
    "SELECT locale_week_label('2024-03-10', 'de_DE'), locale_week_label('2024-03-10', 'ja_JP', 'UTC', 'long'),"
    " locale_week_parse('2024-W10', 'de_DE'), locale_week_of_month('2024-03-10', 'en_US'),"
    " format_date('EEEE d MMMM y', '2024-03-10', 'fr_FR'), format_date('yyyy-MM-dd HH:mm', 1710041400, 'en_US', 'Asia/Kolkata');",
    0, 0, -1, 0 },
  { "locale_weeks series",
    0,
    "SELECT count(*), min(week), max(week), group_concat(label, '|') FROM"
    " locale_weeks('2023-12-01', '2024-02-29', 'en_US', 'UTC', 'medium');",
    0, 0, -1, 0 },
  { "fiscal and MySQL",
    0,
    "SELECT fiscal_year('2023-06-01', '4-4-5, last saturday of december'),"
    " fiscal_period('2023-06-01', '4-5-4, saturday nearest end of january'),"
    " fiscal_week('2023-06-01', '4-4-5, last saturday of december'),"
    " fiscal_year_start('2024-06-01', '5-4-4, last saturday of january'),"
    " mysql_week('2011-01-02', 3), mysql_yearweek('2011-01-02', 0);",
    0, 0, -1, 0 },
  { "csv_stream function, plain and gzip",
    0,
    "SELECT count(*), sum(value->>'id') FROM csv_stream('people.csv');"
    "SELECT line, value->>'name' FROM csv_stream('people.csv.gz') WHERE line IN (2, 8, 41);",
    0, 0, -1, 0 },
  { "csv_stream glob of 12 files",
    0,
    "SELECT count(*), sum(value->>'a') FROM csv_stream('many/*.csv');",
    0, 0, -1, 0 },
  { "json_stream function, array and zstd NDJSON",
    0,
    "SELECT idx, value FROM json_stream('array.json', '$.data');"
    "SELECT count(*), sum(value->>'id') FROM json_stream('people.ndjson.zst');",
    0, 0, -1, 0 },
  { "typed json_stream table",
    0,
    "CREATE VIRTUAL TABLE temp.j USING json_stream(filename='people.ndjson.zst', columns='id INTEGER, name TEXT, tags');"
    "SELECT id, name, tags FROM j WHERE id IN (1, 30);",
    0, 0, -1, 0 },
  { "typed csv_stream over gzip into a table, rejects into a table",
    "CREATE TABLE t(id INTEGER, name TEXT, score REAL);"
    "CREATE TABLE rej(file TEXT, line INTEGER, \"offset\" INTEGER, record INTEGER, \"column\" TEXT, reason TEXT, raw TEXT, raw_truncated INTEGER);",
    "CREATE VIRTUAL TABLE temp.c USING csv_stream(filename='people.csv.gz', columns='id INTEGER, name TEXT, score REAL',"
    " strict=1, on_error=skip, reject_table=rej);"
    "INSERT INTO t SELECT * FROM c;",
    "SELECT (SELECT count(*) || '/' || total(score) FROM t),"
    " (SELECT count(*) FROM rej);",
    "DROP TABLE IF EXISTS rej;", -1, 0 },
  { "inferred csv_stream table over a glob",
    0,
    "CREATE VIRTUAL TABLE temp.g USING csv_stream(filename='many/*.csv');"
    "SELECT count(*), sum(a), typeof(a) FROM g;",
    0, 0, -1, 0 },
  { "the second core: typed tables through the worker",
    "CREATE TABLE t(id INTEGER, name TEXT, tags TEXT);"
    "CREATE TABLE wrej(file TEXT, line INTEGER, \"offset\" INTEGER, record INTEGER, \"column\" TEXT, reason TEXT, raw TEXT, raw_truncated INTEGER);",
    "CREATE VIRTUAL TABLE temp.w USING json_stream(filename='people.ndjson', columns='id INTEGER, name TEXT, tags',"
    " on_error=skip, reject_table=wrej);"
    "INSERT INTO t SELECT * FROM w;"
    "CREATE VIRTUAL TABLE temp.w2 USING csv_stream(filename='people.csv.gz', columns='id INTEGER, name TEXT, score');"
    "SELECT count(*), total(id) FROM w2;",
    "SELECT (SELECT count(*) || '/' || total(id) FROM t),"
    " (SELECT count(*) FROM wrej);",
    "DROP TABLE IF EXISTS wrej;", 2, 0 },
  { "a 3,000-row import with rejects, spilling a 2-page cache",
    "PRAGMA cache_size=2; CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT, score REAL);"
    "CREATE INDEX t_name ON t(name);"
    "CREATE TABLE rej(file TEXT, line INTEGER, \"offset\" INTEGER, record INTEGER, \"column\" TEXT, reason TEXT, raw TEXT, raw_truncated INTEGER);",
    "CREATE VIRTUAL TABLE temp.c USING csv_stream(filename='many-people.csv.gz', columns='id INTEGER, name TEXT, score REAL',"
    " strict=1, on_error=skip, reject_table=rej);"
    "INSERT INTO t SELECT * FROM c;",
    "SELECT (SELECT count(*) || '/' || total(score) FROM t), (SELECT count(*) FROM rej);",
    "DROP TABLE IF EXISTS rej;", -1, 1 },
};

/* ------------------------------------------------------------ one run */

typedef struct text { char *s; size_t n, cap; } text;

static int collect(void *arg, int n, char **v, char **names){
  text *t = arg;
  int i;
  (void)names;
  for(i=0; i<n; i++) log_printf(t, "%s%s", i ? "|" : "", v[i] ? v[i] : "NULL");
  log_add(t, "\n", 1);
  return 0;
}

static char dbpath[128];

static sqlite3 *open_db(void){
  sqlite3 *db = 0;
  if( sqlite3_open_v2(dbpath, &db, SQLITE_OPEN_READWRITE|SQLITE_OPEN_CREATE, "faulty")!=SQLITE_OK
   || sqlite3_streamqlite_init(db, 0, 0)!=SQLITE_OK ){
    fprintf(stderr, "test_faults: cannot open %s: %s\n", dbpath, db ? sqlite3_errmsg(db) : "?");
    exit(2);
  }
  sqlite3_busy_timeout(db, 1000);
  return db;
}

static void exec_or_die(sqlite3 *db, const char *sql, text *out){
  char *err = 0;
  if( sql && sqlite3_exec(db, sql, out ? collect : 0, out, &err)!=SQLITE_OK ){
    fprintf(stderr, "test_faults: %s: %s\n", sql, err ? err : "?");
    exit(2);
  }
  sqlite3_free(err);
}

static void set_threads(int threads){
  if( threads<0 ) unsetenv("STREAMQLITE_THREADS");
  else{ char v[16]; snprintf(v, sizeof v, "%d", threads); setenv("STREAMQLITE_THREADS", v, 1); }
}

typedef struct outcome {
  int rc;
  char *err;
  text rows;
  text state;
  sqlite3_int64 leaked;
  long long hits;
} outcome;

/* Runs a workload with a fault of `kind` at the countdown `n` (0: no faults). */
static void run_once(const workload *w, int kind, long long n, int persist, outcome *o){
  sqlite3 *db;
  sqlite3_int64 before;
  text integrity = {0};
  char *err = 0;
  memset(o, 0, sizeof *o);
  sq_pipe_drop_spares();
  before = sqlite3_memory_used();
  db = open_db();
  exec_or_die(db, w->setup, 0);
  set_threads(w->threads);
  if( kind==FAULT_ALLOC ) sq_fault_arm(&allocs, n, persist);
  if( kind==FAULT_IO ) sq_fault_vfs_arm(n, persist);
  o->rc = sqlite3_exec(db, w->sql, collect, &o->rows, &err);
  o->hits = kind==FAULT_IO ? sq_fault_vfs_disarm() : sq_fault_disarm(&allocs);
  if( err ){ o->err = strdup(err); sqlite3_free(err); }
  set_threads(-1);
  if( sqlite3_close(db)!=SQLITE_OK ){
    SQ_CHECK_MSG(0, "%s, N=%lld: the connection does not close: %s (a statement left open)",
                 w->name, n, sqlite3_errmsg(db));
    sqlite3_close_v2(db);
  }
  /* The database as the next process finds it (a hot journal rolled back). */
  db = open_db();
  exec_or_die(db, "PRAGMA integrity_check;", &integrity);
  SQ_CHECK_MSG(integrity.s && strcmp(integrity.s, "ok\n")==0, "%s, %s N=%lld%s: integrity_check: %s",
               w->name, fault_name[kind], n, persist ? " (persistent)" : "", integrity.s ? integrity.s : "?");
  free(integrity.s);
  if( w->state ) exec_or_die(db, w->state, &o->state);
  exec_or_die(db, w->cleanup, 0);
  exec_or_die(db, "DROP TABLE IF EXISTS main.t;", 0);
  sqlite3_close(db);
  sq_pipe_drop_spares();
  o->leaked = sqlite3_memory_used() - before;
}

static void outcome_free(outcome *o){
  free(o->err);
  free(o->rows.s);
  free(o->state.s);
}

/* The error says what failed. */
static int is_fault_error(int kind, const outcome *o){
  if( kind==FAULT_ALLOC ){
    return o->rc==SQLITE_NOMEM || (o->err && strstr(o->err, "out of memory"));
  }
  return (o->rc&0xff)==SQLITE_IOERR || (o->rc&0xff)==SQLITE_FULL
      || (o->err && (strstr(o->err, "disk I/O error") || strstr(o->err, "database or disk is full")));
}

static const char *str0(const char *s){ return s ? s : ""; }

/* Every N for one workload in one mode; returns the failure points run. */
static long long sweep(const workload *w, int kind, const outcome *clean, const char *state0, int persist,
                       long long step){
  const char *how = persist ? " (persistent)" : "";
  long long n, points = 0;
  for(n=1; ; n+=step){
    outcome o;
    run_once(w, kind, n, persist, &o);
    if( o.hits==0 ){
      /* The workload ran to its end before its Nth allocation. */
      SQ_CHECK_MSG(o.rc==SQLITE_OK && strcmp(str0(o.rows.s), str0(clean->rows.s))==0,
                   "%s, %s N=%lld: no fault, yet: rc %d %s", w->name, fault_name[kind], n, o.rc, str0(o.err));
      outcome_free(&o);
      break;
    }
    points++;
    if( o.rc==SQLITE_OK ){
      SQ_CHECK_MSG(strcmp(str0(o.rows.s), str0(clean->rows.s))==0,
                   "%s, %s N=%lld%s: success with other rows:\n%s\nwant:\n%s", w->name, fault_name[kind], n,
                   how, str0(o.rows.s), str0(clean->rows.s));
    }else{
      SQ_CHECK_MSG(is_fault_error(kind, &o), "%s, %s N=%lld%s: the fault reported as: rc %d: %s",
                   w->name, fault_name[kind], n, how, o.rc, str0(o.err));
    }
    if( w->state ){
      const char *s = str0(o.state.s);
      SQ_CHECK_MSG(strcmp(s, str0(clean->state.s))==0 || strcmp(s, state0)==0,
                   "%s, %s N=%lld%s: half a statement stored: %s(whole: %s, none: %s)", w->name,
                   fault_name[kind], n, how, s, str0(clean->state.s), state0);
      if( o.rc==SQLITE_OK ) SQ_CHECK_MSG(strcmp(s, str0(clean->state.s))==0,
                   "%s, %s N=%lld: success, yet the database holds %s", w->name, fault_name[kind], n, s);
    }
    SQ_CHECK_MSG(o.leaked==0, "%s, %s N=%lld%s: %lld bytes not given back", w->name, fault_name[kind], n,
                 how, (long long)o.leaked);
    outcome_free(&o);
    if( sq_test_failed>50 ){ fprintf(stderr, "test_faults: too many failures, stopping\n"); break; }
  }
  return points;
}

int main(void){
  size_t i;
  long long step = 1, total = 0;
  const char *s = getenv("STREAMQLITE_FAULT_STEP");
  if( s && atoll(s)>0 ) step = atoll(s);
  install_allocator();
  if( sq_fault_vfs_register()!=SQLITE_OK ){ fprintf(stderr, "test_faults: no faulty VFS\n"); return 2; }
  make_files();
  if( chdir(dir)!=0 ){ perror("chdir"); return 2; }
  snprintf(dbpath, sizeof dbpath, "%s/faults.db", dir);
  for(i=0; i<sizeof(workloads)/sizeof(workloads[0]); i++){
    const workload *w = &workloads[i];
    outcome clean, warm;
    char *state0 = 0;
    long long ta, pa, ti, pi;
    run_once(w, 0, 0, 0, &warm);     /* caches the process keeps (ICU, zones) warmed */
    outcome_free(&warm);
    run_once(w, 0, 0, 0, &clean);
    SQ_CHECK_MSG(clean.rc==SQLITE_OK, "%s: fails without failures: %s", w->name, str0(clean.err));
    SQ_CHECK_MSG(clean.leaked==0, "%s: %lld bytes not given back without failures", w->name, (long long)clean.leaked);
    if( w->state ){
      /* The state with none of the statement: the setup alone. */
      sqlite3 *db = open_db();
      text st = {0};
      exec_or_die(db, w->setup, 0);
      exec_or_die(db, w->state, &st);
      exec_or_die(db, w->cleanup, 0);
      exec_or_die(db, "DROP TABLE IF EXISTS main.t;", 0);
      sqlite3_close(db);
      state0 = st.s;
    }
    ta = w->io_only ? 0 : sweep(w, FAULT_ALLOC, &clean, str0(state0), 0, step);
    pa = w->io_only ? 0 : sweep(w, FAULT_ALLOC, &clean, str0(state0), 1, step);
    ti = sweep(w, FAULT_IO, &clean, str0(state0), 0, 1);
    pi = sweep(w, FAULT_IO, &clean, str0(state0), 1, 1);
    printf("test_faults: %-60s allocations %4lld+%4lld, I/O %3lld+%3lld\n", w->name, ta, pa, ti, pi);
    total += ta + pa + ti + pi;
    free(state0);
    outcome_free(&clean);
    if( sq_test_failed>50 ) break;
  }
  printf("test_faults: %lld failure points in all (transient+persistent)\n", total);
  remove_files();
  return sq_test_done("test_faults");
}
