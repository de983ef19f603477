import CStreamQLite
import Foundation

/// The ingest core's row callback for every import: `user` is an ``IngestBatchWriter``,
/// unretained (its importer holds it for as long as the core can call back).
let ingestRowCallback: sq_ingest_row_callback = { user, row in
    Unmanaged<IngestBatchWriter>.fromOpaque(user!)._withUnsafeGuaranteedRef { $0.take(row!) }
}

/// A row of the ingest core that SQLite refused (a constraint), or a failed batch.
struct IngestWriteFailure: Error {
    var message: String
    /// The core's record index and where the record starts.
    var record: Int
    var offset: Int
    var line: Int
    var column: Int
}

/// The push driver of the library's one write path (``InsertBatcher`` over a
/// ``BulkInsertSession``: multi-row `INSERT … VALUES`, conflict handling) for the
/// rows of the ingest core (`sq_ingest.h`): format-neutral, so `importJSON` and
/// `importCSV` only feed the core and forward each row here.
///
/// The first row decides the inserted columns: a column the core reports as
/// `SQ_INGEST_V_OMITTED` (a DEFAULT column the first record did not name) is
/// left out. A row's values must stay valid until its batch has run, so that the
/// write path can re-bind them for a partial last batch or a replay: the core's
/// are only valid during its callback, so they are copied into a slot row (TEXT
/// into the session's arena); a worker's pipe in hold mode (``hold(in:)``) keeps
/// them where they lie until the writer releases them after each batch, so they
/// are bound from there. The savepoint is the import's.
final class IngestBatchWriter {
    /// A row of the batch being bound: its values (the core's whole row: a slot row,
    /// or an item held in the pipe) and where its record starts.
    struct Row {
        var values: UnsafePointer<sq_ingest_value>
        var record: Int
        var offset: Int
        var line: Int
        var column: Int
    }

    /// A row SQLite refused (``onRefused``): where its record starts and its raw text as
    /// the core gave it (`sq_ingest_set_row_raw`), in the form
    /// ``IngestRejecter/take(record:line:offset:column:reason:raw:)`` takes (nil: none).
    struct RefusedRow {
        var record: Int
        var offset: Int
        var line: Int
        var column: Int
        var raw: (bytes: UnsafeRawBufferPointer, truncated: Bool)?
    }

    /// The raw text of a pending row (rows that carry one: the imports rejecting refused
    /// rows), kept beside the batch (in the arena, or in the pipe's item) until it has run.
    private struct RawText {
        var record: Int
        var bytes: UnsafeRawPointer
        var count: Int
        var truncated: Bool
    }

    let db: Database
    let table: String
    /// The core's columns, in its order.
    let columns: [String]
    let insertOptions: InsertOptions
    /// The column given each row's file name (`filenameColumn`), inserted after the
    /// core's, or nil.
    let fileColumn: String?
    /// The file name that column gets (NUL terminated; nil: NULL, input in memory).
    @exclusivity(unchecked) private var fileText: UnsafeMutablePointer<CChar>?
    /// `fileColumn != nil`, read per row without touching the string.
    private let hasFileColumn: Bool
    // The per-row state is touched for every value: no exclusivity checks, and the
    // session's arena is held as a raw reference (the session owns the arena and lives
    // as long as the writer), so a row costs no retain/release.
    @exclusivity(unchecked) private var batcher: InsertBatcher<Row>?
    @exclusivity(unchecked) private var arena: Unmanaged<BindArena>?
    @exclusivity(unchecked) private var noRows = NoReturnedRows()
    /// Core column of each inserted column (`active[0..<activeCount]`).
    @exclusivity(unchecked) private var active: UnsafeMutablePointer<Int>?
    @exclusivity(unchecked) private var activeCount = 0
    /// `batchRows` slot rows of `columns.count` values: slot row `i` holds the copy of
    /// the batch's row `i` when that row was copied.
    @exclusivity(unchecked) private var slots: UnsafeMutablePointer<sq_ingest_value>?
    @exclusivity(unchecked) private var slotCount = 0
    /// The pipe in hold mode whose items the rows point into (``hold(in:)``), or nil.
    @exclusivity(unchecked) private var pipe: OpaquePointer?
    /// The raw texts of the pending rows that carry one, in their order
    /// (`rawTexts[0..<rawCount]`, room for a batch).
    @exclusivity(unchecked) private var rawTexts: UnsafeMutablePointer<RawText>?
    @exclusivity(unchecked) private var rawCount = 0

    init(db: Database, table: String, columns: [String], insertOptions: InsertOptions, fileColumn: String? = nil) {
        self.db = db
        self.table = table
        self.columns = columns
        self.insertOptions = insertOptions
        self.fileColumn = fileColumn
        hasFileColumn = fileColumn != nil
    }

    /// The input's file name, for ``fileColumn`` (before the first row; later ones are
    /// ignored: the statements hold the text).
    func setFile(_ path: String?) {
        guard batcher == nil else { return }
        free(fileText)
        fileText = path.map { strdup($0) }
    }

    deinit {
        free(fileText)
        rawTexts?.deallocate()
        slots?.deallocate()
        active?.deallocate()
    }

    /// With `onError: .skip`: takes a row SQLite refused for its values (a constraint, see
    /// ``InsertBatcher``) instead of failing the import; throws to stop it. Set before the
    /// first row.
    var onRefused: ((RefusedRow, InsertError) throws -> Void)?

    /// `onRefused` is set but cannot be used: the database has no rollback journal.
    private var refusedNeedsJournal = false

    /// Rows `onRefused` took.
    var refused: Int { batcher?.session.rejected ?? 0 }

    /// The `user` pointer of ``ingestRowCallback`` for this writer.
    var callbackContext: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }

    /// What stopped the core from this side (a failed batch): the core then reports
    /// `SQ_INGEST_E_ABORTED`, and the importer throws this instead.
    @exclusivity(unchecked) private(set) var failure: Error?

    /// The rows come from `pipe` (a worker's `sq_pipe`, before it starts): it is put in
    /// hold mode and the rows are bound where they lie, the pipe released after each
    /// batch. nil (after the worker is joined, before the pipe is freed): the pending
    /// rows are copied into slot rows, bound again from there, and the pipe released.
    func hold(in pipe: OpaquePointer?) {
        if let pipe {
            sq_pipe_hold(pipe, 1)
            self.pipe = pipe
        } else if let held = self.pipe {
            detach()
            self.pipe = nil
            sq_pipe_hold(held, 0)
        }
    }

    /// A completed row from the core (its values are valid during the call).
    func take(_ row: UnsafePointer<sq_ingest_row>) -> Int32 {
        do {
            try add(row)
            return SQ_INGEST_CONTINUE
        } catch {
            failure = error
            return 2  // stop
        }
    }

    /// Binds one row (its values kept until its batch has run).
    func add(_ row: sq_ingest_row) throws {
        try withUnsafePointer(to: row) { try add($0) }
    }

    /// Binds one row (its values kept until its batch has run).
    func add(_ row: UnsafePointer<sq_ingest_row>) throws {
        guard let values = row.pointee.values else { return }
        if batcher == nil {
            if !columns.indices.contains(where: { values[$0].type != SQ_INGEST_V_OMITTED }) && fileColumn == nil {
                // (an INSERT of no column: rows of nothing but defaults are no import)
                let r = row.pointee
                throw IngestWriteFailure(
                    message: "no field of the record names a column of table \(table) (its columns: \(columns.joined(separator: ", ")))",
                    record: Int(r.index), offset: Int(r.offset), line: Int(r.line), column: Int(r.column))
            }
            try start(values)
        }
        guard let active, slots != nil else { return }
        let width = activeCount
        let r = Row(values: pipe != nil ? values : copy(values, toSlot: batcher!.pending.count),
                    record: Int(row.pointee.index), offset: Int(row.pointee.offset), line: Int(row.pointee.line),
                    column: Int(row.pointee.column))
        if let raw = row.pointee.raw { keepRawText(raw, row) }
        do {
            try batcher!.add(r, into: &noRows) { r, stmt, p in Self.bind(r.values, active, width, stmt, p) }
        } catch {
            throw failure(error)
        }
        if batcher!.pending.isEmpty {
            // The batch ran: its rows' items and raw texts are no longer needed.
            if let pipe { sq_pipe_release(pipe) }
            rawCount = 0
        }
    }

    /// Keeps the raw text of `row` (a pending row's) until its batch has run: where it lies
    /// in the pipe, or copied into the arena.
    @inline(never)
    private func keepRawText(_ raw: UnsafePointer<CChar>, _ row: UnsafePointer<sq_ingest_row>) {
        let n = row.pointee.nraw
        let bytes = pipe != nil ? UnsafeRawPointer(raw) : copy(raw: UnsafeRawPointer(raw), n)
        let batchRows = batcher!.session.batchRows
        if rawTexts == nil { rawTexts = .allocate(capacity: batchRows) }
        guard rawCount < batchRows else { return }
        (rawTexts! + rawCount).initialize(to: RawText(record: Int(row.pointee.index), bytes: bytes, count: n,
                                                      truncated: row.pointee.raw_truncated != 0))
        rawCount += 1
    }

    /// `row` with its raw text, if it kept one.
    private func refused(_ row: Row) -> RefusedRow {
        let text = UnsafeBufferPointer(start: rawTexts, count: rawCount).last { $0.record == row.record }
        return RefusedRow(record: row.record, offset: row.offset, line: row.line, column: row.column,
                          raw: text.map { (UnsafeRawBufferPointer(start: $0.bytes, count: $0.count), $0.truncated) })
    }

    /// Stores the last rows; returns the number of rows stored (not counting refused ones).
    func finish() throws -> Int {
        guard batcher != nil, let active else { return 0 }
        let width = activeCount
        do {
            let stored = try batcher!.finish(into: &noRows) { r, stmt, p in Self.bind(r.values, active, width, stmt, p) }
            // the next file of the import (an importer of its own) takes them from the cache
            batcher!.session.giveBackStatements()
            return stored
        } catch {
            throw failure(error)
        }
    }

    /// Copies a row's values into slot row `slot` (TEXT and JSON bytes into the arena).
    private func copy(_ values: UnsafePointer<sq_ingest_value>, toSlot slot: Int) -> UnsafePointer<sq_ingest_value> {
        let row = slots! + slot * columns.count
        let arena = arena!
        for c in 0..<columns.count {
            var v = values[c]
            if v.type == SQ_INGEST_V_TEXT || v.type == SQ_INGEST_V_JSON {
                let bytes = arena._withUnsafeGuaranteedRef {
                    $0.copy(UnsafeRawPointer(v.text ?? UnsafePointer(bitPattern: 1)!), v.len)
                }
                v.text = UnsafeRawPointer(bytes).assumingMemoryBound(to: CChar.self)
            }
            row[c] = v
        }
        return UnsafePointer(row)
    }

    /// A row's raw text copied into the arena.
    private func copy(raw: UnsafeRawPointer, _ n: Int) -> UnsafeRawPointer {
        UnsafeRawPointer(arena!._withUnsafeGuaranteedRef { $0.copy(raw, n) })
    }

    /// The pending rows held in the pipe copied into their slot rows and bound again
    /// into the batch statement where they were bound (the pipe's items go away).
    private func detach() {
        // (raw texts copied before the pipe are copied again: rare, and then only one batch's)
        for i in 0..<rawCount { rawTexts![i].bytes = copy(raw: rawTexts![i].bytes, rawTexts![i].count) }
        guard batcher != nil, let slots, let active else { return }
        let session = batcher!.session
        let mine = UnsafePointer(slots)..<UnsafePointer(slots + slotCount)
        for i in batcher!.pending.indices where !mine.contains(batcher!.pending[i].values) {
            batcher!.pending[i].values = copy(batcher!.pending[i].values, toSlot: i)
            Self.bind(batcher!.pending[i].values, active, activeCount, session.batch,
                      Int32(truncatingIfNeeded: i) &* session.width)
        }
    }

    private func start(_ values: UnsafePointer<sq_ingest_value>) throws {
        let inserted = columns.indices.filter { values[$0].type != SQ_INGEST_V_OMITTED }
        // The file column is last, its value the same in every row: bound once per statement.
        let s = try BulkInsertSession(db: db, table: table, columns: inserted.map { columns[$0] } + (fileColumn.map { [$0] } ?? []),
                                      options: insertOptions,
                                      constantLast: hasFileColumn ? .some(fileText.map { UnsafePointer($0) }) : nil)
        batcher = InsertBatcher(session: s)
        if let onRefused {
            // Rejecting a refused row undoes its batch (a savepoint): impossible without a
            // rollback journal, so then such a row stops the import as under `.abort`.
            let schema = sqSplitQualifiedName(table).0 ?? "main"
            if (try? db.scalarText("PRAGMA \(sqQuoteIdentifier(schema)).journal_mode"))??.lowercased() == "off" {
                refusedNeedsJournal = true
            } else {
                s.rejectRefused = { [unowned self] row, error in try onRefused(refused(row as! Row), error) }
                s.refusalUndone = sq_reject_refusal_undone(db.handle) != 0
            }
        }
        arena = Unmanaged.passUnretained(s.arena)
        active = .allocate(capacity: max(inserted.count, 1))
        active!.initialize(from: inserted, count: inserted.count)
        activeCount = inserted.count
        slotCount = s.batchRows * max(columns.count, 1)
        slots = .allocate(capacity: slotCount)
        slots!.initialize(repeating: sq_ingest_value(), count: slotCount)
    }

    /// Binds the inserted columns of a row (`values`: the core's whole row) into
    /// parameters `base + 1 …` of `stmt`.
    @inline(__always)
    private static func bind(_ values: UnsafePointer<sq_ingest_value>, _ active: UnsafeMutablePointer<Int>, _ width: Int,
                             _ stmt: OpaquePointer, _ base: Int32) {
        var p = base &+ 1
        for k in 0..<width {
            let v = values + active[k]
            switch v.pointee.type {
            case SQ_INGEST_V_INTEGER: sqlite3_bind_int64(stmt, p, v.pointee.i)
            case SQ_INGEST_V_REAL: sqlite3_bind_double(stmt, p, v.pointee.r)
            case SQ_INGEST_V_TEXT, SQ_INGEST_V_JSON:
                // SQLITE_STATIC: the bytes stay until the batch has run (a slot row's arena,
                // or the pipe's held item)
                sqlite3_bind_text64(stmt, p, v.pointee.text ?? UnsafePointer(bitPattern: 1)!, sqlite3_uint64(v.pointee.len),
                                    nil, UInt8(SQLITE_UTF8))
            default: sqlite3_bind_null(stmt, p)
            }
            p &+= 1
        }
    }

    /// A statement error of the write path (naming the row by its index in this write)
    /// as the failure of the core's record.
    private func failure(_ error: Error) -> Error {
        guard var e = error as? InsertError, let batcher else { return error }
        if refusedNeedsJournal, let code = e.sqliteCode, sq_reject_refused_row(code) != 0 {
            e.message += " (not rejected: with journal_mode=OFF SQLite cannot undo the refused row's batch)"
        }
        let i = e.row - batcher.firstPending
        guard batcher.pending.indices.contains(i) else { return error }
        let r = batcher.pending[i]
        return IngestWriteFailure(message: e.message, record: r.record, offset: r.offset, line: r.line, column: r.column)
    }
}

extension IngestRejecter {
    /// A row the table refused (``IngestBatchWriter/onRefused``), with the message its
    /// import would stop with under `.abort`: a reject like the core's, with the raw text
    /// the row kept (`sq_ingest_set_row_raw`). Throws ``failure`` when it stops the import.
    func takeRefused(_ row: IngestBatchWriter.RefusedRow, column: String?, reason: String) throws {
        try take(record: row.record, line: row.line, offset: row.offset, column: column, reason: reason, raw: row.raw)
    }
}
