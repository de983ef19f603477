/*
** sq_files.h — the files a filename names: one file, a glob, or a list.
** The one expansion of json_stream and csv_stream (function and typed
** table) and of the Swift imports and cursors over several files
** (sq_files.c).
**
** A filename is one of:
**   - a JSON array of strings, '["a.csv", "b-*.csv"]' (its first
**     character '[' followed, after blanks, by '"' or ']'): each entry is
**     expanded as below, in the list's order; an empty list is an error;
**   - a glob, when it contains '*', '?' or '[': libc glob() with no flags
**     (a leading '.' is matched only by a '.'; '\' makes the next character
**     literal: 'a\*.csv' names the file 'a*.csv'), the matches sorted by
**     name byte by byte (as `LC_ALL=C ls`); matching nothing, it names
**     the file of that very name when there is one (as a shell does:
**     'q[1].csv' reads 'q[1].csv' unless 'q1.csv' exists), else it is an
**     error ("no file matches", with how to escape);
**   - else exactly that file, as before (no existence check here: opening
**     it says what is wrong).
** Directories and unreadable files a glob matches are listed: opening
** them is the error that names them.
*/
#ifndef SQ_FILES_H
#define SQ_FILES_H

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sq_files {
  int n;          /* files */
  char **a;       /* a[0..n): the names (sqlite3_malloc'ed) */
} sq_files;

#define SQ_FILES_OK     0
#define SQ_FILES_ERROR  1   /* *pzErr: the message (sqlite3_free it), "SPEC: WHY" */
#define SQ_FILES_NOMEM  2

/* Appends the files one name or glob names (not a list). */
int sq_files_add(sq_files *f, const char *entry, char **pzErr);

/* Appends the files a filename names: a list, a glob or one file. */
int sq_files_expand(sq_files *f, const char *spec, char **pzErr);

/* 2 when spec is a list, 1 a glob, 0 one file. */
int sq_files_is_pattern(const char *spec);

/* Frees the names; f is empty again. */
void sq_files_clear(sq_files *f);

/* sq_files_expand with `add` for each name or glob (sq_files_add expands
** globs; sq_files_push keeps the entry as it is: the list parser alone,
** for the fuzz harness). */
typedef int (*sq_files_add_fn)(sq_files *f, const char *entry, char **pzErr);
int sq_files_expand_with(sq_files *f, const char *spec, sq_files_add_fn add, char **pzErr);
int sq_files_push(sq_files *f, const char *name, char **pzErr);

#ifdef __cplusplus
}
#endif

#endif
