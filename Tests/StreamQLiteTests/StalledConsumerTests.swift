import Foundation
import Testing
import StreamQLite

/// A consumer of ``DatabaseReader/jsonChunks(_:_:options:chunksAhead:stallTimeout:as:)`` that
/// stops taking chunks (a network client that stops reading) cannot hold the pool's reader
/// past the stall timeout; one that is slow but keeps taking chunks gets the whole result;
/// with a `readerWaitTimeout`, a read behind readers held that long gives up.
@Suite struct StalledConsumerTests {
    func makePool(readers: Int, rows: Int) async throws -> (DatabasePool, String) {
        try await DatabasePoolTests().makePool(readers: readers, rows: rows)
    }

    static let query = "SELECT id, title FROM t ORDER BY id"

    @Test func aStalledConsumerGivesTheReaderBack() async throws {
        let (pool, path) = try await makePool(readers: 1, rows: 20_000)
        let expected = try Database(path: path).jsonBytes(Self.query)
        // Before the first chunk: the stall timeout counts from a hand-over after it, so the
        // reader cannot come back sooner than 0.2 s from here, however loaded the machine.
        let started = Date()
        var stalled = pool.jsonChunks(Self.query, options: JSONWriterOptions(chunkSize: 256), chunksAhead: 2,
                                      stallTimeout: 0.2).makeAsyncIterator()
        var received = try await stalled.next() ?? []
        // The consumer stops; the only reader is free again once the timeout has passed
        // (without the deadline this read waits for ever: the test's time limit fails it).
        let count = try await withThrowingTaskGroup(of: Int?.self) { group in
            group.addTask { try await pool.read { db in try db.value(Int.self, "SELECT count(*) FROM t") } }
            group.addTask { try await Task.sleep(nanoseconds: 10_000_000_000); return nil }
            defer { group.cancelAll() }
            return try await group.next() ?? nil
        }
        #expect(count == 20_000, "the reader was not given back within 10 s")
        #expect(Date().timeIntervalSince(started) >= 0.19)
        // The consumer coming back gets the chunks that waited, then the error: a prefix of
        // the result, never passed off as all of it.
        await #expect(throws: Database.StalledConsumerError.self) {
            while let chunk = try await stalled.next() { received += chunk }
        }
        #expect(received.count > 0 && received.count < expected.count)
        #expect(Array(expected.prefix(received.count)) == received)
    }

    @Test func aSlowConsumerThatKeepsReadingGetsEverything() async throws {
        let (pool, path) = try await makePool(readers: 1, rows: 2_000)
        let expected = try Database(path: path).jsonBytes(Self.query)
        var received: [UInt8] = []
        // Each chunk is taken well within the timeout (0.1 s of 2 s: a test task starved of a
        // thread of Swift's pool while other suites run has 1.9 s to spare), though the whole
        // result (about 30 chunks of 2 KiB) takes longer than the timeout.
        let started = Date()
        let rows = try await pool.writeJSON(Self.query, options: JSONWriterOptions(chunkSize: 2048), chunksAhead: 1,
                                            stallTimeout: 2) { chunk in
            received += chunk
            try await Task.sleep(nanoseconds: 100_000_000)
        }
        #expect(Date().timeIntervalSince(started) > 2)
        #expect(rows == 2_000)
        #expect(received == expected)
    }

    @Test func writeJSONReportsAStall() async throws {
        let (pool, _) = try await makePool(readers: 1, rows: 20_000)
        var calls = 0
        await #expect(throws: Database.StalledConsumerError.self) {
            try await pool.writeJSON(Self.query, options: JSONWriterOptions(chunkSize: 256), chunksAhead: 1,
                                     stallTimeout: 0.1) { _ in
                calls += 1
                if calls == 1 { try await Task.sleep(nanoseconds: 600_000_000) }
            }
        }
        #expect(try await pool.read { db in try db.value(Int.self, "SELECT count(*) FROM t") } == 20_000)
    }

    @Test func aReadGivesUpAfterTheReaderWaitTimeout() async throws {
        let (_, path) = try await makePool(readers: 1, rows: 20_000)
        // 0.5 s: long enough for the hand-back below on a loaded machine, short enough to wait out twice.
        let pool = try DatabasePool(path: path, readers: 1, readerWaitTimeout: 0.5)
        // The one reader is held by a consumer that is slow but within no stall timeout.
        var held = pool.jsonChunks(Self.query, options: JSONWriterOptions(chunkSize: 256), chunksAhead: 1,
                                   stallTimeout: nil).makeAsyncIterator()
        _ = try await held.next()
        let started = Date()
        await #expect(throws: DatabasePool.ReaderWaitTimeoutError.self) {
            try await pool.read { db in try db.value(Int.self, "SELECT 1") }
        }
        var streamed = pool.jsonChunks("SELECT 2", stallTimeout: nil).makeAsyncIterator()
        await #expect(throws: DatabasePool.ReaderWaitTimeoutError.self) { _ = try await streamed.next() }
        #expect(Date().timeIntervalSince(started) >= 0.95)
        // A waiter that gets the reader within the timeout reads as usual.
        let waiting = Task { try await pool.read { db in try db.value(Int.self, "SELECT 3") } }
        try await Task.sleep(nanoseconds: 50_000_000)
        held = pool.jsonChunks("SELECT 1").makeAsyncIterator()
        #expect(try await waiting.value == 3)
        try await Task.sleep(nanoseconds: 600_000_000)  // its timer fires after: nothing happens
        #expect(try await pool.read { db in try db.value(Int.self, "SELECT 4") } == 4)
        _ = held
        _ = streamed
    }
}
