import CSQLite
import Foundation
import Testing
@testable import StreamQLite

/// Faults that come from the caller's code, not from SQLite: an error thrown by a `Decodable`
/// or `Encodable` in the middle of a stream, a cancelled task, a consumer that drops a
/// stream of chunks. After each: no statement left running on the connection (a busy
/// statement holds a read transaction and blocks checkpoints), no transaction left open,
/// the connection usable, and the pool's readers all given back.
@Suite struct FaultsAboveSQLiteTests {
    /// The statements of `db` that are still running (stepped, not reset).
    static func busyStatements(_ db: Database) -> [String] {
        var busy: [String] = []
        var s = sqlite3_next_stmt(db.handle, nil)
        while let stmt = s {
            if sqlite3_stmt_busy(stmt) != 0 { busy.append(String(cString: sqlite3_sql(stmt))) }
            s = sqlite3_next_stmt(db.handle, stmt)
        }
        return busy
    }

    static func expectClean(_ db: Database, _ what: Comment) throws {
        #expect(busyStatements(db).isEmpty, "\(what): statements left running: \(busyStatements(db))")
        #expect(sqlite3_get_autocommit(db.handle) != 0, "\(what): a transaction left open")
        #expect(try db.value(Int.self, "SELECT 40 + 2") == 42, "\(what): the connection is not usable")
    }

    static let rows = 100_000

    static func makeDatabase() throws -> Database {
        let db = try Database()
        try db.execute("CREATE TABLE t(id INTEGER PRIMARY KEY, title TEXT, done INTEGER)")
        try db.execute("""
            WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < ?)
            INSERT INTO t SELECT i, 'task ' || i, i % 2 FROM c
            """, rows)
        return db
    }

    struct Failure: Error {}

    /// Decodes until the row whose id is `failAt`, then throws.
    struct Picky: Decodable {
        nonisolated(unsafe) static var failAt = Int.max
        let id: Int
        let title: String
        let done: Bool
        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            id = try c.decode(Int.self, forKey: .id)
            if id == Picky.failAt { throw Failure() }
            title = try c.decode(String.self, forKey: .title)
            done = try c.decode(Bool.self, forKey: .done)
        }
        enum CodingKeys: String, CodingKey { case id, title, done }
    }

    @Test func aDecodableThrowingOnTheLastRowLeavesNothingRunning() throws {
        let db = try Self.makeDatabase()
        Picky.failAt = Self.rows
        defer { Picky.failAt = Int.max }
        var seen = 0
        #expect(throws: Failure.self) {
            try db.rows(Picky.self, "SELECT id, title, done FROM t ORDER BY id").forEach { _ in seen += 1 }
        }
        #expect(seen == Self.rows - 1)
        try Self.expectClean(db, "after a throwing Decodable")
        // Inside a transaction of the caller's: the transaction is rolled back, not left open.
        #expect(throws: Failure.self) {
            try db.transaction {
                try db.execute("DELETE FROM t WHERE id <= 10")
                _ = try db.rows(Picky.self, "SELECT id, title, done FROM t ORDER BY id").collect()
            }
        }
        try Self.expectClean(db, "after a throwing Decodable in a transaction")
        #expect(try db.value(Int.self, "SELECT count(*) FROM t") == Self.rows)
    }

    /// Encodes until the element whose id is `failAt`, then throws.
    struct Refusing: Encodable {
        let id: Int
        let failAt: Int
        func encode(to encoder: any Encoder) throws {
            if id == failAt { throw Failure() }
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(id, forKey: .id)
            try c.encode("new \(id)", forKey: .title)
        }
        enum CodingKeys: String, CodingKey { case id, title }
    }

    @Test func anEncodableThrowingMidInsertStoresNothing() throws {
        let db = try Database()
        try db.execute("CREATE TABLE n(id INTEGER PRIMARY KEY, title TEXT)")
        let rows = (1...20_000).map { Refusing(id: $0, failAt: 12_345) }
        #expect(throws: (any Error).self) { try db.insert(contentsOf: rows, into: "n") }
        try Self.expectClean(db, "after a throwing Encodable")
        #expect(try db.value(Int.self, "SELECT count(*) FROM n") == 0)
        // The same insert inside the caller's transaction: only its own rows go.
        try db.transaction {
            try db.execute("INSERT INTO n VALUES (0, 'mine')")
            #expect(throws: (any Error).self) { try db.insert(contentsOf: rows, into: "n") }
        }
        try Self.expectClean(db, "after a throwing Encodable in a transaction")
        #expect(try db.value(Int.self, "SELECT count(*) FROM n") == 1)
    }

    /// A read on the pool, or nil when it has not finished within `seconds`.
    static func readWithin(_ pool: DatabasePool, seconds: Double) async throws -> Int? {
        try await withThrowingTaskGroup(of: Int?.self) { group in
            group.addTask { try await pool.read { db in try db.value(Int.self, "SELECT count(*) FROM t") } }
            group.addTask { try await Task.sleep(nanoseconds: UInt64(seconds * 1e9)); return nil }
            defer { group.cancelAll() }
            return try await group.next() ?? nil
        }
    }

    @Test func aDroppedStreamOfChunksGivesItsReaderBack() async throws {
        let (pool, _) = try await DatabasePoolTests().makePool(readers: 1, rows: 50_000)
        do {
            var chunks = pool.jsonChunks("SELECT id, title FROM t ORDER BY id",
                                         options: JSONWriterOptions(chunkSize: 512), chunksAhead: 2,
                                         stallTimeout: 60).makeAsyncIterator()
            #expect(try await chunks.next() != nil)
        }   // the iterator is dropped here, the statement half run
        // The only reader is back long before the 60 s stall timeout.
        #expect(try await Self.readWithin(pool, seconds: 10) == 50_000, "the reader was not given back")
    }

    @Test func aCancelledConsumerOfChunksGivesItsReaderBack() async throws {
        let (pool, _) = try await DatabasePoolTests().makePool(readers: 1, rows: 50_000)
        let consumer = Task {
            var n = 0
            for try await _ in pool.jsonChunks("SELECT id, title FROM t ORDER BY id",
                                               options: JSONWriterOptions(chunkSize: 512), chunksAhead: 2,
                                               stallTimeout: 60) {
                n += 1
                try await Task.sleep(nanoseconds: 20_000_000)
            }
            return n
        }
        try await Task.sleep(nanoseconds: 100_000_000)
        consumer.cancel()
        await #expect(throws: CancellationError.self) { try await consumer.value }
        #expect(try await Self.readWithin(pool, seconds: 10) == 50_000, "the reader was not given back")
    }

    @Test func aThrowingConsumerOfWriteJSONGivesItsReaderBack() async throws {
        let (pool, _) = try await DatabasePoolTests().makePool(readers: 1, rows: 50_000)
        var calls = 0
        await #expect(throws: Failure.self) {
            try await pool.writeJSON("SELECT id, title FROM t ORDER BY id",
                                     options: JSONWriterOptions(chunkSize: 512)) { _ in
                calls += 1
                if calls == 3 { throw Failure() }
            }
        }
        #expect(calls == 3)
        #expect(try await Self.readWithin(pool, seconds: 10) == 50_000, "the reader was not given back")
    }
}
