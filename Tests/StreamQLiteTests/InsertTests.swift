import CStreamQLite
import Foundation
import Testing
@testable import StreamQLite

/// A value read back in tests.
enum JSONTestValue: Hashable, CustomStringConvertible {
    case null, int(Int64), real(Double), text(String), blob([UInt8])
    var description: String {
        switch self {
        case .null: return "NULL"
        case .int(let v): return "\(v)"
        case .real(let v): return "\(v)"
        case .text(let v): return "'\(v)'"
        case .blob(let v): return "x\(v)"
        }
    }
}

/// Collects a result set (tests only).
struct JSONTestCollectingSink: RowSink {
    var columns: [String] = []
    var rows: [[JSONTestValue]] = []
    var beginCount = 0, endCount = 0
    mutating func beginResult(columns: [String]) { self.columns = columns; beginCount += 1 }
    mutating func beginRow() { rows.append([]) }
    mutating func null(column: Int) { rows[rows.count - 1].append(.null) }
    mutating func integer(_ value: Int64, column: Int) { rows[rows.count - 1].append(.int(value)) }
    mutating func double(_ value: Double, column: Int) { rows[rows.count - 1].append(.real(value)) }
    mutating func text(_ utf8: UnsafeBufferPointer<UInt8>, column: Int) {
        rows[rows.count - 1].append(.text(String(decoding: utf8, as: UTF8.self)))
    }
    mutating func blob(_ bytes: UnsafeRawBufferPointer, column: Int) { rows[rows.count - 1].append(.blob(Array(bytes))) }
    mutating func endResult() { endCount += 1 }
}

func jsonTestQuery(_ db: Database, _ sql: String) throws -> [[JSONTestValue]] {
    var sink = JSONTestCollectingSink()
    try db.jsonStreamRows(sql, into: &sink)
    return sink.rows
}

func jsonTestCount(_ db: Database, _ table: String) throws -> Int64 {
    guard case .int(let n) = try jsonTestQuery(db, "SELECT count(*) FROM \(table)")[0][0] else { return -1 }
    return n
}

struct InsertTestTask: Codable, Equatable {
    enum Status: String, Codable { case open, done }
    struct Meta: Codable, Equatable { var owner: String; var priority: Int }
    var id: Int
    var title: String
    var score: Double?
    var done: Bool
    var status: Status
    var tags: [String]
    var meta: Meta?
}

struct InsertTestFastTask: RowEncodable, Equatable {
    var id: Int64
    var title: String
    var score: Double?
    static let databaseColumns = ["id", "title", "score"]
    func bind(to row: inout RowBinder) throws {
        row.bind(id)
        row.bind(title)
        row.bind(score)
    }
}

@Suite struct InsertTests {
    let db: Database

    init() throws {
        db = try Database(path: ":memory:")
        try jsonTestExec(db, """
            CREATE TABLE tasks(id INTEGER PRIMARY KEY, title TEXT NOT NULL, score REAL, done INTEGER NOT NULL,
                               status TEXT, tags JSON, meta JSON, created TEXT DEFAULT 'x')
            """)
    }

    func task(_ i: Int) -> InsertTestTask {
        InsertTestTask(id: i, title: "task \(i)", score: i % 3 == 0 ? nil : Double(i) / 4, done: i % 2 == 0,
             status: i % 2 == 0 ? .done : .open, tags: ["t\(i)", "x"], meta: i % 5 == 0 ? nil : .init(owner: "o\(i)", priority: i % 7))
    }

    @Test func encodablePropertiesAreBoundToTheirColumnsWithTheirSQLiteTypes() throws {
        let n = try db.insert(contentsOf: [task(1), task(3)], into: "tasks")
        #expect(n == 2)
        let rows = try jsonTestQuery(db, "SELECT id, title, score, done, status, tags, meta, created FROM tasks ORDER BY id")
        #expect(rows[0] == [.int(1), .text("task 1"), .real(0.25), .int(0), .text("open"), .text(#"["t1","x"]"#),
                            .text(#"{"owner":"o1","priority":1}"#), .text("x")])
        #expect(rows[1][2] == .null)  // nil optional → NULL
    }

    @Test func optionalsNilInTheFirstRowStillGetTheirColumnForLaterRows() throws {
        // task(0): score nil and meta nil (not encoded by synthesized Codable).
        try db.insert(contentsOf: [task(15), task(1)], into: "tasks")
        let rows = try jsonTestQuery(db, "SELECT score, meta FROM tasks ORDER BY id DESC")
        #expect(rows[0] == [.null, .null])
        #expect(rows[1] == [.real(0.25), .text(#"{"owner":"o1","priority":1}"#)])
    }

    @Test(arguments: [0, 1, 2, 49, 50, 51, 99, 100, 101, 257])
    func everyBatchTailSizeInsertsAllRowsOnce(count: Int) throws {
        let n = try db.insert(contentsOf: (0..<count).map(task), into: "tasks", options: .init(batchSize: 50))
        #expect(n == count)
        #expect(try jsonTestCount(db, "tasks") == Int64(count))
        if count > 0 {
            #expect(try jsonTestQuery(db, "SELECT sum(id), max(id) FROM tasks")[0]
                    == [.int(Int64(count * (count - 1) / 2)), .int(Int64(count - 1))])
        }
    }

    @Test func batchesStayWithinSQLitesVariableLimit() throws {
        try jsonTestExec(db, "CREATE TABLE fast(id INTEGER PRIMARY KEY, title TEXT, score REAL)")
        sqlite3_limit(db.handle, SQLITE_LIMIT_VARIABLE_NUMBER, 10)  // 3 columns → 3 rows per statement
        let rows = (0..<100).map { InsertTestFastTask(id: Int64($0), title: "t\($0)", score: nil) }
        #expect(try db.insert(contentsOf: rows, into: "fast", options: .init(batchSize: 500)) == 100)
        #expect(try jsonTestCount(db, "fast") == 100)
    }

    @Test func aConstraintViolationMidBatchNamesTheRowAndColumnAndRollsEverythingBack() throws {
        try db.insert(contentsOf: [task(1000)], into: "tasks")
        var rows = (0..<120).map(task)
        rows[77].id = 5  // duplicate of row 5, inside the second batch
        let error = try #require(throws: InsertError.self) {
            try db.insert(contentsOf: rows, into: "tasks")
        }
        #expect(error.row == 77)
        #expect(error.column == "id")
        #expect(error.message.contains("UNIQUE constraint failed: tasks.id"))
        #expect(error.description.hasPrefix("insert into tasks: row 77, column 'id': "))
        #expect(try jsonTestCount(db, "tasks") == 1)  // only the row from before
    }

    @Test func aNotNullViolationNamesTheRowAndColumn() throws {
        struct Untitled: Encodable { var id: Int; var title: String?; var done: Bool }
        let rows = (0..<10).map { Untitled(id: $0, title: $0 == 6 ? nil : "t", done: true) }
        let error = try #require(throws: InsertError.self) { try db.insert(contentsOf: rows, into: "tasks") }
        #expect(error.row == 6 && error.column == "title")
        #expect(try jsonTestCount(db, "tasks") == 0)
    }

    @Test func nanIsRejectedWithTheRowAndColumnBeforeAnythingIsWritten() throws {
        var rows = (0..<80).map(task)
        rows[63].score = .nan
        let error = try #require(throws: InsertError.self) { try db.insert(contentsOf: rows, into: "tasks") }
        #expect(error.row == 63 && error.column == "score")
        #expect(error.message.contains("NaN"))
        #expect(try jsonTestCount(db, "tasks") == 0)
    }

    @Test func aNestedStructNeedsAJSONColumn() throws {
        try jsonTestExec(db, "CREATE TABLE plain(id INTEGER, meta TEXT)")
        struct Row: Encodable { var id: Int; var meta: InsertTestTask.Meta }
        let error = try #require(throws: InsertError.self) {
            try db.insert(contentsOf: [Row(id: 1, meta: .init(owner: "a", priority: 1))], into: "plain")
        }
        #expect(error.row == 0 && error.column == "meta")
        #expect(error.message.contains("JSON column"))
        try db.insert(contentsOf: [Row(id: 1, meta: .init(owner: "a", priority: 1))], into: "plain",
                      options: .init(jsonColumns: ["meta"]))
        #expect(try jsonTestQuery(db, "SELECT meta FROM plain") == [[.text(#"{"owner":"a","priority":1}"#)]])
    }

    @Test func aPropertyWithoutAColumnIsAnErrorUnlessIgnored() throws {
        struct Extra: Encodable { var id: Int; var title: String; var done: Bool; var colour: String }
        let rows = [Extra(id: 1, title: "a", done: false, colour: "red")]
        let error = try #require(throws: InsertError.self) { try db.insert(contentsOf: rows, into: "tasks") }
        #expect(error.column == "colour")
        #expect(try db.insert(contentsOf: rows, into: "tasks", options: .init(ignoreUnknownKeys: true)) == 1)
    }

    @Test func aMissingTableIsAClearError() throws {
        #expect(throws: DatabaseError.self) { try db.insert(contentsOf: [task(1)], into: "nope") }
    }

    @Test func integersBeyondInt64AreRejected() throws {
        struct Big: Encodable { var id: UInt64; var title = "t"; var done = false }
        let error = try #require(throws: InsertError.self) {
            try db.insert(contentsOf: [Big(id: 1), Big(id: UInt64.max)], into: "tasks")
        }
        #expect(error.row == 1 && error.column == "id")
    }

    @Test func upsertUpdatesExistingRowsAndInsertsNewOnes() throws {
        try db.insert(contentsOf: (0..<10).map(task), into: "tasks")
        var edits = (5..<15).map(task)
        for i in edits.indices { edits[i].title = "edited" }
        try db.insert(contentsOf: edits, into: "tasks", options: .init(onConflict: .update(target: ["id"], set: ["title"])))
        #expect(try jsonTestCount(db, "tasks") == 15)
        #expect(try jsonTestQuery(db, "SELECT count(*) FROM tasks WHERE title = 'edited'") == [[.int(10)]])
        #expect(try jsonTestQuery(db, "SELECT title FROM tasks WHERE id = 4") == [[.text("task 4")]])
    }

    @Test func ignoreSkipsConflictsAndReplaceOverwrites() throws {
        try db.insert(contentsOf: (0..<5).map(task), into: "tasks")
        var again = (0..<8).map(task)
        for i in again.indices { again[i].title = "new" }
        try db.insert(contentsOf: again, into: "tasks", options: .init(onConflict: .ignore))
        #expect(try jsonTestQuery(db, "SELECT count(*), sum(title = 'new') FROM tasks") == [[.int(8), .int(3)]])
        try db.insert(contentsOf: again, into: "tasks", options: .init(onConflict: .replace))
        #expect(try jsonTestQuery(db, "SELECT count(*), sum(title = 'new') FROM tasks") == [[.int(8), .int(8)]])
    }

    @Test func returningStreamsTheGeneratedKeysOfEveryRow() throws {
        struct New: Encodable { var title: String; var done = false }
        var sink = JSONTestCollectingSink()
        let n = try db.insert(contentsOf: (0..<73).map { New(title: "n\($0)") }, into: "tasks",
                              returning: "id, title", into: &sink)
        #expect(n == 73)
        #expect(sink.columns == ["id", "title"])
        #expect(sink.beginCount == 1 && sink.endCount == 1)
        #expect(Set(sink.rows.map { $0[0] }) == Set((1...73).map { JSONTestValue.int(Int64($0)) }))
    }

    @Test func returningWorksForRowEncodableValuesWithOneBatchPerRow() throws {
        try jsonTestExec(db, "CREATE TABLE fast(id INTEGER PRIMARY KEY, title TEXT, score REAL)")
        var sink = JSONTestCollectingSink()
        let rows = (0..<7).map { InsertTestFastTask(id: Int64(10 + $0), title: "r\($0)", score: nil) }
        try db.insert(contentsOf: rows, into: "fast", options: .init(batchSize: 1), returning: "id * 2 AS twice", into: &sink)
        #expect(sink.columns == ["twice"])
        let expected: [[JSONTestValue]] = (0..<7).map { i in [JSONTestValue.int(Int64(2 * (10 + i)))] }
        #expect(sink.rows == expected)  // batch size 1: input order
    }

    @Test func rowEncodableValuesBindWithoutKeys() throws {
        let rows = (0..<130).map { InsertTestFastTask(id: Int64($0), title: "f\($0)", score: $0 % 2 == 0 ? nil : 1.5) }
        try jsonTestExec(db, "CREATE TABLE fast(id INTEGER PRIMARY KEY, title TEXT, score REAL)")
        #expect(try db.insert(contentsOf: rows, into: "fast") == 130)
        #expect(try jsonTestQuery(db, "SELECT id, title, score FROM fast WHERE id IN (2, 3) ORDER BY id")
                == [[.int(2), .text("f2"), .null], [.int(3), .text("f3"), .real(1.5)]])
    }

    @Test func aRowEncodableThatBindsTooFewValuesIsAnError() throws {
        struct Short: RowEncodable {
            static let databaseColumns = ["id", "title", "done"]
            func bind(to row: inout RowBinder) throws { row.bind(1); row.bind("x") }
        }
        let error = try #require(throws: InsertError.self) { try db.insert(contentsOf: [Short()], into: "tasks") }
        #expect(error.row == 0 && error.column == "done")
        #expect(try jsonTestCount(db, "tasks") == 0)
    }

    @Test func aLazySequenceIsConsumedWithoutMaterializingIt() throws {
        var produced = 0
        let rows = (0..<200_000).lazy.map { i -> InsertTestFastTask in
            produced += 1
            return InsertTestFastTask(id: Int64(i), title: "g", score: nil)
        }
        try jsonTestExec(db, "CREATE TABLE gen(id INTEGER PRIMARY KEY, title TEXT, score REAL)")
        #expect(try db.insert(contentsOf: rows, into: "gen") == 200_000)
        #expect(produced == 200_000)  // each element generated exactly once
        #expect(try jsonTestCount(db, "gen") == 200_000)
    }

    @Test func insideAnOuterTransactionOnlyTheFailedInsertIsRolledBack() throws {
        try jsonTestExec(db, "BEGIN")
        try db.insert(contentsOf: [task(1)], into: "tasks")
        #expect(throws: InsertError.self) { try db.insert(contentsOf: [task(2), task(1)], into: "tasks") }
        try jsonTestExec(db, "COMMIT")
        #expect(try jsonTestQuery(db, "SELECT id FROM tasks") == [[.int(1)]])
    }

    @Test func datesAreStoredAsTheOneDateTextOrUnixSeconds() throws {
        try jsonTestExec(db, "CREATE TABLE ev(at DATETIME, n INTEGER)")
        struct Ev: Encodable { var at: Date; var n: Int }
        let d = Date(timeIntervalSince1970: 1_714_564_800.25)
        try db.insert(contentsOf: [Ev(at: d, n: 1)], into: "ev")
        try db.insert(contentsOf: [Ev(at: d, n: 2)], into: "ev", options: .init(dateEncoding: .unixSeconds))
        #expect(try jsonTestQuery(db, "SELECT at FROM ev ORDER BY n") == [[.text("2024-05-01 12:00:00.250")], [.real(1_714_564_800.25)]])
    }

    /// A stored number is one instant in SQL and in Swift: SQLite's 'auto' rule (a Julian
    /// day from 0 to 5373484.5, else Unix seconds) on both paths; outside 0000-9999 an error.
    @Test func aStoredNumberIsTheSameInstantInSQLAndSwift() throws {
        struct At: RowDecodable { var at: Date; var week: String
            init(row: Row) throws { at = try row[0]; week = try row[1] } }
        let day = Date(timeIntervalSince1970: 1_293_926_400)       // 2011-01-02T00:00Z
        for number in ["2455563.5", "1293926400", "1293926400.0"] {
            let got = try db.rows(At.self, "SELECT \(number), locale_week_start(\(number), 'en_US')").collect()
            #expect(got.first?.at == day && got.first?.week == "2011-01-02", "\(number): \(String(describing: got.first?.at))")
            #expect(try db.value(Date.self, "SELECT \(number)") == day)
        }
        // rows(Date.self): the same rule (it read a number as seconds since 2001, and refused date text)
        #expect(try db.rows(Date.self, "SELECT 1293926400 UNION ALL SELECT 2455563.5 UNION ALL SELECT '2011-01-02'").collect()
                == [day, day, day])
        #expect(Date.fromDatabaseValue(.real(2455563.5)) == day)
        #expect(Date.fromDatabaseValue(.integer(1_000_000)) == nil)   // a Julian day before the year 0000
        #expect(throws: DatabaseError.self) { try db.value(Date.self, "SELECT 1000000") }
    }
}
