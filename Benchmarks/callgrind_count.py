"""Instruction counts with callgrind: the pieces the Benchmarks scripts share.

    from callgrind_count import instructions, stripped_copy

`instructions(cmd)` runs one command under `valgrind --tool=callgrind` and returns the
instructions it executed (the `summary:` line: all threads, or only what runs inside the
functions matching `toggle`, e.g. '*8profiled*'). `stripped_copy` copies a binary without
its debug information (`strip --strip-debug`): callgrind reads the Swift toolchain's
debug information slowly, and some of it not at all.

Runs set SWIFT_DETERMINISTIC_HASHING=1 (unless the caller's env says otherwise): with the
per-process random hash seed, a Set's or Dictionary's layout (and so its probing) differs
from run to run, and so does the count.
"""
import os
import shutil
import subprocess
import tempfile


def stripped_copy(src, dst):
    """dst: src without debug information (a copy; src is not touched)."""
    os.makedirs(os.path.dirname(dst) or ".", exist_ok=True)
    subprocess.run(["strip", "--strip-debug", "-o", dst, src], check=True)
    shutil.copymode(src, dst)
    return dst


def instructions(cmd, toggle=None, env=None, cwd=None, work=None):
    """The instructions (callgrind's Ir summary) of one run of cmd (a list); raises on failure."""
    env = dict(os.environ if env is None else env)
    env.setdefault("SWIFT_DETERMINISTIC_HASHING", "1")
    with tempfile.TemporaryDirectory(dir=work, prefix="cg-") as tmp:
        out = os.path.join(tmp, "callgrind.out")
        vg = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}"]
        if toggle:
            vg.append(f"--toggle-collect={toggle}")
        p = subprocess.run(vg + list(cmd), capture_output=True, text=True, env=env, cwd=cwd or tmp)
        if p.returncode != 0:
            raise RuntimeError(f"{' '.join(cmd)}: exit {p.returncode}\n{p.stdout[-2000:]}\n{p.stderr[-2000:]}")
        with open(out) as f:
            for line in f:
                if line.startswith("summary:"):
                    return int(line.split()[1])
    raise RuntimeError(f"{' '.join(cmd)}: no summary in the callgrind output")
