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
# option) is skipped and the run repeated. Prints passed / failed / skipped and the lists.
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
swift build --build-tests >/dev/null
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
echo "passed $(grep -ac '✔ Test [A-Za-z0-9_]*(.*passed after' run.log) failed $(grep -ac '✘ Test [A-Za-z0-9_]*(.*failed after' run.log) skipped (stopped the process) $(grep -c . skipped.txt)"
echo "failed:"; grep -a "✘ Test [A-Za-z0-9_]*(.*failed after" run.log | sed 's/.*Test \([A-Za-z0-9_]*\)(.*/  \1/' | sort -u
echo "skipped:"; sed 's/^/  /' skipped.txt
