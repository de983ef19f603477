import CStreamQLite

/// The non-generic state of one bulk insert: its statements, batch size and
/// transaction. The per-row loop (``Database/_bulkInsertLoop(_:first:session:bind:)``)
/// is `@inlinable`, so it is specialized for the caller's element type and
/// keeps the pending batch in a specialized array; everything else is here.
@usableFromInline
final class BulkInsertSession {
    @usableFromInline let db: Database
    @usableFromInline let table: String
    @usableFromInline let columns: [String]
    /// Rows per full batch statement.
    @usableFromInline let batchRows: Int
    /// Parameters per row.
    @usableFromInline let width: Int32
    /// The statement for a full batch.
    @usableFromInline let batch: OpaquePointer
    /// TEXT values of the batch being bound (`SQLITE_STATIC`); reset after each batch has run.
    @usableFromInline let arena = BindArena()
    private let options: InsertOptions
    private var statements: [Int: OpaquePointer] = [:]

    @usableFromInline
    init(db: Database, table: String, columns: [String], options: InsertOptions) throws {
        self.db = db
        self.table = table
        self.columns = columns
        self.options = options
        let variableLimit = Int(sqlite3_limit(db.handle, SQLITE_LIMIT_VARIABLE_NUMBER, -1))
        batchRows = max(1, min(options.batchSize, variableLimit / max(columns.count, 1)))
        width = Int32(columns.count)
        let sql = db.bulkInsertSQL(table: table, columns: columns, rowCount: batchRows, options: options, returning: nil)
        batch = try db.sqPrepare(sql)
        statements[batchRows] = batch
    }

    deinit {
        for s in statements.values { sqlite3_finalize(s) }
    }

    /// The statement inserting `rows` rows.
    @usableFromInline
    func statement(rows: Int) throws -> OpaquePointer {
        if let s = statements[rows] { return s }
        let s = try db.sqPrepare(db.bulkInsertSQL(table: table, columns: columns, rowCount: rows, options: options, returning: nil))
        statements[rows] = s
        return s
    }

    /// The savepoint of the insert, open between ``begin()`` and ``commit()``/``rollback()``.
    @usableFromInline var savepoint: OpenSavepoint?

    @usableFromInline
    func begin() throws { savepoint = try OpenSavepoint(db) }

    /// Holds the connection's recursive mutex during the loop, so the many
    /// bind/step calls re-enter it cheaply (a no-op for NOMUTEX connections).
    /// Balanced by ``leaveMutex()``.
    @usableFromInline
    func enterMutex() { sqlite3_mutex_enter(sqlite3_db_mutex(db.handle)) }

    @usableFromInline
    func leaveMutex() { sqlite3_mutex_leave(sqlite3_db_mutex(db.handle)) }

    @usableFromInline
    func commit() throws {
        try savepoint?.release()
        savepoint = nil
    }

    /// Undoes everything since ``begin()``: nothing of the insert stays.
    @usableFromInline
    func rollback() {
        savepoint?.rollback()
        savepoint = nil
    }

    /// Runs `stmt` to completion; SQLITE_OK or SQLite's extended error code.
    @usableFromInline
    func run(_ stmt: OpaquePointer) -> Int32 {
        var rc = sqlite3_step(stmt)
        while rc == SQLITE_ROW { rc = sqlite3_step(stmt) }
        let code = rc == SQLITE_DONE ? SQLITE_OK : sqlite3_extended_errcode(db.handle)
        sqlite3_reset(stmt)
        return code
    }

    @usableFromInline
    var lastMessage: String { db.sqLastErrorMessage }

    /// An error thrown while binding element `row`, as an ``InsertError``.
    @usableFromInline
    func wrap(_ error: any Error, row: Int) -> any Error {
        switch error {
        case let failure as RowEncodingFailure:
            return InsertError(table: table, row: row, column: failure.column, message: failure.message)
        case is InsertError:
            return error
        default:
            return InsertError(table: table, row: row, column: nil, message: "\(error)")
        }
    }

    /// The error of a failed statement for element `row`.
    @usableFromInline
    func statementError(row: Int, code: Int32, message: String) -> InsertError {
        InsertError(table: table, row: row, column: constraintColumn(in: message), message: message, sqliteCode: code)
    }
}

extension RowBinder {
    /// Checks that a ``RowEncodable/bind(to:)`` bound exactly one value per column.
    @usableFromInline
    func finish(type: Any.Type) throws {
        if let failure {
            throw RowEncodingFailure(column: nil, message: failure)
        }
        if position != columns.count {
            throw RowEncodingFailure(
                column: columns[position],
                message: "\(type).bind(to:) bound \(position) of the \(columns.count) databaseColumns")
        }
    }
}

extension Database {
    /// The batching loop of a bulk insert, specialized for the element type.
    ///
    /// Elements are bound into the N-row statement as they come; every N rows
    /// it runs. The tail (fewer than N rows) is re-bound into a statement of
    /// its size. A failing batch is replayed row by row to name the element.
    /// All inside one savepoint: on any error nothing stays.
    @inlinable
    func _bulkInsertLoop<I: IteratorProtocol>(
        _ iterator: inout I, first: I.Element?, session: BulkInsertSession,
        bind: (I.Element, OpaquePointer, Int32) throws -> Void
    ) throws -> Int {
        let n = session.batchRows
        let width = session.width
        let batch = session.batch
        var pending: [I.Element] = []
        pending.reserveCapacity(n)
        var rowIndex = 0
        var firstElement = first
        session.enterMutex()
        defer { session.leaveMutex() }
        try session.begin()
        do {
            while true {
                let element: I.Element
                if let f = firstElement {
                    element = f
                    firstElement = nil
                } else if let e = iterator.next() {
                    element = e
                } else {
                    break
                }
                do {
                    try bind(element, batch, Int32(truncatingIfNeeded: pending.count) &* width)
                } catch {
                    throw session.wrap(error, row: rowIndex)
                }
                pending.append(element)
                rowIndex += 1
                if pending.count == n {
                    let rc = session.run(batch)
                    if rc != SQLITE_OK {
                        try _replayFailedBatch(pending, firstRow: rowIndex - n, code: rc, session: session, bind: bind)
                    }
                    pending.removeAll(keepingCapacity: true)
                    // The batch has run: its TEXT bytes may be recycled (every parameter is bound
                    // again before the statement next steps).
                    session.arena.reset()
                }
            }
            if !pending.isEmpty {
                let first = rowIndex - pending.count
                let tail = try session.statement(rows: pending.count)
                for (i, element) in pending.enumerated() {
                    do {
                        try bind(element, tail, Int32(truncatingIfNeeded: i) &* width)
                    } catch {
                        throw session.wrap(error, row: first + i)
                    }
                }
                let rc = session.run(tail)
                if rc != SQLITE_OK {
                    try _replayFailedBatch(pending, firstRow: first, code: rc, session: session, bind: bind)
                }
            }
            try session.commit()
        } catch {
            session.rollback()
            throw error
        }
        return rowIndex
    }

    /// Replays the rows of a failed batch one by one (the batch statement was
    /// undone as a whole) and throws the error of the first row that fails.
    @inlinable
    func _replayFailedBatch<E>(
        _ pending: [E], firstRow: Int, code: Int32, session: BulkInsertSession,
        bind: (E, OpaquePointer, Int32) throws -> Void
    ) throws -> Never {
        let message = session.lastMessage
        if pending.count > 1 {
            let single = try session.statement(rows: 1)
            for (i, element) in pending.enumerated() {
                do { try bind(element, single, 0) } catch { throw session.wrap(error, row: firstRow + i) }
                let rc = session.run(single)
                if rc != SQLITE_OK {
                    throw session.statementError(row: firstRow + i, code: rc, message: session.lastMessage)
                }
            }
        }
        throw session.statementError(row: firstRow, code: code, message: message)
    }

    /// Plans an `Encodable` insert from its first element: the columns, the
    /// session, and the row binder (a custom `Encoder` bound to the plan).
    @usableFromInline
    func _encodableSession<T: Encodable>(first: T, table: String, options: InsertOptions)
        throws -> (BulkInsertSession, (T, OpaquePointer, Int32) throws -> Void)
    {
        let tableColumns = try sqTableColumns(table, function: "insert")
        let encoder = BindingEncoder(ignoreUnknownKeys: options.ignoreUnknownKeys, dateEncoding: options.dateEncoding)
        let columns = try options.columns
            ?? inferColumns(first, encoder: encoder, table: table, tableColumns: tableColumns, options: options)
        try checkColumns(columns, exist: tableColumns, table: table)
        encoder.use(plan: InsertPlan(columns: columns, table: tableColumns, jsonColumns: options.jsonColumns))
        let session = try BulkInsertSession(db: self, table: table, columns: columns, options: options)
        encoder.arena = session.arena
        return (session, { value, stmt, base in try encoder.encodeRow(value, stmt: stmt, base: base) })
    }

    /// The session of a ``RowEncodable`` insert.
    @usableFromInline
    func _rowEncodableSession(columns: [String], table: String, options: InsertOptions) throws -> BulkInsertSession {
        try checkColumns(columns, exist: try sqTableColumns(table, function: "insert"), table: table)
        return try BulkInsertSession(db: self, table: table, columns: columns, options: options)
    }

    /// Checks that `table` exists (for inserts of empty sequences).
    @usableFromInline
    func _checkTableExists(_ table: String) throws {
        _ = try sqTableColumns(table, function: "insert")
    }
}
