#!/usr/bin/env python3
"""Instructions per row (or per operation) of a fixed set of benchmarks, for one or more builds.

    python3 Benchmarks/instructions.py before=/tmp/bench-base after=Benchmarks/.build/release
    python3 Benchmarks/instructions.py --max-regression 1 --jobs 2 before=DIR after=DIR
    python3 Benchmarks/instructions.py --list
    python3 Benchmarks/instructions.py --only 'tasks|wide' base=DIR

Each LABEL=DIR is a Benchmarks build folder (`.build/release` of `swift build -c release` in
Benchmarks/, or a copy of its executables): StreamQLiteBenchmarks, CodableBenchmarks and
ImportOnce are taken from it (a copy without debug information, `strip --strip-debug`, in
the work folder). Every benchmark runs once under `valgrind --tool=callgrind` with its N and
once with its baseline (0 rows, 1 where the binary refuses 0, or for CodableBenchmarks'
untoggled decoders `profile none N`: the same input built and nothing decoded); the figure
is (I(N) - I(baseline)) / units.
Each baseline is measured once per build. Counts are exact whatever the load (a point
query's ids are random: a few instructions of noise there).

The output is one markdown table: each benchmark, its figure for each label, and the change
of every label after the first against the first (positive: more instructions, worse).
With --max-regression P the exit status is 1 when any benchmark of any later label is worse
than the first label's by more than P percent. --json FILE also writes the raw counts;
--reference FILE takes the first column from such a file instead of measuring it again:

    python3 Benchmarks/instructions.py --reference /tmp/base.json --max-regression 1 after=DIR

Not covered (no profile mode): JSONBenchmarks (every variant in one timed run, with GRDB
and Foundation), CSVBenchmarks (its sections run ours and the peers' readers together, and
the sqlite3 shell); the CSV/JSON import paths are measured through ImportOnce instead;
CodableBenchmarks' decode-small and orders (Foundation's decoder runs in the same untoggled
process; column-texts decodes the same orders inside `profiled`). Writing CSV/JSON out has
no profile mode either. Every run has SWIFT_DETERMINISTIC_HASHING=1 (callgrind_count).
Needs valgrind and strip; about 7 CPU-minutes a build (56 runs; 7.4 min wall with --jobs 2
at load average 3-5).
"""
import argparse
import concurrent.futures
import json
import os
import re
import shutil
import signal
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from callgrind_count import instructions, stripped_copy  # noqa: E402

SQB, CODABLE, IMPORT = "StreamQLiteBenchmarks", "CodableBenchmarks", "ImportOnce"
TASKS_SCHEMA = "CREATE TABLE t(id INTEGER PRIMARY KEY, title TEXT, done INTEGER)"


class Bench:
    """One line of the table.

    args(n): the arguments of the binary; units(n): what the difference is divided by;
    base: 'zero' (the same arguments with n = base_n, 0 unless the binary refuses 0) or a list
    of arguments (a shared baseline);
    toggle: callgrind --toggle-collect pattern (only what runs inside counts)."""

    def __init__(self, name, binary, args, n, units, unit="row", base="zero", toggle=None, base_n=0):
        self.name, self.binary, self.args, self.n, self.units = name, binary, args, n, units
        self.unit, self.base, self.toggle, self.base_n = unit, base, toggle, base_n

    def count(self):
        """What the difference of the two runs is divided by."""
        return self.units(self.n) - (self.units(self.base_n) if self.base == "zero" else 0)

    def run_args(self):
        return list(self.args(self.n))

    def base_args(self):
        return list(self.args(self.base_n)) if self.base == "zero" else list(self.base)


def benchmarks(work):
    out = []
    # StreamQLiteBenchmarks `profile SECTION VARIANT ROWS` (the table of 100,000 rows is filled
    # whatever ROWS is, so the 0-row run differs by the fetching alone). GRDB's variants left out.
    fetch = ["raw C API loop", "StreamQLite hand-written", "StreamQLite @RowCodable macro",
             "StreamQLite Decodable", "StreamQLite Row by name"]
    for section, n in (("tasks", 100_000), ("wide", 100_000)):
        for v in fetch:
            out.append(Bench(f"{section}: {v}", SQB, lambda k, s=section, v=v: ["profile", s, v, str(k)], n, lambda k: k))
    for v in ("prepare every time (raw C)", "prepare every time (StreamQLite makeStatement)",
              "StreamQLite cache (db.value)", "StreamQLite held statement"):
        out.append(Bench(f"point: {v}", SQB, lambda k, v=v: ["profile", "point", v, str(k)], 20_000, lambda k: k,
                         unit="query"))
    # CodableBenchmarks `profile VARIANT N`: every variant runs its body 5 times. (The encoders'
    # function is 14encodeProfiled in the mangled name; Encoding.swift's comment says 15.)
    n = 100_000
    for v, what in (("decode", "[Hi] (Decodable)"), ("hand", "[HiHand] (JSONDecodable)"), ("stream", "elements(of: Hi)")):
        out.append(Bench(f"codable {v}: {what}", CODABLE, lambda k, v=v: ["profile", v, str(k)], n, lambda k: 5 * k,
                         unit="element", base=["profile", "none", str(n)]))
    for v, per in (("encode", 1), ("encode-sorted", 1), ("encode-hand", 1), ("encode-orders", 10),
                   ("encode-hand-orders", 10), ("encode-small-profile", 10)):
        out.append(Bench(f"codable {v}", CODABLE, lambda k, v=v: ["profile", v, str(k)], n, lambda k, per=per: 5 * (k // per),
                         unit="call" if "small" in v else "order" if per == 10 else "element", toggle="*14encodeProfiled*"))
    for v, what in (("rows", "rows(OrderRow) from a JSON column"), ("column-texts", "each row's text by JSONValueDecoder"),
                    ("texts", "values(String) of the same column")):
        out.append(Bench(f"codable {v}: {what}", CODABLE, lambda k, v=v: ["profile", v, str(k)], n,
                         lambda k: 5 * (k // 10), unit="order", toggle="*8profiled*", base_n=10))  # 0 orders: a crash
    # ImportOnce: one importCSV / importJSON of a generated tasks file into a new database.
    for fmt in ("csv", "ndjson", "json"):
        out.append(Bench(f"import {fmt}: ImportOnce (import{'CSV' if fmt == 'csv' else 'JSON'})", IMPORT,
                         lambda k, f=fmt: [f, "@DB@", TASKS_SCHEMA, tasks_file(work, f, k)], 50_000, lambda k: k,
                         base_n=1))  # ImportOnce refuses a file of no rows
    return out


_files_lock = threading.Lock()


def tasks_file(work, fmt, n):
    """A file of n tasks {id, title, done} in fmt (made once)."""
    path = os.path.join(work, f"tasks-{n}.{fmt}")
    with _files_lock:
        if not os.path.exists(path):
            rows = [(i, f"task number {i}", i % 3 == 0) for i in range(1, n + 1)]
            with open(path + ".tmp", "w") as f:
                if fmt == "csv":
                    f.write("id,title,done\n")
                    f.writelines(f"{i},{t},{int(d)}\n" for i, t, d in rows)
                elif fmt == "ndjson":
                    f.writelines(json.dumps({"id": i, "title": t, "done": d}, separators=(",", ":")) + "\n" for i, t, d in rows)
                else:
                    f.write("[" + ",\n".join(json.dumps({"id": i, "title": t, "done": d}, separators=(",", ":"))
                                             for i, t, d in rows) + "]\n")
            os.rename(path + ".tmp", path)
    return path


def count(binary, args, toggle, work):
    """Instructions of one run; '@DB@' in args becomes a fresh database path."""
    db = None
    if "@DB@" in args:
        db = tempfile.mktemp(suffix=".db", dir=work)
        args = [db if a == "@DB@" else a for a in args]
    try:
        return instructions([binary] + args, toggle=toggle, work=work)
    finally:
        if db:
            for suffix in ("", "-journal", "-wal", "-shm"):
                if os.path.exists(db + suffix):
                    os.remove(db + suffix)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog=__doc__.split("\n", 1)[1])
    ap.add_argument("builds", nargs="*", metavar="LABEL=DIR", help="Benchmarks .build/release folders; the first is the reference")
    ap.add_argument("--max-regression", type=float, metavar="PERCENT",
                    help="exit 1 when a benchmark of a later label is worse than the first's by more than PERCENT")
    ap.add_argument("--jobs", type=int, default=1, help="callgrind runs at once (default 1)")
    ap.add_argument("--only", metavar="REGEX", help="only the benchmarks whose name matches")
    ap.add_argument("--list", action="store_true", help="list the benchmarks and their commands, run nothing")
    ap.add_argument("--json", metavar="FILE", help="also write the raw counts")
    ap.add_argument("--reference", metavar="FILE",
                    help="a --json file of an earlier run: its first build is the reference column, not measured again")
    ap.add_argument("--work", help="work folder (default: a temporary one, removed at the end)")
    a = ap.parse_args()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # the work folder is removed on kill too

    work = a.work or tempfile.mkdtemp(prefix="sq-instructions-")
    os.makedirs(work, exist_ok=True)
    try:
        return run(a, work)
    finally:
        if not a.work:
            shutil.rmtree(work, ignore_errors=True)


def run(a, work):
    benches = [b for b in benchmarks(work) if not a.only or re.search(a.only, b.name)]
    if a.list:
        for b in benches:
            base = f"the same with N={b.base_n}" if b.base == "zero" else " ".join(b.base)
            print(f"{b.name}\n    {b.binary} {' '.join(map(repr, b.args(b.n)))}  (N={b.n:,}, per {b.unit}, "
                  f"baseline: {base}{', toggle ' + b.toggle if b.toggle else ''})")
        return 0
    if not a.builds:
        raise SystemExit("instructions: give at least one LABEL=DIR")
    builds = []
    for spec in a.builds:
        label, sep, d = spec.partition("=")
        if not sep or not label:
            label, d = os.path.basename(os.path.normpath(spec)), spec
        if label in (l for l, _ in builds):
            label = f"{label}#{len(builds) + 1}"
        builds.append((label, os.path.abspath(d)))

    # Stripped copies, one per build and binary.
    binaries = {}
    for i, (label, d) in enumerate(builds):
        for name in sorted({b.binary for b in benches}):
            src = os.path.join(d, name)
            if not os.path.exists(src):
                raise SystemExit(f"instructions: {src} is missing (build Benchmarks in release)")
            binaries[label, name] = stripped_copy(src, os.path.join(work, f"bin{i}", name))

    # Every distinct run (build, binary, args, toggle) once.
    runs = {}
    for label, _ in builds:
        for b in benches:
            for args in (b.run_args(), b.base_args()):
                runs.setdefault((label, b.binary, tuple(args), b.toggle), None)
    for b in benches:  # input files made before the runs start
        b.run_args(), b.base_args()
    t0 = time.time()
    done = [0]
    lock = threading.Lock()

    def one(key):
        label, binary, args, toggle = key
        r = count(binaries[label, binary], list(args), toggle, work)
        with lock:
            done[0] += 1
            print(f"[{done[0]}/{len(runs)} {time.time() - t0:.0f}s] {label}: {binary} {' '.join(args)[:90]}: {r:,}",
                  file=sys.stderr, flush=True)
        return r

    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, a.jobs)) as pool:
        # The longest first (the N runs), so that two jobs end together.
        keys = sorted(runs, key=lambda k: -max([int(x) for x in k[2] if x.isdigit()] + [0]))
        for k, r in zip(keys, pool.map(one, keys)):
            runs[k] = r
    elapsed = time.time() - t0

    figures = {}
    for label, _ in builds:
        for b in benches:
            n_ = runs[label, b.binary, tuple(b.run_args()), b.toggle]
            z = runs[label, b.binary, tuple(b.base_args()), b.toggle]
            figures[label, b.name] = (n_ - z) / b.count()

    labels = [l for l, _ in builds]
    if a.reference:
        with open(a.reference) as f:
            saved = json.load(f)
        ref_label = saved["builds"][0][0]
        for b in benches:
            key = f"{ref_label}\t{b.name}"
            if key not in saved["figures"]:
                raise SystemExit(f"instructions: {a.reference} has no figure for {b.name}")
            figures[ref_label, b.name] = saved["figures"][key]
        if ref_label in labels:
            raise SystemExit(f"instructions: the label {ref_label} is the reference's; name the build otherwise")
        labels.insert(0, ref_label)
    first = labels[0]
    head = ["benchmark", "per", "N"] + labels + [f"Δ% {l}" for l in labels[1:]]
    print("| " + " | ".join(head) + " |")
    print("|---|---|---:|" + "---:|" * (len(labels) + len(labels) - 1))
    worst = []
    for b in benches:
        ref = figures[first, b.name]
        cells = [b.name, b.unit, f"{b.n:,}"] + [f"{figures[l, b.name]:,.1f}" for l in labels]
        for l in labels[1:]:
            d = (figures[l, b.name] - ref) / ref * 100 if ref else float("nan")
            cells.append(f"{d:+.2f}")
            if a.max_regression is not None and d > a.max_regression:
                worst.append((b.name, l, d))
        print("| " + " | ".join(cells) + " |")
    print(f"\n{len(benches)} benchmarks, {len(runs)} callgrind runs, {elapsed / 60:.1f} min with --jobs {a.jobs}; "
          "figure = (I(N) - I(baseline)) / units, instructions (callgrind Ir); Δ% = against " + first + ", + is worse.")
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"builds": builds, "figures": {f"{l}\t{n}": v for (l, n), v in figures.items()},
                       "runs": [{"label": k[0], "binary": k[1], "args": list(k[2]), "toggle": k[3], "instructions": v}
                                for k, v in runs.items()]}, f, indent=1)
    if worst:
        for name, l, d in worst:
            print(f"instructions: {name}: {l} is {d:+.2f} % against {first} (more than {a.max_regression} %)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
