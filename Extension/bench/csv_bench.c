/*
** csv_bench.c — benchmark helpers for bench-csv.sh.
**
**   csv_bench gen N FILE          write a header and N generated rows of
**        mixed columns: id (integer), name (quoted text with a comma),
**        amount (real, sometimes empty), note (quoted text with "" and
**        commas, sometimes a line end, sometimes empty or ""), created_at
**        (timestamp), qty (integer), active (0/1 or empty), city (text,
**        some non-ASCII)
**   csv_bench parse FILE REPS     read FILE with sq_csv and with libcsv
**        (csv_parse with callbacks, CSV_STRICT | CSV_EMPTY_IS_NULL), both
**        fed the same 64 KiB chunks from memory; REPS alternating runs;
**        prints the median MB/s of each and the ratio.  sq_csv runs twice:
**        with its default UTF-8 check, and without (libcsv checks none)
**   csv_bench insert N DB         the insert ceiling: the N rows' typed
**        values generated into memory first, then one prepared INSERT INTO t
**        bound and stepped per row (no CSV); prints that loop's CPU seconds
**   csv_bench big SIZE_MB FILE    like gen, until the file has SIZE_MB MB
**
** Built by bench-csv.sh with -DSQLITE_CORE against the system libsqlite3
** and -lcsv.
*/
#include "sq_internal.h"
#include "sq_csv.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <csv.h>

static double now(void){
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec/1e9;
}

/* The parsers are timed in CPU time of this thread: the machine is shared,
** and time spent waiting for a core is not the parser's. */
static double cpu_now(void){
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + ts.tv_nsec/1e9;
}

/* ---- the generated rows */

typedef struct Row {
  long id;
  const char *name;
  int has_amount; double amount;
  char note[96]; int note_kind;   /* 0 text, 1 NULL (empty unquoted), 2 '' */
  char created[24];
  long qty;
  int active;                      /* -1: NULL */
  const char *city;
} Row;

static const char *kNames[] = { "Smith, John", "Doe, Jane", "O'Brien, Pat", "Li, Wei",
  "Garc\xC3\xAD" "a, Ana", "Nguyen, Minh", "M\xC3\xBCller, J\xC3\xBCrgen", "Okafor, Chidi" };
static const char *kCities[] = { "Paris", "Z\xC3\xBCrich", "New York", "S\xC3\xA3o Paulo",
  "Tokyo", "Berlin", "Montr\xC3\xA9" "al", "Lagos", "Oslo", "Lima" };
static const char *kNotes[] = { "He said \"hi\", then left", "ok", "fragile, handle with care",
  "size 5\" pipe", "two\nlines", "comma, and \"quote\"", "plain note" };

static void make_row(long i, Row *r){
  unsigned long h = (unsigned long)i * 2654435761u;
  long t = 1704067200L + (long)(h % 31536000u);   /* in 2024 */
  time_t tt = (time_t)t;
  struct tm tm;
  r->id = i;
  r->name = kNames[h % 8];
  r->has_amount = (h>>3) % 10 != 0;
  r->amount = (double)((h>>5) % 1000000) / 100.0;
  r->note_kind = ((h>>7) % 10==0) ? 1 : ((h>>7) % 10==1) ? 2 : 0;
  if( r->note_kind==0 ){
    const char *n = kNotes[(h>>11) % 7];
    if( n[0]=='t' && (h>>13) % 10 ) n = kNotes[0];   /* a line end in ~1.4% of rows */
    snprintf(r->note, sizeof r->note, "%s", n);
  }else{
    r->note[0] = 0;
  }
  gmtime_r(&tt, &tm);
  strftime(r->created, sizeof r->created, "%Y-%m-%d %H:%M:%S", &tm);
  r->qty = (long)((h>>17) % 500);
  r->active = ((h>>19) % 7==0) ? -1 : (int)((h>>21) & 1);
  r->city = kCities[(h>>23) % 10];
}

static void put_quoted(FILE *f, const char *s){
  fputc('"', f);
  for(; *s; s++){ if( *s=='"' ) fputc('"', f); fputc(*s, f); }
  fputc('"', f);
}

static long write_row(FILE *f, long i){
  Row r;
  long start = ftell(f);
  make_row(i, &r);
  fprintf(f, "%ld,", r.id);
  put_quoted(f, r.name);
  fputc(',', f);
  if( r.has_amount ) fprintf(f, "%.2f", r.amount);
  fputc(',', f);
  if( r.note_kind==0 ) put_quoted(f, r.note);
  else if( r.note_kind==2 ) fputs("\"\"", f);
  fprintf(f, ",%s,%ld,", r.created, r.qty);
  if( r.active>=0 ) fprintf(f, "%d", r.active);
  fprintf(f, ",%s\n", r.city);
  return ftell(f)-start;
}

static int gen(long n, const char *path, double min_mb){
  FILE *f = fopen(path, "wb");
  long i;
  double bytes = 0;
  if( !f ){ perror(path); return 1; }
  setvbuf(f, 0, _IOFBF, 1<<20);
  fputs("id,name,amount,note,created_at,qty,active,city\n", f);
  for(i=1; min_mb>0 ? bytes<min_mb*1e6 : i<=n; i++) bytes += (double)write_row(f, i);
  fclose(f);
  return 0;
}

/* ---- sq_csv */
static unsigned long sq_fields, sq_bytes, sq_records;
static int sq_cb(void *u, const sq_csv_event *e){
  (void)u;
  if( e->type==SQ_CSV_FIELD ){ sq_fields++; sq_bytes += e->len; }
  else sq_records++;
  return SQ_CSV_CONTINUE;
}
static double run_sq(const unsigned char *doc, size_t n, unsigned opts){
  sq_csv_parser *p = sq_csv_new(sq_cb, 0);
  size_t pos = 0;
  double t0 = cpu_now();
  sq_fields = sq_bytes = sq_records = 0;
  sq_csv_set_options(p, opts);
  while( pos<n ){
    size_t k = n-pos < 65536 ? n-pos : 65536;
    if( sq_csv_feed(p, doc+pos, k)!=SQ_CSV_OK ){ fprintf(stderr, "sq_csv: %s\n", sq_csv_error_info(p)->message); exit(1); }
    pos += k;
  }
  if( sq_csv_finish(p)!=SQ_CSV_OK ){ fprintf(stderr, "sq_csv finish: %s\n", sq_csv_error_info(p)->message); exit(1); }
  t0 = cpu_now()-t0;
  sq_csv_free(p);
  return t0;
}

/* ---- libcsv */
static unsigned long lc_fields, lc_bytes, lc_records;
static void lc_field(void *s, size_t len, void *u){ (void)s; (void)u; lc_fields++; lc_bytes += len; }
static void lc_record(int c, void *u){ (void)c; (void)u; lc_records++; }
static double run_libcsv(const unsigned char *doc, size_t n){
  struct csv_parser p;
  size_t pos = 0;
  double t0 = cpu_now();
  lc_fields = lc_bytes = lc_records = 0;
  if( csv_init(&p, CSV_STRICT | CSV_EMPTY_IS_NULL)!=0 ){ fprintf(stderr, "csv_init\n"); exit(1); }
  while( pos<n ){
    size_t k = n-pos < 65536 ? n-pos : 65536;
    if( csv_parse(&p, doc+pos, k, lc_field, lc_record, 0)!=k ){
      fprintf(stderr, "libcsv: %s\n", csv_strerror(csv_error(&p))); exit(1);
    }
    pos += k;
  }
  csv_fini(&p, lc_field, lc_record, 0);
  t0 = cpu_now()-t0;
  csv_free(&p);
  return t0;
}

static int cmp_d(const void *a, const void *b){
  double x = *(const double*)a, y = *(const double*)b;
  return x<y ? -1 : x>y;
}

static int parse(const char *path, int reps){
  FILE *f = fopen(path, "rb");
  unsigned char *doc;
  long n;
  double *ts, *tn, *tl, ms, mn, ml, mb;
  int r;
  if( !f ){ perror(path); return 1; }
  fseek(f, 0, SEEK_END); n = ftell(f); fseek(f, 0, SEEK_SET);
  doc = malloc((size_t)n);
  if( fread(doc, 1, (size_t)n, f)!=(size_t)n ){ perror("read"); return 1; }
  fclose(f);
  ts = calloc((size_t)reps, sizeof *ts);
  tn = calloc((size_t)reps, sizeof *tn);
  tl = calloc((size_t)reps, sizeof *tl);
  for(r=0; r<reps; r++){
    ts[r] = run_sq(doc, (size_t)n, 0);
    tn[r] = run_sq(doc, (size_t)n, SQ_CSV_OPT_NO_UTF8_CHECK);
    tl[r] = run_libcsv(doc, (size_t)n);
  }
  /* both read the same records, fields and bytes */
  if( sq_fields!=lc_fields || sq_bytes!=lc_bytes || sq_records!=lc_records ){
    fprintf(stderr, "mismatch: sq_csv %lu records %lu fields %lu bytes, libcsv %lu/%lu/%lu\n",
            sq_records, sq_fields, sq_bytes, lc_records, lc_fields, lc_bytes);
    return 1;
  }
  qsort(ts, (size_t)reps, sizeof *ts, cmp_d);
  qsort(tn, (size_t)reps, sizeof *tn, cmp_d);
  qsort(tl, (size_t)reps, sizeof *tl, cmp_d);
  ms = ts[reps/2]; mn = tn[reps/2]; ml = tl[reps/2];
  mb = (double)n/1e6;
  printf("%lu records, %lu fields, %.1f MB, 64 KiB chunks, median CPU time of %d runs\n",
         sq_records, sq_fields, mb, reps);
  printf("%-34s %8s %9s %9s\n", "reader", "time s", "MB/s", "vs libcsv");
  printf("%-34s %8.3f %9.1f %8.2fx\n", "libcsv 3.0.3 (no UTF-8 check)", ml, mb/ml, 1.0);
  printf("%-34s %8.3f %9.1f %8.2fx\n", "sq_csv (UTF-8 checked, default)", ms, mb/ms, ml/ms);
  printf("%-34s %8.3f %9.1f %8.2fx\n", "sq_csv (no UTF-8 check)", mn, mb/mn, ml/mn);
  free(doc); free(ts); free(tn); free(tl);
  return 0;
}

/* ---- the insert ceiling: every row generated into memory first (not
** timed), then one prepared INSERT bound and stepped per row; prints the CPU
** seconds of that loop */
typedef struct MemRow {
  const char *name, *note, *city;   /* note NULL: NULL */
  double amount; int has_amount;
  long qty;
  int active;
  char created[20];
} MemRow;

static int insert_rows(sqlite3 *db, const MemRow *rows, long n);

static int insert(long n, const char *path){
  sqlite3 *db;
  long i;
  double t0;
  MemRow *rows = malloc(sizeof(MemRow)*(size_t)(n+1));
  if( !rows ){ fprintf(stderr, "out of memory\n"); return 1; }
  for(i=1; i<=n; i++){
    Row r;
    size_t k;
    make_row(i, &r);
    rows[i].name = r.name;
    rows[i].city = r.city;
    rows[i].note = 0;
    if( r.note_kind==2 ) rows[i].note = "";
    else if( r.note_kind==0 ){
      for(k=0; k<sizeof kNotes/sizeof kNotes[0]; k++) if( strcmp(kNotes[k], r.note)==0 ) rows[i].note = kNotes[k];
    }
    rows[i].amount = r.amount;
    rows[i].has_amount = r.has_amount;
    rows[i].qty = r.qty;
    rows[i].active = r.active;
    memcpy(rows[i].created, r.created, 19);
  }
  if( sqlite3_open(path, &db)!=SQLITE_OK ) return 1;
  sqlite3_exec(db, "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;"
               "CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT, amount REAL, note TEXT,"
               " created_at TEXT, qty INTEGER, active INTEGER, city TEXT)", 0, 0, 0);
  t0 = cpu_now();
  if( insert_rows(db, rows, n) ) return 1;
  printf("%.3f\n", cpu_now()-t0);
  sqlite3_close(db);
  free(rows);
  return 0;
}

/* The timed loop (its own function: `valgrind --tool=callgrind
** --toggle-collect=insert_rows` counts its instructions alone). */
__attribute__((noinline)) static int insert_rows(sqlite3 *db, const MemRow *rows, long n){
  sqlite3_stmt *st;
  long i;
  sqlite3_exec(db, "BEGIN", 0, 0, 0);
  if( sqlite3_prepare_v2(db, "INSERT INTO t VALUES(?,?,?,?,?,?,?,?)", -1, &st, 0)!=SQLITE_OK ){
    fprintf(stderr, "%s\n", sqlite3_errmsg(db));
    return 1;
  }
  for(i=1; i<=n; i++){
    const MemRow *r = &rows[i];
    sqlite3_bind_int64(st, 1, i);
    sqlite3_bind_text(st, 2, r->name, -1, SQLITE_STATIC);
    if( r->has_amount ) sqlite3_bind_double(st, 3, r->amount); else sqlite3_bind_null(st, 3);
    if( r->note ) sqlite3_bind_text(st, 4, r->note, -1, SQLITE_STATIC); else sqlite3_bind_null(st, 4);
    sqlite3_bind_text(st, 5, r->created, 19, SQLITE_STATIC);
    sqlite3_bind_int64(st, 6, r->qty);
    if( r->active<0 ) sqlite3_bind_null(st, 7); else sqlite3_bind_int(st, 7, r->active);
    sqlite3_bind_text(st, 8, r->city, -1, SQLITE_STATIC);
    if( sqlite3_step(st)!=SQLITE_DONE ){ fprintf(stderr, "%s\n", sqlite3_errmsg(db)); return 1; }
    sqlite3_reset(st);
  }
  sqlite3_finalize(st);
  sqlite3_exec(db, "COMMIT", 0, 0, 0);
  return 0;
}

int main(int argc, char **argv){
  if( argc>=4 && strcmp(argv[1], "gen")==0 ) return gen(atol(argv[2]), argv[3], 0);
  if( argc>=4 && strcmp(argv[1], "parse")==0 ) return parse(argv[2], atoi(argv[3]));
  if( argc>=4 && strcmp(argv[1], "insert")==0 ) return insert(atol(argv[2]), argv[3]);
  if( argc>=4 && strcmp(argv[1], "big")==0 ) return gen(0, argv[3], atof(argv[2]));
  fprintf(stderr, "usage: csv_bench gen N FILE | parse FILE REPS | insert N DB | big SIZE_MB FILE\n");
  return 2;
}
