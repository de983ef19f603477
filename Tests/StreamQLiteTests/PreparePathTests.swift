import CStreamQLite
import Foundation
import Testing
@testable import StreamQLite

/// SQLite calls the authorizer while it compiles a statement: counting its INSERT
/// callbacks counts how often an INSERT was prepared.
nonisolated(unsafe) private var insertCompilations = 0
private let countingAuthorizer: @convention(c) (UnsafeMutableRawPointer?, Int32, UnsafePointer<CChar>?,
                                                UnsafePointer<CChar>?, UnsafePointer<CChar>?, UnsafePointer<CChar>?) -> Int32 = {
    _, action, _, _, _, _ in
    if action == SQLITE_INSERT { insertCompilations += 1 }
    return SQLITE_OK
}

/// `execute` prepares SQL once, and a prepare error is the error you get, with the SQL.
@Suite(.serialized) struct PreparePathTests {
    @Test func executeOfOneStatementPreparesItOnceAndCachesIt() throws {
        let db = try Database()
        try db.execute("CREATE TABLE t(a)")
        sqlite3_set_authorizer(db.handle, countingAuthorizer, nil)
        defer { sqlite3_set_authorizer(db.handle, nil, nil) }
        insertCompilations = 0
        try db.execute("INSERT INTO t VALUES (?)", 1)
        #expect(insertCompilations == 1)
        try db.execute("INSERT INTO t VALUES (?)", 2)  // from the cache: no compilation
        #expect(insertCompilations == 1)
        #expect(db.isCached("INSERT INTO t VALUES (?)"))
    }

    @Test func aScriptPreparesEachStatementOnceInOrder() throws {
        let db = try Database()
        try db.execute("CREATE TABLE t(a)")
        sqlite3_set_authorizer(db.handle, countingAuthorizer, nil)
        defer { sqlite3_set_authorizer(db.handle, nil, nil) }
        insertCompilations = 0
        try db.execute("INSERT INTO t VALUES (1); INSERT INTO t VALUES (?)", 2)
        #expect(insertCompilations == 2)
        #expect(try db.values(Int.self, "SELECT a FROM t ORDER BY a").collect() == [1, 2])
    }

    @Test func aPrepareErrorIsThrownWithTheSQL() throws {
        let db = try Database()
        let sql = "INSERT INTO missing VALUES (1)"
        let error = #expect(throws: DatabaseError.self) { try db.execute(sql) }
        #expect(error?.message.contains("no such table: missing") == true)
        #expect(error?.sql == sql)
        #expect(throws: DatabaseError.self) { try db.execute("CREATE TABLE u(a); SELEC 1") }
        #expect(try db.value(Int.self, "SELECT count(*) FROM sqlite_master WHERE name = 'u'") == 1)
    }

    @Test func blankSQLRunsNothing() throws {
        let db = try Database()
        try db.execute("  -- nothing\n ")
    }
}
