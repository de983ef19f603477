#!/usr/bin/env python3
"""Writes StreamQLite's three Python wheels from the built extension (make dist).

    python3 scripts/build-wheels.py --ext build/dist/streamqlite.so --out build/dist/wheels

  streamqlite-X.Y.Z-py3-none-linux_x86_64.whl   python/streamqlite with the extension twice:
      streamqlite.so (SQLite derives sqlite3_streamqlite_init from the name) and
      streamqlite_noread.so (sqlite3_streamqlitenoread_init: loadable_path(files=False));
      `auditwheel repair` then vendors ICU, zlib and zstd and gives the manylinux tag
      (scripts/make-dist.sh).  Not an extension module of Python's: any Python 3.
  datasette_streamqlite-X.Y.Z-py3-none-any.whl        python/datasette_streamqlite
  sqlite_utils_streamqlite-X.Y.Z-py3-none-any.whl     python/sqlite_utils_streamqlite
      the plugins, found through their entry points (groups datasette, sqlite_utils).

A wheel is a zip with its metadata in NAME-VERSION.dist-info (PEP 427, core metadata
2.1): written here directly, as sqlite-vec's release tooling does, because the
package holds no code to compile.  The version is SQ_VERSION (Extension/src/sq_internal.h);
file times are the last commit's (SOURCE_DATE_EPOCH), so the same commit gives the same wheels.
"""
import argparse
import base64
import hashlib
import os
import subprocess
import sys
import time
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PY = os.path.join(ROOT, "python")
HOME = "https://github.com/streamqlite/StreamQLite"


def sq_version():
    return subprocess.run(["bash", os.path.join(ROOT, "scripts/version.sh"), ROOT], check=True,
                          capture_output=True, text=True).stdout.strip()


def epoch():
    if os.environ.get("SOURCE_DATE_EPOCH"):
        return int(os.environ["SOURCE_DATE_EPOCH"])
    out = subprocess.run(["git", "-C", ROOT, "log", "-1", "--format=%ct"], capture_output=True, text=True)
    return int(out.stdout.strip() or time.time())


class Wheel:
    def __init__(self, out, dist, version, tag, metadata, entry_points=None):
        self.dist, self.version, self.tag = dist, version, tag
        self.path = os.path.join(out, f"{dist}-{version}-{tag}.whl")
        self.info = f"{dist}-{version}.dist-info"
        self.when = time.gmtime(max(epoch(), 315532800))[:6]   # zip times start in 1980
        self.records = []
        self.zip = zipfile.ZipFile(self.path, "w", zipfile.ZIP_DEFLATED)
        self.metadata, self.entry_points = metadata, entry_points

    def add(self, name, data, mode=0o644):
        info = zipfile.ZipInfo(name, self.when)
        info.external_attr = (0o100000 | mode) << 16
        info.compress_type = zipfile.ZIP_DEFLATED
        self.zip.writestr(info, data)
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        self.records.append(f"{name},sha256={digest},{len(data)}")

    def close(self):
        self.add(f"{self.info}/METADATA", self.metadata.encode())
        py_tag, abi, plat = self.tag.split("-")
        self.add(f"{self.info}/WHEEL", (
            "Wheel-Version: 1.0\nGenerator: streamqlite build-wheels.py\n"
            f"Root-Is-Purelib: {'true' if plat == 'any' else 'false'}\nTag: {self.tag}\n").encode())
        if self.entry_points:
            self.add(f"{self.info}/entry_points.txt", self.entry_points.encode())
        self.add(f"{self.info}/LICENSE", open(os.path.join(ROOT, "LICENSE"), "rb").read())
        record = f"{self.info}/RECORD"
        self.records.append(f"{record},,")
        info = zipfile.ZipInfo(record, self.when)
        info.external_attr = (0o100644) << 16
        self.zip.writestr(info, "\n".join(self.records) + "\n")
        self.zip.close()
        return self.path


def metadata(name, version, summary, requires, description):
    lines = [
        "Metadata-Version: 2.1", f"Name: {name}", f"Version: {version}", f"Summary: {summary}",
        f"Home-page: {HOME}", "License: MIT", "Requires-Python: >=3.8",
        "Classifier: License :: OSI Approved :: MIT License",
        "Classifier: Operating System :: POSIX :: Linux", "Classifier: Topic :: Database",
    ]
    lines += [f"Requires-Dist: {r}" for r in requires]
    lines += ["Description-Content-Type: text/markdown", "", description]
    return "\n".join(lines) + "\n"


def package_files(folder):
    for base, _, files in sorted(os.walk(os.path.join(PY, folder))):
        for f in sorted(files):
            if f.endswith(".pyc"):
                continue
            full = os.path.join(base, f)
            yield os.path.relpath(full, PY), open(full, "rb").read()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ext", required=True, help="the built (stripped) streamqlite.so")
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    v = sq_version()
    so = open(a.ext, "rb").read()

    w = Wheel(a.out, "streamqlite", v, "py3-none-linux_x86_64", metadata(
        "streamqlite", v, "SQLite extension: weeks as the user's locale counts them, fiscal calendars, "
        "JSON and CSV files of any size as tables", [],
        "Load it with `streamqlite.load(conn)` (sqlite3 or apsw). See the project's README."))
    for name, data in package_files("streamqlite"):
        if name == "streamqlite/__init__.py":
            data = data.replace(b"@VERSION@", v.encode())
        w.add(name, data)
    w.add("streamqlite/streamqlite.so", so, 0o755)
    w.add("streamqlite/streamqlite_noread.so", so, 0o755)
    print(w.close())

    for dist, folder, group, host, summary in (
        ("datasette-streamqlite", "datasette_streamqlite", "datasette", "datasette",
         "Datasette plugin: StreamQLite's locale weeks and fiscal calendars in Datasette (no file reading)"),
        ("sqlite-utils-streamqlite", "sqlite_utils_streamqlite", "sqlite_utils", "sqlite-utils",
         "sqlite-utils plugin: StreamQLite's functions in sqlite-utils"),
    ):
        w = Wheel(a.out, folder, v, "py3-none-any",
                  metadata(dist, v, summary, [host, f"streamqlite=={v}"], summary + "."),
                  f"[{group}]\nstreamqlite = {folder}\n")
        for name, data in package_files(folder):
            w.add(name, data)
        print(w.close())


if __name__ == "__main__":
    sys.exit(main())
