import CStreamQLite
import Foundation
import Testing
@testable import StreamQLite

/// Strings that stress the bulk insert's TEXT arena (SQLITE_STATIC binding): empty,
/// small (inline Swift strings), non-ASCII, longer than a word, than an arena block's
/// large-value threshold (16 KiB) and than a whole block (64 KiB).
private func arenaTitle(_ i: Int) -> String {
    switch i % 7 {
    case 0: return ""
    case 1: return "t\(i)"
    case 2: return "überlänge \(i) — ✓ 🚀"
    case 3: return String(repeating: "abcdefghij", count: 3) + "\(i)"
    case 4: return String(repeating: "x", count: 20_000) + "\(i)"
    case 5: return String(repeating: "é", count: 40_000) + "\(i)"
    default: return "task number \(i) with a longer title than fits inline"
    }
}

private struct ArenaRow: Encodable {
    var id: Int64
    var title: String
    var note: String?
}

private struct ArenaFastRow: RowEncodable {
    var id: Int64
    var title: String
    var note: String?
    static let databaseColumns = ["id", "title", "note"]
    func bind(to row: inout RowBinder) throws {
        row.bind(id)
        row.bind(title)
        row.bind(note)
    }
}

/// Custom coding keys with string raw values, declared in an order different from the table's.
private struct RenamedKeysRow: Encodable {
    var identifier: Int64
    var label: String
    var extra: Int
    enum CodingKeys: String, CodingKey {
        case label = "title"
        case identifier = "id"
        case extra
    }
}

/// Encodes its keys in an order that depends on the value, and leaves one out on odd rows.
private struct ShufflingRow: Encodable {
    var id: Int64
    var title: String
    var note: String?
    enum CodingKeys: String, CodingKey { case id, title, note }
    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        if id % 2 == 0 {
            try c.encode(note, forKey: .note)
            try c.encode(title, forKey: .title)
            try c.encode(id, forKey: .id)
        } else {
            try c.encode(id, forKey: .id)
            try c.encode(title, forKey: .title)
        }
    }
}

/// A key type that is not one byte of plain data (takes the by-name path).
private struct StringKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

private struct DynamicKeysRow: Encodable {
    var values: [(String, Int64)]
    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: StringKey.self)
        for (k, v) in values { try c.encode(v, forKey: StringKey(stringValue: k)) }
    }
}

private func texts(_ db: Database, _ sql: String) throws -> [[JSONTestValue]] {
    try jsonTestQuery(db, sql)
}

@Suite struct PerformancePathTests {
    let db: Database

    init() throws {
        db = try Database(path: ":memory:")
        try jsonTestExec(db, "CREATE TABLE t(id INTEGER PRIMARY KEY, title TEXT NOT NULL, note TEXT, extra INTEGER)")
    }

    private func expectRoundTrip(count: Int) throws {
        let rows = try texts(db, "SELECT id, title, note FROM t ORDER BY id")
        #expect(rows.count == count)
        for (i, row) in rows.enumerated() {
            #expect(row[0] == .int(Int64(i)))
            #expect(row[1] == .text(arenaTitle(i)), "row \(i)")
            #expect(row[2] == (i % 3 == 0 ? .null : .text(arenaTitle(i + 1))), "row \(i)")
        }
    }

    @Test(arguments: [1, 49, 50, 51, 120, 333])
    func encodableTextSurvivesTheBatchArena(count: Int) throws {
        let rows = (0..<count).map { ArenaRow(id: Int64($0), title: arenaTitle($0), note: $0 % 3 == 0 ? nil : arenaTitle($0 + 1)) }
        #expect(try db.insert(contentsOf: rows, into: "t", options: .init(columns: ["id", "title", "note"])) == count)
        try expectRoundTrip(count: count)
    }

    @Test(arguments: [1, 50, 51, 333])
    func rowEncodableTextSurvivesTheBatchArena(count: Int) throws {
        let rows = (0..<count).map { ArenaFastRow(id: Int64($0), title: arenaTitle($0), note: $0 % 3 == 0 ? nil : arenaTitle($0 + 1)) }
        #expect(try db.insert(contentsOf: rows, into: "t") == count)
        try expectRoundTrip(count: count)
    }

    @Test func smallBatchesRecycleTheArenaWithoutMixingValues() throws {
        let rows = (0..<257).map { ArenaRow(id: Int64($0), title: arenaTitle($0), note: $0 % 3 == 0 ? nil : arenaTitle($0 + 1)) }
        try db.insert(contentsOf: rows, into: "t", options: .init(columns: ["id", "title", "note"], batchSize: 3))
        try expectRoundTrip(count: 257)
    }

    @Test func aFailingBatchIsReplayedWithItsOwnTextValues() throws {
        try jsonTestExec(db, "CREATE UNIQUE INDEX t_title ON t(title)")
        var rows = (0..<120).map { ArenaRow(id: Int64($0), title: "unique \($0) " + String(repeating: "y", count: $0 * 50), note: nil) }
        rows[77].title = rows[12].title
        do {
            try db.insert(contentsOf: rows, into: "t")
            Issue.record("expected a constraint error")
        } catch let error as InsertError {
            #expect(error.row == 77)
        }
        #expect(try jsonTestCount(db, "t") == 0)
        rows[77].title = "fixed"
        #expect(try db.insert(contentsOf: rows, into: "t") == 120)
        #expect(try texts(db, "SELECT title FROM t WHERE id = 99")[0][0] == .text(rows[99].title))
    }

    @Test func customCodingKeysInAnotherOrderBindToTheirColumns() throws {
        let rows = (0..<120).map { RenamedKeysRow(identifier: Int64($0), label: "l\($0)", extra: $0 * 2) }
        try db.insert(contentsOf: rows, into: "t")
        let back = try texts(db, "SELECT id, title, extra FROM t ORDER BY id")
        #expect(back.count == 120)
        for (i, row) in back.enumerated() { #expect(row == [.int(Int64(i)), .text("l\(i)"), .int(Int64(i * 2))]) }
    }

    @Test func keysInChangingOrderAndMissingKeysStillBindCorrectly() throws {
        let rows = (0..<101).map { ShufflingRow(id: Int64($0), title: "s\($0)", note: "n\($0)") }
        try db.insert(contentsOf: rows, into: "t", options: .init(columns: ["id", "title", "note"]))
        let back = try texts(db, "SELECT id, title, note FROM t ORDER BY id")
        #expect(back.count == 101)
        for (i, row) in back.enumerated() {
            #expect(row == [.int(Int64(i)), .text("s\(i)"), i % 2 == 0 ? .text("n\(i)") : .null], "row \(i)")
        }
    }

    @Test func nonEnumKeysTakeTheByNamePath() throws {
        let rows = (0..<60).map { DynamicKeysRow(values: $0 % 2 == 0 ? [("id", Int64($0)), ("extra", 7)] : [("extra", 8), ("id", Int64($0))]) }
        try jsonTestExec(db, "CREATE TABLE d(id INTEGER PRIMARY KEY, extra INTEGER)")
        try db.insert(contentsOf: rows, into: "d")
        let back = try texts(db, "SELECT id, extra FROM d ORDER BY id")
        #expect(back.count == 60)
        for (i, row) in back.enumerated() { #expect(row == [.int(Int64(i)), .int(i % 2 == 0 ? 7 : 8)]) }
    }

    @Test func anUnknownKeyIsStillAnErrorAfterTheKeyMemoLearnedTheOthers() throws {
        struct Row: Encodable {
            var id: Int64
            var bogus: Int?
            enum CodingKeys: String, CodingKey { case id, bogus }
            func encode(to encoder: any Encoder) throws {
                var c = encoder.container(keyedBy: CodingKeys.self)
                try c.encode(id, forKey: .id)
                if let bogus { try c.encode(bogus, forKey: .bogus) }
            }
        }
        let rows = (0..<10).map { Row(id: Int64($0), bogus: $0 == 7 ? 1 : nil) }
        do {
            try db.insert(contentsOf: rows, into: "t", options: .init(columns: ["id", "note"]))
            Issue.record("expected an error")
        } catch let error as InsertError {
            #expect(error.row == 7)
            #expect(error.column == "bogus")
        }
        #expect(try jsonTestCount(db, "t") == 0)
    }

    // MARK: JSON writer: escapes at every position of an 8-byte word

    @Test func escapesAreFoundAtEveryWordOffset() throws {
        let specials: [String] = ["\"", "\\", "\n", "\u{01}", "\u{1F}", "é", "\u{2028}", "\u{7F}", " ", "~"]
        var values: [String] = []
        for s in specials {
            for prefix in 0..<17 {
                values.append(String(repeating: "a", count: prefix) + s + String(repeating: "b", count: 17 - prefix))
            }
        }
        values.append(String(repeating: "0123456789abcdef", count: 5000))  // longer than a 64 KiB chunk
        try jsonTestExec(db, "CREATE TABLE s(v TEXT)")
        try db.transaction {
            for v in values { try db.execute("INSERT INTO s(v) VALUES (?)", v) }
        }
        let ours = try db.jsonBytes("SELECT v FROM s ORDER BY rowid", options: .init(chunkSize: 4096))
        let parsed = try #require(try JSONSerialization.jsonObject(with: Data(ours)) as? [[String: String]])
        #expect(parsed.map { $0["v"]! } == values)
        // json_group_array escapes the same way except for U+2028/U+2029 and DEL (not escaped by SQLite).
        let sqlite = try jsonTestQuery(db, "SELECT json_group_array(json_object('v', v)) FROM (SELECT v FROM s ORDER BY rowid)")
        let plain = try db.jsonBytes("SELECT v FROM s ORDER BY rowid", options: .init(escapeLineSeparators: false))
        #expect(sqlite[0][0] == .text(String(decoding: plain, as: UTF8.self)))
    }

    // MARK: Import: the inline integer reader

    @Test func importReadsIntegersOfEveryLengthExactly() throws {
        try jsonTestExec(db, "CREATE TABLE n(id INTEGER PRIMARY KEY, v INTEGER, r REAL, s TEXT)")
        let values: [Int64] = [0, -0, 1, -1, 9, 10, 99, 12345, -98765, 999_999_999_999_999_999, -99_999_999_999_999_999,
                               Int64.max, Int64.min, 1_000_000_000_000_000_000, -1_000_000_000_000_000_000]
        var json = "["
        for (i, v) in values.enumerated() {
            if i > 0 { json += "," }
            json += "{\"id\":\(i),\"v\":\(v),\"r\":\(v),\"s\":\(v)}"
        }
        json += ",{\"id\":100,\"s\":-0}]"
        try db.importJSON(bytes: Array(json.utf8), into: "n")
        let back = try jsonTestQuery(db, "SELECT v, r, s FROM n ORDER BY id")
        for (i, v) in values.enumerated() {
            #expect(back[i] == [.int(v), .real(Double(v)), .text("\(v)")], "value \(v)")
        }
        #expect(back.last == [.null, .null, .text("-0")])
        // a negative zero into a numeric column is an error (SQLite keeps no sign on a zero)
        #expect(throws: Database.JSONImportError.self) { try db.importJSON(bytes: Array(#"[{"id":101,"v":-0}]"#.utf8), into: "n") }
    }
}
