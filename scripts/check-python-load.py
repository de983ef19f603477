#!/usr/bin/env python3
"""Checks that build/streamqlite.so loads, unchanged, in Python's sqlite3
module and in apsw (which bundles its own, newer SQLite), and that the SQL
functions answer the same in both; that the no-read entry point
(sqlite3_streamqlite_noread_init) registers everything but json_stream; and
that a json_stream table planted in a database file reads nothing on either
host.  Prints `N passed, N failed`."""
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from extcheck import Tally, apsw_host, connect_apsw, connect_sqlite3, ext_path, run_hosts, sqlite3_host  # noqa: E402

ext = ext_path()
tally = Tally("python-load")
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


def check(host, got, want, sql):
    tally.check(got == want, f"{sql}: expected {want!r}, got {got!r}", host)


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


def run_host(host, open_db, load_noread, error_class):
    con = open_db(":memory:")
    for sql, want in CHECKS:
        check(host, con.execute(sql).fetchone()[0], want, sql)
    con.close()
    with tempfile.TemporaryDirectory() as tmp:
        common_checks(host, open_db, load_noread, tmp, error_class)


def run_sqlite3():
    import sqlite3

    def load_noread():
        c = sqlite3.connect(":memory:")
        c.enable_load_extension(True)   # also enables SQL load_extension()
        c.execute("SELECT load_extension(?, ?)", (ext, NOREAD))
        return c
    run_host(sqlite3_host(), lambda path: connect_sqlite3(ext, path), load_noread, sqlite3.Error)
    threads_env_checks()


def threads_env_checks():
    """STREAMQLITE_THREADS: 0, 2, empty or unset load; any other value is
    refused by name when the extension loads (it used to be ignored), and the
    no-read entry point, which reads no file, does not look at it."""
    import subprocess
    want = ("streamqlite: the environment variable STREAMQLITE_THREADS is '{}': it must be 0 (read on "
            "the query's thread), 2 (a second thread for every scan), or unset (a second thread when "
            "it is worth it)")
    for value, ok in (("0", True), ("2", True), ("", True), ("1", False), ("3", False), (" 2", False),
                      ("yes", False)):
        env = dict(os.environ, STREAMQLITE_THREADS=value)
        for entry in ("", NOREAD):
            r = subprocess.run(["sqlite3", "-bail", ":memory:", f".load {ext[:-3]} {entry}".strip(),
                                "SELECT locale_week('2011-01-02', 'en_US')"],
                               env=env, capture_output=True, text=True, timeout=30)
            loads = ok or entry == NOREAD
            if loads:
                tally.check(r.returncode == 0 and r.stdout == "2011-02\n",
                            f"STREAMQLITE_THREADS={value!r} {entry}: rc={r.returncode} {r.stdout!r} {r.stderr!r}")
            else:
                tally.check(r.returncode != 0 and want.format(value) in r.stderr,
                            f"STREAMQLITE_THREADS={value!r}: want a refusal, rc={r.returncode} {r.stderr!r}")


def run_apsw():
    import apsw

    def load_noread():
        c = apsw.Connection(":memory:")
        c.enable_load_extension(True)
        c.load_extension(ext, NOREAD)
        return c
    run_host(apsw_host(), lambda path: connect_apsw(ext, path), load_noread, apsw.Error)


if __name__ == "__main__":
    run_hosts(tally, __file__, run_sqlite3, run_apsw)
