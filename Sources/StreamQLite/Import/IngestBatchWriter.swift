import CStreamQLite

/// A row of the ingest core that SQLite refused (a constraint), or a failed batch.
struct IngestWriteFailure: Error {
    var message: String
    /// The core's record index and where the record starts.
    var record: Int
    var offset: Int
    var line: Int
    var column: Int
}

/// The rows of the ingest core (`sq_ingest.h`) into a table, through the library's
/// bulk-insert statements (``BulkInsertSession``: multi-row `INSERT … VALUES`,
/// conflict handling): format-neutral, so a format driver (CSV here) only feeds
/// the core and forwards each row.
///
/// The first row decides the inserted columns: a column the core reports as
/// `SQ_INGEST_V_OMITTED` (a DEFAULT column the first record did not name) is
/// left out. Rows are kept (their TEXT in the session's arena) until a batch is
/// full; a failing batch is replayed row by row to name the record.
final class IngestBatchWriter {
    private enum Kind: UInt8 { case null, integer, real, text }
    private struct Slot {
        var kind: Kind = .null
        var bits: Int64 = 0                      // the integer, or the double's bits
        var text: UnsafePointer<UInt8>? = nil    // in the session's arena
        var length = 0
    }

    let db: Database
    let table: String
    /// The core's columns, in its order.
    let columns: [String]
    let insertOptions: InsertOptions
    // The per-row state is touched for every value: no exclusivity checks, and the
    // session's arena and the inserted columns are held as raw references (the
    // session owns the arena and lives as long as the writer), so a row costs no
    // retain/release (≈ 270 instructions per row less, callgrind).
    @exclusivity(unchecked) private var session: BulkInsertSession?
    @exclusivity(unchecked) private var arena: Unmanaged<BindArena>?
    /// Core column of each inserted column (`active[0..<activeCount]`).
    @exclusivity(unchecked) private var active: UnsafeMutablePointer<Int>?
    @exclusivity(unchecked) private var activeCount = 0
    @exclusivity(unchecked) private var slots: UnsafeMutablePointer<Slot>?
    @exclusivity(unchecked) private var batchRows = 0
    @exclusivity(unchecked) private var rowsInBatch = 0
    @exclusivity(unchecked) private var starts: [(record: Int, offset: Int, line: Int, column: Int)] = []
    /// Rows stored so far.
    @exclusivity(unchecked) private(set) var stored = 0

    init(db: Database, table: String, columns: [String], insertOptions: InsertOptions) {
        self.db = db
        self.table = table
        self.columns = columns
        self.insertOptions = insertOptions
    }

    deinit {
        if let slots {
            slots.deinitialize(count: batchRows * max(activeCount, 1))
            slots.deallocate()
        }
        active?.deallocate()
    }

    /// Keeps one row (its values are only valid during the core's callback).
    func add(_ row: sq_ingest_row) throws {
        guard let values = row.values else { return }
        if session == nil { try start(values) }
        let width = activeCount
        let base = rowsInBatch * width
        guard let active, let slots, let arena else { return }
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
        starts.append((Int(row.index), Int(row.offset), Int(row.line), Int(row.column)))
        rowsInBatch += 1
        if rowsInBatch == batchRows { try flush() }
    }

    /// Stores the last rows; returns the number of rows stored.
    func finish() throws -> Int {
        try flush()
        return stored
    }

    private func start(_ values: UnsafePointer<sq_ingest_value>) throws {
        let inserted = columns.indices.filter { values[$0].type != SQ_INGEST_V_OMITTED }
        let s = try BulkInsertSession(db: db, table: table, columns: inserted.map { columns[$0] }, options: insertOptions)
        session = s
        arena = Unmanaged.passUnretained(s.arena)
        active = .allocate(capacity: max(inserted.count, 1))
        active!.initialize(from: inserted, count: inserted.count)
        activeCount = inserted.count
        batchRows = s.batchRows
        slots = .allocate(capacity: batchRows * max(activeCount, 1))
        slots!.initialize(repeating: Slot(), count: batchRows * max(activeCount, 1))
    }

    private func bind(_ stmt: OpaquePointer, rows from: Int, count: Int) {
        let width = activeCount
        var p: Int32 = 1
        for r in from..<(from + count) {
            for k in 0..<width {
                let s = slots![r * width + k]
                switch s.kind {
                case .null: sqlite3_bind_null(stmt, p)
                case .integer: sqlite3_bind_int64(stmt, p, s.bits)
                case .real: sqlite3_bind_double(stmt, p, Double(bitPattern: UInt64(bitPattern: s.bits)))
                case .text:
                    sqlite3_bind_text64(stmt, p, UnsafeRawPointer(s.text!).assumingMemoryBound(to: CChar.self),
                                        sqlite3_uint64(s.length), nil /* SQLITE_STATIC: the arena */, UInt8(SQLITE_UTF8))
                }
                p += 1
            }
        }
    }

    private func flush() throws {
        guard rowsInBatch > 0, let session else { return }
        let count = rowsInBatch
        let stmt = try session.statement(rows: count)
        bind(stmt, rows: 0, count: count)
        if session.run(stmt) != SQLITE_OK {
            let batchMessage = session.lastMessage
            let single = try session.statement(rows: 1)
            for r in 0..<count {
                bind(single, rows: r, count: 1)
                if session.run(single) != SQLITE_OK {
                    let s = starts[r]
                    throw IngestWriteFailure(message: session.lastMessage, record: s.record, offset: s.offset,
                                             line: s.line, column: s.column)
                }
            }
            let s = starts[0]
            throw IngestWriteFailure(message: batchMessage, record: s.record, offset: s.offset, line: s.line, column: s.column)
        }
        stored += count
        rowsInBatch = 0
        starts.removeAll(keepingCapacity: true)
        session.arena.reset()
    }
}
