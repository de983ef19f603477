#!/usr/bin/env python3
"""Finds the commits that moved the cost of decoding rows into a plain `Decodable` struct.

    python3 Benchmarks/bisect-decodable.py [--from c8a4a63] [--to ec499a0] [--also main] [--threshold 15]
    python3 Benchmarks/bisect-decodable.py --table c8a4a63 BEFORE=before AFTER=after

The second form prints, for each commit, instructions a row and time against the raw loop
of the raw loop, a hand-written RowDecodable and Decodable, for 3 and for 10 columns; with
STREAMQLITE_MACRO_PLUGIN set (a built StreamQLiteMacrosPlugin-tool, as make test-macros
leaves it in .build-macros/debug), @RowCodable too (then every commit given must have the macro).

For a commit, the one fixed client Benchmarks/DecodableBisect (from this checkout, whatever the
commit) is built in release against that commit's library (its tree from `git archive`, so
nothing in this checkout changes), then:
  - instructions per row (callgrind, exact whatever the load): the decoder over 100,000 rows
    less over none, / 100,000, and the same for the raw sqlite3_step/sqlite3_column_* loop;
  - time: REPS alternating pairs of whole processes over 1,000,000 rows (raw loop, then
    Decodable), the median of the pairs' CPU-time ratios (Decodable / raw). (Pairs inside one
    process disagreed with these and with the instruction counts: the first connection's
    reads warm what the second uses.)
The bisection measures both ends of the first-parent range, then the middle of every stretch
whose ends differ by more than --threshold instructions per row, until each such stretch is
one commit: those are the commits that moved the figure. Results are kept in
WORK/results.json and each commit's client in WORK/bin-COMMIT (a rerun measures only what is
new; delete results.json to measure again without rebuilding); the table goes to standard output.
Needs valgrind and the Swift toolchain; WORK (default /tmp/sq-bisect) holds about 150 MB per commit
while it builds.
"""
import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from callgrind_count import instructions, stripped_copy  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CLIENT = os.path.join(REPO, "Benchmarks", "DecodableBisect")
ROWS = 100_000
# The client's @RowCodable variants are built (and measured by --table) when this is set.
MACRO_PLUGIN = os.environ.get("STREAMQLITE_MACRO_PLUGIN")


def git(*args):
    return subprocess.run(["git", "-C", REPO, *args], check=True, capture_output=True, text=True).stdout.strip()


def callgrind(binary, db, variant, rows, work):
    return instructions([binary, "profile", db, variant, str(rows)], work=work)


def cpu_seconds(cmd):
    """The CPU time (user + system) of one whole run of cmd."""
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(p.pid, 0)
    if status != 0:
        raise SystemExit(f"bisect: {cmd} failed")
    return usage.ru_utime + usage.ru_stime


def pair_ratios(binary, db, reps, variant="decodable", base="raw"):
    """reps alternating pairs of whole processes over all rows (start-up: under 2 %):
    the variant's CPU time over the raw loop's, pair by pair."""
    out = []
    for _ in range(reps):
        raw = cpu_seconds([binary, "profile", db, base, "1000000"])
        dec = cpu_seconds([binary, "profile", db, variant, "1000000"])
        out.append(round(dec / raw, 3))
    return out


def per_row(binary, db, variant, work):
    return (callgrind(binary, db, variant, ROWS, work) - callgrind(binary, db, variant, 0, work)) / ROWS


def table(a):
    """--table: every variant, 3 and 10 columns, for each commit given (COMMIT or COMMIT=LABEL)."""
    db = os.path.join(a.work, "tasks.db")
    print("| library | variant | 3 columns: instr./row | × raw | time × raw | 10 INTEGER: instr./row | × raw | time × raw |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    first = True
    for spec in a.table:
        rev, _, label = spec.partition("=")
        sha = git("rev-parse", rev)
        binary = client_binary(sha, a)
        if not os.path.exists(db):
            subprocess.run([binary, "make", db], check=True)
        raw3, raw10 = per_row(binary, db, "raw", a.work), per_row(binary, db, "raw-wide", a.work)
        label = label or rev
        variants = ((["raw C loop"] if first else []) + ["hand-written RowDecodable"]
                    + (["@RowCodable"] if MACRO_PLUGIN else []) + ["Decodable"])
        for v in variants:
            name = {"raw C loop": "raw", "hand-written RowDecodable": "handwritten", "@RowCodable": "rowcodable",
                    "Decodable": "decodable"}[v]
            cells = []
            for suffix, raw in (("", raw3), ("-wide", raw10)):
                i = per_row(binary, db, name + suffix, a.work)
                t = pair_ratios(binary, db, a.reps, name + suffix, "raw" + suffix) if name != "raw" else [1.0]
                cells += [f"{i:,.0f}", f"{i / raw:.2f}", f"{sorted(t)[len(t) // 2]:.2f}"]
            print(f"| {label if name != 'raw' else sha[:7]} | {v} | " + " | ".join(cells) + " |", flush=True)
        first = False


def measure(sha, a, results):
    if sha in results:
        return results[sha]
    binary = client_binary(sha, a)
    return record(sha, binary, a, results)


def client_binary(sha, a):
    """The client built against sha's library (once per commit and client version)."""
    short = sha[:7]
    h = hashlib.sha256()
    for f in ("Package.swift", "Sources/DecodableBisect/main.swift"):
        h.update(open(os.path.join(CLIENT, f), "rb").read())
    h.update(b"macro" if MACRO_PLUGIN else b"")
    binary = os.path.join(a.work, f"bin-{short}-{h.hexdigest()[:8]}")
    if not os.path.exists(binary):
        build_client(sha, short, os.path.join(a.work, f"src-{short}", "streamqlite"),
                     os.path.join(a.work, f"build-{short}"), binary, a)
    return binary


def build_client(sha, short, src, build, binary, a):
    shutil.rmtree(os.path.dirname(src), ignore_errors=True)
    os.makedirs(src)
    subprocess.run(f"git -C {REPO} archive {sha} | tar -x -C {src}", shell=True, check=True)
    env = dict(os.environ, STREAMQLITE_LIB=src)
    print(f"bisect: {short}: building", file=sys.stderr, flush=True)
    b = subprocess.run(["swift", "build", "-c", "release", "--package-path", CLIENT, "--scratch-path", build],
                       env=env, capture_output=True, text=True)
    if b.returncode != 0:
        print(b.stdout[-3000:], b.stderr[-3000:], file=sys.stderr)
        raise SystemExit(f"bisect: {short} does not build")
    stripped_copy(os.path.join(build, "release", "DecodableBisect"), binary)
    shutil.rmtree(build)
    shutil.rmtree(os.path.dirname(src))


def record(sha, binary, a, results):
    short = sha[:7]
    db = os.path.join(a.work, "tasks.db")
    if not os.path.exists(db):
        subprocess.run([binary, "make", db], check=True)
    per_row = {}
    for v in ("raw", "decodable"):
        per_row[v] = (callgrind(binary, db, v, ROWS, a.work) - callgrind(binary, db, v, 0, a.work)) / ROWS
    times = pair_ratios(binary, db, a.reps)
    r = {"sha": sha, "date": git("log", "-1", "--format=%ad", "--date=format:%m-%d %H:%M", sha),
         "subject": git("log", "-1", "--format=%s", sha), "raw": round(per_row["raw"], 1),
         "decodable": round(per_row["decodable"], 1), "time": sorted(times)[len(times) // 2], "times": times}
    results[sha] = r
    json.dump(results, open(os.path.join(a.work, "results.json"), "w"), indent=1)
    print(f"bisect: {short}: {r['decodable']} instructions a row (raw {r['raw']}), time {r['time']}×", file=sys.stderr, flush=True)
    return r


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--from", dest="lo", default="c8a4a63")
    ap.add_argument("--to", dest="hi", default="ec499a0")
    ap.add_argument("--also", action="append", default=[], help="commits measured besides (e.g. main)")
    ap.add_argument("--threshold", type=float, default=15.0, help="instructions a row that count as a move")
    ap.add_argument("--reps", type=int, default=7, help="alternating pairs for the time ratio")
    ap.add_argument("--work", default="/tmp/sq-bisect")
    ap.add_argument("--table", nargs="+", metavar="COMMIT[=LABEL]",
                    help="instead of bisecting: the table of every variant for these commits")
    a = ap.parse_args()
    os.makedirs(a.work, exist_ok=True)
    if a.table:
        return table(a)
    path = os.path.join(a.work, "results.json")
    results = json.load(open(path)) if os.path.exists(path) else {}
    commits = [git("rev-parse", a.lo)] + git("rev-list", "--first-parent", "--reverse", f"{a.lo}..{a.hi}").split()
    movers = []

    def bisect(i, j):
        ri, rj = measure(commits[i], a, results), measure(commits[j], a, results)
        if abs(rj["decodable"] - ri["decodable"]) <= a.threshold:
            return
        if j == i + 1:
            movers.append((commits[i], commits[j]))
            return
        m = (i + j) // 2
        bisect(i, m)
        bisect(m, j)

    bisect(0, len(commits) - 1)
    extra = [measure(git("rev-parse", c), a, results) for c in a.also]
    print(f"Decodable rows: instructions a row (callgrind, {ROWS:,} rows less none) and time (median of {a.reps} "
          f"alternating pairs of whole processes over 1,000,000 rows, Decodable / raw C loop); {len(commits)} first-parent commits {a.lo}..{a.hi}\n")
    print("| commit | date | subject | Decodable instr./row | Δ | raw instr./row | time × raw |")
    print("|---|---|---|---:|---:|---:|---:|")
    ends = [commits[0], commits[-1]]
    rows = [(results[ends[0]], None)] + [(results[h], results[l]) for l, h in movers] + [(results[ends[1]], results[ends[0]])] \
        + [(r, results[ends[1]]) for r in extra]
    for r, before in rows:
        delta = f"{r['decodable'] - before['decodable']:+.0f}" if before else ""
        print(f"| {r['sha'][:7]} | {r['date']} | {r['subject'][:70]} | {r['decodable']:.0f} | {delta} | {r['raw']:.0f} | {r['time']:.2f} |")


if __name__ == "__main__":
    main()
