import CStreamQLite
import Foundation

/// An import fed its input chunk by chunk (``JSONImporter``, ``CSVImporter``): chunks
/// may cut the input anywhere.
protocol ChunkedImporter: AnyObject {
    /// Parses and stores what `bytes` completes (reports progress).
    func feed(_ bytes: UnsafeRawBufferPointer) throws
    /// The input has ended: stores the last rows; returns the number of rows imported.
    func finish() throws -> Int
    /// Input bytes fed so far (decompressed).
    var consumed: Int { get }
    /// Bytes of the input as read so far (compressed, when it is): set by the driver.
    var compressedBytes: Int { get set }
    /// The error of the import for `message` (the input cannot be read or decompressed).
    func inputError(_ message: String) -> any Error
}

extension Database {
    /// The one driver of the chunked imports (`importJSON`, `importCSV`) for input in
    /// memory: the importer (made inside the savepoint, so a table it creates is undone
    /// too) gets `bytes` (decompressed when gzip or zstd: ``InputDecompressor``), in one
    /// savepoint.
    func importChunks<I: ChunkedImporter>(bytes: UnsafeRawBufferPointer, importer make: () throws -> I) throws -> Int {
        try savepoint {
            let importer = try make()
            let input = try Self.decompressor(for: importer)
            try input.feed(bytes, into: importer)
            try input.finish(into: importer)
            return try importer.finish()
        }
    }

    private static func decompressor(for importer: some ChunkedImporter) throws -> InputDecompressor {
        do { return try InputDecompressor() } catch { throw importer.inputError(error.message) }
    }

    /// The one chunked file loop of the imports: opens `path` (an error before anything
    /// else, so a missing or unreadable file is reported before a missing table), then in
    /// one savepoint reads it (decompressed when gzip or zstd: ``InputFile``) in
    /// `chunkSize` chunks into the importer: memory use does not
    /// depend on the file's size. `fileError(message, byteOffset)` makes the import's error
    /// for the file (`byteOffset` nil when it cannot be opened).
    func importChunks<I: ChunkedImporter>(
        ofFile path: String, chunkSize: Int, fileError: (String, Int?) -> any Error, importer make: () throws -> I
    ) throws -> Int {
        let file: InputFile
        do { file = try InputFile(path: path) } catch { throw fileError(error.message, nil) }
        let size = max(chunkSize, 1)
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 16)
        defer { buffer.deallocate() }
        return try savepoint {
            let importer = try make()
            while true {
                let n: Int
                do throws(InputReadError) { n = try file.read(into: buffer, count: size) } catch {
                    throw fileError(error.message, importer.consumed)
                }
                if n == 0 { break }
                importer.compressedBytes = file.bytesRead
                try importer.feed(UnsafeRawBufferPointer(start: buffer, count: n))
            }
            return try importer.finish()
        }
    }

    /// The one driver of the imports from an asynchronous sequence of chunks: each chunk
    /// is fed as it arrives (decompressed when gzip or zstd), in one savepoint held across
    /// the awaits. A cancelled task
    /// stops between chunks and before finishing: rollback and `CancellationError` (many
    /// sequences, `AsyncStream` among them, simply end when cancelled, which must not pass
    /// for the end of the input).
    nonisolated(nonsending) func importChunks<I: ChunkedImporter, Chunks: AsyncSequence>(
        from chunks: Chunks, importer make: () throws -> I
    ) async throws -> Int where Chunks.Element: ContiguousBytes {
        let savepoint = try OpenSavepoint(self)
        do {
            let importer = try make()
            let input = try Self.decompressor(for: importer)
            for try await chunk in chunks {
                try Task.checkCancellation()
                try chunk.withUnsafeBytes { try input.feed($0, into: importer) }
            }
            try Task.checkCancellation()
            try input.finish(into: importer)
            let n = try importer.finish()
            try savepoint.release()
            return n
        } catch {
            savepoint.rollback()
            throw error
        }
    }
}

extension InputDecompressor {
    /// Feeds `bytes` to `importer`, decompressed; its progress counts the bytes fed here.
    func feed(_ bytes: UnsafeRawBufferPointer, into importer: some ChunkedImporter) throws {
        do {
            try feed(bytes) { importer.compressedBytes = bytesIn; try importer.feed($0) }
        } catch let error as InputReadError { throw importer.inputError(error.message) }
    }

    /// The input has ended: gives `importer` the rest (an error for a truncated input).
    func finish(into importer: some ChunkedImporter) throws {
        do {
            try finish { try importer.feed($0) }
        } catch let error as InputReadError { throw importer.inputError(error.message) }
    }
}
