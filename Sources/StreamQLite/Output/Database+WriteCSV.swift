extension Database {
    /// Streams the rows of `sql` as RFC 4180 CSV into `sink`, without building
    /// rows or strings per value.
    ///
    /// A header with the column names, then one record per row; fields are quoted
    /// only when they need it. Delimiter, NULL text, line ending, header and a
    /// byte order mark for spreadsheet programs come from `options` (see
    /// ``CSVWriterOptions`` for the value forms). The sink receives the output in
    /// chunks while the statement steps, then its `flush()` is called; on error it
    /// may already hold part of the output. The rows come from the one stepping
    /// loop (``Statement/stream(into:)``), as for ``writeJSON(_:_:to:options:)``.
    ///
    /// ```swift
    /// var out = try FileDescriptorSink(path: "tasks.csv")
    /// try db.writeCSV("SELECT id, title, done FROM tasks WHERE owner = ?", "alice",
    ///                 to: &out, options: .init(byteOrderMark: true))
    /// try out.close()
    /// ```
    ///
    /// - Returns: The number of rows written (the header not counted).
    ///
    /// - Parameters:
    ///   - sql: One SQL statement.
    ///   - arguments: Values bound to its `?` parameters, in order.
    ///   - sink: Receives the bytes (a `[UInt8]`, ``FileDescriptorSink`` or your own ``ByteSink``).
    ///   - options: Delimiter, header, line ends, byte-order mark.
    /// - Throws: ``DatabaseError`` (the SQL, a binding) or what `sink` threw.
    @discardableResult
    public func writeCSV<Sink: ByteSink, each A: DatabaseValueConvertible>(
        _ sql: String, _ arguments: repeat each A, to sink: inout Sink,
        options: CSVWriterOptions = CSVWriterOptions()
    ) throws -> Int {
        let statement = try cachedStatement(sql)
        try statement.bind(repeat each arguments)
        return try writeCSV(statement, to: &sink, options: options)
    }

    /// Streams the rows of `sql` as CSV with positional or named arguments;
    /// see ``writeCSV(_:_:to:options:)``.
    @discardableResult
    public func writeCSV<Sink: ByteSink>(
        _ sql: String, arguments: StatementArguments, to sink: inout Sink,
        options: CSVWriterOptions = CSVWriterOptions()
    ) throws -> Int {
        let statement = try cachedStatement(sql)
        try statement.bind(arguments: arguments)
        return try writeCSV(statement, to: &sink, options: options)
    }

    /// Returns the rows of `sql` as CSV bytes; see ``writeCSV(_:_:to:options:)``.
    public func csvBytes<each A: DatabaseValueConvertible>(
        _ sql: String, _ arguments: repeat each A, options: CSVWriterOptions = CSVWriterOptions()
    ) throws -> [UInt8] {
        var out: [UInt8] = []
        try writeCSV(sql, repeat each arguments, to: &out, options: options)
        return out
    }

    /// Returns the rows of `sql` as a CSV string; see ``writeCSV(_:_:to:options:)``.
    public func csvString<each A: DatabaseValueConvertible>(
        _ sql: String, _ arguments: repeat each A, options: CSVWriterOptions = CSVWriterOptions()
    ) throws -> String {
        String(decoding: try csvBytes(sql, repeat each arguments, options: options), as: UTF8.self)
    }

    /// Writes the rows of an already bound statement; resets it afterwards.
    func writeCSV<Sink: ByteSink>(_ statement: Statement, to sink: inout Sink, options: CSVWriterOptions) throws -> Int {
        try writeRows(statement, as: CSVRowWriter.self, to: &sink, options: options)
    }
}
