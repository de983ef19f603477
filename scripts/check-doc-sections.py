#!/usr/bin/env python3
"""The most-used public API of StreamQLite documents its parameters, return value, errors
and an example in its DocC comment (`- Parameters:`/`- Parameter`, `- Returns:`,
`- Throws:`, a ```swift block), as far as the declaration has them.

    python3 scripts/check-doc-sections.py

The symbols are listed below by the declaration's first line, found in whichever file of
Sources/StreamQLite holds it (files move between layers; a declaration must be there once, or once in the file named
beside it);
each one's doc comment is the `///` block above it (attributes skipped). A parameter section is required when the
declaration takes parameters, `- Returns:` when it returns a value, `- Throws:` when it
throws; an example in the comment (or, for an overload, in the comment of the declaration it
refers to with ``…``) is required for each. Part of `make test-docs`.
"""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SOURCES = os.path.join(ROOT, "Sources", "StreamQLite")
SYMBOLS = [
    'public init(path: String = ":memory:", flags: OpenFlags',
    "public func closeConnection() throws",
    "public func execute<each A: DatabaseValueConvertible>(_ sql: String, _ arguments: repeat each A) throws",
    "public func execute(_ sql: String, arguments: StatementArguments) throws",
    "public func transaction<T>(_ kind: TransactionKind = .immediate, _ body: () throws -> T) throws -> T",
    "public func savepoint<T>(_ body: () throws -> T) throws -> T",
    "public func setBusyTimeout(_ seconds: Double) throws",
    "public func loadExtension(_ path: String, entryPoint: String? = nil) throws",
    "public func rows<T: Decodable, each A: DatabaseValueConvertible>(",
    "public func rows<T: RowDecodable, each A: DatabaseValueConvertible>(",
    "public func rows<each A: DatabaseValueConvertible>(_ sql: String, _ arguments: repeat each A) throws -> RowCursor",
    "public func rows(_ sql: String, arguments: StatementArguments) throws -> RowCursor",
    "public func values<T: DatabaseValueConvertible, each A: DatabaseValueConvertible>(",
    "public func value<T: DatabaseValueConvertible, each A: DatabaseValueConvertible>(",
    "public func tuples<each V: DatabaseValueConvertible, each A: DatabaseValueConvertible>(",
    "    public func collect() throws -> [Element] {",
    "    public func forEach(_ body: (Element) throws -> Void) throws {",
    ("Row.swift", "public func decode<T: DatabaseValueConvertible>(_ type: T.Type = T.self, at index: Int) throws -> T"),
    ("Row.swift", "public func decode<T: DatabaseValueConvertible>(_ type: T.Type = T.self, named name: String) throws -> T"),
    "public init(path: String, readers: Int = 4, executorThreads: Int = 0,",
    ("DatabasePool.swift", "public func read<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T"),
    ("DatabasePool.swift", "public func write<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T"),
    ("DatabasePool.swift", "public func writeWithoutTransaction<T: Sendable>("),
    "public func jsonChunks<Chunk: Sendable, each A: DatabaseValueConvertible>(",
    "public func writeJSON<each A: DatabaseValueConvertible>(",
    "public func importCSV(bytes: UnsafeRawBufferPointer, into table: String,",
    "public func importCSV(bytes: [UInt8], into table: String, options: CSVImportOptions = CSVImportOptions(),",
    "public func importCSV(contentsOfFile path: String, into table: String,",
    "public func importJSON(bytes: UnsafeRawBufferPointer, into table: String,",
    "public func importJSON(bytes: [UInt8], into table: String, options: JSONImportOptions = JSONImportOptions(),",
    "public func importJSON(contentsOfFile path: String, into table: String,",
    "    public func insert<S: Sequence>(contentsOf rows: S, into table: String, options: InsertOptions = InsertOptions())\n        throws -> Int where S.Element: Encodable\n",
    "    public func writeJSON<Sink: ByteSink, each A: DatabaseValueConvertible>(",
    "    public func writeCSV<Sink: ByteSink, each A: DatabaseValueConvertible>(",
    "    public func encode<T: Encodable>(_ value: T) throws -> [UInt8] {",
    "    public func decode<T: Decodable>(_ type: T.Type, from bytes: [UInt8]) throws -> T {",
    "    public func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {",
    "    public func decode<T: Decodable>(_ type: T.Type, from string: String) throws -> T {",
    "    public func elements<T: Decodable>(of type: T.Type, contentsOfFile path: String,",
    "    public init(_ type: Value.Type, contentsOfFile path: String, options: CSVImportOptions = CSVImportOptions()) throws {",
]


def doc_and_decl(text, decl):
    i = text.index(decl)
    start = text.rfind("\n", 0, i) + 1
    lines = text[:start].split("\n")[:-1]
    k = len(lines)
    while k > 0 and lines[k - 1].strip().startswith("@"):
        k -= 1
    j = k
    while j > 0 and lines[j - 1].strip().startswith("///"):
        j -= 1
    doc = "\n".join(l.strip()[3:] for l in lines[j:k])
    # the declaration up to its body or end of line group
    rest = text[start:]
    end = rest.find("{")
    return doc, rest[:end if end >= 0 else len(rest)]


def main():
    problems = []
    texts = {}
    for dirpath, _, names in os.walk(SOURCES):
        for n in names:
            if n.endswith(".swift"):
                full = os.path.join(dirpath, n)
                texts[os.path.relpath(full, ROOT)] = open(full, encoding="utf-8").read()
    for entry in SYMBOLS:
        file, decl = entry if isinstance(entry, tuple) else (None, entry)
        holders = [(path, text) for path, text in texts.items()
                   if decl in text and (file is None or os.path.basename(path) == file)]
        if len(holders) != 1 or holders[0][1].count(decl) != 1:
            problems.append(f"Sources/StreamQLite: the declaration {decl.strip()[:70]!r} is not there once (update this list)")
            continue
        path, text = holders[0]
        doc, signature = doc_and_decl(text, decl)
        name = decl.strip().split("(")[0]
        params = re.sub(r"<[^()]*>", "", signature)
        params = params[params.find("(") + 1:]
        takes = re.search(r"\w+\s*:", params.split("->")[0]) is not None
        returns = re.search(r"->\s*(?!Void\b)\S", signature) is not None and " init(" not in " " + name
        throws = re.search(r"\bthrows\b", signature) is not None
        want = []
        if takes and not re.search(r"^\s*- Parameters?\b", doc, re.M):
            want.append("- Parameters:")
        if returns and "- Returns:" not in doc:
            want.append("- Returns:")
        if throws and "- Throws:" not in doc:
            want.append("- Throws:")
        if "```swift" not in doc and not re.search(r"``[^`]+``", doc):
            want.append("an example (```swift)")
        if want:
            problems.append(f"{path}: {name}: its doc comment lacks {', '.join(want)}")
    for p in problems:
        print(p, file=sys.stderr)
    print(f"doc-sections: {len(SYMBOLS) - len(problems)} passed, {len(problems)} failed")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
