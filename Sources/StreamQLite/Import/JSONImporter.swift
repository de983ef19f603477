import CStreamQLite
import Foundation

/// One bound value of a pending row.
private struct ImportSlot {
    enum Kind: UInt8 { case null, integer, real, text }
    var kind: Kind = .null
    var bits: Int64 = 0  // the integer, or the double's bit pattern
    var offset = 0       // text: start in the arena
    var length = 0
}

private let importRowCallback: sq_ingest_row_callback = { user, row in
    // The importer outlives the core that calls back: no retain/release per row.
    Unmanaged<JSONImporter>.fromOpaque(user!)._withUnsafeGuaranteedRef { $0.take(row!) }
}

/// The Swift driver of the ingest core (`sq_ingest.h`) for ``Database/importJSON(bytes:into:options:progress:)``.
///
/// The core parses the chunks and assembles each element into a typed row (key → column,
/// coercion, nested values, dates, strict mode: the rules `json_stream` follows too) and
/// hands it over once per row. This class keeps what is Swift's: the options turned into
/// the core's configuration, the rows batched into multi-row `INSERT`s, progress, and the
/// core's errors as ``JSONImportError``.
final class JSONImporter {
    let db: Database
    let table: String
    let options: JSONImportOptions
    let progress: ((JSONImportProgress) -> Void)?
    private let ingest: OpaquePointer

    // Target columns (in the core's order).
    private let columns: [String]
    /// Positions (in `columns`) inserted: decided by the first row (a DEFAULT column it
    /// has no key for is left out, so the DEFAULT applies).
    @exclusivity(unchecked) private var activeColumns: [Int]?

    // Batching.
    private let batchRows: Int
    @exclusivity(unchecked) private var slots: UnsafeMutablePointer<ImportSlot>
    /// The TEXT bytes of the pending batch (raw memory: one bounds-free copy per value; the
    /// slots keep offsets, so growing it is safe until the batch is bound).
    @exclusivity(unchecked) private var arena = UnsafeMutablePointer<UInt8>.allocate(capacity: 64 * 1024)
    @exclusivity(unchecked) private var arenaCount = 0
    @exclusivity(unchecked) private var arenaCapacity = 64 * 1024
    @exclusivity(unchecked) private var rowsInBatch = 0
    @exclusivity(unchecked) private var rowStarts: [(element: Int, offset: Int, line: Int, column: Int)] = []
    @exclusivity(unchecked) private var statements: [Int: OpaquePointer] = [:]

    /// What stopped the core from Swift's side (a failed batch).
    @exclusivity(unchecked) private var failure: Error?
    @exclusivity(unchecked) private(set) var consumed = 0

    init(db: Database, table: String, options: JSONImportOptions, progress: ((JSONImportProgress) -> Void)?) throws {
        self.db = db
        self.table = table
        self.options = options
        self.progress = progress
        let tableColumns = try db.sqTableColumns(table, function: "importJSON")
        func tableColumn(named name: String) -> TableColumn? {
            // SQLite's rule for column names: equal ignoring ASCII case.
            tableColumns.first { sqlite3_stricmp($0.name, name) == 0 }
        }
        for (key, column) in options.renames where tableColumn(named: column) == nil {
            throw JSONImportError(message: "rename '\(key)' → '\(column)': table \(table) has no column \(column)",
                                  byteOffset: 0, line: 1, column: 1)
        }
        let chosen: [TableColumn]
        if let explicit = options.columns {
            chosen = try explicit.map { name in
                guard let c = tableColumn(named: name) else {
                    throw JSONImportError(message: "table \(table) has no column \(name)", byteOffset: 0, line: 1, column: 1)
                }
                return c
            }
        } else {
            chosen = tableColumns
        }
        columns = chosen.map(\.name)
        guard let ingest = sq_ingest_new(importRowCallback, nil) else {
            throw JSONImportError(message: "out of memory", byteOffset: 0, line: 1, column: 1)
        }
        self.ingest = ingest
        let limit = Int(sqlite3_limit(db.handle, SQLITE_LIMIT_VARIABLE_NUMBER, -1))
        batchRows = max(1, min(options.batchSize, limit / max(chosen.count, 1)))
        slots = .allocate(capacity: batchRows * max(chosen.count, 1))
        slots.initialize(repeating: ImportSlot(), count: batchRows * max(chosen.count, 1))
        try configure(chosen)
        sq_ingest_set_row_callback(ingest, importRowCallback, Unmanaged.passUnretained(self).toOpaque())
    }

    /// The options as the core's configuration.
    private func configure(_ chosen: [TableColumn]) throws {
        for c in chosen {
            // Without an explicit column list, a column with a DEFAULT is inserted only when
            // the first element has a key for it (JSONImportOptions.columns).
            let flags = options.columns == nil && c.hasDefault ? UInt32(SQ_INGEST_COL_DEFAULT) : 0
            _ = sq_ingest_add_column(ingest, c.name, -1, c.declaredType, -1, flags)
        }
        for (key, column) in options.renames.sorted(by: { $0.key < $1.key })
        where columns.contains(where: { sqlite3_stricmp($0, column) == 0 }) {
            _ = sq_ingest_map_key(ingest, key, -1, column, -1)
        }
        sq_ingest_set_strict(ingest, options.strict ? 1 : 0)
        switch options.layout {
        case .array: _ = sq_ingest_json_layout(ingest, SQ_INGEST_LAYOUT_ARRAY)
        case .ndjson: _ = sq_ingest_json_layout(ingest, SQ_INGEST_LAYOUT_NDJSON)
        case .arrayAt(let path):
            for key in path { _ = sq_ingest_json_path_key(ingest, key, Int32(key.utf8.count)) }
        }
        // An element's values are bounded, as in json_stream: 64 MiB or SQLite's length limit.
        let length = Int64(sqlite3_limit(db.handle, SQLITE_LIMIT_LENGTH, -1))
        sq_ingest_set_max_record(ingest, min(Int64(64 << 20) /* SQ_INGEST_DEFAULT_MAX_RECORD */, max(length, 1)))
        if sq_ingest_error_info(ingest).pointee.code != SQ_INGEST_E_NONE { throw ingestError() }
    }

    deinit {
        sq_ingest_free(ingest)
        slots.deallocate()
        arena.deallocate()
        for s in statements.values { sqlite3_finalize(s) }
    }

    // MARK: Input

    func feed(_ bytes: UnsafeRawBufferPointer) throws {
        guard bytes.count > 0 else { return }
        // Hold the connection's recursive mutex for the chunk: the binds and steps
        // below re-enter it cheaply (a no-op for NOMUTEX connections).
        let mutex = sqlite3_db_mutex(db.handle)
        sqlite3_mutex_enter(mutex)
        defer { sqlite3_mutex_leave(mutex) }
        if sq_ingest_json_feed(ingest, bytes.baseAddress, bytes.count) == SQ_INGEST_ERROR { throw ingestError() }
        consumed += bytes.count
        progress?(JSONImportProgress(bytes: consumed, rows: Int(sq_ingest_records(ingest))))
    }

    func finish() throws -> Int {
        if sq_ingest_json_finish(ingest) == SQ_INGEST_ERROR { throw ingestError() }
        try flush()
        let rows = Int(sq_ingest_records(ingest))
        progress?(JSONImportProgress(bytes: consumed, rows: rows))
        return rows
    }

    /// The core's error as a JSONImportError (or what stopped it from here).
    private func ingestError() -> Error {
        let e = sq_ingest_error_info(ingest).pointee
        if e.code == SQ_INGEST_E_ABORTED, let failure { return failure }
        var message = String(cString: e.message)
        if e.code == SQ_INGEST_E_JSON { message = "invalid JSON: " + message }
        if e.code == SQ_INGEST_E_LAYOUT && e.record < 0 && options.layout == .array && e.line > 0 {
            message += " (use layout .arrayAt([…]) or .ndjson)"
        }
        let key = e.key.map { String(decoding: UnsafeRawBufferPointer(start: $0, count: e.nkey), as: UTF8.self) }
        return JSONImportError(message: message, byteOffset: Int(e.offset), line: Int(e.line), column: Int(e.column),
                               element: e.record >= 0 ? Int(e.record) : nil, key: key)
    }

    // MARK: Rows

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

    private func add(_ row: sq_ingest_row) throws {
        let width = columns.count
        guard let values = row.values else { return }
        if activeColumns == nil {
            activeColumns = (0..<width).filter { values[$0].type != SQ_INGEST_V_OMITTED }
        }
        let base = rowsInBatch * width
        for c in 0..<width {
            let v = values[c]
            switch v.type {
            case SQ_INGEST_V_INTEGER:
                slots[base + c].kind = .integer
                slots[base + c].bits = v.i
            case SQ_INGEST_V_REAL:
                slots[base + c].kind = .real
                slots[base + c].bits = Int64(bitPattern: v.r.bitPattern)
            case SQ_INGEST_V_TEXT, SQ_INGEST_V_JSON:
                let n = v.len
                if arenaCapacity - arenaCount < n { growArena(n) }
                if n > 0 { UnsafeMutableRawPointer(arena + arenaCount).copyMemory(from: v.text, byteCount: n) }
                slots[base + c] = ImportSlot(kind: .text, bits: 0, offset: arenaCount, length: n)
                arenaCount += n
            default:
                slots[base + c].kind = .null
            }
        }
        rowStarts.append((Int(row.index), Int(row.offset), Int(row.line), Int(row.column)))
        rowsInBatch += 1
        if rowsInBatch == batchRows { try flush() }
    }

    private func growArena(_ n: Int) {
        let capacity = max(arenaCapacity * 2, arenaCount + n)
        let bigger = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)
        bigger.update(from: arena, count: arenaCount)
        arena.deallocate()
        arena = bigger
        arenaCapacity = capacity
    }

    // MARK: Batches

    private func statement(rows: Int) throws -> OpaquePointer {
        if let s = statements[rows] { return s }
        let names = (activeColumns ?? Array(columns.indices)).map { columns[$0] }
        var insertOptions = InsertOptions()
        insertOptions.onConflict = options.onConflict
        let s = try db.sqPrepare(db.bulkInsertSQL(table: table, columns: names, rowCount: rows,
                                                  options: insertOptions, returning: nil))
        statements[rows] = s
        return s
    }

    /// Binds rows `from..<from+count` of the batch into `stmt` (SQLITE_STATIC: the arena outlives the step).
    private func bind(_ stmt: OpaquePointer, rows from: Int, count: Int) {
        let active = activeColumns ?? Array(columns.indices)
        let width = columns.count
        var p: Int32 = 1
        for r in from..<(from + count) {
            let base = r * width
            for c in active {
                let s = slots[base + c]
                switch s.kind {
                case .null: sqlite3_bind_null(stmt, p)
                case .integer: sqlite3_bind_int64(stmt, p, s.bits)
                case .real: sqlite3_bind_double(stmt, p, Double(bitPattern: UInt64(bitPattern: s.bits)))
                case .text:
                    sqlite3_bind_text64(stmt, p, UnsafeRawPointer(arena + s.offset).assumingMemoryBound(to: CChar.self),
                                        sqlite3_uint64(s.length), nil /* SQLITE_STATIC */, UInt8(SQLITE_UTF8))
                }
                p += 1
            }
        }
    }

    private func step(_ stmt: OpaquePointer) -> Int32 {
        var rc = sqlite3_step(stmt)
        while rc == SQLITE_ROW { rc = sqlite3_step(stmt) }
        let code = rc == SQLITE_DONE ? SQLITE_OK : sqlite3_extended_errcode(db.handle)
        sqlite3_reset(stmt)
        return code
    }

    private func flush() throws {
        guard rowsInBatch > 0 else { return }
        let count = rowsInBatch
        let stmt = try statement(rows: count)
        bind(stmt, rows: 0, count: count)
        if step(stmt) != SQLITE_OK {
            let batchMessage = db.sqLastErrorMessage
            // Replay row by row to name the element.
            let single = try statement(rows: 1)
            for r in 0..<count {
                bind(single, rows: r, count: 1)
                if step(single) != SQLITE_OK {
                    let message = db.sqLastErrorMessage
                    let start = rowStarts[r]
                    throw JSONImportError(message: message, byteOffset: start.offset, line: start.line, column: start.column,
                                          element: start.element, key: constraintColumn(in: message))
                }
            }
            let start = rowStarts[0]
            throw JSONImportError(message: batchMessage, byteOffset: start.offset, line: start.line, column: start.column,
                                  element: start.element)
        }
        rowsInBatch = 0
        rowStarts.removeAll(keepingCapacity: true)
        arenaCount = 0
    }
}
