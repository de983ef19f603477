#!/usr/bin/env python3
"""Checks that build/streamqlite.so loads, unchanged, in Python's sqlite3
module and in apsw (which bundles its own, newer SQLite), and that the SQL
functions answer the same in both.  Prints `N passed, N failed`."""
import os
import sqlite3
import sys

ext = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "build/streamqlite.so")
# (query, expected first value) pairs run on each host
CHECKS = [
    ("SELECT streamqlite_version()", "0.1.0"),
    ("SELECT locale_week('2011-01-02', 'en_US')", "2011-02"),
    ("SELECT locale_week('2011-01-02', 'de_DE')", "2010-52"),
    ("SELECT locale_week('2011-01-02T03:00Z', 'en_US', 'America/New_York')", "2011-01"),
    ("SELECT locale_week_start('2011-01-05', 'en-US-u-fw-mon')", "2011-01-03"),
    ("SELECT format_date('YYYY-ww', '2011-01-02', 'en_US')", "2011-02"),
    ("SELECT locale_week_rules('ar_EG')", '{"first_day":"saturday","min_days":1}'),
]
passed, failed = 0, 0


def check(host, got, want, sql):
    global passed, failed
    if got == want:
        passed += 1
    else:
        failed += 1
        print(f"FAIL [{host}] {sql}: expected {want!r}, got {got!r}")


def run_sqlite3():
    if not hasattr(sqlite3.Connection, "enable_load_extension"):
        # Some Python builds (pyenv's default) leave out loadable extensions;
        # check the system's Python, which is the one users load into.
        import subprocess
        for py in ("/usr/bin/python3", "/usr/local/bin/python3"):
            if os.path.exists(py) and os.path.realpath(py) != os.path.realpath(sys.executable):
                r = subprocess.run([py, __file__, ext, "--sqlite3-only"], capture_output=True, text=True)
                print(r.stdout, end="")
                ok = [l for l in r.stdout.splitlines() if l.startswith("python-load:")]
                if ok:
                    global passed, failed
                    p, f = ok[-1].split(":")[1].replace("passed", "").replace("failed", "").split(",")
                    passed += int(p); failed += int(f)
                    return
        check("sqlite3", "no Python with enable_load_extension", "a Python that loads extensions", "-")
        return
    con = sqlite3.connect(":memory:")
    con.enable_load_extension(True)
    con.load_extension(ext[:-3] if ext.endswith(".so") else ext)
    for sql, want in CHECKS:
        check(f"sqlite3 {sqlite3.sqlite_version}", con.execute(sql).fetchone()[0], want, sql)


def run_apsw():
    import apsw
    con = apsw.Connection(":memory:")
    con.enable_load_extension(True)
    con.load_extension(ext)
    for sql, want in CHECKS:
        check(f"apsw {apsw.sqlite_lib_version()}", con.execute(sql).fetchone()[0], want, sql)


run_sqlite3()
if "--sqlite3-only" in sys.argv:
    print(f"python-load: {passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)
try:
    import apsw  # noqa: F401
except ImportError:
    failed += 1
    print("FAIL apsw is not installed (run scripts/ensure-deps.sh)")
else:
    run_apsw()
print(f"python-load: {passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
