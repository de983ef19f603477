"""Shared set-up of the scripted checks of the loaded extension
(scripts/check-python-load.py and scripts/check-ext-*.py).

One place for what every such script needs:

- `ext_path()`: the extension to load (first argument, default build/streamqlite.so);
- `Tally`: counts checks and prints `<name>: N passed, N failed`, exit status 1 on a failure;
- `connect_sqlite3` / `connect_apsw`: a connection with the extension loaded, on Python's
  sqlite3 module (the system SQLite) or on apsw (its own, newer SQLite);
- `run_hosts`: runs a script's checks on both hosts — under the system Python when this
  Python's sqlite3 cannot load extensions (pyenv builds), apsw in a process of its own
  when asked — and adds the counts up;
- FIFO helpers for the reads that wait: `open_writer`, `run_interrupted`,
  `check_fifo_interrupts` (nobody writes / the writer stalls: the query must end with an
  "interrupted" error soon after sqlite3_interrupt()) and `read_slow_fifo` (data that comes
  late and in pieces is read completely).

    from extcheck import Tally, ext_path, run_hosts
"""
import os
import subprocess
import sys
import threading
import time

BOUND = 1.5            # seconds from interrupt() to the error
INTERRUPT_AFTER = 0.3  # seconds from the start of the query to interrupt()
# Run under AddressSanitizer (make test-asan preloads its runtime): memory
# figures are the sanitizer's (quarantine, shadow), not the extension's.
UNDER_ASAN = "libclang_rt.asan" in os.environ.get("LD_PRELOAD", "")


def ext_path(argv=None):
    """The extension's absolute path: the first argument that is not an option."""
    argv = sys.argv if argv is None else argv
    args = [a for a in argv[1:] if not a.startswith("--")]
    return os.path.abspath(args[0] if args else "build/streamqlite.so")


def quote(s):
    """s as an SQL string literal."""
    return "'" + s.replace("'", "''") + "'"


class Tally:
    """Counts passed and failed checks; `finish()` prints the summary line and exits."""

    def __init__(self, name):
        self.name, self.passed, self.failed = name, 0, 0

    def check(self, ok, what, host=None):
        if ok:
            self.passed += 1
        else:
            self.failed += 1
            print(f"FAIL [{host}] {what}" if host else f"FAIL {what}")
        return ok

    def add_output(self, stdout, who):
        """Adds the counts of a child run of the same script (its summary line)."""
        print(stdout, end="")
        last = [l for l in stdout.splitlines() if l.startswith(self.name + ":")]
        if not last:
            self.check(False, f"{who} did not run the checks")
            return
        p, f = [int(x.split()[0]) for x in last[-1].split(":", 1)[1].split(",")]
        self.passed += p
        self.failed += f

    def finish(self):
        print(f"{self.name}: {self.passed} passed, {self.failed} failed")
        sys.exit(1 if self.failed else 0)


def require_pyicu(script):
    """PyICU (Debian's python3-icu), the oracle of the ICU checks: in a venv without system
    site packages, the script runs again under Debian's python3, which has it."""
    try:
        import icu
        return icu
    except ImportError:
        if sys.executable != "/usr/bin/python3" and os.path.exists("/usr/bin/python3"):
            os.execv("/usr/bin/python3", ["/usr/bin/python3"] + sys.argv)
        sys.exit(f"{script}: PyICU missing (apt-get install python3-icu)")


def connect_sqlite3(ext, path=":memory:", **kwargs):
    """A Python sqlite3 connection (the system SQLite) with the extension loaded."""
    import sqlite3
    con = sqlite3.connect(path, **kwargs)
    con.enable_load_extension(True)
    con.load_extension(ext[:-3] if ext.endswith(".so") else ext)
    return con


def connect_apsw(ext, path=":memory:"):
    """An apsw connection (apsw's own SQLite) with the extension loaded."""
    import apsw
    con = apsw.Connection(path)
    con.enable_load_extension(True)
    con.load_extension(ext)
    return con


def sqlite3_host():
    import sqlite3
    return f"sqlite3 {sqlite3.sqlite_version}"


def apsw_host():
    import apsw
    return f"apsw {apsw.sqlite_lib_version()}"


def _rerun(tally, script, ext, flag, python, who, timeout):
    try:
        r = subprocess.run([python, script, ext, flag], capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        tally.check(False, f"{who}: no answer within {timeout} s")
        return
    tally.add_output(r.stdout, who)
    if r.returncode not in (0, 1):
        print(r.stderr[-800:])


def run_hosts(tally, script, on_sqlite3, on_apsw, apsw_own_process=False, timeout=300):
    """Runs on_sqlite3() and on_apsw() (each without arguments) and finishes the tally.

    `script` is the caller's `__file__`: it is run again with `--sqlite3-only` under
    the system Python when this one cannot load extensions, and with `--apsw-only`
    when `apsw_own_process` (so the first host's loads cannot hide the second's)."""
    ext = ext_path()
    if "--sqlite3-only" in sys.argv:
        on_sqlite3()
        tally.finish()
    if "--apsw-only" in sys.argv:
        _with_apsw(tally, on_apsw)
        tally.finish()
    import sqlite3
    if hasattr(sqlite3.Connection, "enable_load_extension"):
        on_sqlite3()
    else:
        # Some Python builds (pyenv's default) leave out loadable extensions:
        # the system's Python is the one users load into.
        for py in ("/usr/bin/python3", "/usr/local/bin/python3"):
            if os.path.exists(py) and os.path.realpath(py) != os.path.realpath(sys.executable):
                _rerun(tally, script, ext, "--sqlite3-only", py, f"[sqlite3] {py}", timeout)
                break
        else:
            tally.check(False, "no Python whose sqlite3 loads extensions")
    if apsw_own_process:
        _rerun(tally, script, ext, "--apsw-only", sys.executable, "[apsw]", timeout)
    else:
        _with_apsw(tally, on_apsw)
    tally.finish()


def _with_apsw(tally, on_apsw):
    try:
        import apsw  # noqa: F401
    except ImportError:
        tally.check(False, "apsw is not installed (run scripts/ensure-deps.sh)")
        return
    on_apsw()


# ---- reads that wait ----------------------------------------------------

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
    """Runs sql and calls con.interrupt() after INTERRUPT_AFTER s; a watchdog
    calls unblock() if the query is still running BOUND + 1 s after that.
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


def check_fifo_interrupts(tally, host, connect, fifo, label, sql, start, setup=None):
    """Two waits that must stop on interrupt(): a FIFO nobody writes to, and a
    writer that sends `start` and stalls. `setup` (SQL) runs first on each
    connection; the connection must be usable afterwards."""
    def interrupted(err, secs):
        return err is not None and "interrupt" in err.lower() and secs < BOUND

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
    tally.check(interrupted(err, secs),
                f"{label}, FIFO without a writer: error={err!r} rows={rows!r}, "
                f"{secs:.2f}s after interrupt() (want an 'interrupted' error within {BOUND}s)", host)
    con.close()
    os.unlink(fifo)

    # 2. a writer that sends the start of the input and stalls
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
    tally.check(interrupted(err, secs),
                f"{label}, writer sends {start!r} and stalls: error={err!r} rows={rows!r}, "
                f"{secs:.2f}s after interrupt() (want an 'interrupted' error within {BOUND}s)", host)
    tally.check(con.execute("SELECT 40 + 2").fetchone()[0] == 42, f"{label}: connection usable after", host)
    con.close()
    os.unlink(fifo)


def read_slow_fifo(connect, fifo, pieces, sql, setup=None, first_wait=0.25, gap=0.15):
    """The rows of `sql` over a FIFO whose writer comes late and writes `pieces`
    with pauses between them (the FIFO is made and removed here)."""
    os.mkfifo(fifo)
    con = connect()

    def slow_writer():
        time.sleep(first_wait)                # the reader waits for a writer first
        fd = os.open(fifo, os.O_WRONLY)
        for piece in pieces:
            os.write(fd, piece)
            time.sleep(gap)
        os.close(fd)
    w = threading.Thread(target=slow_writer)
    w.start()
    try:
        if setup:
            con.execute(setup)
        return [tuple(r) for r in con.execute(sql)]
    finally:
        w.join()
        con.close()
        os.unlink(fifo)
