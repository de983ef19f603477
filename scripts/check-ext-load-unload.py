#!/usr/bin/env python3
"""Memory must not grow when a host loads the extension, uses it and closes
the connection, over and over (a web app opening a connection per request).

CYCLES times in one process: open a connection, load build/streamqlite.so,
call format_date / locale_week / locale_week_rules in four locales (one
with another calendar) and a time zone, read a small file with json_stream,
close.  The resident set size is read after every cycle; the growth per
cycle between cycle WARMUP and the last must stay under LIMIT_KB.  (When
libicu was unloaded with the extension, ICU's caches were lost each time:
about 180 KB per cycle.)  Runs on Python's sqlite3 (the system SQLite) and
on apsw.

Usage: check-ext-load-unload.py build/streamqlite.so
Prints `load-unload: N passed, N failed`; exits 1 on any failure.
"""
import os
import subprocess
import sys
import tempfile
import time

CYCLES = 300
WARMUP = 50
LIMIT_KB = 16.0
LOCALES = ("en_US", "de_DE", "ar_EG", "th_TH@calendar=buddhist")

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


def rss_kb():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") // 1024


def loop(host, connect):
    with tempfile.TemporaryDirectory() as tmp:
        doc = os.path.join(tmp, "t.json")
        with open(doc, "w") as f:
            f.write('[{"d": "2011-01-02"}, {"d": "2011-12-30"}]')
        rss, t0, wrong = [], time.time(), None
        for i in range(CYCLES):
            con = connect()
            for loc in LOCALES:
                row = tuple(con.execute(
                    "SELECT format_date('EEEE d MMMM y', '2011-01-02', ?, 'Europe/Berlin'),"
                    " locale_week('2011-01-02', ?), locale_week_rules(?)", (loc, loc, loc)).fetchone())
                if i == 0 and loc == "de_DE" and row[:2] != ("Sonntag 2 Januar 2011", "2010-52"):
                    wrong = row
            n = con.execute("SELECT count(locale_week(value->>'d', 'en_US')) FROM json_stream(?)",
                            (doc,)).fetchone()[0]
            if n != 2:
                wrong = n
            con.close()
            rss.append(rss_kb())
        secs = time.time() - t0
    check(host, wrong is None, f"wrong answer during the loop: {wrong!r}")
    per = (rss[-1] - rss[WARMUP - 1]) / (CYCLES - WARMUP)
    print(f"[{host}] RSS {rss[0]} KB after cycle 1, {rss[WARMUP - 1]} KB after {WARMUP}, "
          f"{rss[-1]} KB after {CYCLES}: {per:+.1f} KB per cycle ({secs:.1f} s)")
    check(host, per < LIMIT_KB, f"memory grows {per:.1f} KB per load/unload cycle (limit {LIMIT_KB})")


def host_sqlite3():
    import sqlite3

    def connect():
        con = sqlite3.connect(":memory:")
        con.enable_load_extension(True)
        con.load_extension(ext[:-3] if ext.endswith(".so") else ext)
        return con
    loop(f"sqlite3 {sqlite3.sqlite_version}", connect)


def host_apsw():
    import apsw

    def connect():
        con = apsw.Connection(":memory:")
        con.enable_load_extension(True)
        con.load_extension(ext)
        return con
    loop(f"apsw {apsw.sqlite_lib_version()}", connect)


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
                                       capture_output=True, text=True, timeout=300)
                    print(r.stdout, end="")
                    last = [l for l in r.stdout.splitlines() if l.startswith("load-unload:")]
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
        # apsw in a process of its own: the first host's loads must not hide
        # the second's
        r = subprocess.run([sys.executable, __file__, ext, "--apsw-only"],
                           capture_output=True, text=True, timeout=300)
        print(r.stdout, end="")
        last = [l for l in r.stdout.splitlines() if l.startswith("load-unload:")]
        if last:
            p, f = [int(x.split()[0]) for x in last[-1].split(":")[1].split(",")]
            passed += p
            failed += f
        else:
            failed += 1
            print(f"FAIL [apsw] did not run the checks: {r.stderr[-800:]}")
    print(f"load-unload: {passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    if "--apsw-only" in sys.argv:
        try:
            import apsw  # noqa: F401
        except ImportError:
            failed += 1
            print("FAIL apsw is not installed (run scripts/ensure-deps.sh)")
        else:
            host_apsw()
        print(f"load-unload: {passed} passed, {failed} failed")
        sys.exit(1 if failed else 0)
    main()
