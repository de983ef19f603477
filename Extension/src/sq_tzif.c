/*
** sq_tzif.c — the system's compiled time zone files (TZif, RFC 8536).
** See sq_tzif.h.  Used by sq_week_core.c for UTC offsets: the system's tzdata
** (Debian's `tzdata` package) is kept current, ICU's built-in copy is not.
*/
#include "sq_internal.h"
#include "sq_time.h"
#include "sq_tzif.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* One POSIX TZ rule date: kind 'J' (Jn, 1..365, no Feb 29), 'n' (0..365),
** 'M' (Mm.w.d); secs = the local time of day it takes effect (may be
** negative or beyond 24 h, RFC 8536). */
typedef struct SqTzDate { char kind; int n, m, w, d; int32_t secs; } SqTzDate;

struct sq_tzif {
  int32_t ntrans, ntypes;
  int64_t *trans;               /* ascending UTC seconds */
  unsigned char *idx;           /* type of each transition */
  int32_t *utoff;               /* per type, seconds east */
  int has_rule;                 /* a non-empty footer */
  int has_dst;
  int32_t std_off, dst_off;     /* seconds east */
  SqTzDate start, end;          /* DST starts (std time), ends (dst time) */
};

#define SQ_TZ_TMAX 1000000000000LL  /* +-10^12 s: ~31,700 years */

static char *tz_msg(const char *fmt, ...){
  va_list ap;
  char *m;
  va_start(ap, fmt);
  m = sqlite3_vmprintf(fmt, ap);
  va_end(ap);
  return m;
}

sq_tzif *sq_tzif_new(void){
  sq_tzif *z = sqlite3_malloc64(sizeof(*z));
  if( z ) memset(z, 0, sizeof(*z));
  return z;
}

void sq_tzif_free(sq_tzif *z){
  if( !z ) return;
  sqlite3_free(z->trans);
  sqlite3_free(z->idx);
  sqlite3_free(z->utoff);
  sqlite3_free(z);
}

/* ---- POSIX TZ strings ------------------------------------------------- */

/* A zone abbreviation: 3+ letters, or <...> of 3+ [A-Za-z0-9+-]. */
static int px_name(const char *s, size_t n, size_t *i){
  size_t j = *i, k = 0;
  if( j < n && s[j] == '<' ){
    j++;
    while( j < n && s[j] != '>' ){
      char c = s[j];
      if( !((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')
            || c == '+' || c == '-') ) return 0;
      j++; k++;
    }
    if( j >= n || k < 3 ) return 0;
    *i = j + 1;
    return 1;
  }
  while( j < n && ((s[j] >= 'A' && s[j] <= 'Z') || (s[j] >= 'a' && s[j] <= 'z')) ){ j++; k++; }
  if( k < 3 ) return 0;
  *i = j;
  return 1;
}

static int px_num(const char *s, size_t n, size_t *i, int lo, int hi, int *v){
  size_t j = *i;
  int x = 0;
  if( j >= n || s[j] < '0' || s[j] > '9' ) return 0;
  while( j < n && s[j] >= '0' && s[j] <= '9' ){
    x = x * 10 + (s[j] - '0');
    if( x > hi ) return 0;
    j++;
  }
  if( x < lo ) return 0;
  *v = x;
  *i = j;
  return 1;
}

/* [+-]hh[:mm[:ss]], hours 0..maxh; seconds into *v. */
static int px_hms(const char *s, size_t n, size_t *i, int maxh, int32_t *v){
  int sign = 1, h = 0, m = 0, sec = 0;
  size_t j = *i;
  if( j < n && (s[j] == '+' || s[j] == '-') ){ if( s[j] == '-' ) sign = -1; j++; }
  if( !px_num(s, n, &j, 0, maxh, &h) ) return 0;
  if( j < n && s[j] == ':' ){
    j++;
    if( !px_num(s, n, &j, 0, 59, &m) ) return 0;
    if( j < n && s[j] == ':' ){
      j++;
      if( !px_num(s, n, &j, 0, 59, &sec) ) return 0;
    }
  }
  *v = sign * (h * 3600 + m * 60 + sec);
  *i = j;
  return 1;
}

static int px_date(const char *s, size_t n, size_t *i, SqTzDate *d){
  size_t j = *i;
  memset(d, 0, sizeof(*d));
  if( j < n && s[j] == 'J' ){
    j++;
    d->kind = 'J';
    if( !px_num(s, n, &j, 1, 365, &d->n) ) return 0;
  }else if( j < n && s[j] == 'M' ){
    j++;
    d->kind = 'M';
    if( !px_num(s, n, &j, 1, 12, &d->m) ) return 0;
    if( j >= n || s[j] != '.' ) return 0;
    j++;
    if( !px_num(s, n, &j, 1, 5, &d->w) ) return 0;
    if( j >= n || s[j] != '.' ) return 0;
    j++;
    if( !px_num(s, n, &j, 0, 6, &d->d) ) return 0;
  }else{
    d->kind = 'n';
    if( !px_num(s, n, &j, 0, 365, &d->n) ) return 0;
  }
  d->secs = 7200;
  if( j < n && s[j] == '/' ){
    j++;
    if( !px_hms(s, n, &j, 167, &d->secs) ) return 0;
  }
  *i = j;
  return 1;
}

int sq_tzif_parse_posix(const char *s, size_t n, sq_tzif *z){
  size_t i = 0;
  int32_t off;
  z->has_rule = 0;
  z->has_dst = 0;
  if( !px_name(s, n, &i) || !px_hms(s, n, &i, 24, &off) ) return 0;
  z->std_off = -off;
  if( i == n ){ z->has_rule = 1; return 1; }
  if( !px_name(s, n, &i) ) return 0;
  z->dst_off = z->std_off + 3600;
  if( i < n && s[i] != ',' ){
    if( !px_hms(s, n, &i, 24, &off) ) return 0;
    z->dst_off = -off;
  }
  /* a DST name needs a rule: TZif footers always give one (no default) */
  if( i >= n || s[i] != ',' ) return 0;
  i++;
  if( !px_date(s, n, &i, &z->start) ) return 0;
  if( i >= n || s[i] != ',' ) return 0;
  i++;
  if( !px_date(s, n, &i, &z->end) ) return 0;
  if( i != n ) return 0;
  z->has_dst = 1;
  z->has_rule = 1;
  return 1;
}

static int is_leap(int64_t y){ return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

/* The day (since 1970-01-01) rule date d falls on in year y. */
static int64_t px_day(const SqTzDate *d, int64_t y){
  int64_t jan1 = sq_days_from_civil(y, 1, 1);
  if( d->kind == 'J' ) return jan1 + d->n - 1 + (is_leap(y) && d->n >= 60 ? 1 : 0);
  if( d->kind == 'n' ) return jan1 + d->n;
  {
    static const int mdays[12] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
    int64_t first = sq_days_from_civil(y, d->m, 1);
    int len = mdays[d->m - 1] + (d->m == 2 && is_leap(y) ? 1 : 0);
    int dow = (int)(((first + 4) % 7 + 7) % 7);          /* 0 = Sunday */
    int64_t day = first + (d->d - dow + 7) % 7 + (int64_t)(d->w - 1) * 7;
    while( day >= first + len ) day -= 7;
    return day;
  }
}

static int32_t rule_offset(const sq_tzif *z, int64_t t){
  int64_t y0, best_t = 0;
  int best = -1, k;
  int y, m, d;
  if( !z->has_dst ) return z->std_off;
  sq_civil_from_days(sq_floor_div(t + z->std_off, 86400), &y, &m, &d);
  y0 = y;
  /* the transitions of the years around t: the latest one at or before t
  ** wins (at equal instants, the start of DST: a zone in DST all year) */
  for(k = 0; k < 6; k++){
    int64_t yr = y0 - 1 + k / 2;
    int dst = (k % 2) == 0;
    int64_t when = dst
      ? px_day(&z->start, yr) * 86400 + z->start.secs - z->std_off
      : px_day(&z->end, yr) * 86400 + z->end.secs - z->dst_off;
    if( when <= t && (best < 0 || when > best_t || (when == best_t && dst)) ){
      best_t = when;
      best = dst;
    }
  }
  return best == 1 ? z->dst_off : z->std_off;
}

int sq_tzif_offset(const sq_tzif *z, int64_t t, int32_t *offset){
  int32_t lo, hi;
  if( t < -SQ_TZ_TMAX || t > SQ_TZ_TMAX ) return 0;
  if( z->ntrans == 0 || t >= z->trans[z->ntrans - 1] ){
    if( z->has_rule ){ *offset = rule_offset(z, t); return 1; }
    if( z->ntypes == 0 ) return 0;
    *offset = z->ntrans ? z->utoff[z->idx[z->ntrans - 1]] : z->utoff[0];
    return 1;
  }
  if( t < z->trans[0] ){
    *offset = z->utoff[0];
    return 1;
  }
  /* last transition <= t: trans[lo] <= t < trans[hi] */
  lo = 0;
  hi = z->ntrans - 1;
  while( hi - lo > 1 ){
    int32_t mid = lo + (hi - lo) / 2;
    if( z->trans[mid] <= t ) lo = mid; else hi = mid;
  }
  *offset = z->utoff[z->idx[lo]];
  return 1;
}

/* ---- TZif images -------------------------------------------------------- */

static uint32_t be32(const unsigned char *p){
  return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}
static int64_t be64(const unsigned char *p){
  return (int64_t)(((uint64_t)be32(p) << 32) | be32(p + 4));
}

typedef struct SqTzHead {
  uint32_t isut, isstd, leap, time, type, chr;
  char version;
} SqTzHead;

static const char *tz_head(const unsigned char *p, size_t n, SqTzHead *h){
  if( n < 44 ) return "truncated header";
  if( memcmp(p, "TZif", 4) != 0 ) return "not a TZif file (bad magic)";
  h->version = (char)p[4];
  if( h->version != 0 && (h->version < '2' || h->version > '4') ) return "unknown TZif version";
  h->isut = be32(p + 20);
  h->isstd = be32(p + 24);
  h->leap = be32(p + 28);
  h->time = be32(p + 32);
  h->type = be32(p + 36);
  h->chr = be32(p + 40);
  if( h->type == 0 || h->type > 256 ) return "local time type count out of range";
  if( h->chr == 0 ) return "no time zone designations";
  if( h->isut != 0 && h->isut != h->type ) return "UT indicator count differs from type count";
  if( h->isstd != 0 && h->isstd != h->type ) return "standard indicator count differs from type count";
  if( h->leap != 0 ) return "leap-second files are not supported";
  if( h->time > (uint32_t)SQ_TZIF_MAXFILE || h->chr > (uint32_t)SQ_TZIF_MAXFILE ) return "counts beyond the file";
  return 0;
}

/* Size of a data block with `tb`-byte times. */
static size_t tz_block(const SqTzHead *h, size_t tb){
  return (size_t)h->time * tb + h->time + (size_t)h->type * 6 + h->chr
       + (size_t)h->leap * (tb + 4) + h->isstd + h->isut;
}

sq_tzif *sq_tzif_parse(const unsigned char *buf, size_t n, char **err){
  SqTzHead h;
  const char *why;
  const unsigned char *p;
  size_t tb = 4, need;
  sq_tzif *z = 0;
  uint32_t i;
  *err = 0;
  if( (why = tz_head(buf, n, &h)) != 0 ) goto bad;
  need = 44 + tz_block(&h, 4);
  if( need > n ){ why = "counts beyond the file"; goto bad; }
  p = buf + 44;
  if( h.version >= '2' ){
    SqTzHead h1 = h;
    if( (why = tz_head(buf + need, n - need, &h)) != 0 ) goto bad;
    if( h.version != h1.version ){ why = "the two headers differ in version"; goto bad; }
    p = buf + need + 44;
    tb = 8;
    need += 44 + tz_block(&h, 8);
    if( need > n ){ why = "counts beyond the file"; goto bad; }
  }
  z = sq_tzif_new();
  if( !z ) return 0;
  z->ntrans = (int32_t)h.time;
  z->ntypes = (int32_t)h.type;
  z->trans = sqlite3_malloc64(sizeof(int64_t) * (h.time ? h.time : 1));
  z->idx = sqlite3_malloc64(h.time ? h.time : 1);
  z->utoff = sqlite3_malloc64(sizeof(int32_t) * h.type);
  if( !z->trans || !z->idx || !z->utoff ){ sq_tzif_free(z); return 0; }
  for(i = 0; i < h.time; i++){
    z->trans[i] = tb == 8 ? be64(p + (size_t)i * 8) : (int64_t)(int32_t)be32(p + (size_t)i * 4);
    if( i > 0 && z->trans[i] <= z->trans[i - 1] ){ why = "transition times not ascending"; goto bad; }
  }
  p += (size_t)h.time * tb;
  for(i = 0; i < h.time; i++){
    z->idx[i] = p[i];
    if( p[i] >= h.type ){ why = "transition type index out of range"; goto bad; }
  }
  p += h.time;
  for(i = 0; i < h.type; i++){
    int32_t off = (int32_t)be32(p);
    if( off < -89999 || off > 93599 ){ why = "UTC offset out of range"; goto bad; }
    if( p[4] > 1 ){ why = "DST flag not 0 or 1"; goto bad; }
    if( p[5] >= h.chr ){ why = "designation index out of range"; goto bad; }
    z->utoff[i] = off;
    p += 6;
  }
  if( h.version >= '2' ){
    /* footer: "\n" POSIX-TZ "\n" right after the data */
    const unsigned char *f = buf + need, *e;
    size_t left = n - need;
    if( left < 2 || f[0] != '\n' ){ why = "missing footer"; goto bad; }
    e = memchr(f + 1, '\n', left - 1);
    if( !e ){ why = "unterminated footer"; goto bad; }
    if( e > f + 1 && !sq_tzif_parse_posix((const char*)f + 1, (size_t)(e - f - 1), z) ){
      why = "invalid POSIX TZ string in the footer";
      goto bad;
    }
  }
  return z;
bad:
  sq_tzif_free(z);
  *err = tz_msg("%s", why);
  return 0;
}

/* ---- opening a zone's file ------------------------------------------------ */

int sq_tzif_valid_id(const char *id){
  size_t i, n = strlen(id);
  if( n == 0 || n > SQ_TZIF_MAXID || id[0] == '/' || id[n - 1] == '/' ) return 0;
  for(i = 0; i < n; i++){
    char c = id[i];
    if( !((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')
          || c == '_' || c == '+' || c == '-' || c == '/') ) return 0;
    if( c == '/' && id[i + 1] == '/' ) return 0;
  }
  return 1;
}

int sq_tzif_open(const char *id, sq_tzif **out, char **err){
  const char *dir = getenv("TZDIR");
  char *path;
  unsigned char *buf;
  struct stat sb;
  size_t got = 0;
  memset(&sb, 0, sizeof sb);
  int fd;
  *out = 0;
  *err = 0;
  if( !sq_tzif_valid_id(id) ){
    *err = tz_msg("time zone ID '%s' cannot name a zone file", id);
    return SQ_TZIF_BADID;
  }
  if( !dir || dir[0] != '/' || strlen(dir) > 1024 ) dir = "/usr/share/zoneinfo";
  path = tz_msg("%s/%s", dir, id);
  if( !path ) return SQ_TZIF_NOMEM;
  /* O_NONBLOCK: a FIFO planted in the directory must not block the open */
  fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if( fd < 0 ){
    int e = errno;
    if( e == ENOENT || e == ENOTDIR ){ sqlite3_free(path); return SQ_TZIF_NOFILE; }
    *err = tz_msg("cannot open %s: %s", path, strerror(e));
    sqlite3_free(path);
    return SQ_TZIF_BAD;
  }
  if( fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode) ){
    close(fd);
    /* a directory ("America") is no zone */
    if( S_ISDIR(sb.st_mode) ){ sqlite3_free(path); return SQ_TZIF_NOFILE; }
    *err = tz_msg("%s is not a regular file", path);
    sqlite3_free(path);
    return SQ_TZIF_BAD;
  }
  if( sb.st_size > SQ_TZIF_MAXFILE ){
    close(fd);
    *err = tz_msg("%s is larger than %d bytes", path, SQ_TZIF_MAXFILE);
    sqlite3_free(path);
    return SQ_TZIF_BAD;
  }
  buf = sqlite3_malloc64(SQ_TZIF_MAXFILE + 1);
  if( !buf ){ close(fd); sqlite3_free(path); return SQ_TZIF_NOMEM; }
  for(;;){
    ssize_t r = read(fd, buf + got, SQ_TZIF_MAXFILE + 1 - got);
    if( r < 0 && errno == EINTR ) continue;
    if( r < 0 ){
      *err = tz_msg("cannot read %s: %s", path, strerror(errno));
      break;
    }
    if( r == 0 ) break;
    got += (size_t)r;
    if( got > SQ_TZIF_MAXFILE ){
      *err = tz_msg("%s is larger than %d bytes", path, SQ_TZIF_MAXFILE);
      break;
    }
  }
  close(fd);
  if( !*err ){
    char *why = 0;
    *out = sq_tzif_parse(buf, got, &why);
    if( !*out ){
      if( !why ){ sqlite3_free(buf); sqlite3_free(path); return SQ_TZIF_NOMEM; }
      *err = tz_msg("%s: %s", path, why);
      sqlite3_free(why);
    }
  }
  sqlite3_free(buf);
  sqlite3_free(path);
  return *out ? SQ_TZIF_OK : SQ_TZIF_BAD;
}
