import Foundation
import Testing
import StreamQLite

/// A connection is released (and closed) when its last user lets go, whatever its cache holds.
@Suite struct LifetimeTests {
    /// A database with one row in `t`, released when the caller lets go.
    private func makeDatabase() throws -> Database {
        let db = try Database()
        try db.execute("CREATE TABLE t(a)")
        try db.execute("INSERT INTO t VALUES (?)", 1)
        return db
    }

    @Test func aDatabaseWithCachedStatementsIsReleasedWhenDropped() throws {
        weak var released: Database?
        try {
            let db = try makeDatabase()
            #expect(try db.value(Int.self, "SELECT count(*) FROM t") == 1)
            #expect(try db.rows(Int.self, "SELECT a FROM t").collect() == [1])
            #expect(db.cacheStatistics.count >= 3)
            released = db
        }()
        #expect(released == nil)
    }

    @Test func aCursorKeepsItsDatabaseOpenUntilItIsReleased() throws {
        weak var released: Database?
        var cursor: ValueCursor<Int>? = try {
            let db = try makeDatabase()
            released = db
            return try db.values(Int.self, "SELECT a FROM t")
        }()
        #expect(released != nil)
        #expect(try cursor?.next() == 1)
        #expect(try cursor?.next() == nil)
        cursor = nil
        #expect(released == nil)
    }

    @Test func aStatementYouMakeKeepsItsDatabaseAlive() throws {
        let statement = try makeDatabase().makeStatement("SELECT a FROM t")
        #expect(statement.database != nil)
        #expect(try statement.values(Int.self).collect() == [1])
    }

    @Test func aCachedStatementHeldPastItsDatabaseThrowsConnectionClosed() throws {
        let statement = try makeDatabase().cachedStatement("SELECT a FROM t")
        #expect(statement.database == nil)
        let error = #expect(throws: DatabaseError.self) { try statement.execute() }
        #expect(error?.message == "the connection is closed")
    }
}
