import Foundation

extension DatabasePool {
    /// A task executor whose threads belong to a ``DatabasePool`` and each hold a read-only
    /// connection of their own: a task that runs on it reads without leaving its thread.
    ///
    /// ``DatabasePool/read(_:)`` called from a task running on one of these threads runs `body`
    /// right there, on that thread's connection, instead of handing it to a reader thread and
    /// waiting to be resumed (two thread wake-ups per read). SQLite still never runs on the
    /// caller's executor when that is an event loop or Swift's cooperative pool: only code that
    /// chose this executor reads inline.
    ///
    /// ```swift
    /// let pool = try DatabasePool(path: "tasks.db", readers: 4, executorThreads: 2)
    /// try await withTaskExecutorPreference(pool.executor) {
    ///     // Tasks created in here (child tasks too) run on the pool's executor threads;
    ///     // their point reads run inline.
    ///     try await app.run()
    /// }
    /// ```
    ///
    /// A task created with the preference (`Task(executorPreference:)`, or a child task inside a
    /// `withTaskExecutorPreference` scope) starts on the executor; the scope's own task moves
    /// there at its first suspension, so its first read may still hop.
    ///
    /// Everything that runs on the executor shares its threads: an inline read holds its thread
    /// until it returns, like any synchronous work. A read body must not block waiting for other
    /// work on the same executor. Streamed results (``DatabaseReader/jsonChunks(_:_:options:chunksAhead:stallTimeout:as:)``)
    /// and writes still run on the pool's reader and writer threads. Cancelling a task stops its
    /// inline read's statements at the next progress check (`SQLITE_INTERRUPT`).
    ///
    /// The threads end when the pool goes away; jobs enqueued after that run on Swift's global
    /// concurrent executor.
    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    public final class Executor: TaskExecutor, @unchecked Sendable {
        /// The number of threads.
        public let threadCount: Int
        private let queue = ExecutorQueue()

        init(pool: PoolIdentity, threads: Int, path: String, configuration: Database.Configuration) throws {
            threadCount = threads
            let connections = try (0..<threads).map { _ in
                try Database(path: path, flags: [.readOnly, .noMutex], configuration: configuration)
            }
            for (i, database) in connections.enumerated() {
                let local = InlineReader(pool: pool, database: database)
                let thread = Thread { [self] in self.loop(local) }
                thread.name = "StreamQLite executor \(i + 1)"
                thread.start()
            }
        }

        /// Queues `job` for the executor's threads; after shutdown it runs on the global concurrent executor.
        public func enqueue(_ job: consuming ExecutorJob) {
            let job = UnownedJob(job)
            if !queue.push(job) {
                // Shut down: the job still runs, elsewhere.
                globalConcurrentExecutor.enqueue(ExecutorJob(job))
            }
        }

        /// This executor as a task executor (for `withTaskExecutorPreference`).
        public func asUnownedTaskExecutor() -> UnownedTaskExecutor { UnownedTaskExecutor(ordinary: self) }

        /// Lets the threads end once the queued jobs have run (the pool calls it when it goes away).
        func shutdown() { queue.shutdown() }

        private func loop(_ local: InlineReader) {
            pthread_setspecific(InlineReader.key, Unmanaged.passUnretained(local).toOpaque())
            let me = asUnownedTaskExecutor()
            while let job = queue.pop() {
                job.runSynchronously(on: me)
            }
            pthread_setspecific(InlineReader.key, nil)
            local.close()
        }
    }
}

/// The jobs of a ``DatabasePool/Executor``, first in first out, taken by whichever thread is free.
private final class ExecutorQueue: @unchecked Sendable {
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    private var head = 0
    private var waiting = 0
    private var closed = false

    /// False once shut down.
    func push(_ job: UnownedJob) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        guard !closed else { return false }
        jobs.append(job)
        if waiting > 0 { condition.signal() }
        return true
    }

    /// The next job; nil once shut down and empty.
    func pop() -> UnownedJob? {
        condition.lock()
        defer { condition.unlock() }
        while head == jobs.count {
            if closed { return nil }
            waiting += 1
            condition.wait()
            waiting -= 1
        }
        let job = jobs[head]
        head += 1
        if head == jobs.count {
            jobs.removeAll(keepingCapacity: true)
            head = 0
        }
        return job
    }

    func shutdown() {
        condition.lock()
        closed = true
        condition.broadcast()
        condition.unlock()
    }
}

/// The connection of one executor thread, found through a thread-specific value by
/// ``DatabasePool/read(_:)``.
final class InlineReader: @unchecked Sendable {
    static let key: pthread_key_t = {
        var key = pthread_key_t()
        precondition(pthread_key_create(&key, nil) == 0, "StreamQLite: pthread_key_create failed")
        return key
    }()

    let pool: PoolIdentity
    private let database: Database
    private let stopper: StatementStopper

    init(pool: PoolIdentity, database: Database) {
        self.pool = pool
        self.database = database
        stopper = StatementStopper(database)
    }

    /// This thread's reader when it belongs to `pool`'s executor.
    static func current(in pool: DatabasePool) -> InlineReader? {
        guard let pointer = pthread_getspecific(key) else { return nil }
        let reader = Unmanaged<InlineReader>.fromOpaque(pointer).takeUnretainedValue()
        return reader.pool === pool.identity ? reader : nil
    }

    /// Runs `body` here, in the calling task (its cancellation stops the statements through
    /// the progress handler, which checks the current task).
    func read<T>(_ body: (Database) throws -> T) throws -> T {
        try Task.checkCancellation()
        return try body(database)
    }

    func close() { stopper.remove() }
}
