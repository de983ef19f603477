import CStreamQLite

/// The non-generic half of the library's one write path: the multi-row
/// `INSERT … VALUES (…),(…) [ON CONFLICT …] [RETURNING …]` statements of one
/// write (built and prepared here only, one per row count, cached), the arena
/// holding the TEXT of the batch being bound, how a statement runs (its
/// RETURNING rows to a sink), the savepoint and the errors.
///
/// The per-row half is ``InsertBatcher`` (generic, `@inlinable`, so specialized
/// for each element type). Its drivers: `insert(contentsOf:)` for `Encodable`
/// and ``RowEncodable`` values, with or without RETURNING
/// (``Database/_bulkInsertLoop(_:first:session:sink:bind:)``), and the rows
/// of the ingest core for `importJSON`/`importCSV` (``IngestBatchWriter``).
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
    /// The RETURNING clause, if any.
    @usableFromInline let returning: String?
    private let onConflict: InsertOptions.Conflict
    /// When set, the last column's value in every row (`.some(nil)`: NULL), bound once per
    /// statement as it is prepared: the per-row binds leave that parameter alone (bindings
    /// outlive `sqlite3_reset`). The text must outlive the session.
    private let constantLast: UnsafePointer<CChar>??
    /// Takes a row SQLite refused for its values (the ``InsertBatcher``'s element, and the
    /// error) instead of failing the write (an import's `onError: .skip`); throws to stop it.
    /// Nil: a refused row fails the write.
    @usableFromInline @exclusivity(unchecked) var rejectRefused: ((Any, InsertError) throws -> Void)?
    /// Rows ``rejectRefused`` took.
    @usableFromInline @exclusivity(unchecked) var rejected = 0
    /// With ``rejectRefused``: SQLite undoes a statement it refuses whole by itself
    /// (`sq_reject_refusal_undone`, `sq_reject.h`: no FAIL conflict resolution can apply),
    /// so the batches run without a savepoint of their own.
    @usableFromInline @exclusivity(unchecked) var refusalUndone = false
    /// The statements of each row count, from the connection's statement cache (given back
    /// when the session ends: the next write of the same shape finds them prepared).
    private var statements: [Int: Statement] = [:]

    /// Prepares the full-batch statement (so a bad table, column or RETURNING clause fails here, before any row).
    @usableFromInline
    init(db: Database, table: String, columns: [String], options: InsertOptions, returning: String? = nil,
         constantLast: UnsafePointer<CChar>?? = nil) throws {
        self.db = db
        self.table = table
        self.columns = columns
        self.onConflict = options.onConflict
        self.returning = returning
        self.constantLast = constantLast
        let variableLimit = Int(sqlite3_limit(db.handle, SQLITE_LIMIT_VARIABLE_NUMBER, -1))
        batchRows = max(1, min(options.batchSize, variableLimit / max(columns.count, 1)))
        width = Int32(columns.count)
        let sql = Self.sql(table: table, columns: columns, rowCount: batchRows, onConflict: options.onConflict,
                           returning: returning)
        let statement = try db.cachedStatement(sql) { try db.sqPrepare(sql) }
        batch = statement.handle
        statements[batchRows] = statement
        bindConstantLast(batch, rows: batchRows)
    }

    deinit {
        for s in statements.values { sqlite3_reset(s.handle) }
        for s in batchSavepointStatements { sqlite3_finalize(s) }
    }

    /// The write is over: its statements the cache holds go back to it (their bindings
    /// are cleared when handed out), so that the next write of the same shape (the next
    /// file of an import) finds them free; the others (prepared because the cache's was in
    /// use) stay until the session ends, so no handle of it is ever finalized before.
    func giveBackStatements() {
        for (rows, s) in statements {
            sqlite3_reset(s.handle)
            if db.cacheHolds(s) { statements[rows] = nil }
        }
    }

    /// The statement inserting `rows` rows (prepared once per row count).
    @usableFromInline
    func statement(rows: Int) throws -> OpaquePointer {
        if let s = statements[rows] { return s.handle }
        let sql = Self.sql(table: table, columns: columns, rowCount: rows, onConflict: onConflict, returning: returning)
        let s = try db.cachedStatement(sql) { try db.sqPrepare(sql) }
        statements[rows] = s
        bindConstantLast(s.handle, rows: rows)
        return s.handle
    }

    /// Binds ``constantLast`` (if set) into the last parameter of each of the `rows` rows of `stmt`.
    private func bindConstantLast(_ stmt: OpaquePointer, rows: Int) {
        guard let constantLast else { return }
        for r in 1...max(rows, 1) {
            let p = Int32(r) * width
            if let text = constantLast { sqlite3_bind_text(stmt, p, text, -1, nil /* SQLITE_STATIC */) } else { sqlite3_bind_null(stmt, p) }
        }
    }

    /// `INSERT … VALUES (?,…),(?,…) [ON CONFLICT …] [RETURNING …]` for `rowCount` rows.
    static func sql(table: String, columns: [String], rowCount: Int, onConflict: InsertOptions.Conflict,
                    returning: String?) -> String {
        var sql = onConflict == .replace ? "INSERT OR REPLACE INTO " : "INSERT INTO "
        sql += sqQuoteQualifiedName(table) + " (" + columns.map(sqQuoteIdentifier).joined(separator: ", ") + ") VALUES "
        let tuple = "(" + Array(repeating: "?", count: columns.count).joined(separator: ",") + ")"
        sql.reserveCapacity(sql.utf8.count + rowCount * (tuple.utf8.count + 1) + 100)
        for r in 0..<rowCount {
            if r > 0 { sql += "," }
            sql += tuple
        }
        switch onConflict {
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

    /// The names of the RETURNING columns.
    @usableFromInline
    var returningColumns: [String] {
        (0..<sqlite3_column_count(batch)).map { i in sqlite3_column_name(batch, i).map { String(cString: $0) } ?? "" }
    }

    // MARK: Transaction and connection

    /// The savepoint of the write, open between ``begin()`` and ``commit()``/``rollback()``.
    @usableFromInline var savepoint: OpenSavepoint?

    @usableFromInline
    func begin() throws { savepoint = try OpenSavepoint(db) }

    /// The savepoint around one batch of a write rejecting refused rows (``rejectRefused``,
    /// see ``InsertBatcher``), inside the write's own: its three statements prepared once,
    /// as it is opened per batch (`sqlite3_exec` would parse them each time).
    @usableFromInline
    enum BatchSavepointStep: Int { case begin, release, rollback }
    private var batchSavepointStatements: [OpaquePointer] = []

    /// Runs `SAVEPOINT`, `RELEASE` or `ROLLBACK TO` of the batch savepoint.
    @usableFromInline
    func batchSavepoint(_ step: BatchSavepointStep) throws {
        if batchSavepointStatements.isEmpty {
            let name = "streamqlite_batch"
            batchSavepointStatements = [try db.sqPrepare("SAVEPOINT \(name)"), try db.sqPrepare("RELEASE \(name)"),
                                        try db.sqPrepare("ROLLBACK TO \(name)")]
        }
        let stmt = batchSavepointStatements[step.rawValue]
        let rc = sqlite3_step(stmt)
        sqlite3_reset(stmt)
        if rc != SQLITE_DONE { throw DatabaseError(code: rc, message: db.sqLastErrorMessage) }
    }

    /// Undoes the batch and ends its savepoint (errors ignored: the transaction may have
    /// ended with the failure).
    @usableFromInline
    func batchSavepointRollback() {
        _ = try? batchSavepoint(.rollback)
        _ = try? batchSavepoint(.release)
    }

    @usableFromInline
    func commit() throws {
        try savepoint?.release()
        savepoint = nil
    }

    /// Undoes everything since ``begin()``: nothing of the write stays.
    @usableFromInline
    func rollback() {
        savepoint?.rollback()
        savepoint = nil
    }

    /// Holds the connection's recursive mutex during the loop, so the many
    /// bind/step calls re-enter it cheaply (a no-op for NOMUTEX connections).
    /// Balanced by ``leaveMutex()``.
    @usableFromInline
    func enterMutex() { sqlite3_mutex_enter(sqlite3_db_mutex(db.handle)) }

    @usableFromInline
    func leaveMutex() { sqlite3_mutex_leave(sqlite3_db_mutex(db.handle)) }

    // MARK: Running

    /// Runs the bound statement `stmt` to completion, its RETURNING rows (if any) to
    /// `sink` through the library's one row → sink loop (``sqStreamRow(_:columnCount:into:)``).
    /// Returns SQLITE_OK or SQLite's extended error code; the statement is reset either way.
    @usableFromInline
    func run<Sink: RowSink>(_ stmt: OpaquePointer, into sink: inout Sink) throws -> Int32 {
        var rc = sqlite3_step(stmt)
        if rc == SQLITE_ROW {
            let n = sqlite3_column_count(stmt)
            do {
                while rc == SQLITE_ROW {
                    try sqStreamRow(stmt, columnCount: n, into: &sink)
                    rc = sqlite3_step(stmt)
                }
            } catch {
                sqlite3_reset(stmt)
                throw error
            }
        }
        let code = rc == SQLITE_DONE ? SQLITE_OK : sqlite3_extended_errcode(db.handle)
        sqlite3_reset(stmt)
        return code
    }

    @usableFromInline
    var lastMessage: String { db.sqLastErrorMessage }

    // MARK: Errors

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

/// The sink of a write without RETURNING: its statements produce no rows.
/// (A stored property: TSan mishandles an inout zero-sized struct passed through generic code.)
@usableFromInline
struct NoReturnedRows: RowSink {
    @usableFromInline var unused: UInt8 = 0
    @inlinable init() {}
}
