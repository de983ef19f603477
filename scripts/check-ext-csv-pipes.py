#!/usr/bin/env python3
"""csv_stream on pipes, FIFOs and /dev/stdin: reads that wait stop on
sqlite3_interrupt(); data that comes late and in pieces is read completely;
a typed table whose column types are inferred from a FIFO or /dev/stdin
gets every record (the bytes read for inference are replayed by the first
scan); a second scan of /dev/stdin (a join with itself, a second SELECT)
is an error, for csv_stream and json_stream; a record (CSV line, JSON
element) whose end has arrived comes out at once, before the next byte
(`tail -f log.csv | sqlite3 … csv_stream('/dev/stdin')`).

Host: Python's sqlite3 module (the system SQLite) for the FIFO checks, the
sqlite3 shell for /dev/stdin.  Each interrupted query must end with an
"interrupt" error within BOUND seconds of interrupt(); a watchdog unblocks
it otherwise (so the check fails instead of hanging).

Usage: check-ext-csv-pipes.py build/streamqlite.so
Prints `csv-pipes: N passed, N failed`; exits 1 on any failure.
"""
import os
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from extcheck import Tally, check_fifo_interrupts, connect_sqlite3, ext_path, quote, read_slow_fifo  # noqa: E402

ext = ext_path()
tally = Tally("csv-pipes")


def connect():
    return connect_sqlite3(ext, check_same_thread=False, isolation_level=None)


def fifo_checks(tmp):
    fifo = os.path.join(tmp, "in.fifo")
    for label, setup, sql, start in (
            ("table-valued function", None, f"SELECT value FROM csv_stream({quote(fifo)})", b"a,b\n1,"),
            ("typed table", f"CREATE VIRTUAL TABLE temp.t USING csv_stream(filename={quote(fifo)}, columns='a, b')",
             "SELECT a FROM t", b"a,b\n1,"),
            ("inferring CREATE", None,
             f"CREATE VIRTUAL TABLE temp.t USING csv_stream(filename={quote(fifo)})", b"a,b\n1,")):
        check_fifo_interrupts(tally, None, connect, fifo, label, sql, start, setup)

    # 3. a table inferred from a few small pieces, then a lot more: the bytes
    #    read for inference are fewer than a read buffer (they are replayed
    #    from their own buffer; reading the rest into it overflowed it)
    os.mkfifo(fifo)
    con = connect()
    rows_after = 20000

    def bursty_writer():
        time.sleep(0.2)
        fd = os.open(fifo, os.O_WRONLY)
        for piece in (b"id,name\n", b"1,a\n", b"2,b\n"):
            os.write(fd, piece)
            time.sleep(0.15)
        big = b"".join(b"%d,name number %d\n" % (i, i) for i in range(3, 3 + rows_after))
        os.write(fd, big)
        os.close(fd)
    w = threading.Thread(target=bursty_writer)
    w.start()
    con.execute(f"CREATE VIRTUAL TABLE temp.t USING csv_stream(filename={quote(fifo)}, infer=2)")
    got = con.execute("SELECT count(*), sum(id), max(name) FROM t").fetchone()
    w.join()
    want = (rows_after + 2, sum(range(1, rows_after + 3)), "name number 9999")
    tally.check(tuple(got) == want, f"inferred from a small sample, then {rows_after} rows: got {got!r}, want {want!r}")
    con.close()
    os.unlink(fifo)

    # 4. late data in pieces: the function, and a table inferred from the FIFO
    pieces = (b"id,na", b'me,qty\n1,"a,', b'b",10\n2,c', b",20\n3,d,30\n")
    for sql, setup, want in (
            (f"SELECT idx, value FROM csv_stream({quote(fifo)})", None,
             [(0, '{"id":"1","name":"a,b","qty":"10"}'), (1, '{"id":"2","name":"c","qty":"20"}'),
              (2, '{"id":"3","name":"d","qty":"30"}')]),
            ("SELECT id, name, qty, typeof(qty) FROM t",
             f"CREATE VIRTUAL TABLE temp.t USING csv_stream(filename={quote(fifo)}, infer=2)",
             [(1, "a,b", 10, "integer"), (2, "c", 20, "integer"), (3, "d", 30, "integer")])):
        rows = read_slow_fifo(connect, fifo, pieces, sql, setup)
        tally.check(rows == want, f"slow FIFO writer, {setup or ''} {sql}: got {rows!r}, want {want!r}")


def stdin_checks():
    data = b'id,name,qty\n1,"a,b",10\n2,c,20\n'
    for sql, want in (
            ("SELECT idx, value->>'name' FROM csv_stream('/dev/stdin');", "0|a,b\n1|c\n"),
            ("CREATE VIRTUAL TABLE temp.t USING csv_stream(filename='/dev/stdin');"
             " SELECT id, name, qty + 1, typeof(qty) FROM t;", "1|a,b|11|integer\n2|c|21|integer\n")):
        r = subprocess.run(["sqlite3", ":memory:", "-cmd", f".load {ext[:-3]}", sql],
                           input=data, capture_output=True, timeout=30)
        tally.check(r.returncode == 0 and r.stdout.decode() == want,
              f"/dev/stdin: {sql}: rc={r.returncode} out={r.stdout!r} err={r.stderr!r}, want {want!r}")
    # a second scan of a pipe is an error, never an empty or short result
    once = "cannot be read twice: a pipe, FIFO or terminal gives its bytes once"
    for sql, want in (
            ("CREATE VIRTUAL TABLE temp.t USING csv_stream(filename='/dev/stdin', header=0);"
             " SELECT count(*) FROM t a, t b;", "csv_stream: /dev/stdin: " + once),
            ("CREATE VIRTUAL TABLE temp.t USING csv_stream(filename='/dev/stdin', columns='id, name, qty');"
             " SELECT count(*) FROM t; SELECT count(*) FROM t;", "csv_stream: /dev/stdin: " + once),
            ("SELECT count(*) FROM csv_stream('/dev/stdin') a, csv_stream('/dev/stdin') b;",
             "csv_stream: /dev/stdin: " + once),
            ("CREATE VIRTUAL TABLE temp.j USING json_stream(filename='/dev/stdin', columns='v');"
             " SELECT count(*) FROM j; SELECT count(*) FROM j;", "json_stream: /dev/stdin: " + once),
            ("SELECT count(*) FROM json_stream('/dev/stdin') a, json_stream('/dev/stdin') b;",
             "json_stream: /dev/stdin: " + once)):
        stdin = b"[{\"v\": 1}, {\"v\": 2}]" if "json" in sql else data
        r = subprocess.run(["sqlite3", ":memory:", "-cmd", f".load {ext[:-3]}", sql],
                           input=stdin, capture_output=True, timeout=30)
        tally.check(r.returncode != 0 and want in r.stderr.decode(),
                    f"/dev/stdin read twice: {sql}: rc={r.returncode} out={r.stdout!r} err={r.stderr!r}, want {want!r}")



def arrival_checks():
    """Each record comes out once its last byte has arrived, while the writer
    holds the pipe open and sends nothing more: the shell prints it (line
    buffered by stdbuf) before the next record is written.  (Python's sqlite3
    module steps a statement one row ahead of the row it returns, so from
    there the newest row shows when the next one arrives: the shell shows
    what the extension gives.)"""
    import select
    cases = (
        ("csv_stream function", "SELECT value->>'a' FROM csv_stream('/dev/stdin');",
         b"a,b\n", lambda i: b"%d,x\n" % i),
        ("csv_stream typed table", "CREATE VIRTUAL TABLE temp.t USING csv_stream(filename='/dev/stdin', "
         "columns='a INTEGER, b TEXT'); SELECT a FROM t;", b"a,b\n", lambda i: b"%d,x\n" % i),
        ("csv_stream CRLF", "SELECT value->>'a' FROM csv_stream('/dev/stdin');",
         b"a,b\r\n", lambda i: b"%d,x\r\n" % i),
        ("json_stream NDJSON", "SELECT value->>'a' FROM json_stream('/dev/stdin');",
         b"", lambda i: b'{"a":%d}\n' % i),
        ("json_stream array", "SELECT value->>'a' FROM json_stream('/dev/stdin');",
         b"[", lambda i: (b"" if i == 1 else b",") + b'{"a":%d}' % i),
        ("json_stream typed table", "CREATE VIRTUAL TABLE temp.j USING json_stream(filename='/dev/stdin', "
         "columns='a INTEGER'); SELECT a FROM j;", b"", lambda i: b'{"a":%d}\n' % i),
    )
    for label, sql, head, rec in cases:
        proc = subprocess.Popen(["stdbuf", "-oL", "sqlite3", ":memory:", "-cmd", f".load {ext[:-3]}", sql],
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        got, problem, buf, sent = [], None, b"", 0
        try:
            for burst in (1, 999, 1):
                chunk = head if sent == 0 else b""
                chunk += b"".join(rec(i) for i in range(sent + 1, sent + burst + 1))
                proc.stdin.write(chunk)
                proc.stdin.flush()
                sent += burst
                deadline = time.monotonic() + 10
                while len(got) < sent and time.monotonic() < deadline:
                    ready, _, _ = select.select([proc.stdout], [], [], 0.1)
                    if ready:
                        piece = os.read(proc.stdout.fileno(), 65536)
                        if not piece:
                            break
                        buf += piece
                        *lines, buf = buf.split(b"\n")
                        got += lines
                if len(got) < sent:
                    problem = f"{sent} records sent, {len(got)} came out (last {got[-1:]!r})"
                    break
        finally:
            proc.stdin.close()
            proc.wait(timeout=30)
        want = [b"%d" % i for i in range(1, sent + 1)]
        if problem is None and got != want:
            problem = f"rows {got[:3]!r}…{got[-3:]!r}, want 1..{sent}"
        tally.check(problem is None, f"records as they arrive, {label}: {problem} "
                    f"(stderr {proc.stderr.read()!r})")


def main():
    import sqlite3
    if hasattr(sqlite3.Connection, "enable_load_extension"):
        with tempfile.TemporaryDirectory() as tmp:
            fifo_checks(tmp)
    else:
        print("csv-pipes: this Python's sqlite3 cannot load extensions; FIFO checks skipped")
    stdin_checks()
    arrival_checks()
    tally.finish()


main()
