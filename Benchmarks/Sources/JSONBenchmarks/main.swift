// JSONBenchmarks: JSON out, JSON in and bulk inserts, StreamQLite vs
// SQLite's own JSON functions, the raw C API, Foundation and GRDB, on the same
// data in one run. Prints medians and ratios.
//
//   swift run -c release --package-path Benchmarks JSONBenchmarks [N] [REPS]
//
// N tasks (default 1,000,000) of {"id":…,"title":"task …","done":…} — the shape of
// Extension/bench's tasks file (1M tasks ≈ 46 MB of JSON). REPS runs per variant
// (default 3), interleaved; medians are printed. Databases are in memory.
import CStreamQLite
import Foundation
import StreamQLite
#if canImport(GRDB)
import GRDB
#endif

let args = CommandLine.arguments

// `JSONBenchmarks import-memory N`: peak RSS of importing a generated file of N
// tasks into an on-disk database (run it for two sizes: the figure must not grow).
if args.count > 2 && args[1] == "import-memory" {
    let count = Int(args[2])!
    let dir = NSTemporaryDirectory()
    let path = dir + "streamqlite-bench-mem-\(count).json", dbPath = dir + "streamqlite-bench-mem-\(count).db"
    let file = try FileDescriptorSink(path: path)  // written streamed: the generator holds no document
    let sink = file
    try [UInt8(ascii: "[")].withUnsafeBytes { try sink.write($0) }
    for i in 0..<count {
        let line = (i > 0 ? ",\n" : "") + "{\"id\":\(i),\"title\":\"task \(i)\",\"done\":\(i % 3 == 0)}"
        try line.utf8.withContiguousStorageIfAvailable { try sink.write(UnsafeRawBufferPointer($0)) }
    }
    try [UInt8(ascii: "]")].withUnsafeBytes { try sink.write($0) }
    try file.close()
    try? FileManager.default.removeItem(atPath: dbPath)
    let db = try Database(path: dbPath)
    _ = try db.jsonBytes("PRAGMA journal_mode=OFF")
    _ = try db.jsonBytes("PRAGMA synchronous=OFF")
    _ = try db.jsonBytes("PRAGMA cache_size=-2000")
    _ = try db.jsonBytes("CREATE TABLE tasks(id INTEGER PRIMARY KEY, title TEXT, done INTEGER)")
    var before = rusage(), after = rusage()
    getrusage(RUSAGE_SELF.rawValue, &before)
    let t0 = Date()
    let k = try db.importJSON(contentsOfFile: path, into: "tasks")
    let seconds = Date().timeIntervalSince(t0)
    getrusage(RUSAGE_SELF.rawValue, &after)
    let size = (try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
    print(String(format: "import-memory: %d rows, file %.1f MB, %.2f s, peak RSS %.1f MB (before the import %.1f MB)",
                 k, Double(size) / 1e6, seconds, Double(after.ru_maxrss) / 1024, Double(before.ru_maxrss) / 1024))
    try? FileManager.default.removeItem(atPath: path)
    try? FileManager.default.removeItem(atPath: dbPath)
    exit(0)
}

let n = args.count > 1 ? Int(args[1])! : 1_000_000
let reps = args.count > 2 ? Int(args[2])! : 3

struct BenchTask: Codable {
    var id: Int64
    var title: String
    var done: Bool
}

extension BenchTask: RowEncodable {
    static let databaseColumns = ["id", "title", "done"]
    func bind(to row: inout RowBinder) throws {
        row.bind(id)
        row.bind(title)
        row.bind(done)
    }
}

#if canImport(GRDB)
/// Counts the bytes GRDB's dump writes (like StreamQLite's counting-sink variant, keeps nothing).
final class CountingTextStream: TextOutputStream {
    var count = 0
    func write(_ string: String) { count += string.utf8.count }
}

struct GRDBTask: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "tasks"
    var id: Int64
    var title: String
    var done: Bool
}
#endif

nonisolated(unsafe) let transient = unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)
let schema = "CREATE TABLE tasks(id INTEGER PRIMARY KEY, title TEXT, done INTEGER)"

func now() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

func median(_ xs: [Double]) -> Double {
    let s = xs.sorted()
    return s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
}

/// `JSONBENCH_ONLY=substring[|substring…]` runs only the variants whose name contains one of them
/// (for profiling one variant under callgrind/perf); ratios are printed when the baseline ran too.
let onlyFilter = ProcessInfo.processInfo.environment["JSONBENCH_ONLY"]?.split(separator: "|").map(String.init)

/// Runs each variant `reps` times, interleaved; prints medians, rate and the ratio to `baseline`.
func compare(_ title: String, unit: String, count: Int, baseline: String, _ all: [(String, () throws -> Void)]) throws {
    let variants = onlyFilter.map { fs in all.filter { v in fs.contains { v.0.contains($0) } } } ?? all
    if variants.isEmpty { return }
    var times: [String: [Double]] = [:]
    for _ in 0..<reps {
        for (name, body) in variants {
            let t0 = now()
            try body()
            times[name, default: []].append(now() - t0)
        }
    }
    print("\n== \(title)")
    let base = times[baseline].map(median) ?? .nan
    for (name, _) in variants {
        let m = median(times[name]!)
        let rate = Double(count) / m
        print(String(format: "  %-46@ %9.1f ms  %8.2f M%@/s  %6.2fx vs %@", name as NSString, m * 1000, rate / 1e6,
                     unit as NSString, base / m, baseline as NSString))
    }
}

// Raw C helpers --------------------------------------------------------------

func rawOpen() -> OpaquePointer {
    var db: OpaquePointer?
    sqlite3_open(":memory:", &db)
    sqlite3_exec(db, schema, nil, nil, nil)
    return db!
}

func rawExec(_ db: OpaquePointer, _ sql: String) {
    var err: UnsafeMutablePointer<CChar>?
    if sqlite3_exec(db, sql, nil, nil, &err) != SQLITE_OK { fatalError(String(cString: err!)) }
}

func rawInsertSingle(_ db: OpaquePointer, _ tasks: [BenchTask]) {
    rawExec(db, "BEGIN")
    var st: OpaquePointer?
    sqlite3_prepare_v2(db, "INSERT INTO tasks(id,title,done) VALUES(?,?,?)", -1, &st, nil)
    for t in tasks {
        sqlite3_bind_int64(st, 1, t.id)
        _ = t.title.utf8.withContiguousStorageIfAvailable { p in
            sqlite3_bind_text(st, 2, UnsafeRawPointer(p.baseAddress!).assumingMemoryBound(to: CChar.self), Int32(p.count), transient)
        }
        sqlite3_bind_int64(st, 3, t.done ? 1 : 0)
        if sqlite3_step(st) != SQLITE_DONE { fatalError(String(cString: sqlite3_errmsg(db))) }
        sqlite3_reset(st)
    }
    sqlite3_finalize(st)
    rawExec(db, "COMMIT")
}

func rawInsertBatched(_ db: OpaquePointer, _ tasks: [BenchTask], batch: Int = 50) {
    rawExec(db, "BEGIN")
    func prepare(_ rows: Int) -> OpaquePointer {
        var st: OpaquePointer?
        let sql = "INSERT INTO tasks(id,title,done) VALUES " + Array(repeating: "(?,?,?)", count: rows).joined(separator: ",")
        sqlite3_prepare_v2(db, sql, -1, &st, nil)
        return st!
    }
    let full = prepare(batch)
    var i = 0
    while i < tasks.count {
        let k = min(batch, tasks.count - i)
        let st = k == batch ? full : prepare(k)
        for r in 0..<k {
            let t = tasks[i + r]
            let p = Int32(r * 3)
            sqlite3_bind_int64(st, p + 1, t.id)
            _ = t.title.utf8.withContiguousStorageIfAvailable { b in
                sqlite3_bind_text(st, p + 2, UnsafeRawPointer(b.baseAddress!).assumingMemoryBound(to: CChar.self), Int32(b.count), transient)
            }
            sqlite3_bind_int64(st, p + 3, t.done ? 1 : 0)
        }
        if sqlite3_step(st) != SQLITE_DONE { fatalError(String(cString: sqlite3_errmsg(db))) }
        sqlite3_reset(st)
        if st != full { sqlite3_finalize(st) }
        i += k
    }
    sqlite3_finalize(full)
    rawExec(db, "COMMIT")
}

func rawFetchTasks(_ db: OpaquePointer) -> [BenchTask] {
    var st: OpaquePointer?
    sqlite3_prepare_v2(db, "SELECT id, title, done FROM tasks", -1, &st, nil)
    var out: [BenchTask] = []
    while sqlite3_step(st) == SQLITE_ROW {
        out.append(BenchTask(id: sqlite3_column_int64(st, 0), title: String(cString: sqlite3_column_text(st, 1)),
                             done: sqlite3_column_int64(st, 2) != 0))
    }
    sqlite3_finalize(st)
    return out
}

func rawTextResult(_ db: OpaquePointer, _ sql: String, join: Bool) -> [UInt8] {
    var st: OpaquePointer?
    sqlite3_prepare_v2(db, sql, -1, &st, nil)
    var out: [UInt8] = []
    if join { out.append(UInt8(ascii: "[")) }
    var first = true
    while sqlite3_step(st) == SQLITE_ROW {
        if join && !first { out.append(UInt8(ascii: ",")) }
        first = false
        let p = sqlite3_column_text(st, 0)
        out.append(contentsOf: UnsafeBufferPointer(start: p, count: Int(sqlite3_column_bytes(st, 0))))
    }
    if join { out.append(UInt8(ascii: "]")) }
    sqlite3_finalize(st)
    return out
}

/// The parse-only floor's callback. A global function, not a closure in top-level code: such a
/// closure is main-actor isolated and its C thunk checks the executor on every event.
nonisolated func ignoreJSONEvent(_ user: UnsafeMutableRawPointer?, _ token: UnsafePointer<sq_json_token>?) -> Int32 {
    SQ_JSON_CONTINUE
}

/// Steps `SELECT id, title, done FROM tasks` and reads every column (text pointer and length), writing nothing.
func rawStepOnly(_ db: OpaquePointer) {
    var st: OpaquePointer?
    sqlite3_prepare_v2(db, "SELECT id, title, done FROM tasks", -1, &st, nil)
    var sum = 0
    while sqlite3_step(st) == SQLITE_ROW {
        for c in Int32(0)..<3 {
            if sqlite3_column_type(st, c) == SQLITE_TEXT {
                sum &+= Int(bitPattern: sqlite3_column_text(st, c)) &+ Int(sqlite3_column_bytes(st, c))
            } else {
                sum &+= Int(sqlite3_column_int64(st, c))
            }
        }
    }
    sqlite3_finalize(st)
    if sum == 42 { print("") }
}

func count(_ db: OpaquePointer) -> Int64 {
    var st: OpaquePointer?
    sqlite3_prepare_v2(db, "SELECT count(*) FROM tasks", -1, &st, nil)
    sqlite3_step(st)
    defer { sqlite3_finalize(st) }
    return sqlite3_column_int64(st, 0)
}

// Data ------------------------------------------------------------------------

let tasks = (0..<n).map { BenchTask(id: Int64($0), title: "task \($0)", done: $0 % 3 == 0) }
print("JSONBenchmarks: \(n) tasks, \(reps) runs per variant (interleaved), medians; in-memory databases")

// 1. Inserts ------------------------------------------------------------------

do {
    var variants: [(String, () throws -> Void)] = [
        ("raw C, one row per INSERT", { let db = rawOpen(); rawInsertSingle(db, tasks); precondition(count(db) == n); sqlite3_close(db) }),
        ("raw C, 50-row INSERT batches", { let db = rawOpen(); rawInsertBatched(db, tasks); precondition(count(db) == n); sqlite3_close(db) }),
        ("StreamQLite insert(contentsOf:) Encodable", {
            let db = try Database(path: ":memory:")
            _ = try db.jsonBytes(schema)
            let plain = tasks.lazy.map { PlainTask(id: $0.id, title: $0.title, done: $0.done) }
            try db.insert(contentsOf: plain, into: "tasks")
        }),
        ("StreamQLite insert(contentsOf:) RowEncodable", {
            let db = try Database(path: ":memory:")
            _ = try db.jsonBytes(schema)
            try db.insert(contentsOf: tasks, into: "tasks")
        }),
    ]
    #if canImport(GRDB)
    let grdbTasks = tasks.map { GRDBTask(id: $0.id, title: $0.title, done: $0.done) }
    variants.append(("GRDB Encodable records, insert(db)", {
        let q = try DatabaseQueue()
        try q.write { db in
            try db.execute(sql: schema)
            for t in grdbTasks { try t.insert(db) }
        }
    }))
    #endif
    try compare("Inserts, \(n) tasks (one transaction)", unit: "rows", count: n, baseline: "raw C, one row per INSERT", variants)
}

/// Encodable only (not RowEncodable), so insert(contentsOf:) takes the Encoder path.
struct PlainTask: Encodable {
    var id: Int64
    var title: String
    var done: Bool
}

// 2. JSON out -----------------------------------------------------------------

do {
    let raw = rawOpen()
    rawInsertBatched(raw, tasks)
    let sdb = try Database(path: ":memory:")
    _ = try sdb.jsonBytes(schema)
    try sdb.insert(contentsOf: tasks, into: "tasks")
    var sizes: [String: Int] = [:]
    var variants: [(String, () throws -> Void)] = [
        ("StreamQLite writeJSON → [UInt8]", {
            var out: [UInt8] = []
            try sdb.writeJSON("SELECT id, title, done FROM tasks", to: &out)
            sizes["streamqlite"] = out.count
        }),
        ("StreamQLite writeJSON → counting ByteSink (streamed)", {
            var sink = CountingSink()
            try sdb.writeJSON("SELECT id, title, done FROM tasks", to: &sink)
        }),
        ("SELECT json_group_array(json_object(…))", {
            let out = rawTextResult(raw, "SELECT json_group_array(json_object('id',id,'title',title,'done',done)) FROM tasks", join: false)
            sizes["group"] = out.count
        }),
        // What any writer pays on the SQLite side: step and read each column, no output. On
        // the baseline's connection (SQLite's default, serialized) and on StreamQLite's (NOMUTEX).
        ("floor: step + column reads, serialized conn", { rawStepOnly(raw) }),
        ("floor: step + column reads, NOMUTEX conn", { rawStepOnly(sdb.sqliteHandle!) }),
        ("SELECT json_object(…) per row, joined", {
            _ = rawTextResult(raw, "SELECT json_object('id',id,'title',title,'done',done) FROM tasks", join: true)
        }),
        ("Foundation JSONEncoder: fetch [Task] + encode", {
            let rows = rawFetchTasks(raw)
            _ = try JSONEncoder().encode(rows)
        }),
    ]
    #if canImport(GRDB)
    let gq = try DatabaseQueue()
    try gq.write { db in
        try db.execute(sql: schema)
        try db.execute(sql: "WITH RECURSIVE s(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM s WHERE i < \(n - 1)) INSERT INTO tasks SELECT i, 'task ' || i, i % 3 = 0 FROM s")
    }
    variants.append(("GRDB dumpSQL(format: .json()) → stream", {
        let out = CountingTextStream()
        try gq.read { db in try db.dumpSQL("SELECT id, title, done FROM tasks", format: .json(), to: out) }
        sizes["grdb"] = out.count
    }))
    variants.append(("GRDB fetchAll records + JSONEncoder", {
        let rows = try gq.read { db in try GRDBTask.fetchAll(db) }
        _ = try JSONEncoder().encode(rows)
    }))
    #endif
    try compare("JSON out, \(n) tasks", unit: "rows", count: n, baseline: "SELECT json_group_array(json_object(…))", variants)
    print("  output bytes: StreamQLite \(sizes["streamqlite"] ?? 0), json_group_array \(sizes["group"] ?? 0), GRDB dump \(sizes["grdb"] ?? 0)")
    sqlite3_close(raw)
}

// 3. JSON in ------------------------------------------------------------------

do {
    let path = NSTemporaryDirectory() + "streamqlite-bench-tasks.json"
    var json: [UInt8] = []
    json.reserveCapacity(n * 48)
    json.append(UInt8(ascii: "["))
    for (i, t) in tasks.enumerated() {
        if i > 0 { json.append(contentsOf: ",\n".utf8) }
        json.append(contentsOf: "{\"id\":\(t.id),\"title\":\"\(t.title)\",\"done\":\(t.done)}".utf8)
    }
    json.append(UInt8(ascii: "]"))
    guard FileManager.default.createFile(atPath: path, contents: Data(json)) else { fatalError("cannot write \(path)") }
    defer { try? FileManager.default.removeItem(atPath: path) }
    let mb = Double(json.count) / 1e6
    json = []
    var variants: [(String, () throws -> Void)] = [
        ("StreamQLite importJSON(contentsOfFile:)", {
            let db = try Database(path: ":memory:")
            _ = try db.jsonBytes(schema)
            let k = try db.importJSON(contentsOfFile: path, into: "tasks")
            precondition(k == n)
        }),
        ("INSERT … SELECT FROM json_each(file contents)", {
            let db = rawOpen()
            let bytes = try Data(contentsOf: URL(fileURLWithPath: path))  // readfile()
            var st: OpaquePointer?
            sqlite3_prepare_v2(db, "INSERT INTO tasks SELECT json_extract(value,'$.id'), json_extract(value,'$.title'), json_extract(value,'$.done') FROM json_each(?)", -1, &st, nil)
            bytes.withUnsafeBytes { _ = sqlite3_bind_text64(st, 1, $0.baseAddress!.assumingMemoryBound(to: CChar.self), UInt64($0.count), transient, UInt8(SQLITE_UTF8)) }
            rawExec(db, "BEGIN")
            if sqlite3_step(st) != SQLITE_DONE { fatalError(String(cString: sqlite3_errmsg(db))) }
            sqlite3_finalize(st)
            rawExec(db, "COMMIT")
            precondition(count(db) == n)
            sqlite3_close(db)
        }),
        // The two halves of any importer, measured apart: parsing the file (sq_json, events
        // ignored) and inserting the already decoded rows (raw C, 50-row batches).
        ("floor: sq_json parse of the file only", {
            let fd = open(path, O_RDONLY)
            let parser = sq_json_new(ignoreJSONEvent, nil)
            let buf = UnsafeMutableRawPointer.allocate(byteCount: 256 * 1024, alignment: 16)
            while true {
                let k = read(fd, buf, 256 * 1024)
                if k <= 0 { break }
                precondition(sq_json_feed(parser, buf, k) != SQ_JSON_ERROR)
            }
            precondition(sq_json_finish(parser) != SQ_JSON_ERROR)
            sq_json_free(parser)
            buf.deallocate()
            close(fd)
        }),
        ("floor: raw C 50-row batches of the rows only", {
            let db = rawOpen(); rawInsertBatched(db, tasks); precondition(count(db) == n); sqlite3_close(db)
        }),
        ("Foundation JSONDecoder + raw C insert loop", {
            let data = try Data(contentsOf: URL(fileURLWithPath: path))
            let decoded = try JSONDecoder().decode([BenchTask].self, from: data)
            let db = rawOpen()
            rawInsertSingle(db, decoded)
            sqlite3_close(db)
        }),
    ]
    #if canImport(GRDB)
    variants.append(("GRDB: JSONDecoder + records insert(db)", {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        let decoded = try JSONDecoder().decode([GRDBTask].self, from: data)
        let q = try DatabaseQueue()
        try q.write { db in
            try db.execute(sql: schema)
            for t in decoded { try t.insert(db) }
        }
    }))
    #endif
    try compare(String(format: "JSON in, %.1f MB file, %d tasks", mb, n), unit: "rows", count: n,
                baseline: "INSERT … SELECT FROM json_each(file contents)", variants)
}

/// A sink that only counts the bytes it is given: the streamed output's cost without a copy.
struct CountingSink: ByteSink {
    var total = 0
    mutating func write(_ bytes: UnsafeRawBufferPointer) throws { total += bytes.count }
}
