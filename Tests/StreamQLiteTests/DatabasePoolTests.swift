import Foundation
import Testing
import StreamQLite

/// ``DatabasePool``: reads in parallel on read-only WAL connections, writes serialized on
/// one writer, streamed JSON with backpressure, cancellation.
@Suite struct DatabasePoolTests {
    func makePool(readers: Int = 2, rows: Int = 0) async throws -> (DatabasePool, String) {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pool-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let path = dir.appendingPathComponent("t.db").path
        let pool = try DatabasePool(path: path, readers: readers)
        try await pool.write { db in
            try db.execute("CREATE TABLE t(id INTEGER PRIMARY KEY, title TEXT)")
            if rows > 0 {
                try db.execute("WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < ?) INSERT INTO t SELECT i, 'task ' || i FROM c", rows)
            }
        }
        return (pool, path)
    }

    @Test func walIsRequired() throws {
        #expect(throws: DatabaseError.self) { try DatabasePool(path: ":memory:") }
        #expect(throws: DatabaseError.self) { try DatabasePool(path: "/tmp/x.db", readers: 0) }
    }

    @Test func parallelReadsSeeCommittedWrites() async throws {
        let (pool, _) = try await makePool(readers: 4)
        for round in 1...5 {
            try await pool.write { db in try db.execute("INSERT INTO t(title) VALUES (?)", "round \(round)") }
            let counts = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<8 { group.addTask { try await pool.read { db in try db.value(Int.self, "SELECT count(*) FROM t")! } } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(counts == Array(repeating: round, count: 8))
        }
    }

    // Two reads that can only finish if they run at the same time (each waits for the other).
    @Test func readsRunInParallel() async throws {
        let (pool, _) = try await makePool(readers: 2)
        let a = DispatchSemaphore(value: 0), b = DispatchSemaphore(value: 0)
        async let first: Bool = pool.read { _ in a.signal(); return b.wait(timeout: .now() + 10) == .success }
        async let second: Bool = pool.read { _ in b.signal(); return a.wait(timeout: .now() + 10) == .success }
        let both = try await (first, second)
        #expect(both == (true, true))
    }

    @Test func writesAreSerializedAndRolledBackOnError() async throws {
        let (pool, _) = try await makePool()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for i in 0..<50 {
                group.addTask {
                    try await pool.write { db in
                        let n = try db.value(Int.self, "SELECT count(*) FROM t")!
                        try db.execute("INSERT INTO t(id, title) VALUES (?, ?)", n + 1, "w\(i)")
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(try await pool.read { db in try db.value(Int.self, "SELECT count(*) FROM t") } == 50)
        struct Boom: Error {}
        await #expect(throws: Boom.self) {
            try await pool.write { db in try db.execute("DELETE FROM t"); throw Boom() }
        }
        #expect(try await pool.read { db in try db.value(Int.self, "SELECT count(*) FROM t") } == 50)
        // Readers are read-only.
        await #expect(throws: DatabaseError.self) { try await pool.read { db in try db.execute("DELETE FROM t") } }
    }

    @Test func streamedJSONEqualsTheSynchronousWriter() async throws {
        let (pool, path) = try await makePool(rows: 20_000)
        var streamed: [UInt8] = []
        var chunks = 0
        let rows = try await pool.writeJSON("SELECT id, title FROM t WHERE id > ? ORDER BY id", 10) { chunk in
            streamed.append(contentsOf: chunk)
            chunks += 1
        }
        let db = try Database(path: path)
        #expect(streamed == (try db.jsonBytes("SELECT id, title FROM t WHERE id > ? ORDER BY id", 10)))
        #expect(rows == 19_990 && chunks > 1)
        var collected: [UInt8] = []
        for try await chunk in pool.jsonChunks("SELECT id, title FROM t WHERE id > ? ORDER BY id", 10, options: JSONWriterOptions(chunkSize: 1000)) {
            #expect(chunk.count <= 1000)
            collected += chunk
        }
        #expect(collected == streamed)
        #expect(try await pool.writeJSON("SELECT 1 AS x WHERE 0") { _ in } == 0)
    }

    @Test func errorsReachTheConsumer() async throws {
        let (pool, _) = try await makePool(readers: 1, rows: 10)
        await #expect(throws: DatabaseError.self) { try await pool.writeJSON("SELECT nope FROM t") { _ in } }
        await #expect(throws: DatabaseError.self) { try await pool.writeJSON("SELECT * FROM t WHERE id = ?") { _ in } }
        struct Stop: Error {}
        let (bigPool, _) = try await makePool(readers: 1, rows: 50_000)
        await #expect(throws: Stop.self) { try await bigPool.writeJSON("SELECT * FROM t") { _ in throw Stop() } }
        // The one reader came back each time.
        #expect(try await pool.read { db in try db.value(Int.self, "SELECT count(*) FROM t") } == 10)
        #expect(try await bigPool.read { db in try db.value(Int.self, "SELECT count(*) FROM t") } == 50_000)
    }

    // The write lands while a read is half way through its result; the read finishes on its
    // snapshot, the next read sees the write.
    @Test func aWriteDuringALongRead() async throws {
        let (pool, _) = try await makePool(readers: 1, rows: 30_000)
        var iterator = pool.jsonChunks("SELECT id FROM t ORDER BY id", options: JSONWriterOptions(format: .arrayOfArrays, chunkSize: 256),
                                       chunksAhead: 1).makeAsyncIterator()
        var body = try #require(try await iterator.next())
        let started = Date()
        try await pool.write { db in try db.execute("DELETE FROM t WHERE id > 10") }
        // Generous: the test task may wait seconds for a thread of Swift's pool while the other suites run.
        #expect(Date().timeIntervalSince(started) < 30, "the writer did not wait for the reader")
        while let chunk = try await iterator.next() { body += chunk }
        let ids = try JSONSerialization.jsonObject(with: Data(body)) as! [[Int]]
        #expect(ids.count == 30_000 && ids.last == [30_000])
        #expect(try await pool.read { db in try db.value(Int.self, "SELECT count(*) FROM t") } == 10)
    }

    @Test func cancellingARunningReadInterruptsIt() async throws {
        let (pool, _) = try await makePool(readers: 1)
        let task = Task {
            try await pool.read { db in
                try db.value(Int.self, "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c) SELECT count(*) FROM c")
            }
        }
        try await Task.sleep(nanoseconds: 200_000_000)
        let t0 = Date()
        task.cancel()
        // The statement never ends by itself: that it throws is the interrupt; the bound is generous
        // (the test task may wait seconds for a thread of Swift's pool while the other suites run).
        await #expect(throws: (any Error).self) { try await task.value }
        #expect(Date().timeIntervalSince(t0) < 30)
        #expect(try await pool.read { db in try db.value(Int.self, "SELECT 7") } == 7)
    }

    // The read is cancelled after its job started but before its statement's first step:
    // sqlite3_interrupt does nothing while no statement runs, so without the progress
    // handler the count below runs to the end (40 s here) and returns a value.
    @Test func cancellingAReadBeforeItsFirstStep() async throws {
        let (pool, _) = try await makePool(readers: 1)
        try await expectACancelledReadStopsBeforeItsFirstStep(pool, executor: nil)
    }

    /// Starts a read whose body waits until the task is cancelled, then runs a 50M-row count:
    /// the count must stop (not run to the end), and the next read on the connection runs.
    func expectACancelledReadStopsBeforeItsFirstStep(_ pool: DatabasePool, executor: DatabasePool.Executor?,
                                                     sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let started = DispatchSemaphore(value: 0), proceed = DispatchSemaphore(value: 0)
        let ran = Stopwatch()
        let body: @Sendable () async throws -> Int? = {
            try await pool.read { db in
                started.signal()
                // Long: the test task that cancels and then signals may wait seconds for a thread
                // of Swift's pool (a statement started before the cancellation would run on).
                _ = proceed.wait(timeout: .now() + 120)
                return try ran.time {
                    try db.value(Int.self, "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 50000000) SELECT count(*) FROM c")
                }
            }
        }
        let task = executor.map { e in Task(executorPreference: e) { try await body() } } ?? Task { try await body() }
        while started.wait(timeout: .now()) != .success { try await Task.sleep(nanoseconds: 1_000_000) }
        task.cancel()
        proceed.signal()
        await #expect(throws: DatabaseError.self, sourceLocation: sourceLocation) { _ = try await task.value }
        // How long the statement ran, timed on its own thread (the awaiting test task may wait
        // much longer for a thread of Swift's pool while the other suites run).
        let seconds = try #require(ran.seconds, sourceLocation: sourceLocation)
        #expect(seconds < 5, "the cancelled statement ran \(seconds) s", sourceLocation: sourceLocation)
        // The next job on the connection runs its statements.
        let again: @Sendable () async throws -> Int? = {
            try await pool.read { db in
                try db.value(Int.self, "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 100000) SELECT count(*) FROM c")
            }
        }
        let next = executor.map { e in Task(executorPreference: e) { try await again() } } ?? Task { try await again() }
        #expect(try await next.value == 100_000, sourceLocation: sourceLocation)
    }

    // A task on the pool's executor reads on its own thread (inline); anywhere else a read
    // runs on another thread (a reader's). Both see the committed writes.
    @Test func readsOnTheExecutorRunInline() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pool-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let pool = try DatabasePool(path: dir.appendingPathComponent("t.db").path, readers: 2, executorThreads: 2)
        let executor = try #require(pool.executor)
        #expect(executor.threadCount == 2)
        try await pool.write { db in try db.execute("CREATE TABLE t(x)") }
        let outsideBefore = pthread_self()
        let outside = try await pool.read { _ in pthread_self() }
        #expect(outside != outsideBefore)
        // A task made with the preference starts on the executor (a `withTaskExecutorPreference`
        // scope moves there at its first suspension).
        try await Task(executorPreference: executor) {
            let before = pthread_self()
            let inside = try await pool.read { _ in pthread_self() }
            #expect(inside == before && pthread_self() == before)
            var threads = Set<pthread_t>()
            for i in 1...20 {
                try await pool.write { db in try db.execute("INSERT INTO t VALUES (?)", i) }
                // Child tasks inherit the preference: eight reads, each on the thread its task runs on.
                let reads = try await withThrowingTaskGroup(of: (Int, pthread_t, pthread_t).self) { group in
                    for _ in 0..<8 {
                        group.addTask {
                            let here = pthread_self()
                            return try await pool.read { db in (try db.value(Int.self, "SELECT count(*) FROM t")!, here, pthread_self()) }
                        }
                    }
                    return try await group.reduce(into: []) { $0.append($1) }
                }
                #expect(reads.allSatisfy { $0.0 == i && $0.1 == $0.2 })
                threads.formUnion(reads.map(\.2))
            }
            #expect(threads.count <= 2 && !threads.contains(outside))
        }.value
        // Another pool's executor thread is not this pool's: the read goes to a reader.
        let other = try DatabasePool(path: dir.appendingPathComponent("u.db").path, readers: 1, executorThreads: 1)
        let otherExecutor = try #require(other.executor)
        let (otherBefore, there) = try await withTaskExecutorPreference(otherExecutor) {
            (pthread_self(), try await pool.read { _ in pthread_self() })
        }
        #expect(there != otherBefore)
    }

    // Cancelling a task stops its inline read (the progress handler checks the task), also
    // before the first step, and the executor thread's connection reads again afterwards.
    @Test func cancellingAnInlineRead() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pool-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let pool = try DatabasePool(path: dir.appendingPathComponent("t.db").path, readers: 1, executorThreads: 1)
        guard let executor = pool.executor else { Issue.record("a pool made with executor threads has an executor"); return }
        try await expectACancelledReadStopsBeforeItsFirstStep(pool, executor: executor)
    }

    @Test func cancellingAWaitForAReader() async throws {
        let (pool, _) = try await makePool(readers: 1, rows: 50_000)
        // The one reader is held by a stream whose consumer does not read.
        var held = pool.jsonChunks("SELECT * FROM t", options: JSONWriterOptions(chunkSize: 64), chunksAhead: 1).makeAsyncIterator()
        _ = try await held.next()
        let waiting = Task { try await pool.read { db in try db.value(Int.self, "SELECT 1") } }
        try await Task.sleep(nanoseconds: 200_000_000)
        waiting.cancel()
        await #expect(throws: CancellationError.self) { try await waiting.value }
        // Dropping the iterator mid-result stops the statement and gives the reader back.
        held = pool.jsonChunks("SELECT 1").makeAsyncIterator()
        let back = Task { try await pool.read { db in try db.value(Int.self, "SELECT 2") } }
        let result = try await back.value
        #expect(result == 2)
        _ = held
    }

    @Test func cancellingAStreamingTask() async throws {
        let (pool, _) = try await makePool(readers: 1, rows: 50_000)
        let task = Task {
            try await pool.writeJSON("SELECT * FROM t", options: JSONWriterOptions(chunkSize: 64)) { _ in
                try await Task.sleep(nanoseconds: 1_000_000)
            }
        }
        try await Task.sleep(nanoseconds: 100_000_000)
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(try await pool.read { db in try db.value(Int.self, "SELECT count(*) FROM t") } == 50_000)
    }

    // Many small hand-overs, from tasks on Swift's pool and on the pool's executor, while
    // readers are scarce: results, errors, reader hand-offs and streamed chunks all cross
    // threads, often resumed before the task has finished suspending. Under `make
    // test-swift-tsan` this is the race check of those hand-overs (values passed through
    // `resume(returning:)` were reported as races in the caller's frame).
    @Test func manySmallHandOversAgreeWithTheSynchronousAnswers() async throws {
        let (pool, path) = try await makePool(readers: 2, rows: 300)
        let expected = try Database(path: path).jsonBytes("SELECT id, title FROM t WHERE id > ? ORDER BY id", 250)
        let executorPool = try DatabasePool(path: path, readers: 1, executorThreads: 2)
        for usesExecutor in [false, true] {
            let target = usesExecutor ? executorPool : pool
            let body: @Sendable () async throws -> Int = {
                var agreed = 0
                for i in 1...60 {
                    let title = try await target.read { db in try db.value(String.self, "SELECT title FROM t WHERE id = ?", i) }
                    if title == "task \(i)" { agreed += 1 }
                    do {
                        _ = try await target.read { db in try db.value(Int.self, "SELECT nope FROM t") }
                    } catch let error as DatabaseError where error.message.contains("nope") {
                        agreed += 1
                    }
                    if i % 6 == 0 {
                        var streamed: [UInt8] = []
                        for try await chunk in target.jsonChunks("SELECT id, title FROM t WHERE id > ? ORDER BY id", 250,
                                                                 options: JSONWriterOptions(chunkSize: 64), chunksAhead: 1) {
                            streamed += chunk
                        }
                        if streamed == expected { agreed += 1 }
                        var written: [UInt8] = []
                        let rows = try await target.writeJSON("SELECT id, title FROM t WHERE id > ? ORDER BY id", 250,
                                                              options: JSONWriterOptions(chunkSize: 64), chunksAhead: 1) { chunk in
                            written += chunk
                            if written.count % 3 == 0 { await Task.yield() }
                        }
                        if written == expected && rows == 50 { agreed += 1 }
                    }
                }
                return agreed
            }
            let totals = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<6 {
                    if usesExecutor, #available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *),
                       let executor = executorPool.executor {
                        group.addTask(executorPreference: executor) { try await body() }
                    } else {
                        group.addTask { try await body() }
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(totals == Array(repeating: 140, count: 6), "executor: \(usesExecutor)")
        }
    }
}

/// The duration of one timed body, set on the thread that ran it.
final class Stopwatch: @unchecked Sendable {
    private let lock = NSLock()
    private var measured: Double?
    var seconds: Double? { lock.withLock { measured } }
    func time<T>(_ body: () throws -> T) rethrows -> T {
        let start = Date()
        defer { lock.withLock { measured = Date().timeIntervalSince(start) } }
        return try body()
    }
}
