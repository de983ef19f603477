/*
** sq_files.c — the files a filename names (sq_files.h, the rules): a JSON
** array of names or globs, a glob, or one file.
*/
#include "sq_internal.h"
#include "sq_files.h"

#include <glob.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int files_push(sq_files *f, const char *z, size_t n){
  char **a = sqlite3_realloc64(f->a, sizeof(char*)*(sqlite3_uint64)(f->n+1));
  char *s;
  if( !a ) return SQ_FILES_NOMEM;
  f->a = a;
  s = sqlite3_malloc64(n+1);
  if( !s ) return SQ_FILES_NOMEM;
  memcpy(s, z, n);
  s[n] = 0;
  f->a[f->n++] = s;
  return SQ_FILES_OK;
}

/* "NAME: WHY" with the name as sq_str_value writes it. */
static int files_fail(char **pzErr, const char *name, size_t n, const char *why){
  sqlite3_str *m = sqlite3_str_new(0);
  sq_str_value(m, name, (sqlite3_int64)n, 0);
  sqlite3_str_appendf(m, ": %s", why);
  *pzErr = sqlite3_str_finish(m);
  return *pzErr ? SQ_FILES_ERROR : SQ_FILES_NOMEM;
}

static int files_cmp(const void *a, const void *b){
  return strcmp(*(char *const*)a, *(char *const*)b);
}

int sq_files_is_pattern(const char *spec){
  const char *p = spec;
  if( *p=='[' ){
    p++;
    while( *p==' ' || *p=='\t' || *p=='\n' || *p=='\r' ) p++;
    if( *p=='"' || *p==']' ) return 2;      /* a list */
  }
  return strpbrk(spec, "*?[")!=0;
}

int sq_files_add(sq_files *f, const char *entry, char **pzErr){
  glob_t g;
  int rc;
  size_t i, first = (size_t)f->n;
  if( entry[0]==0 ) return files_fail(pzErr, "", 0, "an empty file name");
  if( !strpbrk(entry, "*?[") ) return files_push(f, entry, strlen(entry));
  memset(&g, 0, sizeof g);
  rc = glob(entry, GLOB_NOSORT, 0, &g);
  if( rc==GLOB_NOMATCH || (rc==0 && g.gl_pathc==0) ){
    struct stat st;
    globfree(&g);
    /* as a shell does: a pattern that matches nothing is the name itself */
    if( stat(entry, &st)==0 ) return files_push(f, entry, strlen(entry));
    return files_fail(pzErr, entry, strlen(entry), "no file matches (a name holding '*', '?' or '[' "
                      "is a pattern: write '\\*', '\\?' or '\\[' for the character itself)");
  }
  if( rc!=0 ){
    globfree(&g);
    return rc==GLOB_NOSPACE ? SQ_FILES_NOMEM : files_fail(pzErr, entry, strlen(entry), "cannot list the files it matches");
  }
  for(i=0; i<g.gl_pathc; i++){
    if( files_push(f, g.gl_pathv[i], strlen(g.gl_pathv[i])) ){ globfree(&g); return SQ_FILES_NOMEM; }
  }
  globfree(&g);
  /* byte order, whatever the locale's collation */
  qsort(f->a+first, (size_t)f->n-first, sizeof(char*), files_cmp);
  return SQ_FILES_OK;
}

static int files_hex(const char *z){
  int i, v = 0;
  for(i=0; i<4; i++){
    char ch = z[i];
    v <<= 4;
    if( ch>='0' && ch<='9' ) v |= ch-'0';
    else if( ch>='a' && ch<='f' ) v |= ch-'a'+10;
    else if( ch>='A' && ch<='F' ) v |= ch-'A'+10;
    else return -1;
  }
  return v;
}

/* One JSON string at *pz (after its opening quote) into s; *pz past the
** closing quote.  0, or the words for what is wrong. */
static const char *files_json_string(const char **pz, sqlite3_str *s){
  const char *z = *pz;
  for(;;){
    unsigned char ch = (unsigned char)*z++;
    if( ch==0 ) return "a string is not closed";
    if( ch=='"' ) break;
    if( ch<0x20 ) return "a control character in a string";
    if( ch!='\\' ){ sqlite3_str_appendchar(s, 1, (char)ch); continue; }
    ch = (unsigned char)*z++;
    switch( ch ){
      case '"': case '\\': case '/': sqlite3_str_appendchar(s, 1, (char)ch); break;
      case 'b': sqlite3_str_appendchar(s, 1, '\b'); break;
      case 'f': sqlite3_str_appendchar(s, 1, '\f'); break;
      case 'n': sqlite3_str_appendchar(s, 1, '\n'); break;
      case 'r': sqlite3_str_appendchar(s, 1, '\r'); break;
      case 't': sqlite3_str_appendchar(s, 1, '\t'); break;
      case 'u': {
        int u = files_hex(z);
        char buf[4];
        int n = 0;
        if( u<0 ) return "a bad \\u escape";
        z += 4;
        if( u>=0xD800 && u<=0xDBFF ){
          int lo = (z[0]=='\\' && z[1]=='u') ? files_hex(z+2) : -1;
          if( lo<0xDC00 || lo>0xDFFF ) return "a lone surrogate in a \\u escape";
          z += 6;
          u = 0x10000 + ((u-0xD800)<<10) + (lo-0xDC00);
        }else if( u>=0xDC00 && u<=0xDFFF ){
          return "a lone surrogate in a \\u escape";
        }
        if( u==0 ) return "a NUL character in a name";
        if( u<0x80 ){ buf[n++] = (char)u; }
        else if( u<0x800 ){ buf[n++] = (char)(0xC0|(u>>6)); buf[n++] = (char)(0x80|(u&0x3F)); }
        else if( u<0x10000 ){
          buf[n++] = (char)(0xE0|(u>>12)); buf[n++] = (char)(0x80|((u>>6)&0x3F)); buf[n++] = (char)(0x80|(u&0x3F));
        }else{
          buf[n++] = (char)(0xF0|(u>>18)); buf[n++] = (char)(0x80|((u>>12)&0x3F));
          buf[n++] = (char)(0x80|((u>>6)&0x3F)); buf[n++] = (char)(0x80|(u&0x3F));
        }
        sqlite3_str_append(s, buf, n);
        break;
      }
      default: return "a bad escape in a string";
    }
  }
  *pz = z;
  return 0;
}

static int files_list(sq_files *f, const char *spec, sq_files_add_fn add, char **pzErr){
  const char *z = spec+1, *why = 0;
  int rc = SQ_FILES_OK;
#define FILES_WS(p) while( *p==' ' || *p=='\t' || *p=='\n' || *p=='\r' ) p++
  FILES_WS(z);
  if( *z==']' ){
    z++;
    FILES_WS(z);
    if( *z ) why = "text after the list";
    else why = "an empty list names no file";
  }
  while( !why ){
    sqlite3_str *s;
    char *name;
    int oom;
    if( *z!='"' ){ why = "expected a JSON array of file names"; break; }
    z++;
    s = sqlite3_str_new(0);
    why = files_json_string(&z, s);
    oom = sqlite3_str_errcode(s)!=SQLITE_OK;
    name = sqlite3_str_finish(s);
    if( why ){ sqlite3_free(name); break; }
    if( oom ){ sqlite3_free(name); return SQ_FILES_NOMEM; }
    rc = add(f, name ? name : "", pzErr);
    sqlite3_free(name);
    if( rc ) return rc;
    FILES_WS(z);
    if( *z==',' ){ z++; FILES_WS(z); continue; }
    if( *z==']' ){
      z++;
      FILES_WS(z);
      if( *z ) why = "text after the list";
      break;
    }
    why = "expected ',' or ']' in the list";
  }
#undef FILES_WS
  if( why ){
    char *m = sqlite3_mprintf("not a JSON array of file names: %s", why);
    if( !m ) return SQ_FILES_NOMEM;
    rc = files_fail(pzErr, spec, strlen(spec), m);
    sqlite3_free(m);
    return rc;
  }
  return SQ_FILES_OK;
}

int sq_files_expand_with(sq_files *f, const char *spec, sq_files_add_fn add, char **pzErr){
  if( sq_files_is_pattern(spec)==2 ) return files_list(f, spec, add, pzErr);
  return add(f, spec, pzErr);
}

int sq_files_expand(sq_files *f, const char *spec, char **pzErr){
  return sq_files_expand_with(f, spec, sq_files_add, pzErr);
}

int sq_files_push(sq_files *f, const char *name, char **pzErr){
  (void)pzErr;
  return files_push(f, name, strlen(name));
}

void sq_files_clear(sq_files *f){
  int i;
  for(i=0; i<f->n; i++) sqlite3_free(f->a[i]);
  sqlite3_free(f->a);
  f->a = 0;
  f->n = 0;
}
