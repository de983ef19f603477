/*
** sq_decompress.h — compressed input: gzip (zlib) and zstd (libzstd), as
** one stream of bytes, with constant memory.
**
** Every reader of StreamQLite's input goes through this: the SQL tables
** (json_stream, csv_stream) through sq_file.c, which reads a file and hands
** on decompressed bytes; the Swift library (importJSON, importCSV, the
** element and CSV cursors) through the push API below, for files, bytes in
** memory and chunks of an asynchronous sequence alike.
**
** DETECTION is by the first bytes, never by the file's name: 1f 8b is gzip,
** 28 b5 2f fd is zstd, anything else is the plain input itself.
** Concatenated gzip members and zstd frames (and zstd's skippable frames)
** are one stream, as `zcat` reads them.
**
** ERRORS say the format, what is wrong and how many compressed bytes were
** read when it was seen ("gzip: corrupt data after 1234 compressed bytes:
** invalid block type"; "zstd: truncated: the input ends inside a frame
** after 98765 compressed bytes").  The caller adds the file's name.  Positions the
** parsers report (line, byte offset) count decompressed bytes.
**
** USAGE (push: feed compressed bytes, take decompressed bytes)
**
**     sq_dz *z = sq_dz_new(SQ_DZ_AUTO);        // or SQ_DZ_GZIP, SQ_DZ_ZSTD
**     while( (n = read(fd, in, sizeof in)) > 0 ){
**       size_t pos = 0, used, made;
**       do{
**         if( sq_dz_run(z, in+pos, n-pos, &used, out, sizeof out, &made) ) goto fail;
**         pos += used;
**         consume(out, made);
**       }while( pos<n || made==sizeof out );   // all taken, all given out
**     }
**     if( sq_dz_end(z) ) goto fail;            // truncated input
**     sq_dz_free(z);
**   fail: … sq_dz_error(z) …
**
** In SQ_DZ_AUTO a plain input is copied through (sq_dz_kind then says
** SQ_DZ_PLAIN, and a caller may pass the rest on itself).  Plain C11.
*/
#ifndef SQ_DECOMPRESS_H
#define SQ_DECOMPRESS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SQ_DZ_AUTO   (-1)   /* sq_dz_new: decide by the first bytes */
#define SQ_DZ_PLAIN  0
#define SQ_DZ_GZIP   1
#define SQ_DZ_ZSTD   2

#define SQ_DZ_OK     0
#define SQ_DZ_ERROR  1      /* sq_dz_error says what */

/* What the first n bytes of an input are: SQ_DZ_PLAIN, SQ_DZ_GZIP,
** SQ_DZ_ZSTD, or SQ_DZ_AUTO when they begin a magic number that more
** bytes would complete (and the input has not ended: at_end 0). */
int sq_dz_detect(const void *b, size_t n, int at_end);

/* "gzip", "zstd" or "plain". */
const char *sq_dz_kind_name(int kind);

typedef struct sq_dz sq_dz;

/* A decompressor of kind (SQ_DZ_AUTO, SQ_DZ_GZIP or SQ_DZ_ZSTD); NULL
** when out of memory. */
sq_dz *sq_dz_new(int kind);
void sq_dz_free(sq_dz *z);

/* Takes bytes of in[0..nin) (*used) and writes decompressed bytes into
** out[0..nout) (*made).  Call again with the rest, and with no input while
** out came back full (*made==nout): a compressed block may hold more. */
int sq_dz_run(sq_dz *z, const void *in, size_t nin, size_t *used,
              void *out, size_t nout, size_t *made);

/* The input has ended: SQ_DZ_OK when it ended between members/frames
** (or a plain input, or nothing at all), SQ_DZ_ERROR when truncated.  In
** SQ_DZ_AUTO, call sq_dz_run once more after it: a plain input shorter
** than a magic number is given out then. */
int sq_dz_end(sq_dz *z);

/* The kind decided (SQ_DZ_AUTO while still undecided). */
int sq_dz_kind(const sq_dz *z);

/* The message of the error that stopped it ("" when none). */
const char *sq_dz_error(const sq_dz *z);

/* Compressed bytes taken, decompressed bytes given out. */
unsigned long long sq_dz_bytes_in(const sq_dz *z);
unsigned long long sq_dz_bytes_out(const sq_dz *z);

/* The CRC-32 of gzip (and of zlib's crc32()) of p[0..n), continuing from
** crc (0 to begin): what a gzip member's trailer holds of its data. */
uint32_t sq_dz_crc32(uint32_t crc, const void *p, size_t n);

#ifdef __cplusplus
}
#endif
#endif
