import Foundation
import Testing
import StreamQLite

// Review of the DatabasePool executor (inline reads) and the progress-handler cancellation.

private func reviewPoolPath() throws -> String {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("review-pool-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    return dir.appendingPathComponent("t.db").path
}

/// Runs `body`, failing the test instead of hanging when it takes longer than `seconds`.
private func withDeadline<T: Sendable>(_ seconds: Double, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
    try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask { try await body() }
        group.addTask { try await Task.sleep(nanoseconds: UInt64(seconds * 1e9)); return nil }
        let first = try await group.next()!
        group.cancelAll()
        guard let first else { throw CancellationError() }
        return first
    }
}

/// Reads json_stream(fifo) with `pool.read` (inline when `executor` is given), cancels after
/// 300 ms and returns how long the task took to end after the cancellation (nil: still running
/// after `limit` seconds; the writer end is then closed so the read ends). A read that is not
/// stopped waits forever, so the limit is generous: the awaiting test task may itself wait
/// seconds for a thread of Swift's pool while the other suites run.
func reviewCancelStalledFIFORead(executorThreads: Int, limit: Double) async throws -> Double? {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("review-fifo-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    let pool = try DatabasePool(path: dir.appendingPathComponent("t.db").path, readers: 1, executorThreads: executorThreads)
    let fifo = dir.appendingPathComponent("f.json").path
    #expect(mkfifo(fifo, 0o600) == 0)
    let writer = open(fifo, O_RDWR)  // a writer that stalls after the first bytes
    #expect(writer >= 0)
    _ = "[1, 2, ".withCString { write(writer, $0, 7) }
    let started = DispatchSemaphore(value: 0)
    let body: @Sendable () async throws -> Int? = {
        try await pool.read { db in
            started.signal()
            return try db.value(Int.self, "SELECT count(*) FROM json_stream(?)", fifo)
        }
    }
    let task: Task<Int?, any Error>
    if #available(macOS 15.0, *), let executor = pool.executor {
        task = Task(executorPreference: executor) { try await body() }
    } else {
        task = Task { try await body() }
    }
    while started.wait(timeout: .now()) != .success { try await Task.sleep(nanoseconds: 1_000_000) }
    try await Task.sleep(nanoseconds: 300_000_000)
    task.cancel()
    let t0 = Date()
    let done = DispatchSemaphore(value: 0)
    Task { _ = try? await task.value; done.signal() }
    var elapsed: Double? = nil
    while Date().timeIntervalSince(t0) < limit {
        if done.wait(timeout: .now()) == .success { elapsed = Date().timeIntervalSince(t0); break }
        try await Task.sleep(nanoseconds: 10_000_000)
    }
    close(writer)  // lets a read that was not stopped end (EOF inside the array: an error)
    _ = try? await task.value
    return elapsed
}

@Suite struct ReviewPoolTests {
    // A read of pool A from pool B's executor thread reads A's file, never B's connection;
    // and a read of B there reads B's (inline).
    @Test func aReadOfAnotherPoolOnTheExecutorReadsThatPoolsFile() async throws {
        let a = try DatabasePool(path: try reviewPoolPath(), readers: 1, executorThreads: 1)
        let b = try DatabasePool(path: try reviewPoolPath(), readers: 1, executorThreads: 1)
        try await a.write { db in try db.execute("CREATE TABLE t(x)"); try db.execute("INSERT INTO t VALUES ('a')") }
        try await b.write { db in try db.execute("CREATE TABLE t(x)"); try db.execute("INSERT INTO t VALUES ('b')") }
        let executorB = try #require(b.executor)
        let (fromA, fromB) = try await Task(executorPreference: executorB) {
            var pairs: [(String?, String?)] = []
            for _ in 0..<20 {
                pairs.append((try await a.read { db in try db.value(String.self, "SELECT x FROM t") },
                              try await b.read { db in try db.value(String.self, "SELECT x FROM t") }))
            }
            return (pairs.map(\.0), pairs.map(\.1))
        }.value
        #expect(fromA.allSatisfy { $0 == "a" })
        #expect(fromB.allSatisfy { $0 == "b" })
    }

    // A write awaited from an executor thread, then an inline read on the same thread: the
    // read sees the write (no stale WAL snapshot), every time, with one and two threads.
    @Test func inlineReadsSeeTheWriteJustAwaited() async throws {
        for threads in [1, 2] {
            let pool = try DatabasePool(path: try reviewPoolPath(), readers: 1, executorThreads: threads)
            try await pool.write { db in try db.execute("CREATE TABLE t(x INTEGER)") }
            let executor = try #require(pool.executor)
            try await withDeadline(60) {
                try await Task(executorPreference: executor) {
                    try await withThrowingTaskGroup(of: Void.self) { group in
                        for w in 0..<4 {
                            group.addTask {
                                for i in 0..<50 {
                                    let v = w * 1000 + i
                                    try await pool.write { db in try db.execute("INSERT INTO t VALUES (?)", v) }
                                    let seen = try await pool.read { db in try db.value(Int.self, "SELECT count(*) FROM t WHERE x = ?", v) }
                                    #expect(seen == 1, "write \(v) not seen by the next read")
                                }
                            }
                        }
                        try await group.waitForAll()
                    }
                }.value
            }
            #expect(try await pool.read { db in try db.value(Int.self, "SELECT count(*) FROM t") } == 200)
        }
    }

    // A cancelled task's inline read fails; the next read on the same (single) thread by an
    // uncancelled task runs a long statement to the end (no stale stop).
    @Test func aCancelledInlineReadDoesNotStopTheNextOne() async throws {
        let pool = try DatabasePool(path: try reviewPoolPath(), readers: 1, executorThreads: 1)
        let executor = try #require(pool.executor)
        let long = "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 200000) SELECT count(*) FROM c"
        for _ in 0..<5 {
            let cancelled = Task(executorPreference: executor) {
                withUnsafeCurrentTask { $0?.cancel() }
                return try await pool.read { db in try db.value(Int.self, long) }
            }
            await #expect(throws: (any Error).self) { _ = try await cancelled.value }
            let fine = Task(executorPreference: executor) { try await pool.read { db in try db.value(Int.self, long) } }
            #expect(try await fine.value == 200000)
        }
    }

    // A hop read (reader thread) cancelled while running, then the next read on that reader
    // runs to the end: the stop flag and sqlite3_interrupt do not leak into the next job.
    @Test func aCancelledHopReadDoesNotStopTheNextOne() async throws {
        let pool = try DatabasePool(path: try reviewPoolPath(), readers: 1)
        let long = "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 300000) SELECT count(*) FROM c"
        for round in 0..<20 {
            let started = DispatchSemaphore(value: 0)
            let task = Task {
                try await pool.read { db -> Int? in
                    started.signal()
                    // Statements after the cancellation: none may survive it.
                    var n: Int? = nil
                    for _ in 0..<50 { n = try db.value(Int.self, long) }
                    return n
                }
            }
            while started.wait(timeout: .now()) != .success { try await Task.sleep(nanoseconds: 100_000) }
            if round % 2 == 0 { try await Task.sleep(nanoseconds: UInt64(round) * 200_000) }
            task.cancel()
            await #expect(throws: (any Error).self) { _ = try await task.value }
            #expect(try await pool.read { db in try db.value(Int.self, long) } == 300000)
            #expect(try await pool.read { db in try db.value(Int.self, "SELECT 1") } == 1)
        }
    }

    // One executor thread, many tasks on it reading, writing and reading another pool at
    // once: no deadlock (all done well within the deadline).
    @Test func oneExecutorThreadUnderMixedLoadDoesNotDeadlock() async throws {
        let pool = try DatabasePool(path: try reviewPoolPath(), readers: 1, executorThreads: 1)
        let other = try DatabasePool(path: try reviewPoolPath(), readers: 1)
        try await pool.write { db in try db.execute("CREATE TABLE t(x INTEGER)") }
        try await other.write { db in try db.execute("CREATE TABLE t(x INTEGER)") }
        let executor = try #require(pool.executor)
        let total = try await withDeadline(60) {
            try await Task(executorPreference: executor) {
                try await withThrowingTaskGroup(of: Int.self) { group in
                    for k in 0..<32 {
                        group.addTask {
                            var n = 0
                            for i in 0..<10 {
                                switch (k + i) % 3 {
                                case 0: try await pool.write { db in try db.execute("INSERT INTO t VALUES (?)", i) }
                                case 1: n += try await pool.read { db in try db.value(Int.self, "SELECT count(*) FROM t") ?? 0 } >= 0 ? 1 : 0
                                default: try await other.write { db in try db.execute("INSERT INTO t VALUES (?)", i) }
                                    n += try await other.read { db in try db.value(Int.self, "SELECT 1") ?? 0 }
                                }
                            }
                            return n
                        }
                    }
                    return try await group.reduce(0, +)
                }
            }.value
        }
        #expect(total > 0)
    }

    // The pool goes away while tasks preferring its executor are still queued: they finish
    // (elsewhere once the threads are gone), nothing hangs.
    @Test func tasksOnTheExecutorOutliveThePool() async throws {
        var pool: DatabasePool? = try DatabasePool(path: try reviewPoolPath(), readers: 1, executorThreads: 1)
        try await pool!.write { db in try db.execute("CREATE TABLE t(x)") }
        let executor = try #require(pool!.executor)
        weak let weakPool = pool
        pool = nil
        #expect(weakPool == nil)
        let sum = try await withDeadline(30) {
            try await withThrowingTaskGroup(of: Int.self) { group in
                for i in 0..<50 {
                    group.addTask(executorPreference: executor) {
                        await Task.yield()
                        return i
                    }
                }
                return try await group.reduce(0, +)
            }
        }
        #expect(sum == 49 * 50 / 2)
    }

    // A read through a reader thread blocked in json_stream on a FIFO that stalls: cancelling
    // the task interrupts it (json_stream's file wait stops on sqlite3_interrupt()).
    @Test func cancellingAHopReadBlockedOnAFIFOStopsIt() async throws {
        let elapsed = try await reviewCancelStalledFIFORead(executorThreads: 0, limit: 20)
        #expect(elapsed != nil && elapsed! < 20)
    }
}
