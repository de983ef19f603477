import CStreamQLite
import Foundation

extension Database {
    /// Inserts every element of `rows` into `table` in one transaction, in
    /// multi-row `INSERT … VALUES` batches.
    ///
    /// Properties are bound straight into the prepared statement's parameters
    /// by a custom `Encoder` (no dictionaries); the property → parameter plan
    /// is resolved once for the call from the first element (see
    /// ``InsertOptions/columns``). The sequence is consumed lazily: at most one
    /// batch of elements is held at a time, so ten million generated rows
    /// never sit in memory together.
    ///
    /// Value mapping: integers and `Bool` → INTEGER (`UInt64` above
    /// `Int64.max` is an error), `Double`/`Float` → REAL (NaN is an error),
    /// `String` → TEXT, `Data`/`[UInt8]` → BLOB, `Date` → see
    /// ``InsertOptions/dateEncoding``, `UUID` → TEXT, `URL` → TEXT, nil → NULL,
    /// enums with raw values → their raw value, nested structs, arrays and
    /// dictionaries → JSON text in JSON columns (declared type containing
    /// `JSON`, or ``InsertOptions/jsonColumns``) and an error elsewhere.
    ///
    /// ```swift
    /// struct Todo: Codable { var id: Int; var title: String; var tags: [String] }
    /// // CREATE TABLE tasks(id INTEGER PRIMARY KEY, title TEXT NOT NULL, tags JSON)
    /// try db.insert(contentsOf: tasks, into: "tasks")
    /// try db.insert(contentsOf: edits, into: "tasks",
    ///               options: .init(onConflict: .update(target: ["id"])))
    /// ```
    ///
    /// Inside a transaction of your own the insert runs in a savepoint and only
    /// its own rows are rolled back on error.
    ///
    /// - Returns: The number of elements inserted (or skipped by ``InsertOptions/Conflict/ignore``).
    /// - Throws: ``InsertError`` naming the element index and column: a value
    ///   that cannot be encoded, a constraint violation; the whole insert is
    ///   rolled back.
    ///
    /// - Parameters:
    ///   - rows: The values; each one's coding keys name the columns.
    ///   - table: The table (`name` or `schema.name`).
    ///   - options: Conflict handling (abort, ignore, replace, upsert), batch size, key strategy.
    @inlinable @discardableResult
    public func insert<S: Sequence>(contentsOf rows: S, into table: String, options: InsertOptions = InsertOptions())
        throws -> Int where S.Element: Encodable
    {
        var none = NoReturnedRows()
        return try _insertEncodable(rows, into: table, options: options, returning: nil, sink: &none)
    }

    /// Inserts every element of `rows` through its hand-written ``RowEncodable/bind(to:)``; see
    /// ``insert(contentsOf:into:options:)-8cne6`` for transactions, batching and errors.
    @inlinable @discardableResult
    public func insert<S: Sequence>(contentsOf rows: S, into table: String, options: InsertOptions = InsertOptions())
        throws -> Int where S.Element: RowEncodable
    {
        var none = NoReturnedRows()
        return try _insertRowEncodable(rows, into: table, options: options, returning: nil, sink: &none)
    }

    /// Inserts values that are both ``RowEncodable`` and `Encodable` through the faster ``RowEncodable`` path.
    @inlinable @discardableResult
    public func insert<S: Sequence>(contentsOf rows: S, into table: String, options: InsertOptions = InsertOptions())
        throws -> Int where S.Element: RowEncodable & Encodable
    {
        var none = NoReturnedRows()
        return try _insertRowEncodable(rows, into: table, options: options, returning: nil, sink: &none)
    }

    /// Inserts `rows` like ``insert(contentsOf:into:options:)-8cne6`` and streams the
    /// `RETURNING returning` rows of every inserted row into `sink`.
    ///
    /// ```swift
    /// struct IDs: RowSink {  // collects generated keys
    ///     var ids: [Int64] = []
    ///     mutating func integer(_ value: Int64, column: Int) { ids.append(value) }
    /// }
    /// var ids = IDs()
    /// try db.insert(contentsOf: newTasks, into: "tasks", returning: "id", into: &ids)
    /// ```
    ///
    /// SQLite does not define the order of RETURNING rows within one
    /// multi-row statement; use `batchSize: 1` if you need them in input
    /// order. The sink gets one `beginResult`/`endResult` around all rows.
    /// If the insert fails, the sink may already have seen rows that were rolled back.
    @discardableResult
    public func insert<S: Sequence, Sink: RowSink>(
        contentsOf rows: S, into table: String, options: InsertOptions = InsertOptions(),
        returning: String, into sink: inout Sink
    ) throws -> Int where S.Element: Encodable {
        try _insertEncodable(rows, into: table, options: options, returning: returning, sink: &sink)
    }

    /// The ``RowEncodable`` variant of ``insert(contentsOf:into:options:returning:into:)-(S,_,_,_,_)``.
    @discardableResult
    public func insert<S: Sequence, Sink: RowSink>(
        contentsOf rows: S, into table: String, options: InsertOptions = InsertOptions(),
        returning: String, into sink: inout Sink
    ) throws -> Int where S.Element: RowEncodable {
        try _insertRowEncodable(rows, into: table, options: options, returning: returning, sink: &sink)
    }

    /// Values that are both ``RowEncodable`` and `Encodable` take the ``RowEncodable`` path.
    @discardableResult
    public func insert<S: Sequence, Sink: RowSink>(
        contentsOf rows: S, into table: String, options: InsertOptions = InsertOptions(),
        returning: String, into sink: inout Sink
    ) throws -> Int where S.Element: RowEncodable & Encodable {
        try _insertRowEncodable(rows, into: table, options: options, returning: returning, sink: &sink)
    }

    // MARK: Drivers of the write path

    /// `Encodable` values: the columns are planned from the first element, then every
    /// element is bound by the custom `Encoder` (``BindingEncoder``) into the write path.
    @inlinable
    func _insertEncodable<S: Sequence, Sink: RowSink>(
        _ rows: S, into table: String, options: InsertOptions, returning: String?, sink: inout Sink
    ) throws -> Int where S.Element: Encodable {
        var iterator = rows.makeIterator()
        guard let first = iterator.next() else {
            try _checkTableExists(table)
            return 0
        }
        let (session, bindRow) = try _encodableSession(first: first, table: table, options: options, returning: returning)
        return try _bulkInsertLoop(&iterator, first: first, session: session, sink: &sink, bind: bindRow)
    }

    /// ``RowEncodable`` values: each binds its own columns.
    @inlinable
    func _insertRowEncodable<S: Sequence, Sink: RowSink>(
        _ rows: S, into table: String, options: InsertOptions, returning: String?, sink: inout Sink
    ) throws -> Int where S.Element: RowEncodable {
        let session = try _rowEncodableSession(columns: S.Element.databaseColumns, table: table, options: options,
                                               returning: returning)
        let columns = session.columns
        let arena = session.arena
        var iterator = rows.makeIterator()
        return try _bulkInsertLoop(&iterator, first: nil, session: session, sink: &sink) { value, stmt, base in
            var binder = RowBinder(stmt: stmt, columns: columns, base: base, arena: arena)
            try value.bind(to: &binder)
            try binder.finish(type: S.Element.self)
        }
    }

    /// Plans an `Encodable` insert from its first element: the columns, the
    /// session, and the row binder (a custom `Encoder` bound to the plan).
    @usableFromInline
    func _encodableSession<T: Encodable>(first: T, table: String, options: InsertOptions, returning: String?)
        throws -> (BulkInsertSession, (T, OpaquePointer, Int32) throws -> Void)
    {
        let tableColumns = try sqTableColumns(table, function: "insert")
        let encoder = BindingEncoder(ignoreUnknownKeys: options.ignoreUnknownKeys, dateEncoding: options.dateEncoding)
        let columns = try options.columns
            ?? inferColumns(first, encoder: encoder, table: table, tableColumns: tableColumns, options: options)
        try checkColumns(columns, exist: tableColumns, table: table)
        encoder.use(plan: InsertPlan(columns: columns, table: tableColumns, jsonColumns: options.jsonColumns))
        let session = try BulkInsertSession(db: self, table: table, columns: columns, options: options, returning: returning)
        encoder.arena = session.arena
        return (session, { value, stmt, base in try encoder.encodeRow(value, stmt: stmt, base: base) })
    }

    /// The session of a ``RowEncodable`` insert.
    @usableFromInline
    func _rowEncodableSession(columns: [String], table: String, options: InsertOptions, returning: String?) throws
        -> BulkInsertSession
    {
        try checkColumns(columns, exist: try sqTableColumns(table, function: "insert"), table: table)
        return try BulkInsertSession(db: self, table: table, columns: columns, options: options, returning: returning)
    }

    /// Checks that `table` exists (for inserts of empty sequences).
    @usableFromInline
    func _checkTableExists(_ table: String) throws {
        _ = try sqTableColumns(table, function: "insert")
    }

    func inferColumns<T: Encodable>(_ first: T, encoder: BindingEncoder, table: String,
                                            tableColumns: [TableColumn], options: InsertOptions) throws -> [String] {
        let keys: [String]
        do {
            keys = try encoder.discoverKeys(first)
        } catch let failure as RowEncodingFailure {
            throw InsertError(table: table, row: 0, column: failure.column, message: failure.message)
        }
        var byName: [String: String] = [:]
        for c in tableColumns { byName[c.name.lowercased()] = c.name }
        var columns: [String] = []
        var seen = Set<String>()
        for key in keys {
            guard let name = byName[key.lowercased()] else {
                if options.ignoreUnknownKeys { continue }
                throw InsertError(table: table, row: 0, column: key,
                                  message: "the value has a property '\(key)' but the table has no such column; pass ignoreUnknownKeys: true to skip it")
            }
            if seen.insert(name.lowercased()).inserted { columns.append(name) }
        }
        // Optional properties that are nil in the first value are not encoded
        // by synthesized Codable; find them by name so later rows can set them.
        for child in Mirror(reflecting: first).children {
            guard let label = child.label, let name = byName[label.lowercased()],
                  !seen.contains(name.lowercased()), isNilOptional(child.value) else { continue }
            seen.insert(name.lowercased())
            columns.append(name)
        }
        if columns.isEmpty {
            throw InsertError(table: table, row: 0, column: nil, message: "the value encodes no column of the table")
        }
        return columns
    }

    func checkColumns(_ columns: [String], exist tableColumns: [TableColumn], table: String) throws {
        let names = Set(tableColumns.map { $0.name.lowercased() })
        for c in columns where !names.contains(c.lowercased()) {
            throw InsertError(table: table, row: 0, column: c, message: "table \(table) has no column named \(c)")
        }
        if columns.isEmpty { throw InsertError(table: table, row: 0, column: nil, message: "no columns to insert") }
    }
}

private func isNilOptional(_ value: Any) -> Bool {
    let m = Mirror(reflecting: value)
    return m.displayStyle == .optional && m.children.isEmpty
}
