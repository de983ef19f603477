import CStreamQLite
import Foundation

/// One connection and the thread that runs everything done with it.
///
/// ``DatabasePool`` gives each of its connections one: SQLite calls (which may wait on a
/// lock, on the disk, or on a slow consumer of a streamed result) run here, never on the
/// executor of the task that asked, which only suspends.
final class ConnectionThread: @unchecked Sendable {
    /// Only used on the thread (and by ``cancel(_:)``, which SQLite allows from anywhere).
    let database: Database
    /// Stops the running job's statements at their next progress check once it is cancelled.
    private let stopper: StatementStopper
    // Guarded by `condition`.
    private let condition = NSCondition()
    private var jobs: [Job] = []
    private var head = 0
    private var stopping = false
    /// The job running now (guarded by `condition`): ``cancel(_:)`` stops only that one.
    private var running: Job?
    /// Resumed once the thread has ended (guarded by `condition`; see ``stopAndWait()``).
    private var stopped: UnsafeContinuation<Void, Never>?

    /// A unit of work with its cancellation state. Subclasses override ``run(_:)``.
    class Job: @unchecked Sendable {
        /// Set by ``ConnectionThread/cancel(_:)`` (guarded by the thread's condition).
        final var cancelled = false
        /// Called on the thread with the connection, or with nil when the job was cancelled
        /// before it started (then it must only report that).
        func run(_ database: Database?) {}
        /// Called on the thread after ``run(_:)``, once the thread has taken and released its
        /// condition (so a task that takes it next sees everything ``run(_:)`` did).
        func ran() {}
    }

    /// A job made of a closure (see ``submit(_:)``).
    private final class ClosureJob: Job, @unchecked Sendable {
        let body: (Database?) -> Void
        init(_ body: @escaping (Database?) -> Void) { self.body = body }
        override func run(_ database: Database?) { body(database) }
    }

    /// The job of ``run(_:)``: the body, its result and the task to wake.
    ///
    /// The result goes through the job, never through the continuation: the thread stores it,
    /// takes and releases its condition, then wakes the task, which takes the condition
    /// before it reads the result. That lock is how the thread sanitizer sees the hand-over:
    /// when the thread resumes the task before it has finished suspending, the Swift runtime
    /// passes it on through atomics of its own that TSan does not see (swiftlang/swift#57803),
    /// so a value written into the task's frame by `resume(returning:)` would be reported as
    /// a race in whichever caller reads it. ``ChunkStream`` and the pool's reader set do the same.
    ///
    /// The value is kept in memory of its own rather than in a `T?` or `Result<T, _>` field:
    /// this code is not specialized for `T`, and each of those types costs a lookup of its
    /// generic metadata per read (callgrind on `Examples/TasksServer`'s PoolHopBench shows it).
    private final class ResultJob<T: Sendable>: Job, @unchecked Sendable {
        let body: @Sendable (Database) throws -> T
        var continuation: UnsafeContinuation<Void, Never>?
        /// Initialized when `body` returned (`hasValue`), moved out by ``take()``.
        private let value = UnsafeMutablePointer<T>.allocate(capacity: 1)
        private var hasValue = false
        private var failure: (any Error)?
        init(_ body: @escaping @Sendable (Database) throws -> T) { self.body = body }
        deinit {
            if hasValue { value.deinitialize(count: 1) }
            value.deallocate()
        }
        override func run(_ database: Database?) {
            guard let database else { return failure = CancellationError() }
            do {
                value.initialize(to: try body(database))
                hasValue = true
            } catch {
                failure = error
            }
        }
        override func ran() {
            guard let continuation else { preconditionFailure("StreamQLite: a job ran before it was queued") }
            self.continuation = nil
            continuation.resume()
        }
        /// The result, once; called by the task holding the thread's condition.
        func take() throws -> T {
            if hasValue {
                hasValue = false
                return value.move()
            }
            guard let failure else { preconditionFailure("StreamQLite: a job resumed its task without a result") }
            throw failure
        }
    }

    init(database: Database, name: String) {
        self.database = database
        stopper = StatementStopper(database)
        let thread = Thread { [self] in self.loop() }
        thread.name = name
        thread.start()
    }

    /// Queues `body`; jobs run one at a time, in order (see ``Job/run(_:)``).
    @discardableResult
    func submit(_ body: @escaping (Database?) -> Void) -> Job {
        let job = ClosureJob(body)
        enqueue(job)
        return job
    }

    private func enqueue(_ job: Job) {
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    /// Cancels `job`: a job not yet started is called with nil; a running one is stopped
    /// (`sqlite3_interrupt` for the statement running now, and the progress handler for a
    /// statement it starts later: either fails with `SQLITE_INTERRUPT`). A job that has
    /// finished is left alone, and so is the next job on the connection.
    func cancel(_ job: Job) {
        condition.lock()
        defer { condition.unlock() }
        job.cancelled = true
        if running === job {
            stopper.stop()
            database.interrupt()
        }
    }

    /// Runs `body` on the thread and returns its result; the calling task suspends meanwhile.
    /// Cancelling the task cancels the job (see ``cancel(_:)``).
    func run<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        let job = ResultJob(body)
        await withTaskCancellationHandler {
            await withUnsafeContinuation { (continuation: UnsafeContinuation<Void, Never>) in
                // The continuation is set before the job is queued: the thread reads it after
                // taking the queue's lock, so it sees it. A cancellation that came first marked
                // the job; the thread then reports CancellationError.
                job.continuation = continuation
                enqueue(job)
            }
        } onCancel: {
            cancel(job)
        }
        // The thread released `condition` after it stored the result (see ResultJob).
        return try condition.withLock { try job.take() }
    }

    /// Ends the thread once the queued jobs are done (the connection closes with it).
    func stop() {
        condition.lock()
        stopping = true
        condition.signal()
        condition.unlock()
    }

    /// Ends the thread once the queued jobs are done, and returns when it has stopped using
    /// the connection (its progress handler taken off): the connection may then be used
    /// elsewhere.
    func stopAndWait() async {
        await withUnsafeContinuation { (continuation: UnsafeContinuation<Void, Never>) in
            condition.lock()
            stopped = continuation
            stopping = true
            condition.signal()
            condition.unlock()
        }
        // The thread released `condition` after its last use of the connection.
        condition.withLock {}
    }

    private func loop() {
        condition.lock()
        while true {
            while head == jobs.count && !stopping { condition.wait() }
            if head == jobs.count { break }
            let job = jobs[head]
            head += 1
            // Jobs already run are dropped as the queue moves on (at most 16 kept, or as
            // many as wait): a queue that never empties, a writer always busy, must not
            // keep every job it ran and what its closure captured.
            if head == jobs.count {
                jobs.removeAll(keepingCapacity: true)
                head = 0
            } else if head >= 16 && head * 2 >= jobs.count {
                jobs.removeFirst(head)
                head = 0
            }
            let cancelled = job.cancelled
            running = cancelled ? nil : job
            stopper.reset()
            condition.unlock()
            job.run(cancelled ? nil : database)
            condition.lock()
            running = nil
            condition.unlock()
            job.ran()
            condition.lock()
        }
        condition.unlock()
        stopper.remove()
        condition.lock()
        let waiting = stopped
        stopped = nil
        condition.unlock()
        waiting?.resume()
    }
}

/// The progress handler of a pool connection: the statements of a cancelled job stop at
/// their next check, including one that was not running yet when the job was cancelled
/// (`sqlite3_interrupt` alone does nothing when no statement runs, so a job cancelled
/// between its start and its first step would otherwise run to the end). On a thread that
/// runs tasks (``DatabasePool/Executor``), it also stops when the running task is cancelled.
///
/// The same answer reaches the C core's own check (`sq_set_host_stop_check`): a statement
/// waiting on a pipe or FIFO (`json_stream`, `csv_stream`) runs no VM instruction, so the
/// progress handler is not called there; the core asks between its waits instead.
///
/// A body that installs a progress handler of its own on the connection replaces this one.
final class StatementStopper: @unchecked Sendable {
    /// SQLite virtual machine instructions between two checks (a check is a lock and a load).
    static let interval: Int32 = 1000
    private let lock = NSLock()
    private var stopped = false
    private let database: Database

    init(_ database: Database) {
        self.database = database
        if let handle = database.sqliteHandle {
            sqlite3_progress_handler(handle, Self.interval, { context in
                let stopper = Unmanaged<StatementStopper>.fromOpaque(context!).takeUnretainedValue()
                return stopper.shouldStop() ? 1 : 0
            }, Unmanaged.passUnretained(self).toOpaque())
            StopperRegistry.shared.add(self, for: handle)
        }
    }

    fileprivate func shouldStop() -> Bool {
        lock.lock()
        let stop = stopped
        lock.unlock()
        return stop || withUnsafeCurrentTask { $0?.isCancelled ?? false }
    }

    /// Stops the statements from now on, until ``reset()``.
    func stop() {
        lock.lock()
        stopped = true
        lock.unlock()
    }

    /// The next job starts: its statements run.
    func reset() {
        lock.lock()
        stopped = false
        lock.unlock()
    }

    /// Takes the handler off the connection (before the thread ends, while `self` still lives).
    func remove() {
        if let handle = database.sqliteHandle {
            sqlite3_progress_handler(handle, 0, nil, nil)
            StopperRegistry.shared.remove(handle)
        }
    }
}

/// The pool connections' stoppers by SQLite handle, for the C core's stop check
/// (asked only while a statement waits on a file: every 100 ms of waiting, every 16 reads).
private final class StopperRegistry: @unchecked Sendable {
    static let shared: StopperRegistry = {
        sq_set_host_stop_check { handle in
            guard let handle else { return 0 }
            return StopperRegistry.shared.shouldStop(handle) ? 1 : 0
        }
        return StopperRegistry()
    }()

    private let lock = NSLock()
    private var stoppers: [OpaquePointer: Unmanaged<StatementStopper>] = [:]

    func add(_ stopper: StatementStopper, for handle: OpaquePointer) {
        lock.lock()
        stoppers[handle] = Unmanaged.passUnretained(stopper)
        lock.unlock()
    }

    func remove(_ handle: OpaquePointer) {
        lock.lock()
        stoppers[handle] = nil
        lock.unlock()
    }

    /// Runs on the thread of the waiting statement (so it sees that thread's task).
    func shouldStop(_ handle: OpaquePointer) -> Bool {
        lock.lock()
        let stopper = stoppers[handle]
        lock.unlock()
        return stopper?.takeUnretainedValue().shouldStop() ?? false
    }
}
