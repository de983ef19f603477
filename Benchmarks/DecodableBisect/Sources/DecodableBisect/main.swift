// The fixed benchmark of Benchmarks/bisect-decodable.sh: 1,000,000 rows of
// (id INTEGER, title TEXT, done INTEGER) decoded into a plain `Decodable` struct through
// `db.rows(Task.self, sql)`, against a raw sqlite3_step/sqlite3_column_* loop that builds the
// same Strings and folds every row into the same checksum.
//
//   DecodableBisect make DB                   writes the table (once)
//   DecodableBisect time DB REPS              REPS alternating pairs (raw, Decodable) in this
//                                             process: the median of the pairs' CPU-time ratios
//   DecodableBisect profile DB VARIANT ROWS   one run over ROWS rows, for callgrind
//                                             (VARIANT: raw or decodable)
import CSQLiteBisect
import Foundation
import StreamQLite

struct Task: Decodable {
    var id: Int
    var title: String
    var done: Bool
}

@inline(never) func fold(_ id: Int, _ title: String, _ done: Bool) -> Int {
    id &+ title.utf8.count &* 31 &+ (done ? 7 : 0)
}

func cpuNow() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

let args = CommandLine.arguments
guard args.count >= 3 else { fatalError("usage: DecodableBisect make|time|profile DB …") }
let path = args[2]

if args[1] == "make" {
    var db: OpaquePointer?
    precondition(sqlite3_open(path, &db) == SQLITE_OK)
    let sql = """
        DROP TABLE IF EXISTS tasks;
        CREATE TABLE tasks(id INTEGER PRIMARY KEY, title TEXT NOT NULL, done INTEGER NOT NULL);
        WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1000000)
        INSERT INTO tasks SELECT i, 'Task number ' || i || ' of the benchmark', i % 3 = 0 FROM n;
        """
    precondition(sqlite3_exec(db, sql, nil, nil, nil) == SQLITE_OK)
    sqlite3_close(db)
    exit(0)
}

var rawHandle: OpaquePointer?
precondition(sqlite3_open_v2(path, &rawHandle, SQLITE_OPEN_READONLY, nil) == SQLITE_OK)
let rawDB = rawHandle
let db = try Database(path: path)

func raw(_ rawDB: OpaquePointer?, _ sql: String) -> Int {
    var stmt: OpaquePointer?
    sqlite3_prepare_v2(rawDB, sql, -1, &stmt, nil)
    defer { sqlite3_finalize(stmt) }
    var sum = 0
    while sqlite3_step(stmt) == SQLITE_ROW {
        let id = Int(sqlite3_column_int64(stmt, 0))
        let title = String(decoding: UnsafeBufferPointer(start: sqlite3_column_text(stmt, 1),
                                                         count: Int(sqlite3_column_bytes(stmt, 1))), as: UTF8.self)
        let done = sqlite3_column_int64(stmt, 2) != 0
        sum &+= fold(id, title, done)
    }
    return sum
}

func decodable(_ db: Database, _ sql: String) throws -> Int {
    let cursor = try db.rows(Task.self, sql)
    var sum = 0
    while let t = try cursor.next() { sum &+= fold(t.id, t.title, t.done) }
    return sum
}

let base = "SELECT id, title, done FROM tasks"
switch args[1] {
case "time":
    let reps = Int(args[3])!
    var ratios: [Double] = []
    for _ in 0..<reps {
        let c0 = cpuNow(); let a = raw(rawDB, base)
        let c1 = cpuNow(); let b = try decodable(db, base)
        let c2 = cpuNow()
        precondition(a == b, "checksums differ: \(a) \(b)")
        ratios.append((c2 - c1) / (c1 - c0))
    }
    let sorted = ratios.sorted()
    print(String(format: "%.3f", sorted[sorted.count / 2]), ratios.map { String(format: "%.3f", $0) }.joined(separator: " "))
case "profile":
    let sql = base + " LIMIT \(Int(args[4])!)"
    print(args[3] == "raw" ? raw(rawDB, sql) : try decodable(db, sql))
default:
    fatalError("unknown mode \(args[1])")
}
