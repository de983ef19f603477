#!/usr/bin/env python3
"""gzip and zstd input through json_stream and csv_stream (sq_decompress.c,
read by sq_file.c): the same rows as the plain file, whatever the path.

The oracle is the plain file: every csv-spectrum CSV and every JSONTestSuite
y_ file (../shared, read in place), and a generated NDJSON and CSV file of
20,000 records, compressed by the `gzip` and `zstd` tools, give through the
table-valued function (value, idx, line, offset: positions are in the
decompressed stream) and a typed table exactly the rows of the plain file:
from a regular file, from a FIFO written in small pieces (a chunk ends inside
the gzip header), and as two concatenated members (the rows twice, as zcat
reads them).  Truncated and corrupt files are errors naming the function,
the file and the format; a FIFO that sends half a gzip member and stalls
stops on interrupt().

Usage: check-ext-compressed.py build/streamqlite.so
Prints `compressed: N passed, N failed`; exits 1 on any failure.
"""
import glob
import gzip
import os
import subprocess
import sys
import tempfile
import threading

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from extcheck import (Tally, apsw_host, check_fifo_interrupts, connect_apsw, connect_sqlite3,  # noqa: E402
                      ext_path, quote, read_slow_fifo, run_hosts, sqlite3_host)

ext = ext_path()
tally = Tally("compressed")
root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
shared = os.path.join(root, "..", "shared")


def zstd(data):
    return subprocess.run(["zstd", "-q", "-c"], input=data, stdout=subprocess.PIPE, check=True).stdout


def failed(r):
    return isinstance(r, tuple)


def rows(con, sql):
    try:
        return [tuple(r) for r in con.execute(sql)]
    except Exception as e:  # the error is the result compared
        return ("error", str(e))


def scan(con, fn, path, arg=None):
    a = f", {quote(arg)}" if arg else ""
    return rows(con, f"SELECT idx, line, offset, value FROM {fn}({quote(path)}{a})")


def checks(host, connect):
    con = connect()
    with tempfile.TemporaryDirectory() as tmp:
        def write(name, data):
            p = os.path.join(tmp, name)
            with open(p, "wb") as f:
                f.write(data)
            return p

        cases = []
        for p in sorted(glob.glob(os.path.join(shared, "csv-spectrum", "csvs", "*.csv"))):
            cases.append(("csv_stream", os.path.basename(p), open(p, "rb").read(), None))
        for p in sorted(glob.glob(os.path.join(shared, "json-test-suite", "test_parsing", "y_*.json"))):
            cases.append(("json_stream", os.path.basename(p), open(p, "rb").read(), None))
        big_nd = b"".join(b'{"id": %d, "name": "n%d \\u00e9", "score": %d.5}\n' % (i, i % 97, i) for i in range(20000))
        big_csv = b"id,name,score\n" + b"".join(b'%d,"n%d, x",%d.5\n' % (i, i % 97, i) for i in range(20000))
        cases.append(("json_stream", "big.ndjson", big_nd, "ndjson"))
        cases.append(("csv_stream", "big.csv", big_csv, None))
        for fn, name, data, arg in cases:
            plain = scan(con, fn, write(name, data), arg)
            for suffix, packed in ((".gz", gzip.compress(data)), (".zst", zstd(data))):
                got = scan(con, fn, write(name + suffix, packed), arg)
                want = plain if not failed(plain) else ("error", plain[1].replace(name, name + suffix))
                tally.check(got == want, f"{fn} {name}{suffix}: {str(got)[:200]} != plain {str(want)[:200]}", host)
            # two members: the rows of the plain file read twice (header and all, as zcat gives it)
            twice = scan(con, fn, write("twice." + name, data + data), arg)
            got = scan(con, fn, write("twice." + name + ".gz", gzip.compress(data) + gzip.compress(data)), arg)
            want = twice if not failed(twice) else ("error", twice[1].replace("twice." + name, "twice." + name + ".gz"))
            tally.check(got == want, f"{fn} two gzip members of {name}: {str(got)[:200]}", host)

        # typed tables read the compressed file as the plain one
        for suffix, packed in (("", big_nd), (".gz", gzip.compress(big_nd)), (".zst", zstd(big_nd))):
            p = write("typed.ndjson" + suffix, packed)
            con.execute("DROP TABLE IF EXISTS temp.t")
            con.execute(f"CREATE VIRTUAL TABLE temp.t USING json_stream(filename={quote(p)}, path=ndjson, "
                        "columns='id INTEGER, name TEXT, score REAL')")
            got = rows(con, "SELECT count(*), sum(id), sum(score), max(name) FROM t")
            tally.check(got == [(20000, 199990000, 199990000 + 10000.0, "n96 é")], f"typed json_stream{suffix}: {got}", host)
        for suffix, packed in (("", big_csv), (".gz", gzip.compress(big_csv)), (".zst", zstd(big_csv))):
            p = write("typed.csv" + suffix, packed)
            con.execute("DROP TABLE IF EXISTS temp.c")
            con.execute(f"CREATE VIRTUAL TABLE temp.c USING csv_stream(filename={quote(p)})")
            got = rows(con, "SELECT count(*), sum(id), sum(score), typeof(score), max(name) FROM c")
            tally.check(got == [(20000, 199990000, 199990000 + 10000.0, "real", "n96, x")], f"typed csv_stream{suffix}: {got}", host)

        # truncated and corrupt data: errors naming the function, the file and the format
        gz = gzip.compress(big_csv)
        p = write("cut.csv.gz", gz[:len(gz) // 2])
        got = rows(con, f"SELECT count(*) FROM csv_stream({quote(p)})")
        want = f"csv_stream: {p}: gzip: truncated: the input ends inside a member after {len(gz) // 2} compressed bytes"
        tally.check(failed(got) and want in got[1], f"truncated gzip: {got}", host)
        zs = zstd(big_nd)
        p = write("cut.ndjson.zst", zs[:-3])
        got = rows(con, f"SELECT count(*) FROM json_stream({quote(p)}, 'ndjson')")
        tally.check(failed(got) and f"json_stream: {p}: zstd: truncated: the input ends inside a frame" in got[1],
                    f"truncated zstd: {got}", host)
        bad = bytearray(gz)
        bad[-6] ^= 1                            # the CRC-32
        p = write("bad.csv.gz", bytes(bad))
        got = rows(con, f"SELECT count(*) FROM csv_stream({quote(p)})")
        tally.check(failed(got) and f"csv_stream: {p}: gzip: corrupt data after {len(gz) - 4} compressed bytes: incorrect data check"
                    in got[1], f"corrupt gzip CRC: {got}", host)
        # corrupt data inside a member: the statement fails (the parser may see the
        # garbage first; the CRC-32 at the member's end fails it in any case)
        bad = bytearray(gz)
        bad[len(bad) // 2] ^= 0xff
        p = write("bad2.csv.gz", bytes(bad))
        got = rows(con, f"SELECT count(*) FROM csv_stream({quote(p)})")
        tally.check(failed(got) and f"csv_stream: {p}: " in got[1], f"corrupt gzip: {got}", host)
        con.close()

        # a FIFO written a few bytes at a time: the first read sees part of the magic number
        fifo = os.path.join(tmp, "in.fifo")
        small = b'{"a": 1}\n{"a": "x"}\n3\n'
        for packed in (gzip.compress(small), zstd(small)):
            pieces = [packed[:1], packed[1:3], packed[3:7]] + [packed[i:i + 5] for i in range(7, len(packed), 5)]
            got = read_slow_fifo(connect, fifo, pieces, f"SELECT idx, line, offset, value FROM json_stream({quote(fifo)}, 'ndjson')",
                                 first_wait=0.05, gap=0.01)
            tally.check(got == [(0, 1, 0, '{"a":1}'), (1, 2, 9, '{"a":"x"}'), (2, 3, 20, "3")], f"gzip/zstd FIFO: {got}", host)
        # a pipe on standard input
        out = subprocess.run(["sqlite3", ":memory:", f".load {ext}", "SELECT count(*), sum(value->>'id') FROM json_stream('/dev/stdin', 'ndjson')"],
                             input=gzip.compress(big_nd), stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        tally.check(out.stdout.decode().strip() == "20000|199990000", f"gzip on /dev/stdin: {out.stdout!r}", host)

        # a writer that sends half a gzip member and stalls: interrupt() still stops the read
        check_fifo_interrupts(tally, host, connect, fifo, "gzip FIFO",
                              f"SELECT value FROM json_stream({quote(fifo)}, 'ndjson')", gzip.compress(big_nd)[:3000])


if __name__ == "__main__":
    run_hosts(tally, __file__,
              lambda: checks(sqlite3_host(), lambda: connect_sqlite3(ext, check_same_thread=False, isolation_level=None)),
              lambda: checks(apsw_host(), lambda: connect_apsw(ext)))
