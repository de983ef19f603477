import CStreamQLite
import Foundation

/// Where the rows are in a JSON document given to ``Database/importJSON(bytes:into:options:progress:)``.
public enum JSONImportLayout: Sendable, Equatable {
    /// The document is an array of objects: `[{"id":1}, {"id":2}]`.
    case array
    /// Newline-delimited JSON: one object per line (blank lines allowed).
    case ndjson
    /// The array of objects found by following object keys from the top:
    /// `.arrayAt(["data", "tasks"])` reads `{"data": {"tasks": [ … ]}}`;
    /// everything else in the document is parsed (validated) and skipped.
    case arrayAt([String])
}

/// Options of a JSON import.
///
/// Coercion to the column's declared type (its SQLite affinity, from `PRAGMA table_info`):
///
/// | JSON | INTEGER column | REAL column | TEXT column | date column¹ | NUMERIC / BLOB / untyped |
/// | --- | --- | --- | --- | --- | --- |
/// | `null` | NULL | NULL | NULL | NULL | NULL |
/// | `true`/`false` | 1/0 | 1.0/0.0 | 1/0 | 1/0 | 1/0 |
/// | integer `12` | 12 | 12.0 | `'12'` (the literal) | 12 | 12 |
/// | number `12.5` | integral values (`12.0`, `1e3`) as INTEGER, else ² | 12.5 | `'12.5'` (the literal) | 12.5 | 12.5 |
/// | string `"12"` | 12 when it is an integer literal, else ² | 12.0 when it is a number, else ² | `'12'` | see ¹ | `'12'` |
/// | object/array | JSON text | JSON text | JSON text | JSON text | JSON text |
///
/// ¹ A column whose declared type contains `DATE` or `TIME`: strings in any
/// form SQLite's date functions accept (`2024-05-01`, `2024-05-01T14:00:00+02:00`,
/// `2024-05-01 12:00:00.5Z`) are validated and stored as the library's one date
/// text, the same as a bound `Date`: a date alone as `YYYY-MM-DD`, a date and
/// time as `YYYY-MM-DD HH:MM:SS.SSS` in UTC (an offset is applied; none means
/// UTC, as in SQLite). Other strings are ².
///
/// ² Strict mode: an error. Otherwise the value is stored as it is (a REAL, or
/// the string) and SQLite's affinity rules apply.
///
/// Integers beyond 64 bits are bound as their literal text (strict: an error);
/// in an INTEGER, REAL or NUMERIC column SQLite's affinity then stores them as REAL.
public struct JSONImportOptions: Sendable {
    /// Where the rows are; default ``JSONImportLayout/array``.
    public var layout: JSONImportLayout
    /// JSON key → column, for keys whose name differs from the column
    /// (`["id_str": "id", "date_added": "added"]`). Other keys match columns
    /// by name, ignoring ASCII case.
    public var renames: [String: String]
    /// Strict mode: unknown keys, duplicate keys and values that cannot be
    /// coerced losslessly (see the table above) are errors. Default `false`:
    /// unknown keys are ignored and such values are stored as they are.
    public var strict: Bool
    /// The columns to insert. Nil (the default): every column of the table
    /// without a DEFAULT, plus the columns with a DEFAULT that the first
    /// element has a key for. A column missing from an element gets NULL
    /// (an INTEGER PRIMARY KEY then gets a new rowid).
    public var columns: [String]?
    /// Conflict handling, as for bulk inserts; default ``InsertOptions/Conflict/abort``.
    public var onConflict: InsertOptions.Conflict
    /// Rows per `INSERT` statement (capped by SQLite's variable limit); default 50.
    public var batchSize: Int
    /// Bytes read per chunk from a file; default 256 KiB.
    public var chunkSize: Int

    /// Creates options; every parameter has the documented default.
    public init(layout: JSONImportLayout = .array, renames: [String: String] = [:], strict: Bool = false,
                columns: [String]? = nil, onConflict: InsertOptions.Conflict = .abort, batchSize: Int = 50,
                chunkSize: Int = 256 * 1024) {
        self.layout = layout
        self.renames = renames
        self.strict = strict
        self.columns = columns
        self.onConflict = onConflict
        self.batchSize = batchSize
        self.chunkSize = chunkSize
    }
}

/// Progress of a running import: input bytes consumed and rows read so far.
public struct JSONImportProgress: Sendable, Equatable {
    /// Bytes of input consumed.
    public var bytes: Int
    /// Rows (elements) read so far.
    public var rows: Int
}

/// A JSON import failed; nothing of it was written.
public struct JSONImportError: Error, CustomStringConvertible {
    /// What went wrong.
    public var message: String
    /// 0-based byte offset in the input of the offending token (or of the element for constraint errors).
    public var byteOffset: Int
    /// 1-based line of that position.
    public var line: Int
    /// 1-based byte column of that position.
    public var column: Int
    /// 0-based index of the element (row) concerned, if the error concerns one.
    public var element: Int?
    /// The JSON key concerned, if any.
    public var key: String?

    /// The error as one line: position, element, key, message.
    public var description: String {
        var s = "importJSON: line \(line), column \(column) (byte \(byteOffset))"
        if let element { s += ", element \(element)" }
        if let key { s += ", key '\(key)'" }
        return s + ": " + message
    }
}

extension Database {
    /// Imports the rows of a JSON document held in memory into `table`, in one transaction.
    ///
    /// See ``JSONImportOptions`` for layouts, key → column mapping and type
    /// coercion. Nested objects and arrays are stored as JSON text.
    ///
    /// ```swift
    /// // [{"id_str": "17", "title": "Write docs", "date_added": "2024-05-01T09:30:00Z", "tags": ["docs"]}, …]
    /// let n = try db.importJSON(bytes: body, into: "tasks",
    ///                           options: .init(renames: ["id_str": "id", "date_added": "added"]))
    /// ```
    ///
    /// - Returns: The number of rows imported.
    /// - Throws: ``JSONImportError`` with the byte offset, line and element
    ///   index (syntax errors, strict-mode violations, constraint
    ///   violations); nothing is inserted then.
    @discardableResult
    public func importJSON(bytes: UnsafeRawBufferPointer, into table: String,
                           options: JSONImportOptions = JSONImportOptions(),
                           progress: ((JSONImportProgress) -> Void)? = nil) throws -> Int {
        let importer = try JSONImporter(db: self, table: table, options: options, progress: progress)
        return try savepoint {
            try importer.feed(bytes)
            return try importer.finish()
        }
    }

    /// Imports the rows of a JSON document held in memory; see ``importJSON(bytes:into:options:progress:)``.
    @discardableResult
    public func importJSON(bytes: [UInt8], into table: String, options: JSONImportOptions = JSONImportOptions(),
                           progress: ((JSONImportProgress) -> Void)? = nil) throws -> Int {
        try bytes.withUnsafeBytes { try importJSON(bytes: $0, into: table, options: options, progress: progress) }
    }

    /// Imports the rows of the JSON file at `path`, read in
    /// ``JSONImportOptions/chunkSize`` chunks: memory use does not depend on
    /// the file's size. See ``importJSON(bytes:into:options:progress:)``.
    @discardableResult
    public func importJSON(contentsOfFile path: String, into table: String,
                           options: JSONImportOptions = JSONImportOptions(),
                           progress: ((JSONImportProgress) -> Void)? = nil) throws -> Int {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            throw JSONImportError(message: "cannot open \(path): \(String(cString: strerror(errno)))",
                                  byteOffset: 0, line: 1, column: 1)
        }
        defer { close(fd) }
        let importer = try JSONImporter(db: self, table: table, options: options, progress: progress)
        let size = max(options.chunkSize, 1)
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 16)
        defer { buffer.deallocate() }
        return try savepoint {
            while true {
                let n = read(fd, buffer, size)
                if n < 0 {
                    if errno == EINTR { continue }
                    throw JSONImportError(message: "cannot read \(path): \(String(cString: strerror(errno)))",
                                          byteOffset: importer.consumed, line: 0, column: 0)
                }
                if n == 0 { break }
                try importer.feed(UnsafeRawBufferPointer(start: buffer, count: n))
            }
            return try importer.finish()
        }
    }

    /// Imports the rows of the JSON file at `url` (a file URL); see ``importJSON(contentsOfFile:into:options:progress:)``.
    @discardableResult
    public func importJSON(contentsOf url: URL, into table: String, options: JSONImportOptions = JSONImportOptions(),
                           progress: ((JSONImportProgress) -> Void)? = nil) throws -> Int {
        try importJSON(contentsOfFile: url.path, into: table, options: options, progress: progress)
    }

    /// Imports JSON arriving as an asynchronous sequence of chunks (a network
    /// download, `FileHandle.bytes`…), parsing each chunk as it arrives: the
    /// document is never held whole. Chunks may split the JSON anywhere.
    ///
    /// ```swift
    /// let (stream, _) = try await URLSession.shared.bytes(from: url)  // or any AsyncSequence of Data / [UInt8]
    /// try await db.importJSON(from: chunks, into: "tasks", options: .init(layout: .ndjson))
    /// ```
    ///
    /// The transaction stays open across the awaits: do not use the
    /// connection from elsewhere meanwhile. Cancelling the task rolls the import
    /// back and throws `CancellationError`, also when the sequence simply ends on
    /// cancellation (as `AsyncStream` does). See ``importJSON(bytes:into:options:progress:)``.
    @discardableResult
    public nonisolated(nonsending) func importJSON<Chunks: AsyncSequence>(
        from chunks: Chunks, into table: String, options: JSONImportOptions = JSONImportOptions(),
        progress: ((JSONImportProgress) -> Void)? = nil
    ) async throws -> Int where Chunks.Element: ContiguousBytes {
        let importer = try JSONImporter(db: self, table: table, options: options, progress: progress)
        let savepoint = try OpenSavepoint(self)
        do {
            for try await chunk in chunks {
                // A cancelled task stops here: many sequences (AsyncStream among them) simply
                // end when cancelled, which must not pass for the end of the input.
                try Task.checkCancellation()
                try chunk.withUnsafeBytes { try importer.feed($0) }
            }
            try Task.checkCancellation()
            let n = try importer.finish()
            try savepoint.release()
            return n
        } catch {
            savepoint.rollback()
            throw error
        }
    }
}

/// One bound value of a pending row.
private struct ImportSlot {
    enum Kind: UInt8 { case null, integer, real, text }
    var kind: Kind = .null
    var bits: Int64 = 0  // the integer, or the double's bit pattern
    var offset = 0       // text: start in the arena
    var length = 0
}

private struct ImportAbort: Error {}

private let importCallback: sq_json_callback = { user, token in
    // The importer outlives the parser that calls back: no retain/release per event.
    Unmanaged<JSONImporter>.fromOpaque(user!)._withUnsafeGuaranteedRef { $0.handle(token!) }
}

/// Drives the C parser and turns its events into batched inserts.
final class JSONImporter {
    let db: Database
    let table: String
    let options: JSONImportOptions
    let progress: ((JSONImportProgress) -> Void)?
    @exclusivity(unchecked) private var parser: OpaquePointer?

    // Target columns.
    private let columns: [String]
    private let affinity: [TableColumn.Affinity]
    private let isDate: [Bool]
    @exclusivity(unchecked) private var keyToColumn: [String: Int] = [:]  // lowercased key → column position
    /// By position of the key in an element: the key's bytes and its column (-1: ignored).
    /// Raw memory, so the per-event lookups cost no ARC or uniqueness checks.
    private struct CachedKey {
        var bytes: UnsafeMutablePointer<UInt8>
        var count: Int
        var column: Int
    }
    @exclusivity(unchecked) private var keyCache: UnsafeMutablePointer<CachedKey> = .allocate(capacity: 16)
    @exclusivity(unchecked) private var keyCacheCount = 0
    @exclusivity(unchecked) private var keyCacheCapacity = 16

    // Batching.
    private let batchRows: Int
    @exclusivity(unchecked) private var slots: UnsafeMutablePointer<ImportSlot>
    /// The TEXT bytes of the pending batch (raw memory: one bounds-free copy per value; the
    /// slots keep offsets, so growing it is safe until the batch is bound).
    @exclusivity(unchecked) private var arena = UnsafeMutablePointer<UInt8>.allocate(capacity: 64 * 1024)
    @exclusivity(unchecked) private var arenaCount = 0
    @exclusivity(unchecked) private var arenaCapacity = 64 * 1024
    @exclusivity(unchecked) private var rowsInBatch = 0
    @exclusivity(unchecked) private var rowStarts: [(element: Int, offset: Int, line: Int, column: Int)] = []
    @exclusivity(unchecked) private var statements: [Int: OpaquePointer] = [:]

    // Parse state.
    private let targetPath: [String]?
    @exclusivity(unchecked) private var containerIsObject: [Bool] = []  // outside the target: per open container
    @exclusivity(unchecked) private var keyAtDepth: [String] = []
    @exclusivity(unchecked) private var targetDepth = -1   // depth of the target array's elements' container (-1: not found yet)
    @exclusivity(unchecked) private var elementDepth = -1
    @exclusivity(unchecked) private var foundTarget = false
    @exclusivity(unchecked) private var targetDone = false
    @exclusivity(unchecked) private var inElement = false
    @exclusivity(unchecked) private var keyPosition = 0
    @exclusivity(unchecked) private var currentColumn = -1
    @exclusivity(unchecked) private var currentKeyPosition = -1  // index in keyCache of the current key
    @exclusivity(unchecked) private var seenInRow: [Int] = []  // per column: the element index that last set it (strict duplicate check)
    @exclusivity(unchecked) private var capture: [UInt8] = []
    @exclusivity(unchecked) private var captureFirst: [Bool] = []
    @exclusivity(unchecked) private var captureAfterKey = false
    @exclusivity(unchecked) private var capturing = false
    @exclusivity(unchecked) private(set) var elements = 0
    @exclusivity(unchecked) private var elementOffset = 0, elementLine = 1, elementColumn = 1
    @exclusivity(unchecked) private var failure: Error?
    @exclusivity(unchecked) private(set) var consumed = 0
    @exclusivity(unchecked) private var firstElementKeys: Set<String>? = nil

    init(db: Database, table: String, options: JSONImportOptions, progress: ((JSONImportProgress) -> Void)?) throws {
        self.db = db
        self.table = table
        self.options = options
        self.progress = progress
        let tableColumns = try db.sqTableColumns(table, function: "importJSON")
        var byName: [String: TableColumn] = [:]
        for c in tableColumns { byName[c.name.lowercased()] = c }
        for (key, column) in options.renames where byName[column.lowercased()] == nil {
            throw JSONImportError(message: "rename '\(key)' → '\(column)': table \(table) has no column \(column)",
                                  byteOffset: 0, line: 1, column: 1)
        }
        let chosen: [TableColumn]
        if let explicit = options.columns {
            chosen = try explicit.map { name in
                guard let c = byName[name.lowercased()] else {
                    throw JSONImportError(message: "table \(table) has no column \(name)", byteOffset: 0, line: 1, column: 1)
                }
                return c
            }
        } else {
            // Columns with a DEFAULT are added when the first element names them (see JSONImportOptions.columns);
            // start with all of them and drop the unnamed ones once the first element is read.
            chosen = tableColumns
        }
        columns = chosen.map(\.name)
        affinity = chosen.map(\.affinity)
        isDate = chosen.map(\.isDate)
        isActive = .allocate(capacity: max(chosen.count, 1))
        isActive.initialize(repeating: true, count: max(chosen.count, 1))
        defaultColumns = options.columns == nil ? Set(chosen.indices.filter { chosen[$0].hasDefault }) : []
        for (i, c) in columns.enumerated() { keyToColumn[c.lowercased()] = i }
        for (key, column) in options.renames {
            keyToColumn[key.lowercased()] = columns.firstIndex { $0.lowercased() == column.lowercased() } ?? -1
            // A column reached through a rename is not also matched by its own name.
            if key.lowercased() != column.lowercased(), keyToColumn[column.lowercased()] != nil,
               !options.renames.keys.contains(where: { $0.lowercased() == column.lowercased() }) {
                keyToColumn[column.lowercased()] = nil
            }
        }
        let limit = Int(sqlite3_limit(db.handle, SQLITE_LIMIT_VARIABLE_NUMBER, -1))
        batchRows = max(1, min(options.batchSize, limit / max(columns.count, 1)))
        slots = .allocate(capacity: batchRows * columns.count)
        slots.initialize(repeating: ImportSlot(), count: batchRows * columns.count)
        seenInRow = Array(repeating: -1, count: columns.count)
        switch options.layout {
        case .array: targetPath = []
        case .ndjson: targetPath = nil
        case .arrayAt(let path): targetPath = path
        }
        if targetPath == nil {
            elementDepth = 0
            foundTarget = true
        }
        parser = sq_json_new(importCallback, Unmanaged.passUnretained(self).toOpaque())
        guard parser != nil else { throw JSONImportError(message: "out of memory", byteOffset: 0, line: 1, column: 1) }
        if targetPath == nil { sq_json_set_options(parser, UInt32(SQ_JSON_OPT_MULTIPLE)) }
    }

    /// Columns with a DEFAULT; those the first element has no key for are left out of the INSERT.
    @exclusivity(unchecked) private var defaultColumns: Set<Int>
    /// Positions (in `columns`) actually inserted, decided after the first element.
    @exclusivity(unchecked) private var activeColumns: [Int]?
    /// Per column: inserted (valid once ``activeColumns`` is decided, after the first element).
    @exclusivity(unchecked) private var isActive: UnsafeMutablePointer<Bool>

    private func cacheKey(_ key: [UInt8], column: Int, at p: Int) {
        guard p <= keyCacheCount else { return }
        if p == keyCacheCount {
            if keyCacheCount == keyCacheCapacity { keyCache.doubleCapacity(&keyCacheCapacity, count: keyCacheCount) }
            keyCacheCount += 1
        } else {
            keyCache[p].bytes.deallocate()
        }
        let bytes = UnsafeMutablePointer<UInt8>.allocate(capacity: max(key.count, 1))
        bytes.initialize(from: key, count: key.count)
        keyCache[p] = CachedKey(bytes: bytes, count: key.count, column: column)
    }

    deinit {
        for i in 0..<keyCacheCount { keyCache[i].bytes.deallocate() }
        keyCache.deallocate()
        slots.deallocate()
        arena.deallocate()
        isActive.deallocate()
        sq_json_free(parser)
        for s in statements.values { sqlite3_finalize(s) }
    }

    // MARK: Input

    func feed(_ bytes: UnsafeRawBufferPointer) throws {
        guard bytes.count > 0 else { return }
        // Hold the connection's recursive mutex for the chunk: the binds and steps
        // below re-enter it cheaply (a no-op for NOMUTEX connections).
        let mutex = sqlite3_db_mutex(db.handle)
        sqlite3_mutex_enter(mutex)
        defer { sqlite3_mutex_leave(mutex) }
        let rc = sq_json_feed(parser, bytes.baseAddress, bytes.count)
        if rc == SQ_JSON_ERROR { try throwParserError() }
        consumed += bytes.count
        progress?(JSONImportProgress(bytes: consumed, rows: elements))
    }

    func finish() throws -> Int {
        if sq_json_finish(parser) == SQ_JSON_ERROR { try throwParserError() }
        if !foundTarget {
            let where_ = targetPath.map { $0.isEmpty ? "at the top level" : "at \($0.joined(separator: "."))" } ?? ""
            throw JSONImportError(message: "no array of objects \(where_)", byteOffset: consumed, line: 0, column: 0)
        }
        try flush()
        progress?(JSONImportProgress(bytes: consumed, rows: elements))
        return elements
    }

    private func throwParserError() throws -> Never {
        let info = sq_json_error_info(parser)!.pointee
        if info.code == Int32(SQ_JSON_E_ABORTED.rawValue), let failure { throw failure }
        let message = withUnsafeBytes(of: info.message) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
        throw JSONImportError(message: "invalid JSON: " + message, byteOffset: Int(info.offset), line: Int(info.line),
                              column: Int(info.column), element: inElement ? elements : nil)
    }

    // MARK: Events

    func handle(_ t: UnsafePointer<sq_json_token>) -> Int32 {
        do {
            try event(t.pointee)
            return SQ_JSON_CONTINUE
        } catch {
            failure = error
            return 2  // abort
        }
    }

    private func error(_ message: String, _ t: sq_json_token, key: String? = nil, element: Int? = nil) -> JSONImportError {
        JSONImportError(message: message, byteOffset: Int(t.offset), line: Int(t.line), column: Int(t.column),
                        element: element ?? (inElement ? elements : nil), key: key)
    }

    @inline(__always)
    private func text(_ t: sq_json_token) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(start: UnsafeRawPointer(t.text)?.assumingMemoryBound(to: UInt8.self), count: t.len)
    }

    private func event(_ t: sq_json_token) throws {
        let depth = Int(t.depth)
        let type = sq_json_type(rawValue: UInt32(t.type))
        if capturing {
            try captureToken(t, type)
            return
        }
        if inElement {
            if depth == elementDepth + 1 {
                switch type {
                case SQ_JSON_KEY:
                    try key(t)
                    return
                case SQ_JSON_BEGIN_OBJECT, SQ_JSON_BEGIN_ARRAY:
                    capturing = true
                    capture.removeAll(keepingCapacity: true)
                    captureFirst.removeAll(keepingCapacity: true)
                    captureAfterKey = false
                    try captureToken(t, type)
                    return
                default:
                    try value(t, type)
                    return
                }
            }
            if depth == elementDepth && type == SQ_JSON_END_OBJECT {
                try endElement()
                return
            }
            return
        }
        if foundTarget && !targetDone {
            if depth == elementDepth {
                switch type {
                case SQ_JSON_BEGIN_OBJECT:
                    beginElement(t)
                case SQ_JSON_END_ARRAY:
                    targetDone = true
                default:
                    throw error("element \(elements) is not an object", t, element: elements)
                }
                return
            }
            return
        }
        if targetDone || targetPath == nil { return }
        // Looking for the target array.
        let path = targetPath!
        switch type {
        case SQ_JSON_KEY:
            if depth <= path.count {
                if keyAtDepth.count <= depth { keyAtDepth.append(contentsOf: repeatElement("", count: depth + 1 - keyAtDepth.count)) }
                keyAtDepth[depth] = String(decoding: text(t), as: UTF8.self)
            }
        case SQ_JSON_BEGIN_ARRAY:
            if depth == path.count && containerIsObject.count == depth && containerIsObject.allSatisfy({ $0 })
                && (0..<path.count).allSatisfy({ keyAtDepth.count > $0 + 1 && keyAtDepth[$0 + 1] == path[$0] }) {
                foundTarget = true
                targetDepth = depth
                elementDepth = depth + 1
                return
            }
            containerIsObject.append(false)
        case SQ_JSON_BEGIN_OBJECT:
            containerIsObject.append(true)
        case SQ_JSON_END_ARRAY, SQ_JSON_END_OBJECT:
            containerIsObject.removeLast()
        default:
            if depth == 0 && path.isEmpty {
                throw error("expected an array of objects at the top level", t)
            }
        }
        if depth == 0 && path.isEmpty && (type == SQ_JSON_BEGIN_OBJECT) {
            throw error("expected an array of objects at the top level, found an object (use layout .arrayAt([…]) or .ndjson)", t)
        }
    }

    private func beginElement(_ t: sq_json_token) {
        inElement = true
        keyPosition = 0
        currentColumn = -1
        elementOffset = Int(t.offset)
        elementLine = Int(t.line)
        elementColumn = Int(t.column)
        let base = rowsInBatch * columns.count
        for i in base..<(base + columns.count) { slots[i].kind = .null }
    }

    private func key(_ t: sq_json_token) throws {
        let bytes = text(t)
        let p = keyPosition
        currentKeyPosition = p
        keyPosition += 1
        var column = -2
        if p < keyCacheCount && keyCache[p].count == bytes.count {
            if bytes.count == 0 || memcmp(keyCache[p].bytes, bytes.baseAddress!, bytes.count) == 0 {
                column = keyCache[p].column
            }
        }
        if column == -2 {
            let name = String(decoding: bytes, as: UTF8.self)
            column = keyToColumn[name.lowercased()] ?? -1
            if column == -1 && options.strict {
                throw error("the table \(table) has no column for this key (strict mode; add a rename or turn strict off)",
                            t, key: name)
            }
            let entry = (key: Array(bytes), column: column)
            cacheKey(entry.key, column: entry.column, at: p)
        }
        if column >= 0 && elements > 0 && !isActive[column] {
            throw error("column \(columns[column]) has a DEFAULT and the first element has no key for it, so it is not inserted; pass columns: to include it",
                        t, key: keyName())
        }
        if column >= 0 && options.strict {
            if seenInRow[column] == elements {
                throw error("duplicate key for column \(columns[column]) (strict mode)", t, key: keyName())
            }
            seenInRow[column] = elements
        }
        if elements == 0 && column >= 0 {
            firstElementKeys = firstElementKeys ?? []
            firstElementKeys!.insert(columns[column])
        }
        currentColumn = column
    }

    /// The current key (copied: the token's text is only valid during its callback).
    private func keyName() -> String {
        guard currentKeyPosition >= 0 && currentKeyPosition < keyCacheCount else { return "" }
        let k = keyCache[currentKeyPosition]
        return String(decoding: UnsafeBufferPointer(start: k.bytes, count: k.count), as: UTF8.self)
    }

    private func endElement() throws {
        inElement = false
        if elements == 0 { decideActiveColumns() }
        rowStarts.append((elements, elementOffset, elementLine, elementColumn))
        rowsInBatch += 1
        elements += 1
        if rowsInBatch == batchRows { try flush() }
    }

    private func decideActiveColumns() {
        let active = columns.indices.filter { !defaultColumns.contains($0) || (firstElementKeys?.contains(columns[$0]) ?? false) }
        activeColumns = active
        for c in columns.indices { isActive[c] = active.contains(c) }
    }

    // MARK: Values and coercion

    @inline(__always)
    private func slot(_ column: Int) -> Int { rowsInBatch * columns.count + column }

    private func setInteger(_ column: Int, _ v: Int64) {
        let i = slot(column)
        slots[i].kind = .integer
        slots[i].bits = v
    }

    private func setReal(_ column: Int, _ v: Double) {
        let i = slot(column)
        slots[i].kind = .real
        slots[i].bits = Int64(bitPattern: v.bitPattern)
    }

    private func setText(_ column: Int, _ bytes: UnsafeBufferPointer<UInt8>) {
        let i = slot(column)
        slots[i].kind = .text
        let n = bytes.count
        slots[i].offset = arenaCount
        slots[i].length = n
        if arenaCapacity - arenaCount < n { growArena(n) }
        if let source = bytes.baseAddress, n > 0 {
            UnsafeMutableRawPointer(arena + arenaCount).copyMemory(from: source, byteCount: n)
        }
        arenaCount += n
    }

    private func growArena(_ n: Int) {
        let capacity = max(arenaCapacity * 2, arenaCount + n)
        let bigger = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)
        bigger.update(from: arena, count: arenaCount)
        arena.deallocate()
        arena = bigger
        arenaCapacity = capacity
    }

    private func setText(_ column: Int, _ bytes: [UInt8]) {
        bytes.withUnsafeBufferPointer { setText(column, $0) }
    }

    /// Strict mode: a number beyond a REAL's range (`1e400`) would be stored as ±Inf.
    private func outOfRealRange(_ literal: UnsafeBufferPointer<UInt8>, _ t: sq_json_token, _ c: Int) -> JSONImportError {
        error("\(String(decoding: literal, as: UTF8.self)) is beyond the range of a REAL (it would be stored as infinity), column \(columns[c]) (strict mode)",
              t, key: keyName())
    }

    private func value(_ t: sq_json_token, _ type: sq_json_type) throws {
        let c = currentColumn
        guard c >= 0 else { return }
        let strict = options.strict
        switch type {
        case SQ_JSON_NULL:
            slots[slot(c)].kind = .null
        case SQ_JSON_TRUE, SQ_JSON_FALSE:
            let v: Int64 = type == SQ_JSON_TRUE ? 1 : 0
            if affinity[c] == .real { setReal(c, Double(v)) } else { setInteger(c, v) }
        case SQ_JSON_NUMBER:
            let literal = text(t)
            let isInteger = t.flags & UInt32(SQ_JSON_F_INTEGER) != 0
            var i: Int64 = 0
            let fits: Bool
            if isInteger && t.len <= 18, let p = literal.baseAddress {
                // Up to 18 digits (with the sign) always fit: read them here, no C call. The
                // parser flagged an integer literal, so the bytes are `-?[0-9]+`.
                let negative = p[0] == UInt8(ascii: "-")
                var k = negative ? 1 : 0
                var v: Int64 = 0
                while k < t.len {
                    v = v &* 10 &+ Int64(p[k] &- 0x30)
                    k &+= 1
                }
                i = negative ? 0 &- v : v
                fits = true
            } else {
                fits = isInteger && sq_json_number_int64(t.text, t.len, &i) != 0
            }
            switch affinity[c] {
            case .text:
                setText(c, literal)
            case .real:
                let d = fits ? Double(i) : sq_json_number_double(t.text, t.len)
                if strict && !d.isFinite { throw outOfRealRange(literal, t, c) }
                setReal(c, d)
            case .integer:
                if fits { setInteger(c, i); return }
                if isInteger {  // beyond 64 bits
                    if strict { throw error("\(keyName()): integer out of the 64-bit range (strict mode)", t, key: keyName()) }
                    setText(c, literal)
                    return
                }
                let d = sq_json_number_double(t.text, t.len)
                if let exact = Int64(exactly: d) { setInteger(c, exact); return }
                if strict {
                    throw error("\(String(decoding: literal, as: UTF8.self)) is not an integer, column \(columns[c]) is INTEGER (strict mode)",
                                t, key: keyName())
                }
                setReal(c, d)
            case .numeric, .blob:
                if fits { setInteger(c, i) } else if isInteger {
                    if strict { throw error("integer out of the 64-bit range (strict mode)", t, key: keyName()) }
                    setText(c, literal)
                } else {
                    let d = sq_json_number_double(t.text, t.len)
                    if strict && !d.isFinite { throw outOfRealRange(literal, t, c) }
                    setReal(c, d)
                }
            }
        case SQ_JSON_STRING:
            let s = text(t)
            if isDate[c] {
                if let normalized = normalizeISO8601(s) { setText(c, normalized); return }
                if strict {
                    throw error("'\(String(decoding: s, as: UTF8.self))' is not a date or date-time, column \(columns[c]) is a date column (strict mode)",
                                t, key: keyName())
                }
                setText(c, s)
                return
            }
            switch affinity[c] {
            case .text, .blob, .numeric:
                setText(c, s)
            case .integer:
                if let v = parseInt64(s) { setInteger(c, v); return }
                if strict {
                    throw error("'\(String(decoding: s, as: UTF8.self))' is not an integer, column \(columns[c]) is INTEGER (strict mode)",
                                t, key: keyName())
                }
                setText(c, s)
            case .real:
                if let d = parseJSONNumber(s) {
                    if strict && !d.isFinite { throw outOfRealRange(s, t, c) }
                    setReal(c, d)
                    return
                }
                if strict {
                    throw error("'\(String(decoding: s, as: UTF8.self))' is not a number, column \(columns[c]) is REAL (strict mode)",
                                t, key: keyName())
                }
                setText(c, s)
            }
        default:
            break
        }
    }

    // MARK: Nested values → JSON text

    private func captureToken(_ t: sq_json_token, _ type: sq_json_type) throws {
        let isEnd = type == SQ_JSON_END_OBJECT || type == SQ_JSON_END_ARRAY
        if !isEnd {
            if captureAfterKey {
                captureAfterKey = false
            } else if let first = captureFirst.last {
                if !first { capture.append(UInt8(ascii: ",")) }
                captureFirst[captureFirst.count - 1] = false
            }
        }
        switch type {
        case SQ_JSON_BEGIN_OBJECT: capture.append(UInt8(ascii: "{")); captureFirst.append(true)
        case SQ_JSON_BEGIN_ARRAY: capture.append(UInt8(ascii: "[")); captureFirst.append(true)
        case SQ_JSON_END_OBJECT: capture.append(UInt8(ascii: "}")); captureFirst.removeLast()
        case SQ_JSON_END_ARRAY: capture.append(UInt8(ascii: "]")); captureFirst.removeLast()
        case SQ_JSON_KEY:
            appendJSONStringBytes(text(t), to: &capture)
            capture.append(UInt8(ascii: ":"))
            captureAfterKey = true
        case SQ_JSON_STRING: appendJSONStringBytes(text(t), to: &capture)
        case SQ_JSON_NUMBER: capture.append(contentsOf: text(t))
        case SQ_JSON_TRUE: capture.append(contentsOf: "true".utf8)
        case SQ_JSON_FALSE: capture.append(contentsOf: "false".utf8)
        case SQ_JSON_NULL: capture.append(contentsOf: "null".utf8)
        default: break
        }
        if isEnd && captureFirst.isEmpty {
            capturing = false
            if currentColumn >= 0 {
                if options.strict && (affinity[currentColumn] == .integer || affinity[currentColumn] == .real) {
                    throw error("a nested object/array cannot go into \(affinity[currentColumn] == .integer ? "INTEGER" : "REAL") column \(columns[currentColumn]) (strict mode)",
                                t, key: keyName())
                }
                setText(currentColumn, capture)
            }
        }
    }

    // MARK: Batches

    private func statement(rows: Int) throws -> OpaquePointer {
        if let s = statements[rows] { return s }
        let names = (activeColumns ?? Array(columns.indices)).map { columns[$0] }
        var insertOptions = InsertOptions()
        insertOptions.onConflict = options.onConflict
        let s = try db.sqPrepare(db.bulkInsertSQL(table: table, columns: names, rowCount: rows,
                                                         options: insertOptions, returning: nil))
        statements[rows] = s
        return s
    }

    /// Binds rows `from..<from+count` of the batch into `stmt` (SQLITE_STATIC: the arena outlives the step).
    private func bind(_ stmt: OpaquePointer, rows from: Int, count: Int, arena: UnsafeBufferPointer<UInt8>) {
        let active = activeColumns ?? Array(columns.indices)
        var p: Int32 = 1
        for r in from..<(from + count) {
            let base = r * columns.count
            for c in active {
                let s = slots[base + c]
                switch s.kind {
                case .null: sqlite3_bind_null(stmt, p)
                case .integer: sqlite3_bind_int64(stmt, p, s.bits)
                case .real: sqlite3_bind_double(stmt, p, Double(bitPattern: UInt64(bitPattern: s.bits)))
                case .text:
                    let ptr = UnsafeRawPointer(arena.baseAddress ?? UnsafePointer(bitPattern: 1)!).advanced(by: s.offset)
                    sqlite3_bind_text64(stmt, p, ptr.assumingMemoryBound(to: CChar.self), sqlite3_uint64(s.length),
                                        nil /* SQLITE_STATIC */, UInt8(SQLITE_UTF8))
                }
                p += 1
            }
        }
    }

    private func step(_ stmt: OpaquePointer) -> Int32 {
        var rc = sqlite3_step(stmt)
        while rc == SQLITE_ROW { rc = sqlite3_step(stmt) }
        let code = rc == SQLITE_DONE ? SQLITE_OK : sqlite3_extended_errcode(db.handle)
        sqlite3_reset(stmt)
        return code
    }

    private func flush() throws {
        guard rowsInBatch > 0 else { return }
        if activeColumns == nil { decideActiveColumns() }
        let count = rowsInBatch
        let stmt = try statement(rows: count)
        let arena = UnsafeBufferPointer(start: UnsafePointer(self.arena), count: arenaCount)
        bind(stmt, rows: 0, count: count, arena: arena)
        if step(stmt) != SQLITE_OK {
            let batchMessage = db.sqLastErrorMessage
            // Replay row by row to name the element.
            let single = try statement(rows: 1)
            for r in 0..<count {
                bind(single, rows: r, count: 1, arena: arena)
                if step(single) != SQLITE_OK {
                    let message = db.sqLastErrorMessage
                    let start = rowStarts[r]
                    throw JSONImportError(message: message, byteOffset: start.offset, line: start.line, column: start.column,
                                          element: start.element, key: constraintColumn(in: message))
                }
            }
            let start = rowStarts[0]
            throw JSONImportError(message: batchMessage, byteOffset: start.offset, line: start.line, column: start.column,
                                  element: start.element)
        }
        rowsInBatch = 0
        rowStarts.removeAll(keepingCapacity: true)
        arenaCount = 0
    }
}

// MARK: Helpers

/// Appends `bytes` (valid UTF-8) as a quoted JSON string.
func appendJSONStringBytes(_ bytes: UnsafeBufferPointer<UInt8>, to out: inout [UInt8]) {
    out.append(UInt8(ascii: "\""))
    let hex = Array("0123456789abcdef".utf8)
    for b in bytes {
        switch b {
        case 0x22: out.append(0x5C); out.append(0x22)
        case 0x5C: out.append(0x5C); out.append(0x5C)
        case 0x0A: out.append(0x5C); out.append(UInt8(ascii: "n"))
        case 0x0D: out.append(0x5C); out.append(UInt8(ascii: "r"))
        case 0x09: out.append(0x5C); out.append(UInt8(ascii: "t"))
        case 0..<0x20:
            out.append(contentsOf: [0x5C, UInt8(ascii: "u"), 0x30, 0x30, hex[Int(b >> 4)], hex[Int(b & 15)]])
        default: out.append(b)
        }
    }
    out.append(UInt8(ascii: "\""))
}

/// An integer literal (`-?[0-9]+`, no leading `+`, no spaces) within Int64, else nil.
func parseInt64(_ s: UnsafeBufferPointer<UInt8>) -> Int64? {
    guard !s.isEmpty else { return nil }
    var i = 0
    let negative = s[0] == UInt8(ascii: "-")
    if negative { i = 1 }
    guard i < s.count else { return nil }
    var v: Int64 = 0
    while i < s.count {
        let d = s[i] &- 0x30
        guard d < 10 else { return nil }
        let (m, o1) = v.multipliedReportingOverflow(by: 10)
        let (a, o2) = negative ? m.subtractingReportingOverflow(Int64(d)) : m.addingReportingOverflow(Int64(d))
        if o1 || o2 { return nil }
        v = a
        i += 1
    }
    return v
}

/// A string holding a JSON number literal, as a Double; nil otherwise.
func parseJSONNumber(_ s: UnsafeBufferPointer<UInt8>) -> Double? {
    // JSON grammar: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
    var i = 0
    let n = s.count
    func digit(_ k: Int) -> Bool { k < n && s[k] >= 0x30 && s[k] <= 0x39 }
    if i < n && s[i] == UInt8(ascii: "-") { i += 1 }
    guard digit(i) else { return nil }
    if s[i] == 0x30 { i += 1 } else { while digit(i) { i += 1 } }
    if i < n && s[i] == UInt8(ascii: ".") {
        i += 1
        guard digit(i) else { return nil }
        while digit(i) { i += 1 }
    }
    if i < n && (s[i] == UInt8(ascii: "e") || s[i] == UInt8(ascii: "E")) {
        i += 1
        if i < n && (s[i] == UInt8(ascii: "+") || s[i] == UInt8(ascii: "-")) { i += 1 }
        guard digit(i) else { return nil }
        while digit(i) { i += 1 }
    }
    guard i == n else { return nil }
    return sq_json_number_double(UnsafeRawPointer(s.baseAddress!).assumingMemoryBound(to: CChar.self), n)
}

/// Validates a date or date-time and normalizes it to the library's one date text
/// (`2024-05-01 12:00:00.250`, UTC; a bare `2024-05-01` stays a date) through the C
/// codec of `sq_date.h`; nil if it is not a time value SQLite's date functions accept.
func normalizeISO8601(_ s: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
    guard let base = s.baseAddress, s.count < 256 else { return nil }
    return withUnsafeTemporaryAllocation(of: CChar.self, capacity: Int(SQ_DATE_TEXT_MAX)) { out -> [UInt8]? in
        let n = sq_date_normalize(UnsafeRawPointer(base).assumingMemoryBound(to: CChar.self), Int32(s.count), out.baseAddress!)
        guard n >= 0 else { return nil }
        return Array(UnsafeRawBufferPointer(start: out.baseAddress!, count: Int(n)))
    }
}
