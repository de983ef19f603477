import Foundation
import Testing
import StreamQLite

/// After `closeConnection()` nothing runs: not a statement you made, not a cached one,
/// not a cursor opened before — and nothing reaches the file.
@Suite struct ClosedConnectionTests {
    let path: String

    init() throws {
        path = FileManager.default.temporaryDirectory
            .appendingPathComponent("sq-closed-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).sqlite").path
        let db = try Database(path: path)
        try db.execute("CREATE TABLE t(a INTEGER)")
        try db.execute("INSERT INTO t VALUES (1), (2)")
    }

    func expectClosed(_ sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void) {
        let error = #expect(throws: DatabaseError.self, sourceLocation: sourceLocation) { try body() }
        #expect(error?.message == "the connection is closed", sourceLocation: sourceLocation)
    }

    @Test func aStatementMadeBeforeCloseDoesNotWriteTheFile() throws {
        let db = try Database(path: path)
        let insert = try db.makeStatement("INSERT INTO t VALUES (?)")
        try db.closeConnection()
        expectClosed { try insert.execute(99) }
        expectClosed { _ = try insert.step() }
        let reopened = try Database(path: path)
        #expect(try reopened.value(Int.self, "SELECT count(*) FROM t WHERE a = 99") == 0)
        try? FileManager.default.removeItem(atPath: path)
    }

    @Test func cursorsAndCachedStatementsStopAtClose() throws {
        let db = try Database(path: path)
        let cursor = try db.values(Int.self, "SELECT a FROM t ORDER BY a")
        let cached = try db.cachedStatement("SELECT a FROM t")
        let rows = try db.rows("SELECT a FROM t")
        try db.closeConnection()
        expectClosed { _ = try cursor.next() }
        expectClosed { _ = try rows.next() }
        expectClosed { _ = try cached.values(Int.self).collect() }
        expectClosed { _ = try cached.step() }
        expectClosed { _ = try db.value(Int.self, "SELECT 1") }
        try? FileManager.default.removeItem(atPath: path)
    }
}
