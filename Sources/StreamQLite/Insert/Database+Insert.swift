import CStreamQLite

/// Options of ``Database/insert(contentsOf:into:options:)``.
public struct InsertOptions: Sendable {
    /// What to do when a row conflicts with a UNIQUE or PRIMARY KEY constraint.
    public enum Conflict: Sendable, Equatable {
        /// Throw an ``InsertError`` and roll back (the default).
        case abort
        /// Skip the row (`ON CONFLICT DO NOTHING`).
        case ignore
        /// Delete the old row, insert the new one (`INSERT OR REPLACE`).
        case replace
        /// Upsert: `ON CONFLICT (target) DO UPDATE SET c = excluded.c` for the
        /// `set` columns, or for every inserted column not in `target` when `set` is nil.
        case update(target: [String], set: [String]? = nil)
    }

    /// How `Date` properties are stored.
    public enum DateEncoding: Sendable, Equatable {
        /// The library's one date text, `2024-05-01 12:00:00.250` (UTC, milliseconds
        /// floored), the same as binding a `Date` with `execute`: SQLite's date functions
        /// and the locale-week functions read it, and text order is time order.
        case text
        /// REAL seconds since 1970-01-01 UTC.
        case unixSeconds
    }

    /// The columns to insert, in order. Nil (the default): the coding keys of
    /// the first value (plus its nil optional properties, found by name) that
    /// name columns of the table. For ``RowEncodable`` types this is ignored
    /// (``RowEncodable/databaseColumns`` is used).
    public var columns: [String]?
    /// Conflict handling; default ``Conflict/abort``.
    public var onConflict: Conflict
    /// Rows per `INSERT … VALUES (…),(…)` statement, capped by SQLite's
    /// variable limit (`SQLITE_LIMIT_VARIABLE_NUMBER` / column count). Default 50.
    public var batchSize: Int
    /// A property with no column: an error (default, `false`) or skipped (`true`).
    public var ignoreUnknownKeys: Bool
    /// Columns receiving nested values (structs, arrays, dictionaries) as JSON
    /// text, in addition to columns whose declared type contains `JSON`.
    public var jsonColumns: Set<String>
    /// How `Date` values are stored; default ``DateEncoding/text``.
    public var dateEncoding: DateEncoding

    /// Creates options; every parameter has the documented default.
    public init(columns: [String]? = nil, onConflict: Conflict = .abort, batchSize: Int = 50,
                ignoreUnknownKeys: Bool = false, jsonColumns: Set<String> = [], dateEncoding: DateEncoding = .text) {
        self.columns = columns
        self.onConflict = onConflict
        self.batchSize = batchSize
        self.ignoreUnknownKeys = ignoreUnknownKeys
        self.jsonColumns = jsonColumns
        self.dateEncoding = dateEncoding
    }
}

/// A bulk insert failed; nothing of it was written.
public struct InsertError: Error, CustomStringConvertible {
    /// The table inserted into.
    public var table: String
    /// The 0-based index of the offending element of the sequence.
    public var row: Int
    /// The column (or property) concerned, when known.
    public var column: String?
    /// What went wrong (SQLite's message for constraint violations).
    public var message: String
    /// SQLite's extended result code, when SQLite reported the error.
    public var sqliteCode: Int32?

    /// The error as one line: table, row, column, message.
    public var description: String {
        "insert into \(table): row \(row)" + (column.map { ", column '\($0)'" } ?? "") + ": \(message)"
    }
}

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
    @inlinable @discardableResult
    public func insert<S: Sequence>(contentsOf rows: S, into table: String, options: InsertOptions = InsertOptions())
        throws -> Int where S.Element: Encodable
    {
        var iterator = rows.makeIterator()
        guard let first = iterator.next() else {
            try _checkTableExists(table)
            return 0
        }
        let (session, bindRow) = try _encodableSession(first: first, table: table, options: options)
        return try _bulkInsertLoop(&iterator, first: first, session: session, bind: bindRow)
    }

    /// Inserts every element of `rows` through its hand-written ``RowEncodable/bind(to:)``; see
    /// ``insert(contentsOf:into:options:)-(S,_,_)`` for transactions, batching and errors.
    @inlinable @discardableResult
    public func insert<S: Sequence>(contentsOf rows: S, into table: String, options: InsertOptions = InsertOptions())
        throws -> Int where S.Element: RowEncodable
    {
        try _insertRowEncodable(rows, into: table, options: options)
    }

    /// Inserts values that are both ``RowEncodable`` and `Encodable` through the faster ``RowEncodable`` path.
    @inlinable @discardableResult
    public func insert<S: Sequence>(contentsOf rows: S, into table: String, options: InsertOptions = InsertOptions())
        throws -> Int where S.Element: RowEncodable & Encodable
    {
        try _insertRowEncodable(rows, into: table, options: options)
    }

    @inlinable
    func _insertRowEncodable<S: Sequence>(_ rows: S, into table: String, options: InsertOptions) throws -> Int
    where S.Element: RowEncodable {
        let session = try _rowEncodableSession(columns: S.Element.databaseColumns, table: table, options: options)
        let columns = session.columns
        let arena = session.arena
        var iterator = rows.makeIterator()
        return try _bulkInsertLoop(&iterator, first: nil, session: session) { value, stmt, base in
            var binder = RowBinder(stmt: stmt, columns: columns, base: base, arena: arena)
            try value.bind(to: &binder)
            try binder.finish(type: S.Element.self)
        }
    }

    /// Inserts `rows` like ``insert(contentsOf:into:options:)-(S,_,_)`` and streams the
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
        try insertEncodable(rows, into: table, options: options, returning: returning, sink: &sink)
    }

    /// The ``RowEncodable`` variant of ``insert(contentsOf:into:options:returning:into:)-(S,_,_,_,_)``.
    @discardableResult
    public func insert<S: Sequence, Sink: RowSink>(
        contentsOf rows: S, into table: String, options: InsertOptions = InsertOptions(),
        returning: String, into sink: inout Sink
    ) throws -> Int where S.Element: RowEncodable {
        try insertRowEncodable(rows, into: table, options: options, returning: returning, sink: &sink)
    }

    /// Values that are both ``RowEncodable`` and `Encodable` take the ``RowEncodable`` path.
    @discardableResult
    public func insert<S: Sequence, Sink: RowSink>(
        contentsOf rows: S, into table: String, options: InsertOptions = InsertOptions(),
        returning: String, into sink: inout Sink
    ) throws -> Int where S.Element: RowEncodable & Encodable {
        try insertRowEncodable(rows, into: table, options: options, returning: returning, sink: &sink)
    }

    // MARK: Engines

    func insertEncodable<S: Sequence, Sink: RowSink>(
        _ rows: S, into table: String, options: InsertOptions, returning: String?, sink: inout Sink
    ) throws -> Int where S.Element: Encodable {
        let tableColumns = try sqTableColumns(table, function: "insert")
        let encoder = BindingEncoder(ignoreUnknownKeys: options.ignoreUnknownKeys, dateEncoding: options.dateEncoding)
        var iterator = rows.makeIterator()
        guard let first = iterator.next() else { return 0 }
        let columns: [String]
        if let explicit = options.columns {
            columns = explicit
        } else {
            columns = try inferColumns(first, encoder: encoder, table: table, tableColumns: tableColumns, options: options)
        }
        try checkColumns(columns, exist: tableColumns, table: table)
        let plan = InsertPlan(columns: columns, table: tableColumns, jsonColumns: options.jsonColumns)
        encoder.use(plan: plan)
        var firstPending: S.Element? = first
        let next: () -> S.Element? = {
            if let f = firstPending { firstPending = nil; return f }
            return iterator.next()
        }
        return try runBulkInsert(table: table, columns: columns, options: options, returning: returning, sink: &sink,
                                 next: next) { value, stmt, base in
            try encoder.encodeRow(value, stmt: stmt, base: base)
        }
    }

    func insertRowEncodable<S: Sequence, Sink: RowSink>(
        _ rows: S, into table: String, options: InsertOptions, returning: String?, sink: inout Sink
    ) throws -> Int where S.Element: RowEncodable {
        let columns = S.Element.databaseColumns
        try checkColumns(columns, exist: try sqTableColumns(table, function: "insert"), table: table)
        var iterator = rows.makeIterator()
        return try runBulkInsert(table: table, columns: columns, options: options, returning: returning, sink: &sink,
                                 next: { iterator.next() }) { value, stmt, base in
            var binder = RowBinder(stmt: stmt, columns: columns, base: base)
            try value.bind(to: &binder)
            if let failure = binder.failure {
                throw RowEncodingFailure(column: nil, message: failure)
            }
            if binder.position != columns.count {
                throw RowEncodingFailure(
                    column: columns[binder.position],
                    message: "\(S.Element.self).bind(to:) bound \(binder.position) of the \(columns.count) databaseColumns")
            }
        }
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

    /// Builds `INSERT … VALUES (?,…),(?,…) [ON CONFLICT …] [RETURNING …]` for `rowCount` rows.
    func bulkInsertSQL(table: String, columns: [String], rowCount: Int, options: InsertOptions, returning: String?) -> String {
        var sql = options.onConflict == .replace ? "INSERT OR REPLACE INTO " : "INSERT INTO "
        sql += sqQuoteQualifiedName(table) + " (" + columns.map(sqQuoteIdentifier).joined(separator: ", ") + ") VALUES "
        let tuple = "(" + Array(repeating: "?", count: columns.count).joined(separator: ",") + ")"
        sql.reserveCapacity(sql.utf8.count + rowCount * (tuple.utf8.count + 1) + 100)
        for r in 0..<rowCount {
            if r > 0 { sql += "," }
            sql += tuple
        }
        switch options.onConflict {
        case .abort, .replace: break
        case .ignore: sql += " ON CONFLICT DO NOTHING"
        case let .update(target, set):
            let targetSet = Set(target.map { $0.lowercased() })
            let updated = set ?? columns.filter { !targetSet.contains($0.lowercased()) }
            sql += " ON CONFLICT (" + target.map(sqQuoteIdentifier).joined(separator: ", ") + ") DO "
            if updated.isEmpty {
                sql += "NOTHING"
            } else {
                sql += "UPDATE SET " + updated.map { sqQuoteIdentifier($0) + " = excluded." + sqQuoteIdentifier($0) }
                    .joined(separator: ", ")
            }
        }
        if let returning { sql += " RETURNING " + returning }
        return sql
    }

    /// The batching loop shared by both insert flavours.
    ///
    /// Elements are bound into an N-row statement as they come; every N rows
    /// the statement runs. The tail (fewer than N rows) is re-bound into a
    /// statement of its size. When a batch fails (a constraint), its rows are
    /// replayed one by one to name the offending element; everything is rolled back.
    func runBulkInsert<Element, Sink: RowSink>(
        table: String, columns: [String], options: InsertOptions, returning: String?, sink: inout Sink,
        next: () -> Element?, bind: (Element, OpaquePointer, Int32) throws -> Void
    ) throws -> Int {
        let variableLimit = Int(sqlite3_limit(handle, SQLITE_LIMIT_VARIABLE_NUMBER, -1))
        let n = max(1, min(options.batchSize, variableLimit / max(columns.count, 1)))
        let width = Int32(columns.count)
        var statements: [Int: OpaquePointer] = [:]
        defer { for s in statements.values { sqlite3_finalize(s) } }
        func statement(rows: Int) throws -> OpaquePointer {
            if let s = statements[rows] { return s }
            let s = try sqPrepare(bulkInsertSQL(table: table, columns: columns, rowCount: rows,
                                                       options: options, returning: returning))
            statements[rows] = s
            return s
        }
        if returning != nil {
            // Column names of the RETURNING clause.
            let s = try statement(rows: 1)
            var names: [String] = []
            for i in 0..<sqlite3_column_count(s) { names.append(sqlite3_column_name(s, i).map { String(cString: $0) } ?? "") }
            try sink.beginResult(columns: names)
        }

        func bindRow(_ element: Element, _ stmt: OpaquePointer, _ slot: Int, _ rowIndex: Int) throws {
            do {
                try bind(element, stmt, Int32(slot) * width)
            } catch let failure as RowEncodingFailure {
                throw InsertError(table: table, row: rowIndex, column: failure.column, message: failure.message)
            } catch let error as InsertError {
                throw error
            } catch {
                throw InsertError(table: table, row: rowIndex, column: nil, message: "\(error)")
            }
        }

        func run(_ stmt: OpaquePointer) throws -> Int32 {
            var rc = sqlite3_step(stmt)
            while rc == SQLITE_ROW {
                try sqFeedRow(of: stmt, into: &sink)
                rc = sqlite3_step(stmt)
            }
            let code = rc == SQLITE_DONE ? SQLITE_OK : sqlite3_extended_errcode(handle)
            sqlite3_reset(stmt)
            return code
        }

        /// Runs a batch; on failure replays its rows singly to find the offending one.
        func execute(_ stmt: OpaquePointer, pending: [Element], firstRow: Int) throws {
            let rc = try run(stmt)
            if rc == SQLITE_OK { return }
            let batchMessage = sqLastErrorMessage
            if pending.count > 1 {
                let single = try statement(rows: 1)
                for (i, element) in pending.enumerated() {
                    try bindRow(element, single, 0, firstRow + i)
                    let rc1 = try run(single)
                    if rc1 != SQLITE_OK {
                        let message = sqLastErrorMessage
                        throw InsertError(table: table, row: firstRow + i, column: constraintColumn(in: message),
                                          message: message, sqliteCode: rc1)
                    }
                }
            }
            throw InsertError(table: table, row: firstRow, column: constraintColumn(in: batchMessage),
                              message: batchMessage, sqliteCode: rc)
        }

        let total: Int = try savepoint {
            let batch = try statement(rows: n)
            var pending: [Element] = []
            pending.reserveCapacity(n)
            var rowIndex = 0
            while let element = next() {
                try bindRow(element, batch, pending.count, rowIndex)
                pending.append(element)
                rowIndex += 1
                if pending.count == n {
                    try execute(batch, pending: pending, firstRow: rowIndex - n)
                    pending.removeAll(keepingCapacity: true)
                }
            }
            if !pending.isEmpty {
                let tail = try statement(rows: pending.count)
                for (i, element) in pending.enumerated() {
                    try bindRow(element, tail, i, rowIndex - pending.count + i)
                }
                try execute(tail, pending: pending, firstRow: rowIndex - pending.count)
            }
            return rowIndex
        }
        if returning != nil { try sink.endResult() }
        return total
    }

    /// Feeds the current row of `stmt` to `sink` (for RETURNING rows).
    func sqFeedRow<S: RowSink>(of stmt: OpaquePointer, into sink: inout S) throws {
        try sink.beginRow()
        for i in 0..<Int(sqlite3_column_count(stmt)) {
            let c = Int32(i)
            switch sqlite3_column_type(stmt, c) {
            case SQLITE_INTEGER: try sink.integer(sqlite3_column_int64(stmt, c), column: i)
            case SQLITE_FLOAT: try sink.double(sqlite3_column_double(stmt, c), column: i)
            case SQLITE_TEXT:
                let p = sqlite3_column_text(stmt, c)
                try sink.text(UnsafeBufferPointer(start: p, count: p == nil ? 0 : Int(sqlite3_column_bytes(stmt, c))), column: i)
            case SQLITE_BLOB:
                let p = sqlite3_column_blob(stmt, c)
                try sink.blob(UnsafeRawBufferPointer(start: p, count: p == nil ? 0 : Int(sqlite3_column_bytes(stmt, c))), column: i)
            default: try sink.null(column: i)
            }
        }
        try sink.endRow()
    }
}


private func isNilOptional(_ value: Any) -> Bool {
    let m = Mirror(reflecting: value)
    return m.displayStyle == .optional && m.children.isEmpty
}
