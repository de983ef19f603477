import CStreamQLite
import Foundation

/// The Swift driver of the ingest core (`sq_ingest.h`) for ``Database/importJSON(bytes:into:options:progress:)-70bm6``.
///
/// The core parses the chunks and assembles each element into a typed row (key → column,
/// coercion, nested values, dates, strict mode: the rules `json_stream` follows too) and
/// hands it over once per row. This class keeps what is Swift's: the options turned into
/// the core's configuration, progress, and the errors as ``JSONImportError``; the rows go
/// to ``IngestBatchWriter`` (the format-neutral batched `INSERT` that `importCSV` uses too).
final class JSONImporter: ChunkedImporter {
    let db: Database
    let table: String
    let options: JSONImportOptions
    let progress: ((ImportProgress) -> Void)?
    private let ingest: OpaquePointer

    /// The core's rows into the table, in batches.
    private let writer: IngestBatchWriter
    /// The rejected records (``ImportErrorPolicy/skip``), or nil.
    private let rejecter: IngestRejecter?
    /// The core's callbacks: to the writer and rejecter, or to a worker's pipe.
    private let route: ImportRoute

    @exclusivity(unchecked) private(set) var consumed = 0
    var compressedBytes = 0

    init(db: Database, table: String, options: JSONImportOptions, progress: ((ImportProgress) -> Void)?) throws {
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
        if let fileColumn = options.filenameColumn, tableColumn(named: fileColumn) == nil {
            throw JSONImportError(message: "filenameColumn: table \(table) has no column \(fileColumn)",
                                  byteOffset: 0, line: 1, column: 1)
        }
        var chosen: [TableColumn]
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
        if let fileColumn = options.filenameColumn {
            chosen.removeAll { sqlite3_stricmp($0.name, fileColumn) == 0 }
        }
        var insertOptions = InsertOptions()
        insertOptions.onConflict = options.onConflict
        insertOptions.batchSize = options.batchSize
        writer = IngestBatchWriter(db: db, table: table, columns: chosen.map(\.name), insertOptions: insertOptions,
                                   fileColumn: options.filenameColumn)
        if options.onError == .skip {
            let layout = options.layout
            rejecter = try IngestRejecter(
                db: db, rejectTable: options.rejectTable, maxErrors: options.maxErrors, onReject: options.onReject,
                function: "importJSON", reason: { r in Self.error(r.pointee.error.pointee, layout: layout).description },
                makeError: { JSONImportError(message: $0, byteOffset: 0, line: 0, column: 0) })
            writer.onRefused = { [rejecter] row, e in
                try rejecter!.takeRefused(row, column: e.column, reason: JSONImportError(
                    message: e.message, byteOffset: row.offset, line: row.line, column: row.column,
                    element: row.record, key: e.column).description)
            }
        } else {
            rejecter = nil
        }
        guard let ingest = sq_ingest_new(ingestRowCallback, nil) else {
            throw JSONImportError(message: "out of memory", byteOffset: 0, line: 1, column: 1)
        }
        self.ingest = ingest
        route = ImportRoute(writer: writer, rejecter: rejecter)
        try configure(chosen)
        sq_ingest_set_row_callback(ingest, ImportRoute.rowCallback, route.context)
        if rejecter != nil {
            sq_ingest_set_reject_callback(ingest, ImportRoute.rejectCallback, route.context)
            sq_ingest_set_row_raw(ingest, 1)   // a row the table refuses is rejected with its raw text
        }
    }

    func setInputFile(_ path: String) {
        rejecter?.file = path
        writer.setFile(path)
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
        where chosen.contains(where: { sqlite3_stricmp($0.name, column) == 0 }) {
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

    deinit { sq_ingest_free(ingest) }

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
        progress?(ImportProgress(bytes: consumed, rows: Int(sq_ingest_records(ingest)), compressedBytes: compressedBytes))
    }

    func finish() throws -> Int {
        if sq_ingest_json_finish(ingest) == SQ_INGEST_ERROR { throw ingestError() }
        do { _ = try writer.finish() } catch { throw importError(error) }
        try rejecter?.end(records: Int(sq_ingest_records(ingest)))
        let rows = Int(sq_ingest_records(ingest) - sq_ingest_rejected(ingest)) - writer.refused
        progress?(ImportProgress(bytes: consumed, rows: rows, compressedBytes: compressedBytes))
        return rows
    }

    func inputError(_ message: String) -> any Error {
        JSONImportError(message: message, byteOffset: consumed, line: 0, column: 0)
    }

    /// The core's error as a JSONImportError (or what stopped it from here).
    private func ingestError() -> Error {
        let e = sq_ingest_error_info(ingest).pointee
        if e.code == SQ_INGEST_E_ABORTED, let failure = stopFailure { return failure }
        return Self.error(e, layout: options.layout)
    }

    /// What stopped the core from this side: a spent error budget, a failed batch.
    private var stopFailure: Error? { rejecter?.failure ?? writer.failure.map(importError) }

    // MARK: On a worker (ChunkFile)

    var workerFeed: ImportWorkerFeed? {
        ImportWorkerFeed(context: UnsafeMutableRawPointer(ingest),
                         feed: { g, bytes, n in sq_ingest_json_feed(OpaquePointer(g), bytes, n) },
                         records: { g in sq_ingest_records(OpaquePointer(g)) })
    }

    var router: ImportRoute? { route }

    func fed(bytes: Int, compressedBytes: Int, records: Int) {
        consumed = bytes
        self.compressedBytes = compressedBytes
        progress?(ImportProgress(bytes: consumed, rows: records, compressedBytes: compressedBytes))
    }

    func feedError() -> any Error { ingestError() }
    func takeError() -> any Error { stopFailure ?? ingestError() }

    /// An error of the core as a JSONImportError (for a reject: its reason).
    private static func error(_ e: sq_ingest_error, layout: JSONImportLayout) -> JSONImportError {
        var message = String(cString: e.message)
        if e.code == SQ_INGEST_E_JSON { message = "invalid JSON: " + message }
        if e.code == SQ_INGEST_E_LAYOUT && e.record < 0 && layout == .array && e.line > 0 {
            message += " (use layout .arrayAt([…]) or .ndjson)"
        }
        let key = e.key.map { String(decoding: UnsafeRawBufferPointer(start: $0, count: e.nkey), as: UTF8.self) }
        return JSONImportError(message: message, byteOffset: Int(e.offset), line: Int(e.line), column: Int(e.column),
                               element: e.record >= 0 ? Int(e.record) : nil, key: key)
    }

    /// A failed batch as a JSONImportError naming the element (and the column, for NOT NULL
    /// and UNIQUE constraints).
    private func importError(_ error: Error) -> Error {
        guard let w = error as? IngestWriteFailure else { return error }
        return JSONImportError(message: w.message, byteOffset: w.offset, line: w.line, column: w.column,
                               element: w.record, key: constraintColumn(in: w.message))
    }
}
