#!/usr/bin/env python3
"""csv-spectrum (../shared/csv-spectrum: CSV files with their expected records as
JSON) and RFC 4180 reader cases of our own through the SQL paths: the csv_stream
function (records as JSON objects), a typed table with the header's columns declared
TEXT, and a typed table with inferred types (values compared as text).  One file is
not RFC 4180 (location_coordinates.csv: a quote inside an unquoted field, which
csv-spectrum expects read as is): our reader refuses it, naming line, byte and field,
on every path — expected here as that error.  The Swift paths (importCSV, CSVRowCursor, CSVDecodableCursor):
CSVSpectrumTests.swift.

Usage: check-ext-csv-spectrum.py build/streamqlite.so
Prints `csv-spectrum: N passed, N failed`; exits 1 on any failure.
"""
import json
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from extcheck import Tally, connect_sqlite3, ext_path, quote  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
SPECTRUM = os.path.join(HERE, "..", "..", "shared", "csv-spectrum")

# RFC 4180 cases of our own: (CSV bytes, expected records as dicts of text or None)
OURS = [
    (b'a,b\r\n1,2\r\n', [{"a": "1", "b": "2"}]),                                  # CRLF
    (b'a,b\n1,2', [{"a": "1", "b": "2"}]),                                         # no final line end
    (b'a,b\r1,2\r', [{"a": "1", "b": "2"}]),                                       # CR alone
    (b'"a""x",b\n"1,2","3\r\n4"\n', [{'a"x': "1,2", "b": "3\r\n4"}]),             # quoted name, comma, CRLF in a field
    (b'a,b\n,""\n', [{"a": None, "b": ""}]),                                       # empty is NULL, "" is ''
    (b'\xef\xbb\xbfa,b\n1,2\n', [{"a": "1", "b": "2"}]),                           # BOM
    (b'a\n""""\n', [{"a": '"'}]),                                                  # a lone quote
    (b'a,b\n" x ",y \n', [{"a": " x ", "b": "y "}]),                               # spaces kept
    (b'a,b\n1,2\n\n', [{"a": "1", "b": "2"}]),                                     # a blank last line
]


# csv-spectrum files that are not RFC 4180, and the error our reader gives
NOT_RFC4180 = {"location_coordinates.csv": "line 2, byte 81, field 2 (Location Coordinates): quote character inside an unquoted field"}


def cases():
    out = []
    csvs = os.path.join(SPECTRUM, "csvs")
    for name in sorted(os.listdir(csvs)):
        with open(os.path.join(csvs, name), "rb") as f:
            data = f.read()
        with open(os.path.join(SPECTRUM, "json", name[:-4] + ".json"), encoding="utf-8", errors="replace") as f:
            want = json.load(f)
        if isinstance(want, dict):
            want = [want]
        out.append((name, data, want))
    for i, (data, want) in enumerate(OURS):
        out.append((f"rfc4180-{i}", data, want))
    return out


def main():
    ext = ext_path()
    tally = Tally("csv-spectrum")
    con = connect_sqlite3(ext)
    all_cases = cases()
    tally.check(len(all_cases) >= 21, f"{len(all_cases)} cases (csv-spectrum not found at {SPECTRUM}?)")
    with tempfile.TemporaryDirectory() as tmp:
        for name, data, want in all_cases:
            path = os.path.join(tmp, "f.csv")
            with open(path, "wb") as f:
                f.write(data)
            refused = name in NOT_RFC4180
            # the function: records as JSON objects
            try:
                got = [json.loads(v) for (v,) in con.execute(f"SELECT value FROM csv_stream({quote(path)})")]
                err = None
            except Exception as e:  # noqa: BLE001
                got, err = None, str(e)
            if refused:
                tally.check(err is not None and NOT_RFC4180[name] in err, f"{name}: csv_stream(): {got!r} {err}, want {NOT_RFC4180[name]!r}")
                con.execute("DROP TABLE IF EXISTS temp.t")
                con.execute(f"CREATE VIRTUAL TABLE temp.t USING csv_stream(filename={quote(path)}, columns='a TEXT')")
                try:
                    con.execute("SELECT * FROM t").fetchall()
                    err = None
                except Exception as e:  # noqa: BLE001
                    err = str(e)
                tally.check(err is not None and NOT_RFC4180[name] in err, f"{name}: typed table: {err}")
                continue
            tally.check(got == want, f"{name}: csv_stream(): got {got!r} {err}, want {want!r}")
            names = list(want[0].keys()) if want else []
            if not names:
                continue
            decl = ", ".join('"' + n.replace('"', '""') + '" TEXT' for n in names)
            for label, args in (("declared TEXT", f"columns={quote(decl)}, "), ("inferred", "")):
                con.execute("DROP TABLE IF EXISTS temp.t")
                try:
                    con.execute(f"CREATE VIRTUAL TABLE temp.t USING csv_stream({args}filename={quote(path)})")
                    rows = con.execute("SELECT * FROM t").fetchall()
                    got = [dict(zip(names, (None if v is None else str(v) for v in r))) for r in rows]
                    err = None
                except Exception as e:  # noqa: BLE001
                    got, err = None, str(e)
                tally.check(got == want, f"{name}: typed table, {label}: got {got!r} {err}, want {want!r}")
    con.close()
    tally.finish()


main()
