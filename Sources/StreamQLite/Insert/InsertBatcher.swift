import CStreamQLite

/// The per-row half of the library's one write path (the other half is
/// ``BulkInsertSession``): binds each row into the session's N-row statement
/// as it comes, runs the statement every N rows, re-binds a partial last batch
/// into a statement of its size, and replays a failed batch row by row to name
/// the row that failed.
///
/// `Element` is what a driver needs to bind a row again (a value being
/// inserted, or where the ingest core's row was kept); `bind(element, stmt,
/// base)` binds it into parameters `base + 1 …`. Every row's index (0-based,
/// in the order added) names it in errors. `@inlinable`, so it is specialized
/// for the element type and the binding closure.
///
/// The savepoint around the whole write is the driver's (``BulkInsertSession/begin()``,
/// or the import's own): on any error nothing of the write stays.
///
/// Rejecting refused rows (an import's `onError: .skip`, ``BulkInsertSession/rejectRefused``): when
/// SQLite refuses a batch, nothing of it stays: SQLite rolls the statement back itself
/// (ABORT, ``BulkInsertSession/refusalUndone``) or, where a constraint or trigger
/// `ON CONFLICT FAIL` could keep what the statement did before the refused row, each batch
/// runs in a savepoint of its own that undoes it. Then the rows are stored again one by
/// one (each in a savepoint where needed), and a row SQLite refuses for its values
/// (`sq_reject_refused_row`: a constraint, a datatype mismatch) goes to
/// ``BulkInsertSession/rejectRefused`` instead of failing the write; the others are stored.
@usableFromInline
struct InsertBatcher<Element> {
    @usableFromInline let session: BulkInsertSession
    /// The rows of the batch being bound (kept to re-bind the tail or replay a failure).
    @usableFromInline var pending: [Element] = []
    /// Rows added so far (stored and rejected).
    @usableFromInline var added = 0

    @inlinable
    init(session: BulkInsertSession) {
        self.session = session
        pending.reserveCapacity(session.batchRows)
    }

    /// The index of `pending[0]`.
    @inlinable
    var firstPending: Int { added &- pending.count }

    /// Binds `element` as the next row; runs the batch when it is full (RETURNING rows to `sink`).
    @inlinable
    mutating func add<Sink: RowSink>(
        _ element: Element, into sink: inout Sink, bind: (Element, OpaquePointer, Int32) throws -> Void
    ) throws {
        let session = self.session
        do {
            try bind(element, session.batch, Int32(truncatingIfNeeded: pending.count) &* session.width)
        } catch {
            throw session.wrap(error, row: added)
        }
        pending.append(element)
        added &+= 1
        if pending.count == session.batchRows {
            try execute(session.batch, into: &sink, bind: bind)
        }
    }

    /// Runs the partial last batch, if any; returns the number of rows stored (added and
    /// not rejected).
    @inlinable
    mutating func finish<Sink: RowSink>(
        into sink: inout Sink, bind: (Element, OpaquePointer, Int32) throws -> Void
    ) throws -> Int {
        guard !pending.isEmpty else { return added &- session.rejected }
        let session = self.session
        let first = firstPending
        let tail = try session.statement(rows: pending.count)
        for (i, element) in pending.enumerated() {
            do {
                try bind(element, tail, Int32(truncatingIfNeeded: i) &* session.width)
            } catch {
                throw session.wrap(error, row: first + i)
            }
        }
        try execute(tail, into: &sink, bind: bind)
        return added &- session.rejected
    }

    /// Runs `stmt` (bound with the pending rows); on failure replays them one by one
    /// and throws the error of the first that fails. Then the batch is done: its TEXT
    /// bytes may be recycled (every parameter is bound again before a statement next steps).
    @inlinable
    mutating func execute<Sink: RowSink>(
        _ stmt: OpaquePointer, into sink: inout Sink, bind: (Element, OpaquePointer, Int32) throws -> Void
    ) throws {
        let session = self.session
        if session.rejectRefused != nil {
            try executeRejecting(stmt, into: &sink, bind: bind)
        } else {
            let rc = try session.run(stmt, into: &sink)
            if rc != SQLITE_OK {
                try replayFailedBatch(code: rc, into: &sink, bind: bind)
            }
        }
        pending.removeAll(keepingCapacity: true)
        session.arena.reset()
    }

    /// ``execute(_:into:bind:)`` rejecting refused rows: the batch undoable
    /// (``runUndoable(_:into:)``); when it fails, its rows stored one by one, each
    /// undoable: a row SQLite refuses goes to ``BulkInsertSession/rejectRefused``. Not
    /// inlined into the per-row path of the writes that do not reject.
    @inlinable @inline(never)
    mutating func executeRejecting<Sink: RowSink>(
        _ stmt: OpaquePointer, into sink: inout Sink, bind: (Element, OpaquePointer, Int32) throws -> Void
    ) throws {
        let session = self.session
        guard let failed = try runUndoable(stmt, into: &sink) else { return }
        // Not a refused row (I/O, a full disk…), or the failure ended the transaction: as without rejecting.
        if session.db.isAutocommit || sq_reject_refused_row(failed.code) == 0 {
            try replayFailedBatch(code: failed.code, message: failed.message, into: &sink, bind: bind)
        }
        let first = firstPending
        let single = try session.statement(rows: 1)
        for (i, element) in pending.enumerated() {
            do { try bind(element, single, 0) } catch { throw session.wrap(error, row: first + i) }
            guard let (rc, message) = try runUndoable(single, into: &sink) else { continue }
            let error = session.statementError(row: first + i, code: rc, message: message)
            guard !session.db.isAutocommit, sq_reject_refused_row(rc) != 0, let reject = session.rejectRefused else {
                throw error
            }
            try reject(element, error)
            session.rejected &+= 1
        }
    }

    /// Runs `stmt` so that nothing of it stays when it fails: nil when it succeeded, else
    /// SQLite's code and message. Where SQLite undoes a refused statement itself
    /// (``BulkInsertSession/refusalUndone``) it just runs; else in the batch savepoint
    /// (released, or undone on failure: a `ROLLBACK TO`, which after a table was created in
    /// the transaction makes SQLite prepare every statement of the connection again).
    @inlinable
    func runUndoable<Sink: RowSink>(
        _ stmt: OpaquePointer, into sink: inout Sink
    ) throws -> (code: Int32, message: String)? {
        let session = self.session
        if session.refusalUndone {
            let rc = try session.run(stmt, into: &sink)
            return rc == SQLITE_OK ? nil : (rc, session.lastMessage)
        }
        try session.batchSavepoint(.begin)
        let rc: Int32
        do { rc = try session.run(stmt, into: &sink) } catch { session.batchSavepointRollback(); throw error }
        if rc == SQLITE_OK {
            try session.batchSavepoint(.release)
            return nil
        }
        let message = session.lastMessage
        session.batchSavepointRollback()
        return (rc, message)
    }

    /// Replays the rows of a failed batch one by one (the batch statement was undone
    /// as a whole) and throws the error of the first row that fails. No replay when the
    /// failure ended the transaction (`SQLITE_INTERRUPT`, `SQLITE_FULL`, `RAISE(ROLLBACK)`…:
    /// SQLite rolled it back itself): the rows would be stored, each in a transaction of its own.
    @inlinable
    func replayFailedBatch<Sink: RowSink>(
        code: Int32, message: String? = nil, into sink: inout Sink, bind: (Element, OpaquePointer, Int32) throws -> Void
    ) throws -> Never {
        let session = self.session
        let message = message ?? session.lastMessage
        let first = firstPending
        if pending.count > 1 && !session.db.isAutocommit {
            let single = try session.statement(rows: 1)
            for (i, element) in pending.enumerated() {
                do { try bind(element, single, 0) } catch { throw session.wrap(error, row: first + i) }
                let rc = try session.run(single, into: &sink)
                if rc != SQLITE_OK {
                    throw session.statementError(row: first + i, code: rc, message: session.lastMessage)
                }
            }
        }
        throw session.statementError(row: first, code: code, message: message)
    }
}

extension Database {
    /// The pull driver of the write path, for `insert(contentsOf:)`: every element of
    /// the iterator (after `first`, if given) through an ``InsertBatcher``, inside one
    /// savepoint, holding the connection's mutex; RETURNING rows (when the session has a
    /// RETURNING clause) to `sink` between one `beginResult` and one `endResult`.
    @inlinable
    func _bulkInsertLoop<I: IteratorProtocol, Sink: RowSink>(
        _ iterator: inout I, first: I.Element?, session: BulkInsertSession, sink: inout Sink,
        bind: (I.Element, OpaquePointer, Int32) throws -> Void
    ) throws -> Int {
        let returning = session.returning != nil
        if returning { try sink.beginResult(columns: session.returningColumns) }
        var batcher = InsertBatcher<I.Element>(session: session)
        let total: Int
        session.enterMutex()
        do {
            defer { session.leaveMutex() }
            try session.begin()
            do {
                if let first { try batcher.add(first, into: &sink, bind: bind) }
                while let element = iterator.next() {
                    try batcher.add(element, into: &sink, bind: bind)
                }
                total = try batcher.finish(into: &sink, bind: bind)
                try session.commit()
            } catch {
                session.rollback()
                throw error
            }
        }
        if returning { try sink.endResult() }
        return total
    }
}
