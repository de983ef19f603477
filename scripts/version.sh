#!/usr/bin/env bash
# Prints the version the sources are at: SQ_VERSION in Extension/src/sq_internal.h, which
# streamqlite_version() returns. The one reader of it for make dist, the wheels, check-dist
# and make release.   bash scripts/version.sh [REPO]
set -euo pipefail
repo=${1:-$(cd "$(dirname "$0")/.." && pwd)}
v=$(sed -n 's/^#define SQ_VERSION "\(.*\)"$/\1/p' "$repo/Extension/src/sq_internal.h")
[ -n "$v" ] || { echo "version.sh: no SQ_VERSION in $repo/Extension/src/sq_internal.h" >&2; exit 1; }
echo "$v"
