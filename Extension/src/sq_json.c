/*
** sq_json.c — the incremental (push) JSON parser of StreamQLite.
**
** The C API and the accepted grammar are documented in
** Extension/include/sq_json.h (the user manual of this file).
**
** Design
**   - One pass, a small state machine over the grammar (expect value /
**     key / ':' / ',' or close) and a bit stack of open containers
**     (SQ_JSON_MAX_DEPTH bits, no allocation).
**   - Tokens that lie entirely inside the current chunk are lexed in place:
**     a string without escapes is handed to the callback as a pointer into
**     the caller's chunk (no copy); plain string runs are skipped 8 bytes at
**     a time (SWAR).
**   - A token cut by the end of a chunk is carried: its raw bytes are
**     accumulated in the scratch buffer until its end is seen, then lexed
**     by the same routines, from the scratch buffer.  The lexers report the
**     first offending byte, so events and errors do not depend on where the
**     input was cut.
**   - Memory: the parser struct plus one scratch buffer bounded by the
**     token limit.
*/
#include "sq_internal.h"
#include "sq_json.h"

#include <string.h>
#include <stdlib.h>
#include <locale.h>
#include <stddef.h>

#ifdef SQ_JSON_USE_LIBC
# define SQ_JSON_MALLOC(n)     malloc(n)
# define SQ_JSON_REALLOC(p,n)  realloc((p),(n))
# define SQ_JSON_FREE(p)       free(p)
#else
# define SQ_JSON_MALLOC(n)     sqlite3_malloc64(n)
# define SQ_JSON_REALLOC(p,n)  sqlite3_realloc64((p),(n))
# define SQ_JSON_FREE(p)       sqlite3_free(p)
#endif

typedef unsigned char u8;

#if defined(__GNUC__) || defined(__clang__)
# define SQ_INLINE static inline __attribute__((always_inline))
# define SQ_LIKELY(x)   __builtin_expect(!!(x), 1)
# define SQ_UNLIKELY(x) __builtin_expect(!!(x), 0)
#else
# define SQ_INLINE static inline
# define SQ_LIKELY(x)   (x)
# define SQ_UNLIKELY(x) (x)
#endif

/* Grammar states. */
enum {
  ST_START = 0,     /* before the first top-level value */
  ST_VALUE,         /* a value must follow (after ':' or an array's ',') */
  ST_ARRAY_FIRST,   /* after '[': a value or ']' */
  ST_OBJ_FIRST,     /* after '{': a key or '}' */
  ST_KEY,           /* after an object's ',': a key */
  ST_COLON,         /* after a key: ':' */
  ST_AFTER,         /* after a value inside a container: ',' or close */
  ST_END            /* after a top-level value */
};

/* Carried (chunk-split) token kinds. */
enum { CARRY_NONE = 0, CARRY_STRING, CARRY_NUMBER, CARRY_LITERAL };

struct sq_json_parser {
  sq_json_callback cb;
  void *user;
  unsigned options;
  int max_depth;
  size_t max_token;

  int state;
  int depth;
  int error;                  /* non-zero: in the error state */
  int nl_seen;                /* a '\n' since the last top-level value */
  int bom_active;             /* still at the start: a BOM may follow */
  int bom_matched;            /* BOM bytes matched so far */
  uint64_t nvalues;           /* completed top-level values */

  int carry;                  /* CARRY_* */
  int carry_key;              /* carried string is a key */
  int carry_esc;              /* carried string ends inside an escape */
  size_t carry_checked;       /* carried string: content bytes checked */
  uint64_t tok_offset, tok_line, tok_column;

  u8 *buf;                    /* scratch: carried raw token / decoded string */
  size_t buf_len, buf_cap;

  uint64_t base;              /* absolute offset of the current chunk */
  uint64_t line;              /* current line (1-based) */
  uint64_t line_start;        /* absolute offset of the current line */
  size_t consumed;

  sq_json_error err;
  sq_json_token tok;
  u8 stack[SQ_JSON_MAX_DEPTH/8 + 1];   /* bit set: object; clear: array */
};

/* Bytes that end a plain string run: '"', '\\', controls, non-ASCII. */
static const u8 kStringStop[256] = {
  1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1, 1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,
  0,0,1,0,0,0,0,0,0,0,0,0,0,0,0,0, 0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,
  0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0, 0,0,0,0,0,0,0,0,0,0,0,0,1,0,0,0,
  0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0, 0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,
  1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1, 1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,
  1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1, 1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,
  1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1, 1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,
  1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1, 1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1
};

static int is_number_char(u8 c){
  return (c>='0' && c<='9') || c=='-' || c=='+' || c=='.' || c=='e' || c=='E';
}
static int is_letter(u8 c){
  return (c>='a' && c<='z') || (c>='A' && c<='Z');
}

/* ---------------------------------------------------------------- errors */

static int set_error(sq_json_parser *p, int code, const char *msg, uint64_t off){
  if( p->error ) return SQ_JSON_ERROR;
  p->error = 1;
  p->err.code = code;
  strncpy(p->err.message, msg, sizeof(p->err.message)-1);
  p->err.message[sizeof(p->err.message)-1] = 0;
  p->err.offset = off;
  p->err.line = p->line;
  p->err.column = off>=p->line_start ? off - p->line_start + 1 : 1;
  return SQ_JSON_ERROR;
}

/* Error inside a token that started at tok_offset/tok_line: tokens never
** contain a newline that was accepted, so the token's line is the line. */
static int set_token_error(sq_json_parser *p, int code, const char *msg,
                           uint64_t tokoff, uint64_t tokline, uint64_t tokcol,
                           size_t idx){
  if( p->error ) return SQ_JSON_ERROR;
  set_error(p, code, msg, tokoff + idx);
  p->err.line = tokline;
  p->err.column = tokcol + idx;
  return SQ_JSON_ERROR;
}

/* ---------------------------------------------------------------- UTF-8 */

/* Length of the UTF-8 sequence at q (lead byte >= 0x80): 2..4 if valid,
** 0 if invalid, -1 if a valid prefix is cut by `end`. */
static int utf8_seq(const u8 *q, const u8 *end){
  unsigned c = q[0];
  int n, i;
  u8 lo = 0x80, hi = 0xBF;
  ptrdiff_t avail = end - q;
  if( c<0xC2 ) return 0;
  if( c<0xE0 ) n = 2;
  else if( c<0xF0 ){ n = 3; if( c==0xE0 ) lo = 0xA0; else if( c==0xED ) hi = 0x9F; }
  else if( c<0xF5 ){ n = 4; if( c==0xF0 ) lo = 0x90; else if( c==0xF4 ) hi = 0x8F; }
  else return 0;
  if( avail<2 ) return -1;
  if( q[1]<lo || q[1]>hi ) return 0;
  for(i=2; i<n; i++){
    if( i>=avail ) return -1;
    if( (q[i]&0xC0)!=0x80 ) return 0;
  }
  return n;
}

static size_t utf8_put(u8 *d, unsigned cp){
  if( cp<0x80 ){ d[0] = (u8)cp; return 1; }
  if( cp<0x800 ){ d[0] = (u8)(0xC0|(cp>>6)); d[1] = (u8)(0x80|(cp&0x3F)); return 2; }
  if( cp<0x10000 ){
    d[0] = (u8)(0xE0|(cp>>12)); d[1] = (u8)(0x80|((cp>>6)&0x3F));
    d[2] = (u8)(0x80|(cp&0x3F)); return 3;
  }
  d[0] = (u8)(0xF0|(cp>>18)); d[1] = (u8)(0x80|((cp>>12)&0x3F));
  d[2] = (u8)(0x80|((cp>>6)&0x3F)); d[3] = (u8)(0x80|(cp&0x3F)); return 4;
}

static int hex4(const u8 *q, unsigned *out){
  unsigned v = 0;
  int i;
  for(i=0; i<4; i++){
    u8 c = q[i];
    v <<= 4;
    if( c>='0' && c<='9' ) v |= (unsigned)(c-'0');
    else if( c>='a' && c<='f' ) v |= (unsigned)(c-'a'+10);
    else if( c>='A' && c<='F' ) v |= (unsigned)(c-'A'+10);
    else return i;           /* index of the bad digit */
  }
  *out = v;
  return -1;
}

/* Result of the lexers. */
enum { LEX_OK = 0, LEX_MORE = 1, LEX_ERR = 2 };

typedef struct lex_err {
  int code;
  const char *msg;
  size_t idx;       /* index of the offending byte from the token start */
} lex_err;

/* Decodes string content src[0..n) (the bytes after the opening quote, up
** to but excluding the closing quote) into dst (dst may equal src: the
** output is never longer than the input); with `write` 0 only checks it
** (dst, outlen, flags unused: check_string).  `complete`: the closing quote
** follows src[n-1], so a sequence cut at n is invalid; otherwise it means
** the input was truncated: LEX_MORE, e->idx the index where the cut
** sequence or escape starts (checking goes on from there when more input
** came).  Errors are found left to right and only from the bytes read, so
** checking a string piece by piece reports the same first error as
** decoding it whole.  Indexes in *e are relative to src. */
SQ_INLINE int string_content(const u8 *src, size_t n, u8 *dst, size_t *outlen,
                             unsigned *flags, int complete, lex_err *e, int write){
  size_t i = 0, o = 0;
  const u8 *end = src + n;
  while( i<n ){
    size_t j = i;
    u8 c;
    while( j<n && !kStringStop[src[j]] ) j++;
    if( j>i ){
      if( write && dst+o!=src+i ) memmove(dst+o, src+i, j-i);
      o += j-i;
      i = j;
    }
    if( i>=n ) break;
    c = src[i];
    if( c>=0x80 ){
      int k = utf8_seq(src+i, end);
      if( k==0 || (k<0 && complete) ){
        e->code = SQ_JSON_E_UTF8; e->msg = "invalid UTF-8 in a string"; e->idx = i;
        return LEX_ERR;
      }
      if( k<0 ){ e->idx = i; return LEX_MORE; }
      if( write && dst+o!=src+i ) memmove(dst+o, src+i, (size_t)k);
      o += (size_t)k; i += (size_t)k;
      continue;
    }
    if( c<0x20 ){
      e->code = SQ_JSON_E_SYNTAX;
      e->msg = "unescaped control character in a string"; e->idx = i;
      return LEX_ERR;
    }
    if( c=='"' ){
      /* only reachable when decoding a partial (unterminated) string: the
      ** callers pass the content before the closing quote */
      e->code = SQ_JSON_E_SYNTAX; e->msg = "unexpected '\"'"; e->idx = i;
      return LEX_ERR;
    }
    /* backslash */
    if( write ) *flags |= SQ_JSON_F_ESCAPED;
    if( i+1>=n ){
      if( complete ){
        e->code = SQ_JSON_E_SYNTAX; e->msg = "invalid escape in a string"; e->idx = i;
        return LEX_ERR;
      }
      e->idx = i; return LEX_MORE;
    }
    c = src[i+1];
    switch( c ){
      case '"':  if( write ) dst[o] = '"'; o++; i += 2; continue;
      case '\\': if( write ) dst[o] = '\\'; o++; i += 2; continue;
      case '/':  if( write ) dst[o] = '/'; o++; i += 2; continue;
      case 'b':  if( write ) dst[o] = '\b'; o++; i += 2; continue;
      case 'f':  if( write ) dst[o] = '\f'; o++; i += 2; continue;
      case 'n':  if( write ) dst[o] = '\n'; o++; i += 2; continue;
      case 'r':  if( write ) dst[o] = '\r'; o++; i += 2; continue;
      case 't':  if( write ) dst[o] = '\t'; o++; i += 2; continue;
      case 'u': {
        unsigned cp, lo;
        int bad;
        size_t avail = n - (i+2);
        if( avail<4 ){
          /* check the digits that are there */
          size_t k;
          for(k=0; k<avail; k++){
            u8 h = src[i+2+k];
            if( !((h>='0'&&h<='9')||(h>='a'&&h<='f')||(h>='A'&&h<='F')) ){
              e->code = SQ_JSON_E_SYNTAX; e->msg = "invalid \\u escape";
              e->idx = i+2+k; return LEX_ERR;
            }
          }
          if( complete ){
            e->code = SQ_JSON_E_SYNTAX; e->msg = "invalid \\u escape"; e->idx = n;
            return LEX_ERR;
          }
          e->idx = i; return LEX_MORE;
        }
        bad = hex4(src+i+2, &cp);
        if( bad>=0 ){
          e->code = SQ_JSON_E_SYNTAX; e->msg = "invalid \\u escape";
          e->idx = i+2+(size_t)bad; return LEX_ERR;
        }
        if( cp>=0xDC00 && cp<=0xDFFF ){
          e->code = SQ_JSON_E_SYNTAX; e->msg = "lone low surrogate in \\u escape";
          e->idx = i; return LEX_ERR;
        }
        if( cp>=0xD800 && cp<=0xDBFF ){
          /* needs \uDC00..\uDFFF next */
          size_t r = i+6;
          size_t have = n>r ? n-r : 0;
          static const u8 pre[2] = { '\\', 'u' };
          size_t k;
          for(k=0; k<2 && k<have; k++){
            if( src[r+k]!=pre[k] ){
              e->code = SQ_JSON_E_SYNTAX;
              e->msg = "high surrogate not followed by a low surrogate";
              e->idx = i; return LEX_ERR;
            }
          }
          if( have<6 ){
            for(k=2; k<have; k++){
              u8 h = src[r+k];
              if( !((h>='0'&&h<='9')||(h>='a'&&h<='f')||(h>='A'&&h<='F')) ){
                e->code = SQ_JSON_E_SYNTAX; e->msg = "invalid \\u escape";
                e->idx = r+k; return LEX_ERR;
              }
            }
            if( complete ){
              e->code = SQ_JSON_E_SYNTAX;
              e->msg = "high surrogate not followed by a low surrogate";
              e->idx = i; return LEX_ERR;
            }
            e->idx = i; return LEX_MORE;
          }
          bad = hex4(src+r+2, &lo);
          if( bad>=0 ){
            e->code = SQ_JSON_E_SYNTAX; e->msg = "invalid \\u escape";
            e->idx = r+2+(size_t)bad; return LEX_ERR;
          }
          if( lo<0xDC00 || lo>0xDFFF ){
            e->code = SQ_JSON_E_SYNTAX;
            e->msg = "high surrogate not followed by a low surrogate";
            e->idx = i; return LEX_ERR;
          }
          cp = 0x10000 + ((cp-0xD800)<<10) + (lo-0xDC00);
          if( write ) o += utf8_put(dst+o, cp);
          i += 12;
          continue;
        }
        if( write && cp==0 ) *flags |= SQ_JSON_F_HAS_NUL;
        if( write ) o += utf8_put(dst+o, cp);
        i += 6;
        continue;
      }
      default:
        e->code = SQ_JSON_E_SYNTAX; e->msg = "invalid escape in a string"; e->idx = i;
        return LEX_ERR;
    }
  }
  if( write ) *outlen = o;
  else e->idx = n;
  return LEX_OK;
}

static int decode_string(const u8 *src, size_t n, u8 *dst, size_t *outlen,
                         unsigned *flags, int complete, lex_err *e){
  return string_content(src, n, dst, outlen, flags, complete, e, 1);
}

/* Checks string content src[0..n) of a string not closed yet (or checked
** up to the token limit only): LEX_ERR, or LEX_MORE / LEX_OK with e->idx
** where checking must go on (the start of a sequence cut at n, or n). */
static int check_string(const u8 *src, size_t n, lex_err *e){
  return string_content(src, n, 0, 0, 0, 0, e, 0);
}

/* Lexes a number at s (s < end, *s is '-' or a digit).  LEX_OK: *len is
** the literal's length and s[*len] (if < end) is not a number character.
** LEX_MORE: the literal runs up to `end` and could continue (only when
** !final).  LEX_ERR: e->idx is the offending byte. */
SQ_INLINE int lex_number(const u8 *s, const u8 *end, int final, size_t *len,
                      unsigned *flags, lex_err *e){
  const u8 *q = s;
  unsigned f = SQ_JSON_F_INTEGER;
  if( *q=='-' ){ f |= SQ_JSON_F_NEGATIVE; q++; }
  if( q>=end ) goto more;
  if( *q=='0' ){
    q++;
    if( q<end && *q>='0' && *q<='9' ){
      e->code = SQ_JSON_E_SYNTAX; e->msg = "leading zero in a number";
      e->idx = (size_t)(q-s);
      return LEX_ERR;
    }
  }else if( *q>='1' && *q<='9' ){
    q++;
    while( q<end && *q>='0' && *q<='9' ) q++;
  }else{
    goto bad;
  }
  if( q>=end ) goto more;
  if( *q=='.' ){
    f &= ~SQ_JSON_F_INTEGER;
    q++;
    if( q>=end ) goto more;
    if( !(*q>='0' && *q<='9') ) goto bad;
    while( q<end && *q>='0' && *q<='9' ) q++;
    if( q>=end ) goto more;
  }
  if( *q=='e' || *q=='E' ){
    f &= ~SQ_JSON_F_INTEGER;
    q++;
    if( q>=end ) goto more;
    if( *q=='+' || *q=='-' ){ q++; if( q>=end ) goto more; }
    if( !(*q>='0' && *q<='9') ) goto bad;
    while( q<end && *q>='0' && *q<='9' ) q++;
    if( q>=end ) goto more;
  }
  if( is_number_char(*q) ) goto bad;
  *len = (size_t)(q-s);
  *flags = f;
  return LEX_OK;
more:
  if( !final ) return LEX_MORE;
  /* at the true end of the token: complete only if it ended after a digit */
  if( q>s && q[-1]>='0' && q[-1]<='9' ){
    *len = (size_t)(q-s);
    *flags = f;
    return LEX_OK;
  }
bad:
  e->code = SQ_JSON_E_SYNTAX;
  e->msg = "invalid number";
  e->idx = (size_t)(q-s);
  return LEX_ERR;
}

/* Lexes true/false/null at s.  Same contract as lex_number. */
SQ_INLINE int lex_literal(const u8 *s, const u8 *end, int final, int *type,
                       size_t *len, lex_err *e){
  const char *w;
  size_t n, i;
  int t;
  if( SQ_LIKELY(end-s>=6) ){
    uint32_t x;
    memcpy(&x, s, 4);
    if( memcmp(&x, "true", 4)==0 && !is_letter(s[4]) ){ *type = SQ_JSON_TRUE; *len = 4; return LEX_OK; }
    if( memcmp(&x, "null", 4)==0 && !is_letter(s[4]) ){ *type = SQ_JSON_NULL; *len = 4; return LEX_OK; }
    if( memcmp(&x, "fals", 4)==0 && s[4]=='e' && !is_letter(s[5]) ){ *type = SQ_JSON_FALSE; *len = 5; return LEX_OK; }
  }
  switch( *s ){
    case 't': w = "true";  n = 4; t = SQ_JSON_TRUE;  break;
    case 'f': w = "false"; n = 5; t = SQ_JSON_FALSE; break;
    default:  w = "null";  n = 4; t = SQ_JSON_NULL;  break;
  }
  for(i=0; i<n; i++){
    if( s+i>=end ){
      if( !final ) return LEX_MORE;
      break;
    }
    if( (u8)w[i]!=s[i] ) break;
  }
  if( i==n ){
    if( s+n<end && is_letter(s[n]) ){ i = n; goto bad; }
    if( s+n>=end && !final ) return LEX_MORE;
    *type = t; *len = n;
    return LEX_OK;
  }
bad:
  e->code = SQ_JSON_E_SYNTAX;
  e->msg = "invalid literal (expected true, false or null)";
  e->idx = 0;
  return LEX_ERR;
}

/* ---------------------------------------------------------------- scratch */

static int buf_reserve(sq_json_parser *p, size_t need){
  if( need>p->buf_cap ){
    size_t cap = p->buf_cap ? p->buf_cap : 256;
    u8 *b;
    while( cap<need ) cap *= 2;
    b = (u8*)SQ_JSON_REALLOC(p->buf, cap);
    if( !b ) return 0;
    p->buf = b;
    p->buf_cap = cap;
  }
  return 1;
}

/* ---------------------------------------------------------------- API */

void sq_json_reset(sq_json_parser *p){
  p->state = ST_START;
  p->depth = 0;
  p->error = 0;
  p->nl_seen = 0;
  p->bom_active = 1;
  p->bom_matched = 0;
  p->nvalues = 0;
  p->carry = CARRY_NONE;
  p->carry_key = 0;
  p->carry_esc = 0;
  p->buf_len = 0;
  p->base = 0;
  p->line = 1;
  p->line_start = 0;
  p->consumed = 0;
  memset(&p->err, 0, sizeof(p->err));
}

void sq_json_restart_at(sq_json_parser *p, uint64_t offset, uint64_t line){
  sq_json_reset(p);
  p->bom_active = 0;
  p->base = offset;
  p->line = line;
  p->line_start = offset;
}

uint64_t sq_json_pending_start(const sq_json_parser *p){
  return p->carry!=CARRY_NONE && !p->error ? p->tok_offset : UINT64_MAX;
}

void sq_json_line(const sq_json_parser *p, uint64_t *line, uint64_t *line_start){
  *line = p->line;
  *line_start = p->line_start;
}

void sq_json_set_callback(sq_json_parser *p, sq_json_callback cb, void *user){
  p->cb = cb;
  p->user = user;
}

sq_json_parser *sq_json_new(sq_json_callback cb, void *user){
  sq_json_parser *p = (sq_json_parser*)SQ_JSON_MALLOC(sizeof(*p));
  if( !p ) return 0;
  memset(p, 0, sizeof(*p));
  p->cb = cb;
  p->user = user;
  p->max_depth = SQ_JSON_MAX_DEPTH;
  p->max_token = SQ_JSON_DEFAULT_MAX_TOKEN;
  sq_json_reset(p);
  return p;
}

void sq_json_free(sq_json_parser *p){
  if( !p ) return;
  SQ_JSON_FREE(p->buf);
  SQ_JSON_FREE(p);
}

void sq_json_set_options(sq_json_parser *p, unsigned opts){ p->options = opts; }
void sq_json_set_max_depth(sq_json_parser *p, int d){
  if( d<1 ) d = 1;
  if( d>SQ_JSON_MAX_DEPTH ) d = SQ_JSON_MAX_DEPTH;
  p->max_depth = d;
}
void sq_json_set_max_token(sq_json_parser *p, size_t n){ p->max_token = n ? n : 1; }
size_t sq_json_consumed(const sq_json_parser *p){ return p->consumed; }
const sq_json_error *sq_json_error_info(const sq_json_parser *p){ return &p->err; }
uint64_t sq_json_offset(const sq_json_parser *p){ return p->base; }
int sq_json_depth(const sq_json_parser *p){ return p->depth; }

/* ---------------------------------------------------------------- events */

#define STACK_IS_OBJ(p) ((p)->stack[((p)->depth-1)>>3] & (1u<<(((p)->depth-1)&7)))

/* After a value at the current depth: next state. */
SQ_INLINE void value_done(sq_json_parser *p){
  if( p->depth==0 ){
    p->state = ST_END;
    p->nl_seen = 0;
    p->nvalues++;
  }else{
    p->state = ST_AFTER;
  }
}

SQ_INLINE int tape_event(void *user, const sq_json_token *k);

/* Calls the callback; returns 0 to go on, SQ_JSON_PAUSED or SQ_JSON_ERROR.
** The tape's callback is called directly (inlined: no indirect call). */
SQ_INLINE int emit(sq_json_parser *p, int type, unsigned flags, const void *text,
                size_t len, uint64_t off, uint64_t line, uint64_t col, int depth){
  int rc;
  sq_json_token *t = &p->tok;
  t->type = type;
  t->flags = flags;
  t->text = (const char*)text;
  t->len = len;
  t->offset = off;
  t->line = line;
  t->column = col;
  t->depth = depth;
  if( p->cb==sq_json_tape_event ) rc = tape_event(p->user, t);
  else rc = p->cb ? p->cb(p->user, t) : SQ_JSON_CONTINUE;
  if( rc==SQ_JSON_CONTINUE ) return 0;
  if( rc==SQ_JSON_PAUSE ) return SQ_JSON_PAUSED;
  set_error(p, SQ_JSON_E_ABORTED, "stopped by the callback", off);
  p->err.line = line;
  p->err.column = col;
  return SQ_JSON_ERROR;
}

/* A scalar or key just lexed: update the grammar state, then emit. */
SQ_INLINE int emit_scalar(sq_json_parser *p, int type, unsigned flags,
                       const void *text, size_t len,
                       uint64_t off, uint64_t line, uint64_t col){
  if( type==SQ_JSON_KEY ){
    p->state = ST_COLON;
  }else{
    value_done(p);
  }
  return emit(p, type, flags, text, len, off, line, col, p->depth);
}

/* Is a value allowed in the current state?  (Sets the error if not.)  */
static int check_value_allowed(sq_json_parser *p, uint64_t off){
  if( p->state==ST_END ){
    if( !(p->options & SQ_JSON_OPT_MULTIPLE) ){
      set_error(p, SQ_JSON_E_SYNTAX, "unexpected data after the top-level value", off);
      return 0;
    }
    if( !p->nl_seen ){
      set_error(p, SQ_JSON_E_SYNTAX, "expected a newline between top-level values", off);
      return 0;
    }
  }
  return 1;
}

/* Finishes a carried token whose raw bytes (complete) are in p->buf.
** `final`: no more input (sq_json_finish). */
static int finish_carry(sq_json_parser *p, int final){
  lex_err e = {0,0,0};
  int carry = p->carry;
  p->carry = CARRY_NONE;
  if( carry==CARRY_STRING ){
    size_t n = p->buf_len, outlen = 0;
    unsigned flags = 0;
    int complete = !final;          /* finish(): the closing quote is missing */
    size_t clen = complete ? n-2 : n-1;   /* content between the quotes */
    int rc = decode_string(p->buf+1, clen, p->buf, &outlen, &flags, complete, &e);
    if( rc==LEX_ERR ){
      return set_token_error(p, e.code, e.msg, p->tok_offset, p->tok_line,
                             p->tok_column, e.idx+1);
    }
    if( final ){
      return set_token_error(p, SQ_JSON_E_TRUNCATED, "unterminated string",
                             p->tok_offset, p->tok_line, p->tok_column, n);
    }
    return emit_scalar(p, p->carry_key ? SQ_JSON_KEY : SQ_JSON_STRING, flags,
                       p->buf, outlen, p->tok_offset, p->tok_line, p->tok_column);
  }else if( carry==CARRY_NUMBER ){
    size_t len = 0;
    unsigned flags = 0;
    int rc = lex_number(p->buf, p->buf+p->buf_len, 1, &len, &flags, &e);
    if( rc==LEX_OK && len<p->buf_len ){
      rc = LEX_ERR; e.code = SQ_JSON_E_SYNTAX; e.msg = "invalid number"; e.idx = len;
    }
    if( rc!=LEX_OK ){
      if( final && e.idx>=p->buf_len ){
        return set_token_error(p, SQ_JSON_E_TRUNCATED, "truncated number",
                               p->tok_offset, p->tok_line, p->tok_column, e.idx);
      }
      return set_token_error(p, e.code, e.msg, p->tok_offset, p->tok_line,
                             p->tok_column, e.idx);
    }
    return emit_scalar(p, SQ_JSON_NUMBER, flags, p->buf, len,
                       p->tok_offset, p->tok_line, p->tok_column);
  }else{
    size_t len = 0;
    int type = 0;
    int rc = lex_literal(p->buf, p->buf+p->buf_len, 1, &type, &len, &e);
    if( rc==LEX_OK && len<p->buf_len ){ rc = LEX_ERR; e.code = SQ_JSON_E_SYNTAX;
      e.msg = "invalid literal (expected true, false or null)"; e.idx = 0; }
    if( rc!=LEX_OK ){
      if( final ){
        const char *w = p->buf[0]=='t' ? "true" : p->buf[0]=='f' ? "false" : "null";
        if( p->buf_len<strlen(w) && memcmp(w, p->buf, p->buf_len)==0 ){
          return set_token_error(p, SQ_JSON_E_TRUNCATED, "truncated literal",
                                 p->tok_offset, p->tok_line, p->tok_column, p->buf_len);
        }
      }
      return set_token_error(p, e.code, e.msg, p->tok_offset, p->tok_line,
                             p->tok_column, e.idx);
    }
    return emit_scalar(p, type, 0, 0, 0, p->tok_offset, p->tok_line, p->tok_column);
  }
}

/* The token limit and a string's bad bytes, one rule whatever the
** chunking.  A string's content (its raw bytes after the opening quote,
** escapes as written: "a\n" is 3 bytes) is checked left to right, up to
** max_token bytes: its first bad byte (an unescaped control character,
** invalid UTF-8, a bad escape) is the error, where it is, as soon as it is
** read (the closing quote need not have come: NDJSON rejects a line on a
** raw newline in a string there, sq_json_ingest.c); content running past
** max_token bytes without one is "too long" at the token's first byte.  A
** number's run of number characters (valid or not) must not exceed
** max_token; true/false/null are not limited.  So whether an input is
** accepted, and which error it gets, never depends on where it was cut.
**
** string_check_more: content c[0..n) of a string still open (or n over the
** limit), c[0..from) checked already (from: where a sequence starts):
** checks up to the limit.  0 and *next (where to go on), or the error. */
static int string_check_more(sq_json_parser *p, const u8 *c, size_t from, size_t n,
                             size_t *next, uint64_t tokoff, uint64_t tokline, uint64_t tokcol){
  size_t lim = n<p->max_token ? n : p->max_token;
  if( from<lim ){
    lex_err e = {0,0,0};
    if( check_string(c+from, lim-from, &e)==LEX_ERR ){
      return set_token_error(p, e.code, e.msg, tokoff, tokline, tokcol, from+e.idx+1);
    }
    from += e.idx;
  }
  if( n>p->max_token ){
    return set_token_error(p, SQ_JSON_E_TOO_LONG, "token longer than the token limit",
                           tokoff, tokline, tokcol, 0);
  }
  *next = from;
  return 0;
}

/* number_extent: for the number starting at s, 1 over the limit,
** 0 when its run of number characters ends within it, -1 when the chunk
** ends first. */
static int number_extent(const sq_json_parser *p, const u8 *s, const u8 *end){
  const u8 *q = s;
  while( q<end && is_number_char(*q) ){
    if( (size_t)(q-s)>=p->max_token ) return 1;
    q++;
  }
  return q<end ? 0 : -1;
}

/* Starts carrying the token [s, end) (cut by the end of the chunk); a
** string's content before `checked` is known to be good. */
static int start_carry(sq_json_parser *p, int kind, const u8 *s, const u8 *end,
                       uint64_t off, int is_key, size_t checked){
  size_t n = (size_t)(end-s);
  if( kind==CARRY_STRING ){
    if( string_check_more(p, s+1, checked, n-1, &p->carry_checked, off, p->line,
                          off - p->line_start + 1) ) return SQ_JSON_ERROR;
  }else if( kind==CARRY_NUMBER && n>p->max_token ){
    return set_error(p, SQ_JSON_E_TOO_LONG, "token longer than the token limit", off);
  }
  if( !buf_reserve(p, n<256 ? 256 : n) ){
    return set_error(p, SQ_JSON_E_NOMEM, "out of memory", off);
  }
  memcpy(p->buf, s, n);
  p->buf_len = n;
  p->carry = kind;
  p->carry_key = is_key;
  p->tok_offset = off;
  p->tok_line = p->line;
  p->tok_column = off - p->line_start + 1;
  if( kind==CARRY_STRING ){
    /* is the chunk's last byte an escaping backslash? */
    size_t i = 1;
    int esc = 0;
    while( i<n ){
      if( esc ){ esc = 0; i++; continue; }
      if( s[i]=='\\' ) esc = 1;
      i++;
    }
    p->carry_esc = esc;
  }
  return 0;
}

/* Continues a carried token with the chunk [*ps, end).  Returns 0 when the
** whole chunk was absorbed (token still open), 1 when the token completed
** and was emitted (*ps advanced past it), SQ_JSON_PAUSED or SQ_JSON_ERROR. */
static int continue_carry(sq_json_parser *p, const u8 **ps, const u8 *end){
  const u8 *s = *ps, *q = s;
  int done = 0, rc;
  size_t add;
  if( p->carry==CARRY_STRING ){
    int esc = p->carry_esc;
    while( q<end ){
      u8 c = *q;
      if( esc ){ esc = 0; q++; continue; }
      if( c=='"' ){ q++; done = 1; break; }
      if( c=='\\' ) esc = 1;
      q++;
    }
    p->carry_esc = esc;
  }else if( p->carry==CARRY_NUMBER ){
    while( q<end && is_number_char(*q) ) q++;
    done = q<end;
  }else{
    /* true/false/null are not limited: six letters are already no literal */
    while( q<end && is_letter(*q) && p->buf_len+(size_t)(q-s)<6 ) q++;
    done = q<end || p->buf_len+(size_t)(q-s)>=6;
  }
  add = (size_t)(q-s);
  if( p->carry==CARRY_STRING ){
    /* the token limit and bad bytes: string_check_more (a string is kept
    ** up to the limit only, and checked up to there as it grows) */
    size_t clen = p->buf_len - 1 + add - (size_t)done;
    if( clen>p->max_token ){
      size_t take = p->max_token - (p->buf_len - 1);
      if( !buf_reserve(p, p->buf_len+take) ){
        return set_error(p, SQ_JSON_E_NOMEM, "out of memory", p->tok_offset);
      }
      memcpy(p->buf+p->buf_len, s, take);
      p->buf_len += take;
      return string_check_more(p, p->buf+1, p->carry_checked, clen, &p->carry_checked,
                               p->tok_offset, p->tok_line, p->tok_column);
    }
  }else if( p->carry==CARRY_NUMBER && p->buf_len+add > p->max_token ){
    return set_error(p, SQ_JSON_E_TOO_LONG, "token longer than the token limit",
                     p->tok_offset);
  }
  if( !buf_reserve(p, p->buf_len+add) ){
    return set_error(p, SQ_JSON_E_NOMEM, "out of memory", p->tok_offset);
  }
  memcpy(p->buf+p->buf_len, s, add);
  p->buf_len += add;
  *ps = q;
  if( !done ){
    if( p->carry==CARRY_STRING
        && string_check_more(p, p->buf+1, p->carry_checked, p->buf_len-1, &p->carry_checked,
                             p->tok_offset, p->tok_line, p->tok_column) ) return SQ_JSON_ERROR;
    return 0;
  }
  rc = finish_carry(p, 0);
  if( rc ) return rc;
  return 1;
}

SQ_INLINE int open_container(sq_json_parser *p, int is_obj, uint64_t off){
  int d = p->depth;
  if( d>=p->max_depth ){
    return set_error(p, SQ_JSON_E_DEPTH, "nesting too deep", off);
  }
  if( is_obj ) p->stack[d>>3] |= (u8)(1u<<(d&7));
  else p->stack[d>>3] &= (u8)~(1u<<(d&7));
  p->depth = d+1;
  p->state = is_obj ? ST_OBJ_FIRST : ST_ARRAY_FIRST;
  return emit(p, is_obj ? SQ_JSON_BEGIN_OBJECT : SQ_JSON_BEGIN_ARRAY, 0, 0, 0,
              off, p->line, off - p->line_start + 1, d);
}

SQ_INLINE int close_container(sq_json_parser *p, int is_obj, uint64_t off){
  p->depth--;
  value_done(p);
  return emit(p, is_obj ? SQ_JSON_END_OBJECT : SQ_JSON_END_ARRAY, 0, 0, 0,
              off, p->line, off - p->line_start + 1, p->depth);
}

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__==__ORDER_LITTLE_ENDIAN__ \
    && (defined(__GNUC__) || defined(__clang__))
# define SQ_JSON_LITTLE_ENDIAN 1
#else
# define SQ_JSON_LITTLE_ENDIAN 0
#endif
#define HASZERO(v) (((v) - 0x0101010101010101ULL) & ~(v) & 0x8080808080808080ULL)

int sq_json_feed(sq_json_parser *p, const void *bytes, size_t len){
  const u8 *start = (const u8*)bytes;
  const u8 *s = start, *end = start + len;
  uint64_t base = p->base;
  int rc = 0;
  p->consumed = 0;
  if( p->error ) return SQ_JSON_ERROR;
  if( len==0 ) return SQ_JSON_OK;

  if( p->bom_active ){
    static const u8 bom[3] = { 0xEF, 0xBB, 0xBF };
    while( s<end && p->bom_active ){
      if( *s==bom[p->bom_matched] ){
        s++;
        if( ++p->bom_matched==3 ) p->bom_active = 0;
      }else if( p->bom_matched==0 ){
        p->bom_active = 0;
      }else{
        p->base = base;
        set_error(p, SQ_JSON_E_UTF8, "invalid UTF-8 (incomplete byte order mark)",
                  base + (uint64_t)(s-start));
        return SQ_JSON_ERROR;
      }
    }
  }

  if( p->carry!=CARRY_NONE ){
    rc = continue_carry(p, &s, end);
    if( rc==0 ){                       /* absorbed everything */
      p->base = base + len;
      p->consumed = len;
      return SQ_JSON_OK;
    }
    if( rc!=1 ) goto out;
    rc = 0;
  }

  /* Direct-threaded grammar: each label is a state; p->state is stored on
  ** entry so that a pause, an error or the end of the chunk can resume. */
#define SKIP_WS(ST) \
  p->state = (ST); \
  for(;;){ \
    if( SQ_UNLIKELY(s>=end) ) goto out; \
    c = *s; \
    if( SQ_LIKELY(c>' ') ) break; \
    if( c==' ' || c=='\t' || c=='\r' ){ s++; continue; } \
    if( c=='\n' ){ s++; p->line++; p->line_start = base + (uint64_t)(s-start); \
                   p->nl_seen = 1; continue; } \
    break; \
  } \
  off = base + (uint64_t)(s-start)

  {
    u8 c;
    uint64_t off;
    switch( p->state ){
      case ST_START:       goto L_start;
      case ST_VALUE:       goto L_value;
      case ST_ARRAY_FIRST: goto L_arr_first;
      case ST_OBJ_FIRST:   goto L_obj_first;
      case ST_KEY:         goto L_key;
      case ST_COLON:       goto L_colon;
      case ST_AFTER:       goto L_after;
      default:             goto L_end;
    }

  L_after_value:           /* a value just completed (state already set) */
    if( p->depth==0 ) goto L_end;
  L_after:
    if( STACK_IS_OBJ(p) ){
      SKIP_WS(ST_AFTER);
      if( c==',' ){ s++; goto L_key; }
      if( c=='}' ){ s++; rc = close_container(p, 1, off); if( rc ) goto out; goto L_after_value; }
      rc = set_error(p, SQ_JSON_E_SYNTAX, "expected ',' or '}'", off);
      goto out;
    }else{
      SKIP_WS(ST_AFTER);
      if( c==',' ){ s++; goto L_value; }
      if( c==']' ){ s++; rc = close_container(p, 0, off); if( rc ) goto out; goto L_after_value; }
      rc = set_error(p, SQ_JSON_E_SYNTAX, "expected ',' or ']'", off);
      goto out;
    }

  L_colon:
    SKIP_WS(ST_COLON);
    if( c==':' ){ s++; goto L_value; }
    rc = set_error(p, SQ_JSON_E_SYNTAX, "expected ':'", off);
    goto out;

  L_obj_first:
    SKIP_WS(ST_OBJ_FIRST);
    if( c=='"' ) goto L_string;
    if( c=='}' ){ s++; rc = close_container(p, 1, off); if( rc ) goto out; goto L_after_value; }
    rc = set_error(p, SQ_JSON_E_SYNTAX, "expected a string key or '}'", off);
    goto out;

  L_key:
    SKIP_WS(ST_KEY);
    if( c=='"' ) goto L_string;
    if( c=='}' && (p->options & SQ_JSON_OPT_TRAILING_COMMAS) ){
      s++; rc = close_container(p, 1, off); if( rc ) goto out; goto L_after_value;
    }
    rc = set_error(p, SQ_JSON_E_SYNTAX,
                   c=='}' ? "trailing comma in an object" : "expected a string key", off);
    goto out;

  L_arr_first:
    SKIP_WS(ST_ARRAY_FIRST);
    if( c==']' ){ s++; rc = close_container(p, 0, off); if( rc ) goto out; goto L_after_value; }
    goto L_value_c;

  L_end:
    SKIP_WS(ST_END);
    if( !check_value_allowed(p, off) ){ rc = SQ_JSON_ERROR; goto out; }
    goto L_value_c;

  L_start:
    SKIP_WS(ST_START);
    goto L_value_c;

  L_value:
    SKIP_WS(ST_VALUE);
  L_value_c:
    switch( c ){
      case '"':
        goto L_string;
      case '{':
        s++;
        rc = open_container(p, 1, off);
        if( rc ) goto out;
        goto L_obj_first;
      case '[':
        s++;
        rc = open_container(p, 0, off);
        if( rc ) goto out;
        goto L_arr_first;
      case '-': case '0': case '1': case '2': case '3': case '4':
      case '5': case '6': case '7': case '8': case '9': {
        size_t n = 0;
        unsigned flags = 0;
        lex_err e = {0,0,0};
        int lr = lex_number(s, end, 0, &n, &flags, &e);
        if( SQ_LIKELY(lr==LEX_OK) ){
          const u8 *t = s;
          if( SQ_UNLIKELY(n>p->max_token) ){
            rc = set_error(p, SQ_JSON_E_TOO_LONG, "token longer than the token limit", off);
            goto out;
          }
          s += n;
          rc = emit_scalar(p, SQ_JSON_NUMBER, flags, t, n, off, p->line,
                           off - p->line_start + 1);
          if( rc ) goto out;
          goto L_after_value;
        }
        /* the whole run of number characters is the token (as carried) */
        if( lr==LEX_ERR ){
          int x = number_extent(p, s, end);
          if( x>0 ){
            rc = set_error(p, SQ_JSON_E_TOO_LONG, "token longer than the token limit", off);
            goto out;
          }
          if( x<0 ) lr = LEX_MORE;
        }
        if( lr==LEX_MORE ){
          rc = start_carry(p, CARRY_NUMBER, s, end, off, 0, 0);
          if( rc ) goto out;
          s = end;
          goto out;
        }
        rc = set_token_error(p, e.code, e.msg, off, p->line,
                             off - p->line_start + 1, e.idx);
        goto out;
      }
      case 't': case 'f': case 'n': {
        size_t n = 0;
        int type = 0;
        lex_err e = {0,0,0};
        int lr = lex_literal(s, end, 0, &type, &n, &e);
        if( SQ_LIKELY(lr==LEX_OK) ){
          s += n;
          rc = emit_scalar(p, type, 0, 0, 0, off, p->line, off - p->line_start + 1);
          if( rc ) goto out;
          goto L_after_value;
        }
        if( lr==LEX_MORE ){
          rc = start_carry(p, CARRY_LITERAL, s, end, off, 0, 0);
          if( rc ) goto out;
          s = end;
          goto out;
        }
        rc = set_token_error(p, e.code, e.msg, off, p->line,
                             off - p->line_start + 1, e.idx);
        goto out;
      }
      default:
        /* ST_VALUE in an array: after a ',' (after '[' is ST_ARRAY_FIRST) */
        if( c==']' && p->state==ST_VALUE && (p->options & SQ_JSON_OPT_TRAILING_COMMAS)
            && p->depth>0 && !STACK_IS_OBJ(p) ){
          s++; rc = close_container(p, 0, off); if( rc ) goto out; goto L_after_value;
        }
        if( p->state==ST_VALUE && (c==']' || c=='}') ){
          rc = set_error(p, SQ_JSON_E_SYNTAX, "expected a value (trailing comma?)", off);
        }else if( c>=0x80 ){
          rc = set_error(p, SQ_JSON_E_SYNTAX, "unexpected byte (expected a JSON value)", off);
        }else{
          rc = set_error(p, SQ_JSON_E_SYNTAX, "expected a JSON value", off);
        }
        goto out;
    }

  L_string: {
      /* s points at the opening quote; p->state tells key or value */
      int is_key = (p->state==ST_OBJ_FIRST || p->state==ST_KEY);
      const u8 *q = s+1;
      uint64_t col = off - p->line_start + 1;
      for(;;){
        /* 8 bytes at a time: the lowest flagged byte of the mask is exact
        ** (the bit tricks can only give false hits above a true one) */
        while( end-q>=8 ){
          uint64_t x, m;
          memcpy(&x, q, 8);
          m = (HASZERO(x ^ 0x2222222222222222ULL) | HASZERO(x ^ 0x5C5C5C5C5C5C5C5CULL)
               | ((x - 0x2020202020202020ULL) & ~x) | x) & 0x8080808080808080ULL;
          if( m ){
#if SQ_JSON_LITTLE_ENDIAN
            q += __builtin_ctzll(m) >> 3;
#else
            while( !kStringStop[*q] ) q++;
#endif
            goto stop_found;
          }
          q += 8;
        }
        while( q<end && !kStringStop[*q] ) q++;
      stop_found:
        if( q>=end ) goto string_carry;
        c = *q;
        if( SQ_LIKELY(c=='"') ){
          const u8 *t = s+1;
          size_t n = (size_t)(q-t);
          s = q+1;
          if( n>p->max_token ){
            rc = set_error(p, SQ_JSON_E_TOO_LONG, "token longer than the token limit", off);
            goto out;
          }
          rc = emit_scalar(p, is_key ? SQ_JSON_KEY : SQ_JSON_STRING, 0, t, n,
                           off, p->line, col);
          if( rc ) goto out;
          if( is_key ) goto L_colon;
          goto L_after_value;
        }
        if( c>=0x80 ){
          int k = utf8_seq(q, end);
          if( k>0 ){ q += k; continue; }
        }
        {
          /* a backslash, a bad byte, or a UTF-8 sequence cut by the chunk
          ** end: find the closing quote, then decode into the scratch
          ** buffer (decode_string reports the first bad byte); no closing
          ** quote in the chunk: carried (start_carry checks what came) */
          const u8 *r = q;
          size_t n, outlen = 0;
          unsigned flags = 0;
          lex_err e = {0,0,0};
          int lr;
          while( r<end ){
            if( *r=='"' ) break;
            r += (*r=='\\') ? 2 : 1;
          }
          if( r>=end ) goto string_carry;
          n = (size_t)(r-(s+1));
          if( n>p->max_token ){
            size_t next;
            rc = string_check_more(p, s+1, (size_t)(q-(s+1)), n, &next, off, p->line, col);
            goto out;
          }
          if( !buf_reserve(p, n) ){
            rc = set_error(p, SQ_JSON_E_NOMEM, "out of memory", off);
            goto out;
          }
          lr = decode_string(s+1, n, p->buf, &outlen, &flags, 1, &e);
          if( lr!=LEX_OK ){
            rc = set_token_error(p, e.code, e.msg, off, p->line, col, e.idx+1);
            goto out;
          }
          s = r+1;
          rc = emit_scalar(p, is_key ? SQ_JSON_KEY : SQ_JSON_STRING, flags,
                           p->buf, outlen, off, p->line, col);
          if( rc ) goto out;
          if( is_key ) goto L_colon;
          goto L_after_value;
        }
      }
    string_carry:
      /* (the content before q is good: plain bytes, whole sequences) */
      rc = start_carry(p, CARRY_STRING, s, end, off, is_key, (size_t)(q-(s+1)));
      if( rc ) goto out;
      s = end;
      goto out;
    }
  }
#undef SKIP_WS

out:
  if( rc==SQ_JSON_ERROR ){
    p->base = base + (uint64_t)(s-start);
    p->consumed = (size_t)(s-start);
    return SQ_JSON_ERROR;
  }
  p->consumed = (size_t)(s-start);
  p->base = base + p->consumed;
  return rc==SQ_JSON_PAUSED ? SQ_JSON_PAUSED : SQ_JSON_OK;
}

int sq_json_finish(sq_json_parser *p){
  if( p->error ) return SQ_JSON_ERROR;
  p->consumed = 0;
  if( p->bom_active && p->bom_matched>0 ){
    set_error(p, SQ_JSON_E_TRUNCATED, "input ends inside a byte order mark", p->base);
    return SQ_JSON_ERROR;
  }
  if( p->carry!=CARRY_NONE ){
    int rc = finish_carry(p, 1);
    if( rc==SQ_JSON_ERROR ) return SQ_JSON_ERROR;
  }
  if( p->depth>0 ){
    set_error(p, SQ_JSON_E_TRUNCATED,
              STACK_IS_OBJ(p) ? "unexpected end of input (expected '}')"
                              : "unexpected end of input (expected ']')", p->base);
    return SQ_JSON_ERROR;
  }
  if( p->state==ST_START && !(p->options & SQ_JSON_OPT_MULTIPLE) ){
    set_error(p, SQ_JSON_E_TRUNCATED, "empty input (expected a JSON value)", p->base);
    return SQ_JSON_ERROR;
  }
  return SQ_JSON_OK;
}

/* ---------------------------------------------------------------- paths */

typedef struct PathStep { int is_index; int64_t index; char *key; size_t nkey; } PathStep;

struct sq_json_path {
  PathStep *steps;
  int nstep;
  /* per depth 0..nstep: the containers on the path so far */
  int mdepth;                 /* depth of the deepest container on the path, + 1 */
  unsigned char *parent_obj;  /* [d]: the container at depth d-1 is an object */
  unsigned char *key_ok;      /* [d]: its current key is step d-1's */
  int64_t *arr_idx;           /* [d]: its next element's index */
};

sq_json_path *sq_json_path_new(void){
  sq_json_path *m = (sq_json_path*)SQ_JSON_MALLOC(sizeof *m);
  if( !m ) return 0;
  memset(m, 0, sizeof *m);
  m->parent_obj = (unsigned char*)SQ_JSON_MALLOC(2);
  m->key_ok = (unsigned char*)SQ_JSON_MALLOC(2);
  m->arr_idx = (int64_t*)SQ_JSON_MALLOC(2*sizeof(int64_t));
  if( !m->parent_obj || !m->key_ok || !m->arr_idx ){ sq_json_path_free(m); return 0; }
  sq_json_path_restart(m);
  return m;
}

void sq_json_path_free(sq_json_path *m){
  int i;
  if( !m ) return;
  for(i=0; i<m->nstep; i++) SQ_JSON_FREE(m->steps[i].key);
  SQ_JSON_FREE(m->steps);
  SQ_JSON_FREE(m->parent_obj);
  SQ_JSON_FREE(m->key_ok);
  SQ_JSON_FREE(m->arr_idx);
  SQ_JSON_FREE(m);
}

static int path_add(sq_json_path *m, int is_index, int64_t index, const char *key, size_t n){
  PathStep *a;
  void *po, *ko, *ai;
  size_t k = (size_t)m->nstep + 3;
  if( m->nstep>=SQ_JSON_MAX_DEPTH ) return SQ_JSON_E_DEPTH;
  a = (PathStep*)SQ_JSON_REALLOC(m->steps, sizeof(PathStep)*((size_t)m->nstep+1));
  if( !a ) return SQ_JSON_E_NOMEM;
  m->steps = a;
  po = SQ_JSON_REALLOC(m->parent_obj, k);
  if( po ) m->parent_obj = (unsigned char*)po;
  ko = SQ_JSON_REALLOC(m->key_ok, k);
  if( ko ) m->key_ok = (unsigned char*)ko;
  ai = SQ_JSON_REALLOC(m->arr_idx, k*sizeof(int64_t));
  if( ai ) m->arr_idx = (int64_t*)ai;
  if( !po || !ko || !ai ) return SQ_JSON_E_NOMEM;
  memset(&a[m->nstep], 0, sizeof(PathStep));
  a[m->nstep].is_index = is_index;
  a[m->nstep].index = index;
  if( !is_index ){
    a[m->nstep].key = (char*)SQ_JSON_MALLOC(n+1);
    if( !a[m->nstep].key ) return SQ_JSON_E_NOMEM;
    if( n ) memcpy(a[m->nstep].key, key, n);
    a[m->nstep].key[n] = 0;
    a[m->nstep].nkey = n;
  }
  m->nstep++;
  sq_json_path_restart(m);
  return 0;
}

int sq_json_path_add_key(sq_json_path *m, const char *key, size_t n){
  return path_add(m, 0, 0, key ? key : "", key ? n : 0);
}
int sq_json_path_add_index(sq_json_path *m, int64_t index){
  return path_add(m, 1, index<0 ? -1 : index, 0, 0);
}
int sq_json_path_steps(const sq_json_path *m){ return m->nstep; }

void sq_json_path_restart(sq_json_path *m){
  m->mdepth = 0;
  memset(m->parent_obj, 0, (size_t)m->nstep+2);
  memset(m->key_ok, 0, (size_t)m->nstep+2);
  memset(m->arr_idx, 0, sizeof(int64_t)*((size_t)m->nstep+2));
}

int sq_json_path_match(sq_json_path *m, const sq_json_token *t){
  int d = t->depth, ty = t->type, match;
  if( ty==SQ_JSON_END_OBJECT || ty==SQ_JSON_END_ARRAY ){
    if( m->mdepth>d ) m->mdepth = d;
    return SQ_JSON_PATH_NO;
  }
  if( m->mdepth!=d || d>m->nstep ) return SQ_JSON_PATH_NO;
  if( ty==SQ_JSON_KEY ){
    const PathStep *st = &m->steps[d-1];
    m->key_ok[d] = !st->is_index && st->nkey==t->len
                   && (t->len==0 || memcmp(st->key, t->text, t->len)==0);
    return SQ_JSON_PATH_NO;
  }
  if( d==0 ){
    match = 1;
  }else if( m->parent_obj[d] ){
    match = m->key_ok[d];
  }else{
    const PathStep *st = &m->steps[d-1];
    match = st->is_index && st->index==m->arr_idx[d];
    m->arr_idx[d]++;
  }
  if( !match ) return SQ_JSON_PATH_NO;
  if( d==m->nstep ) return ty==SQ_JSON_BEGIN_ARRAY ? SQ_JSON_PATH_ARRAY : SQ_JSON_PATH_OTHER;
  if( ty==SQ_JSON_BEGIN_OBJECT || ty==SQ_JSON_BEGIN_ARRAY ){
    m->mdepth = d+1;
    m->parent_obj[d+1] = ty==SQ_JSON_BEGIN_OBJECT;
    m->key_ok[d+1] = 0;
    m->arr_idx[d+1] = 0;
  }
  return SQ_JSON_PATH_NO;
}

/* ---------------------------------------------------------------- tape */

int sq_json_tape_init(sq_json_tape *t){
  memset(t, 0, sizeof *t);
  t->pause_depth = -1;
  t->tokens = (sq_json_tape_token*)SQ_JSON_MALLOC(256*sizeof(sq_json_tape_token));
  t->arena = (unsigned char*)SQ_JSON_MALLOC(256);
  if( !t->tokens || !t->arena ){
    sq_json_tape_release(t);
    return SQ_JSON_E_NOMEM;
  }
  t->capacity = 256;
  t->arena_capacity = 256;
  return 0;
}

void sq_json_tape_release(sq_json_tape *t){
  SQ_JSON_FREE(t->tokens);
  SQ_JSON_FREE(t->arena);
  t->tokens = 0; t->arena = 0;
  t->count = t->capacity = t->arena_count = t->arena_capacity = 0;
}

void sq_json_tape_clear(sq_json_tape *t){
  t->count = 0;
  t->arena_count = 0;
  t->depth = 0;
  t->overflow = 0;
  t->completed = 0;
}

static int tape_grow(sq_json_tape *t){
  size_t cap = t->capacity ? t->capacity*2 : 256;
  sq_json_tape_token *a;
  if( cap>(size_t)UINT32_MAX ) cap = (size_t)UINT32_MAX;
  if( cap<=t->capacity ) return 0;
  a = (sq_json_tape_token*)SQ_JSON_REALLOC(t->tokens, cap*sizeof(sq_json_tape_token));
  if( !a ) return 0;
  t->tokens = a;
  t->capacity = cap;
  return 1;
}

/* Copies text after its 8-byte input offset into the arena; its arena offset, or -1. */
static int64_t tape_copy(sq_json_tape *t, const char *text, size_t len, uint64_t off){
  size_t need = t->arena_count + 8 + len, at;
  if( need>t->arena_capacity ){
    size_t cap = t->arena_capacity ? t->arena_capacity*2 : 256;
    unsigned char *a;
    while( cap<need ) cap *= 2;
    a = (unsigned char*)SQ_JSON_REALLOC(t->arena, cap);
    if( !a ) return -1;
    t->arena = a;
    t->arena_capacity = cap;
  }
  at = t->arena_count;
  memcpy(t->arena+at, &off, 8);
  if( len ) memcpy(t->arena+at+8, text, len);
  t->arena_count = need;
  return (int64_t)(at+8);
}

SQ_INLINE int tape_add(sq_json_tape *t, const sq_json_token *k){
  int type = k->type;
  size_t n;
  sq_json_tape_token *o;
  if( type==SQ_JSON_END_OBJECT || type==SQ_JSON_END_ARRAY ){
    int d = --t->depth;
    t->tokens[t->stack[d]].length = (uint32_t)t->count;
    if( k->depth==t->pause_depth ){ t->completed++; return SQ_JSON_PAUSE; }
    return SQ_JSON_CONTINUE;
  }
  n = t->count;
  if( SQ_UNLIKELY(n==t->capacity) && !tape_grow(t) ){ t->overflow = 1; return 2; }
  if( n==0 ) t->first_offset = k->offset;
  o = &t->tokens[n];
  o->kind = (uint8_t)type;
  o->reserved = 0;
  switch( type ){
    case SQ_JSON_BEGIN_OBJECT: case SQ_JSON_BEGIN_ARRAY:
      o->position = k->offset;
      o->length = 0;
      o->flags = 0;
      t->stack[t->depth++] = (uint32_t)n;
      t->count = n+1;
      return SQ_JSON_CONTINUE;
    case SQ_JSON_STRING: case SQ_JSON_KEY: case SQ_JSON_NUMBER: {
      const unsigned char *x = (const unsigned char*)k->text;
      if( SQ_UNLIKELY(k->len>(size_t)UINT32_MAX) ){ t->overflow = 1; return 2; }
      o->length = (uint32_t)k->len;
      o->flags = (uint8_t)k->flags;
      if( x && t->input_start && x>=t->input_start && x<t->input_end ){
        o->position = (uint64_t)(x - t->input_start) + t->base;
      }else{
        int64_t at = tape_copy(t, k->text, k->len, k->offset);
        if( at<0 ){ t->overflow = 1; return 2; }
        o->position = (uint64_t)at;
        o->flags |= SQ_JSON_TAPE_ARENA;
      }
      break;
    }
    default:
      o->position = k->offset;
      o->length = 0;
      o->flags = 0;
  }
  t->count = n+1;
  if( type!=SQ_JSON_KEY && k->depth==t->pause_depth ){ t->completed++; return SQ_JSON_PAUSE; }
  return SQ_JSON_CONTINUE;
}

/* Outside the selected arrays: follow the path. */
static int tape_seek(sq_json_tape *t, const sq_json_token *k){
  if( !t->matcher ) return SQ_JSON_CONTINUE;
  switch( sq_json_path_match(t->matcher, k) ){
    case SQ_JSON_PATH_ARRAY:
      t->inside = 1;
      t->found = 1;
      return SQ_JSON_CONTINUE;
    case SQ_JSON_PATH_OTHER:
      t->failure_type = k->type;
      return 2;
    default:
      return SQ_JSON_CONTINUE;
  }
}

int sq_json_tape_event(void *user, const sq_json_token *k){
  return tape_event(user, k);
}

SQ_INLINE int tape_event(void *user, const sq_json_token *k){
  sq_json_tape *t = (sq_json_tape*)user;
  if( !t->streaming ) return tape_add(t, k);
  if( t->inside ){
    if( SQ_LIKELY(k->depth>=t->pause_depth) ) return tape_add(t, k);
    /* the end of an array holding the values: look for the next one */
    t->inside = 0;
  }
  return tape_seek(t, k);
}

/* ---------------------------------------------------------------- numbers */

int sq_json_number_int64(const char *text, size_t len, int64_t *out){
  size_t i = 0;
  int neg = 0;
  uint64_t v = 0, lim;
  if( len==0 ) return 0;
  if( text[0]=='-' ){ neg = 1; i = 1; }
  if( i>=len ) return 0;
  if( len-i<=18 ){
    /* at most 18 digits: cannot overflow */
    for(; i<len; i++){
      unsigned d = (unsigned)(text[i]-'0');
      if( d>9 ) return 0;
      v = v*10 + d;
    }
    *out = neg ? -(int64_t)v : (int64_t)v;
    return 1;
  }
  lim = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
  for(; i<len; i++){
    unsigned d = (unsigned)(text[i]-'0');
    if( d>9 ) return 0;
    if( v > (lim - d)/10 ) return 0;
    v = v*10 + d;
  }
  if( neg ){
    *out = v==(uint64_t)INT64_MAX+1 ? INT64_MIN : -(int64_t)v;
  }else{
    *out = (int64_t)v;
  }
  return 1;
}

double sq_json_number_double(const char *text, size_t len){
  char small[128];
  char *b = small;
  double d;
  char dp = '.';
  const struct lconv *lc = localeconv();
  size_t i;
  if( lc && lc->decimal_point && lc->decimal_point[0] ) dp = lc->decimal_point[0];
  if( len>=sizeof(small) ){
    b = (char*)SQ_JSON_MALLOC(len+1);
    if( !b ){
      /* fall back to the leading part */
      b = small;
      len = sizeof(small)-1;
    }
  }
  memcpy(b, text, len);
  b[len] = 0;
  if( dp!='.' ){
    for(i=0; i<len; i++) if( b[i]=='.' ) b[i] = dp;
  }
  d = strtod(b, 0);
  if( b!=small ) SQ_JSON_FREE(b);
  return d;
}
