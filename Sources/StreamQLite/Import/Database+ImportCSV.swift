import CStreamQLite
import Foundation

extension Database {
    /// Imports the records of CSV held in memory into `table`, in one transaction.
    ///
    /// The reader, the field → column rule and the coercion are the C ones
    /// `csv_stream` uses (see ``CSVImportOptions``); with
    /// ``ImportOptions/createTable`` a missing table is created from the
    /// header with inferred column types.
    ///
    /// ```swift
    /// // id,title,due
    /// // 1,"Write docs, then ship",2024-05-01
    /// let n = try db.importCSV(bytes: body, into: "tasks", options: .init(renames: ["due": "due_date"]))
    /// ```
    ///
    /// - Returns: The number of rows imported.
    /// - Throws: ``CSVImportError`` naming line, byte and field (malformed CSV,
    ///   strict-mode violations, a value not fitting an inferred column,
    ///   constraint violations); nothing is stored then.
    ///
    /// - Parameters:
    ///   - bytes: The CSV (UTF-8, with or without a byte-order mark; gzip or zstd too).
    ///   - table: The table (`name` or `schema.name`).
    ///   - options: Reading, mapping, creating and rejecting rules.
    ///   - progress: Called now and then with bytes and rows so far.
    @discardableResult
    public func importCSV(bytes: UnsafeRawBufferPointer, into table: String,
                          options: CSVImportOptions = CSVImportOptions(),
                          progress: ((ImportProgress) -> Void)? = nil) throws -> Int {
        try importChunks(bytes: bytes) {
            try CSVImporter(db: self, table: table, options: options, progress: progress)
        }
    }

    /// Imports CSV held in memory; see ``importCSV(bytes:into:options:progress:)-4lxlc``.
    ///
    /// ```swift
    /// let n = try db.importCSV(bytes: Array("id,title\n1,Write docs\n".utf8), into: "tasks")
    /// ```
    ///
    /// - Parameters:
    ///   - bytes: The CSV.
    ///   - table: The table (`name` or `schema.name`).
    ///   - options: Reading, mapping, creating and rejecting rules.
    ///   - progress: Called now and then with bytes and rows so far.
    /// - Returns: The number of rows imported.
    /// - Throws: ``CSVImportError`` naming line, byte and field; nothing is stored then.
    @discardableResult
    public func importCSV(bytes: [UInt8], into table: String, options: CSVImportOptions = CSVImportOptions(),
                          progress: ((ImportProgress) -> Void)? = nil) throws -> Int {
        try bytes.withUnsafeBytes { try importCSV(bytes: $0, into: table, options: options, progress: progress) }
    }

    /// Imports the CSV file at `path`, read in ``ImportOptions/chunkSize``
    /// chunks: memory use does not depend on the file's size. See
    /// ``importCSV(bytes:into:options:progress:)-4lxlc``.
    ///
    /// ```swift
    /// let n = try db.importCSV(contentsOfFile: "orders.csv.gz", into: "orders", options: .init(createTable: true))
    /// ```
    ///
    /// - Parameters:
    ///   - path: The file, a pipe or `/dev/stdin`; plain, gzip or zstd.
    ///   - table: The table (`name` or `schema.name`).
    ///   - options: Reading, mapping, creating and rejecting rules.
    ///   - progress: Called now and then with bytes and rows so far.
    /// - Returns: The number of rows imported.
    /// - Throws: ``CSVImportError`` naming the file, line, byte and field; nothing is stored then.
    @discardableResult
    public func importCSV(contentsOfFile path: String, into table: String,
                          options: CSVImportOptions = CSVImportOptions(),
                          progress: ((ImportProgress) -> Void)? = nil) throws -> Int {
        try importChunks(ofFile: path, chunkSize: options.chunkSize, fileError: { message, offset in
            offset.map { CSVImportError(message: message, byteOffset: $0) } ?? CSVImportError(message: message)
        }) {
            try CSVImporter(db: self, table: table, options: options, progress: progress)
        }
    }

    /// Imports several CSV files into `table`, one after the other, in one transaction.
    ///
    /// Each entry of `files` is a path, or a glob when it contains `*`, `?` or `[`
    /// (`"logs/2026-*.csv"`: its matches sorted by name; `\` makes such a character
    /// literal) — the expansion `csv_stream` uses. Each file has its own header, and its
    /// fields go to the table's columns by name: a column a file has no header for is left
    /// out (its DEFAULT, or NULL), a header name the table has no column for is ignored
    /// (``ImportOptions/strict``: an error). With ``ImportOptions/createTable`` a
    /// missing table is created from the first file's header and inferred types, and the
    /// other files' values must fit those types. Progress counts over all files and
    /// reports ``ImportProgress/filesDone``.
    ///
    /// ```swift
    /// let n = try db.importCSV(contentsOfFiles: ["logs/2026-*.csv"], into: "events")
    /// ```
    ///
    /// - Returns: The number of rows imported, all files together.
    /// - Throws: ``CSVImportError`` with ``CSVImportError/file`` naming the file its position
    ///   is in; a glob matching no file, a directory or an unreadable file are errors naming
    ///   it. Nothing is stored then.
    @discardableResult
    public func importCSV(contentsOfFiles files: [String], into table: String,
                          options: CSVImportOptions = CSVImportOptions(),
                          progress: ((ImportProgress) -> Void)? = nil) throws -> Int {
        try importChunks(ofFiles: files, chunkSize: options.chunkSize, progress: progress, fileError: { message, offset in
            offset.map { CSVImportError(message: message, byteOffset: $0) } ?? CSVImportError(message: message)
        }, inFile: { error, path in
            guard var e = error as? CSVImportError, e.file == nil, e.line > 0 || e.byteOffset > 0 else { return error }
            e.file = path
            return e
        }) { (report, previous: CSVImporter?) in
            try CSVImporter(db: self, table: table, options: options, progress: report, inferred: previous?.inferred)
        }
    }

    /// Imports CSV arriving as an asynchronous sequence of chunks (a download,
    /// `FileHandle.bytes`…), reading each chunk as it arrives: the file is never
    /// held whole, chunks may cut it anywhere.
    ///
    /// The transaction stays open across the awaits: do not use the connection
    /// from elsewhere meanwhile. Cancelling the task rolls the import back and
    /// throws `CancellationError`. See ``importCSV(bytes:into:options:progress:)-4lxlc``.
    @discardableResult
    public nonisolated(nonsending) func importCSV<Chunks: AsyncSequence>(
        from chunks: Chunks, into table: String, options: CSVImportOptions = CSVImportOptions(),
        progress: ((ImportProgress) -> Void)? = nil
    ) async throws -> Int where Chunks.Element: ContiguousBytes {
        try await importChunks(from: chunks) {
            try CSVImporter(db: self, table: table, options: options, progress: progress)
        }
    }
}
