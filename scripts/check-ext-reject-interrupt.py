#!/usr/bin/env python3
"""Reads that reject records (on_error='skip', docs/sql/rejects.md) stop on
sqlite3_interrupt() as every read does: while every record of a large file
is rejected (each reject is an INSERT into the reject table), and while
waiting on a FIFO whose writer sent bad records and stalls.  The statement
ends with an "interrupted" error within BOUND seconds of interrupt(), and
the connection is usable afterwards.

Checked on Python's sqlite3 module (the system SQLite) and apsw, as
check-ext-fifo-interrupt.py.

Usage: check-ext-reject-interrupt.py build/streamqlite.so
Prints `reject-interrupt: N passed, N failed`; exits 1 on any failure.
"""
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from extcheck import (BOUND, Tally, apsw_host, check_fifo_interrupts, connect_apsw,  # noqa: E402
                      connect_sqlite3, ext_path, quote, run_hosts, run_interrupted, sqlite3_host)

ext = ext_path()
tally = Tally("reject-interrupt")
BAD = b'{"a":"x"}\n'          # refused by strict mode: every record is a reject


def typed(path, name):
    return (f"CREATE VIRTUAL TABLE temp.{name} USING json_stream(filename={quote(path)}, "
            f"columns='a INTEGER', strict=1, on_error=skip, reject_table=rej_{name})")


def checks(host, connect):
    with tempfile.TemporaryDirectory() as tmp:
        # 1. a large file whose every record is rejected (seconds of work)
        big = os.path.join(tmp, "bad.ndjson")
        with open(big, "wb") as fh:
            fh.write(BAD * 2_000_000)
        con = connect()
        con.execute(typed(big, "big"))
        err, secs, rows = run_interrupted(con, "SELECT count(*) FROM big", lambda: None)
        tally.check(err is not None and "interrupt" in err.lower() and secs < BOUND,
                    f"rejecting every record of a large file: error={err!r} rows={rows!r}, "
                    f"{secs:.2f}s after interrupt() (want an 'interrupted' error within {BOUND}s)", host)
        tally.check(con.execute("SELECT 40 + 2").fetchone()[0] == 42, "connection usable after", host)
        con.close()

        # 2. a FIFO: nobody writes; a writer sends bad records and stalls
        fifo = os.path.join(tmp, "in.fifo")
        check_fifo_interrupts(tally, host, connect, fifo, "typed table rejecting records",
                              "SELECT count(*) FROM f", BAD * 1000, setup=typed(fifo, "f"))


if __name__ == "__main__":
    run_hosts(tally, __file__,
              lambda: checks(sqlite3_host(), lambda: connect_sqlite3(ext, check_same_thread=False,
                                                                        isolation_level=None)),
              lambda: checks(apsw_host(), lambda: connect_apsw(ext)))
