import CStreamQLite

// The number formatters, `smallCopy` and the string escaper live in JSON/JSONEscaping.swift
// (shared with `JSONValueEncoder`).

/// Copies 16 bytes as two unaligned 8-byte words.
@inline(__always)
private func copy16(_ dst: UnsafeMutablePointer<UInt8>, _ src: UnsafePointer<UInt8>) {
    let a = UnsafeRawPointer(src).loadUnaligned(as: UInt64.self)
    let b = UnsafeRawPointer(src + 8).loadUnaligned(as: UInt64.self)
    UnsafeMutableRawPointer(dst).storeBytes(of: a, as: UInt64.self)
    UnsafeMutableRawPointer(dst + 8).storeBytes(of: b, as: UInt64.self)
}

private let base64Alphabet: StaticString =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"

/// The pre-encoded column prefixes of one result shape: `{"id":`, `,"title":` … (or
/// the separators of an array of arrays), their offsets and the raw-JSON flags.
///
/// Built in ``JSONRowWriter/beginResult(columns:)``; `writeJSON` keeps it with the
/// statement (`Statement.outputLayout`, dropped when SQLite re-prepares the statement) so
/// that running a cached statement again does not escape its column names again.
@usableFromInline
final class JSONColumnLayout {
    let names: [String]
    let format: JSONWriterOptions.Format
    let pretty: Bool
    let escapeLineSeparators: Bool
    let rawJSONColumns: Set<String>
    let booleanColumns: Set<String>
    /// The prefixes, back to back, with 16 bytes of zero padding (copied as two words).
    let prefixes: UnsafeMutablePointer<UInt8>
    /// Start offsets of each column's prefix in `prefixes`, plus the end (columns + 1).
    let offsets: UnsafeMutablePointer<Int>
    /// Per column: a ``ColumnKind`` raw value.
    let kinds: UnsafeMutablePointer<UInt8>

    /// How a column's values are written.
    enum ColumnKind: UInt8 {
        case plain = 0
        /// In ``JSONWriterOptions/rawJSONColumns``.
        case rawJSON = 1
        /// In ``JSONWriterOptions/booleanColumns``.
        case boolean = 2
    }

    init(columns: [String], options: JSONWriterOptions) {
        names = columns
        format = options.format
        pretty = options.prettyPrinted && options.format != .ndjson
        escapeLineSeparators = options.escapeLineSeparators
        rawJSONColumns = options.rawJSONColumns
        booleanColumns = options.booleanColumns
        var bytes: [UInt8] = []
        var starts: [Int] = []
        starts.reserveCapacity(columns.count + 1)
        for (i, name) in columns.enumerated() {
            starts.append(bytes.count)
            switch format {
            case .arrayOfObjects, .ndjson:
                if i > 0 { bytes.append(UInt8(ascii: ",")) }
                if pretty { bytes.append(contentsOf: "\n    ".utf8) }
                appendJSONQuoted(name, to: &bytes, escapeLineSeparators: escapeLineSeparators)
                bytes.append(UInt8(ascii: ":"))
                if pretty { bytes.append(UInt8(ascii: " ")) }
            case .arrayOfArrays:
                if i > 0 { bytes.append(UInt8(ascii: ",")) }
                if i > 0 && pretty { bytes.append(UInt8(ascii: " ")) }
            }
        }
        starts.append(bytes.count)
        prefixes = .allocate(capacity: bytes.count + 16)
        prefixes.initialize(from: bytes, count: bytes.count)
        (prefixes + bytes.count).initialize(repeating: 0, count: 16)
        offsets = .allocate(capacity: starts.count)
        offsets.initialize(from: starts, count: starts.count)
        kinds = .allocate(capacity: max(columns.count, 1))
        for (i, name) in columns.enumerated() {
            let kind: ColumnKind = rawJSONColumns.contains(name) ? .rawJSON : booleanColumns.contains(name) ? .boolean : .plain
            (kinds + i).initialize(to: kind.rawValue)
        }
    }

    /// True when `options` produce these prefixes (the column names are the statement's own).
    @inline(__always)
    func matches(_ options: JSONWriterOptions) -> Bool {
        options.format == format && (options.prettyPrinted && options.format != .ndjson) == pretty
            && options.escapeLineSeparators == escapeLineSeparators
            && (options.rawJSONColumns.isEmpty ? rawJSONColumns.isEmpty : options.rawJSONColumns == rawJSONColumns)
            && (options.booleanColumns.isEmpty ? booleanColumns.isEmpty : options.booleanColumns == booleanColumns)
    }

    deinit {
        prefixes.deallocate()
        offsets.deallocate()
        kinds.deallocate()
    }
}

/// Owns the memory of a writer's output buffer (and the parser checking raw JSON).
///
/// `writeJSON` lends one to each writer and keeps it with the connection afterwards
/// (`ConnectionState.spareOutputStorage`), so a call does not allocate a new 64 KiB buffer.
final class JSONWriterStorage {
    let buffer: OutputBuffer
    var capacity: Int { buffer.capacity }
    init(capacity: Int) {
        buffer = OutputBuffer(capacity: capacity)
    }

    /// The parser validating raw JSON columns (created on first use).
    private var validator: OpaquePointer?

    private static let ignoreEvents: sq_json_callback = { _, _ in SQ_JSON_CONTINUE }

    /// Checks that `utf8` is one JSON value before it is embedded in the output.
    ///
    /// Returns nil when it is, or the repaired bytes when its only defect is the
    /// `Inf`/`-Inf` SQLite 3.40's JSON functions write for infinite REALs
    /// (`json_object('n', 9e999)` is `{"n":Inf}`): those become `null`, as an infinite
    /// REAL column does. Anything else throws ``JSONWriterError/invalidRawJSON(row:column:byteOffset:message:)``.
    func checkJSON(_ utf8: UnsafeBufferPointer<UInt8>, row: Int, column: String) throws -> [UInt8]? {
        if let failure = parseFailure(utf8) {
            if let repaired = Self.nullingNonFiniteNumbers(utf8), repaired.withUnsafeBufferPointer({ parseFailure($0) }) == nil {
                return repaired
            }
            throw JSONWriterError.invalidRawJSON(row: row, column: column, byteOffset: failure.offset, message: failure.message)
        }
        return nil
    }

    /// Where and why `utf8` is not one JSON value; nil when it is.
    private func parseFailure(_ utf8: UnsafeBufferPointer<UInt8>) -> (offset: Int, message: String)? {
        if validator == nil { validator = sq_json_new(JSONWriterStorage.ignoreEvents, nil) }
        guard let p = validator else { return (0, "out of memory") }
        sq_json_reset(p)
        guard sq_json_feed(p, utf8.baseAddress, utf8.count) == SQ_JSON_ERROR || sq_json_finish(p) == SQ_JSON_ERROR else { return nil }
        let info = sq_json_error_info(p)!.pointee
        let message = withUnsafeBytes(of: info.message) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        return (Int(info.offset), message)
    }

    /// `utf8` with `Inf` and `-Inf` outside strings replaced by `null`; nil when there are none.
    static func nullingNonFiniteNumbers(_ utf8: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        var out: [UInt8] = []
        var inString = false, escaped = false, found = false
        var i = 0
        let n = utf8.count
        while i < n {
            let c = utf8[i]
            if inString {
                if escaped { escaped = false } else if c == UInt8(ascii: "\\") { escaped = true } else if c == UInt8(ascii: "\"") { inString = false }
            } else if c == UInt8(ascii: "\"") {
                inString = true
            } else {
                let negative = c == UInt8(ascii: "-")
                let start = negative ? i + 1 : i
                if start + 3 <= n, utf8[start] == UInt8(ascii: "I"), utf8[start + 1] == UInt8(ascii: "n"), utf8[start + 2] == UInt8(ascii: "f") {
                    if !found { out.reserveCapacity(n + 8); out.append(contentsOf: utf8[0..<i]); found = true }
                    out.append(contentsOf: "null".utf8)
                    i = start + 3
                    continue
                }
            }
            if found { out.append(c) }
            i += 1
        }
        return found ? out : nil
    }

    deinit {
        if let validator { sq_json_free(validator) }
        buffer.deallocate()
    }
}

/// A ``RowSink`` writing a result set as JSON bytes into a ``ByteSink``.
///
/// No per-row dictionaries, `Encodable` or `JSONSerialization`: each value is
/// escaped or formatted straight into a 64 KiB output buffer that is handed
/// to the sink when full and at the end of the result. Column names are
/// escaped once per statement, in ``beginResult(columns:)``.
///
/// Value mapping: INTEGER → number (exact), REAL → number (shortest
/// round-trip; NaN/±Inf → `null`), TEXT → string (escaped; see
/// ``InvalidUTF8Policy``), TEXT with SQLite's JSON subtype or in
/// ``JSONWriterOptions/rawJSONColumns`` → embedded JSON, BLOB → base64
/// string, NULL → `null`. See ``JSONWriterOptions`` for the number rules.
///
/// Most code uses ``Database/writeJSON(_:_:to:options:)`` instead. Used
/// directly, pass it to the statement's stepping loop and take the sink back:
///
/// ```swift
/// var writer = JSONRowWriter(sink: [UInt8](), options: .init(format: .ndjson))
/// try db.stream("SELECT id, title FROM tasks", into: &writer)
/// let bytes = writer.sink as! [UInt8]
/// ```
///
/// The writer is not generic over its sink on purpose: it is compiled once,
/// fully optimized, in the library, and the sink (called once per chunk) is
/// reached through the existential. A writer is used in place (`inout`);
/// copies share one output buffer. One writer writes one result set (a JSON
/// document); in NDJSON format it may be fed several, which simply add lines.
public struct JSONRowWriter: RowSink {
    /// The sink the bytes go to. It has received the whole document once ``endResult()`` returned.
    public var sink: any ByteSink
    /// The writer's options.
    public let options: JSONWriterOptions
    /// Rows written so far in the current result.
    public private(set) var rowCount = 0

    private let storage: JSONWriterStorage
    private var output: OutputBuffer
    /// The current result's prefixes (kept alive here; raw views below, no ARC in the value paths).
    private var layout: JSONColumnLayout?
    private var prefixBytes: UnsafeMutablePointer<UInt8>?
    /// Start offsets of the pre-encoded prefix of each column in `prefixBytes`, plus the end.
    private var prefixOffsets: UnsafeMutablePointer<Int>?
    /// Per column: ``ColumnKind`` raw values.
    private var columnKinds: UnsafeMutablePointer<UInt8>?
    private var columnCount = 0
    private let pretty: Bool
    /// The statement whose ``JSONColumnLayout`` slot this writer uses and fills (`writeJSON`).
    private var statement: Statement?

    /// Creates a writer sending its output to `sink`.
    public init(sink: some ByteSink, options: JSONWriterOptions = JSONWriterOptions()) {
        // Room for the largest single unit written without a capacity check (a number, an escape).
        self.init(sink: sink, options: options, storage: JSONWriterStorage(capacity: Self.capacity(options)), statement: nil)
    }

    /// A writer on a lent buffer (`storage.capacity` must be ``capacity(_:)``), keeping its
    /// column prefixes in `statement`'s slot when it has one.
    init(sink: some ByteSink, options: JSONWriterOptions, storage: JSONWriterStorage, statement: Statement?) {
        self.sink = sink
        self.options = options
        self.storage = storage
        self.output = storage.buffer
        self.pretty = options.prettyPrinted && options.format != .ndjson
        self.statement = statement
    }

    /// The buffer size a writer with `options` uses.
    static func capacity(_ options: JSONWriterOptions) -> Int { max(options.chunkSize, 64) }


    // MARK: RowSink

    /// Escapes the column names once (or takes them from the statement, see
    /// ``Database/writeJSON(_:_:to:options:)``) and writes the document opening (`[` unless NDJSON).
    public mutating func beginResult(columns: [String]) throws {
        rowCount = 0
        let layout: JSONColumnLayout
        if let cached = statement?.outputLayout as? JSONColumnLayout ?? self.layout, cached.matches(options),
           cached.names.count == columns.count, statement != nil || cached.names == columns {
            // A statement's slot is dropped when SQLite re-prepares it (Statement.refreshIfReprepared),
            // so its names are the statement's current ones; a writer fed by hand compares them.
            layout = cached
        } else {
            layout = JSONColumnLayout(columns: columns, options: options)
            statement?.outputLayout = layout
        }
        self.layout = layout
        prefixBytes = layout.prefixes
        prefixOffsets = layout.offsets
        columnKinds = layout.kinds
        columnCount = columns.count
        if options.format != .ndjson { try put(UInt8(ascii: "[")) }
    }

    private var columnNames: [String] { layout?.names ?? [] }

    /// Writes the row separator and opening bracket.
    public mutating func beginRow() throws {
        try reserve(8)
        if options.format != .ndjson {
            if rowCount > 0 { append(UInt8(ascii: ",")) }
            if pretty { append(UInt8(ascii: "\n")); append(UInt8(ascii: " ")); append(UInt8(ascii: " ")) }
        }
        append(options.format == .arrayOfArrays ? UInt8(ascii: "[") : UInt8(ascii: "{"))
    }

    /// Closes the row (and ends the line in NDJSON).
    public mutating func endRow() throws {
        try reserve(8)
        switch options.format {
        case .arrayOfObjects:
            if pretty && columnCount > 0 {
                append(UInt8(ascii: "\n")); append(UInt8(ascii: " ")); append(UInt8(ascii: " "))
            }
            append(UInt8(ascii: "}"))
        case .ndjson:
            append(UInt8(ascii: "}")); append(UInt8(ascii: "\n"))
        case .arrayOfArrays:
            append(UInt8(ascii: "]"))
        }
        rowCount += 1
    }

    /// Closes the document and hands every remaining byte to the sink, then flushes it.
    public mutating func endResult() throws {
        if options.format != .ndjson {
            try reserve(2)
            if pretty && rowCount > 0 { append(UInt8(ascii: "\n")) }
            append(UInt8(ascii: "]"))
        }
        try flushBuffer()
        try sink.flush()
    }

    /// Writes `null`.
    public mutating func null(column: Int) throws {
        try prefix(column)
        try reserve(4)
        appendNull()
    }

    /// Writes the integer exactly.
    public mutating func integer(_ value: Int64, column: Int) throws {
        try prefix(column)
        try reserve(24)
        if _slowPath(columnKinds.unsafelyUnwrapped[column] == JSONColumnLayout.ColumnKind.boolean.rawValue) {
            guard value == 0 || value == 1 else { throw notBoolean(column, String(value)) }
            output.append(value == 1 ? "true" : "false")
            return
        }
        output.count += writeDecimal(value, to: output.end)
    }

    /// The error for a value that is not a boolean in a boolean column.
    private func notBoolean(_ column: Int, _ value: String) -> JSONWriterError {
        .notBoolean(row: rowCount, column: column < columnNames.count ? columnNames[column] : "#\(column)",
                    value: value.count > 50 ? String(value.prefix(50)) + "…" : value)
    }

    /// Throws unless `column` may hold values other than booleans.
    @inline(__always)
    private func checkNotBoolean(_ column: Int, _ value: @autoclosure () -> String) throws {
        if _slowPath(columnKinds.unsafelyUnwrapped[column] == JSONColumnLayout.ColumnKind.boolean.rawValue) {
            throw notBoolean(column, value())
        }
    }

    /// Writes the shortest round-trip form, or `null` for NaN and ±Infinity.
    public mutating func double(_ value: Double, column: Int) throws {
        try prefix(column)
        try checkNotBoolean(column, "the REAL \(value)")
        try reserve(40)
        guard value.isFinite else { appendNull(); return }
        output.count += writeShortestDouble(value, to: output.end)
    }

    /// Writes an escaped JSON string (or the value itself in a raw JSON column).
    public mutating func text(_ utf8: UnsafeBufferPointer<UInt8>, column: Int) throws {
        try prefix(column)
        let kind = columnKinds.unsafelyUnwrapped[column]
        if _fastPath(kind == JSONColumnLayout.ColumnKind.plain.rawValue) {
            try writeEscaped(utf8, column: column)
        } else if kind == JSONColumnLayout.ColumnKind.rawJSON.rawValue {
            try writeCheckedJSON(utf8, column: column)
        } else {
            throw notBoolean(column, "the TEXT '\(String(decoding: utf8, as: UTF8.self))'")
        }
    }

    /// Embeds a value that already is JSON (SQLite's JSON subtype), checked first.
    ///
    /// The output stays valid JSON whatever the value: SQLite 3.40 writes an infinite
    /// REAL inside JSON as `Inf` (`json_object('n', 9e999)`), which is written as `null`
    /// here (as an infinite REAL column is); an empty value is `null`, as in a raw column;
    /// any other invalid value throws ``JSONWriterError/invalidRawJSON(row:column:byteOffset:message:)``.
    public mutating func json(_ utf8: UnsafeBufferPointer<UInt8>, column: Int) throws {
        try prefix(column)
        try checkNotBoolean(column, "the JSON '\(String(decoding: utf8, as: UTF8.self))'")
        try writeCheckedJSON(utf8, column: column)
    }

    /// Writes `utf8` after ``JSONWriterStorage/checkJSON(_:row:column:)``.
    private mutating func writeCheckedJSON(_ utf8: UnsafeBufferPointer<UInt8>, column: Int) throws {
        guard utf8.count > 0 else { return try writeRaw(utf8) }  // documented: an empty value is `null`
        if utf8.count <= 5, isJSONLiteral(utf8) { return try writeRaw(utf8) }  // json('true'), …: nothing to check
        let name = column < columnNames.count ? columnNames[column] : "#\(column)"
        if let repaired = try storage.checkJSON(utf8, row: rowCount, column: name) {
            try repaired.withUnsafeBufferPointer { try writeRaw($0) }
        } else {
            try writeRaw(utf8)
        }
    }

    /// True when `utf8` is exactly `true`, `false` or `null`.
    @inline(__always)
    private func isJSONLiteral(_ utf8: UnsafeBufferPointer<UInt8>) -> Bool {
        let word: StaticString
        switch utf8.count {
        case 4: word = utf8[0] == UInt8(ascii: "t") ? "true" : "null"
        case 5: word = "false"
        default: return false
        }
        let w = word.utf8Start
        for i in 0..<utf8.count where utf8[i] != w[i] { return false }
        return true
    }

    /// Writes the bytes as a base64 string.
    public mutating func blob(_ bytes: UnsafeRawBufferPointer, column: Int) throws {
        try prefix(column)
        try checkNotBoolean(column, "a BLOB of \(bytes.count) bytes")
        try writeBase64(bytes)
    }

    // MARK: Output buffer

    @inline(__always)
    private mutating func append(_ byte: UInt8) {
        output.append(byte)
    }

    @inline(__always)
    private mutating func appendNull() {
        output.append("null")
    }

    /// Makes room for `n` more bytes (n ≤ capacity) by handing the buffer to the sink.
    @inline(__always)
    private mutating func reserve(_ n: Int) throws {
        try output.reserve(n, flushingTo: &sink)
    }

    private mutating func flushBuffer() throws {
        try output.flush(to: &sink)
    }

    @inline(__always)
    private mutating func put(_ byte: UInt8) throws {
        try reserve(1)
        append(byte)
    }

    /// Copies any number of bytes, flushing as often as needed.
    private mutating func putBytes(_ start: UnsafePointer<UInt8>, _ n: Int) throws {
        try output.put(start, count: n, flushingTo: &sink)
    }

    @inline(__always)
    private mutating func prefix(_ column: Int) throws {
        precondition(column >= 0 && column < columnCount, "JSONRowWriter: column \(column) out of range")
        let offsets = prefixOffsets.unsafelyUnwrapped
        let start = offsets[column]
        let n = offsets[column + 1] - start
        if n == 0 { return }
        let source = prefixBytes.unsafelyUnwrapped + start
        if n <= 16 && output.room >= 16 {
            // Two word copies (the prefix table is padded, the buffer has the room); the bytes
            // past `n` are overwritten by what follows.
            copy16(output.end, source)
            output.count += n
        } else if n <= output.room {
            output.append(source, count: n)
        } else {
            try putBytes(source, n)
        }
    }

    private mutating func writeRaw(_ utf8: UnsafeBufferPointer<UInt8>) throws {
        guard let base = utf8.baseAddress, utf8.count > 0 else {
            try reserve(4)
            appendNull()
            return
        }
        try putBytes(base, utf8.count)
    }

    // MARK: Strings

    /// Writes `utf8` as a quoted JSON string: escapes `"`, `\` and control
    /// characters (short forms `\b \f \n \r \t`, otherwise `\u00XX`), optionally
    /// U+2028/U+2029, and validates UTF-8 per Unicode's well-formedness table.
    private mutating func writeEscaped(_ utf8: UnsafeBufferPointer<UInt8>, column: Int) throws {
        try put(UInt8(ascii: "\""))
        let n = utf8.count
        if let p = utf8.baseAddress {
            var i = 0
            while i < n {
                if output.room < 16 { try flushBuffer() }
                let progress = jsonEscape(p, n, &i, into: output.end, room: output.room, escapeSlash: false,
                                          escapeLineSeparators: options.escapeLineSeparators,
                                          rejectInvalidUTF8: options.invalidUTF8 == .reject)
                output.count += progress.written
                if let bad = progress.invalidAt {
                    throw JSONWriterError.invalidUTF8(
                        row: rowCount, column: column < columnNames.count ? columnNames[column] : "#\(column)",
                        byteOffset: bad)
                }
            }
        }
        try put(UInt8(ascii: "\""))
    }

    // MARK: Base64

    private mutating func writeBase64(_ bytes: UnsafeRawBufferPointer) throws {
        try put(UInt8(ascii: "\""))
        let table = base64Alphabet.utf8Start
        let n = bytes.count
        if let raw = bytes.baseAddress {
            let p = raw.assumingMemoryBound(to: UInt8.self)
            var i = 0
            while i + 3 <= n {
                if output.room < 4 { try flushBuffer() }
                // As many whole groups as fit in the buffer.
                let groups = min((n - i) / 3, output.room / 4)
                let out = output.end
                for g in 0..<groups {
                    let s = i + 3 * g
                    let v = UInt32(p[s]) << 16 | UInt32(p[s + 1]) << 8 | UInt32(p[s + 2])
                    out[4 * g] = table[Int(v >> 18)]
                    out[4 * g + 1] = table[Int((v >> 12) & 63)]
                    out[4 * g + 2] = table[Int((v >> 6) & 63)]
                    out[4 * g + 3] = table[Int(v & 63)]
                }
                output.count += 4 * groups
                i += 3 * groups
            }
            let rest = n - i
            if rest > 0 {
                try reserve(4)
                let v = UInt32(p[i]) << 16 | (rest == 2 ? UInt32(p[i + 1]) << 8 : 0)
                append(table[Int(v >> 18)])
                append(table[Int((v >> 12) & 63)])
                append(rest == 2 ? table[Int((v >> 6) & 63)] : UInt8(ascii: "="))
                append(UInt8(ascii: "="))
            }
        }
        try put(UInt8(ascii: "\""))
    }
}

extension JSONRowWriter: FormatRowWriter {
    /// A writer on the connection's spare buffer (a new one when another writer has it, or
    /// its size differs), keeping its column prefixes in `statement`'s slot: per call,
    /// nothing of its own is allocated.
    static func make<Target: ByteSink>(sink: SinkReference<Target>, options: JSONWriterOptions,
                                       statement: Statement) -> JSONRowWriter {
        let capacity = capacity(options)
        var storage = statement.connection.spareOutputStorage as? JSONWriterStorage
        if let spare = storage, spare.capacity == capacity {
            statement.connection.spareOutputStorage = nil
        } else {
            storage = JSONWriterStorage(capacity: capacity)
        }
        return JSONRowWriter(sink: sink, options: options, storage: storage.unsafelyUnwrapped, statement: statement)
    }

    /// The buffer goes back to the connection for the next call.
    func giveBack(to statement: Statement) { statement.connection.spareOutputStorage = storage }
}
