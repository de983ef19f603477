#!/usr/bin/env python3
"""The `streamqlite` command-line tool, run as a person runs it, on the repository's demo
data (sql/demo/create-usage.sql: the Usage table of `make demo`):

- import: CSV (table created from the header), JSON, NDJSON, several files into one table,
  --upsert; the stored rows compared with the source rows value by value and type by type
  (Python's sqlite3 reads them); a bad file later in the list leaves nothing stored.
- query: csv / json / ndjson compared with Python's csv and json modules reading the output
  and Python's sqlite3 running the same SQL; the box table; --param positional and named;
  memory does not grow with the result (peak RSS of 20x the rows stays within 8 MiB).
- report: the weekly series against Python's own week arithmetic (ISO weeks by
  date.isocalendar(), en_US weeks by the Sunday on or before each day), empty weeks as 0.
- the progress line driven in a pseudo-terminal (pty), frames read back and checked; plain
  lines when stderr is a pipe; nothing with --quiet.
- Ctrl-C (SIGINT) in the middle of a large import: exit 130, "rolled back", nothing stored,
  no journal left behind.
- --help with examples, --version, completion scripts (bash -n checks the bash one).
- the box table on a terminal narrowed to its width, and streamed past its 100-row sample;
  the report on a terminal in block bars filling its width; a report of no rows.

Usage: check-cli.py path/to/streamqlite
"""
import csv
import datetime
import fcntl
import io
import json
import os
import pty
import re
import resource
import select
import signal
import sqlite3
import struct
import subprocess
import sys
import tempfile
import termios
import time
import unittest

CLI = os.path.abspath(sys.argv.pop(1)) if len(sys.argv) > 1 else "streamqlite"
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEMO_SQL = os.path.join(ROOT, "sql", "demo", "create-usage.sql")


def run(*args, check=True, **kw):
    p = subprocess.run([CLI, *args], capture_output=True, **kw)
    if check and p.returncode != 0:
        raise AssertionError(f"{args} exited {p.returncode}: {p.stderr.decode()}")
    return p


def rows(db, sql, *params):
    con = sqlite3.connect(db)
    try:
        return con.execute(sql, params).fetchall()
    finally:
        con.close()


def make_big_csv(path, n):
    with open(path, "w") as f:
        f.write("id,name,amount,placed\n")
        for i in range(n):
            f.write(f"{i},item {i % 977},{(i * 7919) % 100000 / 100},2024-{1 + i % 12:02d}-{1 + i % 28:02d} 12:00:00\n")


def run_in_pty(args, columns):
    """Runs the tool with all three streams on a pseudo-terminal `columns` wide; returns
    (exit status, everything it wrote, as the terminal got it)."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, columns, 0, 0))
    p = subprocess.Popen([CLI, *args], stdin=slave, stdout=slave, stderr=slave, close_fds=True)
    os.close(slave)
    out = b""
    while True:
        r, _, _ = select.select([master], [], [], 30)
        if not r:
            break
        try:
            chunk = os.read(master, 65536)
        except OSError:     # EIO: the other side closed
            break
        if not chunk:
            break
        out += chunk
    os.close(master)
    return p.wait(30), out.decode()


class CLITest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmpdir = tempfile.TemporaryDirectory()
        cls.tmp = cls.tmpdir.name
        cls.usage_db = os.path.join(cls.tmp, "usage.db")
        with open(DEMO_SQL) as f:
            sql = f.read()
        con = sqlite3.connect(cls.usage_db)
        con.executescript(sql)
        con.close()
        cls.usage = rows(cls.usage_db, "SELECT FacetId, Value, Visits, Date FROM Usage ORDER BY rowid")
        cls.usage_csv = os.path.join(cls.tmp, "usage.csv")
        with open(cls.usage_csv, "w", newline="") as f:
            w = csv.writer(f, lineterminator="\n")
            w.writerow(["FacetId", "Value", "Visits", "Date"])
            w.writerows(cls.usage)
        cls.big_csv = os.path.join(cls.tmp, "big.csv")
        make_big_csv(cls.big_csv, 1_500_000)

    @classmethod
    def tearDownClass(cls):
        cls.tmpdir.cleanup()

    def path(self, name):
        p = os.path.join(self.tmp, name)
        for suffix in ("", "-journal", "-wal", "-shm"):
            if os.path.exists(p + suffix):
                os.remove(p + suffix)
        return p

    # import

    def test_import_csv_creates_the_table_and_keeps_every_value(self):
        db = self.path("csv.db")
        p = run("import", db, self.usage_csv, "--create")
        self.assertEqual(p.stdout, b"")
        self.assertIn(f"{self.usage_csv}: 126 rows into usage\n".encode(), p.stderr)
        # A column of date-times is inferred DATETIME and stored as the one date text (UTC,
        # milliseconds), so text order is time order: Python's datetime gives the expected text.
        expected = [(f, v, n, datetime.datetime.fromisoformat(d).strftime("%Y-%m-%d %H:%M:%S.000"))
                    for f, v, n, d in self.usage]
        self.assertEqual(rows(db, "SELECT FacetId, Value, Visits, Date FROM usage ORDER BY rowid"), expected)
        self.assertEqual(rows(db, "SELECT DISTINCT typeof(Value), typeof(Visits) FROM usage"), [("integer", "integer")])
        self.assertEqual(rows(db, "SELECT type FROM pragma_table_info('usage') WHERE name = 'Date'"), [("DATETIME",)])

    def test_import_json_and_ndjson(self):
        db = self.path("json.db")
        con = sqlite3.connect(db)
        con.execute("CREATE TABLE Usage(FacetId TEXT, Value INTEGER, Visits INTEGER, Date TEXT)")
        con.commit()
        con.close()
        objects = [dict(zip(["FacetId", "Value", "Visits", "Date"], r)) for r in self.usage]
        whole = os.path.join(self.tmp, "usage.json")
        with open(whole, "w") as f:
            json.dump(objects[:60], f)
        lines = os.path.join(self.tmp, "rest.ndjson")
        with open(lines, "w") as f:
            for o in objects[60:]:
                f.write(json.dumps(o) + "\n")
        p = run("import", db, whole, lines, "--table", "Usage")
        self.assertIn(b"imported 126 rows from 2 files", p.stderr)
        self.assertEqual(rows(db, "SELECT FacetId, Value, Visits, Date FROM Usage ORDER BY rowid"), self.usage)

    def test_import_json_and_ndjson_create_the_table_from_the_keys(self):
        # Keys differ between elements and one first appears after the first line: the
        # columns are every key of the sample in first-seen order, a missing key is NULL,
        # each value comes back as Python's json reads it (True as 1, nested as JSON text).
        db = self.path("create-json.db")
        objects = [dict(zip(["FacetId", "Value", "Visits"], r[:3])) for r in self.usage]
        objects[3]["tags"] = ["a", {"b": None}]
        objects[5]["ok"] = True
        lines = os.path.join(self.tmp, "events.ndjson")
        with open(lines, "w") as f:
            for o in objects:
                f.write(json.dumps(o) + "\n")
        whole = os.path.join(self.tmp, "visits.json")
        with open(whole, "w") as f:
            json.dump(objects, f)
        p = run("import", db, lines, whole, "--create")
        self.assertIn(b"imported 252 rows from 2 files", p.stderr)
        for table in ("events", "visits"):
            self.assertEqual(rows(db, f"SELECT name, type FROM pragma_table_info('{table}')"),
                             [("FacetId", "TEXT"), ("Value", "INTEGER"), ("Visits", "INTEGER"), ("tags", "TEXT"), ("ok", "INTEGER")])
            got = rows(db, f"SELECT FacetId, Value, Visits, tags, ok FROM {table} ORDER BY rowid")
            want = [(o["FacetId"], o["Value"], o["Visits"], o.get("tags"), int(o["ok"]) if "ok" in o else None) for o in objects]
            self.assertEqual([(a, b, c, d if d is None else json.loads(d), e) for a, b, c, d, e in got], want)
        # an empty file has nothing to name the columns with: an error, nothing stored
        empty = os.path.join(self.tmp, "empty.ndjson")
        open(empty, "w").close()
        p = run("import", self.path("empty.db"), empty, "--create", check=False)
        self.assertEqual(p.returncode, 1)
        self.assertIn(b"the input has no element to infer its columns from\nnothing was stored\n", p.stderr)

    def test_a_bad_file_leaves_nothing_stored(self):
        db = self.path("bad.db")
        bad = os.path.join(self.tmp, "usage2.csv")
        with open(bad, "w") as f:
            f.write('FacetId,Value,Visits,Date\nsearch,1,2,2011-01-01\nsearch,"3"x,4,2011-01-02\n')
        p = run("import", db, self.usage_csv, bad, "--table", "usage", "--create", check=False)
        self.assertEqual(p.returncode, 1)
        err = p.stderr.decode()
        # The library's CSVImportError, as it describes itself: line, byte, field.
        self.assertRegex(err, rf"^streamqlite import: {re.escape(bad)}: .*line 3.*\nnothing was stored\n$")
        self.assertFalse(os.path.exists(db))

    def test_table_names_compressed_files_nulls_and_missing_tables(self):
        # R writes doubles with 17 significant digits and NA for a missing value: with --null NA
        # the delays are INTEGER, lat/lon REAL; a name with dots names the table up to its first
        # dot; .gz is read; a missing table is made without --create, and its CREATE printed.
        db = self.path("nyc.db")
        airports = os.path.join(self.tmp, "my.airports.csv")
        with open(airports, "w") as f:
            f.write("faa,lat,lon,delay\n04G,41.1304722,-80.6195833,3\n0G6,41.432908900000004,-84.06712029999999,NA\n"
                    "ZYZ,-17.58333,174.11362,-2\n")
        subprocess.run(["gzip", "-k", "-f", airports], check=True)
        p = run("import", db, airports + ".gz", "--null", "NA")
        self.assertIn(b'streamqlite import: created CREATE TABLE "my" ("faa" TEXT, "lat" REAL, "lon" REAL, "delay" INTEGER)',
                      p.stderr)
        self.assertEqual(rows(db, "SELECT faa, lat, lon, delay FROM my ORDER BY rowid"),
                         [("04G", 41.1304722, -80.6195833, 3), ("0G6", float("41.432908900000004"),
                           float("-84.06712029999999"), None), ("ZYZ", -17.58333, 174.11362, -2)])
        self.assertEqual(rows(db, "SELECT max(lon), avg(delay) FROM my"), [(174.11362, 0.5)])
        p = run("import", db, airports, "--create", "--null", "NA")
        self.assertIn(b"streamqlite import: table my existed: the rows were appended to it", p.stderr)
        self.assertEqual(rows(db, "SELECT count(*) FROM my"), [(6,)])
        p = run("import", db, airports, "--table", "t2", "--null", "NA", "--quiet")
        self.assertEqual(p.stderr, b"")
        self.assertEqual(rows(db, "SELECT count(*) FROM t2"), [(3,)])

    def test_format_from_extension_or_option(self):
        db = self.path("fmt.db")
        odd = os.path.join(self.tmp, "usage.txt")
        with open(self.usage_csv) as f, open(odd, "w") as g:
            g.write(f.read())
        p = run("import", db, odd, check=False)
        self.assertEqual(p.returncode, 64)
        self.assertIn(b"cannot tell the format of", p.stderr)
        run("import", db, odd, "--format", "csv", "--create", "--quiet")
        self.assertEqual(rows(db, "SELECT count(*) FROM usage"), [(126,)])
        p = run("import", db, odd, "--format", "json", "--create", check=False)
        self.assertEqual(p.returncode, 1)
        self.assertIn(b"invalid JSON", p.stderr)

    def test_upsert(self):
        db = self.path("upsert.db")
        con = sqlite3.connect(db)
        con.execute("CREATE TABLE prices(sku TEXT PRIMARY KEY, price REAL)")
        con.execute("INSERT INTO prices VALUES ('a', 1.0), ('b', 2.0)")
        con.commit()
        con.close()
        new = os.path.join(self.tmp, "prices.csv")
        with open(new, "w") as f:
            f.write("sku,price\nb,2.5\nc,3.25\n")
        self.assertNotEqual(run("import", db, new, "--quiet", check=False).returncode, 0)
        run("import", db, new, "--upsert", "sku", "--quiet")
        self.assertEqual(rows(db, "SELECT * FROM prices ORDER BY sku"), [("a", 1.0), ("b", 2.5), ("c", 3.25)])

    def test_upsert_without_a_key_is_one_line_saying_so(self):
        db = self.path("upsertnokey.db")
        con = sqlite3.connect(db)
        con.execute("CREATE TABLE prices(sku TEXT, price REAL)")
        con.execute("CREATE TABLE keyed(sku TEXT, shop TEXT, price REAL, UNIQUE(shop, sku))")
        con.commit()
        con.close()
        new = os.path.join(self.tmp, "prices.csv")
        with open(new, "w") as f:
            f.write("sku,price\nb,2.5\n")
        p = run("import", db, new, "--upsert", "sku", check=False)
        self.assertEqual(p.returncode, 1)
        self.assertEqual(p.stderr.decode(), "streamqlite import: --upsert sku: table prices has no PRIMARY KEY or UNIQUE "
                         "constraint on (sku), which an upsert finds its row by (CREATE UNIQUE INDEX prices_key ON "
                         "prices(sku))\nnothing was stored\n")
        p = run("import", db, new, "--table", "fresh", "--upsert", "sku", check=False)
        self.assertIn(b"table fresh does not exist, and a table the import creates has no key", p.stderr)
        self.assertEqual(rows(db, "SELECT count(*) FROM sqlite_master WHERE name = 'fresh'"), [(0,)])
        keyed = os.path.join(self.tmp, "keyed.csv")
        with open(keyed, "w") as f:
            f.write("shop,sku,price\nx,b,2.5\nx,b,3.5\n")
        run("import", db, keyed, "--upsert", "sku", "--upsert", "shop", "--quiet")
        self.assertEqual(rows(db, "SELECT * FROM keyed"), [("b", "x", 3.5)])

    def test_a_file_for_another_table_is_refused(self):
        # weather.csv into flights: the columns flights lacks are listed, nothing is stored;
        # --ignore-extra leaves them out on purpose; a file sharing no column is refused even then.
        db = self.path("wrongtable.db")
        flights = os.path.join(self.tmp, "flights.csv")
        weather = os.path.join(self.tmp, "weather.csv")
        other = os.path.join(self.tmp, "other.csv")
        with open(flights, "w") as f:
            f.write("year,month,day,dep_delay\n2013,1,1,2\n2013,1,2,NA\n")
        with open(weather, "w") as f:
            f.write("origin,year,month,day,temp\nEWR,2013,1,1,39.02\n")
        with open(other, "w") as f:
            f.write("x,y\n1,2\n")
        run("import", db, flights, "--null", "NA", "--quiet")
        p = run("import", db, weather, "--table", "flights", check=False)
        self.assertEqual(p.returncode, 1)
        self.assertEqual(p.stderr.decode(), f"streamqlite import: {weather}: 2 of its 5 columns are not in table flights: "
                         "origin, temp (it shares year, month, day; flights has year, month, day, dep_delay). Give --table "
                         "for another table, or --ignore-extra to leave those columns out\nnothing was stored\n")
        self.assertEqual(rows(db, "SELECT count(*) FROM flights"), [(2,)])
        run("import", db, weather, "--table", "flights", "--ignore-extra", "--quiet")
        self.assertEqual(rows(db, "SELECT * FROM flights ORDER BY rowid DESC LIMIT 1"), [(2013, 1, 1, None)])
        p = run("import", db, other, "--table", "flights", "--ignore-extra", check=False)
        self.assertEqual(p.returncode, 1)
        self.assertIn(b"no field of the record names a column of table flights", p.stderr)
        self.assertNotIn(b"INSERT", p.stderr)
        self.assertEqual(rows(db, "SELECT count(*) FROM flights"), [(3,)])

    def test_standard_input_and_the_inference_sample(self):
        db = self.path("stdin.db")
        data = b"a,b\n" + b"".join(b"%d,x\n" % i for i in range(50)) + b"1.5,y\n"
        p = run("import", db, "-", "--table", "piped", "--format", "csv", input=data)
        self.assertIn(b'created CREATE TABLE "piped" ("a" REAL, "b" TEXT)', p.stderr)
        self.assertEqual(rows(db, "SELECT count(*), sum(a) FROM piped"), [(51, 1226.5)])
        # with 10 records sampled, a later 1.5 does not fit the INTEGER column: an error naming its line
        p = run("import", db, "-", "--table", "few", "--format", "csv", "--infer-records", "10", input=data, check=False)
        self.assertEqual(p.returncode, 1)
        self.assertIn(b"line 52", p.stderr)
        self.assertEqual(rows(db, "SELECT count(*) FROM sqlite_master WHERE name = 'few'"), [(0,)])
        p = run("import", db, "-", input=data, check=False)
        self.assertEqual(p.returncode, 64)
        self.assertIn(b"- (standard input) needs --table and --format", p.stderr)

    def test_several_null_texts(self):
        db = self.path("nulls.db")
        src = os.path.join(self.tmp, "obs.csv")
        with open(src, "w") as f:
            f.write("site,reading\nA,NA\nB,-\nC,3\n")
        p = run("import", db, src, "--null", "NA", "--null", "-")
        self.assertIn(b'created CREATE TABLE "obs" ("site" TEXT, "reading" INTEGER)', p.stderr)
        self.assertEqual(rows(db, "SELECT site, reading FROM obs"), [("A", None), ("B", None), ("C", 3)])

    def test_declared_types(self):
        # --type replaces an inferred type: zip codes stay text, a declared INTEGER checks its values
        db = self.path("types.db")
        zips = os.path.join(self.tmp, "zips.csv")
        with open(zips, "w") as f:
            f.write("zip,n\n02134,1\n90210,2\n")
        p = run("import", db, zips, "--type", "zip=TEXT", "--type", "n=REAL")
        self.assertIn(b'created CREATE TABLE "zips" ("zip" TEXT, "n" REAL)', p.stderr)
        self.assertEqual(rows(db, "SELECT zip, n FROM zips"), [("02134", 1.0), ("90210", 2.0)])
        p = run("import", db, zips, "--table", "other", "--type", "nope=TEXT", check=False)
        self.assertEqual(p.returncode, 1)
        self.assertEqual(p.stderr.decode(), f"streamqlite import: {zips}: --type: the input has no column nope (its columns: "
                         "zip, n)\nnothing was stored\n")
        p = run("import", db, zips, "--type", "zip", check=False)
        self.assertEqual(p.returncode, 64)
        self.assertIn(b"--type: 'zip' is not COLUMN=TYPE", p.stderr)

    # query

    def test_query_in_memory(self):
        p = run("query", ":memory:", "SELECT 1 + 1 AS two, locale_week('2011-01-02', 'en_US') AS w", "--format", "csv")
        self.assertEqual(p.stdout, b"two,w\r\n2,2011-02\r\n")

    def test_query_csv_json_ndjson(self):
        sql = "SELECT FacetId, Value, Visits, Date, Value * 1.0 / Visits AS vpv FROM Usage WHERE Visits > ? ORDER BY rowid"
        expected = rows(self.usage_db, sql, 20)
        out = run("query", self.usage_db, sql, "--param", "20", "--format", "csv").stdout.decode()
        got = list(csv.reader(io.StringIO(out)))
        self.assertEqual(got[0], ["FacetId", "Value", "Visits", "Date", "vpv"])
        self.assertEqual([r[:4] for r in got[1:]], [[str(v) for v in e[:4]] for e in expected])
        self.assertEqual([float(r[4]) for r in got[1:]], [e[4] for e in expected])   # REAL: read back the same double
        doc = json.loads(run("query", self.usage_db, sql, "--param", "20", "--format", "json").stdout)
        self.assertEqual([tuple(o.values()) for o in doc], expected)
        lines = run("query", self.usage_db, sql, "--param", "20", "--format", "ndjson").stdout.decode().splitlines()
        self.assertEqual([tuple(json.loads(l).values()) for l in lines], expected)
        named = run("query", self.usage_db, "SELECT count(*) AS n FROM Usage WHERE FacetId = :f", "--param", ":f=browse",
                    "--format", "json").stdout
        self.assertEqual(json.loads(named), [{"n": 42}])

    def test_query_box_table(self):
        out = run("query", self.usage_db, "SELECT FacetId, Value, NULL AS n, 'a\nb' AS t FROM Usage ORDER BY rowid LIMIT 2",
                  "--format", "table").stdout.decode()
        self.assertEqual(out, "┌─────────┬───────┬───┬──────┐\n"
                              "│ FacetId │ Value │ n │ t    │\n"
                              "├─────────┼───────┼───┼──────┤\n"
                              "│ search  │   100 │   │ a\\nb │\n"
                              "│ search  │   137 │   │ a\\nb │\n"
                              "└─────────┴───────┴───┴──────┘\n")

    def test_query_on_a_terminal_is_a_box_table_that_fits(self):
        status, text = run_in_pty(["query", self.usage_db, "SELECT FacetId || ' and a long tail of text' AS facet, "
                                   "Value, Date FROM Usage ORDER BY rowid LIMIT 3"], 40)
        self.assertEqual(status, 0, text)
        lines = text.split("\r\n")
        self.assertEqual(lines[:4], ["┌──────────────┬───────┬───────────────┐",
                                     "│ facet        │ Value │ Date          │",
                                     "├──────────────┼───────┼───────────────┤",
                                     "│ search and … │   100 │ 2010-12-13 0… │"])   # 40 columns

    def test_query_table_streams_past_its_sample_with_the_same_widths(self):
        sql = ("WITH RECURSIVE s(value) AS (SELECT 1 UNION ALL SELECT value + 1 FROM s WHERE value < 200) "
               "SELECT value AS n, CASE WHEN value = 150 THEN 'much wider than before' ELSE 'x' END AS t FROM s")
        lines = run("query", self.usage_db, sql, "--format", "table").stdout.decode().splitlines()
        self.assertEqual(len(lines), 200 + 4)
        self.assertEqual(lines[152], "│ 150 │ … │")     # row 150 comes after the 100-row sample: cut to its width
        self.assertEqual({len(l) for l in lines}, {11})

    def test_query_error_is_the_library_error(self):
        p = run("query", self.usage_db, "SELECT nope FROM Usage", check=False)
        self.assertEqual(p.returncode, 1)
        self.assertIn(b"no such column: nope", p.stderr)

    def test_query_memory_does_not_grow_with_the_result(self):
        db = self.path("mem.db")
        run("import", db, self.big_csv, "--create", "--quiet")
        peaks = {}
        for fmt in ("json", "csv", "table"):
            for n in (50_000, 1_000_000):
                code = (f"import resource, subprocess, sys; "
                        f"subprocess.run([{CLI!r}, 'query', {db!r}, 'SELECT * FROM big LIMIT {n}', '--format', {fmt!r}], "
                        f"stdout=subprocess.DEVNULL, check=True); "
                        f"print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)")
                peaks[fmt, n] = int(subprocess.run([sys.executable, "-c", code], capture_output=True, check=True).stdout)
            self.assertLess(peaks[fmt, 1_000_000] - peaks[fmt, 50_000], 8 * 1024, f"{fmt}: peak RSS in KiB {peaks}")

    # report

    def report(self, *args):
        return run("report", self.usage_db, "--table", "Usage", "--time", "Date", *args).stdout.decode()

    @staticmethod
    def chart_rows(text):
        return [(m[1], m[2], m[3]) for m in re.finditer(r"^(\S+?)\*? +(\d{4}-\d\d-\d\d)  [# ]* (\S+)$", text, re.M)]

    def test_report_iso_weeks_with_empty_weeks(self):
        text = self.report("--value", "sum(Visits)", "--from", "2010-11-20", "--to", "2011-02-10")
        by_week = {}
        for facet, value, visits, date in self.usage:
            day = datetime.date.fromisoformat(date[:10])
            if datetime.date(2010, 11, 20) <= day <= datetime.date(2011, 2, 10):
                start = day - datetime.timedelta(days=day.weekday())
                by_week[start] = by_week.get(start, 0) + visits
        expected = []
        start = datetime.date(2010, 11, 15)
        while start <= datetime.date(2011, 2, 7):
            y, w, _ = start.isocalendar()
            expected.append((f"{y}-{w:02d}", start.isoformat(), str(by_week.get(start, 0))))
            start += datetime.timedelta(days=7)
        self.assertEqual(self.chart_rows(text), expected)
        self.assertIn(("2010-47", "2010-11-22", "0"), expected)
        self.assertEqual(max(len(l) for l in text.splitlines()), 80)
        # a header; the weeks --from (a Saturday) and --to (a Thursday) cut, marked partial
        lines = text.splitlines()
        self.assertEqual(lines[1].split(), ["week", "starts", "sum(Visits)"])
        self.assertTrue(lines[2].startswith("2010-46*  2010-11-15  "), lines[2])
        self.assertTrue(lines[-5].startswith("2011-06*  2011-02-07  "), lines[-5])
        self.assertEqual(lines[-2:], ["* 2010-46: a partial week, 2 of its 7 days reported",
                                      "* 2011-06: a partial week, 4 of its 7 days reported"])
        # the value axis: ticks at round values, from 0 to at most the largest
        axis, labels = lines[-4], lines[-3]
        self.assertRegex(axis.strip(), r"^\+(-+\+)+-*$")
        values = [float(v) for v in labels.split()]
        largest = max(float(v) for _, _, v in expected)
        self.assertEqual(values[0], 0)
        self.assertTrue(3 <= len(values) <= 9 and values[-1] <= largest, values)
        steps = {values[i + 1] - values[i] for i in range(len(values) - 1)}
        self.assertEqual(len(steps), 1, values)

    def test_report_locale_numbers_and_title(self):
        db = self.path("money.db")
        con = sqlite3.connect(db)
        con.execute("CREATE TABLE sales(at TEXT, amount REAL)")
        con.executemany("INSERT INTO sales VALUES (?, ?)", [("2024-01-01", 1234.567), ("2024-01-03", 10),
                                                             ("2024-01-08", 20000.5)])
        con.commit()
        con.close()
        text = run("report", db, "--table", "sales", "--time", "at", "--value", "sum(amount)", "--locale", "de_DE",
                   "--title", "Umsatz je Woche").stdout.decode()
        lines = text.splitlines()
        self.assertEqual(lines[0], "Umsatz je Woche")
        self.assertTrue(lines[2].endswith(" 1.244,57"), lines[2])
        self.assertTrue(lines[3].endswith(" 20.000,5"), lines[3])
        self.assertEqual(lines[5].split(), ["0", "5.000", "10.000", "15.000", "20.000"])
        self.assertEqual(lines[6:], ["* 2024-02: a partial week, 1 of its 7 days reported"])

    def test_report_en_us_weeks(self):
        text = self.report("--locale", "en_US")
        counts = {}
        for _, _, _, date in self.usage:
            day = datetime.date.fromisoformat(date[:10])
            start = day - datetime.timedelta(days=(day.weekday() + 1) % 7)   # the Sunday on or before
            counts[start.isoformat()] = counts.get(start.isoformat(), 0) + 1
        self.assertEqual([(s, v) for _, s, v in self.chart_rows(text)], sorted((s, str(n)) for s, n in counts.items()))
        self.assertTrue(text.startswith("count(*) per en_US week of Date, Usage\n"))

    def test_report_on_a_terminal_fills_its_width_with_block_bars(self):
        status, text = run_in_pty(["report", self.usage_db, "--table", "Usage", "--time", "Date", "--value", "sum(Visits)",
                                   "--locale", "en_US"], 70)
        self.assertEqual(status, 0, text)
        lines = text.split("\r\n")
        self.assertEqual(lines[0], "sum(Visits) per en_US week of Date, Usage")
        self.assertEqual(lines[1].split(), ["week", "starts", "sum(Visits)"])
        self.assertEqual(lines[4], "2011-01   2010-12-26  " + "█" * 44 + " 384")   # the largest fills the room
        self.assertEqual(lines[2], "2010-51*  2010-12-12  " + "█" * 36 + "▋" + " " * 7 + " 320")   # 320/384 of 44 = 36.67
        self.assertTrue(any(l.strip().startswith("┴") for l in lines), text)
        self.assertTrue(all(len(l) <= 70 for l in lines))

    def test_report_of_no_rows(self):
        db = self.path("none.db")
        con = sqlite3.connect(db)
        con.execute("CREATE TABLE t(at TEXT)")
        con.close()
        self.assertEqual(run("report", db, "--table", "t", "--time", "at").stdout, b"count(*) per ISO week of at, t\n(no rows)\n")

    def test_report_shows_the_query_a_bad_value_was_placed_in(self):
        p = run("report", self.usage_db, "--table", "Usage", "--time", "Date", "--value", "avg(nope)", check=False)
        self.assertEqual(p.returncode, 1)
        err = p.stderr.decode()
        self.assertTrue(err.startswith("streamqlite report: no such column: nope\nthe query --table, --time and --value "
                                       "were placed in:\nWITH weeks AS ("), err)
        self.assertIn("avg(nope) AS value", err)

    def test_report_rejects_bad_dates(self):
        p = run("report", self.usage_db, "--table", "Usage", "--time", "Date", "--from", "2011-02-30", check=False)
        self.assertEqual(p.returncode, 64)
        self.assertIn(b"--from: '2011-02-30' is not a date (YYYY-MM-DD)", p.stderr)

    # progress and Ctrl-C

    def test_progress_line_in_a_terminal(self):
        db = self.path("pty.db")
        status, text = run_in_pty(["import", db, self.big_csv, "--create", "--progress-interval", "0.05"], 100)
        self.assertEqual(status, 0, text)
        frames = [f for f in text.split("\r\x1b[2K") if f.startswith("file ")]
        self.assertGreaterEqual(len(frames), 3, repr(text))
        size = os.path.getsize(self.big_csv) / 1024 / 1024
        percents = []
        for f in frames:
            m = re.fullmatch(r"file 1/1 big\.csv  ([\d.]+) MiB of ([\d.]+) MiB \((\d+)%\)  ([\d,]+) rows  ([\d,]+) rows/s(  ETA \d+:\d\d)?", f)
            self.assertIsNotNone(m, repr(f))
            self.assertAlmostEqual(float(m[2]), size, delta=0.05)
            self.assertLess(len(f), 100)
            percents.append(int(m[3]))
        self.assertEqual(percents, sorted(percents))
        self.assertTrue(any("ETA" in f for f in frames), frames)
        # the line is erased before the summary
        self.assertIn(f"\r\x1b[2K{self.big_csv}: 1,500,000 rows into big\r\n", text)
        self.assertRegex(text, r"imported 1,500,000 rows from 1 file in [\d.]+ s\r\n"
                               r"streamqlite import: created CREATE TABLE \"big\" \([^\r\n]*\)\r\n$")

    def test_plain_lines_when_piped_and_nothing_when_quiet(self):
        db = self.path("lines.db")
        p = run("import", db, self.big_csv, "--create", "--progress-interval", "0.1")
        lines = p.stderr.decode().splitlines()
        progress = [l for l in lines if l.startswith("streamqlite import: file 1/1 big.csv  ")]
        self.assertGreaterEqual(len(progress), 2, lines)
        self.assertFalse(any("\r" in l or "\x1b" in l for l in lines))
        db = self.path("quiet.db")
        p = run("import", db, self.big_csv, "--create", "--quiet")
        self.assertEqual(p.stderr, b"")
        self.assertEqual(rows(db, "SELECT count(*) FROM big"), [(1_500_000,)])

    def test_messages_to_a_full_disk_do_not_end_the_tool(self):
        # /dev/full fails every write with ENOSPC: progress lines and the error message are
        # dropped, the import runs to its end (or fails) with its own exit status, never
        # SIGILL (FileHandle.write traps on a failed write).
        db = self.path("full-disk.db")
        with open("/dev/full", "wb") as full:
            p = subprocess.run([CLI, "import", db, self.big_csv, "--create", "--progress-interval", "0.05"],
                               stdout=full, stderr=full)
        self.assertEqual(p.returncode, 0)
        self.assertEqual(rows(db, "SELECT count(*) FROM big"), [(1_500_000,)])
        with open("/dev/full", "wb") as full:
            p = subprocess.run([CLI, "import", db, os.path.join(self.tmp, "no-such-file.csv"), "--table", "big"],
                               stdout=full, stderr=full)
        self.assertEqual(p.returncode, 1)

    def interrupt_import(self, db, *args):
        p = subprocess.Popen([CLI, "import", db, self.big_csv, *args, "--progress-interval", "0.05"],
                             stderr=subprocess.PIPE)
        first = p.stderr.readline()                 # rows are being stored
        self.assertIn(b"streamqlite import: file 1/1", first)
        p.send_signal(signal.SIGINT)
        rest = p.stderr.read()
        p.stderr.close()
        return p.wait(30), first, rest

    def test_ctrl_c_rolls_back_a_created_table(self):
        db = self.path("sigint.db")
        rc, first, rest = self.interrupt_import(db, "--create")
        self.assertEqual(rc, 130, rest)
        self.assertTrue(rest.endswith(b"streamqlite import: interrupted (Ctrl-C): rolled back, nothing was stored\n"), rest)
        self.assertFalse(os.path.exists(db))              # the file it created is gone again
        self.assertFalse(os.path.exists(db + "-journal"))

    def test_ctrl_c_keeps_the_rows_from_before(self):
        db = self.path("sigint2.db")
        run("import", db, self.big_csv, "--create", "--quiet")
        rc, _, rest = self.interrupt_import(db, "--table", "big")
        self.assertEqual(rc, 130, rest)
        self.assertEqual(rows(db, "SELECT count(*) FROM big"), [(1_500_000,)])

    def test_a_second_ctrl_c_ends_an_import_waiting_on_a_fifo(self):
        db = self.path("fifo.db")
        run("import", db, self.usage_csv, "--create", "--quiet")
        fifo = os.path.join(self.tmp, "usage.fifo")
        if not os.path.exists(fifo):
            os.mkfifo(fifo)
        p = subprocess.Popen([CLI, "import", db, fifo, "--format", "csv", "--table", "usage"], stderr=subprocess.PIPE)
        with open(fifo, "w") as writer:                  # opened: the import waits for more
            writer.write("FacetId,Value,Visits,Date\n" + "x,1,2,2011-01-01\n" * 200)
            writer.flush()
            time.sleep(0.5)
            p.send_signal(signal.SIGINT)                 # the read waits on: no statement to stop
            time.sleep(0.5)
            self.assertIsNone(p.poll())
            p.send_signal(signal.SIGINT)
            self.assertEqual(p.wait(10), 130)
        err = p.stderr.read()
        p.stderr.close()
        self.assertIn(b"interrupted twice: stopped; nothing was stored", err)
        self.assertEqual(rows(db, "SELECT count(*) FROM usage"), [(126,)])   # the journal rolled back

    # help, version, completions

    def test_help_version_completions(self):
        self.assertEqual(run("--version").stdout, b"streamqlite 0.1.0\n")
        for command in ("import", "query", "report"):
            out = run(command, "--help").stdout.decode()
            self.assertIn("Examples:", out)
            self.assertIn(f"streamqlite {command} ", out)
            # the overview's paragraphs wrap at word boundaries within 80 columns (hard line
            # breaks at 95 columns left lines of one or two words)
            overview = out.split("USAGE:")[0].split("Examples:")[0]
            for para in overview.split("\n\n"):
                lines = para.strip("\n").split("\n")
                for i, line in enumerate(lines):
                    self.assertLessEqual(len(line), 80, f"{command} --help: {line!r}")
                    if i < len(lines) - 1:
                        self.assertGreater(len(line) + len(lines[i + 1].split(" ")[0]), 70,
                                           f"{command} --help: a line broken early: {line!r}")
        for shell in ("bash", "zsh", "fish"):
            script = run("--generate-completion-script", shell).stdout.decode()
            self.assertIn("report", script)
            self.assertIn("progress-interval", script)
        bash = run("--generate-completion-script", "bash").stdout
        subprocess.run(["bash", "-n"], input=bash, check=True)


if __name__ == "__main__":
    unittest.main(verbosity=2)
