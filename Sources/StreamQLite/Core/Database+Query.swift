import CStreamQLite

extension Database {
    /// The cached statement for `sql` with `arguments` bound: what every query entry point starts with.
    @inlinable @inline(__always)
    func cachedStatement<each A: DatabaseValueConvertible>(_ sql: String, binding arguments: repeat each A) throws -> Statement {
        let statement = try cachedStatement(sql)
        try statement.bindFresh(repeat each arguments)  // cachedStatement resets and clears
        return statement
    }

    /// Streams the rows of `sql` decoded by hand (``RowDecodable``).
    ///
    /// ```swift
    /// struct Title: RowDecodable { var title: String; init(row: Row) throws { title = try row["title"] } }
    /// let titles = try db.rows(Title.self, "SELECT title FROM tasks").collect()
    /// ```
    ///
    /// - Parameters:
    ///   - type: The ``RowDecodable`` type of a row.
    ///   - sql: One SQL statement.
    ///   - arguments: Values bound to its `?` parameters, in order.
    /// - Returns: A cursor stepping the statement as ``Cursor/next()`` is called.
    /// - Throws: ``DatabaseError`` when the SQL does not prepare or an argument cannot be bound.
    public func rows<T: RowDecodable, each A: DatabaseValueConvertible>(
        _ type: T.Type, _ sql: String, _ arguments: repeat each A
    ) throws -> RowDecodableCursor<T> {
        let statement = try cachedStatement(sql, binding: repeat each arguments)
        return RowDecodableCursor(statement: statement)
    }

    /// Streams the rows of `sql` decoded by hand; preferred when a type is both ``RowDecodable`` and `Decodable`.
    public func rows<T: RowDecodable & Decodable, each A: DatabaseValueConvertible>(
        _ type: T.Type, _ sql: String, _ arguments: repeat each A
    ) throws -> RowDecodableCursor<T> {
        let statement = try cachedStatement(sql, binding: repeat each arguments)
        return RowDecodableCursor(statement: statement)
    }

    /// Streams the rows of `sql` as ``Row`` views.
    ///
    /// ```swift
    /// let rows = try db.rows("SELECT id, title FROM tasks WHERE done = ?", false)
    /// while let row = try rows.next() { print(row[0] as Int, row["title"] as String) }
    /// ```
    ///
    /// - Parameters:
    ///   - sql: One SQL statement.
    ///   - arguments: Values bound to its `?` parameters, in order.
    /// - Returns: A cursor whose ``Row`` is valid until the next step.
    /// - Throws: ``DatabaseError`` when the SQL does not prepare or an argument cannot be bound.
    public func rows<each A: DatabaseValueConvertible>(_ sql: String, _ arguments: repeat each A) throws -> RowCursor {
        let statement = try cachedStatement(sql, binding: repeat each arguments)
        return RowCursor(statement: statement)
    }

    /// Streams the rows of `sql` as ``Row`` views, with positional or named arguments.
    ///
    /// ```swift
    /// let rows = try db.rows("SELECT * FROM tasks WHERE owner = :owner", arguments: [":owner": "alice"])
    /// ```
    ///
    /// - Parameters:
    ///   - sql: One SQL statement.
    ///   - arguments: Positional and named values.
    /// - Returns: A cursor whose ``Row`` is valid until the next step.
    /// - Throws: ``DatabaseError`` when the SQL does not prepare or an argument cannot be bound.
    public func rows(_ sql: String, arguments: StatementArguments) throws -> RowCursor {
        let statement = try cachedStatement(sql)
        try statement.bind(arguments: arguments)
        return RowCursor(statement: statement)
    }

    /// Streams the first column of `sql` as single values.
    ///
    /// ```swift
    /// let titles = try db.values(String.self, "SELECT title FROM tasks ORDER BY id").collect()   // [String?]
    /// ```
    ///
    /// - Parameters:
    ///   - type: The type of the first column (NULL is nil).
    ///   - sql: One SQL statement.
    ///   - arguments: Values bound to its `?` parameters, in order.
    /// - Returns: A cursor of optional values.
    /// - Throws: ``DatabaseError`` when the SQL does not prepare or an argument cannot be bound.
    public func values<T: DatabaseValueConvertible, each A: DatabaseValueConvertible>(
        _ type: T.Type, _ sql: String, _ arguments: repeat each A
    ) throws -> ValueCursor<T> {
        let statement = try cachedStatement(sql, binding: repeat each arguments)
        return ValueCursor(statement: statement)
    }

    /// The first column of the first row of `sql`, or nil when there is no row.
    ///
    /// Inlinable, and without a cursor: a point query specializes in the caller
    /// and steps the cached statement once.
    ///
    /// ```swift
    /// let open = try db.value(Int.self, "SELECT count(*) FROM tasks WHERE done = ?", false) ?? 0
    /// ```
    ///
    /// - Parameters:
    ///   - type: The type of the first column.
    ///   - sql: One SQL statement.
    ///   - arguments: Values bound to its `?` parameters, in order.
    /// - Returns: The value, or nil when there is no row or it is NULL.
    /// - Throws: ``DatabaseError``: the SQL, a binding, or a value that is not a `T`.
    @inlinable
    public func value<T: DatabaseValueConvertible, each A: DatabaseValueConvertible>(
        _ type: T.Type, _ sql: String, _ arguments: repeat each A
    ) throws -> T? {
        let statement = try cachedStatement(sql, binding: repeat each arguments)
        let handle = statement.handle
        // Every exit resets the statement, which never leaves this call: the cache may skip
        // the reset when it hands the statement out next time.
        defer { statement.isReset = true }
        let rc = statement.stepFirst()
        guard _fastPath(rc == SQLITE_ROW) else {
            if rc == SQLITE_DONE { sqlite3_reset(handle); return nil }
            throw statement.stepFailed(rc)  // resets
        }
        defer { sqlite3_reset(handle) }
        do { return try T._decode(statement: handle, column: 0) } catch {
            throw statement.decodingError(error, column: 0, type: T.self)
        }
    }

    /// Streams the first columns of `sql` as tuples: `try db.tuples(Int.self, String.self, sql: "SELECT id, title FROM t")`.
    ///
    /// ```swift
    /// for (id, title) in try db.tuples(Int.self, String.self, sql: "SELECT id, title FROM tasks").collect() { print(id, title) }
    /// ```
    ///
    /// - Parameters:
    ///   - types: The type of each column, in order.
    ///   - sql: One SQL statement.
    ///   - arguments: Values bound to its `?` parameters, in order.
    /// - Returns: A cursor of tuples, one value per column in order.
    /// - Throws: ``DatabaseError`` when the SQL does not prepare or an argument cannot be bound.
    public func tuples<each V: DatabaseValueConvertible, each A: DatabaseValueConvertible>(
        _ types: repeat (each V).Type, sql: String, _ arguments: repeat each A
    ) throws -> TupleCursor<repeat each V> {
        let statement = try cachedStatement(sql, binding: repeat each arguments)
        return TupleCursor(statement: statement)
    }

    /// Runs `sql` and feeds every row to `sink` as typed events (see ``RowSink``).
    ///
    /// TEXT values carrying SQLite's JSON subtype go to ``RowSink/json(_:column:)``.
    public func stream<S: RowSink, each A: DatabaseValueConvertible>(
        _ sql: String, _ arguments: repeat each A, into sink: inout S
    ) throws {
        let statement = try cachedStatement(sql, binding: repeat each arguments)
        try statement.stream(into: &sink)
    }

    /// Runs `sql` with positional or named arguments and feeds every row to `sink`.
    public func stream<S: RowSink>(_ sql: String, arguments: StatementArguments, into sink: inout S) throws {
        let statement = try cachedStatement(sql)
        try statement.bind(arguments: arguments)
        try statement.stream(into: &sink)
    }
}

extension Statement {
    /// A cursor decoding the statement's rows by hand, with `type`'s ``RowDecodable`` initializer (bind first).
    public func rowDecodableCursor<T: RowDecodable>(_ type: T.Type) -> RowDecodableCursor<T> { RowDecodableCursor(statement: self) }
    /// A cursor over the statement's rows as ``Row`` views (bind first).
    public func rowCursor() -> RowCursor { RowCursor(statement: self) }
    /// A cursor over the first column (bind first).
    public func values<T: DatabaseValueConvertible>(_ type: T.Type) -> ValueCursor<T> { ValueCursor(statement: self) }

    /// Steps the (already bound) statement to the end, feeding each row to `sink`; resets it afterwards.
    ///
    /// The one row → sink loop of the library (``Database/writeJSON(_:_:to:options:)`` and
    /// ``Database/stream(_:_:into:)`` run it too). The column names are read after the
    /// first step, which is where SQLite re-prepares a statement whose schema changed.
    /// JSON-subtyped TEXT (`sqlite3_value_subtype == 'J'`) goes to ``RowSink/json(_:column:)``.
    public func stream<S: RowSink>(into sink: inout S) throws {
        try connection.checkOpen(sql)
        defer { sqlite3_reset(handle) }
        // Hold the connection's (recursive) mutex across the loop: each
        // sqlite3_column_* call then re-enters it cheaply instead of locking and
        // unlocking a contended pthread mutex (nil, a no-op, for NOMUTEX connections).
        let mutex = sqlite3_db_mutex(connection.handle)
        sqlite3_mutex_enter(mutex)
        defer { sqlite3_mutex_leave(mutex) }
        var rc = stepFirst()
        guard rc == SQLITE_ROW || rc == SQLITE_DONE else { throw stepFailed(rc) }
        let n = Int32(sqlite3_column_count(handle))
        try sink.beginResult(columns: columnNames)
        while rc == SQLITE_ROW {
            try sqStreamRow(handle, columnCount: n, into: &sink)
            rc = stepNext()
        }
        guard rc == SQLITE_DONE else { throw stepFailed(rc) }
        try sink.endResult()
    }
}

/// Feeds the current row of `stmt` (stepped to SQLITE_ROW, `n` columns) to `sink`: the one
/// row → sink step, used by ``Statement/stream(into:)`` and by the RETURNING rows of bulk inserts.
/// JSON-subtyped TEXT goes to ``RowSink/json(_:column:)``.
@inline(__always)
func sqStreamRow<S: RowSink>(_ stmt: OpaquePointer, columnCount n: Int32, into sink: inout S) throws {
    try sink.beginRow()
    for i in 0..<n {
        // One sqlite3_column_value per column (one mutex round trip), then the
        // sqlite3_value_* accessors, which take no lock. The value is only used
        // on this thread, before the next step.
        let v = sqlite3_column_value(stmt, i)
        switch sqlite3_value_type(v) {
        case SQLITE_INTEGER: try sink.integer(sqlite3_value_int64(v), column: Int(i))
        case SQLITE_FLOAT: try sink.double(sqlite3_value_double(v), column: Int(i))
        case SQLITE_TEXT:
            let p = sqlite3_value_text(v)
            let buf = UnsafeBufferPointer(start: p ?? UnsafePointer(emptyBytes), count: p == nil ? 0 : Int(sqlite3_value_bytes(v)))
            if sqlite3_value_subtype(v) == sqliteJSONSubtype {
                try sink.json(buf, column: Int(i))
            } else {
                try sink.text(buf, column: Int(i))
            }
        case SQLITE_BLOB:
            let p = sqlite3_value_blob(v)
            try sink.blob(UnsafeRawBufferPointer(start: p ?? UnsafeRawPointer(emptyBytes), count: p == nil ? 0 : Int(sqlite3_value_bytes(v))),
                          column: Int(i))
        default: try sink.null(column: Int(i))
        }
    }
    try sink.endRow()
}
