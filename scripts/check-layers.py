#!/usr/bin/env python3
"""Checks that the folders of Sources/StreamQLite are layers: no file of a lower folder
names a type, a free function or an extension member declared in a higher folder (or in
another folder of the same level).

The layers are read from the table of docs/swift/architecture.md (level, folder), so the
document and the check cannot disagree. Comments and string literals are not code: a doc
comment may link to a type of any layer.

Names are found as the compiler would see them in one module: top-level types
(struct/class/enum/protocol/actor/typealias), top-level functions, and the members of
top-level extensions whose name is declared in one folder only (a member name that two
folders declare, like `encode`, cannot be told apart without the type checker and is left
out).

    python3 scripts/check-layers.py            # exit 1 and one line a violation
    python3 scripts/check-layers.py --graph    # also print which folder uses which
    python3 scripts/check-layers.py --self-test  # must catch a Core file naming a CSV type
"""
import os
import re
import sys
from collections import defaultdict

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
SOURCES = os.path.join(ROOT, "Sources", "StreamQLite")
DOC = os.path.join(ROOT, "docs", "swift", "architecture.md")


def layers_from_doc():
    """{folder: level} from the rows `| level | `Folder/` | …` of the doc's layer table."""
    levels = {}
    for line in open(DOC, encoding="utf-8"):
        m = re.match(r"\|\s*(\d+)\s*\|\s*`([A-Za-z]+)/`\s*\|", line)
        if m:
            levels[m.group(2)] = int(m.group(1))
    if not levels:
        sys.exit(f"check-layers: no layer table in {DOC}")
    return levels


def code_only(src):
    """The source without comments and string literals (multi-line ones too)."""
    src = re.sub(r'"""(.|\n)*?"""', '""', src)
    src = re.sub(r"/\*(.|\n)*?\*/", " ", src)
    out = []
    for line in src.split("\n"):
        line = re.sub(r'"(\\.|[^"\\])*"', '""', line)
        line = re.sub(r"//.*", "", line)
        out.append(line)
    return "\n".join(out)


MODIFIERS = r"(?:(?:@[\w.]+(?:\([^)]*\))?|public|internal|private|fileprivate|package|final|indirect|nonisolated|open|static|mutating|override|convenience|required|dynamic|lazy)\s+)*"
TOP_TYPE = re.compile(r"^" + MODIFIERS + r"(?:struct|class|enum|protocol|actor|typealias)\s+([A-Za-z_]\w*)", re.M)
TOP_FUNC = re.compile(r"^" + MODIFIERS + r"func\s+([A-Za-z_]\w*)", re.M)
MEMBER = re.compile(r"^    " + MODIFIERS + r"(?:func|var|let)\s+([A-Za-z_]\w*)", re.M)


def extension_bodies(code):
    """The text of each top-level `extension … {` block (to its closing brace at column 0)."""
    for m in re.finditer(r"^(?:public |internal |fileprivate |private )?extension\b[^\n]*\{\s*$", code, re.M):
        end = code.find("\n}", m.end())
        yield code[m.end(): end if end >= 0 else len(code)]


def main(planted=None):
    levels = layers_from_doc()
    files = {}
    for folder in sorted(os.listdir(SOURCES)):
        path = os.path.join(SOURCES, folder)
        if not os.path.isdir(path) or folder.endswith(".docc"):
            continue
        if folder not in levels:
            print(f"check-layers: Sources/StreamQLite/{folder}/ is not in the layer table of docs/swift/architecture.md")
            return 1
        for dirpath, _, names in os.walk(path):
            for name in names:
                if name.endswith(".swift"):
                    p = os.path.join(dirpath, name)
                    files[p] = (folder, code_only(open(p, encoding="utf-8").read()))
    if planted:
        files[os.path.join(SOURCES, planted[0], "Planted.swift")] = (planted[0], code_only(planted[1]))
    for folder in levels:
        if not os.path.isdir(os.path.join(SOURCES, folder)):
            print(f"check-layers: the layer table names {folder}/, which Sources/StreamQLite lacks")
            return 1

    owner = {}          # name -> folder (types and free functions)
    members = defaultdict(set)  # extension member name -> folders declaring it
    for p, (folder, code) in files.items():
        for m in TOP_TYPE.finditer(code):
            owner.setdefault(m.group(1), folder)
        for m in TOP_FUNC.finditer(code):
            owner.setdefault(m.group(1), folder)
        for body in extension_bodies(code):
            for m in MEMBER.finditer(body):
                members[m.group(1)].add(folder)
    # Any member name declared anywhere inside a type as well is ambiguous: count every
    # declaration of the name, not only those in extensions.
    declared_in = defaultdict(set)
    for p, (folder, code) in files.items():
        for m in re.finditer(r"\b(?:func|var|let|case)\s+([A-Za-z_]\w*)", code):
            declared_in[m.group(1)].add(folder)
    unique_members = {n: next(iter(fs)) for n, fs in members.items()
                      if len(fs) == 1 and declared_in[n] == fs and n not in owner}

    violations = []
    uses = defaultdict(set)
    for p, (folder, code) in sorted(files.items()):
        rel = os.path.relpath(p, SOURCES)
        tokens = set(re.findall(r"\b[A-Za-z_]\w*\b", code))
        for t in sorted(tokens):
            target = owner.get(t)
            if target and target != folder:
                uses[folder].add(target)
                if levels[target] >= levels[folder]:
                    violations.append(f"{rel}: names {t} ({target}/, level {levels[target]}) from level {levels[folder]}")
        for t in sorted(set(re.findall(r"\.([a-z_]\w*)\b", code)) | set(re.findall(r"(?<![.\w])([a-z_]\w*)\(", code))):
            target = unique_members.get(t)
            if target and target != folder:
                uses[folder].add(target)
                if levels[target] >= levels[folder]:
                    violations.append(f"{rel}: uses {t} (an extension member in {target}/, level {levels[target]}) from level {levels[folder]}")

    if "--graph" in sys.argv:
        for folder in sorted(uses, key=lambda f: (levels[f], f)):
            print(f"{levels[folder]} {folder}/ uses " + ", ".join(sorted(uses[folder], key=lambda f: (levels[f], f))))
    for v in violations:
        print("check-layers: " + v)
    if violations:
        print(f"check-layers: {len(violations)} uses against the layers of docs/swift/architecture.md")
        return 1
    print(f"check-layers: {len(files)} files in {len(levels)} folders keep to their layers")
    return 0


if __name__ == "__main__":
    if "--self-test" in sys.argv:
        # A Core file naming a CSV type and calling an importer's extension member: both caught.
        if main(("Core", "func planted(_ r: IngestRejecter) {\n    _ = CSVFieldReader.self\n    try? r.takeRefused(x)\n}\n")) != 1:
            sys.exit("check-layers --self-test: the planted uses were not caught")
        print("check-layers --self-test: the planted uses were caught")
        sys.exit(0)
    sys.exit(main())
