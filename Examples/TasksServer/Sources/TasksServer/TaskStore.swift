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
    var order: Int64
    static let databaseColumns = ["title", "done", "created_at", "sort_order"]
    func bind(to row: inout RowBinder) throws {
        row.bind(title)
        row.bind(done)
        row.bind(createdAt)
        row.bind(order)
    }
    init(_ task: NewTask, now: Date) {
        title = task.title
        done = task.done
        order = task.order
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

/// The tasks of a `POST /tasks` body.
enum NewTasks: @unchecked Sendable {
    /// A body that is one task object.
    case one(NewTask)
    /// A body that is an array, decoded one element at a time while the elements are
    /// inserted: the process never holds all of them (a 16 MiB body of short tasks would be
    /// ~100 MB decoded at once). The cursor is made by the route and then used only on the
    /// writer's thread (handed over, never shared: hence `@unchecked`).
    case array(JSONElementCursor<NewTask>)

    var isArray: Bool {
        if case .array = self { return true }
        return false
    }
}

/// A cursor's values as the `Sequence` `insert(contentsOf:)` takes: the first error ends the
/// sequence and is kept in `failure`, for the caller to throw inside the transaction (so the
/// rows inserted before it are rolled back).
final class DecodedElements<T: Decodable>: Sequence, IteratorProtocol {
    private let cursor: JSONElementCursor<T>
    private(set) var failure: (any Error)?
    /// How many values the cursor gave.
    private(set) var count = 0

    init(_ cursor: JSONElementCursor<T>) { self.cursor = cursor }

    func next() -> T? {
        guard failure == nil else { return nil }
        do {
            guard let value = try cursor.next() else { return nil }
            count += 1
            return value
        } catch {
            failure = error
            return nil
        }
    }
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

/// The database side of the service: StreamQLite's ``DatabasePool`` on the WAL file.
///
/// * Writes run one at a time on the pool's writer connection, each in an `IMMEDIATE`
///   transaction.
/// * Reads run on read-only connections, in parallel with each other and with the writer.
/// * Every SQLite call runs on the pool's connection threads, never on a NIO event loop or a
///   thread of Swift's cooperative pool (two threads on this machine): streamed results
///   (`GET /tasks`, the weekly report) come as `jsonChunks`, which hold the statement back
///   whenever the client is slower than SQLite.
final class TaskStore: Sendable {
    let path: String
    let pool: DatabasePool
    /// Seconds a streamed result waits for its client to take a chunk before the statement
    /// stops and the reader goes back to the pool (`--client-timeout`).
    let stallTimeout: TimeInterval
    /// Where large POST responses are spooled (``SpooledBody``): the database's directory.
    let spoolDirectory: String

    /// The task columns as the API shows them; `done` (0/1 in SQLite) and its Todo-Backend
    /// name `completed` are written as JSON booleans by the writer (`booleanColumns`, below).
    /// The first parameter of every statement that reads tasks is the start of their `url`
    /// (``taskURLBase(_:)``, from the request's Host header).
    static let columns = #"id, title, done, created_at AS createdAt, done AS completed, sort_order AS "order", ? || id AS url"#
    static let selectOne = "SELECT \(columns) FROM tasks WHERE id = ?"
    static let selectAll = "SELECT \(columns) FROM tasks WHERE id > ? ORDER BY id LIMIT ? OFFSET ?"
    static let selectByDone = "SELECT \(columns) FROM tasks WHERE done = ? AND id > ? ORDER BY id LIMIT ? OFFSET ?"
    static let selectRange = "SELECT \(columns) FROM tasks WHERE id BETWEEN ? AND ? ORDER BY id"
    // The write transaction reads the changed row back with the one column list.
    static let update = """
        UPDATE tasks SET title = coalesce(?, title), done = coalesce(?, done), created_at = coalesce(?, created_at),
                         sort_order = coalesce(?, sort_order)
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
    static let object = JSONWriterOptions(format: .ndjson, booleanColumns: ["done", "completed"])
    static let array = JSONWriterOptions(booleanColumns: ["done", "completed"])

    init(path: String, readers: Int, executorThreads: Int = 0, clientTimeout: TimeInterval = 10,
         readerWait: TimeInterval? = nil) async throws {
        guard path != ":memory:" && !path.isEmpty else {
            throw StartupError("--db needs a file: the readers and the writer share it through WAL")
        }
        self.path = path
        stallTimeout = clientTimeout
        spoolDirectory = URL(fileURLWithPath: path).deletingLastPathComponent().path
        // Switches the file to WAL, or throws.
        pool = try DatabasePool(path: path, readers: readers, executorThreads: executorThreads, readerWaitTimeout: readerWait)
        try await pool.writeWithoutTransaction { db in
            try db.execute(TasksSchema.pragmas)
        }
        try await pool.write { db in
            let table = try db.value(String.self, "SELECT sql FROM sqlite_schema WHERE type = 'table' AND name = 'tasks'")
            if let table, TasksSchema.needsMigration(table) { try db.execute(TasksSchema.migration) }
            try db.execute(TasksSchema.sql)
        }
    }

    /// Inserts `count` sample tasks if the table is empty; returns how many it inserted.
    func seed(_ count: Int) async throws -> Int {
        try await pool.write { db in
            guard try db.value(Int.self, "SELECT count(*) FROM tasks") == 0 else { return 0 }
            let now = Date()
            return try db.insert(contentsOf: sampleTasks(count: count).lazy.map { StoredTask($0, now: now) }, into: "tasks")
        }
    }

    // MARK: Reads

    /// `GET /tasks/{id}`: the task, or nil.
    func task(_ id: Int64, urlBase: String) async throws -> ByteBuffer? {
        try await unlessBusy {
            try await pool.read { db in
                var out = ByteBufferSink()
                return try db.writeJSON(Self.selectOne, urlBase, id, to: &out, options: Self.object) == 0 ? nil : out.buffer
            }
        }
    }

    /// `body`, with every reader staying busy for `--reader-wait` seconds made a 503 that asks
    /// the client to retry (rather than a queue without bound behind slow clients).
    func unlessBusy<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as DatabasePool.ReaderWaitTimeoutError {
            throw APIError(.serviceUnavailable, "busy: all \(error.readers) database readers are in use; retry", headers: [.retryAfter: "1"])
        }
    }

    /// `GET /tasks`: the tasks streamed as a JSON array.
    func list(_ query: TaskListQuery, urlBase: String) async throws -> Response {
        let limit = query.limit ?? -1  // SQLite: a negative LIMIT is no limit
        let offset = query.offset
        let after = query.after ?? Int64.min
        if let done = query.done {
            return try await stream(pool.jsonChunks(Self.selectByDone, urlBase, done, after, limit, offset, options: Self.array,
                                                    stallTimeout: stallTimeout, as: Self.buffer))
        }
        return try await stream(pool.jsonChunks(Self.selectAll, urlBase, after, limit, offset, options: Self.array,
                                                stallTimeout: stallTimeout, as: Self.buffer))
    }

    /// `GET /tasks/weekly`: tasks created and done per locale week. A bad locale or time zone
    /// is a 400 with the SQL function's message, checked on a constant timestamp first
    /// (an empty table would never call the function).
    func weekly(_ query: WeeklyQuery) async throws -> Response {
        let locale = query.locale, tz = query.timeZone
        do {
            _ = try await unlessBusy {
                try await pool.read { db in
                    try db.value(String.self, "SELECT locale_week('2000-01-01 12:00:00', ?, ?)", locale, tz)
                }
            }
        } catch let error as DatabaseError {
            throw APIError.badRequest(error.message)
        }
        return try await stream(pool.jsonChunks(Self.weekly, locale, tz, options: JSONWriterOptions(),
                                                stallTimeout: stallTimeout, as: Self.buffer))
    }

    /// A chunk as the response sends it (made on the producing thread).
    static let buffer: @Sendable (UnsafeRawBufferPointer) -> ByteBuffer = { ByteBuffer(bytes: $0) }

    /// Streams `chunks` (64 KiB each, `writeJSON`'s chunk size) into the response; the pool
    /// keeps the statement at most four chunks ahead of the client.
    ///
    /// The response head waits for the first two chunks (or the end): a result that fits
    /// one chunk goes out with a Content-Length, and an error before the second chunk is
    /// still a proper JSON error response. An error after that (the head is sent) ends the
    /// connection mid-body, so the client sees a truncated response, never a short but
    /// valid-looking document. Each response is one statement, so one read snapshot. When
    /// the client goes away the response drops the iterator, which stops the statement and
    /// gives the reader back.
    func stream(_ chunks: Database.ResultChunks<ByteBuffer>) async throws -> Response {
        var iterator = chunks.makeAsyncIterator()
        guard let first = try await unlessBusy({ try await iterator.next() }) else { return JSONBody.response(.ok, ByteBuffer()) }
        guard let second = try await iterator.next() else { return JSONBody.response(.ok, first) }
        return Response(status: .ok, headers: JSONBody.headers, body: ResponseBody { [iterator] writer in
            var rest = iterator
            try await writer.write(first)
            try await writer.write(second)
            while let chunk = try await rest.next() {
                try await writer.write(chunk)
            }
            try await writer.finish(nil)
        })
    }

    // MARK: Writes

    /// `POST /tasks`: inserts `tasks` in one transaction and returns them as stored (with
    /// ids; an object for ``NewTasks/one(_:)``, an array for ``NewTasks/array(_:)``), read
    /// back in the same transaction into a ``SpooledBody`` (memory up to 1 MiB, then a
    /// temporary file beside the database). The elements of an array are decoded one at a
    /// time as they are inserted; a bad one (a `DecodingError`, thrown) rolls back the rows
    /// before it.
    func create(_ tasks: NewTasks, urlBase: String) async throws -> SpooledBody {
        let now = Date()
        let directory = spoolDirectory
        return try await pool.write { db in
            var ids = IDRange()
            let count: Int
            switch tasks {
            case .one(let task):
                try db.insert(contentsOf: CollectionOfOne(StoredTask(task, now: now)), into: "tasks", returning: "id", into: &ids)
                count = 1
            case .array(let cursor):
                let elements = DecodedElements(cursor)
                try db.insert(contentsOf: elements.lazy.map { StoredTask($0, now: now) }, into: "tasks",
                              returning: "id", into: &ids)
                if let failure = elements.failure { throw failure }
                count = elements.count
            }
            var out = SpooledBody(directory: directory)
            guard ids.count > 0 else {
                try Array("[]".utf8).withUnsafeBytes { try out.write($0) }
                return out
            }
            // One writer, one transaction: new rowids are max(rowid)+1 each time, so the
            // new rows are exactly ids first...last. Checked, never assumed.
            let written = try db.writeJSON(Self.selectRange, urlBase, ids.first, ids.last, to: &out,
                                           options: tasks.isArray ? Self.array : Self.object)
            guard written == ids.count, ids.count == count else {
                throw DatabaseError(code: 1, message: "inserted \(count) tasks but read back \(written) in ids \(ids.first)...\(ids.last)")
            }
            try out.flush()
            return out
        }
    }

    /// `PATCH /tasks/{id}`: the task after the change, or nil when there is no such task.
    func update(_ id: Int64, _ patch: TaskPatch, urlBase: String) async throws -> ByteBuffer? {
        try await pool.write { db in
            try db.execute(Self.update, patch.title, patch.done, patch.createdAt, patch.order, id)
            guard db.changes > 0 else { return nil }
            var out = ByteBufferSink()
            try db.writeJSON(Self.selectOne, urlBase, id, to: &out, options: Self.object)
            return out.buffer
        }
    }

    /// On a clean exit: copies every committed write from the WAL into the database file and
    /// empties the WAL (`wal_checkpoint(TRUNCATE)`), so the file alone is a complete copy.
    /// Throws when a reader still holds a snapshot (the checkpoint could not finish).
    func checkpoint() async throws {
        // The first column is 1 when the checkpoint could not finish (SQLITE_BUSY).
        let busy = try await pool.writeWithoutTransaction { db in try db.value(Int.self, "PRAGMA wal_checkpoint(TRUNCATE)") }
        if busy != 0 {
            throw DatabaseError(code: 5, message: "wal_checkpoint(TRUNCATE) could not finish: a reader still holds a snapshot")
        }
    }

    /// `DELETE /tasks`: every task.
    func deleteAll() async throws {
        try await pool.write { db in try db.execute("DELETE FROM tasks") }
    }

    /// `DELETE /tasks/{id}`: whether there was such a task.
    func delete(_ id: Int64) async throws -> Bool {
        try await pool.write { db in
            try db.execute("DELETE FROM tasks WHERE id = ?", id)
            return db.changes > 0
        }
    }
}
