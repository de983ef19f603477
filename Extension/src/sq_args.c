/*
** sq_args.c — the arguments of StreamQLite's virtual tables:
**
**   CREATE VIRTUAL TABLE temp.t USING csv_stream(filename='a.csv',
**       columns='id INTEGER, "Stop Name" TEXT', keys='id=ID', null=NA);
**
** Each argument is key=value.  A value may be quoted with '…' or "…" (the
** quote doubled inside stands for itself); blanks around keys and values
** are dropped.  List values (columns=, keys=) are split at commas outside
** parentheses and quotes ('…', "…", `…`, […]).  A column is a name (bare,
** or quoted "…", `…`, […]) followed by an optional declared type.
** csv_stream (sq_csv_stream.c) parses its CREATE arguments and its
** table-valued function's option string with these helpers.
*/
#include "sq_internal.h"

#include <string.h>

static int is_blank(char c){ return c==' ' || c=='\t' || c=='\n' || c=='\r'; }

char *sq_arg_unquote(const char *z, int n){
  while( n>0 && is_blank(*z) ){ z++; n--; }
  while( n>0 && is_blank(z[n-1]) ) n--;
  if( n>=2 && (z[0]=='\'' || z[0]=='"') && z[n-1]==z[0] ){
    char q = z[0];
    char *out = sqlite3_malloc(n);
    int i, o = 0;
    if( !out ) return 0;
    for(i=1; i<n-1; i++){
      out[o++] = z[i];
      if( z[i]==q && i+1<n-1 && z[i+1]==q ) i++;
    }
    out[o] = 0;
    return out;
  }
  return sqlite3_mprintf("%.*s", n, z);
}

int sq_arg_value(const char *z, int n, char **out){
  *out = 0;
  while( n>0 && is_blank(*z) ){ z++; n--; }
  while( n>0 && is_blank(z[n-1]) ) n--;
  if( n==0 ) return 3;
  if( (z[0]=='\'' || z[0]=='"') && (n<2 || z[n-1]!=z[0]) ) return 4;
  *out = sq_arg_unquote(z, n);
  return *out ? 0 : 2;
}

char *sq_arg_split(const char *z, const char *what, sq_arg_part_fn f, void *ctx){
  int depth = 0, item = 0, blank = 1;
  const char *b = z, *s = z;
  char quote = 0;
  for(s=z; *s; s++) if( !is_blank(*s) ){ blank = 0; break; }
  if( blank ) return 0;
  for(s=z;; s++){
    char c = *s;
    if( quote ){
      if( c==quote ) quote = 0;
      if( c ) continue;
    }else if( c=='"' || c=='`' || c=='\'' || c=='[' ){
      quote = c=='[' ? ']' : c;
      continue;
    }
    if( c=='(' ) depth++;
    else if( c==')' ) depth--;
    if( c==0 || (c==',' && depth==0) ){
      const char *e = s;
      item++;
      while( b<e && is_blank(*b) ) b++;
      while( e>b && is_blank(e[-1]) ) e--;
      if( e==b ){
        sqlite3_str *m = sqlite3_str_new(0);
        sqlite3_str_appendf(m, "%s: item %d is empty in ", what, item);
        sq_str_value(m, z, (sqlite3_int64)strlen(z), 1);
        sqlite3_str_appendall(m, " (a comma too many?)");
        return sq_err_msg(sqlite3_str_finish(m));
      }
      {
        char *err = f(ctx, b, (int)(e-b));
        if( err ) return err;
      }
      b = s+1;
      if( c==0 ) break;
    }
  }
  return 0;
}

int sq_arg_keyvalue(const char *z, int n, char **key, char **value){
  const char *eq = memchr(z, '=', (size_t)n);
  const char *k = z, *ke;
  int rc;
  *key = *value = 0;
  if( !eq ) return 1;
  ke = eq;
  while( k<ke && is_blank(*k) ) k++;
  while( ke>k && is_blank(ke[-1]) ) ke--;
  rc = sq_arg_value(eq+1, (int)(z+n-(eq+1)), value);
  if( rc==3 || rc==4 ) return rc;
  *key = sqlite3_mprintf("%.*s", (int)(ke-k), k);
  if( !*key || !*value ){ sqlite3_free(*key); sqlite3_free(*value); *key = *value = 0; return 2; }
  return 0;
}

const char *sq_arg_value_error(int rc){
  return rc==3 ? "no value (an empty value is written '')"
       : rc==4 ? "a quote that is not closed"
       : "expected key=value";
}

/* A declared type names a type when it holds one of the words SQLite's
** affinity rule looks for (INT, CHAR, CLOB, TEXT, BLOB, REAL, FLOA, DOUB)
** or NUM, DEC, BOOL, DATE, TIME, JSON (ASCII case ignored): so
** columns='a b c d', commas left out, is not column a of type 'b c d'. */
static int type_is_known(const char *t){
  static const char *const words[] = { "INT", "CHAR", "CLOB", "TEXT", "BLOB", "REAL", "FLOA", "DOUB",
                                       "NUM", "DEC", "BOOL", "DATE", "TIME", "JSON" };
  size_t i, k, n = strlen(t);
  for(i=0; i<sizeof words/sizeof words[0]; i++){
    size_t w = strlen(words[i]);
    for(k=0; k+w<=n; k++) if( sqlite3_strnicmp(t+k, words[i], (int)w)==0 ) return 1;
  }
  return 0;
}

int sq_arg_column(const char *z, int n, char **name, char **type){
  const char *s = z, *e = z+n;
  *name = *type = 0;
  if( *s=='"' || *s=='`' || *s=='[' ){
    char q = *s=='[' ? ']' : *s;
    sqlite3_str *b = sqlite3_str_new(0);
    s++;
    for(;;){
      if( s>=e ){ sqlite3_free(sqlite3_str_finish(b)); return 1; }
      if( *s==q ){
        if( q!=']' && s+1<e && s[1]==q ){ sqlite3_str_appendchar(b, 1, q); s += 2; continue; }
        s++;
        break;
      }
      sqlite3_str_appendchar(b, 1, *s++);
    }
    *name = sqlite3_str_finish(b);
    if( !*name ) *name = sqlite3_mprintf("");
  }else{
    const char *b = s;
    while( s<e && !is_blank(*s) ) s++;
    *name = sqlite3_mprintf("%.*s", (int)(s-b), b);
  }
  while( s<e && is_blank(*s) ) s++;
  *type = sqlite3_mprintf("%.*s", (int)(e-s), s);
  if( !*name || !*type ){ sqlite3_free(*name); sqlite3_free(*type); *name = *type = 0; return 2; }
  if( (*name)[0]==0 ){ sqlite3_free(*name); sqlite3_free(*type); *name = *type = 0; return 1; }
  if( (*type)[0] && !type_is_known(*type) ){
    sqlite3_free(*name); sqlite3_free(*type); *name = *type = 0;
    return 5;
  }
  return 0;
}

const char *sq_arg_column_error(int rc){
  return rc==5 ? "the type names no type (INTEGER, REAL, TEXT, BLOB, NUMERIC, DATE, …): a comma left out?"
               : "expected a name and an optional type";
}

int sq_arg_bool(const char *v, int *out){
  static const char *yes[] = { "1", "true", "yes", "on" };
  static const char *no[] = { "0", "false", "no", "off" };
  size_t i;
  for(i=0; i<4; i++){
    if( sqlite3_stricmp(v, yes[i])==0 ){ *out = 1; return 0; }
    if( sqlite3_stricmp(v, no[i])==0 ){ *out = 0; return 0; }
  }
  return 1;
}

int sq_file_vtab_best_index(sqlite3_index_info *info, int typed, int iFileCol, int iArgCol){
  int i, iFile = -1, iArg = -1, unusableFile = 0, n = 0;
  if( typed ){
    info->estimatedCost = 1e6;
    info->estimatedRows = 1000000;
    return SQLITE_OK;
  }
  for(i=0; i<info->nConstraint; i++){
    const struct sqlite3_index_constraint *c = &info->aConstraint[i];
    if( c->op!=SQLITE_INDEX_CONSTRAINT_EQ ) continue;
    if( c->iColumn==iFileCol ){
      if( !c->usable ) unusableFile = 1; else iFile = i;
    }else if( c->iColumn==iArgCol ){
      if( !c->usable ) return SQLITE_CONSTRAINT;
      iArg = i;
    }
  }
  if( iFile<0 && unusableFile ) return SQLITE_CONSTRAINT;
  info->idxNum = 0;
  if( iFile>=0 ){
    info->aConstraintUsage[iFile].argvIndex = ++n;
    info->aConstraintUsage[iFile].omit = 1;
    info->idxNum |= 1;
  }
  if( iArg>=0 ){
    info->aConstraintUsage[iArg].argvIndex = ++n;
    info->aConstraintUsage[iArg].omit = 1;
    info->idxNum |= 2;
  }
  info->estimatedCost = iFile>=0 ? 1e6 : 1e12;
  info->estimatedRows = 1000000;
  return SQLITE_OK;
}
