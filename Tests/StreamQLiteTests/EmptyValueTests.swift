import Foundation
import Testing
@testable import StreamQLite

/// Empty values are values: '' is not NULL, `[]` is not `X''`, and every path agrees.
@Suite struct EmptyValueTests {
    let db: Database
    init() throws {
        db = try Database()
        try db.execute("CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT, tags JSON, bytes BLOB)")
    }

    struct Item: Codable, Equatable { var id: Int; var name: String; var tags: [String]; var bytes: [UInt8] }

    func stored() throws -> [[JSONTestValue]] {
        try jsonTestQuery(db, "SELECT id, name, tags, bytes FROM t ORDER BY id")
    }

    @Test func anEmptyStringArrayIsStoredAsAnEmptyJSONArrayNotAnEmptyBlob() throws {
        try db.insert(contentsOf: [Item(id: 1, name: "", tags: [], bytes: [])], into: "t")
        #expect(try stored() == [[.int(1), .text(""), .text("[]"), .blob([])]])
        #expect(try db.value(String.self, "SELECT typeof(tags) FROM t") == "text")
    }

    @Test func anEmptyArrayIsRefusedByATextColumnThatIsNotJSON() throws {
        try db.execute("CREATE TABLE plain(id INTEGER, tags TEXT)")
        struct Plain: Encodable { var id: Int; var tags: [String] }
        let error = #expect(throws: InsertError.self) { try db.insert(contentsOf: [Plain(id: 1, tags: [])], into: "plain") }
        #expect(error.map { "\($0)" }?.contains("tags") == true)
        #expect(try db.value(Int.self, "SELECT count(*) FROM plain") == 0)
    }

    @Test func anEmptyIntArrayIsRefusedByAnIntegerColumn() throws {
        try db.execute("CREATE TABLE ints(id INTEGER, n INTEGER)")
        struct Ints: Encodable { var id: Int; var n: [Int] }
        #expect(throws: InsertError.self) { try db.insert(contentsOf: [Ints(id: 1, n: [])], into: "ints") }
    }

    @Test func emptyStringsAndBlobsAreTheSameThroughExecuteInsertAndImport() throws {
        try db.execute("INSERT INTO t VALUES (?, ?, ?, ?)", 1, "", "[]", [UInt8]())
        try db.insert(contentsOf: [Item(id: 2, name: "", tags: [], bytes: [])], into: "t")
        try db.importJSON(bytes: Array(#"[{"id": 3, "name": "", "tags": []}]"#.utf8), into: "t")
        let rows = try stored()
        #expect(rows.map { Array($0[1...2]) } == Array(repeating: [.text(""), .text("[]")], count: 3))
        #expect(rows[0][3] == .blob([]) && rows[1][3] == .blob([]) && rows[2][3] == .null)
        // And they read back empty, not nil.
        #expect(try db.values(String.self, "SELECT name FROM t").collect() == ["", "", ""])
        #expect(try db.values([UInt8].self, "SELECT bytes FROM t WHERE id < 3").collect() == [[], []])
        #expect(try db.values(Data.self, "SELECT bytes FROM t WHERE id < 3").collect() == [Data(), Data()])
        #expect(try db.value(String?.self, "SELECT name FROM t WHERE id = 1") == .some(""))
    }

    @Test func aRowEncodableBindsEmptyTextAndBlobsAsEmptyValues() throws {
        struct R: RowEncodable {
            static let databaseColumns = ["id", "name", "bytes"]
            func bind(to row: inout RowBinder) throws { row.bind(1); row.bind(""); row.bind([UInt8]()) }
        }
        try db.insert(contentsOf: [R()], into: "t")
        #expect(try stored() == [[.int(1), .text(""), .null, .blob([])]])
    }

    @Test func anEmptyStringIsWrittenToJSONAsAnEmptyString() throws {
        try db.execute("INSERT INTO t(id, name) VALUES (1, '')")
        #expect(String(decoding: try db.jsonBytes("SELECT name FROM t"), as: UTF8.self) == #"[{"name":""}]"#)
    }
}
