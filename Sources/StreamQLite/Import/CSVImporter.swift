import CStreamQLite

/// The Swift driver of the CSV path for ``Database/importCSV(bytes:into:options:progress:)-4lxlc``.
///
/// Everything about reading and converting is C, shared with `csv_stream`: the
/// reader (`sq_csv.h`), the CSV driver of the ingest core and type inference
/// (`sq_csv_ingest.h`), the core's field → column rule and coercion
/// (`sq_ingest.h`). This class keeps what is Swift's: the options turned into
/// that configuration, creating the table from inferred types, the rows handed
/// to ``IngestBatchWriter``, progress, and the errors as ``CSVImportError``.
final class CSVImporter: ProgressCountingImporter {
    let db: Database
    let table: String
    let options: CSVImportOptions

    private var core: OpaquePointer?
    private var driver: OpaquePointer?
    private var writer: IngestBatchWriter?
    /// The rejected records (``ImportReject/Policy/skip``), or nil.
    private var rejecter: IngestRejecter?
    /// The core's callbacks: to the writer and rejecter, or to a worker's pipe.
    private(set) var router: ImportRoute?
    /// The input's file (``ImportOptions/filenameColumn``, rejects), when known.
    private var inputFile: String?
    /// Inference before the table exists: the sample read so far is replayed into the driver.
    private var inference: OpaquePointer?
    private var sample: [UInt8] = []
    var counter: ImportProgressCounter
    /// The columns this import inferred and created the table with (their types and the
    /// records they came from), for the next files of an import of several.
    private(set) var inferred: CSVInferredColumns?

    /// `inferred`: the columns an earlier file of the same import inferred: their types
    /// are checked on this file's values as on the first file's.
    init(db: Database, table: String, options: CSVImportOptions, progress: ((ImportProgress) -> Void)?,
         inferred: CSVInferredColumns? = nil) throws {
        self.db = db
        self.table = table
        self.options = options
        counter = ImportProgressCounter(progress)
        guard options.delimiter.isASCII, options.quote?.isASCII ?? true else {
            throw CSVImportError(message: "the delimiter and the quote must be ASCII characters")
        }
        if options.onError == .skip {
            rejecter = try IngestRejecter(
                db: db, options: options.common, function: "importCSV",
                reason: { r in "importCSV: " + (r.pointee.reason.map { String(cString: $0) } ?? String(cString: r.pointee.error.pointee.message)) },
                makeError: { CSVImportError(message: $0) })
        }
        let existing = try db.sqTableColumnsIfExists(table, function: "importCSV")
        if options.createTable && existing == nil {
            inference = try withReaderOptions { o in
                guard let f = sq_csv_infer_new(&o, Int32(clamping: max(options.inferRecords, 1))) else {
                    throw CSVImportError(message: "out of memory")
                }
                // rejecting: a record of another field count types nothing; the read rejects it
                if options.onError == .skip { sq_csv_infer_skip_bad(f) }
                return f
            }
        } else if let inferred {
            self.inferred = inferred
            try setUp(columns: inferred.columns, inferredFrom: inferred.records, made: true)
        } else {
            guard let existing else {
                throw DatabaseError(code: SQLITE_ERROR, message: "importCSV: no such table: \(table)")
            }
            try setUp(columns: existing.map { ($0.name, $0.declaredType, 0) }, inferredFrom: 0, made: false)
        }
    }

    deinit {
        if let driver { sq_csv_ingest_free(driver) }
        if let core { sq_ingest_free(core) }
        if let inference { sq_csv_infer_free(inference) }
    }

    // MARK: Configuration

    /// The reader options as C, with the record bound below.
    private func withReaderOptions<R>(_ body: (inout sq_csv_options) throws -> R) throws -> R {
        try options.withCOptions(maxField: maxRecord, body)
    }

    /// A record's values are bounded, as in `csv_stream`: 64 MiB or SQLite's length limit.
    private var maxRecord: Int {
        let length = Int(sqlite3_limit(db.handle, SQLITE_LIMIT_LENGTH, -1))
        return min(64 << 20, max(length, 1))
    }

    /// The core and driver for the table's columns: (name, declared type, inferred SQ_CSV_T_* or 0);
    /// `made`: this import created the table (with the ``ImportOptions/filenameColumn``, if any).
    private func setUp(columns all: [(name: String, type: String, inferred: Int32)], inferredFrom: Int64,
                       made: Bool) throws {
        let common = options.common
        let chosen = try common.filledColumns(of: all, name: \.name, table: table, checkFileColumn: !made) {
            CSVImportError(message: $0)
        }
        if let (header, column) = common.renameWithoutColumn(among: chosen.map(\.name)) {
            throw CSVImportError(message: "rename '\(header)' → '\(column)': table \(table) has no column \(column)")
        }
        let writer = IngestBatchWriter(db: db, table: table, columns: chosen.map(\.name), insertOptions: common.insertOptions,
                                       fileColumn: common.filenameColumn)
        writer.setFile(inputFile)
        if let rejecter {
            writer.onRefused = { row, e in
                try rejecter.takeRefused(row, column: e.column, reason: CSVImportError(
                    message: e.message, line: row.line, byteOffset: row.offset, record: row.record).description)
            }
        }
        self.writer = writer
        let router = ImportRoute(writer: writer, rejecter: rejecter)
        self.router = router
        guard let core = sq_ingest_new(ImportRoute.rowCallback, router.context) else {
            throw CSVImportError(message: "out of memory")
        }
        self.core = core
        for c in chosen {
            // Every column may be left out: the ones no header name (or no field) feeds
            // are not inserted, so their DEFAULT (or NULL) applies.
            _ = sq_ingest_add_column(core, c.name, -1, c.type, -1, UInt32(SQ_INGEST_COL_DEFAULT))
        }
        common.configure(core, columns: chosen.map(\.name))
        sq_ingest_set_max_record(core, Int64(maxRecord))
        if sq_ingest_error_info(core).pointee.code != SQ_INGEST_E_NONE {
            throw CSVImportError(message: String(cString: sq_ingest_error_info(core).pointee.message))
        }
        driver = try withReaderOptions { o in
            guard let d = sq_csv_ingest_new(core, &o) else { throw CSVImportError(message: "out of memory") }
            return d
        }
        if rejecter != nil {
            sq_csv_ingest_set_reject_callback(driver, ImportRoute.rejectCallback, router.context)
            sq_ingest_set_row_raw(core, 1)   // a row the table refuses is rejected with its raw text
        }
        let declared = inferred?.declared ?? []
        for (i, c) in chosen.enumerated() where c.inferred != 0 {
            let isDeclared = declared.contains(c.name.lowercased())
            _ = sq_csv_ingest_require(driver, Int32(i), c.inferred, isDeclared ? -1 : inferredFrom)
        }
    }

    /// The check a declared type puts on every value (as inference would for that type), or 0:
    /// by the ingest core's reading of a declared type (`sq_ingest_declared_type`: SQLite's
    /// affinity, and whether it is a date column).
    private func declaredRequirement(_ type: String) -> Int32 {
        switch String(cString: sq_ingest_declared_type(type, -1)) {
        case "INTEGER": return Int32(SQ_CSV_T_INTEGER)
        case "REAL": return Int32(SQ_CSV_T_REAL)
        case "DATETIME": return Int32(SQ_CSV_T_DATETIME)
        case "DATE": return Int32(SQ_CSV_T_DATE)
        default: return 0
        }
    }

    /// Inference is done: create the table, set up the driver and replay the sample.
    private func createFromInference() throws {
        guard let f = inference else { return }
        var columns: [(name: String, type: String, inferred: Int32)] = []
        for i in 0..<sq_csv_infer_count(f) {
            let t = sq_csv_infer_type(f, i)
            let type = String(cString: sq_csv_type_name(t))
            columns.append((String(cString: sq_csv_infer_name(f, i)), type, t))
        }
        let names = columns.map(\.name)
        let declared = try options.common.declaredTypes(of: names) { name in
            CSVImportError(message: "columnTypes: the input has no column \(name) (its columns: \(names.joined(separator: ", ")))")
        }
        for i in columns.indices {
            if let type = declared[i] { columns[i] = (columns[i].name, type, declaredRequirement(type)) }
        }
        try db.createInferredTable(table, columns: columns.map { ($0.name, $0.type) }, filenameColumn: options.filenameColumn)
        inferred = CSVInferredColumns(columns: columns, records: sq_csv_infer_records(f),
                                      declared: Set(declared.keys.map { columns[$0].name.lowercased() }))
        try setUp(columns: columns, inferredFrom: sq_csv_infer_records(f), made: true)
        sq_csv_infer_free(f)
        inference = nil
        let replay = sample
        sample = []
        try replay.withUnsafeBytes { try feedDriver($0) }
    }

    // MARK: Input

    func feed(_ bytes: UnsafeRawBufferPointer) throws {
        guard bytes.count > 0 else { return }
        let mutex = sqlite3_db_mutex(db.handle)
        sqlite3_mutex_enter(mutex)
        defer { sqlite3_mutex_leave(mutex) }
        if let f = inference {
            sample.append(contentsOf: bytes)
            let rc = sq_csv_infer_feed(f, bytes.baseAddress, bytes.count)
            if rc == SQ_INGEST_ERROR { throw error(sq_csv_infer_error(f)) }
            if rc == SQ_INGEST_PAUSED {
                if sq_csv_infer_finish(f) == SQ_INGEST_ERROR { throw error(sq_csv_infer_error(f)) }
                try createFromInference()
            }
        } else {
            try feedDriver(bytes)
        }
        counter.bytes += bytes.count
        counter.report(rows: rows)
    }

    private func feedDriver(_ bytes: UnsafeRawBufferPointer) throws {
        guard bytes.count > 0 else { return }
        if sq_csv_ingest_feed(driver, bytes.baseAddress, bytes.count) == SQ_INGEST_ERROR {
            throw error(sq_csv_ingest_error_info(driver))
        }
    }

    private var rows: Int { driver.map { Int(sq_csv_ingest_records($0)) } ?? 0 }

    // MARK: On a worker (ChunkFile)

    /// Once the table exists (inference reads the first records on the caller's thread).
    var workerFeed: ImportWorkerFeed? {
        guard inference == nil, let driver else { return nil }
        return ImportWorkerFeed(context: UnsafeMutableRawPointer(driver),
                                feed: { d, bytes, n in sq_csv_ingest_feed(OpaquePointer(d), bytes, n) },
                                records: { d in sq_csv_ingest_records(OpaquePointer(d)) })
    }

    func feedError() -> any Error { error(sq_csv_ingest_error_info(driver)) }
    func takeError() -> any Error { stopFailure ?? feedError() }

    func setInputFile(_ path: String) {
        inputFile = path
        rejecter?.file = path
        writer?.setFile(path)
    }

    func finish() throws -> Int {
        if let f = inference {
            if sq_csv_infer_finish(f) == SQ_INGEST_ERROR { throw error(sq_csv_infer_error(f)) }
            try createFromInference()
        }
        if sq_csv_ingest_finish(driver) == SQ_INGEST_ERROR { throw error(sq_csv_ingest_error_info(driver)) }
        let stored: Int
        do { stored = try writer!.finish() } catch { throw converted(error) }
        try rejecter?.end(records: rows)
        counter.report(rows: stored)
        return stored
    }

    // MARK: Rows and errors

    private func converted(_ error: Error) -> Error {
        guard let w = error as? IngestWriteFailure else { return error }
        return CSVImportError(message: w.message, line: w.line, byteOffset: w.offset, record: w.record)
    }

    func inputError(_ message: String) -> any Error {
        CSVImportError(message: message, byteOffset: consumed)
    }

    /// What stopped the core from this side: a spent error budget, a failed batch.
    private var stopFailure: Error? { rejecter?.failure ?? writer?.failure.map(converted) }

    /// The C error as a CSVImportError (or what stopped the core from here).
    private func error(_ e: UnsafePointer<sq_csv_ingest_error>) -> Error {
        let x = e.pointee
        if x.code == SQ_CSV_IE_INGEST && x.detail == SQ_INGEST_E_ABORTED, let failure = stopFailure { return failure }
        return CSVImportError(message: String(cString: x.message), line: Int(x.line), byteOffset: Int(x.offset),
                              record: x.record >= 0 ? Int(x.record) : nil,
                              field: x.field >= 0 ? Int(x.field) + 1 : nil,
                              fieldName: x.name.map { String(cString: $0) })
    }
}

/// Columns inferred from the first file of an import: name, declared type, `SQ_CSV_T_*`
/// (what later values must fit), and the records the types came from.
struct CSVInferredColumns {
    var columns: [(name: String, type: String, inferred: Int32)]
    var records: Int64
    /// The columns (lowercased) whose type ``ImportOptions/columnTypes`` declared.
    var declared: Set<String> = []
}
