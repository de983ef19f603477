#!/usr/bin/env python3
"""The Python half of make test-dist (scripts/check-dist.sh), run inside the fresh Debian 12
root with whatever python3 is there (the venv's for `wheel`).

  check-dist-root.py compare DB JSON_FILE   JSON_FILE holds the weekly report as some installed
        channel printed it (sqlite3 -json, sqlite-utils, Datasette's JSON API); it must equal
        the report computed here in Python from DB's Usage rows: German weeks are ISO 8601
        weeks (date.isocalendar()), so the oracle needs no ICU and no StreamQLite.
  check-dist-root.py wheel DB               the wheel in this venv, through Python's sqlite3 and
        apsw: __version__ is streamqlite_version(), the report equals the oracle, files=False
        has no json_stream, loadable_path(files=False) names the no-read entry point, and the
        errors for a host without extension loading and for an old SQLite.

REPORT is the report; check-dist.sh passes the same text to every channel.
"""
import datetime
import json
import os
import sqlite3
import sys
import tempfile

REPORT = ("SELECT locale_week(Date, 'de_DE') AS week, locale_week_start(Date, 'de_DE') AS starts, "
          "SUM(Visits) AS visits, ROUND(SUM(Value) * 1.0 / SUM(Visits), 2) AS vpv "
          "FROM Usage GROUP BY week ORDER BY week")


def oracle(db):
    weeks = {}
    with sqlite3.connect(db) as c:   # plain sqlite3: no extension in this connection
        for date, value, visits in c.execute("SELECT Date, Value, Visits FROM Usage"):
            d = datetime.datetime.strptime(date, "%Y-%m-%d %H:%M:%S").date()
            y, w, wd = d.isocalendar()
            start = d - datetime.timedelta(days=wd - 1)
            acc = weeks.setdefault(f"{y}-{w:02d}", [start.isoformat(), 0, 0])
            acc[1] += visits
            acc[2] += value
    return [[k, s, vis, round(val / vis, 2)] for k, (s, vis, val) in sorted(weeks.items())]


def rows_of(data):
    """[[week, starts, visits, vpv]] from a list of objects or of arrays."""
    out = []
    for r in data:
        if isinstance(r, dict):
            r = [r["week"], r["starts"], r["visits"], r["vpv"]]
        out.append([r[0], r[1], int(r[2]), round(float(r[3]), 2)])
    return out


def compare(label, got, want):
    if got != want:
        print(f"check-dist: {label}: the weekly report differs from the ISO-week oracle")
        print(f"  got:  {got}\n  want: {want}")
        sys.exit(1)
    print(f"check-dist: {label}: {len(got)} weeks, equal to the ISO-week oracle")


def expect_error(label, fn, *needles):
    try:
        fn()
    except Exception as e:   # the check is on the message
        text = str(e)
        if all(n in text for n in needles):
            print(f"check-dist: {label}: refused ({text[:100]}...)")
            return
        print(f"check-dist: {label}: wrong error: {text}")
        sys.exit(1)
    print(f"check-dist: {label}: no error")
    sys.exit(1)


def wheel(db):
    import apsw
    import streamqlite
    want = oracle(db)
    lines = os.path.join(tempfile.mkdtemp(), "lines.json")
    with open(lines, "w") as f:
        f.write('{"a":1}\n{"a":2}\n{"a":3}\n')
    for host in ("sqlite3", "apsw"):
        def connect(path=db):
            return sqlite3.connect(path) if host == "sqlite3" else apsw.Connection(path)
        c = connect()
        streamqlite.load(c)
        (v,), = c.execute("SELECT streamqlite_version()").fetchall()
        if v != streamqlite.__version__:
            print(f"check-dist: wheel/{host}: streamqlite_version() {v!r} != __version__ {streamqlite.__version__!r}")
            sys.exit(1)
        compare(f"wheel, streamqlite.load(conn) through {host} (version {v})",
                rows_of(c.execute(REPORT).fetchall()), want)
        (n,), = c.execute("SELECT count(*) FROM json_stream(?)", (lines,)).fetchall()
        assert n == 3, n
        c.close()
        c = connect()
        streamqlite.load(c, files=False)
        compare(f"wheel, load(conn, files=False) through {host}", rows_of(c.execute(REPORT).fetchall()), want)
        expect_error(f"wheel/{host}: json_stream after files=False",
                     lambda: c.execute("SELECT * FROM json_stream('/etc/passwd')").fetchall(),
                     "no such table: json_stream")
    # loadable_path() as sqlite3's own load_extension takes it (no entry point given).
    c = sqlite3.connect(db)
    c.enable_load_extension(True)
    c.load_extension(streamqlite.loadable_path(files=False))
    compare("wheel, load_extension(loadable_path(files=False))", rows_of(c.execute(REPORT).fetchall()), want)
    expect_error("wheel: json_stream through loadable_path(files=False)",
                 lambda: c.execute("SELECT * FROM json_stream('/etc/passwd')").fetchall(), "no such table")

    class NoLoading(sqlite3.Connection):   # as a Python built without extension loading
        enable_load_extension = None
    expect_error("wheel: a sqlite3 without extension loading",
                 lambda: streamqlite.load(sqlite3.connect(":memory:", factory=NoLoading)),
                 "without extension loading", "apsw")
    real = sqlite3.sqlite_version
    sqlite3.sqlite_version = "3.31.1"
    try:
        expect_error("wheel: an SQLite older than 3.40", lambda: streamqlite.load(sqlite3.connect(":memory:")),
                     "SQLite 3.31.1", "3.40.0 or newer")
    finally:
        sqlite3.sqlite_version = real
    expect_error("wheel: not a connection", lambda: streamqlite.load("data.db"), "sqlite3.Connection")


def main():
    mode, db = sys.argv[1], sys.argv[2]
    if mode == "compare":
        compare(sys.argv[4] if len(sys.argv) > 4 else sys.argv[3],
                rows_of(json.load(open(sys.argv[3]))), oracle(db))
    elif mode == "wheel":
        wheel(db)
    elif mode == "report-sql":
        print(REPORT)
    else:
        sys.exit(f"usage: {sys.argv[0]} compare DB JSON [LABEL] | wheel DB | report-sql -")


if __name__ == "__main__":
    main()
