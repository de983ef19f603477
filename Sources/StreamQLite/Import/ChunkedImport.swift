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
    /// The input is the file at `path` (named in rejected records).
    func setInputFile(_ path: String)
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
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            throw fileError("cannot open \(path): \(String(cString: strerror(errno)))", nil)
        }
        defer { close(fd) }
        let size = max(chunkSize, 1)
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 16)
        defer { buffer.deallocate() }
        return try savepoint {
            let importer = try make()
            importer.setInputFile(path)
            while true {
                let n = read(fd, buffer, size)
                if n < 0 {
                    if errno == EINTR { continue }
                    throw fileError("cannot read \(path): \(String(cString: strerror(errno)))", importer.consumed)
                }
                if n == 0 { break }
                try importer.feed(UnsafeRawBufferPointer(start: buffer, count: n))
            }
            return try importer.finish()
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
