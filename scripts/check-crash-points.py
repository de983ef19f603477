#!/usr/bin/env python3
"""Crash points: an import killed with SIGKILL at a random moment leaves the
database intact, holding the import whole or not at all, and every import
that was acknowledged (its process exited 0) whole.

Each trial starts one import in a process of its own and kills it (kill -9)
after a random delay drawn from the import's own duration (measured once per
kind), so that kills land before, inside and after its transaction.  The
kinds:

  sql        sqlite3 shell: INSERT INTO t SELECT FROM a typed csv_stream table
  sql-rejects  the same with strict=1, on_error=skip, reject_table=rej (1 % of the
               records are rejected): t and rej both whole, or both untouched
  cli-csv    the streamqlite tool (the Swift importCSV), a new table per trial
  cli-ndjson the same for NDJSON (the Swift importJSON)
  server     the tasks service (Examples/TasksServer): a bulk POST of 2,000 tasks, the
             server killed during it and started again; every POST answered 201 is
             stored whole, every other one whole or not at all

on two databases, one in rollback-journal mode and one in WAL mode.  After
every trial the database is opened by Python's sqlite3 (a new process's
view: a hot journal is rolled back): PRAGMA integrity_check must say ok, and
each trial's rows must number 0 or all of them (all of them if it exited 0).

Seeded and bounded in time: --seed N (default 1), --seconds S (default 60),
--trials N (at most; default 400).  Prints the trials per kind and how many
kills landed before the end of the import, and `crash-points: N passed, N
failed`.

Usage: check-crash-points.py build/streamqlite.so [--cli PATH] [--server PATH] [--seed N] [--seconds S]
"""
import argparse
import http.client
import json
import os
import re
import threading
import random
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from extcheck import Tally  # noqa: E402

ROWS = 200_000
BAD_EVERY = 100          # every 100th record has a score that is no number


def write_data(tmp):
    csv_path = os.path.join(tmp, "data.csv")
    nd_path = os.path.join(tmp, "data.ndjson")
    with open(csv_path, "w") as c, open(nd_path, "w") as n:
        c.write("id,name,score\n")
        for i in range(1, ROWS + 1):
            score = f"x{i}" if i % BAD_EVERY == 0 else f"{i}.25"
            c.write(f'{i},"Person {i}, the {i % 7}th",{score}\n')
            n.write(f'{{"id":{i},"name":"Person {i}","score":{i}.25}}\n')
    return csv_path, nd_path


REJ = ('CREATE TABLE IF NOT EXISTS rej(file TEXT, line INTEGER, "offset" INTEGER, record INTEGER, '
       '"column" TEXT, reason TEXT, raw TEXT, raw_truncated INTEGER)')


def setup_db(path, wal):
    con = sqlite3.connect(path)
    if wal:
        con.execute("PRAGMA journal_mode=WAL")
    con.execute("CREATE TABLE IF NOT EXISTS t(batch INTEGER, id INTEGER, name TEXT, score)")
    con.execute("CREATE INDEX IF NOT EXISTS t_batch ON t(batch)")
    con.execute(REJ)
    con.commit()
    con.close()


def link(tmp, src, k, ext):
    """A name of the trial's own for the data file (the reject table's file column)."""
    name = os.path.join(tmp, f"trial{k}.{ext}")
    os.symlink(src, name)
    return name


def command(kind, k, db, ext, cli, files):
    csv_path, nd_path = files
    if kind in ("sql", "sql-rejects"):
        opts = ", strict=1, on_error=skip, reject_table=rej" if kind == "sql-rejects" else ""
        sql = (f"CREATE VIRTUAL TABLE temp.c USING csv_stream(filename='{csv_path}', "
               f"columns='id INTEGER, name TEXT, score REAL'{opts}); "
               f"INSERT INTO t SELECT {k}, * FROM c;")
        return ["sqlite3", db, "-cmd", f".load {ext[:-3]}", sql]
    src = csv_path if kind == "cli-csv" else nd_path
    return [cli, "import", db, src, "--table", f"b{k}", "--create", "--quiet"]


def expected_rows(kind):
    return ROWS - ROWS // BAD_EVERY if kind == "sql-rejects" else ROWS


def state(db, kind, k, csv_path):
    """(rows of the trial, its rejects) as a new connection sees them; integrity first."""
    con = sqlite3.connect(db)
    try:
        ok = con.execute("PRAGMA integrity_check").fetchone()[0]
        if kind in ("sql", "sql-rejects"):
            n = con.execute("SELECT count(*) FROM t WHERE batch=?", (k,)).fetchone()[0]
            r = con.execute("SELECT count(*) FROM rej WHERE file=?", (csv_path,)).fetchone()[0]
        else:
            has = con.execute("SELECT count(*) FROM sqlite_master WHERE name=?", (f"b{k}",)).fetchone()[0]
            n = con.execute(f"SELECT count(*) FROM b{k}").fetchone()[0] if has else 0
            r = 0
        return ok, n, r
    finally:
        con.close()


def forget(db, kind, k, csv_path):
    """Removes a checked trial's rows: every trial is checked against a small database."""
    con = sqlite3.connect(db)
    with con:
        if kind in ("sql", "sql-rejects"):
            con.execute("DELETE FROM t WHERE batch=?", (k,))
            con.execute("DELETE FROM rej WHERE file=?", (csv_path,))
        else:
            con.execute(f"DROP TABLE IF EXISTS b{k}")
    con.close()


class Server:
    """The tasks service on a free port of 127.0.0.1, on its own database file."""

    def __init__(self, binary, db, log):
        self.binary, self.db, self.log = binary, db, log
        self.proc = None
        self.port = None

    def start(self):
        out = open(self.log, "w")
        self.proc = subprocess.Popen([self.binary, "--port", "0", "--db", self.db], stdout=out, stderr=out)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            m = re.search(r"listening on http://127\.0\.0\.1:(\d+)", open(self.log).read())
            if m:
                self.port = int(m.group(1))
                return
            if self.proc.poll() is not None:
                raise RuntimeError("the tasks server exited: " + open(self.log).read()[-500:])
            time.sleep(0.05)
        raise RuntimeError("the tasks server did not listen within 30 s")

    def kill(self):
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait()


SERVER_BATCH = 2000


def post_batch(port, k, outcome):
    """POSTs trial k's tasks; outcome['status'] is the answer's status, or None."""
    body = json.dumps([{"title": f"trial{k}-{i}", "done": i % 2 == 0} for i in range(SERVER_BATCH)])
    try:
        c = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        c.request("POST", "/tasks", body=body, headers={"Content-Type": "application/json"})
        r = c.getresponse()
        r.read()
        outcome["status"] = r.status
    except (OSError, http.client.HTTPException):
        outcome["status"] = None


def server_trials(binary, rng, seconds, tmp, check):
    """Bulk POSTs, the server killed during them; returns (trials, killed during a POST)."""
    db = os.path.join(tmp, "server.db")
    server = Server(binary, db, os.path.join(tmp, "server.log"))
    server.start()
    # the POST's duration, once without a kill
    t0 = time.monotonic()
    outcome = {}
    post_batch(server.port, 0, outcome)
    duration = time.monotonic() - t0
    check(outcome.get("status") == 201, f"server: a bulk POST without a kill answered {outcome.get('status')}")
    trials = killed_during = 0
    deadline = time.monotonic() + seconds
    k = 0
    try:
        while time.monotonic() < deadline:
            k += 1
            trials += 1
            outcome = {}
            t = threading.Thread(target=post_batch, args=(server.port, k, outcome))
            t.start()
            t.join(timeout=rng.uniform(0, duration * 1.2))
            during = t.is_alive()
            server.kill()
            t.join()
            killed_during += during
            con = sqlite3.connect(db)
            ok = con.execute("PRAGMA integrity_check").fetchone()[0]
            n = con.execute("SELECT count(*) FROM tasks WHERE title LIKE ?", (f"trial{k}-%",)).fetchone()[0]
            con.close()
            where = f"server trial {k} (answer {outcome.get('status')})"
            check(ok == "ok", f"{where}: integrity_check: {ok}")
            check(n in (0, SERVER_BATCH), f"{where}: {n} of {SERVER_BATCH} tasks stored (half a POST)")
            if outcome.get("status") == 201:
                check(n == SERVER_BATCH, f"{where}: answered 201, yet {n} of {SERVER_BATCH} tasks stored")
            server.start()
    finally:
        server.kill()
    return trials, killed_during, duration


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("ext")
    ap.add_argument("--cli")
    ap.add_argument("--server")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--seconds", type=float, default=60)
    ap.add_argument("--trials", type=int, default=400)
    a = ap.parse_args()
    ext = os.path.abspath(a.ext)
    rng = random.Random(a.seed)
    kinds = ["sql", "sql-rejects"] + (["cli-csv", "cli-ndjson"] if a.cli else [])
    tally = Tally("crash-points")
    check = tally.check
    counts = {k: [0, 0, 0] for k in kinds}     # trials, kills before the end, hot journals left

    with tempfile.TemporaryDirectory() as tmp:
        data = write_data(tmp)
        dbs = [os.path.join(tmp, "rollback.db"), os.path.join(tmp, "wal.db")]
        setup_db(dbs[0], False)
        setup_db(dbs[1], True)
        # each kind once to the end: its duration, and that it works at all
        duration = {}
        k = 0
        for kind in kinds:
            k += 1
            files = (link(tmp, data[0], k, "csv"), link(tmp, data[1], k, "ndjson"))
            t0 = time.monotonic()
            p = subprocess.run(command(kind, k, dbs[0], ext, a.cli, files), capture_output=True, text=True)
            duration[kind] = time.monotonic() - t0
            check(p.returncode == 0, f"{kind}: the import without a kill fails: {p.stderr.strip()}")
            ok, n, r = state(dbs[0], kind, k, files[0])
            check(ok == "ok" and n == expected_rows(kind), f"{kind}: {n} rows after a whole import, integrity {ok}")
            if kind == "sql-rejects":
                check(r == ROWS // BAD_EVERY, f"{kind}: {r} rejects after a whole import")
        deadline = time.monotonic() + a.seconds
        trials = 0
        while trials < a.trials and time.monotonic() < deadline:
            k += 1
            trials += 1
            kind = rng.choice(kinds)
            db = rng.choice(dbs)
            files = (link(tmp, data[0], k, "csv"), link(tmp, data[1], k, "ndjson"))
            delay = rng.uniform(0, duration[kind] * 1.1)
            p = subprocess.Popen(command(kind, k, db, ext, a.cli, files),
                                 stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            try:
                p.wait(timeout=delay)
            except subprocess.TimeoutExpired:
                p.send_signal(signal.SIGKILL)
                p.wait()
            counts[kind][0] += 1
            killed = p.returncode == -signal.SIGKILL
            if killed:
                counts[kind][1] += 1
                # killed inside its write transaction: the rollback journal is still there
                if os.path.exists(dbs[0] + "-journal") and db == dbs[0]:
                    counts[kind][2] += 1
            acknowledged = p.returncode == 0
            if not killed and not acknowledged:
                check(False, f"trial {k} ({kind}): exit {p.returncode}: {p.stderr.read().decode()[-300:]}")
            p.stderr.close()
            ok, n, r = state(db, kind, k, files[0])
            want = expected_rows(kind)
            where = f"trial {k} ({kind}, {os.path.basename(db)}, kill after {delay:.3f}s)"
            check(ok == "ok", f"{where}: integrity_check: {ok}")
            check(n in (0, want), f"{where}: {n} of {want} rows stored (half an import)")
            if acknowledged:
                check(n == want, f"{where}: acknowledged, yet {n} of {want} rows")
            if kind == "sql-rejects":
                rw = ROWS // BAD_EVERY
                check((n, r) in ((0, 0), (want, rw)), f"{where}: {n} rows and {r} rejects (not one statement)")
            forget(db, kind, k, files[0])
        if a.server:
            n, during, d = server_trials(a.server, rng, max(a.seconds / 4, 5), tmp, check)
            print(f"crash-points: server      {n:4} trials, {during:4} killed during the POST "
                  f"(a {SERVER_BATCH}-task POST: {d:.2f}s)")
        for kind in kinds:
            print(f"crash-points: {kind:11} {counts[kind][0]:4} trials, {counts[kind][1]:4} killed "
                  f"before the end, {counts[kind][2]:4} inside the write transaction (a hot journal "
                  f"left; rollback database only) (import {duration[kind]:.2f}s)")
    tally.finish()


if __name__ == "__main__":
    main()
