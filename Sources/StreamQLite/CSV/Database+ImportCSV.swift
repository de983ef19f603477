import CStreamQLite
import Foundation

extension Database {
    /// Imports the records of CSV held in memory into `table`, in one transaction.
    ///
    /// The reader, the field → column rule and the coercion are the C ones
    /// `csv_stream` uses (see ``CSVImportOptions``); with
    /// ``CSVImportOptions/createTable`` a missing table is created from the
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
    @discardableResult
    public func importCSV(bytes: UnsafeRawBufferPointer, into table: String,
                          options: CSVImportOptions = CSVImportOptions(),
                          progress: ((ImportProgress) -> Void)? = nil) throws -> Int {
        try importChunks(bytes: bytes) {
            try CSVImporter(db: self, table: table, options: options, progress: progress)
        }
    }

    /// Imports CSV held in memory; see ``importCSV(bytes:into:options:progress:)``.
    @discardableResult
    public func importCSV(bytes: [UInt8], into table: String, options: CSVImportOptions = CSVImportOptions(),
                          progress: ((ImportProgress) -> Void)? = nil) throws -> Int {
        try bytes.withUnsafeBytes { try importCSV(bytes: $0, into: table, options: options, progress: progress) }
    }

    /// Imports the CSV file at `path`, read in ``CSVImportOptions/chunkSize``
    /// chunks: memory use does not depend on the file's size. See
    /// ``importCSV(bytes:into:options:progress:)``.
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

    /// Imports CSV arriving as an asynchronous sequence of chunks (a download,
    /// `FileHandle.bytes`…), reading each chunk as it arrives: the file is never
    /// held whole, chunks may cut it anywhere.
    ///
    /// The transaction stays open across the awaits: do not use the connection
    /// from elsewhere meanwhile. Cancelling the task rolls the import back and
    /// throws `CancellationError`. See ``importCSV(bytes:into:options:progress:)``.
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
