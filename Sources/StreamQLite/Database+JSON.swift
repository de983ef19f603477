import CStreamQLite

extension Database {
    /// Streams the rows of `sql` as JSON into `sink`, without building rows,
    /// dictionaries or strings per value.
    ///
    /// The document shape, pretty printing, the UTF-8 policy and columns to
    /// embed as raw JSON come from `options` (see ``JSONWriterOptions`` for
    /// the value and number rules). The sink receives the output in chunks
    /// of ``JSONWriterOptions/chunkSize`` bytes while the statement steps,
    /// and the rest when it is done; then its `flush()` is called. On error
    /// the sink may already have received part of the document.
    ///
    /// An HTTP handler serving `/tasks` straight from SQLite:
    ///
    /// ```swift
    /// func handleTasks(_ request: Request, _ response: ResponseWriter) throws {
    ///     var body = ClosureSink { chunk in try response.writeBody(chunk) }
    ///     response.setHeader("Content-Type", "application/json")
    ///     try db.writeJSON("""
    ///         SELECT id, title, done, json(tags) AS tags
    ///         FROM tasks WHERE owner = ? ORDER BY id
    ///         """, [request.user], to: &body)
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - sql: One SQL statement.
    ///   - arguments: Values bound to its parameters in order: `nil`, `Int`,
    ///     `Int64`, `Int32`, `Double`, `Bool`, `String`, `[UInt8]`.
    ///   - sink: Receives the bytes; a `[UInt8]`, ``FileDescriptorSink``,
    ///     ``ClosureSink`` or your own ``ByteSink``.
    ///   - options: The output format and rules.
    /// - Returns: The number of rows written.
    @discardableResult
    public func writeJSON<Sink: ByteSink>(
        _ sql: String, _ arguments: [JSONQueryArgument?] = [], to sink: inout Sink,
        options: JSONWriterOptions = JSONWriterOptions()
    ) throws -> Int {
        var writer = JSONRowWriter(sink: sink, options: options)
        defer { sink = writer.sink as! Sink }
        try jsonStreamRows(sql, arguments, into: &writer)
        return writer.rowCount
    }

    /// Returns the rows of `sql` as JSON bytes; see ``writeJSON(_:_:to:options:)``.
    public func jsonBytes(
        _ sql: String, _ arguments: [JSONQueryArgument?] = [], options: JSONWriterOptions = JSONWriterOptions()
    ) throws -> [UInt8] {
        var out: [UInt8] = []
        try writeJSON(sql, arguments, to: &out, options: options)
        return out
    }

    /// Returns the rows of `sql` as a JSON string; see ``writeJSON(_:_:to:options:)``.
    public func jsonString(
        _ sql: String, _ arguments: [JSONQueryArgument?] = [], options: JSONWriterOptions = JSONWriterOptions()
    ) throws -> String {
        String(decoding: try jsonBytes(sql, arguments, options: options), as: UTF8.self)
    }

    /// Prepares `sql`, binds `arguments` and feeds every row to `sink`.
    func jsonStreamRows<S: RowSink>(_ sql: String, _ arguments: [JSONQueryArgument?], into sink: inout S) throws {
        var stmt: OpaquePointer?
        guard sqlite3_prepare_v2(handle, sql, -1, &stmt, nil) == SQLITE_OK, let stmt else {
            throw DatabaseError(code: sqlite3_errcode(handle), message: String(cString: sqlite3_errmsg(handle)))
        }
        defer { sqlite3_finalize(stmt) }
        let expected = Int(sqlite3_bind_parameter_count(stmt))
        guard expected == arguments.count else {
            throw DatabaseError(code: SQLITE_RANGE,
                                message: "writeJSON: the statement has \(expected) parameters, \(arguments.count) arguments given")
        }
        for (i, argument) in arguments.enumerated() {
            let rc = (argument ?? .null).bind(to: stmt, index: Int32(i + 1))
            guard rc == SQLITE_OK else {
                throw DatabaseError(code: rc, message: String(cString: sqlite3_errmsg(handle)))
            }
        }
        try sqFeedRows(of: stmt, into: &sink)
    }

    /// The stepping loop: reads each column with `sqlite3_column_*` and hands it to `sink`.
    func sqFeedRows<S: RowSink>(of stmt: OpaquePointer, into sink: inout S) throws {
        let n = Int(sqlite3_column_count(stmt))
        var names: [String] = []
        names.reserveCapacity(n)
        for i in 0..<n { names.append(sqlite3_column_name(stmt, Int32(i)).map { String(cString: $0) } ?? "") }
        try sink.beginResult(columns: names)
        while true {
            let rc = sqlite3_step(stmt)
            if rc == SQLITE_DONE { break }
            guard rc == SQLITE_ROW else {
                throw DatabaseError(code: rc, message: String(cString: sqlite3_errmsg(handle)))
            }
            try sink.beginRow()
            for i in 0..<n {
                // One sqlite3_column_value per column (one mutex round trip), then the
                // sqlite3_value_* accessors, which take no lock. The value is only used
                // on this thread, before the next step.
                let v = sqlite3_column_value(stmt, Int32(i))
                switch sqlite3_value_type(v) {
                case SQLITE_INTEGER:
                    try sink.integer(sqlite3_value_int64(v), column: i)
                case SQLITE_FLOAT:
                    try sink.double(sqlite3_value_double(v), column: i)
                case SQLITE_TEXT:
                    let p = sqlite3_value_text(v)
                    let len = Int(sqlite3_value_bytes(v))
                    let buf = UnsafeBufferPointer(start: p, count: p == nil ? 0 : len)
                    if sqlite3_value_subtype(v) == 74 {  // 'J': SQLite's JSON subtype
                        try sink.json(buf, column: i)
                    } else {
                        try sink.text(buf, column: i)
                    }
                case SQLITE_BLOB:
                    let p = sqlite3_value_blob(v)
                    let len = Int(sqlite3_value_bytes(v))
                    try sink.blob(UnsafeRawBufferPointer(start: p, count: p == nil ? 0 : len), column: i)
                default:
                    try sink.null(column: i)
                }
            }
            try sink.endRow()
        }
        try sink.endResult()
    }
}

/// A value bound to a statement parameter by ``Database/writeJSON(_:_:to:options:)``.
public enum JSONQueryArgument: Sendable, Equatable {
    case null
    case integer(Int64)
    case double(Double)
    case text(String)
    case blob([UInt8])

    func bind(to stmt: OpaquePointer, index: Int32) -> Int32 {
        switch self {
        case .null: return sqlite3_bind_null(stmt, index)
        case .integer(let v): return sqlite3_bind_int64(stmt, index, v)
        case .double(let v): return sqlite3_bind_double(stmt, index, v)
        case .text(let s): return sqlite3_bind_text(stmt, index, s, -1, streamTransientDestructor)
        case .blob(let b):
            return b.withUnsafeBytes { sqlite3_bind_blob64(stmt, index, $0.baseAddress, sqlite3_uint64($0.count), streamTransientDestructor) }
        }
    }
}

extension JSONQueryArgument: ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral, ExpressibleByStringLiteral,
    ExpressibleByBooleanLiteral
{
    public init(integerLiteral value: Int64) { self = .integer(value) }
    public init(floatLiteral value: Double) { self = .double(value) }
    public init(stringLiteral value: String) { self = .text(value) }
    public init(booleanLiteral value: Bool) { self = .integer(value ? 1 : 0) }
}

/// SQLite's SQLITE_TRANSIENT destructor: SQLite copies the bound bytes.
@usableFromInline
let streamTransientDestructor = unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)
