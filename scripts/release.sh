#!/usr/bin/env bash
# make release VERSION=x.y.z: checks that the committed state can be released, then tags it.
#
#   1. VERSION is x.y.z and no tag of that name exists;
#   2. the working tree is clean (nothing uncommitted, nothing untracked outside .gitignore);
#   3. CHANGELOG.md has a "## [x.y.z]" entry, streamqlite_version() returns x.y.z
#      (SQ_VERSION in Extension/src/sq_internal.h) and debian/changelog is at x.y.z;
#   4. `make test` passes (RELEASE_TEST="…" replaces the command: scripts/check-release.sh
#      uses it to test these checks quickly);
#   5. an annotated tag x.y.z on HEAD. Pushing it is left to you: git push origin x.y.z.
set -euo pipefail
cd "$(dirname "$0")/.."
v=${1:-}
fail() { echo "release: $*" >&2; exit 1; }
[[ "$v" =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || fail "VERSION must be x.y.z (make release VERSION=0.2.0), got '$v'"
git rev-parse -q --verify "refs/tags/$v" >/dev/null && fail "tag $v exists already"
[ -z "$(git status --porcelain)" ] || fail "the working tree has changes; commit or stash them first:
$(git status --short | head -20)"
grep -q "^## \[$v\]" CHANGELOG.md || fail "CHANGELOG.md has no '## [$v]' entry"
[ "$(bash scripts/version.sh)" = "$v" ] \
  || fail "Extension/src/sq_internal.h: SQ_VERSION is not \"$v\" (streamqlite_version() would say otherwise)"
dv=$(dpkg-parsechangelog -l debian/changelog -S Version 2>/dev/null || true)
[ "$dv" = "$v" ] || fail "debian/changelog is at '$dv', not $v (make dist's Debian packages would say otherwise): add an entry (dch -v $v)"
echo "release: $v: tree clean, CHANGELOG entry and SQ_VERSION found; running ${RELEASE_TEST:-make test}"
${RELEASE_TEST:-make test} || fail "the tests failed; nothing tagged"
git tag -a "$v" -m "StreamQLite $v"
echo "release: tagged $v at $(git rev-parse --short HEAD); push it with: git push origin $v"
