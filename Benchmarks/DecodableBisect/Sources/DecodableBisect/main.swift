// The fixed benchmark of Benchmarks/bisect-decodable.py: 1,000,000 rows of
// (id INTEGER, title TEXT, done INTEGER) decoded into a plain `Decodable` struct through
// `db.rows(Task.self, sql)`, against a raw sqlite3_step/sqlite3_column_* loop that builds the
// same Strings and folds every row into the same checksum, and through a hand-written
// `RowDecodable`; the same three for 1,000,000 rows of 10 INTEGER columns. Built with
// STREAMQLITE_MACRO_PLUGIN (see Package.swift), also through `@RowCodable`'s `init(row:)`.
//
//   DecodableBisect make DB                   writes the tables (once)
//   DecodableBisect profile DB VARIANT ROWS   one run over ROWS rows (VARIANT: raw,
//                                             decodable, handwritten; raw-wide, decodable-wide,
//                                             handwritten-wide; rowcodable, rowcodable-wide):
//                                             timed as a whole process,
//                                             or under callgrind
import CSQLiteBisect
import Foundation
import StreamQLite

struct Task: Decodable {
    var id: Int
    var title: String
    var done: Bool
}

struct TaskRow: RowDecodable {
    var id: Int
    var title: String
    var done: Bool
    init(row: Row) throws {
        id = try row[0]
        title = try row[1]
        done = try row[2]
    }
}

struct Wide: Decodable {
    var c0, c1, c2, c3, c4, c5, c6, c7, c8, c9: Int
    var sum: Int { c0 &+ c1 &+ c2 &+ c3 &+ c4 &+ c5 &+ c6 &+ c7 &+ c8 &+ c9 }
}

struct WideRow: RowDecodable {
    var c0, c1, c2, c3, c4, c5, c6, c7, c8, c9: Int
    init(row: Row) throws {
        c0 = try row[0]; c1 = try row[1]; c2 = try row[2]; c3 = try row[3]; c4 = try row[4]
        c5 = try row[5]; c6 = try row[6]; c7 = try row[7]; c8 = try row[8]; c9 = try row[9]
    }
    var sum: Int { c0 &+ c1 &+ c2 &+ c3 &+ c4 &+ c5 &+ c6 &+ c7 &+ c8 &+ c9 }
}

#if ROWCODABLE
@attached(extension, conformances: RowDecodable, RowEncodable, JSONDecodable, JSONEncodable,
          names: named(init(row:)), named(databaseColumns), named(bind(to:)), named(init(json:)), named(encode(json:)))
macro RowCodable(columns: RowColumnNaming = .propertyNames, encodable: Bool = true, json: Bool = false) =
    #externalMacro(module: "StreamQLiteMacrosPlugin", type: "RowCodableMacro")

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

func rowcodable(_ db: Database, _ sql: String) throws -> Int {
    let cursor = try db.rows(MacroTask.self, sql) as RowDecodableCursor<MacroTask>
    var sum = 0
    while let t = try cursor.next() { sum &+= fold(t.id, t.title, t.done) }
    return sum
}

func rowcodableWide(_ db: Database, _ sql: String) throws -> Int {
    let cursor = try db.rows(MacroWide.self, sql) as RowDecodableCursor<MacroWide>
    var sum = 0
    while let w = try cursor.next() { sum &+= w.sum }
    return sum
}
#endif

@inline(never) func fold(_ id: Int, _ title: String, _ done: Bool) -> Int {
    id &+ title.utf8.count &* 31 &+ (done ? 7 : 0)
}

let args = CommandLine.arguments
guard args.count >= 3 else { fatalError("usage: DecodableBisect make|profile DB …") }
let path = args[2]

if args[1] == "make" {
    var db: OpaquePointer?
    precondition(sqlite3_open(path, &db) == SQLITE_OK)
    let sql = """
        DROP TABLE IF EXISTS tasks;
        CREATE TABLE tasks(id INTEGER PRIMARY KEY, title TEXT NOT NULL, done INTEGER NOT NULL);
        WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1000000)
        INSERT INTO tasks SELECT i, 'Task number ' || i || ' of the benchmark', i % 3 = 0 FROM n;
        DROP TABLE IF EXISTS wide;
        CREATE TABLE wide(c0 INTEGER, c1 INTEGER, c2 INTEGER, c3 INTEGER, c4 INTEGER,
                          c5 INTEGER, c6 INTEGER, c7 INTEGER, c8 INTEGER, c9 INTEGER);
        WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1000000)
        INSERT INTO wide SELECT i, i * 3, i % 7, i % 1000, i * 11, i / 3, i % 2, i + 5, i * 13, i % 97 FROM n;
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

func handwritten(_ db: Database, _ sql: String) throws -> Int {
    let cursor = try db.rows(TaskRow.self, sql)
    var sum = 0
    while let t = try cursor.next() { sum &+= fold(t.id, t.title, t.done) }
    return sum
}

func rawWide(_ rawDB: OpaquePointer?, _ sql: String) -> Int {
    var stmt: OpaquePointer?
    sqlite3_prepare_v2(rawDB, sql, -1, &stmt, nil)
    defer { sqlite3_finalize(stmt) }
    var sum = 0
    while sqlite3_step(stmt) == SQLITE_ROW {
        for c in Int32(0)..<10 { sum &+= Int(sqlite3_column_int64(stmt, c)) }
    }
    return sum
}

func decodableWide(_ db: Database, _ sql: String) throws -> Int {
    let cursor = try db.rows(Wide.self, sql)
    var sum = 0
    while let w = try cursor.next() { sum &+= w.sum }
    return sum
}

func handwrittenWide(_ db: Database, _ sql: String) throws -> Int {
    let cursor = try db.rows(WideRow.self, sql)
    var sum = 0
    while let w = try cursor.next() { sum &+= w.sum }
    return sum
}

guard args[1] == "profile", args.count == 5, let rows = Int(args[4]) else { fatalError("unknown mode \(args[1])") }
let tasks = "SELECT id, title, done FROM tasks LIMIT \(rows)"
let wide = "SELECT c0, c1, c2, c3, c4, c5, c6, c7, c8, c9 FROM wide LIMIT \(rows)"
switch args[3] {
case "raw": print(raw(rawDB, tasks))
case "decodable": print(try decodable(db, tasks))
case "handwritten": print(try handwritten(db, tasks))
case "raw-wide": print(rawWide(rawDB, wide))
case "decodable-wide": print(try decodableWide(db, wide))
case "handwritten-wide": print(try handwrittenWide(db, wide))
#if ROWCODABLE
case "rowcodable": print(try rowcodable(db, tasks))
case "rowcodable-wide": print(try rowcodableWide(db, wide))
#endif
default: fatalError("unknown variant \(args[3])")
}
