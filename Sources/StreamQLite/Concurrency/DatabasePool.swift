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
public final class DatabasePool: DatabaseWriter {
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

    /// Runs `body` on a reader's thread, even when asked from a thread of this pool's
    /// ``executor`` (where ``read(_:)`` would run it inline): `body` may block.
    ///
    /// ```swift
    /// let n = try await pool.readOnOwnThread { db in try db.value(Int.self, "SELECT count(*) FROM tasks") ?? 0 }
    /// ```
    ///
    /// - Parameter body: The reads, which may block.
    /// - Returns: What `body` returned.
    /// - Throws: What `body` threw, ``DatabasePool/ReaderWaitTimeoutError``, or `CancellationError`.
    public func readOnOwnThread<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        let reader = try await readers.checkout()
        // Given back on the reader's thread as soon as `body` is done (a waiting read gets it
        // without waiting for this task to be scheduled again), or here when `body` never ran.
        let giveBack = OnlyOnce { [readers] in readers.checkin(reader) }
        defer { giveBack.run() }
        return try await reader.run { db in
            defer { giveBack.run() }
            return try body(db)
        }
    }

}

/// An action run by the first of several callers (on any thread), never again.
final class OnlyOnce: @unchecked Sendable {
    private let lock = NSLock()
    private var action: (() -> Void)?
    init(_ action: @escaping () -> Void) { self.action = action }
    func run() {
        lock.lock()
        let action = self.action
        self.action = nil
        lock.unlock()
        action?()
    }
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
