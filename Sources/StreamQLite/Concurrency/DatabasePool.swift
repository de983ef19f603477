import CStreamQLite
import Foundation

/// One SQLite file in WAL mode shared by async code: read-only connections that read in
/// parallel, and one writer connection whose writes run one after another.
///
/// Every connection has a thread of its own, and every SQLite call runs there: the task
/// that calls ``read(_:)``, ``write(_:)`` or ``jsonChunks(_:_:options:chunksAhead:stallTimeout:as:)``
/// suspends, so no executor thread (Swift's cooperative pool, an event loop) ever waits on
/// SQLite, on the disk, or on a busy lock. Reads see the last committed write (WAL
/// snapshots: a read never waits for the writer, the writer never waits for readers).
///
/// ```swift
/// let pool = try DatabasePool(path: "tasks.db", readers: 4)
/// try await pool.write { db in
///     try db.execute("CREATE TABLE IF NOT EXISTS tasks(id INTEGER PRIMARY KEY, title TEXT, done INTEGER)")
///     try db.execute("INSERT INTO tasks(title, done) VALUES (?, ?)", "Buy milk", false)
/// }
/// let open = try await pool.read { db in try db.value(Int.self, "SELECT count(*) FROM tasks WHERE done = 0") }
///
/// // A large result as JSON, chunk by chunk, at the pace of the consumer:
/// try await pool.writeJSON("SELECT id, title, done FROM tasks ORDER BY id",
///                          options: JSONWriterOptions(booleanColumns: ["done"])) { chunk in
///     try await response.write(chunk)   // the chunk is only valid during the call
/// }
/// ```
///
/// When every reader is busy, a read waits (suspended, first come first served) for one to
/// come back, at most `readerWaitTimeout` seconds when the pool has one (then it throws
/// ``DatabasePool/ReaderWaitTimeoutError``: a server can answer "busy, retry" instead of queueing without
/// bound behind clients that hold every reader). Cancelling the waiting task ends the wait
/// with `CancellationError`; cancelling
/// a task whose read runs interrupts its statement (`SQLITE_INTERRUPT`, see
/// ``Database/interrupt()``, also when the statement starts after the cancellation), and a
/// streamed result stops at its next chunk.
///
/// Each read hands `body` to a reader thread and resumes the task when it is done: two
/// thread wake-ups, which can cost more than a point query. Code that reads a lot in short
/// requests can run on the pool's own executor instead (`executorThreads`, ``executor``):
/// there ``read(_:)`` runs inline.
public final class DatabasePool: Sendable {
    /// The database file.
    public let path: String
    /// The number of read-only connections.
    public let readerCount: Int
    private let writer: ConnectionThread
    private let readers: ReaderSet
    /// The ``DatabasePool/Executor`` (typed `AnyObject` for the availability of `TaskExecutor`).
    private let executorObject: (AnyObject & Sendable)?
    /// Marks the executor threads of this pool (see ``InlineReader``).
    let identity = PoolIdentity()

    /// Opens `path` (created if missing), switches it to WAL mode and opens `readers`
    /// read-only connections on it, and `executorThreads` more for the threads of
    /// ``executor`` (none by default). A read or streamed result that finds every reader busy
    /// waits for one at most `readerWaitTimeout` seconds (nil: as long as it takes), then
    /// throws ``DatabasePool/ReaderWaitTimeoutError``; reads inline on the executor never wait.
    ///
    /// Throws when the file cannot be opened or cannot use WAL (an in-memory database, a
    /// file system without shared memory): without WAL, readers and the writer would block
    /// each other. `configuration` applies to every connection (the busy timeout matters
    /// when other processes write the same file).
    ///
    /// ```swift
    /// let pool = try DatabasePool(path: "tasks.db", readers: 4, readerWaitTimeout: 5)
    /// ```
    ///
    /// - Parameters:
    ///   - path: The database file (created when missing).
    ///   - readers: Read-only connections, each on its own thread (at least 1).
    ///   - executorThreads: Threads of ``executor``, each with its own reader; 0: none.
    ///   - configuration: Settings for every connection.
    ///   - readerWaitTimeout: Seconds a read waits for a free reader; nil: no limit.
    /// - Throws: ``DatabaseError`` when the file cannot be opened or cannot use WAL.
    public init(path: String, readers: Int = 4, executorThreads: Int = 0,
                configuration: Database.Configuration = Database.Configuration(),
                readerWaitTimeout: TimeInterval? = nil) throws {
        guard readers >= 1 else {
            throw DatabaseError(code: SQLITE_MISUSE, message: "DatabasePool: readers must be at least 1, not \(readers)")
        }
        guard executorThreads >= 0 else {
            throw DatabaseError(code: SQLITE_MISUSE, message: "DatabasePool: executorThreads must be at least 0, not \(executorThreads)")
        }
        let writerDatabase = try Database(path: path, flags: .default, configuration: configuration)
        let mode = try writerDatabase.value(String.self, "PRAGMA journal_mode = WAL")
        guard mode == "wal" else {
            throw DatabaseError(code: SQLITE_MISUSE,
                                message: "DatabasePool: '\(path)' cannot use WAL (journal_mode is \(mode ?? "NULL")); readers would block the writer")
        }
        // Every connection is opened before any thread starts: when one fails, the ones
        // opened close and no thread is left running (deinit does not run for a pool whose
        // init threw).
        let readerDatabases = try (0..<readers).map { _ in
            try Database(path: path, flags: [.readOnly, .noMutex], configuration: configuration)
        }
        if executorThreads == 0 {
            executorObject = nil
        } else if #available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *) {
            // Opens all its connections before it starts its threads.
            executorObject = try DatabasePool.Executor(pool: identity, threads: executorThreads, path: path, configuration: configuration)
        } else {
            throw DatabaseError(code: SQLITE_MISUSE, message: "DatabasePool: executorThreads needs task executors (macOS 15, iOS 18)")
        }
        self.path = path
        self.readerCount = readers
        writer = ConnectionThread(database: writerDatabase, name: "StreamQLite writer")
        self.readers = ReaderSet(readerDatabases.enumerated().map { i, database in
            ConnectionThread(database: database, name: "StreamQLite reader \(i + 1)")
        }, waitTimeout: readerWaitTimeout.map { max($0, 0) })
    }

    deinit {
        writer.stop()
        readers.stopAll()
        if #available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *) {
            (executorObject as? DatabasePool.Executor)?.shutdown()
        }
    }

    /// The pool's task executor (nil unless made with `executorThreads`): tasks running on
    /// it read inline, on their own thread (see ``DatabasePool/Executor``).
    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    public var executor: DatabasePool.Executor? { executorObject as? DatabasePool.Executor }

    // MARK: Reads and writes

    /// Runs `body` with a read-only connection on its thread; other reads run in parallel.
    ///
    /// Everything `body` reads is one consistent snapshot only within one statement, or
    /// within a transaction it opens itself (`try db.transaction(.deferred) { … }`).
    ///
    /// On a thread of this pool's ``executor``, `body` runs right there, on that thread's
    /// connection; anywhere else it runs on a reader's thread while the task suspends.
    ///
    /// ```swift
    /// let open = try await pool.read { db in try db.value(Int.self, "SELECT count(*) FROM tasks WHERE NOT done") ?? 0 }
    /// ```
    ///
    /// - Parameter body: The reads, given a read-only connection.
    /// - Returns: What `body` returned.
    /// - Throws: What `body` threw, ``DatabasePool/ReaderWaitTimeoutError`` when no reader came free in
    ///   time, or `CancellationError` when the task was cancelled while waiting.
    public func read<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        // No suspension between finding the thread's reader and using it.
        if let inline = InlineReader.current(in: self) { return try inline.read(body) }
        let reader = try await readers.checkout()
        defer { readers.checkin(reader) }
        return try await reader.run(body)
    }

    /// Runs `body` on the writer connection in an `IMMEDIATE` transaction (committed when it
    /// returns, rolled back when it throws). Writes run one at a time, in the order asked.
    ///
    /// ```swift
    /// try await pool.write { db in try db.execute("UPDATE tasks SET done = 1 WHERE id = ?", 7) }
    /// ```
    ///
    /// - Parameter body: The writes, in one transaction.
    /// - Returns: What `body` returned.
    /// - Throws: What `body` threw (after the rollback), or ``DatabaseError`` from the commit.
    public func write<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await writer.run { db in try db.transaction { try body(db) } }
    }

    /// Runs `body` on the writer connection outside a transaction (schema set-up, `PRAGMA`s,
    /// `VACUUM`, or transactions of your own).
    ///
    /// ```swift
    /// try await pool.writeWithoutTransaction { db in try db.execute("VACUUM") }
    /// ```
    ///
    /// - Parameter body: The work, on the writer connection in autocommit mode.
    /// - Returns: What `body` returned.
    /// - Throws: What `body` threw.
    public func writeWithoutTransaction<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await writer.run(body)
    }

    // MARK: Streamed JSON

    /// The rows of `sql` as JSON, in chunks, as an `AsyncSequence`: the statement steps on a
    /// reader's thread and stays at most `chunksAhead` chunks ahead of the consumer, so memory
    /// stays bounded whatever the size of the result and a slow consumer holds back SQLite,
    /// not the other way round.
    ///
    /// Each chunk holds up to ``JSONWriterOptions/chunkSize`` bytes (64 KiB by default),
    /// made by `makeChunk` on the producing thread from bytes valid only during that call
    /// (copy them: `[UInt8](chunk)`, a NIO `ByteBuffer(bytes: chunk)`…). The whole result is
    /// one statement, so one snapshot. Nothing runs until the first `next()`, which waits for
    /// a free reader. An error (SQL, binding, ``JSONWriterError``) is thrown by `next()`; the
    /// chunks before it were already delivered. Dropping the iterator or cancelling the task
    /// stops the statement and gives the reader back.
    ///
    /// A consumer that stops taking chunks cannot hold the reader: when `chunksAhead` chunks
    /// have waited `stallTimeout` seconds (30 by default; nil: no limit) for the consumer, the
    /// statement stops, the reader goes back to the pool, and `next()` throws
    /// ``DatabasePool/StalledConsumerError`` after the waiting chunks. A deadline rather than a larger
    /// buffer: a buffer lets the reader go only for results that fit in it (and costs that
    /// memory per consumer), while the statement, its reader and the WAL snapshot that keeps
    /// checkpoints from finishing stay held as long as the consumer stalls; the deadline
    /// bounds that for any result size. A slow consumer that keeps taking chunks is not
    /// stopped: the timeout counts from the last chunk it took.
    ///
    /// ```swift
    /// var chunks = pool.jsonChunks("SELECT * FROM tasks WHERE done = ?", false,
    ///                              as: { ByteBuffer(bytes: $0) }).makeAsyncIterator()
    /// while let chunk = try await chunks.next() { try await writer.write(chunk) }
    /// ```
    ///
    /// - Parameters:
    ///   - sql: One SQL statement.
    ///   - arguments: Values bound to its `?` parameters, in order.
    ///   - options: The JSON's shape (array or NDJSON, chunk size…).
    ///   - chunksAhead: Chunks the statement may make before the consumer takes them.
    ///   - stallTimeout: Seconds a full buffer may wait for the consumer; nil: no limit.
    ///   - makeChunk: Copies the bytes of a chunk into the type the consumer wants.
    /// - Returns: The chunks as an `AsyncSequence`; errors are thrown by its `next()`.
    public func jsonChunks<Chunk: Sendable, each A: DatabaseValueConvertible>(
        _ sql: String, _ arguments: repeat each A, options: JSONWriterOptions = JSONWriterOptions(),
        chunksAhead: Int = 4, stallTimeout: TimeInterval? = 30,
        as makeChunk: @escaping @Sendable (UnsafeRawBufferPointer) -> Chunk
    ) -> DatabasePool.JSONChunks<Chunk> {
        var values: [DatabaseValue] = []
        for argument in repeat each arguments { values.append(argument.databaseValue) }
        return DatabasePool.JSONChunks(pool: self, sql: sql, arguments: values, options: options,
                          chunksAhead: max(chunksAhead, 1), stallTimeout: stallTimeout.map { max($0, 0) },
                          makeChunk: makeChunk)
    }

    /// The rows of `sql` as JSON chunks of `[UInt8]`; see ``jsonChunks(_:_:options:chunksAhead:stallTimeout:as:)``.
    public func jsonChunks<each A: DatabaseValueConvertible>(
        _ sql: String, _ arguments: repeat each A, options: JSONWriterOptions = JSONWriterOptions(),
        chunksAhead: Int = 4, stallTimeout: TimeInterval? = 30
    ) -> DatabasePool.JSONChunks<[UInt8]> {
        jsonChunks(sql, repeat each arguments, options: options, chunksAhead: chunksAhead,
                   stallTimeout: stallTimeout, as: { [UInt8]($0) })
    }

    /// Streams the rows of `sql` as JSON to `consumer`, one chunk at a time, and returns the
    /// number of rows: ``Database/writeJSON(_:_:to:options:)`` for async code.
    ///
    /// The statement runs on a reader's thread, at most `chunksAhead` chunks ahead of
    /// `consumer`, which runs in the calling task and may suspend (a network write): that is
    /// the backpressure. The chunk is valid only during the call. An error thrown by
    /// `consumer` stops the statement and is rethrown; so is cancelling the calling task, and
    /// ``DatabasePool/StalledConsumerError`` when `consumer` keeps the chunks ahead full for `stallTimeout`
    /// seconds (see ``jsonChunks(_:_:options:chunksAhead:stallTimeout:as:)``).
    ///
    /// ```swift
    /// let n = try await pool.writeJSON("SELECT * FROM tasks") { bytes in try await socket.write(bytes) }
    /// ```
    ///
    /// - Parameters:
    ///   - sql: One SQL statement.
    ///   - arguments: Values bound to its `?` parameters, in order.
    ///   - options: The JSON's shape.
    ///   - chunksAhead: Chunks made before `consumer` takes them.
    ///   - stallTimeout: Seconds a full buffer may wait for `consumer`; nil: no limit.
    ///   - consumer: Takes each chunk (valid during the call only).
    /// - Returns: The number of rows written.
    /// - Throws: ``DatabaseError``, ``JSONWriterError``, what `consumer` threw,
    ///   ``DatabasePool/StalledConsumerError``, or `CancellationError`.
    @discardableResult
    public func writeJSON<each A: DatabaseValueConvertible>(
        _ sql: String, _ arguments: repeat each A, options: JSONWriterOptions = JSONWriterOptions(),
        chunksAhead: Int = 2, stallTimeout: TimeInterval? = 30,
        to consumer: (UnsafeRawBufferPointer) async throws -> Void
    ) async throws -> Int {
        var iterator = jsonChunks(sql, repeat each arguments, options: options, chunksAhead: chunksAhead,
                                  stallTimeout: stallTimeout, as: { OwnedChunk($0) }).makeAsyncIterator()
        while let chunk = try await iterator.next() {
            try await consumer(chunk.bytes)
            withExtendedLifetime(chunk) {}
        }
        return iterator.rowCount ?? 0
    }

    /// A reader for a streamed result: waits for one (cancellable).
    func checkoutReader() async throws -> ConnectionThread { try await readers.checkout() }
    func checkinReader(_ reader: ConnectionThread) { readers.checkin(reader) }
}

/// The identity of a pool for its executor threads (which must not keep the pool alive).
final class PoolIdentity: Sendable {}

/// A copy of one chunk, freed with the last reference.
final class OwnedChunk: @unchecked Sendable {
    let bytes: UnsafeRawBufferPointer
    init(_ source: UnsafeRawBufferPointer) {
        let copy = UnsafeMutableRawBufferPointer.allocate(byteCount: max(source.count, 1), alignment: 1)
        if source.count > 0 { copy.copyMemory(from: source) }
        bytes = UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(copy)[0..<source.count])
    }
    deinit { bytes.baseAddress.map { UnsafeMutableRawPointer(mutating: $0).deallocate() } }
}

/// The idle readers and the tasks waiting for one (first come, first served).
///
/// A waiting task is handed its reader through `handed` (under `lock`) and woken after,
/// and takes `lock` before it looks: the hand-over the thread sanitizer can see (see
/// ConnectionThread's `ResultJob`).
private final class ReaderSet: @unchecked Sendable {
    private let lock = NSLock()
    private var idle: [ConnectionThread]
    private let all: [ConnectionThread]
    private var waiters: [(id: UInt64, continuation: UnsafeContinuation<Void, Never>)] = []
    /// Readers given to woken waiters, by waiter id (a woken waiter without one was cancelled).
    private var handed: [UInt64: ConnectionThread] = [:]
    /// Waiters woken by their wait timeout, by id.
    private var expired: Set<UInt64> = []
    private var nextID: UInt64 = 0
    private let waitTimeout: TimeInterval?

    init(_ readers: [ConnectionThread], waitTimeout: TimeInterval?) {
        idle = readers
        all = readers
        self.waitTimeout = waitTimeout
    }

    /// An idle reader, or the id to wait under.
    private func takeIdle() -> (ConnectionThread?, UInt64) {
        lock.lock()
        defer { lock.unlock() }
        if let reader = idle.popLast() { return (reader, 0) }
        nextID += 1
        return (nil, nextID)
    }

    func checkout() async throws -> ConnectionThread {
        let (idleReader, id) = takeIdle()
        if let idleReader { return idleReader }
        await withTaskCancellationHandler {
            await withUnsafeContinuation { (continuation: UnsafeContinuation<Void, Never>) in
                lock.lock()
                if let reader = idle.popLast() {
                    handed[id] = reader
                    lock.unlock()
                    continuation.resume()
                } else if Task.isCancelled {
                    lock.unlock()
                    continuation.resume()
                } else {
                    waiters.append((id, continuation))
                    lock.unlock()
                    if let waitTimeout {
                        DispatchQueue.global().asyncAfter(deadline: .now() + waitTimeout) { [self] in
                            wake(id, expiring: true)
                        }
                    }
                }
            }
        } onCancel: {
            wake(id, expiring: false)
        }
        let (reader, timedOut) = lock.withLock { (handed.removeValue(forKey: id), expired.remove(id) != nil) }
        guard let reader else {
            if timedOut { throw DatabasePool.ReaderWaitTimeoutError(readers: all.count, timeout: waitTimeout ?? 0) }
            throw CancellationError()
        }
        return reader
    }

    /// Ends waiter `id`'s wait without a reader (cancelled, or `expiring`: timed out), if it
    /// still waits.
    private func wake(_ id: UInt64, expiring: Bool) {
        lock.lock()
        let index = waiters.firstIndex { $0.id == id }
        let waiter = index.map { waiters.remove(at: $0) }
        if waiter != nil && expiring { expired.insert(id) }
        lock.unlock()
        waiter?.continuation.resume()
    }

    func checkin(_ reader: ConnectionThread) {
        lock.lock()
        if waiters.isEmpty {
            idle.append(reader)
            lock.unlock()
        } else {
            let waiter = waiters.removeFirst()
            handed[waiter.id] = reader
            lock.unlock()
            waiter.continuation.resume()
        }
    }

    func stopAll() { for reader in all { reader.stop() } }
}

extension DatabasePool {
    /// Thrown by a read or streamed result of a ``DatabasePool`` made with a `readerWaitTimeout`
    /// when every reader stayed busy that long.
    public struct ReaderWaitTimeoutError: Error, Sendable, CustomStringConvertible {
        /// The pool's number of readers.
        public var readers: Int
        /// The wait timeout that passed, in seconds.
        public var timeout: TimeInterval

        public var description: String {
            "DatabasePool: all \(readers) readers stayed busy for \(timeout) s"
        }
    }
}
