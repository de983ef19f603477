import Foundation
import GRDB
import Hummingbird
import Logging
import NIOFoundationCompat
import NIOPosix
import TasksAPI

// The same routes as TasksServer, written the way a Swift developer usually would:
// records fetched with GRDB into [TaskRecord], encoded with JSONEncoder, bodies
// decoded with JSONDecoder, inserts record by record.

struct TaskRecord: Codable, FetchableRecord, MutablePersistableRecord, Sendable {
    static let databaseTableName = "tasks"
    static let databaseColumnDecodingStrategy = DatabaseColumnDecodingStrategy.convertFromSnakeCase
    static let databaseColumnEncodingStrategy = DatabaseColumnEncodingStrategy.convertToSnakeCase
    var id: Int64?
    var title: String
    var done: Bool
    var createdAt: Date
    var sortOrder: Int64

    mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }
}

/// A task as the API shows it: the record, `completed` (the Todo-Backend name of `done`),
/// `order` and the task's `url` (from the request's Host header: `taskURLBase`).
struct TaskJSON: Encodable {
    var id: Int64
    var title: String
    var done: Bool
    var createdAt: Date
    var completed: Bool
    var order: Int64
    var url: String

    init(_ record: TaskRecord, urlBase: String) {
        id = record.id ?? 0
        title = record.title
        done = record.done
        createdAt = record.createdAt
        completed = record.done
        order = record.sortOrder
        url = urlBase + String(id)
    }
}

/// The API's date text, `2024-05-01 12:00:00.250` in UTC (what GRDB stores, too).
let dateFormatter: DateFormatter = {
    let f = DateFormatter()
    f.locale = Locale(identifier: "en_US_POSIX")
    f.timeZone = TimeZone(identifier: "UTC")
    f.dateFormat = "yyyy-MM-dd HH:mm:ss.SSS"
    return f
}()

func makeEncoder() -> JSONEncoder {
    let e = JSONEncoder()
    e.dateEncodingStrategy = .formatted(dateFormatter)
    return e
}

func makeDecoder() -> JSONDecoder {
    let d = JSONDecoder()
    d.dateDecodingStrategy = .formatted(dateFormatter)
    return d
}

func json(_ value: some Encodable, status: HTTPResponse.Status = .ok) throws -> Response {
    JSONBody.response(status, ByteBuffer(data: try makeEncoder().encode(value)))
}

func decodeBody<T: Decodable>(_ type: T.Type, _ request: Request) async throws -> T {
    let body = try await request.body.collect(upTo: maxBodyBytes)
    let data = Data(buffer: body)
    try data.withUnsafeBytes { _ = try TaskBodyShape.of($0) }
    do { return try makeDecoder().decode(T.self, from: data) } catch { throw badBody(error) }
}

let options = ServerOptions(arguments: Array(CommandLine.arguments.dropFirst()))
var logger = Logger(label: "TasksServerGRDB")
logger.logLevel = Logger.Level(rawValue: options.logLevel) ?? .warning

var configuration = Configuration()
configuration.maximumReaderCount = options.readers
configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous = NORMAL") }
let dbPool = try DatabasePool(path: options.databasePath, configuration: configuration)
try await dbPool.write { db in
    // A table of an earlier version is rebuilt (same rows and ids), as TasksServer does.
    if let table = try String.fetchOne(db, sql: "SELECT sql FROM sqlite_schema WHERE type = 'table' AND name = 'tasks'"),
       TasksSchema.needsMigration(table) {
        try db.execute(sql: TasksSchema.migration)
    }
    try db.execute(sql: TasksSchema.sql)
}

let group = MultiThreadedEventLoopGroup.singleton
let probe = EventLoopProbe(group: group)
let router = Router()
router.add(middleware: JSONErrorMiddleware())

router.get("/tasks") { request, _ in
    let query = try TaskListQuery(request)
    let tasks = try await dbPool.read { db in
        var request = TaskRecord.all()
        if let done = query.done { request = request.filter(Column("done") == done) }
        if let after = query.after { request = request.filter(Column("id") > after) }
        request = request.order(Column("id"))
        if query.limit != nil || query.offset > 0 {
            request = request.limit(Int(query.limit ?? -1), offset: Int(query.offset))
        }
        return try request.fetchAll(db)
    }
    let urlBase = taskURLBase(request)
    return try json(tasks.map { TaskJSON($0, urlBase: urlBase) })
}

router.get("/tasks/weekly") { request, _ in
    let query = try WeeklyQuery(request)
    guard let zone = TimeZone(identifier: query.timeZone) else {
        throw APIError.badRequest("unknown time zone '\(query.timeZone)'")
    }
    var calendar = Calendar(identifier: .gregorian)
    calendar.locale = Locale(identifier: query.locale)
    calendar.timeZone = zone
    let rows = try await dbPool.read { db in
        try Row.fetchAll(db, sql: "SELECT created_at, done FROM tasks").map { ($0[0] as Date?, $0[1] as Bool) }
    }
    struct Week: Encodable { var week: String; var weekStart: String; var tasks: Int; var done: Int }
    var weeks: [String: Week] = [:]
    let day = DateFormatter()
    day.locale = Locale(identifier: "en_US_POSIX")
    day.timeZone = zone
    day.dateFormat = "yyyy-MM-dd"
    for (date, done) in rows {
        guard let date else { continue }
        let c = calendar.dateComponents([.yearForWeekOfYear, .weekOfYear], from: date)
        let key = String(format: "%04d-%02d", c.yearForWeekOfYear ?? 0, c.weekOfYear ?? 0)
        if weeks[key] == nil {
            let start = calendar.dateInterval(of: .weekOfYear, for: date)?.start ?? date
            weeks[key] = Week(week: key, weekStart: day.string(from: start), tasks: 0, done: 0)
        }
        weeks[key]!.tasks += 1
        if done { weeks[key]!.done += 1 }
    }
    return try json(weeks.values.sorted { $0.week < $1.week })
}

router.get("/tasks/{id}") { request, context in
    let id = try taskID(context)
    guard let task = try await dbPool.read({ db in try TaskRecord.fetchOne(db, key: id) }) else {
        throw APIError.notFound("no task with id \(id)")
    }
    return try json(TaskJSON(task, urlBase: taskURLBase(request)))
}

router.post("/tasks") { request, _ in
    let body = try await request.body.collect(upTo: maxBodyBytes)
    let data = Data(buffer: body)
    let isArray = try data.withUnsafeBytes { try TaskBodyShape.of($0) } == .array
    let decoder = makeDecoder()
    let inputs: [NewTask]
    do {
        inputs = isArray ? try decoder.decode([NewTask].self, from: data) : [try decoder.decode(NewTask.self, from: data)]
    } catch {
        throw badBody(error)
    }
    let now = Date()
    let created = try await dbPool.write { db in
        try inputs.map { input in
            var task = TaskRecord(id: nil, title: input.title, done: input.done, createdAt: input.createdAt ?? now,
                                  sortOrder: input.order)
            try task.insert(db)
            return task
        }
    }
    let urlBase = taskURLBase(request)
    let shown = created.map { TaskJSON($0, urlBase: urlBase) }
    return isArray ? try json(shown, status: .created) : try json(shown[0], status: .created)
}

router.patch("/tasks/{id}") { request, context in
    let id = try taskID(context)
    let patch = try await decodeBody(TaskPatch.self, request)
    let updated = try await dbPool.write { db -> TaskRecord? in
        guard var task = try TaskRecord.fetchOne(db, key: id) else { return nil }
        if let title = patch.title { task.title = title }
        if let done = patch.done { task.done = done }
        if let createdAt = patch.createdAt { task.createdAt = createdAt }
        if let order = patch.order { task.sortOrder = order }
        try task.update(db)
        return task
    }
    guard let updated else { throw APIError.notFound("no task with id \(id)") }
    return try json(TaskJSON(updated, urlBase: taskURLBase(request)))
}

router.delete("/tasks") { _, _ in
    _ = try await dbPool.write { db in try TaskRecord.deleteAll(db) }
    return Response(status: .noContent)
}

router.delete("/tasks/{id}") { _, context in
    let id = try taskID(context)
    guard try await dbPool.write({ db in try TaskRecord.deleteOne(db, key: id) }) else {
        throw APIError.notFound("no task with id \(id)")
    }
    return Response(status: .noContent)
}

router.get("/stats") { request, _ in
    let q = try QueryParameters(request, allowed: ["reset"])
    struct Body: Encodable { var eventLoop: EventLoopProbe.Stats; var peakRSSKiB: Int?; var readers: Int }
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    let body = Body(eventLoop: probe.snapshot(reset: try q.bool("reset") ?? false), peakRSSKiB: peakRSSKiB(), readers: options.readers)
    return JSONBody.response(.ok, ByteBuffer(data: try encoder.encode(body)))
}

let app = Application(
    router: router,
    configuration: .init(address: .hostname(options.host, port: options.port), serverName: "TasksServerGRDB"),
    onServerRunning: { channel in
        let port = channel.localAddress?.port ?? options.port
        // Unbuffered: the test scripts read the port from this line while the server runs.
        Console.out("TasksServerGRDB listening on http://\(options.host):\(port) (database \(options.databasePath), pid \(getpid()))")
    },
    eventLoopGroupProvider: .shared(group),
    logger: logger
)
try await app.runService()
