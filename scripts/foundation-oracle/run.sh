#!/usr/bin/env bash
# Foundation's own JSON coder tests run against JSONValueEncoder/JSONValueDecoder: a session
# tool, not part of `make test` (it needs a swift-foundation checkout, which is not ours to
# commit or fetch in CI; our own tests cover each behaviour it checks — see
# docs/swift/json-coding.md).
#
#   scripts/foundation-oracle/run.sh /path/to/swift-foundation [work-dir]
#
# Builds a throwaway package in work-dir (default /tmp/foundation-oracle) holding that
# checkout's Tests/FoundationEssentialsTests/JSONEncoderTests.swift, its import changed to
# Foundation and two SPI-only Decimal initializers replaced, and Shim.swift (classes named
# JSONEncoder/JSONDecoder that map Foundation's options onto ours and throw
# ORACLE-UNSUPPORTED for options this library lacks), depending on this checkout by path.
# Runs it one test at a time; a test that stops the process (a `try!` on an unsupported
# option) is skipped and the run repeated. A test during which the shim refused an option
# (it prints ORACLE-UNSUPPORTED-IN and the test's name) is counted as unsupported, whether it passed or failed: a
# test that expects an error must not pass on the refusal. Prints passed / failed /
# unsupported / skipped and the lists. A build that fails shows the compiler's errors.
set -euo pipefail
foundation=${1:?usage: run.sh /path/to/swift-foundation [work-dir]}
work=${2:-/tmp/foundation-oracle}
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
mkdir -p "$work/Tests/OracleTests"
cat > "$work/Package.swift" <<SWIFT
// swift-tools-version:6.0
import PackageDescription
let package = Package(
    name: "FoundationOracle",
    dependencies: [.package(path: "$repo")],
    targets: [.testTarget(name: "OracleTests", dependencies: [.product(name: "StreamQLite", package: "$(basename "$repo" | tr 'A-Z' 'a-z')")],
                          swiftSettings: [.swiftLanguageMode(.v5)])]
)
SWIFT
cp "$here/Shim.swift" "$work/Tests/OracleTests/Shim.swift"
python3 - "$foundation/Tests/FoundationEssentialsTests/JSONEncoderTests.swift" "$work/Tests/OracleTests/JSONEncoderTests.swift" <<'PY'
import re, sys
s = open(sys.argv[1]).read()
s = s.replace("@_spi(SwiftCorelibsFoundation)\nimport FoundationEssentials", "import Foundation")
s = re.sub(r'var unit64MaxPlus1: Decimal = Decimal\(\s*_exponent:.*?\)\s*\)\n', 'var unit64MaxPlus1: Decimal = Decimal(string: "18446744073709551616")!\n', s, count=1, flags=re.S)
s = re.sub(r'var int64MinMinus1: Decimal = Decimal\(\s*_exponent:.*?\)\s*\)\n', 'var int64MinMinus1: Decimal = Decimal(string: "-9223372036854775809")!\n', s, count=1, flags=re.S)
open(sys.argv[2], "w").write(s)
PY
cd "$work"
if ! swift build --build-tests > build.log 2>&1; then
  echo "foundation-oracle: the oracle package does not build ($work/build.log):" >&2
  grep -a -E "error:|warning: unre" build.log | head -40 >&2 || tail -40 build.log >&2
  exit 1
fi
: > skipped.txt
for round in $(seq 1 20); do
  skip=$(paste -sd'|' skipped.txt)
  args=(); if [ -n "$skip" ]; then args=(--skip "($skip)"); fi
  swift test --skip-build --no-parallel "${args[@]}" > run.log 2>&1 || true
  grep -aq "Program crashed\|unexpected signal" run.log || break
  grep -a "◇ Test [A-Za-z0-9_]*(.* started" run.log | sed 's/.*◇ Test \([A-Za-z0-9_]*\)(.*/\1/' | sort -u > started.txt
  grep -a "[✔✘] Test .*\(passed\|failed\) after" run.log | sed 's/.*Test \([A-Za-z0-9_]*\)(.*/\1/' | sort -u > ended.txt
  comm -23 started.txt ended.txt | grep -v '^$' >> skipped.txt || true
done
python3 - run.log skipped.txt <<'PY'
import re, sys
log = open(sys.argv[1], encoding="utf-8", errors="replace").read().splitlines()
skipped = [l.strip() for l in open(sys.argv[2]) if l.strip()]
refused, outcome = set(), {}
for line in log:
    m = re.match(r"ORACLE-UNSUPPORTED-IN (\w+)", line)
    if m:
        refused.add(m.group(1))
        continue
    m = re.search(r"([✔✘]) Test (\w+)\(.*(passed|failed) after", line)
    if m:
        outcome[m.group(2)] = m.group(3)
passed = sorted(t for t, o in outcome.items() if o == "passed" and t not in refused)
failed = sorted(t for t, o in outcome.items() if o == "failed" and t not in refused)
unsupported = sorted(t for t in outcome if t in refused)
print(f"passed {len(passed)} failed {len(failed)} unsupported (the shim refused an option) {len(unsupported)} "
      f"skipped (stopped the process) {len(skipped)}")
for title, names in (("failed", failed), ("unsupported", unsupported), ("skipped", skipped)):
    print(f"{title}:")
    for n in names:
        print(f"  {n}")
PY
