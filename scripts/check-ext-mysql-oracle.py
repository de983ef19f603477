#!/usr/bin/env python3
"""mysql_week and mysql_yearweek against MariaDB's WEEK() and YEARWEEK(), modes 0-7.

Starts a throwaway mariadbd (Debian's mariadb-server-core) on a private socket and
data folder in a temporary folder (no network, no grant tables, stopped by its
PID and removed at the end, whatever happens), sends it the same dates through
the `mariadb` client and compares every result: every day from December 20 to
January 10 around each New Year from 1583 to 2200 (where the modes differ), and
random days of the years 0001-9999.

    python3 scripts/check-ext-mysql-oracle.py build/streamqlite.so
"""
import datetime
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from extcheck import connect_sqlite3, ext_path  # noqa: E402

START_TIMEOUT = 60   # seconds for mariadbd to create its data folder and open its socket
QUERY_TIMEOUT = 120


def dates():
    rng = random.Random(20261125)
    out = []
    for year in range(1583, 2201):
        first = datetime.date(year, 12, 20).toordinal()
        out += [datetime.date.fromordinal(n) for n in range(first, first + 22)]
    lo, hi = datetime.date(1, 1, 1).toordinal(), datetime.date(9999, 12, 31).toordinal()
    out += [datetime.date.fromordinal(rng.randint(lo, hi)) for _ in range(5000)]
    return [d.isoformat() for d in out]


def mariadb_results(days, tmp):
    for tool in ("mariadbd", "mariadb-install-db", "mariadb"):
        if not shutil.which(tool) and not os.path.exists("/usr/sbin/" + tool):
            sys.exit(f"check-ext-mysql-oracle: {tool} missing (apt-get install mariadb-server-core mariadb-client-core)")
    data, sock = os.path.join(tmp, "data"), os.path.join(tmp, "mysqld.sock")
    # MariaDB's programs run without the sanitizer runtime that make test-asan preloads
    env = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}
    log = open(os.path.join(tmp, "install.log"), "w")
    subprocess.run(["mariadb-install-db", "--no-defaults", "--datadir=" + data, "--user=" + os.environ.get("USER", "root"),
                    "--auth-root-authentication-method=normal", "--skip-test-db"],
                   stdout=log, stderr=subprocess.STDOUT, check=True, timeout=START_TIMEOUT, env=env)
    server = subprocess.Popen(["/usr/sbin/mariadbd", "--no-defaults", "--datadir=" + data, "--socket=" + sock,
                               "--skip-networking", "--skip-grant-tables", "--user=root",
                               "--pid-file=" + os.path.join(tmp, "mysqld.pid"),
                               "--log-error=" + os.path.join(tmp, "error.log")],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    try:
        deadline = time.monotonic() + START_TIMEOUT
        while not os.path.exists(sock):
            if server.poll() is not None or time.monotonic() > deadline:
                sys.exit("check-ext-mysql-oracle: mariadbd did not start:\n"
                         + open(os.path.join(tmp, "error.log")).read()[-2000:])
            time.sleep(0.1)
        cols = ", ".join([f"WEEK(d, {m})" for m in range(8)] + [f"YEARWEEK(d, {m})" for m in range(8)])
        sql = ["CREATE DATABASE t; USE t; CREATE TABLE days(i INT PRIMARY KEY, d DATE);"]
        for k in range(0, len(days), 1000):
            sql.append("INSERT INTO days VALUES " + ",".join(f"({k + j},'{d}')" for j, d in enumerate(days[k:k + 1000])) + ";")
        sql.append(f"SELECT {cols} FROM days ORDER BY i;")
        out = subprocess.run(["mariadb", "--no-defaults", "--socket=" + sock, "-u", "root", "-N", "-B"],
                             input="\n".join(sql), capture_output=True, text=True, check=True, timeout=QUERY_TIMEOUT, env=env)
        return [tuple(int(v) for v in line.split("\t")) for line in out.stdout.splitlines()]
    finally:
        server.send_signal(signal.SIGTERM)
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


def main():
    days = dates()
    tmp = tempfile.mkdtemp(prefix="streamqlite-mariadb-")
    try:
        theirs = mariadb_results(days, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    con = connect_sqlite3(ext_path())
    cols = ", ".join([f"mysql_week(?1, {m})" for m in range(8)] + [f"mysql_yearweek(?1, {m})" for m in range(8)])
    checked = failed = 0
    if len(theirs) != len(days):
        print(f"MariaDB returned {len(theirs)} rows for {len(days)} dates")
        failed += 1
    for d, want in zip(days, theirs):
        ours = tuple(con.execute(f"SELECT {cols}", (d,)).fetchone())
        for m in range(16):
            checked += 1
            if ours[m] != want[m]:
                failed += 1
                if failed <= 10:
                    fn = "mysql_week" if m < 8 else "mysql_yearweek"
                    print(f"MISMATCH {fn}('{d}', {m % 8}): ours {ours[m]}, MariaDB {want[m]}")
    print(f"check-ext-mysql-oracle: {checked - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
