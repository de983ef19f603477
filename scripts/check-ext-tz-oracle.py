#!/usr/bin/env python3
"""The week functions' time zones against Python's zoneinfo (the system's tzdata) as an oracle.

For every zone of zoneinfo.available_timezones() that the extension accepts: every change
of offset from 2020 to 2026 (found by zoneinfo, to the second) at -1 s, 0 s and +1 s, a
grid of instants from 1970 to 2037 (each at another time of day) and a few from 2038 to
2100 (where the zone file's footer rule applies), the extension's
format_date('yyyy-MM-dd HH:mm:ss', t, 'en_US', zone), locale_week_start(t, 'en_US', zone)
and locale_weekday(t, 'en_US', zone) must give zoneinfo's local time, Sunday-started week
and weekday.  ICU's built-in tz data (ICU 72 on Debian 12) is years behind tzdata: where
they differ, a pattern with zone fields must be refused, never printed with another hour.

    python3 scripts/check-ext-tz-oracle.py build/streamqlite.so
"""
import datetime
import os
import sys
import time
import zoneinfo

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from extcheck import UNDER_ASAN, Tally, connect_sqlite3, ext_path  # noqa: E402

import sqlite3  # noqa: E402

if not hasattr(sqlite3.Connection, "enable_load_extension"):
    if sys.executable != "/usr/bin/python3" and os.path.exists("/usr/bin/python3"):
        os.execv("/usr/bin/python3", ["/usr/bin/python3"] + sys.argv)
    sys.exit("check-ext-tz-oracle: no Python whose sqlite3 loads extensions")

UTC = datetime.timezone.utc
T2020 = int(datetime.datetime(2020, 1, 1, tzinfo=UTC).timestamp())
T2027 = int(datetime.datetime(2027, 1, 1, tzinfo=UTC).timestamp())
T1970, T2038 = 0, int(datetime.datetime(2038, 1, 1, tzinfo=UTC).timestamp())
T2100 = int(datetime.datetime(2100, 12, 31, tzinfo=UTC).timestamp())
GRID = 61 * 86400 if UNDER_ASAN else 23 * 86400 + 3 * 3600 + 17 * 60 + 11   # step, 1970-2037
LATE = 397 * 86400 + 5 * 3600 + 7                                             # step, 2038-2100
SCAN = 6 * 3600                                                               # change search, 2020-2026


def offset(zi, t):
    return datetime.datetime.fromtimestamp(t, zi).utcoffset()


def changes(zi):
    """Every instant of 2020-2026 at which the zone's UTC offset changes (to the second)."""
    out = []
    prev_t, prev = T2020, offset(zi, T2020)
    for t in range(T2020 + SCAN, T2027, SCAN):
        cur = offset(zi, t)
        if cur != prev:
            lo, hi = prev_t, t          # offset(lo) == prev != offset(hi)
            while hi - lo > 1:
                mid = (lo + hi) // 2
                if offset(zi, mid) == prev:
                    lo = mid
                else:
                    hi = mid
            out.append(hi)
        prev_t, prev = t, cur
    return out


def instants(zi):
    ts = set()
    for c in changes(zi):
        ts.update((c - 1, c, c + 1))
    ts.update(range(T1970, T2038, GRID))
    ts.update(range(T2038, T2100, LATE))
    return sorted(ts)


def iso(t):
    return datetime.datetime.fromtimestamp(t, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def main():
    tally = Tally("check-ext-tz-oracle")
    start = time.monotonic()
    con = connect_sqlite3(ext_path())
    con.execute("CREATE TEMP TABLE t(ts TEXT)")
    zones = sorted(zoneinfo.available_timezones())
    refused, checked, ntrans = [], 0, 0
    for z in zones:
        try:
            con.execute("SELECT locale_week_start('2000-01-01T00:00Z', 'en_US', ?)", (z,)).fetchone()
        except sqlite3.Error:
            refused.append(z)
            continue
        zi = zoneinfo.ZoneInfo(z)
        ts = instants(zi)
        ntrans += len(ts)
        con.execute("DELETE FROM t")
        con.executemany("INSERT INTO t VALUES (?)", [(iso(t),) for t in ts])
        rows = con.execute(
            "SELECT format_date('yyyy-MM-dd HH:mm:ss', ts, 'en_US', ?1),"
            " locale_week_start(ts, 'en_US', ?1), locale_weekday(ts, 'en_US', ?1) FROM t ORDER BY rowid",
            (z,)).fetchall()
        bad = 0
        for t, (f, ws, wd) in zip(ts, rows):
            local = datetime.datetime.fromtimestamp(t, zi)
            back = (local.isoweekday() % 7)            # days since Sunday
            want = (local.strftime("%Y-%m-%d %H:%M:%S"),
                    (local.date() - datetime.timedelta(days=back)).isoformat(), back + 1)
            if (f, ws, wd) != want:
                bad += 1
                if bad <= 3:
                    tally.check(False, f"{z} at {iso(t)}: got {(f, ws, wd)}, zoneinfo {want}")
        checked += len(rows) - bad
        if bad > 3:
            tally.check(False, f"{z}: {bad - 3} more differences")
        tally.check(len(rows) == len(ts), f"{z}: {len(rows)} rows for {len(ts)} instants")
    tally.passed += checked
    # ICU 72 does not know a few zones newer than its data; nearly all must be accepted
    tally.check(len(refused) <= len(zones) // 50,
                f"{len(refused)} of {len(zones)} zones refused: {refused[:20]}")
    print(f"{len(zones) - len(refused)} zones, {ntrans} instants ({checked} agree); refused: {refused}")

    # zone fields come from ICU: where its data disagrees with the system's, an error naming
    # the function, zone and instant; where they agree, the hour is zoneinfo's
    for z, when in (("Africa/Cairo", "2023-06-01T12:00:00Z"), ("America/Mexico_City", "2023-06-01T12:00:00Z"),
                    ("America/New_York", "2023-06-01T12:00:00Z"), ("Europe/Berlin", "2024-10-27T00:30:00Z")):
        if z in refused:
            continue
        want = datetime.datetime.fromisoformat(when.replace("Z", "+00:00")).astimezone(zoneinfo.ZoneInfo(z))
        try:
            got = con.execute("SELECT format_date('yyyy-MM-dd HH:mm ZZZZZ', ?, 'en_US', ?)", (when, z)).fetchone()[0]
            tally.check(got[:16] == want.strftime("%Y-%m-%d %H:%M"), f"{z} {when} with zone fields: {got!r}, zoneinfo {want}")
        except sqlite3.Error as e:
            msg = str(e)
            tally.check(msg.startswith("format_date: ICU's time zone data disagrees with the system's for ")
                        and f"'{z}'" in msg and f"'{when}'" in msg, f"{z} {when}: {msg}")
    if "America/New_York" not in refused:
        got = con.execute("SELECT format_date('HH:mm z', '2023-06-01T12:00:00Z', 'en_US', 'America/New_York')").fetchone()[0]
        tally.check(got == "08:00 EDT", f"America/New_York zone field: {got!r}")
    elapsed = time.monotonic() - start
    print(f"{elapsed:.1f} s")
    tally.finish()


main()
