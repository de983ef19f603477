#!/usr/bin/env python3
"""json_stream reads that wait (a FIFO nobody writes to, a writer that sends
`[1,` and stalls) must stop on sqlite3_interrupt(), and FIFOs must still be
read completely when the data does come, slowly.

Checked on two hosts: Python's sqlite3 module (the system SQLite, 3.40 on
Debian 12, which has no sqlite3_is_interrupted: the probe-statement
fallback of sq_host.c) and apsw (a newer SQLite: sqlite3_is_interrupted
through the host's routine table).  Each query runs while a timer thread
calls interrupt() after INTERRUPT_AFTER seconds; it must end with an
"interrupted" error within BOUND seconds of that.  If it does not, a
watchdog unblocks it (opens and closes the FIFO's write end, or closes the
stalled writer) so that the check fails instead of hanging.

Usage: check-ext-fifo-interrupt.py build/streamqlite.so
Prints `fifo-interrupt: N passed, N failed`; exits 1 on any failure.
"""
import json
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from extcheck import (Tally, apsw_host, check_fifo_interrupts, connect_apsw, connect_sqlite3,  # noqa: E402
                      ext_path, quote, read_slow_fifo, run_hosts, sqlite3_host)

ext = ext_path()
tally = Tally("fifo-interrupt")


def checks(host, connect):
    with tempfile.TemporaryDirectory() as tmp:
        fifo = os.path.join(tmp, "in.fifo")
        typed = f"CREATE VIRTUAL TABLE temp.typed USING json_stream(filename={quote(fifo)}, columns='a')"
        for label, sql, start in (
                ("table-valued function", f"SELECT value FROM json_stream({quote(fifo)})", b"[1,"),
                ("typed table", "SELECT a FROM typed", b'[{"a": 1},')):
            check_fifo_interrupts(tally, host, connect, fifo, label, sql, start, setup=typed)
        # several files: the wait on a later file of a list stops too
        first = os.path.join(tmp, "first.json")
        with open(first, "w") as fh:
            fh.write("[0]")
        files = quote(json.dumps([first, fifo]))
        check_fifo_interrupts(tally, host, connect, fifo, "the second file of a list",
                              f"SELECT value FROM json_stream({files})", b"[1,")

        # data that does come, late and in pieces, is read completely
        for sql, want in (
                (f"SELECT idx, value FROM json_stream({quote(fifo)})",
                 [(0, '{"a":1}'), (1, '{"a":"x"}'), (2, "3")]),
                (f"SELECT idx, value FROM json_stream({quote(fifo)}, 'ndjson')",
                 [(0, '[{"a":1},{"a":"x"},3]')])):
            rows = read_slow_fifo(connect, fifo, (b'[{"a": 1', b'}, {"a"', b': "x"}', b', 3]\n'), sql)
            tally.check(rows == want, f"slow FIFO writer, {sql}: got {rows!r}, want {want!r}", host)


if __name__ == "__main__":
    run_hosts(tally, __file__,
              lambda: checks(sqlite3_host(), lambda: connect_sqlite3(ext, check_same_thread=False,
                                                                        isolation_level=None)),
              lambda: checks(apsw_host(), lambda: connect_apsw(ext)))
