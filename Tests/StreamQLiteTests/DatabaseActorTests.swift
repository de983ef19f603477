import Testing
import StreamQLite

@Suite struct DatabaseActorTests {
    @Test func concurrentTasksShareOneConnectionThroughTheActor() async throws {
        let store = try DatabaseActor()
        try await store.write { db in try db.execute("CREATE TABLE t(a)") }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for i in 0..<50 {
                group.addTask { try await store.write { db in try db.execute("INSERT INTO t VALUES (?)", i) } }
            }
            try await group.waitForAll()
        }
        let sum = try await store.read { db in try db.value(Int.self, "SELECT sum(a) FROM t") }
        #expect(sum == 1225)
    }

    @Test func aThrowingWriteRollsBack() async throws {
        struct Boom: Error {}
        let store = try DatabaseActor()
        try await store.write { db in try db.execute("CREATE TABLE t(a)") }
        await #expect(throws: Boom.self) {
            try await store.write { db in try db.execute("INSERT INTO t VALUES (1)"); throw Boom() }
        }
        #expect(try await store.read { db in try db.value(Int.self, "SELECT count(*) FROM t") } == 0)
    }
}
