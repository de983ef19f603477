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
                          progress: ((CSVImportProgress) -> Void)? = nil) throws -> Int {
        try savepoint {
            let importer = try CSVImporter(db: self, table: table, options: options, progress: progress)
            try importer.feed(bytes)
            return try importer.finish()
        }
    }

    /// Imports CSV held in memory; see ``importCSV(bytes:into:options:progress:)``.
    @discardableResult
    public func importCSV(bytes: [UInt8], into table: String, options: CSVImportOptions = CSVImportOptions(),
                          progress: ((CSVImportProgress) -> Void)? = nil) throws -> Int {
        try bytes.withUnsafeBytes { try importCSV(bytes: $0, into: table, options: options, progress: progress) }
    }

    /// Imports the CSV file at `path`, read in ``CSVImportOptions/chunkSize``
    /// chunks: memory use does not depend on the file's size. See
    /// ``importCSV(bytes:into:options:progress:)``.
    @discardableResult
    public func importCSV(contentsOfFile path: String, into table: String,
                          options: CSVImportOptions = CSVImportOptions(),
                          progress: ((CSVImportProgress) -> Void)? = nil) throws -> Int {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            throw CSVImportError(message: "cannot open \(path): \(String(cString: strerror(errno)))")
        }
        defer { close(fd) }
        let size = max(options.chunkSize, 1)
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 16)
        defer { buffer.deallocate() }
        return try savepoint {
            let importer = try CSVImporter(db: self, table: table, options: options, progress: progress)
            while true {
                let n = read(fd, buffer, size)
                if n < 0 {
                    if errno == EINTR { continue }
                    throw CSVImportError(message: "cannot read \(path): \(String(cString: strerror(errno)))",
                                         byteOffset: importer.consumed)
                }
                if n == 0 { break }
                try importer.feed(UnsafeRawBufferPointer(start: buffer, count: n))
            }
            return try importer.finish()
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
        progress: ((CSVImportProgress) -> Void)? = nil
    ) async throws -> Int where Chunks.Element: ContiguousBytes {
        let savepoint = try OpenSavepoint(self)
        do {
            let importer = try CSVImporter(db: self, table: table, options: options, progress: progress)
            for try await chunk in chunks {
                // Sequences that end when cancelled must not pass for the end of the input.
                try Task.checkCancellation()
                try chunk.withUnsafeBytes { try importer.feed($0) }
            }
            try Task.checkCancellation()
            let n = try importer.finish()
            try savepoint.release()
            return n
        } catch {
            savepoint.rollback()
            throw error
        }
    }
}
