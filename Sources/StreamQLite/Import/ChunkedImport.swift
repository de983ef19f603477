import CSQLite
import CStreamQLite
import Foundation

/// An import fed its input chunk by chunk (``JSONImporter``, ``CSVImporter``): chunks
/// may cut the input anywhere.
protocol ChunkedImporter: AnyObject {
    /// The connection the rows go to.
    var db: Database { get }
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
    /// The input is the file at `path` (named in rejected records).
    func setInputFile(_ path: String)

    // A file's rest read on a second thread (``ChunkFile``, `sq_pipe.h`): the worker feeds
    // the core through `workerFeed`, its rows and rejects come back here in order.
    /// The C feed of the import's reader and core, or nil while it must be fed on the
    /// caller's thread (CSV inference before the table exists).
    var workerFeed: ImportWorkerFeed? { get }
    /// The route of the core's rows and rejects (into a pipe, or to the import's writer
    /// and rejecter, whose callbacks take the worker's rows and rejects), once the
    /// importer has a writer.
    var router: ImportRoute? { get }
    /// The worker fed the input up to `bytes` (`compressedBytes` read), `records` so far.
    func fed(bytes: Int, compressedBytes: Int, records: Int)
    /// The error that stopped the worker's feed (the core's), read once it is joined.
    func feedError() -> any Error
    /// The error for a row or reject the writer or rejecter refused (did not continue).
    func takeError() -> any Error
}

/// A core's feed for the worker thread of ``ChunkFile``: C functions and their context.
struct ImportWorkerFeed {
    var context: UnsafeMutableRawPointer
    var feed: @convention(c) (UnsafeMutableRawPointer?, UnsafeRawPointer?, Int) -> Int32
    var records: @convention(c) (UnsafeMutableRawPointer?) -> Int64
}

/// The route of a core's callbacks (`sq_pipe_route`, `sq_pipe.h`): to the importer's
/// writer and rejecter, or into a pipe while a worker feeds the core.
final class ImportRoute {
    let pointer: UnsafeMutablePointer<sq_pipe_route>
    private let writer: IngestBatchWriter

    init(writer: IngestBatchWriter, rejecter: IngestRejecter?) {
        self.writer = writer
        pointer = .allocate(capacity: 1)
        pointer.initialize(to: sq_pipe_route(row: ingestRowCallback, row_user: writer.callbackContext,
                                             reject: rejecter.map { _ in ingestRejectCallback },
                                             reject_user: rejecter?.callbackContext, pipe: nil))
    }

    deinit { pointer.deallocate() }

    /// The user pointer of ``rowCallback`` and ``rejectCallback``.
    var context: UnsafeMutableRawPointer { UnsafeMutableRawPointer(pointer) }
    static let rowCallback: sq_ingest_row_callback = { route, row in sq_pipe_route_row(route, row) }
    static let rejectCallback: sq_ingest_reject_callback = { route, r in sq_pipe_route_reject(route, r) }

    /// Routes the core's callbacks into `pipe` (before its worker starts), or back to
    /// the writer and rejecter (nil: after the worker is joined, before the pipe is
    /// freed). The writer binds the pipe's rows where they lie meanwhile
    /// (``IngestBatchWriter/hold(in:)``).
    func send(to pipe: OpaquePointer?) {
        pointer.pointee.pipe = pipe
        writer.hold(in: pipe)
    }
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
        let file = try ChunkFile(path, chunkSize: chunkSize, fileError: fileError)
        return try savepoint {
            let importer = try make()
            importer.setInputFile(path)
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
                        report(ImportProgress(bytes: base.bytes + p.bytes, rows: base.rows + p.rows,
                                              compressedBytes: base.compressedBytes + p.compressedBytes,
                                              filesDone: base.filesDone))
                    }
                }
                let rows: Int
                let importer: I
                do {
                    importer = try make(report, previous)
                    importer.setInputFile(path)
                    try file.read(into: importer, fileError: fileError)
                    rows = try importer.finish()
                } catch {
                    throw inFile(error, path)
                }
                done = ImportProgress(bytes: base.bytes + importer.consumed, rows: base.rows + rows,
                                      compressedBytes: base.compressedBytes + importer.compressedBytes,
                                      filesDone: base.filesDone + 1)
                progress?(done)
                previous = importer
            }
            return done.rows
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

/// A file opened for a chunked import (read through ``InputFile``: decompressed when gzip
/// or zstd), with its read buffer.
final class ChunkFile {
    let path: String
    private let file: InputFile
    private let size: Int
    private let buffer: UnsafeMutableRawPointer

    /// Opens `path` (`fileError(message, nil)` when it cannot be).
    init(_ path: String, chunkSize: Int, fileError: (String, Int?) -> any Error) throws {
        self.path = path
        do { file = try InputFile(path: path) } catch { throw fileError(error.message, nil) }
        size = max(chunkSize, 1)
        buffer = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 16)
    }

    deinit { buffer.deallocate() }

    /// Feeds the whole file to `importer`, chunk by chunk, with the compressed bytes read;
    /// as soon as the importer can be fed by C alone, the rest on a second thread
    /// (``readOnWorker(into:feed:fileError:)``) when the C rule says it pays
    /// (`sq_pipe_worth_it_for`, `sq_threads.h`: more than one CPU, and a rest of at least
    /// `SQ_PIPE_MIN_INPUT` bytes as stored, or a pipe or FIFO), else here.
    func read<I: ChunkedImporter>(into importer: I, fileError: (String, Int?) -> any Error) throws {
        var undecided = true
        while true {
            if undecided, let feed = importer.workerFeed {
                undecided = false   // decided once, for the rest of the file
                if file.withCFile({ sq_pipe_worth_it_for(sq_pipe_file_left($0)) }) != 0,
                   try readOnWorker(into: importer, feed: feed, fileError: fileError) {
                    return
                }
            }
            let n: Int
            do throws(InputReadError) { n = try file.read(into: buffer, count: size) } catch {
                throw fileError(error.message, importer.consumed)
            }
            if n == 0 { break }
            importer.compressedBytes = file.bytesRead
            try importer.feed(UnsafeRawBufferPointer(start: buffer, count: n))
        }
    }
}

extension ChunkFile {
    /// The rest of the file read, decompressed and fed to the importer's core on a worker
    /// thread (`sq_pipe_read_run`), while this thread takes its rows and rejects in order
    /// (the importer's writer binds and inserts them as when fed here) and reports progress
    /// after each chunk; while it waits for the worker it asks the connection whether
    /// `sqlite3_interrupt()` was called or its pool job cancelled (then "interrupted"). The
    /// worker is joined before this returns or throws; the importer then finishes on this
    /// thread. False when no thread could be started (nothing read).
    private func readOnWorker<I: ChunkedImporter>(
        into importer: I, feed: ImportWorkerFeed, fileError: (String, Int?) -> any Error
    ) throws -> Bool {
        guard let router = importer.router, let pipe = sq_pipe_new(0, 0) else { return false }
        defer { sq_pipe_free(pipe) }
        let item = UnsafeMutablePointer<sq_pipe_item>.allocate(capacity: 1)
        defer { item.deallocate() }
        let raw = UnsafeMutableRawPointer(item)
        let row = (raw + MemoryLayout<sq_pipe_item>.offset(of: \.row)!).assumingMemoryBound(to: sq_ingest_row.self)
        let reject = (raw + MemoryLayout<sq_pipe_item>.offset(of: \.reject)!).assumingMemoryBound(to: sq_ingest_reject.self)
        return try file.withCFile { f in
            let reader = UnsafeMutablePointer<sq_pipe_reader>.allocate(capacity: 1)
            defer { reader.deallocate() }
            reader.initialize(to: sq_pipe_reader(file: f, chunk: size, base: UInt64(importer.consumed),
                                                 feed: feed.feed, records: feed.records, ctx: feed.context))
            router.send(to: pipe)
            defer { router.send(to: nil) }
            // the writer's and rejecter's callbacks (the route's own; constant while piped)
            let take = router.pointer.pointee
            if sq_pipe_start(pipe, sq_pipe_read_run, reader) != 0 { return false }
            // (runs before the route is given back: the worker no longer calls it)
            defer { sq_pipe_stop(pipe) }
            // the binds and steps below re-enter the connection's mutex cheaply
            let mutex = sqlite3_db_mutex(importer.db.handle)
            sqlite3_mutex_enter(mutex)
            defer { sqlite3_mutex_leave(mutex) }
            while true {
                // sqlite3_interrupt() or a cancelled pool job (sq_interrupted) while the worker
                // waits on a stalled pipe or FIFO: the import stops ("interrupted")
                if sq_pipe_next(pipe, item, sq_pipe_db_interrupted, UnsafeMutableRawPointer(importer.db.handle))
                    != SQ_PIPE_OK {
                    throw importer.inputError("interrupted")
                }
                switch item.pointee.kind {
                case SQ_PIPE_ROW:
                    if take.row(take.row_user, row) != SQ_INGEST_CONTINUE { throw importer.takeError() }
                case SQ_PIPE_REJECT:
                    guard let rejected = take.reject, rejected(take.reject_user, reject) == SQ_INGEST_CONTINUE else {
                        throw importer.takeError()
                    }
                case SQ_PIPE_MARK:
                    importer.fed(bytes: Int(item.pointee.a), compressedBytes: Int(item.pointee.raw_bytes),
                                 records: Int(item.pointee.b))
                case SQ_PIPE_END:
                    return true
                default:
                    if item.pointee.rc == SQ_PIPE_FEED_FAILED {
                        sq_pipe_stop(pipe)
                        throw importer.feedError()
                    }
                    let why = item.pointee.message.map { String(cString: $0) } ?? "out of memory"
                    throw fileError(InputFile.message(why, path: path), importer.consumed)
                }
            }
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

/// An importer whose progress is an ``ImportProgressCounter``: its ``ChunkedImporter``
/// bookkeeping (``ChunkedImporter/consumed``, ``ChunkedImporter/compressedBytes``, and the
/// worker's ``ChunkedImporter/fed(bytes:compressedBytes:records:)``) is written once, here.
protocol ProgressCountingImporter: ChunkedImporter {
    var counter: ImportProgressCounter { get set }
}

extension ProgressCountingImporter {
    var consumed: Int { counter.bytes }

    var compressedBytes: Int {
        get { counter.compressedBytes }
        set { counter.compressedBytes = newValue }
    }

    func fed(bytes: Int, compressedBytes: Int, records: Int) {
        counter.bytes = bytes
        counter.compressedBytes = compressedBytes
        counter.report(rows: records)
    }
}
