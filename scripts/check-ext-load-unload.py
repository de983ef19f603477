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
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from extcheck import UNDER_ASAN, Tally, apsw_host, connect_apsw, connect_sqlite3, ext_path, run_hosts, sqlite3_host  # noqa: E402

CYCLES = 300
WARMUP = 50
LIMIT_KB = 16.0
LOCALES = ("en_US", "de_DE", "ar_EG", "th_TH@calendar=buddhist")

ext = ext_path()
tally = Tally("load-unload")


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
    tally.check(wrong is None, f"wrong answer during the loop: {wrong!r}", host)
    per = (rss[-1] - rss[WARMUP - 1]) / (CYCLES - WARMUP)
    print(f"[{host}] RSS {rss[0]} KB after cycle 1, {rss[WARMUP - 1]} KB after {WARMUP}, "
          f"{rss[-1]} KB after {CYCLES}: {per:+.1f} KB per cycle ({secs:.1f} s)")
    if UNDER_ASAN:   # the sanitizer keeps freed memory in quarantine: nothing to compare
        return
    tally.check(per < LIMIT_KB, f"memory grows {per:.1f} KB per load/unload cycle (limit {LIMIT_KB})", host)


if __name__ == "__main__":
    # apsw in a process of its own: the first host's loads must not hide the second's
    run_hosts(tally, __file__,
              lambda: loop(sqlite3_host(), lambda: connect_sqlite3(ext)),
              lambda: loop(apsw_host(), lambda: connect_apsw(ext)),
              apsw_own_process=True)
