#if Macros
import Foundation
import StreamQLiteMacros
import Testing

// @RowCodable's conformances against the Decodable path on the same rows: the same
// values and the same errors (DatabaseError is Equatable: message, column, index, type
// and SQL), through statements (rows(T.self)) and back through RowEncodable inserts.

struct MacroMeta: Codable, Equatable { var owner: String; var priority: Int }
enum MacroLevel: String, Codable, Equatable { case low, high }
enum MacroStoredLevel: String, Codable, Equatable, DatabaseValueConvertible { case low, high }

@RowCodable(encodable: false)  // nested values: inserted through Encodable
struct MacroTask: Decodable, Equatable {
    var id: Int
    var title: String
    var done: Bool
    var score: Double?
    var note: String?
    var small: Int8
    var when: Date?
    var level: MacroLevel                 // a single-value wrapper, not a DatabaseValueConvertible
    var stored: MacroStoredLevel?         // a DatabaseValueConvertible enum
    var meta: MacroMeta                   // nested: the column's JSON
    var tags: [String]
    var extra: [String: Int]?
    var absent: Int?                      // no such column: nil on both paths
}

@RowCodable
struct MacroKeyed: Decodable, Equatable {
    var id: Int
    var name: String
    var cached = 0                        // not a coding key: neither read nor bound
    enum CodingKeys: String, CodingKey {
        case id = "task_id"
        case name
    }
}

@RowCodable(columns: .snakeCase)
struct MacroSnake: Decodable, Equatable {
    var taskID: Int
    var firstName: String
    var isDone: Bool
    var ownerNote: String?
    enum CodingKeys: String, CodingKey {  // what the Decodable path needs for the same columns
        case taskID = "task_id", firstName = "first_name", isDone = "is_done", ownerNote = "owner_note"
    }
}

@RowCodable(columns: .snakeCase)
struct MacroSnakeOnly: Equatable {
    var taskID: Int
    var firstName: String
    var lastURLPart: String?
}

/// Every row of `sql` through both paths: the values up to the first error, and that error.
func bothPaths<T: RowDecodable & Decodable & Equatable>(_ db: Database, _ type: T.Type, _ sql: String,
                                                         sourceLocation: SourceLocation = #_sourceLocation) throws -> [T] {
    var macroValues: [T] = [], decodableValues: [T] = []
    var macroError: (any Error)?, decodableError: (any Error)?
    do {
        let c = try db.cachedStatement(sql).rowDecodableCursor(T.self)
        while let v = try c.next() { macroValues.append(v) }
    } catch { macroError = error }
    do {
        let c = try db.cachedStatement(sql).rows(T.self)
        while let v = try c.next() { decodableValues.append(v) }
    } catch { decodableError = error }
    #expect(macroValues == decodableValues, sourceLocation: sourceLocation)
    switch (macroError, decodableError) {
    case (nil, nil): break
    case (let m as DatabaseError, let d as DatabaseError):
        #expect(m == d, sourceLocation: sourceLocation)
    case (let m?, let d?):
        #expect("\(m)" == "\(d)", sourceLocation: sourceLocation)
    default:
        Issue.record("one path threw, the other did not: macro \(String(describing: macroError)), Decodable \(String(describing: decodableError))",
                     sourceLocation: sourceLocation)
    }
    if let macroError { throw macroError }
    return macroValues
}

func makeTaskDB() throws -> Database {
    let db = try Database()
    try db.execute("""
        CREATE TABLE t(id INTEGER, title TEXT, done INTEGER, score REAL, note TEXT, small INTEGER, "when" TEXT,
                       level TEXT, stored TEXT, meta TEXT, tags TEXT, extra TEXT);
        INSERT INTO t VALUES (1, 'one', 0, 1.5, NULL, 7, '2024-05-01 12:00:00.250', 'low', 'high',
                              '{"owner":"ann","priority":2}', '["a","b"]', '{"x":1}');
        INSERT INTO t VALUES (2, 'two', 1, NULL, 'n', -128, NULL, 'high', NULL,
                              '{"priority":3,"owner":"bob"}', '[]', NULL);
        """)
    return db
}

@Test func rowCodableReadsWhatDecodableReads() throws {
    let db = try makeTaskDB()
    let rows = try bothPaths(db, MacroTask.self, "SELECT * FROM t ORDER BY id")
    #expect(rows.count == 2)
    #expect(rows[0].meta == MacroMeta(owner: "ann", priority: 2))
    #expect(rows[0].level == .low && rows[0].stored == .high && rows[1].stored == nil)
    #expect(rows[1].tags == [] && rows[1].extra == nil && rows[0].extra == ["x": 1])
    #expect(rows[0].when != nil && rows[0].absent == nil && rows[1].score == nil && rows[1].note == "n")
    // Columns in another order and under other cases: both paths look them up by name.
    _ = try bothPaths(db, MacroTask.self, "SELECT tags, extra, meta, stored, level, \"when\", small, note, score, done, TITLE, ID FROM t")
}

@Test func rowCodableFailsWhereDecodableFails() throws {
    let db = try makeTaskDB()
    let cases = [
        "SELECT id, title, done, score, note, 300 AS small, \"when\", level, stored, meta, tags, extra FROM t",     // Int8 overflow
        "SELECT id, NULL AS title, done, score, note, small, \"when\", level, stored, meta, tags, extra FROM t",   // NULL for String
        "SELECT id, title, 'yes' AS done, score, note, small, \"when\", level, stored, meta, tags, extra FROM t",  // TEXT for Bool
        "SELECT id, title, done, score, note, small, \"when\", 'mid' AS level, stored, meta, tags, extra FROM t",  // no such raw value
        "SELECT id, title, done, score, note, small, \"when\", level, 'mid' AS stored, meta, tags, extra FROM t",  // no such raw value (DVC)
        "SELECT id, title, done, score, note, small, \"when\", level, stored, '{\"owner\":1}' AS meta, tags, extra FROM t",  // nested type
        "SELECT id, title, done, score, note, small, \"when\", level, stored, 'not json' AS meta, tags, extra FROM t",
        "SELECT id, title, done, score, note, small, \"when\", level, stored, meta, 42 AS tags, extra FROM t",
        "SELECT id, title, done, score, note, small, \"when\", level, stored, tags, extra FROM t",                    // no meta column
        "SELECT id, title, done, score, note, small, 'yesterday' AS \"when\", level, stored, meta, tags, extra FROM t",
        "SELECT id, title, done, score, note, small, \"when\", level, stored, meta, tags, '[1]' AS extra FROM t ORDER BY id DESC",
    ]
    for sql in cases {
        #expect(throws: (any Error).self, "\(sql)") { try bothPaths(db, MacroTask.self, sql) }
    }
}

@Test func rowCodableHonoursCodingKeys() throws {
    let db = try Database()
    try db.execute("CREATE TABLE k(task_id INTEGER, name TEXT, cached INTEGER); INSERT INTO k VALUES (5, 'five', 99)")
    let rows = try bothPaths(db, MacroKeyed.self, "SELECT * FROM k")
    #expect(rows == [MacroKeyed(id: 5, name: "five", cached: 0)])
    #expect(MacroKeyed.databaseColumns == ["task_id", "name"])
    #expect(throws: DatabaseError.self) { try bothPaths(db, MacroKeyed.self, "SELECT cached AS id, name FROM k") }
}

@Test func rowCodableSnakeCase() throws {
    let db = try Database()
    try db.execute("""
        CREATE TABLE s(task_id INTEGER, first_name TEXT, is_done INTEGER, owner_note TEXT);
        INSERT INTO s VALUES (1, 'Ann', 1, NULL), (2, 'Bob', 0, 'x');
        """)
    let rows = try bothPaths(db, MacroSnake.self, "SELECT * FROM s ORDER BY task_id")
    #expect(rows.map(\.firstName) == ["Ann", "Bob"])
    #expect(MacroSnake.databaseColumns == ["task_id", "first_name", "is_done", "owner_note"])
    // The library's conversion, as JSONEncoder's convertToSnakeCase writes the same names.
    #expect(MacroSnakeOnly.databaseColumns == ["task_id", "first_name", "last_url_part"])
    let encoder = JSONEncoder()
    encoder.keyEncodingStrategy = .convertToSnakeCase
    encoder.outputFormatting = .sortedKeys
    struct Names: Encodable { var taskID = 0, firstName = 0, lastURLPart = 0 }
    let json = String(decoding: try encoder.encode(Names()), as: UTF8.self)
    #expect(json == #"{"first_name":0,"last_url_part":0,"task_id":0}"#)
}

@Test func rowCodableBindsWhatItReads() throws {
    let db = try Database()
    try db.execute("CREATE TABLE s(task_id INTEGER, first_name TEXT, last_url_part TEXT)")
    let values = [MacroSnakeOnly(taskID: 1, firstName: "Ann", lastURLPart: nil),
                  MacroSnakeOnly(taskID: 2, firstName: "Bob", lastURLPart: "x/y")]
    try db.insert(contentsOf: values, into: "s")
    #expect(try db.rows(MacroSnakeOnly.self, "SELECT * FROM s ORDER BY task_id").collect() == values)
    #expect(try db.value(String.self, "SELECT group_concat(quote(last_url_part)) FROM s") == "NULL,'x/y'")
}

@Test func rowCodableReadsCSVRecords() throws {
    let csv = Array("task_id,first_name,last_url_part\n1,Ann,\n2,Bob,x\n".utf8)
    let rows = try CSVRowCursor(MacroSnakeOnly.self, bytes: csv).collect()
    #expect(rows.map(\.firstName) == ["Ann", "Bob"] && rows.map(\.taskID) == [1, 2])
}

@RowCodable
struct MacroNameOnly: Equatable {
    var first_name: String
}

@Test func rowCodablePlanFollowsSchemaChangesAndTypes() throws {
    let db = try Database()
    try db.execute("CREATE TABLE p(task_id INTEGER, first_name TEXT, last_url_part TEXT); INSERT INTO p VALUES (1, 'Ann', 'a')")
    let sql = "SELECT * FROM p"
    #expect(try db.rows(MacroSnakeOnly.self, sql).collect() == [MacroSnakeOnly(taskID: 1, firstName: "Ann", lastURLPart: "a")])
    // The same SQL after the columns moved: the plan made for the old statement is not used.
    try db.execute("DROP TABLE p; CREATE TABLE p(last_url_part TEXT, first_name TEXT, task_id INTEGER); INSERT INTO p VALUES ('b', 'Bob', 2)")
    #expect(try db.rows(MacroSnakeOnly.self, sql).collect() == [MacroSnakeOnly(taskID: 2, firstName: "Bob", lastURLPart: "b")])
    try db.execute("ALTER TABLE p RENAME COLUMN last_url_part TO other")
    #expect(try db.rows(MacroSnakeOnly.self, sql).collect() == [MacroSnakeOnly(taskID: 2, firstName: "Bob", lastURLPart: nil)])
    // Two types read from the same rows, one after the other: each its own columns.
    try db.execute("INSERT INTO p VALUES ('c', 'Cid', 3)")
    let cursor = try db.rows(sql + " ORDER BY task_id")
    var seen: [String] = []
    while let row = try cursor.next() {
        let whole = try MacroSnakeOnly(row: row), name = try MacroNameOnly(row: row)
        seen.append("\(whole.taskID) \(whole.firstName) \(name.first_name)")
    }
    #expect(seen == ["2 Bob Bob", "3 Cid Cid"])
}
#endif
