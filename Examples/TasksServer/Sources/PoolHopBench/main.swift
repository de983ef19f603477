// PoolHopBench: what a DatabasePool read costs besides SQLite — the hand-off to a reader
// thread and back (from a task on Swift's cooperative pool), against the same read run
// inline by a task on the pool's executor, and the query alone on the calling thread.
//
//   swift build -c release --product PoolHopBench && .build/release/PoolHopBench [READS] [REPS]
//   valgrind --tool=callgrind .build/release/PoolHopBench profile VARIANT READS
//
// One read at a time (as `wrk -c 1` asks): READS reads per run (20,000), REPS runs per
// variant (5), interleaved; prints the medians of wall-clock and process CPU time (all
// threads, user + system) per read. `profile` runs one variant once, for callgrind: the
// instructions of two READS counts, subtracted, over their difference, are the cost per read.
// Built with `-Xswiftc -DNO_POOL_EXECUTOR`, it leaves out the executor variants (to measure a
// library from before DatabasePool.Executor).
import Foundation
import StreamQLite

let arguments = CommandLine.arguments
let profile: (variant: String, reads: Int)? = arguments.count == 4 && arguments[1] == "profile" ? (arguments[2], Int(arguments[3])!) : nil
let reads = profile?.reads ?? (arguments.count > 1 ? Int(arguments[1])! : 20_000)
let reps = profile != nil ? 1 : (arguments.count > 2 ? Int(arguments[2])! : 5)
let tasks = 100_000

func now(_ clock: clockid_t) -> Double {
    var ts = timespec()
    clock_gettime(clock, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

/// Everything runs in a detached task while the main thread waits on a semaphore: a
/// synchronous `main` (valgrind fails on the async main's `rt_sigsuspend` wait).
func bench() async throws {
    let dir = NSTemporaryDirectory() + "poolhop-\(getpid())"
    try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let path = dir + "/tasks.db"
    #if NO_POOL_EXECUTOR
    let pool = try DatabasePool(path: path, readers: 4)
    #else
    let pool = try DatabasePool(path: path, readers: 4, executorThreads: 2)
    #endif
    try await pool.write { db in
        try db.execute("CREATE TABLE tasks(id INTEGER PRIMARY KEY, title TEXT NOT NULL, done INTEGER NOT NULL, created_at TEXT NOT NULL)")
        try db.execute("""
            WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < ?)
            INSERT INTO tasks SELECT i, 'Buy milk #' || i, i % 2, strftime('%Y-%m-%d %H:%M:%f', '2024-01-01', '+' || i || ' minutes') FROM c
            """, tasks)
    }
    let selectOne = "SELECT id, title, done, created_at AS createdAt FROM tasks WHERE id = ?"
    let options = JSONWriterOptions(format: .ndjson, booleanColumns: ["done"])
    let direct = try Database(path: path, flags: [.readOnly, .noMutex])

    /// The server's point read: one task as NDJSON into a fresh buffer; returns its size.
    @Sendable func pointRead(_ db: Database, _ i: Int) throws -> Int {
        var out: [UInt8] = []
        out.reserveCapacity(512)
        return try db.writeJSON(selectOne, Int64(i % tasks + 1), to: &out, options: options) == 1 ? out.count : 0
    }

    /// A variant reads `reads` times, one after the other, and returns a checksum. The hop
    /// variants run in a task on Swift's cooperative pool (as a request handler does by default),
    /// the inline ones in a task on the pool's executor.
    typealias Variant = (name: String, run: () async throws -> Int)
    var variants: [Variant] = [
        ("query alone, calling thread", {
            var sum = 0
            for i in 0..<reads { sum &+= try pointRead(direct, i) }
            return sum
        }),
        ("pool.read, empty body, hop", {
            try await Task.detached {
                var sum = 0
                for i in 0..<reads { sum &+= try await pool.read { _ in i & 1 } }
                return sum
            }.value
        }),
        ("pool.read, point query, hop", {
            try await Task.detached {
                var sum = 0
                for i in 0..<reads { sum &+= try await pool.read { db in try pointRead(db, i) } }
                return sum
            }.value
        }),
    ]
    #if !NO_POOL_EXECUTOR
    let executor = pool.executor!
    variants += [
        ("pool.read, empty body, inline", {
            try await Task(executorPreference: executor) {
                var sum = 0
                for i in 0..<reads { sum &+= try await pool.read { _ in i & 1 } }
                return sum
            }.value
        }),
        ("pool.read, point query, inline", {
            try await Task(executorPreference: executor) {
                var sum = 0
                for i in 0..<reads { sum &+= try await pool.read { db in try pointRead(db, i) } }
                return sum
            }.value
        }),
    ]
    #endif

    if let profile {
        guard let variant = variants.first(where: { $0.name == profile.variant }) else {
            fatalError("no variant '\(profile.variant)'; variants: \(variants.map(\.name))")
        }
        print("\(variant.name): checksum \(try await variant.run())")
        return
    }

    var wall = Array(repeating: [Double](), count: variants.count)
    var cpu = Array(repeating: [Double](), count: variants.count)
    var checks = Array(repeating: [Int](), count: variants.count)
    for _ in 0..<reps {
        for (i, variant) in variants.enumerated() {
            let w0 = now(CLOCK_MONOTONIC), c0 = now(CLOCK_PROCESS_CPUTIME_ID)
            checks[i].append(try await variant.run())
            cpu[i].append(now(CLOCK_PROCESS_CPUTIME_ID) - c0)
            wall[i].append(now(CLOCK_MONOTONIC) - w0)
        }
    }
    let median = { (xs: [Double]) in xs.sorted()[xs.count / 2] }
    print("\(reads) reads per run, \(reps) runs per variant (interleaved), medians per read; load average \(try String(contentsOfFile: "/proc/loadavg", encoding: .utf8).split(separator: " ").prefix(3).joined(separator: " "))")
    print("| variant | wall | CPU (all threads) |")
    print("| --- | --: | --: |")
    for (i, variant) in variants.enumerated() {
        print(String(format: "| %@ | %.2f µs | %.2f µs |", variant.name, median(wall[i]) / Double(reads) * 1e6, median(cpu[i]) / Double(reads) * 1e6))
    }
}

let finished = DispatchSemaphore(value: 0)
Task.detached {
    do { try await bench() } catch { print("PoolHopBench: \(error)"); exit(1) }
    finished.signal()
}
finished.wait()
