#!/usr/bin/env python3
"""The shared table of edge field texts (Tests/Fixtures/edge-fields.tsv) through
the SQL paths: csv_stream typed tables with a declared INTEGER or REAL column
(a number the column would change: an error; any other refusal: the text kept,
or strict=1: an error), and with the column's type inferred.
Python is the oracle for the numbers: an accepted field's INTEGER is int(text),
its REAL float(text) (correctly rounded), compared bit for bit.  The Swift side
of the same table (importCSV, the cursors): EdgeFieldAgreementTests.swift.

Usage: check-ext-edge-fields.py build/streamqlite.so
Prints `edge-fields: N passed, N failed`; exits 1 on any failure.
"""
import os
import struct
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from extcheck import Tally, connect_sqlite3, ext_path, quote  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
TABLE = os.path.join(HERE, "..", "Tests", "Fixtures", "edge-fields.tsv")


def load_table():
    """(raw CSV field bytes, field text or None for NULL, INTEGER, REAL, inferred) per row."""
    rows = []
    with open(TABLE, encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            raw, as_int, as_real, inferred = line.split("\t")
            raw = raw.replace("\\0", "\0")
            if raw == "":
                text = None
            elif raw.startswith('"'):
                text = raw[1:-1].replace('""', '"')
            else:
                text = raw
            rows.append((raw.encode(), text, as_int, as_real, inferred))
    return rows


# Refusals that are errors in every mode: kept as text, SQLite's column affinity
# would change them all the same on INSERT ('1e400' into a REAL column is Inf).
CHANGED = ("beyond the range of a REAL", "too close to zero for a REAL", "negative zero")


def same_double(a, b):
    return isinstance(a, float) and struct.pack("<d", a) == struct.pack("<d", b)


def main():
    ext = ext_path()
    tally = Tally("edge-fields")
    rows = load_table()
    con = connect_sqlite3(ext)
    with tempfile.TemporaryDirectory() as tmp:
        for n, (raw, text, as_int, as_real, inferred) in enumerate(rows):
            path = os.path.join(tmp, f"f{n}.csv")
            with open(path, "wb") as f:
                f.write(b"v\n" + raw + b"\n")
            for decl, want in (("INTEGER", as_int), ("REAL", as_real)):
                what = f"{raw!r} into {decl}"
                for strict in (0, 1):
                    con.execute("DROP TABLE IF EXISTS temp.t")
                    con.execute(f"CREATE VIRTUAL TABLE temp.t USING csv_stream(filename={quote(path)}, "
                                f"columns='v {decl}', strict={strict})")
                    try:
                        got = con.execute("SELECT v, typeof(v) FROM t").fetchall()
                        err = None
                    except Exception as e:  # noqa: BLE001 - the error text is checked
                        got, err = None, str(e)
                    mode = "strict" if strict else "not strict"
                    if want == "null":
                        tally.check(got == [(None, "null")], f"{what} ({mode}): got {got!r} {err}, want NULL")
                    elif want == "i":
                        tally.check(got == [(int(text), "integer")], f"{what} ({mode}): got {got!r} {err}, want {int(text)}")
                    elif want == "r":
                        tally.check(got is not None and got[0][1] == "real" and same_double(got[0][0], float(text)),
                                    f"{what} ({mode}): got {got!r} {err}, want {float(text)!r}")
                    elif strict or want in CHANGED:
                        tail = f"column v is {decl}" + ("" if want in CHANGED else " (strict mode)")
                        tally.check(err is not None and want in err and err.endswith(tail),
                                    f"{what} ({mode}): got {got!r} {err}, want an error saying {want!r}")
                    else:
                        tally.check(got == [(text, "text")], f"{what} (not strict): got {got!r} {err}, want the text")
            con.execute("DROP TABLE IF EXISTS temp.t")
            con.execute(f"CREATE VIRTUAL TABLE temp.t USING csv_stream(filename={quote(path)})")
            got = con.execute("SELECT type FROM pragma_table_info('t')").fetchall()
            tally.check(got == [(inferred,)], f"{raw!r} inferred: got {got!r}, want {inferred}")
            # the inferred table stores the text itself, or its number
            want = {"INTEGER": as_int, "REAL": as_real}.get(inferred)
            got = con.execute("SELECT v FROM t").fetchall()
            if want == "i":
                tally.check(got == [(int(text),)], f"{raw!r} inferred value: got {got!r}")
            elif want == "r":
                tally.check(same_double(got[0][0], float(text)), f"{raw!r} inferred value: got {got!r}")
            else:
                tally.check(got == [(text,)], f"{raw!r} inferred value: got {got!r}, want the text")
    con.close()
    tally.finish()


main()
