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
    /// the sink may already have received part of the document. While the
    /// statement steps, the connection's mutex is held (as every SQLite call
    /// on it does): the sink must not wait for another thread that uses the
    /// same connection. The statement comes from the connection's statement cache, and
    /// keeps its escaped column names for the next call (until SQLite re-prepares it after a
    /// schema change); the output buffer is the connection's. A point query written as JSON
    /// therefore costs little more than stepping it. For async code (a server streaming to
    /// the network) see ``DatabaseReader/writeJSON(_:_:options:chunksAhead:stallTimeout:to:)``.
    ///
    /// An HTTP handler serving `/tasks` straight from SQLite:
    ///
    /// ```swift
    /// struct ResponseBody: ByteSink {
    ///     let response: ResponseWriter
    ///     func write(_ chunk: UnsafeRawBufferPointer) throws { try response.writeBody(chunk) }
    /// }
    ///
    /// func handleTasks(_ request: Request, _ response: ResponseWriter) throws {
    ///     var body = ResponseBody(response: response)
    ///     response.setHeader("Content-Type", "application/json")
    ///     try db.writeJSON("""
    ///         SELECT id, title, done, json(tags) AS tags
    ///         FROM tasks WHERE owner = ? ORDER BY id
    ///         """, request.user, to: &body)
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - sql: One SQL statement.
    ///   - arguments: Values bound to its `?` parameters in order.
    ///   - sink: Receives the bytes; a `[UInt8]`, ``FileDescriptorSink`` or your own
    ///     ``ByteSink``.
    ///   - options: The output format and rules.
    /// - Returns: The number of rows written.
    ///
    /// - Throws: ``DatabaseError`` (the SQL, a binding), ``JSONWriterError`` (a value JSON cannot
    ///   hold, as a non-finite REAL), or what `sink` threw; the bytes before it were written.
    @discardableResult
    public func writeJSON<Sink: ByteSink, each A: DatabaseValueConvertible>(
        _ sql: String, _ arguments: repeat each A, to sink: inout Sink,
        options: JSONWriterOptions = JSONWriterOptions()
    ) throws -> Int {
        let statement = try cachedStatement(sql)
        try statement.bind(repeat each arguments)
        return try writeJSON(statement, to: &sink, options: options)
    }

    /// Streams the rows of `sql` as JSON into `sink`, with positional or named
    /// arguments; see ``writeJSON(_:_:to:options:)``.
    @discardableResult
    public func writeJSON<Sink: ByteSink>(
        _ sql: String, arguments: StatementArguments, to sink: inout Sink,
        options: JSONWriterOptions = JSONWriterOptions()
    ) throws -> Int {
        let statement = try cachedStatement(sql)
        try statement.bind(arguments: arguments)
        return try writeJSON(statement, to: &sink, options: options)
    }

    /// Returns the rows of `sql` as JSON bytes; see ``writeJSON(_:_:to:options:)``.
    public func jsonBytes<each A: DatabaseValueConvertible>(
        _ sql: String, _ arguments: repeat each A, options: JSONWriterOptions = JSONWriterOptions()
    ) throws -> [UInt8] {
        var out: [UInt8] = []
        try writeJSON(sql, repeat each arguments, to: &out, options: options)
        return out
    }

    /// Returns the rows of `sql` as a JSON string; see ``writeJSON(_:_:to:options:)``.
    public func jsonString<each A: DatabaseValueConvertible>(
        _ sql: String, _ arguments: repeat each A, options: JSONWriterOptions = JSONWriterOptions()
    ) throws -> String {
        String(decoding: try jsonBytes(sql, repeat each arguments, options: options), as: UTF8.self)
    }

    /// Writes the rows of an already bound statement; resets it afterwards.
    func writeJSON<Sink: ByteSink>(_ statement: Statement, to sink: inout Sink, options: JSONWriterOptions) throws -> Int {
        try writeRows(statement, as: JSONRowWriter.self, to: &sink, options: options)
    }

    func jsonStreamRows<S: RowSink>(_ sql: String, into sink: inout S) throws {
        let statement = try cachedStatement(sql)
        try statement.bind()
        try statement.stream(into: &sink)
    }
}

/// SQLite's JSON subtype, `'J'`: set by `json()`, `json_object()`… on their results.
@usableFromInline let sqliteJSONSubtype: UInt32 = 74

/// SQLite's SQLITE_TRANSIENT destructor: SQLite copies the bound bytes.
@usableFromInline
let streamTransientDestructor = unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)
