import Foundation
import Testing
@testable import StreamQLite

/// Errors that say what went wrong, where: counts, columns, SQL, positions.
@Suite struct ClearErrorTests {
    let db: Database
    init() throws {
        db = try Database()
        try db.execute("CREATE TABLE t(id INTEGER PRIMARY KEY, n INTEGER CHECK (n > 0), kind TEXT, r REAL)")
    }

    @Test func tooManyArgumentsNameBothCounts() throws {
        let error = #expect(throws: DatabaseError.self) { try db.execute("SELECT ?, ?", 1, 2, 3) }
        #expect(error?.message == "the statement has 2 parameters, 3 arguments given")
        let fewer = #expect(throws: DatabaseError.self) { try db.execute("SELECT ?, ?", 1) }
        #expect(fewer?.message == "the statement has 2 parameters, 1 argument given")
    }

    enum Kind: String, Codable { case alpha, beta }
    struct Item: Decodable { var id: Int; var kind: Kind }

    @Test func anUnknownEnumRawValueNamesTheColumnAndTheSQL() throws {
        try db.execute("INSERT INTO t(id, n, kind) VALUES (1, 1, 'gamma')")
        let sql = "SELECT id, kind FROM t"
        let error = #expect(throws: DatabaseError.self) { _ = try db.rows(Item.self, sql).collect() }
        #expect(error?.column == "kind")
        #expect(error?.sql == sql)
        #expect(error?.message.contains("gamma") == true)
    }

    @Test func aCheckViolationInABulkInsertNamesNoColumnButKeepsTheConstraint() throws {
        struct Row: Encodable { var id: Int; var n: Int }
        let error = #expect(throws: InsertError.self) {
            try db.insert(contentsOf: [Row(id: 1, n: 1), Row(id: 2, n: -1)], into: "t")
        }
        #expect(error?.row == 1)
        #expect(error?.column == nil)
        #expect(error?.message.contains("n > 0") == true)
        #expect(try db.value(Int.self, "SELECT count(*) FROM t") == 0)
        // A NOT NULL or UNIQUE violation still names its column.
        let unique = #expect(throws: InsertError.self) {
            try db.insert(contentsOf: [Row(id: 1, n: 1), Row(id: 1, n: 2)], into: "t")
        }
        #expect(unique?.column == "id")
    }

    @Test func strictImportRefusesANumberBeyondTheRangeOfAReal() throws {
        for json in [#"[{"id": 1, "r": 1e400}]"#, #"[{"id": 1, "r": "-1e400"}]"#] {
            let error = #expect(throws: Database.JSONImportError.self) {
                try db.importJSON(bytes: Array(json.utf8), into: "t", options: .init(strict: true))
            }
            #expect(error.map { "\($0)" }?.contains("1e400") == true, "\(json)")
        }
        #expect(try db.value(Int.self, "SELECT count(*) FROM t") == 0)
    }
}
