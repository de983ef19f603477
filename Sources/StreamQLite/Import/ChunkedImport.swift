import CStreamQLite
import Foundation

/// An import fed its input chunk by chunk (``JSONImporter``, ``CSVImporter``): chunks
/// may cut the input anywhere.
protocol ChunkedImporter: AnyObject {
    /// Parses and stores what `bytes` completes (reports progress).
    func feed(_ bytes: UnsafeRawBufferPointer) throws
    /// The input has ended: stores the last rows; returns the number of rows imported.
    func finish() throws -> Int
    /// Input bytes fed so far.
    var consumed: Int { get }
}

extension Database {
    /// The one driver of the chunked imports (`importJSON`, `importCSV`) for input in
    /// memory: the importer (made inside the savepoint, so a table it creates is undone
    /// too) gets `bytes` as one chunk, in one savepoint.
    func importChunks<I: ChunkedImporter>(bytes: UnsafeRawBufferPointer, importer make: () throws -> I) throws -> Int {
        try savepoint {
            let importer = try make()
            try importer.feed(bytes)
            return try importer.finish()
        }
    }

    /// The one chunked file loop of the imports: opens `path` (an error before anything
    /// else, so a missing or unreadable file is reported before a missing table), then in
    /// one savepoint reads it in `chunkSize` chunks into the importer: memory use does not
    /// depend on the file's size. `fileError(message, byteOffset)` makes the import's error
    /// for the file (`byteOffset` nil when it cannot be opened).
    func importChunks<I: ChunkedImporter>(
        ofFile path: String, chunkSize: Int, fileError: (String, Int?) -> any Error, importer make: () throws -> I
    ) throws -> Int {
        let file = try ChunkFile(path, chunkSize: chunkSize, fileError: fileError)
        return try savepoint {
            let importer = try make()
            try file.read(into: importer, fileError: fileError)
            return try importer.finish()
        }
    }

    /// The imports of several files: `entries` expanded by the C rule of `json_stream` and
    /// `csv_stream` (`sq_files.h`: each a path or a glob, its matches sorted by name), then
    /// each file read as ``importChunks(ofFile:chunkSize:fileError:importer:)`` reads one,
    /// by an importer of its own (`make(progress, previous)`: a CSV header per file), all in
    /// one savepoint. Progress counts over all files, with the files done; an error thrown
    /// while reading a file is passed through `inFile(error, path)` to name it.
    func importChunks<I: ChunkedImporter>(
        ofFiles entries: [String], chunkSize: Int, progress: ((ImportProgress) -> Void)?,
        fileError: (String, Int?) -> any Error, inFile: (any Error, String) -> any Error,
        importer make: (((ImportProgress) -> Void)?, I?) throws -> I
    ) throws -> Int {
        let paths = try sqExpandFiles(entries) { fileError($0, nil) }
        return try savepoint {
            var done = ImportProgress(bytes: 0, rows: 0)
            var previous: I?
            for path in paths {
                let file = try ChunkFile(path, chunkSize: chunkSize, fileError: fileError)
                let base = done
                let report = progress.map { report in
                    { (p: ImportProgress) in
                        report(ImportProgress(bytes: base.bytes + p.bytes, rows: base.rows + p.rows, filesDone: base.filesDone))
                    }
                }
                let rows: Int
                let importer: I
                do {
                    importer = try make(report, previous)
                    try file.read(into: importer, fileError: fileError)
                    rows = try importer.finish()
                } catch {
                    throw inFile(error, path)
                }
                done = ImportProgress(bytes: base.bytes + importer.consumed, rows: base.rows + rows,
                                      filesDone: base.filesDone + 1)
                progress?(done)
                previous = importer
            }
            return done.rows
        }
    }

    /// The one driver of the imports from an asynchronous sequence of chunks: each chunk
    /// is fed as it arrives, in one savepoint held across the awaits. A cancelled task
    /// stops between chunks and before finishing: rollback and `CancellationError` (many
    /// sequences, `AsyncStream` among them, simply end when cancelled, which must not pass
    /// for the end of the input).
    nonisolated(nonsending) func importChunks<I: ChunkedImporter, Chunks: AsyncSequence>(
        from chunks: Chunks, importer make: () throws -> I
    ) async throws -> Int where Chunks.Element: ContiguousBytes {
        let savepoint = try OpenSavepoint(self)
        do {
            let importer = try make()
            for try await chunk in chunks {
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

/// The paths several entries name: the C expansion of `json_stream` and `csv_stream`
/// (`sq_files_add`, `sq_files.h`): a path is that file; a glob (`*`, `?`, `[`) its matches
/// sorted by name, no match being an error; `\` makes a glob character literal.
func sqExpandFiles(_ entries: [String], error: (String) -> any Error) throws -> [String] {
    var list = sq_files(n: 0, a: nil)
    defer { sq_files_clear(&list) }
    for entry in entries {
        var why: UnsafeMutablePointer<CChar>?
        let rc = sq_files_add(&list, entry, &why)
        if rc != SQ_FILES_OK {
            defer { sqlite3_free(why) }
            throw error(why.map { String(cString: $0) } ?? "out of memory")
        }
    }
    if list.n == 0 { throw error("no file named") }
    return (0..<Int(list.n)).map { String(cString: list.a[$0]!) }
}

/// A file opened for a chunked import, with its read buffer.
final class ChunkFile {
    let path: String
    private let fd: Int32
    private let size: Int
    private let buffer: UnsafeMutableRawPointer

    /// Opens `path` (`fileError(message, nil)` when it cannot be).
    init(_ path: String, chunkSize: Int, fileError: (String, Int?) -> any Error) throws {
        self.path = path
        fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            throw fileError("cannot open \(path): \(String(cString: strerror(errno)))", nil)
        }
        size = max(chunkSize, 1)
        buffer = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 16)
    }

    deinit {
        close(fd)
        buffer.deallocate()
    }

    /// Feeds the whole file to `importer`, chunk by chunk.
    func read<I: ChunkedImporter>(into importer: I, fileError: (String, Int?) -> any Error) throws {
        while true {
            let n = Foundation.read(fd, buffer, size)
            if n < 0 {
                if errno == EINTR { continue }
                throw fileError("cannot read \(path): \(String(cString: strerror(errno)))", importer.consumed)
            }
            if n == 0 { break }
            try importer.feed(UnsafeRawBufferPointer(start: buffer, count: n))
        }
    }
}
