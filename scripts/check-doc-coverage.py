#!/usr/bin/env python3
"""Every public Swift declaration of StreamQLite has a DocC comment.

    python3 scripts/check-doc-coverage.py [SYMBOLS.json]

Run by `make docs` after DocC has built: reads the symbol graph that the build extracted
(.build-docs/…/StreamQLite.symbols.json) and lists each public or open symbol declared in
Sources/ without a doc comment (symbols with no source location — synthesized
conformances, inherited defaults — are DocC's to describe). Exit status 1 if any.
"""
import glob
import json
import sys

paths = sys.argv[1:] or glob.glob(".build-docs/*/extracted-symbols/*/StreamQLite/StreamQLite.symbols.json")
if not paths:
    sys.exit("check-doc-coverage: no StreamQLite.symbols.json (run make docs)")
graph = json.load(open(paths[0]))
missing = []
for s in graph["symbols"]:
    uri = s.get("location", {}).get("uri", "")
    if s.get("accessLevel") in ("public", "open") and "/Sources/" in uri and not s.get("docComment"):
        line = s["location"]["position"]["line"] + 1
        missing.append(f"{uri.split('/Sources/')[-1]}:{line}: {s['kind']['displayName'].lower()} "
                       f"{'.'.join(s['pathComponents'])} has no doc comment")
total = sum(1 for s in graph["symbols"] if s.get("accessLevel") in ("public", "open"))
for m in sorted(missing):
    print("Sources/" + m, file=sys.stderr)
if missing:
    sys.exit(f"check-doc-coverage: {len(missing)} of {total} public symbols undocumented")
print(f"check-doc-coverage: all {total} public symbols documented (or synthesized)")
