import Foundation
import Testing
import StreamQLite

@Suite struct DecodingErrorTests {
    let db: Database
    init() throws { db = try Database() }

    @Test func wrongSQLCarriesTheMessageCodeAndSQL() throws {
        let error = try #require(throws: DatabaseError.self) { try db.execute("SELEKT 1") }
        #expect(error.code == 1)
        #expect(error.message == #"near "SELEKT": syntax error"#)
        #expect(error.sql == "SELEKT 1")
        #expect(error.description.hasPrefix("SQLite error 1 (SQL logic error): near \"SELEKT\": syntax error — in: SELEKT 1"))
    }

    @Test func constraintErrorsCarryTheExtendedCode() throws {
        try db.execute("CREATE TABLE t(a UNIQUE)")
        try db.execute("INSERT INTO t VALUES (1)")
        let error = try #require(throws: DatabaseError.self) { try db.execute("INSERT INTO t VALUES (1)") }
        #expect(error.code == 19)  // SQLITE_CONSTRAINT
        #expect(error.extendedCode == 2067)  // SQLITE_CONSTRAINT_UNIQUE
        #expect(error.message.contains("UNIQUE constraint failed: t.a"))
    }

    @Test func aMissingColumnForANonOptionalPropertyNamesTheColumnAndType() throws {
        let error = try #require(throws: DatabaseError.self) { try db.rows(Todo.self, "SELECT 1 AS id, 'x' AS title").collect() }
        #expect(error.column == "done")
        #expect(error.expectedType == "Bool")
        #expect(error.description.contains("column done as Bool: no such column in the result (columns: id, title)"))
    }

    @Test func nullIntoANonOptionalNamesTheColumnIndexAndType() throws {
        let error = try #require(throws: DatabaseError.self) { try db.rows(Todo.self, "SELECT 1 AS id, NULL AS title, 0 AS done").collect() }
        #expect(error.column == "title" && error.columnIndex == 1 && error.expectedType == "String")
        #expect(error.message == "expected TEXT, found NULL")
        #expect(error.sql == "SELECT 1 AS id, NULL AS title, 0 AS done")
    }

    @Test func integerOverflowIntoInt32IsAnErrorNotATrapOrATruncation() throws {
        struct Small: Decodable { var n: Int32 }
        let error = try #require(throws: DatabaseError.self) { try db.rows(Small.self, "SELECT 4294967296 AS n").collect() }
        #expect(error.message == "integer 4294967296 overflows Int32")
        #expect(error.column == "n")
        #expect(throws: DatabaseError.self) { try db.value(UInt8.self, "SELECT -1") }
    }

    @Test func textThatIsNotADateIsAnError() throws {
        struct Event: Decodable { var at: Date }
        let error = try #require(throws: DatabaseError.self) { try db.rows(Event.self, "SELECT 'next tuesday' AS at").collect() }
        #expect(error.message == "not a valid date: 'next tuesday'")
        #expect(error.column == "at" && error.expectedType == "Date")
        #expect(throws: DatabaseError.self) { try db.value(Date.self, "SELECT '2024-02-30'") }
    }

    @Test func textIntoAnIntegerIsAnErrorShowingTheValue() throws {
        let error = try #require(throws: DatabaseError.self) { try db.value(Int.self, "SELECT 'abc'") }
        #expect(error.message == "expected INTEGER, found TEXT 'abc'")
        #expect(error.columnIndex == 0)
    }

    @Test func anUnknownEnumRawValueIsAnError() throws {
        let error = try #require(throws: DatabaseError.self) { try db.value(Color.self, "SELECT 'blue'") }
        #expect(error.message.contains("'blue' is not a raw value of Color"))
    }

    @Test func rowByNameOfAMissingColumnListsTheColumns() throws {
        let row = try #require(try db.rows("SELECT 1 AS a").next())
        let error = try #require(throws: DatabaseError.self) { try row["b"] as Int }
        #expect(error.column == "b" && error.message.contains("columns: a"))
    }

    @Test func runtimeErrorsStopTheCursorAndResetTheStatement() throws {
        let cursor = try db.values(Int.self, "SELECT 1 UNION ALL SELECT 'x'")
        #expect(try cursor.next() == 1)
        #expect(throws: DatabaseError.self) { try cursor.next() }
        #expect(try cursor.next() == nil)
    }
}
