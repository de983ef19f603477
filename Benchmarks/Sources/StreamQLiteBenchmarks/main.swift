// StreamQLiteBenchmarks: row fetching and point queries, StreamQLite vs the
// raw C API vs GRDB 7.10.0, on the same on-disk data in one process.
//
//   cd Benchmarks && swift run -c release StreamQLiteBenchmarks [REPS]
//   valgrind --tool=callgrind .build/release/StreamQLiteBenchmarks profile tasks "StreamQLite Decodable" 100000
//
// Every variant consumes each row into the same checksum (no arrays), so the
// figures compare the fetching and decoding paths only. REPS runs per variant
// (default 5), interleaved; medians of process CPU time (and of wall-clock time)
// are printed with ratios.
import CStreamQLite
import Foundation
import GRDB
import StreamQLite
import StreamQLiteMacros

/// `profile SECTION VARIANT ROWS` runs one variant once over the first ROWS rows (or ROWS
/// point queries), for `valgrind --tool=callgrind`: the instructions of ROWS minus those of
/// 0 rows, divided by ROWS, are the cost per row. SECTION is tasks, wide or point.
let profile: (section: String, variant: String, rows: Int)? = CommandLine.arguments.count == 5 && CommandLine.arguments[1] == "profile"
    ? (CommandLine.arguments[2], CommandLine.arguments[3], Int(CommandLine.arguments[4])!) : nil
let reps = profile != nil ? 1 : CommandLine.arguments.count > 1 ? Int(CommandLine.arguments[1])! : 5
let path = NSTemporaryDirectory() + "streamqlite-bench-\(getpid()).db"
defer { try? FileManager.default.removeItem(atPath: path) }

func now() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

/// CPU time of the whole process (all threads: GRDB reads on its own queue), user + system.
/// On a shared machine it does not count the time the process waits for a core.
func cpuNow() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

/// Runs each variant `reps` times (interleaved), checks they agree, prints medians and ratios to the first.
///
/// Ratios use the CPU-time medians; wall-clock medians are printed alongside (they agree
/// on a quiet machine, the wall clock also counts waiting for a core on a busy one).
func compare(_ title: String, section: String, _ variants: [(String, () throws -> Int)], targets: [String: String] = [:]) throws {
    if let profile {
        guard profile.section == section else { return }
        guard let v = variants.first(where: { $0.0 == profile.variant }) else { fatalError("no variant \(profile.variant) in \(section)") }
        print("\(section) / \(v.0): checksum \(try v.1())")
        return
    }
    var times = Array(repeating: [Double](), count: variants.count)
    var cpuTimes = Array(repeating: [Double](), count: variants.count)
    var checks = Array(repeating: 0, count: variants.count)
    for _ in 0..<reps {
        for (i, v) in variants.enumerated() {
            let t0 = now(), c0 = cpuNow()
            checks[i] = try v.1()
            cpuTimes[i].append(cpuNow() - c0)
            times[i].append(now() - t0)
        }
    }
    let median = { (xs: [Double]) in xs.sorted()[xs.count / 2] }
    let medians = times.map(median), cpuMedians = cpuTimes.map(median)
    print("\n### \(title)\n")
    print("| variant | median CPU | × first | median wall | target |")
    print("|---|---:|---:|---:|---|")
    for (i, v) in variants.enumerated() {
        precondition(checks[i] == checks[0], "\(v.0) disagrees: \(checks[i]) vs \(checks[0])")
        print(String(format: "| %@ | %.1f ms | %.2f× | %.1f ms | %@ |", v.0, cpuMedians[i] * 1000, cpuMedians[i] / cpuMedians[0],
                     medians[i] * 1000, targets[v.0] ?? ""))
    }
    fflush(nil)
}

// MARK: Data

struct Task: Decodable, RowDecodable, FetchableRecord {
    var id: Int
    var title: String
    var done: Bool
    init(row: StreamQLite.Row) throws {
        id = try row[0]
        title = try row[1]
        done = try row[2]
    }
}

struct Wide: Decodable, RowDecodable, FetchableRecord {
    var c0, c1, c2, c3, c4, c5, c6, c7, c8, c9: Int
    init(row: StreamQLite.Row) throws {
        c0 = try row[0]; c1 = try row[1]; c2 = try row[2]; c3 = try row[3]; c4 = try row[4]
        c5 = try row[5]; c6 = try row[6]; c7 = try row[7]; c8 = try row[8]; c9 = try row[9]
    }
    var sum: Int { c0 &+ c1 &+ c2 &+ c3 &+ c4 &+ c5 &+ c6 &+ c7 &+ c8 &+ c9 }
}

// The same rows through `@RowCodable`'s generated `init(row:)`: the macro itself, from
// StreamQLiteMacros (trait "Macros"), or its plugin built apart (see Package.swift), declared
// here as StreamQLiteMacros declares it.
#if ROWCODABLE_PLUGIN
@attached(extension, conformances: RowDecodable, RowEncodable, JSONDecodable, JSONEncodable,
          names: named(init(row:)), named(databaseColumns), named(bind(to:)), named(init(json:)), named(encode(json:)))
macro RowCodable(columns: RowColumnNaming = .propertyNames, encodable: Bool = true, json: Bool = false) =
    #externalMacro(module: "StreamQLiteMacrosPlugin", type: "RowCodableMacro")
#endif
@RowCodable(encodable: false)
struct MacroTask {
    var id: Int
    var title: String
    var done: Bool
}

@RowCodable(encodable: false)
struct MacroWide {
    var c0, c1, c2, c3, c4, c5, c6, c7, c8, c9: Int
    var sum: Int { c0 &+ c1 &+ c2 &+ c3 &+ c4 &+ c5 &+ c6 &+ c7 &+ c8 &+ c9 }
}

/// In profile mode only the profiled section's table is filled, with the same 100,000 rows (or
/// ROWS, if more) whatever ROWS is: the 0-row and the N-row runs differ by the fetching alone.
let profiledRows = profile.map { max(100_000, $0.rows) }
let taskCount = profile.map { $0.section == "wide" ? 0 : profiledRows! } ?? 1_000_000
let wideCount = profile.map { $0.section == "wide" ? profiledRows! : 0 } ?? 1_000_000
let pointCount = 100_000
do {
    let db = try StreamQLite.Database(path: path)
    try db.execute("""
        PRAGMA journal_mode=OFF;
        CREATE TABLE tasks(id INTEGER PRIMARY KEY, title TEXT, done INTEGER);
        CREATE TABLE wide(c0 INTEGER, c1 INTEGER, c2 INTEGER, c3 INTEGER, c4 INTEGER, c5 INTEGER, c6 INTEGER, c7 INTEGER, c8 INTEGER, c9 INTEGER);
        """)
    try db.execute("""
        WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
        INSERT INTO tasks SELECT i, 'task number ' || i, i % 3 = 0 FROM n
        """, taskCount)
    try db.execute("""
        WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
        INSERT INTO wide SELECT i, i*2, i*3, i*4, i*5, i*6, i*7, i*8, i*9, i*10 FROM n
        """, wideCount)
}

let sq = try StreamQLite.Database(path: path)
var grdbConfig = GRDB.Configuration()
grdbConfig.readonly = true
let grdb = try DatabaseQueue(path: path, configuration: grdbConfig)
let rawDB = sq.sqliteHandle!

func taskChecksum(_ id: Int, _ title: String, _ done: Bool) -> Int { id &+ title.utf8.count &+ (done ? 1 : 0) }

// MARK: Fetching tasks

let limit = profile.map { " LIMIT \($0.rows)" } ?? ""
let tasksSQL = "SELECT id, title, done FROM tasks" + limit
let targets = ["StreamQLite hand-written": "≤ 1.1× raw", "StreamQLite Decodable": "≤ 1.2× raw; ≥ 2.5× faster than GRDB Decodable",
               "StreamQLite @RowCodable macro": "≤ 1.05× raw",
               "StreamQLite Row by name": "≤ 1.5× raw"]
try compare("fetch \(taskCount) rows (id INTEGER, title TEXT, done INTEGER)", section: "tasks", [
    ("raw C API loop", {
        var stmt: OpaquePointer?
        sqlite3_prepare_v2(rawDB, tasksSQL, -1, &stmt, nil)
        defer { sqlite3_finalize(stmt) }
        var sum = 0
        while sqlite3_step(stmt) == SQLITE_ROW {
            let id = Int(sqlite3_column_int64(stmt, 0))
            let title = String(decoding: UnsafeBufferPointer(start: sqlite3_column_text(stmt, 1), count: Int(sqlite3_column_bytes(stmt, 1))), as: UTF8.self)
            let done = sqlite3_column_int64(stmt, 2) != 0
            sum &+= taskChecksum(id, title, done)
        }
        return sum
    }),
    ("StreamQLite hand-written", {
        let cursor = try sq.rows(Task.self, tasksSQL) as StreamQLite.RowDecodableCursor<Task>
        var sum = 0
        while let t = try cursor.next() { sum &+= taskChecksum(t.id, t.title, t.done) }
        return sum
    }),
    ("StreamQLite @RowCodable macro", {
        let cursor = try sq.rows(MacroTask.self, tasksSQL)
        var sum = 0
        while let t = try cursor.next() { sum &+= taskChecksum(t.id, t.title, t.done) }
        return sum
    }),
    ("StreamQLite Decodable", {
        let cursor = try sq.cachedStatement(tasksSQL).rows(Task.self)
        var sum = 0
        while let t = try cursor.next() { sum &+= taskChecksum(t.id, t.title, t.done) }
        return sum
    }),
    ("StreamQLite Row by name", {
        let cursor = try sq.rows(tasksSQL)
        var sum = 0
        while let row = try cursor.next() {
            sum &+= taskChecksum(try row["id"], try row["title"], try row["done"])
        }
        return sum
    }),
    ("GRDB Row", {
        try grdb.read { db in
            let cursor = try GRDB.Row.fetchCursor(db, sql: tasksSQL)
            var sum = 0
            while let row = try cursor.next() {
                let id: Int = row["id"], title: String = row["title"], done: Bool = row["done"]
                sum &+= taskChecksum(id, title, done)
            }
            return sum
        }
    }),
    ("GRDB Decodable FetchableRecord", {
        try grdb.read { db in
            let cursor = try Task.fetchCursor(db, sql: tasksSQL)
            var sum = 0
            while let t = try cursor.next() { sum &+= taskChecksum(t.id, t.title, t.done) }
            return sum
        }
    }),
], targets: targets)

// MARK: Fetching 10 integer columns

let wideSQL = "SELECT c0, c1, c2, c3, c4, c5, c6, c7, c8, c9 FROM wide" + limit
try compare("fetch \(wideCount) rows of 10 INTEGER columns", section: "wide", [
    ("raw C API loop", {
        var stmt: OpaquePointer?
        sqlite3_prepare_v2(rawDB, wideSQL, -1, &stmt, nil)
        defer { sqlite3_finalize(stmt) }
        var sum = 0
        while sqlite3_step(stmt) == SQLITE_ROW {
            for i in Int32(0)..<10 { sum &+= Int(sqlite3_column_int64(stmt, i)) }
        }
        return sum
    }),
    ("StreamQLite hand-written", {
        let cursor = try sq.rows(Wide.self, wideSQL) as StreamQLite.RowDecodableCursor<Wide>
        var sum = 0
        while let w = try cursor.next() { sum &+= w.sum }
        return sum
    }),
    ("StreamQLite @RowCodable macro", {
        let cursor = try sq.rows(MacroWide.self, wideSQL)
        var sum = 0
        while let w = try cursor.next() { sum &+= w.sum }
        return sum
    }),
    ("StreamQLite Decodable", {
        let cursor = try sq.cachedStatement(wideSQL).rows(Wide.self)
        var sum = 0
        while let w = try cursor.next() { sum &+= w.sum }
        return sum
    }),
    ("StreamQLite Row by name", {
        let cursor = try sq.rows(wideSQL)
        var sum = 0
        while let r = try cursor.next() {
            sum &+= try (r["c0"] as Int) &+ (r["c1"] as Int) &+ (r["c2"] as Int) &+ (r["c3"] as Int) &+ (r["c4"] as Int)
            sum &+= try (r["c5"] as Int) &+ (r["c6"] as Int) &+ (r["c7"] as Int) &+ (r["c8"] as Int) &+ (r["c9"] as Int)
        }
        return sum
    }),
    ("GRDB Row", {
        try grdb.read { db in
            let cursor = try GRDB.Row.fetchCursor(db, sql: wideSQL)
            var sum = 0
            while let r = try cursor.next() {
                sum &+= (r["c0"] as Int) &+ (r["c1"] as Int) &+ (r["c2"] as Int) &+ (r["c3"] as Int) &+ (r["c4"] as Int)
                sum &+= (r["c5"] as Int) &+ (r["c6"] as Int) &+ (r["c7"] as Int) &+ (r["c8"] as Int) &+ (r["c9"] as Int)
            }
            return sum
        }
    }),
    ("GRDB Decodable FetchableRecord", {
        try grdb.read { db in
            let cursor = try Wide.fetchCursor(db, sql: wideSQL)
            var sum = 0
            while let w = try cursor.next() { sum &+= w.sum }
            return sum
        }
    }),
], targets: targets)

// MARK: Point queries

let pointSQL = "SELECT title FROM tasks WHERE id = ?"
var rng = SystemRandomNumberGenerator()
let ids = (0..<(profile.map { $0.section == "point" ? $0.rows : 0 } ?? pointCount)).map { _ in Int.random(in: 1...taskCount, using: &rng) }
// Each variant runs in one read transaction, as GRDB's read { } does.
try compare("\(pointCount) point queries by primary key", section: "point", [
    ("prepare every time (StreamQLite makeStatement)", { try sq.transaction {
        var sum = 0
        for id in ids {
            let s = try sq.makeStatement(pointSQL)
            try s.bind(id)
            sum &+= try s.values(String.self).next()!.utf8.count
        }
        return sum
    } }),
    ("prepare every time (raw C)", { try sq.transaction {
        var sum = 0
        for id in ids {
            var stmt: OpaquePointer?
            sqlite3_prepare_v2(rawDB, pointSQL, -1, &stmt, nil)
            sqlite3_bind_int64(stmt, 1, Int64(id))
            if sqlite3_step(stmt) == SQLITE_ROW { sum &+= Int(sqlite3_column_bytes(stmt, 0)) }
            sqlite3_finalize(stmt)
        }
        return sum
    } }),
    ("StreamQLite cache (db.value)", { try sq.transaction {
        var sum = 0
        for id in ids { sum &+= try sq.value(String.self, pointSQL, id)!.utf8.count }
        return sum
    } }),
    ("StreamQLite held statement", { try sq.transaction {
        let s = try sq.makeStatement(pointSQL)
        var sum = 0
        for id in ids {
            try s.bind(id)
            sum &+= try s.values(String.self).next()!.utf8.count
        }
        return sum
    } }),
    ("GRDB cachedStatement", {
        try grdb.read { db in
            var sum = 0
            for id in ids {
                let s = try db.cachedStatement(sql: pointSQL)
                sum &+= try String.fetchOne(s, arguments: [id])!.utf8.count
            }
            return sum
        }
    }),
], targets: ["StreamQLite cache (db.value)": "≥ 3× faster than prepare every time"])
if profile != nil { exit(0) }
let stats = sq.cacheStatistics
print("\nStreamQLite statement cache: \(stats.hits) hits, \(stats.misses) misses, \(stats.evictions) evictions")
