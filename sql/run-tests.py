#!/usr/bin/env python3
"""Runs StreamQLite's SQL test files through the real `sqlite3` shell.

A test file is plain SQL. A statement followed by expectation comments is a
test case; a statement without one is setup and must simply succeed:

    CREATE TABLE t(d TEXT);                          -- setup

    SELECT locale_week('2011-01-02', 'en_US');
    -- => 2011-02

    SELECT 1, 'a' UNION ALL SELECT 2, NULL;          -- several rows: several lines
    -- => 1|a
    -- => 2|NULL

    SELECT locale_week('2011-01-02', 'xx_YY');
    -- error: locale_week: unknown locale 'xx_YY'

A line `-- entry: NAME` before the first statement loads the extension
through that entry point (`.load EXT NAME`) for the whole file, e.g.
`-- entry: sqlite3_streamqlite_noread_init`.

Output uses `.mode list` with `|` between columns and NULL shown as `NULL`.
`-- => ` compares a whole row; `-- error: TEXT` passes when the statement
fails and the shell's error message contains TEXT.  Every file runs against
its own fresh database file (in a temporary folder, which is the working
directory), in order; statements that expect no error run in batches in one
shell process, each error case in a process of its own.  A statement is
terminated by a line ending in `;`.

Usage: run-tests.py --ext build/streamqlite.so [--sqlite3 PATH] FILE.sql...
Prints one line per failure and a closing `N passed, N failed` line; exits 1
if anything failed.
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile


class Case:
    def __init__(self, path, line, sql):
        self.path, self.line, self.sql = path, line, sql
        self.expect_rows = []   # list of row strings, for a value case
        self.expect_error = None
        self.is_test = False

    def where(self):
        return f"{os.path.relpath(self.path)}:{self.line}"


def parse(path):
    """Returns (cases, entry point or None)."""
    cases, buf, start, entry = [], [], None, None
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    for n, raw in enumerate(lines, 1):
        line = raw.rstrip()
        stripped = line.strip()
        if stripped.startswith("-- =>") or stripped.startswith("-- error:"):
            if not cases or buf:
                raise SystemExit(f"{path}:{n}: expectation without a statement before it")
            c = cases[-1]
            c.is_test = True
            if stripped.startswith("-- =>"):
                c.expect_rows.append(stripped[len("-- =>"):].strip())
            else:
                c.expect_error = stripped[len("-- error:"):].strip()
            continue
        if not buf and stripped.startswith("-- entry:"):
            if cases:
                raise SystemExit(f"{path}:{n}: '-- entry:' must come before the first statement")
            entry = stripped[len("-- entry:"):].strip()
            continue
        if not buf and (stripped == "" or stripped.startswith("--")):
            continue
        if not buf:
            start = n
        buf.append(line)
        if stripped.endswith(";") and not stripped.startswith("--"):
            cases.append(Case(path, start, "\n".join(buf)))
            buf = []
    if buf:
        raise SystemExit(f"{path}:{start}: statement without a terminating ';'")
    return cases, entry


def shell(sqlite3, ext, db, script, bail, cwd, entry=None):
    head = f".load {ext}{' ' + entry if entry else ''}\n.mode list\n.separator |\n.nullvalue NULL\n.headers off\n"
    args = [sqlite3, "-batch"] + (["-bail"] if bail else []) + [db]
    p = subprocess.run(args, input=head + script, capture_output=True,
                       text=True, errors="replace", cwd=cwd, timeout=600)
    return p.returncode, p.stdout, p.stderr


MARK = "#~case~"


def run_file(path, ext, sqlite3):
    passed, failures = 0, []
    tmp = tempfile.mkdtemp(prefix="sqltest-")
    db = os.path.join(tmp, "test.db")
    try:
        cases, entry = parse(path)
        i = 0
        while i < len(cases):
            if cases[i].expect_error is not None:
                c = cases[i]
                rc, out, err = shell(sqlite3, ext, db, c.sql + "\n", False, tmp, entry)
                if c.expect_error in err:
                    passed += 1
                elif not err.strip():
                    failures.append(f"{c.where()}: expected error containing {c.expect_error!r}, "
                                    f"but it succeeded with {out.strip()!r}")
                else:
                    failures.append(f"{c.where()}: expected error containing {c.expect_error!r}, "
                                    f"got {err.strip()!r}")
                i += 1
                continue
            j = i
            while j < len(cases) and cases[j].expect_error is None:
                j += 1
            batch = cases[i:j]
            script = "".join(f".print {MARK}{k}\n{c.sql}\n" for k, c in enumerate(batch))
            script += f".print {MARK}end\n"
            rc, out, err = shell(sqlite3, ext, db, script, True, tmp, entry)
            outputs, cur = {}, None
            for line in out.split("\n"):
                if line.startswith(MARK):
                    cur = line[len(MARK):]
                    outputs[cur] = []
                elif cur is not None:
                    outputs[cur].append(line)
            if "end" not in outputs or err.strip():
                # find the case that failed: the last one whose marker printed
                last = max((int(k) for k in outputs if k != "end"), default=0)
                c = batch[last]
                failures.append(f"{c.where()}: unexpected error: {err.strip() or 'shell exited ' + str(rc)}")
                # the rest of the batch did not run: count them as failed
                for c2 in batch[last + 1:]:
                    if c2.is_test:
                        failures.append(f"{c2.where()}: not run (an earlier statement failed)")
                return passed, failures
            for k, c in enumerate(batch):
                if not c.is_test:
                    continue
                got = outputs.get(str(k), [])
                while got and got[-1] == "":
                    got.pop()
                if got == c.expect_rows:
                    passed += 1
                else:
                    failures.append(f"{c.where()}: expected {c.expect_rows!r}, got {got!r}\n    {c.sql}")
            i = j
        return passed, failures
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ext", required=True, help="path of the loadable extension")
    ap.add_argument("--sqlite3", default=os.environ.get("SQLITE3", "sqlite3"))
    ap.add_argument("files", nargs="+")
    a = ap.parse_args()
    ext = os.path.abspath(a.ext)
    if ext.endswith(".so"):
        ext = ext[:-3]
    total_pass, total_fail = 0, 0
    for f in a.files:
        p, fails = run_file(os.path.abspath(f), ext, a.sqlite3)
        total_pass += p
        total_fail += len(fails)
        status = "ok" if not fails else "FAILED"
        print(f"{os.path.relpath(f)}: {p} passed, {len(fails)} failed  {status}")
        for msg in fails:
            print("  FAIL " + msg)
    print(f"sql: {total_pass} passed, {total_fail} failed")
    sys.exit(1 if total_fail or total_pass == 0 else 0)


if __name__ == "__main__":
    main()
