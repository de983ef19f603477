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
/// left out. A row's values are only valid during the core's callback: they are
/// kept in a slot row (TEXT in the session's arena) until their batch has run,
/// so the write path can re-bind them for a partial last batch or a replay.
/// The savepoint is the import's.
final class IngestBatchWriter {
    private enum Kind: UInt8 { case null, integer, real, text }
    private struct Slot {
        var kind: Kind = .null
        var bits: Int64 = 0                      // the integer, or the double's bits
        var text: UnsafePointer<UInt8>? = nil    // in the session's arena
        var length = 0
    }
    /// A row of the batch being bound: its slot row and where its record starts.
    struct Row {
        var slot: Int
        var record: Int
        var offset: Int
        var line: Int
        var column: Int
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
    /// `batchRows` slot rows of `activeCount` values.
    @exclusivity(unchecked) private var slots: UnsafeMutablePointer<Slot>?
    @exclusivity(unchecked) private var slotCount = 0
    /// The slot row of the next row (the batcher's pending count), and rows per batch.
    @exclusivity(unchecked) private var nextSlot = 0
    @exclusivity(unchecked) private var batchRows = 0

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
        if let slots {
            slots.deinitialize(count: slotCount)
            slots.deallocate()
        }
        active?.deallocate()
    }

    /// With `onError: .skip`: takes a row SQLite refused for its values (a constraint, see
    /// ``InsertBatcher``) instead of failing the import; throws to stop it. Set before the
    /// first row.
    var onRefused: ((Row, InsertError) throws -> Void)?

    /// `onRefused` is set but cannot be used: the database has no rollback journal.
    private var refusedNeedsJournal = false

    /// Rows `onRefused` took.
    var refused: Int { batcher?.session.rejected ?? 0 }

    /// The `user` pointer of ``ingestRowCallback`` for this writer.
    var callbackContext: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }

    /// What stopped the core from this side (a failed batch): the core then reports
    /// `SQ_INGEST_E_ABORTED`, and the importer throws this instead.
    @exclusivity(unchecked) private(set) var failure: Error?

    /// A completed row from the core (its values are valid during the call).
    func take(_ row: UnsafePointer<sq_ingest_row>) -> Int32 {
        do {
            try add(row.pointee)
            return SQ_INGEST_CONTINUE
        } catch {
            failure = error
            return 2  // stop
        }
    }

    /// Keeps one row (its values are only valid during the core's callback) and binds it.
    func add(_ row: sq_ingest_row) throws {
        guard let values = row.values else { return }
        if batcher == nil { try start(values) }
        guard let active, let slots, let arena else { return }
        let width = activeCount
        let slot = nextSlot
        let base = slot * width
        for k in 0..<width {
            let v = values[active[k]]
            var s = Slot()
            switch v.type {
            case SQ_INGEST_V_INTEGER: s.kind = .integer; s.bits = v.i
            case SQ_INGEST_V_REAL: s.kind = .real; s.bits = Int64(bitPattern: v.r.bitPattern)
            case SQ_INGEST_V_TEXT, SQ_INGEST_V_JSON:
                s.kind = .text
                s.length = v.len
                s.text = arena._withUnsafeGuaranteedRef { $0.copy(UnsafeRawPointer(v.text ?? UnsafePointer(bitPattern: 1)!), v.len) }
            default: break
            }
            slots[base + k] = s
        }
        let r = Row(slot: slot, record: Int(row.index), offset: Int(row.offset), line: Int(row.line), column: Int(row.column))
        do {
            try batcher!.add(r, into: &noRows) { r, stmt, p in Self.bind(slots, width, r.slot, stmt, p) }
            // The batcher runs its batch when it holds `batchRows` rows: the slots are free again.
            nextSlot = slot + 1 == batchRows ? 0 : slot + 1
        } catch {
            throw failure(error)
        }
    }

    /// Stores the last rows; returns the number of rows stored (not counting refused ones).
    func finish() throws -> Int {
        guard batcher != nil, let slots else { return 0 }
        let width = activeCount
        do {
            return try batcher!.finish(into: &noRows) { r, stmt, p in Self.bind(slots, width, r.slot, stmt, p) }
        } catch {
            throw failure(error)
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
                s.rejectRefused = { row, error in try onRefused(row as! Row, error) }
            }
        }
        arena = Unmanaged.passUnretained(s.arena)
        active = .allocate(capacity: max(inserted.count, 1))
        active!.initialize(from: inserted, count: inserted.count)
        activeCount = inserted.count
        batchRows = s.batchRows
        slotCount = s.batchRows * max(activeCount, 1)
        slots = .allocate(capacity: slotCount)
        slots!.initialize(repeating: Slot(), count: slotCount)
    }

    /// Binds slot row `row` into parameters `base + 1 …` of `stmt`.
    @inline(__always)
    private static func bind(_ slots: UnsafeMutablePointer<Slot>, _ width: Int, _ row: Int, _ stmt: OpaquePointer,
                             _ base: Int32) {
        var p = base &+ 1
        for k in 0..<width {
            let s = slots[row * width + k]
            switch s.kind {
            case .null: sqlite3_bind_null(stmt, p)
            case .integer: sqlite3_bind_int64(stmt, p, s.bits)
            case .real: sqlite3_bind_double(stmt, p, Double(bitPattern: UInt64(bitPattern: s.bits)))
            case .text:
                sqlite3_bind_text64(stmt, p, UnsafeRawPointer(s.text!).assumingMemoryBound(to: CChar.self),
                                    sqlite3_uint64(s.length), nil /* SQLITE_STATIC: the arena */, UInt8(SQLITE_UTF8))
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
