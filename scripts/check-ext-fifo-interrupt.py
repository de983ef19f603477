#!/usr/bin/env python3
"""json_stream reads that wait (a FIFO nobody writes to, a writer that sends
`[1,` and stalls) must stop on sqlite3_interrupt(), and FIFOs must still be
read completely when the data does come, slowly.

Checked on two hosts: Python's sqlite3 module (the system SQLite, 3.40 on
Debian 12, which has no sqlite3_is_interrupted: the probe-statement
fallback of sq_host.c) and apsw (a newer SQLite: sqlite3_is_interrupted
through the host's routine table).  Each query runs while a timer thread
calls interrupt() after INTERRUPT_AFTER seconds; it must end with an
"interrupted" error within BOUND seconds of that.  If it does not, a
watchdog unblocks it (opens and closes the FIFO's write end, or closes the
stalled writer) so that the check fails instead of hanging.

Usage: check-ext-fifo-interrupt.py build/streamqlite.so
Prints `fifo-interrupt: N passed, N failed`; exits 1 on any failure.
"""
import os
import subprocess
import sys
import tempfile
import threading
import time

BOUND = 1.5            # seconds from interrupt() to the error
INTERRUPT_AFTER = 0.3

ext = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 and not sys.argv[1].startswith("--")
                      else "build/streamqlite.so")
passed, failed = 0, 0


def check(host, ok, what):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print(f"FAIL [{host}] {what}")


def open_writer(path, timeout=5.0):
    """Opens the FIFO's write end once a reader has it open (None on timeout)."""
    end = time.time() + timeout
    while time.time() < end:
        try:
            return os.open(path, os.O_WRONLY | os.O_NONBLOCK)
        except OSError:      # ENXIO: no reader yet
            time.sleep(0.01)
    return None


def run_interrupted(con, sql, unblock):
    """Runs sql and calls con.interrupt() after INTERRUPT_AFTER s.
    Returns (error text or None, seconds from interrupt() to the end, rows)."""
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
    except Exception as e:       # sqlite3.OperationalError, apsw.InterruptError
        err = f"{type(e).__name__}: {e}"
    end = time.time()
    timer.cancel()
    dog.cancel()
    dog.join()
    return err, end - state.get("t", end), rows


def quote(s):
    return "'" + s.replace("'", "''") + "'"


def checks(host, connect):
    with tempfile.TemporaryDirectory() as tmp:
        fifo = os.path.join(tmp, "in.fifo")
        for label, sql, start in (
                ("table-valued function", f"SELECT value FROM json_stream({quote(fifo)})", b"[1,"),
                ("typed table", "SELECT a FROM typed", b'[{"a": 1},')):
            # 1. a FIFO nobody writes to
            os.mkfifo(fifo)
            con = connect()
            con.execute(f"CREATE VIRTUAL TABLE temp.typed USING json_stream(filename={quote(fifo)}, columns='a')")

            def unblock_open():
                fd = open_writer(fifo, 2)
                if fd is not None:
                    os.close(fd)
            err, secs, rows = run_interrupted(con, sql, unblock_open)
            check(host, err is not None and "interrupt" in err.lower() and secs < BOUND,
                  f"{label}, FIFO without a writer: error={err!r} rows={rows!r}, "
                  f"{secs:.2f}s after interrupt() (want an 'interrupted' error within {BOUND}s)")
            con.close()
            os.unlink(fifo)

            # 2. a writer that sends the start of a document and stalls
            os.mkfifo(fifo)
            con = connect()
            con.execute(f"CREATE VIRTUAL TABLE temp.typed USING json_stream(filename={quote(fifo)}, columns='a')")
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
            check(host, err is not None and "interrupt" in err.lower() and secs < BOUND,
                  f"{label}, writer sends {start!r} and stalls: error={err!r} rows={rows!r}, "
                  f"{secs:.2f}s after interrupt() (want an 'interrupted' error within {BOUND}s)")
            # the connection is usable afterwards
            check(host, con.execute("SELECT 40 + 2").fetchone()[0] == 42, f"{label}: connection usable after")
            con.close()
            os.unlink(fifo)

        # 3. data that does come, late and in pieces, is read completely
        for sql, want in (
                (f"SELECT idx, value FROM json_stream({quote(fifo)})",
                 [(0, '{"a":1}'), (1, '{"a":"x"}'), (2, "3")]),
                (f"SELECT idx, value FROM json_stream({quote(fifo)}, 'ndjson')",
                 [(0, '[{"a":1},{"a":"x"},3]')])):
            os.mkfifo(fifo)
            con = connect()

            def slow_writer():
                time.sleep(0.25)                  # the reader waits for a writer first
                fd = os.open(fifo, os.O_WRONLY)
                for piece in (b'[{"a": 1', b'}, {"a"', b': "x"}', b', 3]\n'):
                    os.write(fd, piece)
                    time.sleep(0.15)
                os.close(fd)
            w = threading.Thread(target=slow_writer)
            w.start()
            rows = [tuple(r) for r in con.execute(sql)]
            w.join()
            check(host, rows == want, f"slow FIFO writer, {sql}: got {rows!r}, want {want!r}")
            con.close()
            os.unlink(fifo)


def host_sqlite3():
    import sqlite3

    def connect():
        con = sqlite3.connect(":memory:", check_same_thread=False, isolation_level=None)
        con.enable_load_extension(True)
        con.load_extension(ext[:-3] if ext.endswith(".so") else ext)
        return con
    checks(f"sqlite3 {sqlite3.sqlite_version}", connect)


def host_apsw():
    import apsw

    def connect():
        con = apsw.Connection(":memory:")
        con.enable_load_extension(True)
        con.load_extension(ext)
        return con
    checks(f"apsw {apsw.sqlite_lib_version()}", connect)


def main():
    global passed, failed
    import sqlite3
    if "--sqlite3-only" in sys.argv:
        host_sqlite3()
    else:
        if hasattr(sqlite3.Connection, "enable_load_extension"):
            host_sqlite3()
        else:
            # this Python's sqlite3 cannot load extensions (pyenv's): the system's can
            for py in ("/usr/bin/python3", "/usr/local/bin/python3"):
                if os.path.exists(py) and os.path.realpath(py) != os.path.realpath(sys.executable):
                    r = subprocess.run([py, __file__, ext, "--sqlite3-only"],
                                       capture_output=True, text=True, timeout=120)
                    print(r.stdout, end="")
                    last = [l for l in r.stdout.splitlines() if l.startswith("fifo-interrupt:")]
                    if last:
                        p, f = [int(x.split()[0]) for x in last[-1].split(":")[1].split(",")]
                        passed += p
                        failed += f
                    else:
                        failed += 1
                        print(f"FAIL [sqlite3] {py} did not run the checks: {r.stderr[-800:]}")
                    break
            else:
                failed += 1
                print("FAIL no Python whose sqlite3 loads extensions")
        try:
            import apsw  # noqa: F401
        except ImportError:
            failed += 1
            print("FAIL apsw is not installed (run scripts/ensure-deps.sh)")
        else:
            host_apsw()
    print(f"fifo-interrupt: {passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
