/*
** sq_csv.c — StreamQLite's incremental RFC 4180 reader (sq_csv.h is the
** manual).
**
** How it works:
**   - One pass over each chunk with two byte-class tables (inside an
**     unquoted field: delimiter, quote, CR, LF and, when UTF-8 is checked,
**     bytes >= 0x80 stop the scan; inside a quoted field: quote, CR, LF,
**     >= 0x80).  Ordinary bytes are skipped by a tight loop.
**   - A field that lies within one chunk and has no "" is handed to the
**     callback as a pointer into the chunk; otherwise its content is
**     gathered in the scratch buffer (a chunk boundary inside the field,
**     or the first "").
**   - The field limit is checked at every stop of the scan (a special
**     byte or a chunk end, not counting the bytes of a UTF-8 sequence cut
**     by the chunk end), before anything else is looked at there, so the
**     first error is the same for every way of cutting the input.
**   - UTF-8 is checked sequence by sequence when a byte >= 0x80 stops the
**     scan; a sequence cut by a chunk boundary is finished at the start of
**     the next chunk (u_need, u_lo, u_hi).
**   - A possible BOM at the start is matched byte by byte; when the first
**     bytes turn out to be data after all, they are scanned from a static
**     copy before the chunk.
*/
#include "sq_internal.h"
#include "sq_csv.h"

#include <string.h>
#include <stdlib.h>
#include <stdio.h>

#ifdef SQ_CSV_USE_LIBC
# define SQ_CSV_MALLOC(n)     malloc(n)
# define SQ_CSV_REALLOC(p,n)  realloc((p),(n))
# define SQ_CSV_FREE(p)       free(p)
#else
# define SQ_CSV_MALLOC(n)     sqlite3_malloc64(n)
# define SQ_CSV_REALLOC(p,n)  sqlite3_realloc64((p),(n))
# define SQ_CSV_FREE(p)       sqlite3_free(p)
#endif

typedef unsigned char u8;

/* SSE2 (every x86-64): the scan looks at 16 bytes at a time. */
#if defined(__SSE2__)
# include <emmintrin.h>
# define SQ_CSV_SSE2 1
#else
# define SQ_CSV_SSE2 0
#endif

#if defined(__GNUC__) || defined(__clang__)
# define SQ_LIKELY(x)   __builtin_expect(!!(x), 1)
# define SQ_UNLIKELY(x) __builtin_expect(!!(x), 0)
#else
# define SQ_LIKELY(x)   (x)
# define SQ_UNLIKELY(x) (x)
#endif

/* Byte classes. */
enum { C_PLAIN = 0, C_DELIM, C_QUOTE, C_LF, C_CR, C_HI };

/* Reader states (between chunks). */
enum {
  ST_REC = 0,   /* before a record: nothing of it read yet */
  ST_FIELD,     /* before a field, after a delimiter */
  ST_UNQ,       /* inside an unquoted field */
  ST_Q,         /* inside a quoted field */
  ST_QQ         /* inside a quoted field, right after a quote that ended a chunk */
};

struct sq_csv_parser {
  sq_csv_callback cb;
  void *user;
  unsigned opts;
  u8 delim, quote;              /* quote 0: no quoting */
  u8 cu[256];                   /* classes inside an unquoted field */
  u8 cq[256];                   /* classes inside a quoted field */
  char *null_text;              /* the NULL marker(s), or NULL */
  size_t null_len;
  int null_list;                /* null_text holds several markers, NUL-separated */
  size_t max_field;

  int state;
  int error;                    /* non-zero: in the error state */
  int bom;                      /* BOM bytes matched so far; 3: decided */
  uint64_t offset;              /* bytes consumed so far (absolute) */
  uint64_t line;                /* current line (1-based) */
  uint64_t line_start;          /* absolute offset of the current line */
  uint64_t cr_end;              /* offset just after the last CR (+1), 0: none */
  uint64_t record;              /* records completed */
  uint64_t fidx;                /* fields seen in the current record */
  uint64_t width;               /* fields of the first record */
  int have_width;
  uint64_t r_off, r_line, r_col;        /* current record's first byte */
  uint64_t f_off, f_line, f_col;        /* current field's first byte */
  uint64_t x_off, x_line, x_col;        /* first field too many */

  char *buf;                    /* scratch: content of the current field */
  size_t blen, bcap;
  int copying;                  /* the current field's content is in buf */

  int u_need;                   /* continuation bytes still due */
  int u_have;                   /* bytes of that sequence already read */
  u8 u_lo, u_hi;                /* range of the next continuation byte */
  uint64_t u_off, u_line, u_col;        /* the sequence's first byte */

  uint64_t limit;                /* fields delivered per record (width, or no limit) */
  int in_header;                /* record 0 with SQ_CSV_OPT_HEADER */
  sq_csv_event ev;              /* the field event */

  size_t consumed;
  sq_csv_error err;
};

static const u8 kBom[3] = { 0xEF, 0xBB, 0xBF };

/* ---------------------------------------------------------------- tables */

static void build_tables(sq_csv_parser *p){
  int c;
  memset(p->cu, C_PLAIN, sizeof p->cu);
  memset(p->cq, C_PLAIN, sizeof p->cq);
  if( !(p->opts & SQ_CSV_OPT_NO_UTF8_CHECK) ){
    for(c=0x80; c<256; c++){ p->cu[c] = C_HI; p->cq[c] = C_HI; }
  }
  p->cu['\n'] = p->cq['\n'] = C_LF;
  p->cu['\r'] = p->cq['\r'] = C_CR;
  p->cu[p->delim] = C_DELIM;
  if( p->quote ){
    p->cq[p->quote] = C_QUOTE;
    if( !(p->opts & SQ_CSV_OPT_LAZY_QUOTES) ) p->cu[p->quote] = C_QUOTE;
  }
}

/* ---------------------------------------------------------------- errors */

static int set_error(sq_csv_parser *p, int code, const char *msg,
                     uint64_t off, uint64_t line, uint64_t col, uint64_t field){
  if( p->error ) return SQ_CSV_ERROR;
  p->error = 1;
  p->err.code = code;
  strncpy(p->err.message, msg, sizeof(p->err.message)-1);
  p->err.message[sizeof(p->err.message)-1] = 0;
  p->err.offset = off;
  p->err.line = line;
  p->err.column = col;
  p->err.record = p->record;
  p->err.field = field;
  return SQ_CSV_ERROR;
}

/* An error at the byte at absolute offset `off` on the current line. */
static int error_here(sq_csv_parser *p, int code, const char *msg, uint64_t off){
  return set_error(p, code, msg, off, p->line, off - p->line_start + 1, p->fidx);
}

static int error_too_long(sq_csv_parser *p){
  char m[96];
  snprintf(m, sizeof m, "field longer than %llu bytes", (unsigned long long)p->max_field);
  return set_error(p, SQ_CSV_E_TOO_LONG, m, p->f_off, p->f_line, p->f_col, p->fidx);
}

static int error_nomem(sq_csv_parser *p){
  return set_error(p, SQ_CSV_E_NOMEM, "out of memory", p->f_off, p->f_line, p->f_col, p->fidx);
}

/* ---------------------------------------------------------------- scratch */

static int buf_append(sq_csv_parser *p, const void *z, size_t n){
  if( n==0 ) return 0;
  if( p->blen + n > p->bcap ){
    size_t cap = p->bcap ? p->bcap : 256;
    char *b;
    while( cap < p->blen + n ) cap *= 2;
    b = (char*)SQ_CSV_REALLOC(p->buf, cap);
    if( !b ) return 1;
    p->buf = b;
    p->bcap = cap;
  }
  memcpy(p->buf + p->blen, z, n);
  p->blen += n;
  return 0;
}

/* ---------------------------------------------------------------- events */

/* A field beyond the first record's count (ragged records not allowed):
** not delivered; its position is kept for the error at the record's end. */
static int extra_field(sq_csv_parser *p, uint64_t k){
  if( k==p->width ){ p->x_off = p->f_off; p->x_line = p->f_line; p->x_col = p->f_col; }
  return SQ_CSV_OK;
}

/* Whether t[0..n) is one of several NULL markers (null_list). */
static int null_marker_in_list(const sq_csv_parser *p, const char *t, size_t n){
  const char *m = p->null_text, *end = p->null_text + p->null_len;
  while( m<end ){
    const char *z = memchr(m, 0, (size_t)(end-m));
    size_t k = z ? (size_t)(z-m) : (size_t)(end-m);
    if( k==n && k>0 && memcmp(m, t, n)==0 ) return 1;
    m += k+1;
  }
  return 0;
}

/* Delivers the current field: content `t`/`n` (t may be NULL when n==0). */
static inline int emit_field(sq_csv_parser *p, const char *t, size_t n, unsigned flags){
  sq_csv_event *e = &p->ev;
  int rc;
  uint64_t k = p->fidx++;
  if( SQ_UNLIKELY(k>=p->limit) ) return extra_field(p, k);
  if( SQ_UNLIKELY(p->in_header) ){
    flags |= SQ_CSV_F_HEADER;
  }else if( !(flags & SQ_CSV_F_QUOTED) ){
    if( n==0 ? !(p->opts & SQ_CSV_OPT_EMPTY_STRING)
             : SQ_UNLIKELY(p->null_list) ? null_marker_in_list(p, t, n)
             : (n==p->null_len && memcmp(t, p->null_text, n)==0) ){
      flags |= SQ_CSV_F_NULL;
    }
  }
  if( flags & SQ_CSV_F_NULL ){ t = 0; n = 0; }
  else if( n==0 ) t = "";
  /* type, record and end_offset are set once per record (emit_record, reset) */
  e->flags = flags;
  e->text = t;
  e->len = n;
  e->field = k;
  e->offset = p->f_off;
  e->line = p->f_line;
  e->column = p->f_col;
  e->end_offset = 0;
  rc = p->cb(p->user, e);
  if( SQ_LIKELY(rc==SQ_CSV_CONTINUE || rc==SQ_CSV_PAUSE) ) return SQ_CSV_OK;
  return set_error(p, SQ_CSV_E_ABORTED, "aborted by the callback",
                   p->f_off, p->f_line, p->f_col, k);
}

/* Delivers the end of the current record, which ends at absolute offset
** `end` (a line end on the current line, or the input's end).  Returns
** SQ_CSV_OK, SQ_CSV_PAUSED or SQ_CSV_ERROR. */
static int emit_record(sq_csv_parser *p, uint64_t end){
  sq_csv_event e;
  int rc;
  unsigned flags = 0;
  uint64_t n = p->fidx;
  if( !p->have_width ){
    p->width = n;
    p->have_width = 1;
    if( !(p->opts & SQ_CSV_OPT_RAGGED) ) p->limit = n;
  }else if( n!=p->width && !(p->opts & SQ_CSV_OPT_RAGGED) ){
    char m[128];
    if( n>p->width ){
      snprintf(m, sizeof m, "record has %llu fields, the first record has %llu",
               (unsigned long long)n, (unsigned long long)p->width);
      if( !(p->opts & SQ_CSV_OPT_REPORT_RAGGED) ){
        return set_error(p, SQ_CSV_E_RAGGED, m, p->x_off, p->x_line, p->x_col, p->width);
      }
      set_error(p, SQ_CSV_E_RAGGED, m, p->x_off, p->x_line, p->x_col, p->width);
      p->error = 0;
      flags = SQ_CSV_F_RAGGED;
    }else if( !(p->opts & SQ_CSV_OPT_PAD_SHORT) ){
      snprintf(m, sizeof m, "record has %llu field%s, the first record has %llu",
               (unsigned long long)n, n==1 ? "" : "s", (unsigned long long)p->width);
      if( !(p->opts & SQ_CSV_OPT_REPORT_RAGGED) ){
        return set_error(p, SQ_CSV_E_RAGGED, m, end, p->line, end - p->line_start + 1, n);
      }
      set_error(p, SQ_CSV_E_RAGGED, m, end, p->line, end - p->line_start + 1, n);
      p->error = 0;
      flags = SQ_CSV_F_RAGGED;
    }else{
      p->f_off = end;
      p->f_line = p->line;
      p->f_col = end - p->line_start + 1;
      while( p->fidx<p->width ){
        if( emit_field(p, 0, 0, SQ_CSV_F_NULL | SQ_CSV_F_PADDED)!=SQ_CSV_OK ) return SQ_CSV_ERROR;
      }
      n = p->width;
    }
  }
  e.type = SQ_CSV_RECORD;
  e.flags = flags;
  e.text = 0;
  e.len = 0;
  e.record = p->record;
  e.field = n;
  e.offset = p->r_off;
  e.line = p->r_line;
  e.column = p->r_col;
  e.end_offset = end;
  p->record++;
  p->ev.record = p->record;
  p->fidx = 0;
  p->in_header = 0;
  rc = p->cb(p->user, &e);
  if( rc==SQ_CSV_CONTINUE ) return SQ_CSV_OK;
  if( rc==SQ_CSV_PAUSE ) return SQ_CSV_PAUSED;
  p->record--;
  p->ev.record = p->record;
  return set_error(p, SQ_CSV_E_ABORTED, "aborted by the callback",
                   p->r_off, p->r_line, p->r_col, n);
}

/* A blank line ending at absolute offset `end` (see sq_csv.h, RECORDS). */
static int blank_line(sq_csv_parser *p, uint64_t end){
  uint64_t col = end - p->line_start + 1;
  if( p->opts & SQ_CSV_OPT_RAGGED ){
    p->r_off = end; p->r_line = p->line; p->r_col = col;
    return emit_record(p, end);
  }
  if( !p->have_width || p->width!=1 ) return SQ_CSV_OK;
  p->r_off = p->f_off = end;
  p->r_line = p->f_line = p->line;
  p->r_col = p->f_col = col;
  if( emit_field(p, 0, 0, 0)!=SQ_CSV_OK ) return SQ_CSV_ERROR;
  return emit_record(p, end);
}

/* ---------------------------------------------------------------- UTF-8 */

/* The sequence led by s[i] (>= 0x80).  Returns the index after it, or n
** when the chunk ends inside it (the rest is due: u_need), or (size_t)-1
** after an error. */
static size_t utf8_seq(sq_csv_parser *p, const u8 *s, size_t i, size_t n, uint64_t base){
  u8 b = s[i], lo = 0x80, hi = 0xBF;
  int need;
  size_t k;
  if( b>=0xC2 && b<=0xDF ) need = 1;
  else if( b>=0xE0 && b<=0xEF ){ need = 2; if( b==0xE0 ) lo = 0xA0; else if( b==0xED ) hi = 0x9F; }
  else if( b>=0xF0 && b<=0xF4 ){ need = 3; if( b==0xF0 ) lo = 0x90; else if( b==0xF4 ) hi = 0x8F; }
  else{ error_here(p, SQ_CSV_E_UTF8, "invalid UTF-8", base+i); return (size_t)-1; }
  for(k=1; k<=(size_t)need; k++){
    if( i+k>=n ){
      p->u_need = need-(int)(k-1);
      p->u_have = (int)k;
      p->u_lo = lo;
      p->u_hi = hi;
      p->u_off = base+i;
      p->u_line = p->line;
      p->u_col = base+i - p->line_start + 1;
      return n;
    }
    if( s[i+k]<lo || s[i+k]>hi ){ error_here(p, SQ_CSV_E_UTF8, "invalid UTF-8", base+i); return (size_t)-1; }
    lo = 0x80; hi = 0xBF;
  }
  return i+k;
}

/* Finishes a sequence cut by the previous chunk end: the index after it,
** n when still not complete, (size_t)-1 after an error. */
static size_t utf8_resume(sq_csv_parser *p, const u8 *s, size_t n){
  size_t i = 0;
  while( p->u_need>0 ){
    if( i>=n ) return n;
    if( s[i]<p->u_lo || s[i]>p->u_hi ){
      set_error(p, SQ_CSV_E_UTF8, "invalid UTF-8", p->u_off, p->u_line, p->u_col, p->fidx);
      return (size_t)-1;
    }
    p->u_lo = 0x80; p->u_hi = 0xBF;
    p->u_need--;
    p->u_have++;
    i++;
  }
  p->u_have = 0;
  return i;
}

/* ---------------------------------------------------------------- scan */

/* Content length of the current field so far, the scan being at s[i]. */
/* (p->blen is 0 while the content is not being copied) */
#define FLEN(run, i) (p->blen + ((i)-(run)))
#define OFF(i) (base + (uint64_t)(i))

/* The current field's content up to s[end]: pointer and length. */
static inline int field_text(sq_csv_parser *p, const u8 *s, size_t run, size_t end,
                      const char **t, size_t *n){
  if( p->copying ){
    if( end>run && buf_append(p, s+run, end-run) ) return error_nomem(p);
    *t = p->buf;
    *n = p->blen;
  }else{
    *t = (const char*)s+run;
    *n = end-run;
  }
  return SQ_CSV_OK;
}

/* A line end at s[i] (C_LF or C_CR) that is not inside quotes: line count. */
static void newline(sq_csv_parser *p, int cls, uint64_t off){
  if( cls==C_CR ){
    p->line++;
    p->cr_end = off+1;
  }else if( off!=p->cr_end ){
    p->line++;
  }
  p->line_start = off+1;
}

static int scan(sq_csv_parser *p, const u8 *s, size_t n){
  const u8 *cu = p->cu, *cq = p->cq;
  const uint64_t base = p->offset;
  size_t i = 0, run = 0, qend = 0;
  const char *t = 0;
  size_t tn = 0;
  int rc, c;
  const u8 quote = p->quote;
  const size_t maxf = p->max_field;
#if SQ_CSV_SSE2
  /* the bytes that stop the scan, as in p->cu / p->cq */
  const __m128i vd = _mm_set1_epi8((char)p->delim);
  const __m128i vq = _mm_set1_epi8((char)(cu[p->quote]==C_QUOTE ? p->quote : p->delim));
  const __m128i vqq = _mm_set1_epi8((char)p->quote);
  const __m128i vl = _mm_set1_epi8('\n'), vr = _mm_set1_epi8('\r');
  const int hi = !(p->opts & SQ_CSV_OPT_NO_UTF8_CHECK);
#endif

  switch( p->state ){
    case ST_REC:   goto st_rec;
    case ST_FIELD: goto st_field;
    case ST_UNQ:
      if( p->u_need ){
        i = utf8_resume(p, s, n);
        if( i==(size_t)-1 ) return SQ_CSV_ERROR;
      }
      goto st_unq;
    case ST_Q:
      if( p->u_need ){
        i = utf8_resume(p, s, n);
        if( i==(size_t)-1 ) return SQ_CSV_ERROR;
      }
      goto st_q;
    default: /* ST_QQ: the content so far is in buf, the quote is not */
      if( n==0 ) goto done;
      if( s[0]==quote ){
        if( buf_append(p, s, 1) ) return error_nomem(p);
        i = run = 1;
        p->state = ST_Q;
        goto st_q;
      }
      qend = 0;
      goto after_close;
  }

st_rec:
  /* before a record */
  while( i<n ){
    c = cu[s[i]];
    if( c==C_LF || c==C_CR ){
      uint64_t off = OFF(i);
      if( c==C_LF && off==p->cr_end ){       /* the LF of a CRLF */
        p->line_start = off+1;
        i++;
        continue;
      }
      rc = blank_line(p, off);
      newline(p, c, off);
      i++;
      if( rc==SQ_CSV_OK ) continue;
      if( rc==SQ_CSV_PAUSED ){ p->state = ST_REC; p->consumed = i; p->offset = base+i; return rc; }
      return rc;
    }
    p->r_off = OFF(i);
    p->r_line = p->line;
    p->r_col = OFF(i) - p->line_start + 1;
    goto field_start;
  }
  p->state = ST_REC;
  goto done;

st_field:
  if( i>=n ){ p->state = ST_FIELD; goto done; }
field_start:
  p->f_off = OFF(i);
  p->f_line = p->line;
  p->f_col = OFF(i) - p->line_start + 1;
  p->copying = 0;
  p->blen = 0;
  if( s[i]==quote && quote ){
    i++;
    run = i;
    p->state = ST_Q;
    goto st_q;
  }
  c = cu[s[i]];
  if( c==C_DELIM ){
    if( emit_field(p, 0, 0, 0)!=SQ_CSV_OK ) return SQ_CSV_ERROR;
    i++;
    goto st_field;
  }
  if( c==C_LF || c==C_CR ){
    if( emit_field(p, 0, 0, 0)!=SQ_CSV_OK ) return SQ_CSV_ERROR;
    goto record_end;
  }
  run = i;
  p->state = ST_UNQ;
  /* fall through */

st_unq:
  for(;;){
#if SQ_CSV_SSE2
    while( i+16<=n ){
      __m128i x = _mm_loadu_si128((const __m128i*)(const void*)(s+i));
      __m128i m = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(x, vd), _mm_cmpeq_epi8(x, vq)),
                               _mm_or_si128(_mm_cmpeq_epi8(x, vl), _mm_cmpeq_epi8(x, vr)));
      unsigned bits = (unsigned)_mm_movemask_epi8(hi ? _mm_or_si128(m, x) : m);
      if( bits ){ i += (size_t)__builtin_ctz(bits); goto unq_stop; }
      i += 16;
    }
#endif
    while( i<n && cu[s[i]]==C_PLAIN ) i++;
#if SQ_CSV_SSE2
  unq_stop:
#endif
    if( i>=n ){
      /* a chunk end: the bytes of a cut UTF-8 sequence do not count yet */
      if( SQ_UNLIKELY(FLEN(run, n) - (size_t)p->u_have > maxf) ) return error_too_long(p);
      p->copying = 1;
      if( n>run && buf_append(p, s+run, n-run) ) return error_nomem(p);
      p->state = ST_UNQ;
      goto done;
    }
    if( SQ_UNLIKELY(FLEN(run, i) > maxf) ) return error_too_long(p);
    c = cu[s[i]];
    if( c==C_DELIM ){
      if( field_text(p, s, run, i, &t, &tn)!=SQ_CSV_OK ) return SQ_CSV_ERROR;
      if( emit_field(p, t, tn, 0)!=SQ_CSV_OK ) return SQ_CSV_ERROR;
      i++;
      goto st_field;
    }
    if( c==C_LF || c==C_CR ){
      if( field_text(p, s, run, i, &t, &tn)!=SQ_CSV_OK ) return SQ_CSV_ERROR;
      if( emit_field(p, t, tn, 0)!=SQ_CSV_OK ) return SQ_CSV_ERROR;
      goto record_end;
    }
    if( c==C_QUOTE ){
      return error_here(p, SQ_CSV_E_QUOTE, "quote character inside an unquoted field "
                        "(quote the whole field and double the quote)", OFF(i));
    }
    /* C_HI */
    i = utf8_seq(p, s, i, n, base);
    if( i==(size_t)-1 ) return SQ_CSV_ERROR;
  }

st_q:
  for(;;){
#if SQ_CSV_SSE2
    while( i+16<=n ){
      __m128i x = _mm_loadu_si128((const __m128i*)(const void*)(s+i));
      __m128i m = _mm_or_si128(_mm_cmpeq_epi8(x, vqq),
                               _mm_or_si128(_mm_cmpeq_epi8(x, vl), _mm_cmpeq_epi8(x, vr)));
      unsigned bits = (unsigned)_mm_movemask_epi8(hi ? _mm_or_si128(m, x) : m);
      if( bits ){ i += (size_t)__builtin_ctz(bits); goto q_stop; }
      i += 16;
    }
#endif
    while( i<n && cq[s[i]]==C_PLAIN ) i++;
#if SQ_CSV_SSE2
  q_stop:
#endif
    if( i>=n ){
      /* a chunk end: the bytes of a cut UTF-8 sequence do not count yet */
      if( SQ_UNLIKELY(FLEN(run, n) - (size_t)p->u_have > maxf) ) return error_too_long(p);
      p->copying = 1;
      if( n>run && buf_append(p, s+run, n-run) ) return error_nomem(p);
      p->state = ST_Q;
      goto done;
    }
    if( SQ_UNLIKELY(FLEN(run, i) > maxf) ) return error_too_long(p);
    c = cq[s[i]];
    if( c==C_QUOTE ){
      if( i+1>=n ){
        /* the chunk ends right after the quote: decided by the next byte */
        p->copying = 1;
        if( i>run && buf_append(p, s+run, i-run) ) return error_nomem(p);
        i = n;
        p->state = ST_QQ;
        goto done;
      }
      if( s[i+1]==quote ){
        /* "" -> " */
        p->copying = 1;
        if( buf_append(p, s+run, i+1-run) ) return error_nomem(p);
        i += 2;
        run = i;
        continue;
      }
      qend = i;
      i++;
      goto after_close;
    }
    if( c==C_LF || c==C_CR ){
      newline(p, c, OFF(i));
      i++;
      continue;
    }
    i = utf8_seq(p, s, i, n, base);
    if( i==(size_t)-1 ) return SQ_CSV_ERROR;
  }

after_close:
  /* s[i] follows a closing quote; the content is s[run..qend) (+ buf) */
  if( i>=n ){
    /* only after ST_QQ with an empty chunk: nothing to do */
    goto done;
  }
  c = cu[s[i]];
  if( c==C_DELIM || c==C_LF || c==C_CR ){
    if( field_text(p, s, run, qend, &t, &tn)!=SQ_CSV_OK ) return SQ_CSV_ERROR;
    if( emit_field(p, t, tn, SQ_CSV_F_QUOTED)!=SQ_CSV_OK ) return SQ_CSV_ERROR;
    if( c==C_DELIM ){ i++; goto st_field; }
    goto record_end;
  }
  return error_here(p, SQ_CSV_E_AFTER_QUOTE, "expected a delimiter or a line end "
                    "after the closing quote", OFF(i));

record_end:
  /* s[i] is the line end (C_LF or C_CR) of a record whose fields are out */
  {
    uint64_t off = OFF(i);
    rc = emit_record(p, off);
    newline(p, cu[s[i]], off);
    i++;
    p->state = ST_REC;
    if( rc==SQ_CSV_OK ) goto st_rec;
    if( rc==SQ_CSV_PAUSED ){ p->consumed = i; p->offset = base+i; return rc; }
    return rc;
  }

done:
  p->consumed = n;
  p->offset = base+n;
  return SQ_CSV_OK;
}

/* ---------------------------------------------------------------- API */

void sq_csv_reset(sq_csv_parser *p){
  p->state = ST_REC;
  p->error = 0;
  p->bom = 0;
  p->offset = 0;
  p->line = 1;
  p->line_start = 0;
  p->cr_end = (uint64_t)-1;
  p->record = 0;
  p->fidx = 0;
  p->width = 0;
  p->have_width = 0;
  p->limit = UINT64_MAX;
  p->in_header = (p->opts & SQ_CSV_OPT_HEADER)!=0;
  p->blen = 0;
  p->copying = 0;
  p->u_need = p->u_have = 0;
  p->consumed = 0;
  memset(&p->err, 0, sizeof p->err);
  memset(&p->ev, 0, sizeof p->ev);
  p->ev.type = SQ_CSV_FIELD;
}

sq_csv_parser *sq_csv_new(sq_csv_callback cb, void *user){
  sq_csv_parser *p = (sq_csv_parser*)SQ_CSV_MALLOC(sizeof(*p));
  if( !p ) return 0;
  memset(p, 0, sizeof(*p));
  p->cb = cb;
  p->user = user;
  p->delim = ',';
  p->quote = '"';
  p->max_field = SQ_CSV_DEFAULT_MAX_FIELD;
  build_tables(p);
  sq_csv_reset(p);
  return p;
}

void sq_csv_free(sq_csv_parser *p){
  if( !p ) return;
  SQ_CSV_FREE(p->buf);
  SQ_CSV_FREE(p->null_text);
  SQ_CSV_FREE(p);
}

void sq_csv_set_callback(sq_csv_parser *p, sq_csv_callback cb, void *user){
  p->cb = cb;
  p->user = user;
}

void sq_csv_set_options(sq_csv_parser *p, unsigned opts){
  p->opts = opts;
  build_tables(p);
  if( p->record==0 ) p->in_header = (opts & SQ_CSV_OPT_HEADER)!=0;
  if( p->have_width ) p->limit = (opts & SQ_CSV_OPT_RAGGED) ? UINT64_MAX : p->width;
}

unsigned sq_csv_options_get(const sq_csv_parser *p){ return p->opts; }
uint64_t sq_csv_record_start(const sq_csv_parser *p){
  if( p->error ) return UINT64_MAX;
  if( p->bom>0 && p->bom<3 ) return 0;      /* bytes matched as a BOM may begin the first record */
  return p->state!=ST_REC ? p->r_off : UINT64_MAX;
}

static int bad_special(int c){
  return c<=0 || c>=0x80 || c=='\r' || c=='\n';
}

int sq_csv_set_delimiter(sq_csv_parser *p, int d){
  if( bad_special(d) || d==p->quote ) return 1;
  p->delim = (u8)d;
  build_tables(p);
  return 0;
}

int sq_csv_set_quote(sq_csv_parser *p, int q){
  if( q!=0 && (bad_special(q) || q==p->delim) ) return 1;
  p->quote = (u8)q;
  build_tables(p);
  return 0;
}

int sq_csv_set_null(sq_csv_parser *p, const char *text, size_t len){
  SQ_CSV_FREE(p->null_text);
  p->null_text = 0;
  p->null_len = 0;
  p->null_list = 0;
  if( !text || len==0 ) return 0;
  p->null_text = (char*)SQ_CSV_MALLOC(len);
  if( !p->null_text ) return 1;
  memcpy(p->null_text, text, len);
  p->null_len = len;
  p->null_list = memchr(text, 0, len)!=0;
  return 0;
}

void sq_csv_set_max_field(sq_csv_parser *p, size_t n){ p->max_field = n ? n : 1; }

/* Scans the first bytes of the input that looked like a BOM but were not. */
static int replay_bom(sq_csv_parser *p){
  int k = p->bom;
  p->bom = 3;
  if( k==0 ) return SQ_CSV_OK;
  return scan(p, kBom, (size_t)k);   /* cannot end a field: no event */
}

int sq_csv_feed(sq_csv_parser *p, const void *bytes, size_t len){
  const u8 *s = (const u8*)bytes;
  size_t pre = 0;
  int rc;
  p->consumed = 0;
  if( p->error ) return SQ_CSV_ERROR;
  while( p->bom<3 && pre<len ){
    if( s[pre]==kBom[p->bom] ){
      pre++;
      if( ++p->bom==3 ){ p->offset = 3; p->line_start = 3; }
    }else{
      if( replay_bom(p)!=SQ_CSV_OK ) return SQ_CSV_ERROR;
      break;
    }
  }
  rc = scan(p, s+pre, len-pre);
  p->consumed += pre;
  return rc;
}

size_t sq_csv_consumed(const sq_csv_parser *p){ return p->consumed; }

int sq_csv_finish(sq_csv_parser *p){
  uint64_t end;
  if( p->error ) return SQ_CSV_ERROR;
  if( p->bom<3 && replay_bom(p)!=SQ_CSV_OK ) return SQ_CSV_ERROR;
  end = p->offset;
  switch( p->state ){
    case ST_REC:
      return SQ_CSV_OK;
    case ST_FIELD:
      /* after a delimiter: an empty last field */
      p->f_off = end;
      p->f_line = p->line;
      p->f_col = end - p->line_start + 1;
      p->copying = 0;
      if( emit_field(p, 0, 0, 0)!=SQ_CSV_OK ) return SQ_CSV_ERROR;
      break;
    case ST_UNQ:
      if( p->u_need ){
        return set_error(p, SQ_CSV_E_UTF8, "invalid UTF-8", p->u_off, p->u_line, p->u_col, p->fidx);
      }
      if( emit_field(p, p->buf, p->blen, 0)!=SQ_CSV_OK ) return SQ_CSV_ERROR;
      break;
    case ST_Q:
      return set_error(p, SQ_CSV_E_UNTERMINATED, "unterminated quoted field "
                       "(the input ends before its closing quote)",
                       p->f_off, p->f_line, p->f_col, p->fidx);
    default: /* ST_QQ: closed by the end of the input */
      if( emit_field(p, p->buf, p->blen, SQ_CSV_F_QUOTED)!=SQ_CSV_OK ) return SQ_CSV_ERROR;
      break;
  }
  p->state = ST_REC;
  if( emit_record(p, end)==SQ_CSV_ERROR ) return SQ_CSV_ERROR;
  return SQ_CSV_OK;
}

const sq_csv_error *sq_csv_error_info(const sq_csv_parser *p){ return &p->err; }
uint64_t sq_csv_offset(const sq_csv_parser *p){ return p->offset; }
uint64_t sq_csv_records(const sq_csv_parser *p){ return p->record; }
uint64_t sq_csv_width(const sq_csv_parser *p){ return p->have_width ? p->width : 0; }
