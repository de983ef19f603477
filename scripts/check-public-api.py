#!/usr/bin/env python3
"""The StreamQLite library declares at most 50 public top-level types.

    python3 scripts/check-public-api.py [--max N] [--symbol-graph StreamQLite.symbols.json]

Counts the `public` or `open` struct, class, enum, protocol, actor and typealias
declarations at file scope of Sources/StreamQLite (types nested in another type or in an
extension are not top-level), from the sources: comments and string literals are skipped
and braces are counted, so a declaration inside `#if` still counts and one inside a type
or extension does not. Prints the list, sorted by name, then the count; exit status 1
above the limit. Part of `make test-docs`.

With --symbol-graph (the file `swift symbolgraph-extract` or `make docs` writes), the
top-level types of the symbol graph are counted too and must be the same list: a type
hidden with an underscore or `@_documentation(visibility: internal)` is not in the graph,
so it must not be public at the top level either.
"""
import json
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SOURCES = os.path.join(ROOT, "Sources", "StreamQLite")
LIMIT = 50

DECL = re.compile(
    r"(?:@[A-Za-z_][\w.]*(?:\([^()]*\))?\s+)*"            # attributes
    r"(?:(?:final|indirect|nonisolated|@preconcurrency)\s+)*"
    r"\b(public|open)\s+"
    r"(?:(?:final|indirect)\s+)*"
    r"(struct|class|enum|protocol|actor|typealias)\s+([A-Za-z_]\w*)")


def strip(text):
    """`text` with comments and string literals blanked (newlines kept)."""
    out, i, n = [], 0, len(text)
    while i < n:
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            i = j
        elif text.startswith("/*", i):
            depth, j = 1, i + 2
            while j < n and depth:
                if text.startswith("/*", j):
                    depth, j = depth + 1, j + 2
                elif text.startswith("*/", j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            out.append("\n" * text.count("\n", i, j))
            i = j
        elif text.startswith('"""', i):
            j = text.find('"""', i + 3)
            j = n if j < 0 else j + 3
            out.append('""' + "\n" * text.count("\n", i, j))
            i = j
        elif text[i] == '"':
            j = i + 1
            while j < n and text[j] not in '"\n':
                j += 2 if text[j] == "\\" else 1
            out.append('""')
            i = j + 1
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


def top_level_public_types():
    found = []
    for dirpath, _, files in os.walk(SOURCES):
        for name in sorted(files):
            if not name.endswith(".swift"):
                continue
            path = os.path.join(dirpath, name)
            code = strip(open(path, encoding="utf-8").read())
            depth, line = 0, 1
            for index, ch in enumerate(code):
                if ch == "\n":
                    line += 1
                elif ch == "{":
                    depth += 1
                elif ch == "}":
                    depth -= 1
                elif depth == 0 and ch in "po@" and (index == 0 or not (code[index - 1].isalnum() or code[index - 1] == "_")):
                    m = DECL.match(code, index)
                    if m and (m.start(1) == index or ch == "@" or code[index:m.start(1)].strip()):
                        found.append((m.group(3), m.group(2), os.path.relpath(path, ROOT), line))
    # An attribute and the keyword both start a match of the same declaration: keep one.
    unique = {(kind, name, path): line for name, kind, path, line in found}
    return sorted(((name, kind, path, line) for (kind, name, path), line in unique.items()),
                  key=lambda t: (t[0].lower(), t[2]))


TYPE_KINDS = {"swift.struct", "swift.class", "swift.enum", "swift.protocol", "swift.actor", "swift.typealias"}


def symbol_graph_types(path):
    graph = json.load(open(path))
    return sorted(s["pathComponents"][0] for s in graph["symbols"]
                  if s["kind"]["identifier"] in TYPE_KINDS and len(s["pathComponents"]) == 1
                  and s.get("accessLevel") in ("public", "open"))


def main():
    limit, graph = LIMIT, None
    args = sys.argv[1:]
    while args:
        if len(args) >= 2 and args[0] == "--max":
            limit = int(args[1])
        elif len(args) >= 2 and args[0] == "--symbol-graph":
            graph = args[1]
        else:
            sys.exit(__doc__)
        args = args[2:]
    types = top_level_public_types()
    for name, kind, path, line in types:
        print(f"{kind:9} {name:28} {path}:{line}")
    print(f"check-public-api: {len(types)} public top-level types (at most {limit})")
    if graph:
        from_graph = symbol_graph_types(graph)
        from_sources = sorted(name for name, *_ in types)
        if from_graph != from_sources:
            sys.exit(f"check-public-api: the symbol graph's top-level types differ from the sources': "
                     f"only in the graph {sorted(set(from_graph) - set(from_sources))}, "
                     f"only in the sources {sorted(set(from_sources) - set(from_graph))}")
        print(f"check-public-api: the symbol graph has the same {len(from_graph)}")
    if len(types) > limit:
        sys.exit(f"check-public-api: {len(types) - limit} too many: make a helper internal or nest it under the type it belongs to")


if __name__ == "__main__":
    main()
