import Foundation
import Testing
import StreamQLite

/// The same SQL after a schema change: SQLite re-prepares the cached statement, and
/// everything the library derived from its columns is derived again.
@Suite struct SchemaChangeTests {
    struct Person: Decodable, Equatable { var first: String; var last: String }

    func database() throws -> Database {
        let db = try Database()
        try db.execute("CREATE TABLE p(first TEXT, last TEXT)")
        try db.execute("INSERT INTO p VALUES ('Ada', 'Lovelace')")
        return db
    }

    @Test func decodableRowsFollowColumnsReorderedByDropAndCreate() throws {
        let db = try database()
        #expect(try db.rows(Person.self, "SELECT * FROM p").collect() == [Person(first: "Ada", last: "Lovelace")])
        try db.execute("DROP TABLE p")
        try db.execute("CREATE TABLE p(last TEXT, first TEXT)")
        try db.execute("INSERT INTO p(first, last) VALUES ('Grace', 'Hopper')")
        #expect(try db.rows(Person.self, "SELECT * FROM p").collect() == [Person(first: "Grace", last: "Hopper")])
    }

    @Test func rowsByNameFollowReorderedColumns() throws {
        let db = try database()
        func names() throws -> [String] {
            var out: [String] = []
            let cursor = try db.rows("SELECT * FROM p")
            while let row = try cursor.next() { out.append(try row["first"] as String) }
            return out
        }
        #expect(try names() == ["Ada"])
        try db.execute("DROP TABLE p")
        try db.execute("CREATE TABLE p(last TEXT, first TEXT)")
        try db.execute("INSERT INTO p(first, last) VALUES ('Grace', 'Hopper')")
        #expect(try names() == ["Grace"])
    }

    @Test func columnNamesIncludeAColumnAddedByAlterTable() throws {
        let db = try database()
        var cursor = try db.rows("SELECT * FROM p")
        #expect(try cursor.next()?.columnNames == ["first", "last"])
        cursor = try db.rows("SELECT 1")  // let the first statement go back to the cache
        try db.execute("ALTER TABLE p ADD COLUMN born INTEGER")
        cursor = try db.rows("SELECT * FROM p")
        let row = try #require(try cursor.next())
        #expect(row.count == 3)
        #expect(row.columnNames == ["first", "last", "born"])
    }

    @Test func streamedJSONFollowsTheNewColumns() throws {
        let db = try database()
        #expect(String(decoding: try db.jsonBytes("SELECT * FROM p"), as: UTF8.self) == #"[{"first":"Ada","last":"Lovelace"}]"#)
        try db.execute("ALTER TABLE p ADD COLUMN born INTEGER")
        try db.execute("UPDATE p SET born = 1815")
        #expect(String(decoding: try db.jsonBytes("SELECT * FROM p"), as: UTF8.self) == #"[{"first":"Ada","last":"Lovelace","born":1815}]"#)
    }

    @Test func aStatementYouHoldFollowsTheNewColumnsToo() throws {
        let db = try database()
        let statement = try db.makeStatement("SELECT * FROM p")
        #expect(try statement.rows(Person.self).collect() == [Person(first: "Ada", last: "Lovelace")])
        try db.execute("DROP TABLE p")
        try db.execute("CREATE TABLE p(last TEXT, first TEXT)")
        try db.execute("INSERT INTO p(first, last) VALUES ('Grace', 'Hopper')")
        #expect(try statement.rows(Person.self).collect() == [Person(first: "Grace", last: "Hopper")])
        #expect(statement.columnNames == ["last", "first"])
    }
}
