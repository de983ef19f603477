import CStreamQLite
import Foundation

/// The Swift driver of the ingest core (`sq_ingest.h`) and its JSON driver (`sq_json_ingest.h`) for ``Database/importJSON(bytes:into:options:progress:)-70bm6``.
///
/// The core parses the chunks and assembles each element into a typed row (key → column,
/// coercion, nested values, dates, strict mode: the rules `json_stream` follows too) and
/// hands it over once per row. This class keeps what is Swift's: the options turned into
/// the core's configuration, progress, and the errors as ``Database/JSONImportError``; the rows go
/// to ``IngestBatchWriter`` (the format-neutral batched `INSERT` that `importCSV` uses too).
final class JSONImporter: ProgressCountingImporter {
    let db: Database
    let table: String
    let options: JSONImportOptions
    /// The core; it, the writer, the rejecter and the route are set up once the table exists
    /// (at once, or after inference: ``ImportOptions/createTable``).
    private var ingest: OpaquePointer!
    /// The core's rows into the table, in batches.
    private var writer: IngestBatchWriter!
    /// The rejected records (``ImportReject/Policy/skip``), or nil.
    private var rejecter: IngestRejecter?
    /// The core's callbacks: to the writer and rejecter, or to a worker's pipe.
    private var route: ImportRoute!

    @exclusivity(unchecked) var counter: ImportProgressCounter
    /// The file being read (``ImportOptions/filenameColumn``, rejects), when known.
    private var inputFile: String?
    /// The sample read before the table exists (``ImportOptions/createTable``).
    private var inference: JSONColumnInference?
    /// The table this import (or an earlier file of it) created from inferred columns.
    private(set) var created: JSONInferredTable?

    /// `created`: the table an earlier file of the same import created (its elements are
    /// read as this import's own).
    init(db: Database, table: String, options: JSONImportOptions, progress: ((ImportProgress) -> Void)?,
         created: JSONInferredTable? = nil) throws {
        self.db = db
        self.table = table
        self.options = options
        counter = ImportProgressCounter(progress)
        if options.createTable, created == nil, try db.sqTableColumnsIfExists(table, function: "importJSON") == nil {
            if options.columns != nil {
                throw Database.JSONImportError(message: "createTable: the columns of table \(table) are inferred from the keys, "
                                               + "so columns cannot be given (create the table to choose them)",
                                               byteOffset: 0, line: 1, column: 1)
            }
            inference = try JSONColumnInference(options: options, maxRecord: maxRecord)
        } else {
            self.created = created
            try setUp()
        }
    }

    /// The core, the writer and the rejecter for the table's columns.
    private func setUp() throws {
        let tableColumns = try db.sqTableColumns(table, function: "importJSON")
        let common = options.common
        if let (key, column) = common.renameWithoutColumn(among: tableColumns.map(\.name)) {
            throw Database.JSONImportError(message: "rename '\(key)' → '\(column)': table \(table) has no column \(column)",
                                           byteOffset: 0, line: 1, column: 1)
        }
        let chosen = try common.filledColumns(of: tableColumns, name: \.name, table: table, checkFileColumn: true) {
            Database.JSONImportError(message: $0, byteOffset: 0, line: 1, column: 1)
        }
        let writer = IngestBatchWriter(db: db, table: table, columns: chosen.map(\.name), insertOptions: common.insertOptions,
                                       fileColumn: common.filenameColumn)
        writer.setFile(inputFile)
        self.writer = writer
        if options.onError == .skip {
            let layout = options.layout, created = created
            let rejecter = try IngestRejecter(
                db: db, options: common, function: "importJSON",
                reason: { r in Self.error(r.pointee.error.pointee, layout: layout, created: created).description },
                makeError: { Database.JSONImportError(message: $0, byteOffset: 0, line: 0, column: 0) })
            rejecter.file = inputFile
            writer.onRefused = { row, e in
                try rejecter.takeRefused(row, column: e.column, reason: Database.JSONImportError(
                    message: e.message, byteOffset: row.offset, line: row.line, column: row.column,
                    element: row.record, key: e.column).description)
            }
            self.rejecter = rejecter
        }
        guard let ingest = sq_ingest_new(ingestRowCallback, nil) else {
            throw Database.JSONImportError(message: "out of memory", byteOffset: 0, line: 1, column: 1)
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

    /// Inference is done: creates the table from its columns, sets up the core and feeds
    /// it the sample.
    private func createTable(from inference: JSONColumnInference) throws {
        self.inference = nil
        for c in inference.columns {
            if c.name.isEmpty || c.name.utf8.contains(0) {
                throw Database.JSONImportError(message: "createTable: the key \(c.name.debugDescription) cannot name a column: "
                                               + "rename it, or create the table", byteOffset: c.offset, line: c.line, column: c.column,
                                               element: c.firstElement, key: c.name)
            }
            if let fileColumn = options.filenameColumn, sqlite3_stricmp(c.name, fileColumn) == 0 {
                throw Database.JSONImportError(message: "createTable: the key has the name of the filenameColumn: choose another one",
                                               byteOffset: c.offset, line: c.line, column: c.column, element: c.firstElement, key: c.name)
            }
        }
        let names = inference.columns.map(\.name)
        let declared = try options.common.declaredTypes(of: names) { name in
            Database.JSONImportError(message: "columnTypes: no key \(name) in the elements the columns were inferred from "
                                     + "(their keys: \(names.joined(separator: ", ")))", byteOffset: 0, line: 0, column: 0)
        }
        let columns = inference.columns.enumerated().map { i, c in
            (name: c.name, type: declared[i] ?? String(cString: sq_csv_type_name(c.type)))
        }
        if columns.isEmpty {
            let what = inference.elements == 0 ? "the input has no element" : "no key is in its \(Self.first(inference.elements))"
            throw Database.JSONImportError(message: "createTable: table \(table) does not exist and \(what) to infer its columns from",
                                           byteOffset: 0, line: 0, column: 0)
        }
        try db.createInferredTable(table, columns: columns, filenameColumn: options.filenameColumn)
        created = JSONInferredTable(elements: inference.elements, keys: Set(
            (inference.columns.map(\.name) + options.renames.keys).map(JSONColumnInference.folded)),
            kindFlags: Dictionary(inference.columns.map { (JSONColumnInference.folded($0.name), $0.kindFlags) },
                                  uniquingKeysWith: { a, _ in a }))
        try setUp()
        try inference.sample.withUnsafeBytes { try feedCore($0) }
    }

    func setInputFile(_ path: String) {
        inputFile = path
        rejecter?.file = path
        writer?.setFile(path)
    }

    /// The options as the core's configuration.
    private func configure(_ chosen: [TableColumn]) throws {
        for c in chosen {
            // Without an explicit column list, a column with a DEFAULT is inserted only when
            // the first element has a key for it (ImportOptions.columns).
            var flags = options.columns == nil && c.hasDefault ? UInt32(SQ_INGEST_COL_DEFAULT) : 0
            // A created table's column takes the kinds of value the sample showed for it.
            if let kinds = created?.kindFlags[JSONColumnInference.folded(c.name)] { flags |= kinds }
            _ = sq_ingest_add_column(ingest, c.name, -1, c.declaredType, -1, flags)
        }
        // A created table's columns came from the sample: a later key without a column, or
        // a value its column would not keep, is an error (or a reject), never dropped.
        options.common.configure(ingest, columns: chosen.map(\.name), readStrictly: created != nil)
        Self.configure(ingest, layout: options.layout, maxRecord: maxRecord)
        if sq_ingest_error_info(ingest).pointee.code != SQ_INGEST_E_NONE { throw ingestError() }
    }

    /// The layout or path of `core`, and its record limit.
    static func configure(_ core: OpaquePointer, layout: JSONImportOptions.Layout, maxRecord: Int64) {
        switch layout {
        case .array: _ = sq_ingest_json_layout(core, SQ_INGEST_LAYOUT_ARRAY)
        case .ndjson: _ = sq_ingest_json_layout(core, SQ_INGEST_LAYOUT_NDJSON)
        case .arrayAt(let path):
            for key in path { _ = sq_ingest_json_path_key(core, key, Int32(key.utf8.count)) }
        }
        sq_ingest_set_max_record(core, maxRecord)
    }

    /// An element's values are bounded, as in json_stream: 64 MiB or SQLite's length limit.
    private var maxRecord: Int64 {
        let length = Int64(sqlite3_limit(db.handle, SQLITE_LIMIT_LENGTH, -1))
        return min(Int64(64 << 20) /* SQ_INGEST_DEFAULT_MAX_RECORD */, max(length, 1))
    }

    deinit { if let ingest { sq_ingest_free(ingest) } }

    // MARK: Input

    func feed(_ bytes: UnsafeRawBufferPointer) throws {
        guard bytes.count > 0 else { return }
        // Hold the connection's recursive mutex for the chunk: the binds and steps
        // below re-enter it cheaply (a no-op for NOMUTEX connections).
        let mutex = sqlite3_db_mutex(db.handle)
        sqlite3_mutex_enter(mutex)
        defer { sqlite3_mutex_leave(mutex) }
        if let inference {
            if try inference.feed(bytes) { try createTable(from: inference) }
        } else {
            try feedCore(bytes)
        }
        counter.bytes += bytes.count
        counter.report(rows: ingest.map { Int(sq_ingest_records($0)) } ?? 0)
    }

    private func feedCore(_ bytes: UnsafeRawBufferPointer) throws {
        if sq_ingest_json_feed(ingest, bytes.baseAddress, bytes.count) == SQ_INGEST_ERROR { throw ingestError() }
    }

    func finish() throws -> Int {
        if let inference {
            try inference.finish()
            try createTable(from: inference)
        }
        if sq_ingest_json_finish(ingest) == SQ_INGEST_ERROR { throw ingestError() }
        do { _ = try writer.finish() } catch { throw importError(error) }
        try rejecter?.end(records: Int(sq_ingest_records(ingest)))
        let rows = Int(sq_ingest_records(ingest) - sq_ingest_rejected(ingest)) - writer.refused
        counter.report(rows: rows)
        return rows
    }

    func inputError(_ message: String) -> any Error {
        Database.JSONImportError(message: message, byteOffset: consumed, line: 0, column: 0)
    }

    /// The core's error as a Database.JSONImportError (or what stopped it from here).
    private func ingestError() -> Error {
        let e = sq_ingest_error_info(ingest).pointee
        if e.code == SQ_INGEST_E_ABORTED, let failure = stopFailure { return failure }
        return Self.error(e, layout: options.layout, created: created)
    }

    /// What stopped the core from this side: a spent error budget, a failed batch.
    private var stopFailure: Error? { rejecter?.failure ?? writer?.failure.map(importError) }

    // MARK: On a worker (ChunkFile)

    /// Once the table exists (inference reads the first elements on the caller's thread).
    var workerFeed: ImportWorkerFeed? {
        guard inference == nil else { return nil }
        return ImportWorkerFeed(context: UnsafeMutableRawPointer(ingest),
                                feed: { g, bytes, n in sq_ingest_json_feed(OpaquePointer(g), bytes, n) },
                                records: { g in sq_ingest_records(OpaquePointer(g)) })
    }

    var router: ImportRoute? { inference == nil ? route : nil }

    func feedError() -> any Error { ingestError() }
    func takeError() -> any Error { stopFailure ?? ingestError() }

    /// An error of the core as a Database.JSONImportError (for a reject: its reason); `created`: the
    /// table was created from inferred columns, which a strict-mode error says.
    static func error(_ e: sq_ingest_error, layout: JSONImportOptions.Layout,
                      created: JSONInferredTable? = nil) -> Database.JSONImportError {
        var message = String(cString: e.message)
        if e.code == SQ_INGEST_E_JSON { message = "invalid JSON: " + message }
        if e.code == SQ_INGEST_E_LAYOUT && e.record < 0 && layout == .array && e.line > 0 {
            message += " (use layout .arrayAt([…]) or .ndjson)"
        }
        let key = e.key.map { String(decoding: UnsafeRawBufferPointer(start: $0, count: e.nkey), as: UTF8.self) }
        if e.code == SQ_INGEST_E_STRICT, let created {
            if let key, !created.keys.contains(JSONColumnInference.folded(key)) {
                message = "no column for this key: the table was created from the keys of the \(Self.first(created.elements)) "
                    + "(JSONImportOptions.inferRecords); create it with a column for this key"
            } else {
                message += "; the column's type was inferred from the \(Self.first(created.elements)) "
                    + "(JSONImportOptions.inferRecords): create the table to take this value"
            }
        }
        return Database.JSONImportError(message: message, byteOffset: Int(e.offset), line: Int(e.line), column: Int(e.column),
                                        element: e.record >= 0 ? Int(e.record) : nil, key: key)
    }

    /// "first N elements", "first element".
    private static func first(_ n: Int) -> String { n == 1 ? "first element" : "first \(n) elements" }

    /// A failed batch as a Database.JSONImportError naming the element (and the column, for NOT NULL
    /// and UNIQUE constraints).
    private func importError(_ error: Error) -> Error {
        guard let w = error as? IngestWriteFailure else { return error }
        return Database.JSONImportError(message: w.message, byteOffset: w.offset, line: w.line, column: w.column,
                                        element: w.record, key: constraintColumn(in: w.message))
    }
}

/// A table an import created from the columns it inferred (``ImportOptions/createTable``).
struct JSONInferredTable {
    /// The elements the columns and types were inferred from.
    var elements: Int
    /// The keys those elements had, and the renamed ones, folded to ASCII lowercase.
    var keys: Set<String>
    /// The core's kind flags of each column (``JSONColumnInference/Column/kindFlags``), by
    /// name folded to ASCII lowercase.
    var kindFlags: [String: UInt32]
}
