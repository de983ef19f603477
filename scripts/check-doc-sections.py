#!/usr/bin/env python3
"""The most-used public API of StreamQLite documents its parameters, return value, errors
and an example in its DocC comment (`- Parameters:`/`- Parameter`, `- Returns:`,
`- Throws:`, a ```swift block), as far as the declaration has them.

    python3 scripts/check-doc-sections.py

The symbols are listed below (file, the declaration's first line); each one's doc comment is
the `///` block above it (attributes skipped). A parameter section is required when the
declaration takes parameters, `- Returns:` when it returns a value, `- Throws:` when it
throws; an example in the comment (or, for an overload, in the comment of the declaration it
refers to with ``…``) is required for each. Part of `make test-docs`.
"""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
S = "Sources/StreamQLite/"
SYMBOLS = [
    (S + "Core/Database.swift", 'public init(path: String = ":memory:", flags: OpenFlags'),
    (S + "Core/Database.swift", "public func closeConnection() throws"),
    (S + "Core/Database.swift", "public func execute<each A: DatabaseValueConvertible>(_ sql: String, _ arguments: repeat each A) throws"),
    (S + "Core/Database.swift", "public func execute(_ sql: String, arguments: StatementArguments) throws"),
    (S + "Core/Database.swift", "public func transaction<T>(_ kind: TransactionKind = .immediate, _ body: () throws -> T) throws -> T"),
    (S + "Core/Database.swift", "public func savepoint<T>(_ body: () throws -> T) throws -> T"),
    (S + "Core/Database.swift", "public func setBusyTimeout(_ seconds: Double) throws"),
    (S + "Core/Database.swift", "public func loadExtension(_ path: String, entryPoint: String? = nil) throws"),
    (S + "Core/Database+Query.swift", "public func rows<T: Decodable, each A: DatabaseValueConvertible>("),
    (S + "Core/Database+Query.swift", "public func rows<T: RowDecodable, each A: DatabaseValueConvertible>("),
    (S + "Core/Database+Query.swift", "public func rows<each A: DatabaseValueConvertible>(_ sql: String, _ arguments: repeat each A) throws -> RowCursor"),
    (S + "Core/Database+Query.swift", "public func rows(_ sql: String, arguments: StatementArguments) throws -> RowCursor"),
    (S + "Core/Database+Query.swift", "public func values<T: DatabaseValueConvertible, each A: DatabaseValueConvertible>("),
    (S + "Core/Database+Query.swift", "public func value<T: DatabaseValueConvertible, each A: DatabaseValueConvertible>("),
    (S + "Core/Database+Query.swift", "public func tuples<each V: DatabaseValueConvertible, each A: DatabaseValueConvertible>("),
    (S + "Core/Cursor.swift", "    public func collect() throws -> [Element] {"),
    (S + "Core/Cursor.swift", "    public func forEach(_ body: (Element) throws -> Void) throws {"),
    (S + "Core/Row.swift", "public func decode<T: DatabaseValueConvertible>(_ type: T.Type = T.self, at index: Int) throws -> T"),
    (S + "Core/Row.swift", "public func decode<T: DatabaseValueConvertible>(_ type: T.Type = T.self, named name: String) throws -> T"),
    (S + "Concurrency/DatabasePool.swift", "public init(path: String, readers: Int = 4, executorThreads: Int = 0,"),
    (S + "Concurrency/DatabasePool.swift", "public func read<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T"),
    (S + "Concurrency/DatabasePool.swift", "public func write<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T"),
    (S + "Concurrency/DatabasePool.swift", "public func writeWithoutTransaction<T: Sendable>("),
    (S + "Concurrency/DatabasePool.swift", "public func jsonChunks<Chunk: Sendable, each A: DatabaseValueConvertible>("),
    (S + "Concurrency/DatabasePool.swift", "public func writeJSON<each A: DatabaseValueConvertible>("),
    (S + "CSV/Database+ImportCSV.swift", "public func importCSV(bytes: UnsafeRawBufferPointer, into table: String,"),
    (S + "CSV/Database+ImportCSV.swift", "public func importCSV(bytes: [UInt8], into table: String, options: CSVImportOptions = CSVImportOptions(),"),
    (S + "CSV/Database+ImportCSV.swift", "public func importCSV(contentsOfFile path: String, into table: String,"),
    (S + "Import/Database+ImportJSON.swift", "public func importJSON(bytes: UnsafeRawBufferPointer, into table: String,"),
    (S + "Import/Database+ImportJSON.swift", "public func importJSON(bytes: [UInt8], into table: String, options: JSONImportOptions = JSONImportOptions(),"),
    (S + "Import/Database+ImportJSON.swift", "public func importJSON(contentsOfFile path: String, into table: String,"),
    (S + "Insert/Database+Insert.swift", "    public func insert<S: Sequence>(contentsOf rows: S, into table: String, options: InsertOptions = InsertOptions())\n        throws -> Int where S.Element: Encodable\n"),
    (S + "Output/Database+JSON.swift", "    public func writeJSON<Sink: ByteSink, each A: DatabaseValueConvertible>("),
    (S + "CSV/Database+WriteCSV.swift", "    public func writeCSV<Sink: ByteSink, each A: DatabaseValueConvertible>("),
    (S + "JSON/JSONValueEncoder.swift", "    public func encode<T: Encodable>(_ value: T) throws -> [UInt8] {"),
    (S + "JSON/JSONValueDecoder.swift", "    public func decode<T: Decodable>(_ type: T.Type, from bytes: [UInt8]) throws -> T {"),
    (S + "JSON/JSONValueDecoder.swift", "    public func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {"),
    (S + "JSON/JSONValueDecoder.swift", "    public func decode<T: Decodable>(_ type: T.Type, from string: String) throws -> T {"),
    (S + "JSON/JSONValueDecoder+Elements.swift", "    public func elements<T: Decodable>(of type: T.Type, contentsOfFile path: String,"),
    (S + "CSV/CSVRowCursor.swift", "    public init(_ type: Value.Type, contentsOfFile path: String, options: CSVImportOptions = CSVImportOptions()) throws {"),
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
    for path, decl in SYMBOLS:
        text = open(os.path.join(ROOT, path)).read()
        if text.count(decl) != 1:
            problems.append(f"{path}: the declaration {decl.strip()[:70]!r} is not there once (update this list)")
            continue
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
