import Foundation
import Testing
import StreamQLite

@Suite struct StatementCacheTests {
    func makeDB(capacity: Int) throws -> Database {
        var config = Database.Configuration()
        config.statementCacheCapacity = capacity
        return try Database(configuration: config)
    }

    @Test func theSameSQLIsAHitAndComesBackResetWithBindingsCleared() throws {
        let db = try makeDB(capacity: 4)
        let s1 = try db.cachedStatement("SELECT ?")
        try s1.bind(7)
        #expect(try s1.step())
        let handle = s1.handle
        _ = consume s1
        let s2 = try db.cachedStatement("SELECT ?")
        #expect(s2.handle == handle)
        let value = try s2.values(Int?.self).next()
        #expect(value == .some(nil))  // bindings cleared: NULL
        #expect(db.cacheStatistics.hits == 1)
        #expect(db.cacheStatistics.misses == 1)
    }

    /// A bulk insert's `INSERT … VALUES` statements come from the cache: the next write of
    /// the same shape (each file of an import of several, the next import) prepares none,
    /// and each gets its own values and file name (bindings cleared, the file bound again).
    @Test func bulkInsertStatementsComeFromTheCacheWithTheirOwnValues() throws {
        let db = try makeDB(capacity: 8)
        try db.execute("CREATE TABLE t(id INTEGER, title TEXT, file TEXT)")
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("sq-cache-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        for f in 0..<3 {
            // 120 rows: two statements of 50 rows, one of 20
            let lines = (0..<120).map { #"{"id": \#(f * 1000 + $0), "title": "f\#(f)-\#($0)"}"# }
            try Data(lines.joined(separator: "\n").utf8).write(to: dir.appendingPathComponent("p\(f).ndjson"))
        }
        let options = JSONImportOptions(layout: .ndjson, batchSize: 50, filenameColumn: "file")
        #expect(try db.importJSON(contentsOfFiles: [dir.path + "/p0.ndjson"], into: "t", options: options) == 120)
        let misses = db.cacheStatistics.misses, hits = db.cacheStatistics.hits
        #expect(try db.importJSON(contentsOfFiles: [dir.path + "/p*.ndjson"], into: "t", options: options) == 360)
        #expect(db.cacheStatistics.misses == misses)
        #expect(db.cacheStatistics.hits >= hits + 6)
        let wrong = try db.scalarText("""
            SELECT count(*) FROM t WHERE title <> 'f' || (id / 1000) || '-' || (id % 1000)
               OR file NOT LIKE '%/p' || (id / 1000) || '.ndjson'
            """)
        #expect(wrong == "0")
        #expect(try db.scalarText("SELECT count(*) || ' ' || count(DISTINCT file) FROM t") == "480 3")
    }

    @Test func theCacheNeverHoldsMoreThanItsCapacityAndEvictsTheLeastRecentlyUsed() throws {
        let db = try makeDB(capacity: 3)
        for i in 0..<3 { _ = try db.cachedStatement("SELECT \(i)") }
        _ = try db.cachedStatement("SELECT 0")  // 0 is now the most recent
        _ = try db.cachedStatement("SELECT 3")  // evicts 1
        #expect(db.cacheStatistics.count == 3)
        #expect(db.cacheStatistics.evictions == 1)
        #expect(db.isCached("SELECT 0"))
        #expect(!db.isCached("SELECT 1"))
        #expect(db.isCached("SELECT 2") && db.isCached("SELECT 3"))
        for i in 10..<50 { _ = try db.cachedStatement("SELECT \(i)") }
        #expect(db.cacheStatistics.count == 3)
        #expect(db.cacheStatistics.evictions == 41)
    }

    @Test func aNestedUseOfTheSameSQLGetsItsOwnStatement() throws {
        let db = try makeDB(capacity: 8)
        try db.execute("CREATE TABLE t(a); INSERT INTO t VALUES (1), (2), (3)")
        let sql = "SELECT a FROM t WHERE a >= ? ORDER BY a"
        let outer = try db.values(Int.self, sql, 1)
        var pairs: [String] = []
        while let a = try outer.next() {
            let inner = try db.values(Int.self, sql, a).collect()
            pairs.append("\(a):\(inner)")
        }
        #expect(pairs == ["1:[1, 2, 3]", "2:[2, 3]", "3:[3]"])
    }

    @Test func aZeroCapacityCacheCachesNothing() throws {
        let db = try makeDB(capacity: 0)
        _ = try db.cachedStatement("SELECT 1")
        _ = try db.cachedStatement("SELECT 1")
        #expect(db.cacheStatistics.misses == 2)
        #expect(db.cacheStatistics.count == 0)
    }

    @Test func aHeldStatementRerunsWithNewArgumentsWithoutTheCache() throws {
        let db = try makeDB(capacity: 8)
        try db.execute("CREATE TABLE t(a)")
        let insert = try db.makeStatement("INSERT INTO t VALUES (?)")
        for i in 0..<100 { try insert.execute(i) }
        #expect(try db.value(Int.self, "SELECT sum(a) FROM t") == 4950)
        #expect(!db.isCached("INSERT INTO t VALUES (?)"))
    }

    @Test func makeStatementRefusesASecondStatement() throws {
        let db = try Database()
        let error = try #require(throws: DatabaseError.self) { try db.makeStatement("SELECT 1; SELECT 2") }
        #expect(error.message.contains("one statement expected"))
    }
}

