/*
** sq_text.c — UTF-8 validation, and values quoted in error messages.
**
** sq_utf8_valid(z, n): 1 when z[0..n) is valid UTF-8 (RFC 3629: no
** overlong forms, no UTF-16 surrogates, nothing above U+10FFFF).
**
** Every StreamQLite error names the offending value, and that value comes
** from the user or from a file: it may be huge (a 10 MB argument), contain
** invalid UTF-8 (an error message must stay valid UTF-8: Python decodes it
** and would raise UnicodeDecodeError instead of sqlite3.Error), control
** characters or NUL bytes (a message is one line of C string).  So values
** are written through sq_str_value():
**
**   - valid UTF-8 is copied as is, except control characters (U+0000..
**     U+001F, U+007F), which become \xHH;
**   - each byte that is not part of valid UTF-8 becomes \xHH;
**   - a value longer than SQ_ECHO_MAX bytes is cut at a character boundary
**     after SQ_ECHO_MAX bytes and followed by "…"; when quoted, the closing
**     quote is followed by its length: 'aaaa…' (10485760 bytes).
*/
#include "sq_internal.h"

#include <string.h>

/* Length of the valid UTF-8 sequence at z[0..n) (1..4), or 0 when z[0]
** does not start one (RFC 3629: no overlongs, no surrogates, <= U+10FFFF). */
static int utf8_len(const unsigned char *z, sqlite3_int64 n){
  unsigned c = z[0];
  int len, i;
  unsigned lo = 0x80, hi = 0xBF;
  if( c<0x80 ) return 1;
  if( c<0xC2 ) return 0;
  if( c<0xE0 ) len = 2;
  else if( c<0xF0 ){ len = 3; if( c==0xE0 ) lo = 0xA0; else if( c==0xED ) hi = 0x9F; }
  else if( c<0xF5 ){ len = 4; if( c==0xF0 ) lo = 0x90; else if( c==0xF4 ) hi = 0x8F; }
  else return 0;
  if( n<len ) return 0;
  if( z[1]<lo || z[1]>hi ) return 0;
  for(i=2; i<len; i++) if( z[i]<0x80 || z[i]>0xBF ) return 0;
  return len;
}

void sq_str_value(sqlite3_str *s, const char *v, sqlite3_int64 n, int quoted){
  const unsigned char *z = (const unsigned char*)v;
  sqlite3_int64 i = 0, run = 0;
  if( quoted ) sqlite3_str_appendchar(s, 1, '\'');
  while( i<n ){
    int k = utf8_len(z+i, n-i);
    if( i+(k ? k : 1)>SQ_ECHO_MAX ) break;
    if( k==0 || (k==1 && (z[i]<0x20 || z[i]==0x7F)) ){
      if( run>0 ) sqlite3_str_append(s, (const char*)z+i-run, (int)run);
      run = 0;
      sqlite3_str_appendf(s, "\\x%02X", z[i]);
      i++;
    }else{
      i += k;
      run += k;
    }
  }
  if( run>0 ) sqlite3_str_append(s, (const char*)z+i-run, (int)run);
  if( i<n ) sqlite3_str_appendall(s, "\xE2\x80\xA6");    /* … */
  if( quoted ) sqlite3_str_appendchar(s, 1, '\'');
  if( i<n && quoted ) sqlite3_str_appendf(s, " (%lld bytes)", n);
}

int sq_utf8_valid(const char *v, sqlite3_int64 n){
  const unsigned char *z = (const unsigned char*)v;
  sqlite3_int64 i = 0;
  while( i<n ){
    int k;
    if( z[i]<0x80 ){ i++; continue; }
    k = utf8_len(z+i, n-i);
    if( k==0 ) return 0;
    i += k;
  }
  return 1;
}

char *sq_value_text(const char *v, sqlite3_int64 n){
  sqlite3_str *s = sqlite3_str_new(0);
  sq_str_value(s, v, n, 0);
  return sqlite3_str_finish(s);
}

char sq_err_nomem[] = "out of memory";

char *sq_err_msg(char *msg){
  return msg ? msg : SQ_ERR_NOMEM;
}

void sq_err_free(char *err){
  if( err!=SQ_ERR_NOMEM ) sqlite3_free(err);
}

int sq_err_rc(char *err, char **pzErr){
  if( err==SQ_ERR_NOMEM ){ *pzErr = 0; return SQLITE_NOMEM; }
  *pzErr = err;
  return SQLITE_ERROR;
}
