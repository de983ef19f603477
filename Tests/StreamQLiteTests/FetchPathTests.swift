import Foundation
import Testing
import StreamQLite

// Tests for the fast fetching paths: the Decodable key plan (keys matched by
// their bits, then by name), the reused keyed container, the column readers built on
// sqlite3_column_value, the statement cache's last-entry check and the cursor-less db.value.

/// Decodes `a` or `b` depending on `kind`: the keys asked for change from row to row.
private struct Conditional: Decodable, Equatable {
    var kind: String
    var value: Int
    enum CodingKeys: String, CodingKey { case kind, a, b }
    init(kind: String, value: Int) { self.kind = kind; self.value = value }
    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        kind = try c.decode(String.self, forKey: .kind)
        value = kind == "a" ? try c.decode(Int.self, forKey: .a) : try c.decode(Int.self, forKey: .b)
    }
}

/// Asks for its keys in a different order on odd and even ids.
private struct Reordering: Decodable, Equatable {
    var id: Int, a: Int, b: Int
    enum CodingKeys: String, CodingKey { case id, a, b }
    init(id: Int, a: Int, b: Int) { self.id = id; self.a = a; self.b = b }
    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        id = try c.decode(Int.self, forKey: .id)
        if id % 2 == 0 {
            a = try c.decode(Int.self, forKey: .a); b = try c.decode(Int.self, forKey: .b)
        } else {
            b = try c.decode(Int.self, forKey: .b); a = try c.decode(Int.self, forKey: .a)
        }
    }
}

/// A trivial (8-byte) key type whose name is computed from its value.
private struct IndexKey: CodingKey {
    var index: Int
    init(_ index: Int) { self.index = index }
    init?(stringValue: String) { nil }
    init?(intValue: Int) { index = intValue }
    var stringValue: String { "c\(index)" }
    var intValue: Int? { index }
}

/// A key type holding a String (not trivial): always matched by name.
private struct NameKey: CodingKey {
    var stringValue: String
    init(_ name: String) { stringValue = name }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
    var intValue: Int? { nil }
}

/// `SELECT … FROM` the integers 1...n as column `value`.
private func series(_ n: Int) -> String {
    "WITH RECURSIVE g(value) AS (SELECT 1 UNION ALL SELECT value + 1 FROM g WHERE value < \(n)) SELECT"
}

private let countKey = CodingUserInfoKey(rawValue: "count")!
private let byNameKey = CodingUserInfoKey(rawValue: "byName")!

/// Reads columns c0, c1, … (as many as `userInfo[countKey]`) with trivial or String-holding keys.
private struct Columns: Decodable {
    var values: [Int] = []
    init(from decoder: any Decoder) throws {
        let count = decoder.userInfo[countKey] as! Int
        if decoder.userInfo[byNameKey] as! Bool {
            let c = try decoder.container(keyedBy: NameKey.self)
            for i in 0..<count { values.append(try c.decode(Int.self, forKey: NameKey("c\(i)"))) }
        } else {
            let c = try decoder.container(keyedBy: IndexKey.self)
            for i in 0..<count { values.append(try c.decode(Int.self, forKey: IndexKey(i))) }
        }
    }
}

/// Opens two keyed containers with different key types on every row.
private struct TwoKeyTypes: Decodable, Equatable {
    var id: Int, title: String
    enum IDKeys: String, CodingKey { case id }
    enum TitleKeys: String, CodingKey { case title }
    init(id: Int, title: String) { self.id = id; self.title = title }
    init(from decoder: any Decoder) throws {
        id = try decoder.container(keyedBy: IDKeys.self).decode(Int.self, forKey: .id)
        title = try decoder.container(keyedBy: TitleKeys.self).decode(String.self, forKey: .title)
    }
}

/// A single-value wrapper and an optional between plain properties.
private struct Wrapped: Decodable, Equatable {
    struct Title: Decodable, Equatable {
        var text: String
        init(_ text: String) { self.text = text }
        init(from decoder: any Decoder) throws { text = try decoder.singleValueContainer().decode(String.self) }
    }
    var id: Int
    var title: Title
    var note: String?
    var done: Bool
}

@Suite struct FetchPathTests {
    @Test func keysDecodedConditionallyReadTheirOwnColumnsOnEveryRow() throws {
        let db = try Database()
        let rows = try db.rows(Conditional.self, """
            \(series(12)) CASE WHEN value % 3 = 0 THEN 'b' ELSE 'a' END AS kind, value AS a, -value AS b FROM g
            """).collect()
        #expect(rows == (1...12).map { $0 % 3 == 0 ? Conditional(kind: "b", value: -$0) : Conditional(kind: "a", value: $0) })
    }

    @Test func keysAskedInAnotherOrderOnSomeRowsReadTheirOwnColumns() throws {
        let db = try Database()
        let rows = try db.rows(Reordering.self, "\(series(9)) value AS id, value * 10 AS a, value * 100 AS b FROM g").collect()
        #expect(rows == (1...9).map { Reordering(id: $0, a: $0 * 10, b: $0 * 100) })
    }

    @Test(arguments: [false, true], [3, 40, 300])
    func computedAndStringKeysReadTheRightColumnsBeyondThePlanLimit(byName: Bool, count: Int) throws {
        let db = try Database()
        let columns = (0..<count).map { "value * \($0 + 1) AS c\($0)" }
        // The second query lists the columns backwards: the plan maps keys to columns by name.
        for list in [columns, columns.reversed()] {
            let statement = try db.makeStatement("\(series(4)) \(list.joined(separator: ", ")) FROM g")
            let rows = try statement.rows(Columns.self, userInfo: [countKey: count, byNameKey: byName]).collect()
            #expect(rows.map(\.values) == (1...4).map { v in (0..<count).map { v * ($0 + 1) } })
        }
    }

    @Test func twoKeyTypesOnOneRowEachGetTheirContainer() throws {
        let db = try makeTasks()
        let rows = try db.rows(TwoKeyTypes.self, "SELECT title, id FROM tasks ORDER BY id").collect()
        #expect(rows == [TwoKeyTypes(id: 1, title: "Clean Room"), TwoKeyTypes(id: 2, title: "Write Code"), TwoKeyTypes(id: 3, title: "Sleep")])
    }

    @Test func singleValueWrappersAndOptionalsKeepThePlanInStep() throws {
        let db = try Database()
        try db.execute("CREATE TABLE t(id INTEGER, title TEXT, note TEXT, done INTEGER)")
        try db.execute("INSERT INTO t VALUES (1, 'a', NULL, 0), (2, 'b', 'n', 1), (3, 'c', NULL, 1)")
        let rows = try db.rows(Wrapped.self, "SELECT * FROM t ORDER BY id").collect()
        #expect(rows == [Wrapped(id: 1, title: .init("a"), note: nil, done: false),
                         Wrapped(id: 2, title: .init("b"), note: "n", done: true),
                         Wrapped(id: 3, title: .init("c"), note: nil, done: true)])
        // Without the optional's column, and a missing non-optional column is still an error.
        let noNote = try db.rows(Wrapped.self, "SELECT id, title, done FROM t ORDER BY id").collect()
        #expect(noNote.map(\.note) == [nil, nil, nil])
        #expect(throws: DatabaseError.self) { try db.rows(Wrapped.self, "SELECT id, title FROM t").collect() }
    }

    @Test func columnReadersKeepTheirConversionsAndErrors() throws {
        let db = try Database()
        #expect(try db.value(String.self, "SELECT 42") == "42")
        #expect(try db.value(String.self, "SELECT 1.5") == "1.5")
        #expect(try db.value(Int.self, "SELECT 3.0") == 3)
        #expect(try db.value(Double.self, "SELECT 7") == 7)
        #expect(try db.value(Bool.self, "SELECT 0.5") == true)
        #expect(try db.value([UInt8].self, "SELECT 'ab'") == [0x61, 0x62])
        #expect(try db.value(Data.self, "SELECT x'0102'") == Data([1, 2]))
        #expect(try db.value(Int?.self, "SELECT NULL") == .some(nil))
        #expect(throws: DatabaseError.self) { try db.value(Int.self, "SELECT 3.5") }
        #expect(throws: DatabaseError.self) { try db.value(Int.self, "SELECT NULL") }
        #expect(throws: DatabaseError.self) { try db.value(String.self, "SELECT x'00'") }
        #expect(throws: DatabaseError.self) { try db.value(Int8.self, "SELECT 300") }
    }

    @Test func valueReturnsNilForNoRowAndLeavesTheCachedStatementReusableAfterErrors() throws {
        let path = NSTemporaryDirectory() + "streamqlite-fetchpath-\(UUID().uuidString).db"
        defer { try? FileManager.default.removeItem(atPath: path) }
        var config = Database.Configuration()
        config.busyTimeout = 0
        let db = try Database(path: path, configuration: config)
        try db.execute("CREATE TABLE tasks(id INTEGER PRIMARY KEY, title TEXT NOT NULL)")
        try db.execute("INSERT INTO tasks(title) VALUES ('Clean Room'), ('Write Code'), ('Sleep')")
        let other = try Database(path: path, configuration: config)
        let sql = "SELECT title FROM tasks WHERE id = ?"
        #expect(try db.value(String.self, sql, 2) == "Write Code")
        #expect(try db.value(String.self, sql, 99) == nil)
        do {
            _ = try db.value(Int.self, sql, 1)
            Issue.record("expected a decoding error")
        } catch let error as DatabaseError {
            #expect(error.column == "title")
            #expect(error.columnIndex == 0)
        }
        #expect(throws: DatabaseError.self) { try db.value(String.self, sql, 1, 2) }  // too many arguments
        #expect(throws: DatabaseError.self) { try db.value(Int.self, "SELECT abs(-9223372036854775807 - 1)") }  // fails in step
        #expect(try db.value(String.self, sql, 3) == "Sleep")
        // Every statement went back to the cache reset: no read lock is left, another connection can write.
        try other.execute("UPDATE tasks SET title = 'Nap' WHERE id = 3")
        #expect(try db.value(String.self, sql, 3) == "Nap")
    }

    @Test func theLastEntryCheckFollowsEvictionsAndClears() throws {
        var config = Database.Configuration()
        config.statementCacheCapacity = 2
        let db = try Database(configuration: config)
        let a = "SELECT 1", b = "SELECT 2", c = "SELECT 3"
        #expect(try db.value(Int.self, a) == 1)
        #expect(try db.value(Int.self, b) == 2)
        #expect(try db.value(Int.self, c) == 3)  // evicts a
        #expect(!db.isCached(a))
        #expect(try db.value(Int.self, a) == 1)  // evicts b
        #expect(try db.value(Int.self, a) == 1)  // the last entry: a hit
        let stats = db.cacheStatistics
        #expect((stats.hits, stats.misses, stats.evictions, stats.count) == (1, 4, 2, 2))
        db.clearStatementCache()
        #expect(!db.isCached(a))
        #expect(try db.value(Int.self, a) == 1)
        #expect(db.cacheStatistics.misses == 5)
        // The last entry in use: a nested query of the same SQL gets its own statement.
        let held = try db.cachedStatement(a)
        #expect(try db.value(Int.self, a) == 1)
        #expect(db.cacheStatistics.misses == 6)
        _ = held
    }

    @Test func aCachedStatementLeftMidStepIsResetOnItsNextCheckOut() throws {
        let db = try makeTasks()
        let sql = "SELECT title FROM tasks WHERE id >= ? ORDER BY id"
        #expect(try db.value(String.self, sql, 2) == "Write Code")  // value() leaves it reset
        let misses = db.cacheStatistics.misses
        do {
            let s = try db.cachedStatement(sql)  // the same statement, from the last entry
            try s.bind(1)
            #expect(try s.step())  // left mid-step on purpose
        }
        #expect(try db.value(String.self, sql, 3) == "Sleep")
        #expect(try db.values(String.self, sql, 1).collect() == ["Clean Room", "Write Code", "Sleep"])
        #expect(db.cacheStatistics.misses == misses)  // one statement all along
    }

    @Test func theDecoderStaysCorrectAcrossManyRowsAndCursors() throws {
        let db = try Database()
        let sql = "\(series(2000)) value AS id, 'task ' || value AS title, value % 2 AS done FROM g"
        for _ in 0..<2 {
            var n = 0
            try db.rows(Todo.self, sql).forEach { t in
                n += 1
                #expect(t == Todo(id: n, title: "task \(n)", done: n % 2 == 1))
            }
            #expect(n == 2000)
        }
    }
}
