import Foundation
import Testing
import StreamQLite

/// `DatabaseActor` and `DatabasePool` behind the `DatabaseReader`/`DatabaseWriter`
/// protocols: the same generic code gives the same answers on both, and the streamed
/// outputs written once on the protocol (JSON and CSV chunks, `writeJSON`, `writeCSV`) give
/// on each exactly what the synchronous `Database` writes, hold a `DatabaseActor`'s other
/// calls while they run, and give its connection back when they end, fail, are dropped or
/// stall.
@Suite struct DatabaseReaderTests {
    static let query = "SELECT id, title, score FROM t ORDER BY id"

    /// A file database of `rows` rows, and its path.
    func makeFile(rows: Int) throws -> String {
        let path = NSTemporaryDirectory() + "sq-reader-\(UUID().uuidString).db"
        let db = try Database(path: path)
        try db.execute("PRAGMA journal_mode = WAL")
        try db.execute("CREATE TABLE t(id INTEGER PRIMARY KEY, title TEXT, score REAL)")
        try db.transaction {
            for i in 1...rows { try db.execute("INSERT INTO t VALUES (?, ?, ?)", i, "task \"\(i)\", é", Double(i) / 8) }
        }
        return path
    }

    func count(in reader: some DatabaseReader) async throws -> Int {
        try await reader.read { db in try db.value(Int.self, "SELECT count(*) FROM t") ?? -1 }
    }

    func addRow(_ id: Int, in writer: some DatabaseWriter) async throws {
        try await writer.write { db in try db.execute("INSERT INTO t VALUES (?, 'new', 0)", id) }
    }

    func streamed(_ reader: some DatabaseReader) async throws -> (json: [UInt8], csv: [UInt8], jsonRows: Int, csvRows: Int) {
        var json: [UInt8] = []
        var csv: [UInt8] = []
        for try await chunk in reader.jsonChunks(Self.query, options: JSONWriterOptions(chunkSize: 700)) {
            #expect(chunk.count <= 700)
            json += chunk
        }
        for try await chunk in reader.csvChunks(Self.query, options: CSVWriterOptions(chunkSize: 500)) {
            #expect(chunk.count <= 500)
            csv += chunk
        }
        var again: [UInt8] = []
        let jsonRows = try await reader.writeJSON(Self.query) { again += $0 }
        #expect(again == json)
        again = []
        let csvRows = try await reader.writeCSV(Self.query) { again += $0 }
        #expect(again == csv)
        return (json, csv, jsonRows, csvRows)
    }

    @Test func theSameCodeOnAnActorAndAPool() async throws {
        let path = try makeFile(rows: 3_000)
        let db = try Database(path: path)
        let expectedJSON = try db.jsonBytes(Self.query)
        let expectedCSV = try db.csvBytes(Self.query)
        let actor = try DatabaseActor(path: path)
        let pool = try DatabasePool(path: path, readers: 2)
        for reader in [actor, pool] as [any DatabaseWriter] {
            let out = try await streamed(reader)
            #expect(out.json == expectedJSON)
            #expect(out.csv == expectedCSV)
            #expect(out.jsonRows == 3_000 && out.csvRows == 3_000)
        }
        #expect(try await count(in: actor) == 3_000)
        try await addRow(5_000, in: pool)
        try await addRow(5_001, in: actor)
        #expect(try await count(in: pool) == 3_002)
        #expect(try await count(in: actor) == 3_002)
        for writer in [actor, pool] as [any DatabaseWriter] {
            let inTransaction = try await writer.writeWithoutTransaction { db in
                try db.execute("PRAGMA user_version = 7")
                return try db.value(Int.self, "SELECT 1") == 1
            }
            #expect(inTransaction)
            #expect(try await writer.read { db in try db.value(Int.self, "PRAGMA user_version") } == 7)
        }
    }

    @Test func anActorWaitsForItsStream() async throws {
        let path = try makeFile(rows: 20_000)
        let actor = try DatabaseActor(path: path)
        var iterator = actor.jsonChunks(Self.query, options: JSONWriterOptions(chunkSize: 256), chunksAhead: 1,
                                        stallTimeout: nil).makeAsyncIterator()
        var body = try #require(try await iterator.next())
        // A write asked while the stream has the connection waits for it to end.
        let write = Task { try await addRow(50_000, in: actor) }
        try await Task.sleep(nanoseconds: 50_000_000)
        while let chunk = try await iterator.next() { body += chunk }
        try await write.value
        let rows = try JSONSerialization.jsonObject(with: Data(body)) as! [[String: Any]]
        #expect(rows.count == 20_000, "the stream saw the write made while it ran")
        #expect(iterator.rowCount == 20_000)
        #expect(try await count(in: actor) == 20_001)
    }

    @Test func anActorGetsItsConnectionBack() async throws {
        let path = try makeFile(rows: 20_000)
        let actor = try DatabaseActor(path: path)
        // Dropped half way.
        do {
            var iterator = actor.csvChunks(Self.query, options: CSVWriterOptions(chunkSize: 256), chunksAhead: 1).makeAsyncIterator()
            _ = try await iterator.next()
        }
        #expect(try await count(in: actor) == 20_000)
        // Failed: bad SQL, and a consumer that throws.
        await #expect(throws: DatabaseError.self) { try await actor.writeJSON("SELECT nope FROM t") { _ in } }
        struct Stop: Error {}
        await #expect(throws: Stop.self) { try await actor.writeCSV(Self.query) { _ in throw Stop() } }
        #expect(try await count(in: actor) == 20_000)
        // Stalled: the consumer stops taking chunks; the connection comes back after the timeout.
        var stalled = actor.jsonChunks(Self.query, options: JSONWriterOptions(chunkSize: 256), chunksAhead: 2,
                                       stallTimeout: 0.2).makeAsyncIterator()
        var received = try #require(try await stalled.next())
        #expect(try await count(in: actor) == 20_000)
        await #expect(throws: Database.StalledConsumerError.self) {
            while let chunk = try await stalled.next() { received += chunk }
        }
        let expected = try Database(path: path).jsonBytes(Self.query)
        #expect(received.count < expected.count && Array(expected.prefix(received.count)) == received)
        // Cancelled: the task consuming the stream is cancelled.
        let consumer = Task {
            try await actor.writeJSON(Self.query, options: JSONWriterOptions(chunkSize: 256)) { _ in
                try await Task.sleep(nanoseconds: 1_000_000)
            }
        }
        try await Task.sleep(nanoseconds: 20_000_000)
        consumer.cancel()
        await #expect(throws: (any Error).self) { try await consumer.value }
        #expect(try await count(in: actor) == 20_000)
        // No statement of the streams is left running: the database can be closed.
        try await actor.writeWithoutTransaction { db in try db.closeConnection() }
    }
}
