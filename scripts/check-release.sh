#!/usr/bin/env bash
# Tests scripts/release.sh in a throw-away clone of the committed state (the tests it
# runs replaced by `true`): each refusal, then a tag. Part of `make test` (test-release).
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/streamqlite-release.XXXXXX"); trap 'rm -rf "$tmp"' EXIT
git clone -q "$repo" "$tmp/r"; cd "$tmp/r"
git -c user.name=t -c user.email=t@t commit -q --allow-empty -m base
v=$(sed -n 's/^#define SQ_VERSION "\(.*\)"/\1/p' Extension/src/sq_internal.h)
export RELEASE_TEST=true GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@t GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@t
n=0
refuses() {   # refuses WHAT VERSION: release.sh must fail and print WHAT
  local out
  if out=$(bash scripts/release.sh "$2" 2>&1); then echo "check-release: FAILED: released $2 although $1"; exit 1; fi
  grep -q "$1" <<<"$out" || { echo "check-release: FAILED: expected '$1', got: $out"; exit 1; }
  n=$((n + 1))
}
git tag -d "$v" >/dev/null 2>&1 || true
refuses "VERSION must be x.y.z" "1.2"
echo dirty >> README.md; refuses "the working tree has changes" "$v"; git checkout -q README.md
refuses "CHANGELOG.md has no '## \[9.9.9\]' entry" "9.9.9"
sed -i '0,/^## \[/s//## [9.9.9] - test\n\n&/' CHANGELOG.md; git commit -qam changelog
refuses "SQ_VERSION is not \"9.9.9\"" "9.9.9"
sed -i 's/^#define SQ_VERSION .*/#define SQ_VERSION "9.9.9"/' Extension/src/sq_internal.h; git commit -qam version
refuses "debian/changelog is at '$v', not 9.9.9" "9.9.9"
git reset -q --hard HEAD~1
RELEASE_TEST=false refuses "the tests failed; nothing tagged" "$v"
git rev-parse -q --verify "refs/tags/$v" >/dev/null && { echo "check-release: FAILED: tagged after failing tests"; exit 1; }
bash scripts/release.sh "$v" >/dev/null
[ "$(git rev-parse "$v^{commit}")" = "$(git rev-parse HEAD)" ] || { echo "check-release: FAILED: no tag $v on HEAD"; exit 1; }
refuses "tag $v exists already" "$v"
echo "check-release: $((n + 1)) passed, 0 failed (release $v tagged in a throw-away clone)"
