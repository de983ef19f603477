import Foundation
import Hummingbird
import NIOCore
import NIOPosix
import StreamQLite
import TasksAPI

/// Why the server cannot start.
struct StartupError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// A task as it is inserted: ``NewTask`` with its creation time settled.
struct StoredTask: RowEncodable, Sendable {
    var title: String
    var done: Bool
    var createdAt: Date
    static let databaseColumns = ["title", "done", "created_at"]
    func bind(to row: inout RowBinder) throws {
        row.bind(title)
        row.bind(done)
        row.bind(createdAt)
    }
    init(_ task: NewTask, now: Date) {
        title = task.title
        done = task.done
        createdAt = task.createdAt ?? now
    }
}

/// A ``ByteSink`` that appends to a NIO `ByteBuffer`: the JSON goes straight into the
/// buffer the response sends.
struct ByteBufferSink: ByteSink {
    var buffer: ByteBuffer
    init(capacity: Int = 512) { buffer = ByteBufferAllocator().buffer(capacity: capacity) }
    mutating func write(_ bytes: UnsafeRawBufferPointer) throws { buffer.writeBytes(bytes) }
}

/// The first and last of the ids a bulk insert's `RETURNING id` gives, and how many.
struct IDRange: RowSink {
    var first = Int64.max, last = Int64.min, count = 0
    mutating func integer(_ value: Int64, column: Int) throws {
        first = min(first, value)
        last = max(last, value)
        count += 1
    }
}

/// The database side of the service.
///
/// * One writer connection behind a ``DatabaseActor``: writes are serialized, each in an
///   `IMMEDIATE` transaction, and run on Swift's cooperative pool (never on a NIO event loop).
/// * ``ReaderPool``: read-only connections on the same WAL file, so reads run in parallel
///   with each other and with the writer. Point reads run on the cooperative pool.
/// * Streamed results (`GET /tasks`, the weekly report) step on a thread of `threads`
///   (a `NIOThreadPool`, one thread per reader): `writeJSON` is synchronous and its sink
///   waits whenever the client is slower than SQLite, which must not hold a thread of the
///   cooperative pool (two threads on this machine) or an event loop.
final class TaskStore: Sendable {
    let path: String
    let writer: DatabaseActor
    let readers: ReaderPool
    let threads: NIOThreadPool

    /// The task columns as the API shows them: `done` as a JSON boolean (SQLite stores 0/1;
    /// `json('true')` carries the JSON subtype, so `writeJSON` embeds it as `true`).
    static let columns = "id, title, iif(done, json('true'), json('false')) AS done, created_at AS createdAt"
    static let selectOne = "SELECT \(columns) FROM tasks WHERE id = ?"
    static let selectAll = "SELECT \(columns) FROM tasks WHERE id > ? ORDER BY id LIMIT ? OFFSET ?"
    static let selectByDone = "SELECT \(columns) FROM tasks WHERE done = ? AND id > ? ORDER BY id LIMIT ? OFFSET ?"
    static let selectRange = "SELECT \(columns) FROM tasks WHERE id BETWEEN ? AND ? ORDER BY id"
    // No RETURNING: SQLite passes RETURNING values through a temporary table, which drops
    // the JSON subtype of `json('true')` (the smoke test saw "done":"false"). The write
    // transaction reads the row back instead.
    static let update = """
        UPDATE tasks SET title = coalesce(?, title), done = coalesce(?, done), created_at = coalesce(?, created_at)
        WHERE id = ?
        """
    static let weekly = """
        SELECT week, locale_week_start(first_at, ?1, ?2) AS weekStart, tasks, done
        FROM (SELECT locale_week(created_at, ?1, ?2) AS week, min(created_at) AS first_at,
                     count(*) AS tasks, sum(done) AS done
              FROM tasks GROUP BY week)
        ORDER BY week
        """
    /// One row → one object (`{…}` and a newline); `array` → `[{…},…]`.
    static let object = JSONWriterOptions(format: .ndjson)
    static let array = JSONWriterOptions()

    init(path: String, readers: Int) async throws {
        guard path != ":memory:" && !path.isEmpty else {
            throw StartupError("--db needs a file: the readers and the writer share it through WAL")
        }
        self.path = path
        writer = try DatabaseActor(path: path)
        let mode = try await writer.read { db -> String? in
            try db.execute(TasksSchema.pragmas)
            try db.execute(TasksSchema.sql)
            return try db.value(String.self, "PRAGMA journal_mode")
        }
        guard mode == "wal" else { throw StartupError("\(path): cannot switch to WAL (journal_mode is \(mode ?? "?"))") }
        self.readers = try ReaderPool(path: path, count: readers)
        threads = NIOThreadPool(numberOfThreads: readers)
        threads.start()
    }

    /// Inserts `count` sample tasks if the table is empty; returns how many it inserted.
    func seed(_ count: Int) async throws -> Int {
        try await writer.write { db in
            guard try db.value(Int.self, "SELECT count(*) FROM tasks") == 0 else { return 0 }
            let now = Date()
            return try db.insert(contentsOf: sampleTasks(count: count).lazy.map { StoredTask($0, now: now) }, into: "tasks")
        }
    }

    // MARK: Reads

    /// `GET /tasks/{id}`: the task, or nil.
    func task(_ id: Int64) async throws -> ByteBuffer? {
        try await readers.read { db in
            var out = ByteBufferSink()
            return try db.writeJSON(Self.selectOne, id, to: &out, options: Self.object) == 0 ? nil : out.buffer
        }
    }

    /// `GET /tasks`: the tasks streamed as a JSON array.
    func list(_ query: TaskListQuery) async throws -> Response {
        let limit = query.limit ?? -1  // SQLite: a negative LIMIT is no limit
        let offset = query.offset
        let after = query.after ?? Int64.min
        if let done = query.done {
            return try await stream { db, sink in
                try db.writeJSON(Self.selectByDone, done, after, limit, offset, to: &sink, options: Self.array)
            }
        }
        return try await stream { db, sink in
            try db.writeJSON(Self.selectAll, after, limit, offset, to: &sink, options: Self.array)
        }
    }

    /// `GET /tasks/weekly`: tasks created and done per locale week. A bad locale or time zone
    /// is a 400 with the SQL function's message, checked on a constant timestamp first
    /// (an empty table would never call the function).
    func weekly(_ query: WeeklyQuery) async throws -> Response {
        let locale = query.locale, tz = query.timeZone
        do {
            _ = try await readers.read { db in
                try db.value(String.self, "SELECT locale_week('2000-01-01 12:00:00', ?, ?)", locale, tz)
            }
        } catch let error as DatabaseError {
            throw APIError.badRequest(error.message)
        }
        return try await stream { db, sink in
            try db.writeJSON(Self.weekly, locale, tz, to: &sink, options: Self.array)
        }
    }

    /// Runs `produce` (a `writeJSON` call) on a reader connection on a pool thread and
    /// streams what it writes into the response, chunk by chunk (64 KiB, `writeJSON`'s
    /// chunk size), at most four chunks ahead of the client.
    ///
    /// The response head waits for the first two chunks (or the end): a result that fits
    /// one chunk goes out with a Content-Length, and an error before the second chunk is
    /// still a proper JSON error response. An error after that (the head is sent) ends the
    /// connection mid-body, so the client sees a truncated response, never a short but
    /// valid-looking document. Each response is one statement, so one read snapshot.
    func stream(_ produce: @escaping @Sendable (Database, inout ClosureSink) throws -> Void) async throws -> Response {
        let connection = await readers.checkout()
        let pipe = ChunkPipe(interrupt: connection.db.interruptHandle)
        let consumer = PipeConsumer(pipe)
        let readers = self.readers
        threads.submit { state in
            guard case .active = state else {
                pipe.finish(CancellationError())
                readers.checkin(connection)
                return
            }
            var sink = ClosureSink { chunk in
                try pipe.send(ByteBuffer(bytes: chunk))
            }
            do {
                try produce(connection.db, &sink)
                pipe.finish(nil)
            } catch {
                pipe.finish(error)
            }
            readers.checkin(connection)
        }
        // Through `consumer` from here on: it must live until the response is done with the pipe.
        guard let first = try await consumer.pipe.next() else { return JSONBody.response(.ok, ByteBuffer()) }
        guard let second = try await consumer.pipe.next() else { return JSONBody.response(.ok, first) }
        return Response(status: .ok, headers: JSONBody.headers, body: ResponseBody { writer in
            try await writer.write(first)
            try await writer.write(second)
            while let chunk = try await consumer.pipe.next() {
                try await writer.write(chunk)
            }
            try await writer.finish(nil)
        })
    }

    // MARK: Writes

    /// `POST /tasks`: inserts `tasks` in one transaction; returns them as stored (with ids),
    /// one object or an array as `asArray` says.
    func create(_ tasks: [NewTask], asArray: Bool) async throws -> ByteBuffer {
        let now = Date()
        return try await writer.write { db in
            var ids = IDRange()
            try db.insert(contentsOf: tasks.lazy.map { StoredTask($0, now: now) }, into: "tasks",
                          returning: "id", into: &ids)
            var out = ByteBufferSink(capacity: 128 * tasks.count + 16)
            guard ids.count > 0 else {
                out.buffer.writeString("[]")
                return out.buffer
            }
            // One writer, one transaction: new rowids are max(rowid)+1 each time, so the
            // new rows are exactly ids first...last. Checked, never assumed.
            let written = try db.writeJSON(Self.selectRange, ids.first, ids.last, to: &out,
                                           options: asArray ? Self.array : Self.object)
            guard written == ids.count, ids.count == tasks.count else {
                throw DatabaseError(code: 1, message: "inserted \(tasks.count) tasks but read back \(written) in ids \(ids.first)...\(ids.last)")
            }
            return out.buffer
        }
    }

    /// `PATCH /tasks/{id}`: the task after the change, or nil when there is no such task.
    func update(_ id: Int64, _ patch: TaskPatch) async throws -> ByteBuffer? {
        try await writer.write { db in
            try db.execute(Self.update, patch.title, patch.done, patch.createdAt, id)
            guard db.changes > 0 else { return nil }
            var out = ByteBufferSink()
            try db.writeJSON(Self.selectOne, id, to: &out, options: Self.object)
            return out.buffer
        }
    }

    /// `DELETE /tasks/{id}`: whether there was such a task.
    func delete(_ id: Int64) async throws -> Bool {
        try await writer.write { db in
            try db.execute("DELETE FROM tasks WHERE id = ?", id)
            return db.changes > 0
        }
    }
}
