#!/usr/bin/env bash
# bench-compressed.sh — gzip and zstd input against the same plain file (the
# goal: gzip within 1.2x, zstd within 1.1x): the cases *.gz and *.zst of bench-scale.sh, CSV and
# NDJSON, through the typed tables (and importCSV/importJSON when IMPORT_ONCE names
# Benchmarks' ImportOnce), A/B pairs in turn.
#
#   bash Extension/bench/bench-compressed.sh build/streamqlite.so
#
# Environment and data: as bench-scale.sh (RUNS, N, CALLGRIND=1, ...).
CASES='\.(gz|zst)$' exec bash "$(dirname "$0")/bench-scale.sh" "$@"
