import Foundation
import Testing
import StreamQLite

/// Two writers on one WAL file wait for each other (busy timeout) instead of failing.
@Suite struct WriteTransactionTests {
    func walFile() throws -> String {
        let path = FileManager.default.temporaryDirectory
            .appendingPathComponent("sq-wal-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).sqlite").path
        let db = try Database(path: path)
        try db.execute("PRAGMA journal_mode=WAL")
        try db.execute("CREATE TABLE counter(n INTEGER)")
        try db.execute("INSERT INTO counter VALUES (0)")
        return path
    }

    /// Read-modify-write increments from two actors (two connections) at once.
    @Test func twoActorsIncrementingOneRowInWALLoseNothingAndNeverFailBusy() async throws {
        let path = try walFile()
        defer { for s in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + s) } }
        let a = try DatabaseActor(path: path), b = try DatabaseActor(path: path)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for store in [a, b] {
                group.addTask {
                    for _ in 0..<100 {
                        try await store.write { db in
                            let n = try db.value(Int.self, "SELECT n FROM counter") ?? 0
                            try db.execute("UPDATE counter SET n = ?", n + 1)
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(try await a.read { db in try db.value(Int.self, "SELECT n FROM counter") } == 200)
    }

    @Test func theDefaultTransactionTakesTheWriteLockAtBegin() throws {
        let path = try walFile()
        defer { for s in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + s) } }
        let first = try Database(path: path), second = try Database(path: path)
        try second.setBusyTimeout(0)
        try first.transaction {
            // The other connection cannot even begin a write transaction now.
            let error = #expect(throws: DatabaseError.self) { try second.transaction { } }
            #expect(error?.code == 5)  // SQLITE_BUSY
            // A deferred (read) transaction still can.
            try second.transaction(.deferred) { _ = try second.value(Int.self, "SELECT n FROM counter") }
        }
    }
}
