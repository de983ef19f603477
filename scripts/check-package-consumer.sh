#!/usr/bin/env bash
# Checks that StreamQLite can be used the way Swift users add packages: a
# brand-new package in a temporary folder depends on a git clone of this
# repository, as a user gets it (no tag or branch made for the check), through
# README.md's own dependency line with the GitHub URL replaced by the clone's
# file:// URL, builds, and runs the Swift example of README.md: under "## Using
# the Swift package", the manifest (the ```swift file=Package.swift block) and
# the first ```swift block with `import StreamQLite` as main.swift, followed by
# two lines that print what it stored and what an extension function answers;
# the output is compared with the expected text.  A README that names a version
# the repository has no tag for fails here, not in users' hands; so do unsafe
# flags (SwiftPM refuses them in a dependency) and an @inlinable API that needs
# a C module the consumer cannot see.
#
# Part of `make test` (target test-package).  It checks the committed state: the
# clone is of HEAD's branch (or, with REV=<commit>, that branch moved to it);
# uncommitted changes are not in it.
#     bash scripts/check-package-consumer.sh
#     REV=<commit> KEEP=1 bash scripts/check-package-consumer.sh
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
rev=$(git -C "$repo" rev-parse --verify "${REV:-HEAD}^{commit}")
tmp=$(mktemp -d "${TMPDIR:-/tmp}/streamqlite-consumer.XXXXXX")
if [ -n "${KEEP:-}" ]; then echo "check-package-consumer: keeping $tmp"; else trap 'rm -rf "$tmp"' EXIT; fi
say() { echo "check-package-consumer: $*"; }
fail() { echo "check-package-consumer: FAILED: $*" >&2; exit 1; }

# 1. A clone, as a user makes one (its tags are the repository's own).
say "commit $(git -C "$repo" log -1 --format='%h %s' "$rev" | cut -c1-72)"
git clone -q "$repo" "$tmp/StreamQLite"
branch=$(git -C "$tmp/StreamQLite" rev-parse --abbrev-ref HEAD)
[ "$rev" = "$(git -C "$tmp/StreamQLite" rev-parse HEAD)" ] || git -C "$tmp/StreamQLite" checkout -q -B "$branch" "$rev"

# 2. A new package that depends on it by URL and version: README's manifest.
app="$tmp/Consumer"
mkdir -p "$app/Sources/App"
section() {   # the README section "## Using the Swift package"
  awk '/^## Using the Swift package/ { sec = 1; next } sec && /^## / { exit } sec { print }' "$tmp/StreamQLite/README.md"
}
url='https://github.com/streamqlite/StreamQLite.git'
section | awk '/^```swift file=Package.swift/ { code = 1; next } code && /^```/ { exit } code { print }' \
  | sed "s|$url|file://$tmp/StreamQLite|" > "$app/Package.swift"
grep -q "file://$tmp/StreamQLite" "$app/Package.swift" \
  || fail "README.md has no \`\`\`swift file=Package.swift block depending on $url under '## Using the Swift package'"
# What README asks SwiftPM for must exist in the repository as cloned.
requirement=$(sed -n 's|.*file://[^"]*", *\([a-z]*\): *"\([^"]*\)".*|\1 \2|p' "$app/Package.swift")
case "$requirement" in
  "from "*|"exact "*)
    version=${requirement#* }
    git -C "$tmp/StreamQLite" rev-parse -q --verify "refs/tags/$version" >/dev/null \
      || fail "README.md depends on version $version, but the repository has no tag $version: publish the tag, or give the branch or a revision" ;;
  "branch "*)
    git -C "$tmp/StreamQLite" rev-parse -q --verify "refs/heads/${requirement#* }" >/dev/null \
      || fail "README.md depends on branch ${requirement#* }, which the repository does not have" ;;
  "revision "*) ;;
  *) fail "cannot read README.md's dependency requirement: $(grep file:// "$app/Package.swift")" ;;
esac

# 3. README's example, as a reader would paste it, then two checking lines.
section | awk '!code && /^```swift$/ { code = 1; n = 0; next }
               code && /^```/ { if (found) exit; code = 0; next }
               code { buf[++n] = $0; if ($0 ~ /import StreamQLite/) found = 1 }
               END { for (i = 1; i <= n; i++) print buf[i] }' > "$app/Sources/App/main.swift"
grep -q 'import StreamQLite' "$app/Sources/App/main.swift" \
  || fail "README.md has no \`\`\`swift block with 'import StreamQLite' under '## Using the Swift package'"
cat >> "$app/Sources/App/main.swift" <<'EOF'
print("stored:", all.map { "\($0.id) \($0.title) \($0.done)" })
print("locale_week:", try db.value(String.self, "SELECT locale_week('2011-01-02', 'en_US')") ?? "NULL")
EOF
expected='Clean Room
stored: ["1 Clean Room false"]
locale_week: 2011-02'

# 4. Build (the library is compiled once, into this scratch folder) and run.
start=$SECONDS
if ! swift build --package-path "$app" --scratch-path "$tmp/build" --disable-dependency-cache > "$tmp/build.log" 2>&1; then
  tail -40 "$tmp/build.log" >&2
  fail "the consumer package did not resolve or build (log above)"
fi
say "resolved StreamQLite $(git -C "$tmp/StreamQLite" rev-parse --short "$rev") by README's requirement ($requirement) and built in $((SECONDS - start)) s"
# The StreamQLiteMacros product's swift-syntax (and its tests' swift-macro-testing) must not
# reach a consumer of the StreamQLite product: nothing else resolved, fetched or built.
resolved=$(grep -o '"identity" : "[^"]*"' "$app/Package.resolved" | sed 's/.*: "//; s/"//' | tr '\n' ' ')
[ "$resolved" = "streamqlite " ] || fail "the consumer resolved more than StreamQLite: $resolved"
fetched=$(ls "$tmp/build/checkouts")
[ "$fetched" = "StreamQLite" ] || fail "the consumer fetched more than StreamQLite: $(echo $fetched)"
! grep -qi 'swiftsyntax\|swift-syntax' "$tmp/build.log" || fail "the consumer built swift-syntax"
say "resolved and fetched: $resolved(no swift-syntax)"
bin=$(swift build --package-path "$app" --scratch-path "$tmp/build" --show-bin-path)
mkdir "$tmp/run"
got=$(cd "$tmp/run" && "$bin/App" 2>&1) || { printf '%s\n' "$got" >&2; fail "the README example exited with an error"; }
if [ "$got" != "$expected" ]; then
  printf -- '--- expected\n%s\n--- got\n%s\n' "$expected" "$got" >&2
  fail "the README example printed something else"
fi
printf '%s\n' "$got" | sed 's/^/  /'
say "1 passed, 0 failed"
