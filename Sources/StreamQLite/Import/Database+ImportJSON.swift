import CStreamQLite
import Foundation

extension Database {
    /// Imports the rows of a JSON document held in memory into `table`, in one transaction.
    ///
    /// See ``JSONImportOptions`` for layouts, key → column mapping and type
    /// coercion. Nested objects and arrays are stored as JSON text.
    ///
    /// ```swift
    /// // [{"id_str": "17", "title": "Write docs", "date_added": "2024-05-01T09:30:00Z", "tags": ["docs"]}, …]
    /// let n = try db.importJSON(bytes: body, into: "tasks",
    ///                           options: .init(renames: ["id_str": "id", "date_added": "added"]))
    /// ```
    ///
    /// - Returns: The number of rows imported.
    /// - Throws: ``Database/JSONImportError`` with the byte offset, line and element
    ///   index (syntax errors, strict-mode violations, constraint
    ///   violations); nothing is inserted then.
    ///
    /// - Parameters:
    ///   - bytes: The JSON (an array of objects, NDJSON, or an array at a path: ``JSONImportOptions/layout``).
    ///   - table: The table (`name` or `schema.name`).
    ///   - options: Layout, mapping, creating and rejecting rules.
    ///   - progress: Called now and then with bytes and rows so far.
    @discardableResult
    public func importJSON(bytes: UnsafeRawBufferPointer, into table: String,
                           options: JSONImportOptions = JSONImportOptions(),
                           progress: ((ImportProgress) -> Void)? = nil) throws -> Int {
        try importChunks(bytes: bytes) {
            try JSONImporter(db: self, table: table, options: options, progress: progress)
        }
    }

    /// Imports the rows of a JSON document held in memory; see ``importJSON(bytes:into:options:progress:)-70bm6``.
    ///
    /// ```swift
    /// let n = try db.importJSON(bytes: Array(#"[{"id": 1, "title": "Write docs"}]"#.utf8), into: "tasks")
    /// ```
    ///
    /// - Parameters:
    ///   - bytes: The JSON.
    ///   - table: The table (`name` or `schema.name`).
    ///   - options: Layout, mapping, creating and rejecting rules.
    ///   - progress: Called now and then with bytes and rows so far.
    /// - Returns: The number of rows imported.
    /// - Throws: ``Database/JSONImportError`` with byte, line and element; nothing is stored then.
    @discardableResult
    public func importJSON(bytes: [UInt8], into table: String, options: JSONImportOptions = JSONImportOptions(),
                           progress: ((ImportProgress) -> Void)? = nil) throws -> Int {
        try bytes.withUnsafeBytes { try importJSON(bytes: $0, into: table, options: options, progress: progress) }
    }

    /// Imports the rows of the JSON file at `path`, read in
    /// ``ImportOptions/chunkSize`` chunks: memory use does not depend on
    /// the file's size. See ``importJSON(bytes:into:options:progress:)-70bm6``.
    ///
    /// ```swift
    /// let n = try db.importJSON(contentsOfFile: "events.ndjson.zst", into: "events", options: .init(layout: .ndjson))
    /// ```
    ///
    /// - Parameters:
    ///   - path: The file, a pipe or `/dev/stdin`; plain, gzip or zstd.
    ///   - table: The table (`name` or `schema.name`).
    ///   - options: Layout, mapping, creating and rejecting rules.
    ///   - progress: Called now and then with bytes and rows so far.
    /// - Returns: The number of rows imported.
    /// - Throws: ``Database/JSONImportError`` naming the file, byte, line and element; nothing is stored then.
    @discardableResult
    public func importJSON(contentsOfFile path: String, into table: String,
                           options: JSONImportOptions = JSONImportOptions(),
                           progress: ((ImportProgress) -> Void)? = nil) throws -> Int {
        try importChunks(ofFile: path, chunkSize: options.chunkSize, fileError: { message, offset in
            offset.map { JSONImportError(message: message, byteOffset: $0, line: 0, column: 0) }
                ?? JSONImportError(message: message, byteOffset: 0, line: 1, column: 1)
        }) {
            try JSONImporter(db: self, table: table, options: options, progress: progress)
        }
    }

    /// Imports the rows of the JSON file at `url` (a file URL); see ``importJSON(contentsOfFile:into:options:progress:)``.
    @discardableResult
    public func importJSON(contentsOf url: URL, into table: String, options: JSONImportOptions = JSONImportOptions(),
                           progress: ((ImportProgress) -> Void)? = nil) throws -> Int {
        try importJSON(contentsOfFile: url.path, into: table, options: options, progress: progress)
    }

    /// Imports several JSON or NDJSON files into `table`, one after the other, in one transaction.
    ///
    /// Each entry of `files` is a path, or a glob when it contains `*`, `?` or `[`
    /// (`"logs/2026-*.ndjson"`: its matches sorted by name; `\` makes such a character
    /// literal) — the expansion `json_stream` uses. Each file is read as
    /// ``importJSON(contentsOfFile:into:options:progress:)`` reads one, keys to columns by
    /// name: a key a file lacks leaves its column out (its DEFAULT, or NULL), a key without
    /// a column is ignored (``ImportOptions/strict``: an error). Progress counts over
    /// all files and reports ``ImportProgress/filesDone``.
    ///
    /// ```swift
    /// let n = try db.importJSON(contentsOfFiles: ["logs/2026-*.ndjson"], into: "events",
    ///                           options: .init(layout: .ndjson))
    /// ```
    ///
    /// - Returns: The number of rows imported, all files together.
    /// - Throws: ``Database/JSONImportError`` with ``Database/JSONImportError/file`` naming the file its position
    ///   is in; a glob matching no file, a directory or an unreadable file are errors naming
    ///   it. Nothing is stored then.
    @discardableResult
    public func importJSON(contentsOfFiles files: [String], into table: String,
                           options: JSONImportOptions = JSONImportOptions(),
                           progress: ((ImportProgress) -> Void)? = nil) throws -> Int {
        try importChunks(ofFiles: files, chunkSize: options.chunkSize, progress: progress, fileError: { message, offset in
            offset.map { JSONImportError(message: message, byteOffset: $0, line: 0, column: 0) }
                ?? JSONImportError(message: message, byteOffset: 0, line: 0, column: 0)
        }, inFile: { error, path in
            guard var e = error as? JSONImportError, e.file == nil, e.line > 0 else { return error }
            e.file = path
            return e
        }) { (report, previous: JSONImporter?) in
            try JSONImporter(db: self, table: table, options: options, progress: report, created: previous?.created)
        }
    }

    /// Imports JSON arriving as an asynchronous sequence of chunks (a network
    /// download, `FileHandle.bytes`…), parsing each chunk as it arrives: the
    /// document is never held whole. Chunks may split the JSON anywhere.
    ///
    /// ```swift
    /// let (stream, _) = try await URLSession.shared.bytes(from: url)  // or any AsyncSequence of Data / [UInt8]
    /// try await db.importJSON(from: chunks, into: "tasks", options: .init(layout: .ndjson))
    /// ```
    ///
    /// The transaction stays open across the awaits: do not use the
    /// connection from elsewhere meanwhile. Cancelling the task rolls the import
    /// back and throws `CancellationError`, also when the sequence simply ends on
    /// cancellation (as `AsyncStream` does). See ``importJSON(bytes:into:options:progress:)-70bm6``.
    @discardableResult
    public nonisolated(nonsending) func importJSON<Chunks: AsyncSequence>(
        from chunks: Chunks, into table: String, options: JSONImportOptions = JSONImportOptions(),
        progress: ((ImportProgress) -> Void)? = nil
    ) async throws -> Int where Chunks.Element: ContiguousBytes {
        try await importChunks(from: chunks) {
            try JSONImporter(db: self, table: table, options: options, progress: progress)
        }
    }
}
