#!/usr/bin/env python3
"""Checks that build/streamqlite.so loads, unchanged, in Python's sqlite3
module and in apsw (which bundles its own, newer SQLite), and that the SQL
functions answer the same in both; that the no-read entry point
(sqlite3_streamqlite_noread_init) registers everything but json_stream; and
that a json_stream table planted in a database file reads nothing on either
host.  Prints `N passed, N failed`."""
import os
import sqlite3
import sys
import tempfile

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
NOREAD = "sqlite3_streamqlite_noread_init"
passed, failed = 0, 0


def check(host, got, want, sql):
    global passed, failed
    if got == want:
        passed += 1
    else:
        failed += 1
        print(f"FAIL [{host}] {sql}: expected {want!r}, got {got!r}")


def error_of(run):
    """The error message `run()` raises, or None."""
    try:
        run()
    except Exception as e:  # sqlite3.Error / apsw.Error
        return str(e)
    return None


def check_error(host, msg, want, what):
    check(host, msg is not None and want in msg, True, f"{what}: error {msg!r} should contain {want!r}")


# Bad values whose error message must reach Python as the host's SQLite
# error (not UnicodeDecodeError: the message is valid UTF-8) and stay short.
BAD = [
    ("SELECT format_date(CAST(x'79797979ff' AS TEXT), '2011-01-02')", "invalid pattern 'yyyy\\xFF'"),
    ("SELECT locale_week('2011-01-02', CAST(x'656eff' AS TEXT))", "ill-formed locale 'en\\xFF'"),
    ("SELECT locale_week(printf('%.10000000c', 'x'))", "' (10000000 bytes)"),
    ("SELECT * FROM json_stream(CAST(x'ff2e6a736f6e' AS TEXT))", "json_stream: \\xFF.json: cannot open"),
]


def common_checks(host, open_db, load_noread, tmp, error_class):
    """open_db(path) -> connection with the extension loaded (default entry);
    load_noread(con) loads the no-read entry point into a bare connection."""
    secret = os.path.join(tmp, "secret.json")
    with open(secret, "w") as f:
        f.write('[{"user": "alice", "token": "s3cr3t"}]')
    # a database file with a json_stream table planted straight into sqlite_master
    path = os.path.join(tmp, f"planted-{host.split()[0]}.db")
    con = open_db(path)
    con.execute("PRAGMA writable_schema = ON")
    con.execute("INSERT INTO sqlite_master(type, name, tbl_name, rootpage, sql) VALUES "
                "('table', 'innocent', 'innocent', 0, ?)",
                ("CREATE VIRTUAL TABLE innocent USING json_stream("
                 f"filename='{secret}', columns='user TEXT, token TEXT')",))
    con.execute("PRAGMA writable_schema = OFF")
    if hasattr(con, "commit"):      # Python's sqlite3 opened a transaction
        con.commit()
    con.close()
    for pre in ([], ["PRAGMA trusted_schema = OFF"]):
        con = open_db(path)
        for p in pre:
            con.execute(p)
        msg = error_of(lambda: list(con.execute("SELECT * FROM innocent")))
        check_error(host, msg, "can only live in the temp schema", f"planted table {pre}")
        con.close()
    con = open_db(":memory:")
    for sql, want in BAD:
        try:
            con.execute(sql).fetchall()
            check(host, "no error", f"an error containing {want!r}", sql)
        except error_class as e:
            check(host, want in str(e) and len(str(e)) < 400, True, f"{sql}: error {str(e)[:300]!r}")
        except Exception as e:   # UnicodeDecodeError: invalid UTF-8 reached the host
            check(host, f"{type(e).__name__}: {str(e)[:200]}", f"{error_class.__name__}", sql)
    con.close()
    # the user's own temp table still reads
    con = open_db(":memory:")
    con.execute(f"CREATE VIRTUAL TABLE temp.mine USING json_stream(filename='{secret}', columns='token TEXT')")
    check(host, [tuple(r) for r in con.execute("SELECT token FROM mine")], [("s3cr3t",)], "temp table")
    con.close()
    # the no-read entry point: the week functions, no json_stream
    con = load_noread()
    check(host, con.execute("SELECT locale_week('2011-01-02', 'en_US')").fetchone()[0], "2011-02",
          "noread: locale_week")
    msg = error_of(lambda: list(con.execute("SELECT * FROM json_stream(?)", (secret,))))
    check_error(host, msg, "no such table: json_stream", "noread: json_stream")
    con.close()


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
    host = f"sqlite3 {sqlite3.sqlite_version}"
    for sql, want in CHECKS:
        check(host, con.execute(sql).fetchone()[0], want, sql)
    con.close()

    def open_db(path):
        c = sqlite3.connect(path)
        c.enable_load_extension(True)
        c.load_extension(ext[:-3] if ext.endswith(".so") else ext)
        return c

    ERROR_CLASS = sqlite3.Error

    def load_noread():
        c = sqlite3.connect(":memory:")
        c.enable_load_extension(True)   # also enables SQL load_extension()
        c.execute("SELECT load_extension(?, ?)", (ext, NOREAD))
        return c
    with tempfile.TemporaryDirectory() as tmp:
        common_checks(host, open_db, load_noread, tmp, ERROR_CLASS)


def run_apsw():
    import apsw
    con = apsw.Connection(":memory:")
    con.enable_load_extension(True)
    con.load_extension(ext)
    host = f"apsw {apsw.sqlite_lib_version()}"
    for sql, want in CHECKS:
        check(host, con.execute(sql).fetchone()[0], want, sql)
    con.close()

    def open_db(path):
        c = apsw.Connection(path)
        c.enable_load_extension(True)
        c.load_extension(ext)
        return c

    ERROR_CLASS = apsw.Error

    def load_noread():
        c = apsw.Connection(":memory:")
        c.enable_load_extension(True)
        c.load_extension(ext, NOREAD)
        return c
    with tempfile.TemporaryDirectory() as tmp:
        common_checks(host, open_db, load_noread, tmp, ERROR_CLASS)


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
