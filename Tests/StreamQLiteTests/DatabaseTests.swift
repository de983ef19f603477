import Foundation
import Testing
import StreamQLite

func tempPath(_ name: String = #function) -> String {
    NSTemporaryDirectory() + "streamqlite-\(UUID().uuidString).db"
}

@Suite struct DatabaseTests {
    @Test func executeRunsAMultiStatementScriptAndBindsTheLastStatement() throws {
        let db = try Database()
        try db.execute("""
            CREATE TABLE t(a INTEGER, b TEXT); -- a comment
            INSERT INTO t VALUES (1, 'one');
            INSERT INTO t VALUES (?, ?);
            """, 2, "two")
        let cursor = try db.tuples(Int.self, String.self, sql: "SELECT a, b FROM t ORDER BY a")
        var seen: [String] = []
        while let pair = try cursor.next() { seen.append("\(pair.0)\(pair.1)") }
        #expect(seen == ["1one", "2two"])
    }

    @Test func argumentsForAnEarlierScriptStatementAreRefused() throws {
        let db = try Database()
        try db.execute("CREATE TABLE t(a)")
        #expect(throws: DatabaseError.self) { try db.execute("INSERT INTO t VALUES (?); INSERT INTO t VALUES (2)", 1) }
    }

    @Test func lastInsertRowIDAndChangesReportTheLastStatement() throws {
        let db = try Database()
        try db.execute("CREATE TABLE t(id INTEGER PRIMARY KEY, a)")
        try db.execute("INSERT INTO t(a) VALUES (?)", 10)
        #expect(db.lastInsertRowID == 1)
        try db.execute("INSERT INTO t(a) VALUES (20), (30)")
        #expect(db.changes == 2)
        try db.execute("UPDATE t SET a = a + 1")
        #expect(db.changes == 3)
        #expect(db.totalChanges == 6)
    }

    @Test func transactionCommitsWhenTheBodyReturns() throws {
        let db = try Database()
        try db.execute("CREATE TABLE t(a)")
        try db.transaction { try db.execute("INSERT INTO t VALUES (1)") }
        #expect(try db.value(Int.self, "SELECT count(*) FROM t") == 1)
        #expect(db.isAutocommit)
    }

    @Test func transactionRollsBackWhenTheBodyThrows() throws {
        struct Boom: Error {}
        let db = try Database()
        try db.execute("CREATE TABLE t(a)")
        #expect(throws: Boom.self) {
            try db.transaction {
                try db.execute("INSERT INTO t VALUES (1)")
                throw Boom()
            }
        }
        #expect(try db.value(Int.self, "SELECT count(*) FROM t") == 0)
        #expect(db.isAutocommit)
    }

    @Test func nestedTransactionsAreSavepointsThatRollBackAlone() throws {
        struct Boom: Error {}
        let db = try Database()
        try db.execute("CREATE TABLE t(a)")
        try db.transaction {
            try db.execute("INSERT INTO t VALUES (1)")
            try? db.transaction {
                try db.execute("INSERT INTO t VALUES (2)")
                throw Boom()
            }
            try db.transaction { try db.execute("INSERT INTO t VALUES (3)") }
        }
        #expect(try db.values(Int.self, "SELECT a FROM t ORDER BY a").collect() == [1, 3])
    }

    @Test func readOnlyConnectionsRefuseWrites() throws {
        let path = tempPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Database(path: path).execute("CREATE TABLE t(a)")
        let ro = try Database(path: path, flags: .readOnly)
        let error = try #require(throws: DatabaseError.self) { try ro.execute("INSERT INTO t VALUES (1)") }
        #expect(error.code == 8)  // SQLITE_READONLY
        #expect(error.message.contains("readonly"))
    }

    @Test func openingAMissingFileWithoutCreateFailsWithThePath() throws {
        let error = try #require(throws: DatabaseError.self) { try Database(path: "/nonexistent/dir/x.db", flags: .readWrite) }
        #expect(error.message.contains("/nonexistent/dir/x.db"))
    }

    @Test func uriFlagOpensASharedInMemoryDatabase() throws {
        let uri = "file:shared-\(UUID().uuidString)?mode=memory&cache=shared"
        let a = try Database(path: uri, flags: [.readWrite, .create, .uri])
        try a.execute("CREATE TABLE t(a); INSERT INTO t VALUES (42)")
        let b = try Database(path: uri, flags: [.readWrite, .uri])
        #expect(try b.value(Int.self, "SELECT a FROM t") == 42)
    }

    @Test func everyUseOfAClosedConnectionThrowsInsteadOfTrapping() throws {
        let db = try Database()
        try db.execute("CREATE TABLE t(a)")
        let held = try db.makeStatement("INSERT INTO t VALUES (?)")
        _ = try db.cachedStatement("SELECT a FROM t")
        try db.closeConnection()
        #expect(db.isClosed)
        #expect(db.cacheStatistics.count == 0)
        let error = try #require(throws: DatabaseError.self) { try db.execute("SELECT 1") }
        #expect(error.message == "the connection is closed")
        #expect(throws: DatabaseError.self) { try held.execute(1) }
        #expect(throws: DatabaseError.self) { try db.rows("SELECT 1") }
        try db.closeConnection()  // twice is fine
    }

    @Test func interruptStopsALongQuery() throws {
        let db = try Database()
        try db.createFunction("tick", argumentCount: 1) { (args: Database.FunctionArguments) -> Int in
            let i: Int = try args[0]
            if i == 1000 { db.interrupt() }
            return i
        }
        let error = try #require(throws: DatabaseError.self) {
            try db.values(Int.self, "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 10000000) SELECT tick(i) FROM n").collect()
        }
        #expect(error.code == 9)  // SQLITE_INTERRUPT
    }

    @Test func busyTimeoutLetsAWriterWaitAndThenFailWithBusy() throws {
        let path = tempPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        var config = Database.Configuration()
        config.busyTimeout = 0.05
        let a = try Database(path: path, configuration: config)
        let b = try Database(path: path, configuration: config)
        try a.execute("CREATE TABLE t(a)")
        try a.execute("BEGIN IMMEDIATE")
        let start = Date()
        let error = try #require(throws: DatabaseError.self) { try b.execute("INSERT INTO t VALUES (1)") }
        #expect(error.code == 5)  // SQLITE_BUSY
        #expect(Date().timeIntervalSince(start) >= 0.04)
        try a.execute("COMMIT")
    }

    @Test func loadingExtensionsIsRefusedUnlessEnabled() throws {
        let db = try Database()
        let error = try #require(throws: DatabaseError.self) { try db.loadExtension("/nonexistent.so") }
        #expect(error.message.contains("disabled"))
        var config = Database.Configuration()
        config.allowsExtensionLoading = true
        let db2 = try Database(configuration: config)
        let error2 = try #require(throws: DatabaseError.self) { try db2.loadExtension("/nonexistent/ext.so") }
        #expect(error2.message.contains("/nonexistent/ext.so"))
    }
}
