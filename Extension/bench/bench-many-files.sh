#!/usr/bin/env bash
# bench-many-files.sh — many files in one call (the goal: within 1.1x): FILES files
# (default 100) of N/FILES rows against the one file of the same N rows, CSV and NDJSON,
# through the typed tables (filename= a glob) and importCSV/importJSON(contentsOfFiles:)
# (when IMPORT_ONCE names Benchmarks' ImportOnce): the cases *.many of bench-scale.sh.
#
#   bash Extension/bench/bench-many-files.sh build/streamqlite.so
#
# Environment and data: as bench-scale.sh (RUNS, N, FILES, CALLGRIND=1, ...); the SQL of
# each case is left in build/bench/scale/N<N>/sql/, to be timed by other tools:
# sqlite3 DB < FILE.sql.
CASES='\.many$' exec bash "$(dirname "$0")/bench-scale.sh" "$@"
