import Foundation
import Testing
import StreamQLite

struct Todo: Codable, Equatable, Sendable {
    var id: Int
    var title: String
    var done: Bool
}

struct HandTask: RowDecodable, Equatable {
    var id: Int
    var title: String
    var done: Bool
    init(id: Int, title: String, done: Bool) { self.id = id; self.title = title; self.done = done }
    init(row: Row) throws {
        id = try row[0]
        title = try row[1]
        done = try row[2]
    }
}

struct Everything: Decodable, Equatable {
    var i: Int, i8: Int8, i16: Int16, i32: Int32, i64: Int64, u8: UInt8, u16: UInt16, u32: UInt32, u64: UInt64, u: UInt
    var d: Double, f: Float, b: Bool, s: String, bytes: [UInt8], data: Data, date: Date, uuid: UUID
    var color: Color, level: Level
    var oi: Int?, os: String?, od: Date?, ocolor: Color?, missing: String?
}

func makeTasks() throws -> Database {
    let db = try Database()
    try db.execute("CREATE TABLE tasks(id INTEGER PRIMARY KEY, title TEXT NOT NULL, done INTEGER NOT NULL)")
    try db.transaction {
        for (title, done) in [("Clean Room", false), ("Write Code", true), ("Sleep", false)] {
            try db.execute("INSERT INTO tasks(title, done) VALUES (?, ?)", title, done)
        }
    }
    return db
}

@Suite struct DecodingTests {
    @Test func decodableRowsStreamFromTheQueryInTheIssue() throws {
        let db = try makeTasks()
        let open = try db.rows(Todo.self, "SELECT * FROM tasks WHERE done = ?", false).collect()
        #expect(open == [Todo(id: 1, title: "Clean Room", done: false), Todo(id: 3, title: "Sleep", done: false)])
    }

    @Test func decodableMatchesColumnsByNameInAnyOrderAndCase() throws {
        let db = try makeTasks()
        let tasks = try db.rows(Todo.self, "SELECT done AS DONE, title, id FROM tasks ORDER BY id").collect()
        #expect(tasks.map(\.id) == [1, 2, 3])
        #expect(tasks[1] == Todo(id: 2, title: "Write Code", done: true))
    }

    @Test func handWrittenDecodingReadsByIndex() throws {
        let db = try makeTasks()
        let tasks = try db.rows(HandTask.self, "SELECT id, title, done FROM tasks ORDER BY id").collect()
        #expect(tasks.last == HandTask(id: 3, title: "Sleep", done: false))
    }

    @Test func rowViewsReadByIndexAndByName() throws {
        let db = try makeTasks()
        var titles: [String] = []
        try db.rows("SELECT id, title, done FROM tasks ORDER BY id").forEach { row in
            let id: Int = try row["id"]
            let title: String = try row["TITLE"]
            let done: Bool = try row[2]
            titles.append("\(id) \(title) \(done)")
            #expect(row.columnNames == ["id", "title", "done"])
        }
        #expect(titles == ["1 Clean Room false", "2 Write Code true", "3 Sleep false"])
    }

    @Test func singleValuesAndOptionalsStream() throws {
        let db = try makeTasks()
        #expect(try db.values(String.self, "SELECT title FROM tasks ORDER BY id DESC").collect() == ["Sleep", "Write Code", "Clean Room"])
        #expect(try db.values(Int?.self, "SELECT NULL UNION ALL SELECT 4").collect() == [nil, 4])
        #expect(try db.value(Int.self, "SELECT 1 WHERE 0") == nil)
    }

    @Test func everySupportedTypeDecodesAndOptionalsTakeNull() throws {
        let db = try Database()
        let uuid = UUID()
        let row = try #require(try db.rows(Everything.self, """
            SELECT -1 AS i, -8 AS i8, -16 AS i16, -32 AS i32, 9223372036854775807 AS i64, 255 AS u8, 65535 AS u16,
                   4294967295 AS u32, 7 AS u64, 8 AS u, 1.5 AS d, 2.5 AS f, 1 AS b, 'text' AS s, x'00ff' AS bytes,
                   x'0102' AS data, '2024-05-01 12:00:00.000' AS date, ? AS uuid, 'red' AS color, 2 AS level,
                   NULL AS oi, NULL AS os, NULL AS od, NULL AS ocolor
            """, uuid).next())
        #expect(row.i64 == .max && row.u32 == .max && row.i8 == -8 && row.u == 8)
        #expect(row.bytes == [0, 255] && row.data == Data([1, 2]))
        #expect(row.date == Date(timeIntervalSince1970: 1_714_564_800))
        #expect(row.uuid == uuid && row.color == .red && row.level == .high)
        #expect(row.oi == nil && row.os == nil && row.od == nil && row.ocolor == nil && row.missing == nil)
    }

    @Test func theCursorResetsItsStatementWhenDroppedSoTheCachedStatementIsReusable() throws {
        let db = try makeTasks()
        do {
            let cursor = try db.rows(Todo.self, "SELECT * FROM tasks")
            _ = try cursor.next()
        }
        try db.execute("DROP TABLE tasks")  // would fail with SQLITE_LOCKED if the SELECT were still running
        #expect(db.isAutocommit)
    }

    @Test func aStatementCanBeReboundAndReadAgain() throws {
        let db = try makeTasks()
        let statement = try db.makeStatement("SELECT title FROM tasks WHERE id = ?")
        var titles: [String] = []
        for id in [3, 1] {
            try statement.bind(id)
            titles += try statement.values(String.self).collect()
        }
        #expect(titles == ["Sleep", "Clean Room"])
    }

    enum Kind: String, Codable { case alpha, beta }
    struct Box<T: Decodable>: Decodable { var id: Int; var value: T }

    @Test func aGenericPropertyWhoseTypeIsAnOptionalEnumDecodes() throws {
        let db = try Database()
        let rows = try db.rows(Box<Kind?>.self, "SELECT 1 AS id, 'beta' AS value UNION ALL SELECT 2, NULL ORDER BY id").collect()
        #expect(rows.map(\.value) == [.beta, nil])
        let ints = try db.rows(Box<Int?>.self, "SELECT 1 AS id, NULL AS value").collect()
        #expect(ints.map(\.value) == [nil])
    }
}
