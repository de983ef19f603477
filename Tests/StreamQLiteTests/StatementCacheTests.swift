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

