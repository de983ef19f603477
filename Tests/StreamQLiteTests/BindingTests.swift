import Foundation
import Testing
import StreamQLite

enum Color: String, DatabaseValueConvertible, Codable { case red, green }
enum Level: Int, DatabaseValueConvertible, Codable { case low = 1, high = 2 }

struct Cents: DatabaseValueConvertible, Equatable {
    var value: Int64
    var databaseValue: DatabaseValue { .integer(value) }
    static func fromDatabaseValue(_ v: DatabaseValue) -> Cents? {
        if case .integer(let i) = v { Cents(value: i) } else { nil }
    }
}

@Suite struct BindingTests {
    let db: Database
    init() throws { db = try Database() }

    func roundTrip<T: DatabaseValueConvertible>(_ value: T, sourceLocation: SourceLocation = #_sourceLocation) throws -> (T, String) {
        let cursor = try db.rows("SELECT ?, typeof(?1)", value)
        let row = try #require(try cursor.next(), sourceLocation: sourceLocation)
        return (try row[0], try row[1])
    }

    @Test func everyBuiltInTypeBindsWithItsStorageClassAndReadsBack() throws {
        #expect(try roundTrip(42) == (42, "integer"))
        #expect(try roundTrip(Int8(-8)) == (-8, "integer"))
        #expect(try roundTrip(Int16(300)) == (300, "integer"))
        #expect(try roundTrip(Int32.min) == (Int32.min, "integer"))
        #expect(try roundTrip(Int64.max) == (Int64.max, "integer"))
        #expect(try roundTrip(UInt8(255)) == (255, "integer"))
        #expect(try roundTrip(UInt32.max) == (UInt32.max, "integer"))
        #expect(try roundTrip(2.5) == (2.5, "real"))
        #expect(try roundTrip(Float(1.5)) == (1.5, "real"))
        #expect(try roundTrip(true) == (true, "integer"))
        #expect(try roundTrip("héllo\u{0}x") == ("héllo\u{0}x", "text"))
        #expect(try roundTrip("") == ("", "text"))
        #expect(try roundTrip([UInt8]([0, 255, 1])) == ([0, 255, 1], "blob"))
        #expect(try roundTrip([UInt8]()) == ([], "blob"))
        #expect(try roundTrip(Data([1, 2])) == (Data([1, 2]), "blob"))
        let uuid = UUID()
        #expect(try roundTrip(uuid) == (uuid, "text"))
        let date = Date(timeIntervalSince1970: 1_714_564_800.25)
        #expect(try roundTrip(date) == (date, "text"))
        #expect(try roundTrip(Color.green) == (.green, "text"))
        #expect(try roundTrip(Level.high) == (.high, "integer"))
        #expect(try roundTrip(Cents(value: 250)) == (Cents(value: 250), "integer"))
        #expect(try roundTrip(Int?.none) == (nil, "null"))
        #expect(try roundTrip(String?.some("x")) == ("x", "text"))
    }

    @Test func datesAreStoredInSQLiteFormatReadableByDateFunctions() throws {
        let date = Date(timeIntervalSince1970: 1_714_564_800)  // 2024-05-01 12:00:00 UTC
        #expect(try db.value(String.self, "SELECT ?", date) == "2024-05-01 12:00:00.000")
        #expect(try db.value(String.self, "SELECT date(?)", date) == "2024-05-01")
        #expect(try db.value(Date.self, "SELECT '2024-05-01T14:00:00+02:00'") == date)
        #expect(try db.value(Date.self, "SELECT '2024-05-01'") == Date(timeIntervalSince1970: 1_714_521_600))
        #expect(try db.value(Date.self, "SELECT 1714564800") == date)
    }

    @Test func namedParametersBindWithEveryPrefix() throws {
        let row = try #require(try db.rows("SELECT :a, @b, $c", arguments: [":a": 1, "b": "two", "$c": nil]).next())
        #expect(try row[0] as Int == 1)
        #expect(try row[1] as String == "two")
        #expect(row.isNull(2))
        let statement = try db.makeStatement("SELECT :x + @y")
        try statement.bind(2, named: "x")
        try statement.bind(3, named: "@y")
        #expect(try statement.values(Int.self).next() == 5)
    }

    @Test func positionalArgumentsCanBeAnArrayWithNil() throws {
        let row = try #require(try db.rows("SELECT ?, ?", arguments: [1, nil]).next())
        #expect(try row[0] as Int == 1 && row.isNull(1))
    }

    @Test func aWrongArgumentCountIsAnErrorNamingBothCounts() throws {
        let error = try #require(throws: DatabaseError.self) { try db.execute("SELECT ?, ?", 1) }
        #expect(error.message == "the statement has 2 parameters, 1 argument given")
        #expect(error.sql == "SELECT ?, ?")
        let e2 = try #require(throws: DatabaseError.self) { try db.execute("SELECT :a", arguments: ["b": 1]) }
        #expect(e2.message.contains("missing argument for parameter :a"))
    }

    @Test func argumentsAppearInErrorsOnlyWhenTheConnectionOptsIn() throws {
        try db.execute("CREATE TABLE t(a UNIQUE)")
        try db.execute("INSERT INTO t VALUES (?)", arguments: ["secret"])
        let e1 = try #require(throws: DatabaseError.self) { try db.execute("INSERT INTO t VALUES (?)", arguments: ["secret"]) }
        #expect(e1.arguments == nil && !e1.description.contains("secret"))
        var config = Database.Configuration()
        config.publicStatementArguments = true
        let open = try Database(configuration: config)
        let e2 = try #require(throws: DatabaseError.self) { try open.execute("SELECT ?", arguments: [1, "x"]) }
        #expect(e2.description.contains("arguments: [1, 'x']"))
    }

    @Test func uint64AboveInt64MaxIsRefusedNotWrapped() throws {
        #expect(throws: DatabaseError.self) { try db.execute("SELECT ?", UInt64.max) }
    }
}
