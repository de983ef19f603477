#!/usr/bin/env bash
# make test-dist: every artifact of dist/ (make dist) installed as README's Install section
# says, in a minimal Debian 12 root with no compiler and no -dev package (debootstrap
# minbase with python3, python3-venv, sqlite3, ca-certificates: scripts/debian-root.sh),
# each running the weekly report; check-dist-root.py compares every report with an oracle
# computed in Python from the rows (German weeks are ISO weeks).
#
#   1. the tarball, unpacked to /opt before any package brings ICU: sqlite3's .load of
#      lib/streamqlite and lib/streamqlite_noread (no json_stream), and bin/streamqlite report;
#   2. the wheel in a venv (pip install FILE), through Python's sqlite3 and apsw;
#   3. Datasette with datasette-streamqlite (datasette install FILE), served on 127.0.0.1:
#      its SQL page in headless Chromium on this machine, its JSON API, json_stream refused
#      (scripts/check-dist-datasette.py);
#   4. sqlite-utils with sqlite-utils-streamqlite: `sqlite-utils query` and `memory`;
#   5. the .debs with apt (which pulls libicu72 and the rest from the mirror), then
#      `sqlite3 :memory: '.load mod_streamqlite'` with no path, mod_streamqlite_noread, the
#      tool's report (equal to the tarball's), its man page and completions.
# Needs root (debootstrap, chroot, mount) and the Debian mirror and PyPI (apsw, Datasette,
# sqlite-utils); without root it says so and fails.  WORK (default /var/tmp/streamqlite-dist)
# holds the root, deleted afterwards unless KEEP=1.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
dist=$repo/${DIST:-dist}
WORK=${WORK:-/var/tmp/streamqlite-dist}
root=$WORK/root
log=$WORK/check.log
. "$repo/scripts/debian-root.sh"
fail() { echo "check-dist: $*" >&2; exit 1; }

if [ "$(id -u)" != 0 ]; then
  # As scripts/ensure-deps.sh does: sudo where it needs no password, else say so and fail.
  if command -v sudo >/dev/null && sudo -n true 2>/dev/null; then exec sudo -n env DIST="${DIST:-dist}" bash "$0" "$@"; fi
  fail "needs root (debootstrap, chroot and mount) and sudo would ask for a password: run make test-dist as root; nothing was checked"
fi
v=$(bash "$repo/scripts/version.sh" "$repo")
for f in "streamqlite-$v-linux-x86_64.tar.gz" "streamqlite-$v-py3-none-manylinux_2_35_x86_64.whl" \
         "datasette_streamqlite-$v-py3-none-any.whl" "sqlite_utils_streamqlite-$v-py3-none-any.whl" \
         "libsqlite3-mod-streamqlite_${v}_amd64.deb" "libsqlite3-mod-streamqlite-dev_${v}_all.deb" "streamqlite_${v}_amd64.deb"; do
  [ -f "$dist/$f" ] || fail "$dist/$f missing: run make dist first"
done
(cd "$dist" && sha256sum --quiet -c SHA256SUMS) || fail "dist/SHA256SUMS does not match the files"

server=""
cleanup() {
  set +e
  [ -n "$server" ] && kill -- "-$server" 2>/dev/null && sleep 1
  root_remove "$root" "${KEEP:-}" || echo "check-dist: $root kept" >&2
}
trap cleanup EXIT
trap 'exit 130' INT TERM
mkdir -p "$WORK"
root_mounted "$root" && fail "$root still has mounts from an earlier run; unmount them first"
: > "$log"
t0=$SECONDS
echo "check-dist: a minimal Debian 12 root ($(root_mirror)); log: $log"
root_make "$root" "$log" python3,python3-venv,sqlite3,ca-certificates || fail "the root could not be made"
echo "check-dist: root made in $((SECONDS - t0)) s"
root_mount "$root"
in_root() { root_run "$root" /bin/bash -c "$*"; }
for tool in cc gcc clang; do in_root "! command -v $tool" >/dev/null || fail "the root has a compiler ($tool)"; done
in_root "! dpkg -l 'lib*-dev' 2>/dev/null | grep -q '^ii'" || fail "the root has -dev packages"

mkdir -p "$root/dist" "$root/checks"
cp "$dist"/* "$root/dist/"
cp "$repo/scripts/check-dist-root.py" "$repo/sql/demo/create-usage.sql" "$root/checks/"
in_root "sqlite3 /checks/usage.db '.read /checks/create-usage.sql'"
report=$(python3 "$repo/scripts/check-dist-root.py" report-sql -)
compare() {   # compare LABEL COMMAND: COMMAND prints the report as JSON in the root
  in_root "$2" > "$root/checks/out.json" || fail "$1: the command failed: $2"
  in_root "python3 /checks/check-dist-root.py compare /checks/usage.db /checks/out.json '$1'"
}
refused() {   # refused LABEL COMMAND: COMMAND must fail saying json_stream does not exist
  local out
  if out=$(in_root "$2" 2>&1) || ! grep -q "no such table: json_stream" <<<"$out"; then
    fail "$1: json_stream was not refused: $out"
  fi
  echo "check-dist: $1: json_stream refused"
}

# 1. The tarball, on a root without ICU: only its own copies can serve.
in_root "! ls /usr/lib/x86_64-linux-gnu/libicuuc.so.* >/dev/null 2>&1" || fail "the root has ICU before the packages"
in_root "tar -xzf /dist/streamqlite-$v-linux-x86_64.tar.gz -C /opt"
tb=/opt/streamqlite-$v-linux-x86_64
compare "tarball: sqlite3 .load $tb/lib/streamqlite" "sqlite3 -json /checks/usage.db '.load $tb/lib/streamqlite' \"$report\""
refused "tarball: .load lib/streamqlite_noread" "sqlite3 :memory: '.load $tb/lib/streamqlite_noread' \"SELECT * FROM json_stream('/etc/passwd')\""
cli_report="report /checks/usage.db --table Usage --time Date --value 'sum(Visits)' --locale de_DE"
in_root "$tb/bin/streamqlite $cli_report" > "$WORK/report-tarball.txt" || fail "tarball: streamqlite report failed"
grep -q "2010-52" "$WORK/report-tarball.txt" || fail "tarball: streamqlite report has no week 2010-52: $(cat "$WORK/report-tarball.txt")"
echo "check-dist: tarball: bin/streamqlite report: $(grep -c '20[01][0-9]-[0-9][0-9]' "$WORK/report-tarball.txt") week lines"

# 2-4. The wheels in a venv, with apsw, Datasette and sqlite-utils from PyPI.
echo "check-dist: venv: pip install the wheel, apsw, datasette, sqlite-utils (PyPI)"
in_root "python3 -m venv /venv && /venv/bin/pip install -q --disable-pip-version-check /dist/streamqlite-$v-py3-none-manylinux_2_35_x86_64.whl apsw datasette sqlite-utils" >> "$log" 2>&1 \
  || { tail -20 "$log"; fail "pip install failed"; }
in_root "cd / && /venv/bin/python /checks/check-dist-root.py wheel /checks/usage.db"
in_root "/venv/bin/datasette install /dist/datasette_streamqlite-$v-py3-none-any.whl && /venv/bin/sqlite-utils install /dist/sqlite_utils_streamqlite-$v-py3-none-any.whl" >> "$log" 2>&1 \
  || { tail -20 "$log"; fail "installing the plugins failed"; }
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
setsid chroot "$root" /usr/bin/env -i HOME=/root LANG=C.UTF-8 PATH=/usr/bin:/bin \
  /venv/bin/datasette serve /checks/usage.db -h 127.0.0.1 -p "$port" > "$WORK/datasette.log" 2>&1 &
server=$!
for _ in $(seq 60); do
  python3 -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:$port/-/versions.json', timeout=1)" 2>/dev/null && break
  sleep 0.5
done
EXTRA_DEBS=chromium bash "$repo/scripts/ensure-deps.sh"
python3 "$repo/scripts/check-dist-datasette.py" "http://127.0.0.1:$port" usage "$root/checks/usage.db" \
  || { cat "$WORK/datasette.log"; fail "Datasette"; }
kill -- "-$server"; server=""
compare "sqlite-utils query (sqlite-utils-streamqlite)" "/venv/bin/sqlite-utils query /checks/usage.db \"$report\""
in_root "/venv/bin/sqlite-utils memory \"SELECT locale_week('2011-01-02', 'de_DE') AS w\"" | grep -q '"w": "2010-52"' \
  || fail "sqlite-utils memory: locale_week did not answer 2010-52"
in_root "printf '{\"a\":1}\n{\"a\":2}\n' > /checks/lines.json"
in_root "/venv/bin/sqlite-utils memory \"SELECT count(*) AS n FROM json_stream('/checks/lines.json')\"" | grep -q '"n": 2' \
  || fail "sqlite-utils memory: json_stream (the full entry point) did not read the file"
echo "check-dist: sqlite-utils memory: locale_week and json_stream answer"

# 5. The Debian packages.
echo "check-dist: apt install the three .debs"
in_root "apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq /dist/libsqlite3-mod-streamqlite_${v}_amd64.deb /dist/libsqlite3-mod-streamqlite-dev_${v}_all.deb /dist/streamqlite_${v}_amd64.deb" >> "$log" 2>&1 \
  || { tail -20 "$log"; fail "apt install of the .debs failed"; }
compare "deb: sqlite3 .load mod_streamqlite (no path)" "sqlite3 -json /checks/usage.db '.load mod_streamqlite' \"$report\""
refused "deb: .load mod_streamqlite_noread" "sqlite3 :memory: '.load mod_streamqlite_noread' \"SELECT * FROM json_stream('/etc/passwd')\""
in_root "streamqlite $cli_report" > "$WORK/report-deb.txt" || fail "deb: streamqlite report failed"
cmp -s "$WORK/report-tarball.txt" "$WORK/report-deb.txt" || fail "deb: streamqlite report differs from the tarball's"
in_root "test -s /usr/share/man/man1/streamqlite.1.gz && test -s /usr/share/bash-completion/completions/streamqlite && test -s /usr/include/streamqlite/streamqlite.h" \
  || fail "deb: the man page, completions or headers are missing"
echo "check-dist: deb: streamqlite report equal to the tarball's; man page, completions and headers installed"
echo "check-dist: every artifact passed in $((SECONDS - t0)) s"
