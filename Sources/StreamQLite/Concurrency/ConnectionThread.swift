import Foundation

/// One connection and the thread that runs everything done with it.
///
/// ``DatabasePool`` gives each of its connections one: SQLite calls (which may wait on a
/// lock, on the disk, or on a slow consumer of a streamed result) run here, never on the
/// executor of the task that asked, which only suspends.
final class ConnectionThread: @unchecked Sendable {
    /// Only used on the thread (and by ``interrupt(_:)``, which SQLite allows from anywhere).
    let database: Database
    // Guarded by `condition`.
    private let condition = NSCondition()
    private var jobs: [Job] = []
    private var stopping = false
    /// The job running now (guarded by `condition`): ``interrupt(_:)`` stops only that one.
    private var running: Job?

    /// A unit of work with its cancellation state.
    final class Job {
        /// Called on the thread with the connection, or with nil when the job was cancelled
        /// before it started (then it must only report that).
        let body: (Database?) -> Void
        /// Set by ``ConnectionThread/cancel(_:)`` (guarded by the thread's condition).
        var cancelled = false
        init(_ body: @escaping (Database?) -> Void) { self.body = body }
    }

    init(database: Database, name: String) {
        self.database = database
        let thread = Thread { [self] in self.loop() }
        thread.name = name
        thread.start()
    }

    /// Queues `body`; jobs run one at a time, in order (see ``Job/body``).
    @discardableResult
    func submit(_ body: @escaping (Database?) -> Void) -> Job {
        let job = Job(body)
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
        return job
    }

    /// Cancels `job`: a job not yet started is called with nil; a running one is
    /// interrupted (`sqlite3_interrupt`: its statement fails with `SQLITE_INTERRUPT`). A job
    /// that has finished is left alone, and so is the next job on the connection.
    func cancel(_ job: Job) {
        condition.lock()
        defer { condition.unlock() }
        job.cancelled = true
        if running === job { database.interrupt() }
    }

    /// Runs `body` on the thread and returns its result; the calling task suspends meanwhile.
    /// Cancelling the task cancels the job (see ``cancel(_:)``).
    func run<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        let box = JobBox()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
                let job = submit { db in
                    guard let db else { return continuation.resume(throwing: CancellationError()) }
                    continuation.resume(with: Result { try body(db) })
                }
                box.set(job, cancelIfCancelled: self)
            }
        } onCancel: {
            box.cancel(on: self)
        }
    }

    /// Ends the thread once the queued jobs are done (the connection closes with it).
    func stop() {
        condition.lock()
        stopping = true
        condition.signal()
        condition.unlock()
    }

    private func loop() {
        while true {
            condition.lock()
            while jobs.isEmpty && !stopping { condition.wait() }
            if jobs.isEmpty {
                condition.unlock()
                return
            }
            let job = jobs.removeFirst()
            let cancelled = job.cancelled
            running = cancelled ? nil : job
            condition.unlock()
            job.body(cancelled ? nil : database)
            condition.lock()
            running = nil
            condition.unlock()
        }
    }
}

/// The job of a ``ConnectionThread/run(_:)`` call, for its cancellation handler (which may
/// run before the job exists: then the job is cancelled as soon as it is set).
private final class JobBox: @unchecked Sendable {
    private let lock = NSLock()
    private var _job: ConnectionThread.Job?
    private var cancelRequested = false

    func set(_ job: ConnectionThread.Job, cancelIfCancelled thread: ConnectionThread) {
        lock.lock()
        _job = job
        let cancel = cancelRequested
        lock.unlock()
        if cancel { thread.cancel(job) }
    }

    func cancel(on thread: ConnectionThread) {
        lock.lock()
        cancelRequested = true
        let job = _job
        lock.unlock()
        if let job { thread.cancel(job) }
    }
}
