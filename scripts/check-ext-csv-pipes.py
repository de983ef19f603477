#!/usr/bin/env python3
"""csv_stream on pipes, FIFOs and /dev/stdin: reads that wait stop on
sqlite3_interrupt(); data that comes late and in pieces is read completely;
a typed table whose column types are inferred from a FIFO or /dev/stdin
gets every record (the bytes read for inference are replayed by the first
scan).

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

BOUND = 1.5
INTERRUPT_AFTER = 0.3

ext = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "build/streamqlite.so")
passed, failed = 0, 0


def check(ok, what):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print(f"FAIL {what}")


def quote(s):
    return "'" + s.replace("'", "''") + "'"


def open_writer(path, timeout=5.0):
    end = time.time() + timeout
    while time.time() < end:
        try:
            return os.open(path, os.O_WRONLY | os.O_NONBLOCK)
        except OSError:
            time.sleep(0.01)
    return None


def connect():
    import sqlite3
    con = sqlite3.connect(":memory:", check_same_thread=False, isolation_level=None)
    con.enable_load_extension(True)
    con.load_extension(ext[:-3] if ext.endswith(".so") else ext)
    return con


def run_interrupted(con, sql, unblock):
    state = {}

    def interrupt():
        state["t"] = time.time()
        con.interrupt()
    timer = threading.Timer(INTERRUPT_AFTER, interrupt)
    dog = threading.Timer(INTERRUPT_AFTER + BOUND + 1.0, unblock)
    timer.start()
    dog.start()
    err, rows = None, None
    try:
        rows = [tuple(r) for r in con.execute(sql)]
    except Exception as e:
        err = f"{type(e).__name__}: {e}"
    end = time.time()
    timer.cancel()
    dog.cancel()
    dog.join()
    return err, end - state.get("t", end), rows


def fifo_checks(tmp):
    fifo = os.path.join(tmp, "in.fifo")
    for label, setup, sql, start in (
            ("table-valued function", None, f"SELECT value FROM csv_stream({quote(fifo)})", b"a,b\n1,"),
            ("typed table", f"CREATE VIRTUAL TABLE temp.t USING csv_stream(filename={quote(fifo)}, columns='a, b')",
             "SELECT a FROM t", b"a,b\n1,"),
            ("inferring CREATE", None,
             f"CREATE VIRTUAL TABLE temp.t USING csv_stream(filename={quote(fifo)})", b"a,b\n1,")):
        # 1. nobody writes
        os.mkfifo(fifo)
        con = connect()
        if setup:
            con.execute(setup)

        def unblock_open():
            fd = open_writer(fifo, 2)
            if fd is not None:
                os.close(fd)
        err, secs, rows = run_interrupted(con, sql, unblock_open)
        check(err is not None and "interrupt" in err.lower() and secs < BOUND,
              f"{label}, FIFO without a writer: error={err!r} rows={rows!r}, {secs:.2f}s after interrupt()")
        con.close()
        os.unlink(fifo)
        # 2. a writer that stalls
        os.mkfifo(fifo)
        con = connect()
        if setup:
            con.execute(setup)
        box = {}

        def writer():
            fd = open_writer(fifo)
            if fd is not None:
                os.write(fd, start)
            box["fd"] = fd
        w = threading.Thread(target=writer)
        w.start()

        def unblock_writer():
            w.join()
            fd = box.pop("fd", None)
            if fd is not None:
                os.close(fd)
        err, secs, rows = run_interrupted(con, sql, unblock_writer)
        unblock_writer()
        check(err is not None and "interrupt" in err.lower() and secs < BOUND,
              f"{label}, writer sends {start!r} and stalls: error={err!r} rows={rows!r}, {secs:.2f}s after interrupt()")
        check(con.execute("SELECT 40 + 2").fetchone()[0] == 42, f"{label}: connection usable after")
        con.close()
        os.unlink(fifo)

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
    check(tuple(got) == want, f"inferred from a small sample, then {rows_after} rows: got {got!r}, want {want!r}")
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
        os.mkfifo(fifo)
        con = connect()

        def slow_writer():
            time.sleep(0.25)
            fd = os.open(fifo, os.O_WRONLY)
            for piece in pieces:
                os.write(fd, piece)
                time.sleep(0.15)
            os.close(fd)
        w = threading.Thread(target=slow_writer)
        w.start()
        if setup:
            con.execute(setup)
        rows = [tuple(r) for r in con.execute(sql)]
        w.join()
        check(rows == want, f"slow FIFO writer, {setup or ''} {sql}: got {rows!r}, want {want!r}")
        con.close()
        os.unlink(fifo)


def stdin_checks():
    data = b'id,name,qty\n1,"a,b",10\n2,c,20\n'
    for sql, want in (
            ("SELECT idx, value->>'name' FROM csv_stream('/dev/stdin');", "0|a,b\n1|c\n"),
            ("CREATE VIRTUAL TABLE temp.t USING csv_stream(filename='/dev/stdin');"
             " SELECT id, name, qty + 1, typeof(qty) FROM t;", "1|a,b|11|integer\n2|c|21|integer\n")):
        r = subprocess.run(["sqlite3", ":memory:", "-cmd", f".load {ext[:-3]}", sql],
                           input=data, capture_output=True, timeout=30)
        check(r.returncode == 0 and r.stdout.decode() == want,
              f"/dev/stdin: {sql}: rc={r.returncode} out={r.stdout!r} err={r.stderr!r}, want {want!r}")


def main():
    import sqlite3
    if hasattr(sqlite3.Connection, "enable_load_extension"):
        with tempfile.TemporaryDirectory() as tmp:
            fifo_checks(tmp)
    else:
        print("csv-pipes: this Python's sqlite3 cannot load extensions; FIFO checks skipped")
    stdin_checks()
    print(f"csv-pipes: {passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


main()
