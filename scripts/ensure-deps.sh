#!/usr/bin/env bash
# Installs what a fresh Debian machine lacks for StreamQLite's build, demo and
# tests: the sqlite3 shell, SQLite and ICU headers, Python's apsw (a second,
# newer SQLite that must load our extension unchanged).  Quiet when all is there.
set -euo pipefail
missing=()
command -v sqlite3 >/dev/null 2>&1 || missing+=(sqlite3)
pkg-config --exists sqlite3 2>/dev/null || missing+=(libsqlite3-dev)
pkg-config --exists icu-i18n icu-uc 2>/dev/null || missing+=(libicu-dev)
command -v pkg-config >/dev/null 2>&1 || missing+=(pkg-config)
command -v python3 >/dev/null 2>&1 || missing+=(python3)
command -v make >/dev/null 2>&1 || missing+=(make)
for pkg in ${EXTRA_DEBS:-}; do dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg"); done
if [ ${#missing[@]} -gt 0 ]; then
  echo "ensure-deps: installing ${missing[*]}"
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi
if ! python3 -c 'import apsw' >/dev/null 2>&1; then
  echo "ensure-deps: installing apsw from PyPI"
  python3 -m pip install -q apsw 2>/dev/null || python3 -m pip install -q --break-system-packages apsw
fi
