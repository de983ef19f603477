import Foundation
import Hummingbird
import NIOCore
import StreamQLite
import TasksAPI

/// The API:
///
///     GET    /tasks?done=true|false&limit=N&offset=N   all tasks (by id), streamed from SQLite
///     GET    /tasks/{id}                               one task, 404 if none
///     POST   /tasks                                    one task object or an array → 201 with the stored task(s)
///     PATCH  /tasks/{id}                               change title/done (completed)/order/createdAt → the task
///     DELETE /tasks/{id}                               204, 404 if none
///     DELETE /tasks                                    204, every task deleted
///     HEAD   (each GET route)                          the GET's status and headers, no body
///     another of HTTP's methods on those paths         405 with Allow
///     a method outside HTTP's own (PROPFIND, BREW…)    501, on any path
///     GET    /tasks/weekly?locale=en_US&tz=Europe/Berlin   tasks created/done per locale week
///     GET    /stats?reset=true                         event-loop lag and peak RSS (for the benchmark)
///     GET    /bench/constant                           a constant one-task body (benchmark baseline)
///     GET    /bench/constant/{id}                      the same after GET /tasks/{id}'s routing and checks
///
/// With `corsOrigins` (`--cors-origin`), browsers on those origins (`*`: any) may call every
/// route: the `OPTIONS` preflight is answered and responses carry `Access-Control-Allow-Origin`.
/// Writes from any other web page are refused (``WriteGuard``: a JSON body, an allowed `Origin`).
func addRoutes(to router: Router<BasicRequestContext>, store: TaskStore, probe: EventLoopProbe, corsOrigins: [String] = []) {
    if !corsOrigins.isEmpty { router.add(middleware: AllowedOrigins(corsOrigins)) }
    router.add(middleware: JSONErrorMiddleware())
    router.add(middleware: WriteGuard(allowedOrigins: corsOrigins))

    getAndHead(router, "/tasks") { request, _ in
        try await store.list(TaskListQuery(request), urlBase: taskURLBase(request))
    }

    getAndHead(router, "/tasks/weekly") { request, _ in
        try await store.weekly(WeeklyQuery(request))
    }

    getAndHead(router, "/tasks/{id}") { request, context in
        let id = try taskID(context)
        try noQuery(request)
        guard let body = try await store.task(id, urlBase: taskURLBase(request)) else { throw APIError.notFound("no task with id \(id)") }
        return JSONBody.response(.ok, body)
    }

    router.post("/tasks") { request, _ in
        try noQuery(request)
        let tasks = try await newTasks(request)
        do {
            return try await store.create(tasks, urlBase: taskURLBase(request)).response(.created)
        } catch let error as DecodingError {
            throw badBody(error)  // an element of the array, decoded during the insert (rolled back)
        }
    }

    router.patch("/tasks/{id}") { request, context in
        let id = try taskID(context)
        try noQuery(request)
        let body = try await request.body.collect(upTo: maxBodyBytes)
        let patch = try body.withUnsafeReadableBytes { bytes throws -> TaskPatch in
            _ = try TaskBodyShape.of(bytes)  // an empty body gets its own message
            do { return try bodyDecoder.decode(TaskPatch.self, from: bytes) } catch { throw badBody(error) }
        }
        guard let task = try await store.update(id, patch, urlBase: taskURLBase(request)) else { throw APIError.notFound("no task with id \(id)") }
        return JSONBody.response(.ok, task)
    }

    // Every task (the Todo-Backend "clear all"); ids are still never reused.
    router.delete("/tasks") { request, _ in
        try noQuery(request)
        try await store.deleteAll()
        return Response(status: .noContent)
    }

    router.delete("/tasks/{id}") { request, context in
        let id = try taskID(context)
        try noQuery(request)
        guard try await store.delete(id) else { throw APIError.notFound("no task with id \(id)") }
        return Response(status: .noContent)
    }

    // Another of HTTP's methods on a path of the API is a 405 that lists the methods it has
    // (a method outside HTTP's own is a 501: JSONErrorMiddleware).
    for (path, allowed) in apiMethods {
        let allow = allowed.map(\.rawValue).joined(separator: ", ")
        for method in standardMethods where !allowed.contains(method) {
            router.on(RouterPath(path), method: method) { request, _ -> Response in
                throw APIError(.methodNotAllowed, "\(request.method) is not allowed on \(path) (allowed: \(allow))",
                               headers: [.allow: allow])
            }
        }
    }

    router.get("/stats") { request, _ in
        let q = try QueryParameters(request, allowed: ["reset"])
        let stats = probe.snapshot(reset: try q.bool("reset") ?? false)
        struct Body: Encodable { var eventLoop: EventLoopProbe.Stats; var peakRSSKiB: Int?; var readers: Int }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        var buffer = ByteBuffer()
        buffer.writeBytes(try encoder.encode(Body(eventLoop: stats, peakRSSKiB: peakRSSKiB(), readers: store.pool.readerCount)))
        return JSONBody.response(.ok, buffer)
    }

    // The baseline of the single-task benchmark: the same server, the same headers, a body
    // of a task's size, and no database.
    let constant = ByteBuffer(string: #"{"id":1,"title":"Buy milk #1","done":true,"createdAt":"2024-01-01 00:00:00.000","completed":true,"order":0,"url":"http://127.0.0.1:8080/tasks/1"}"# + "\n")
    router.get("/bench/constant") { _, _ in
        JSONBody.response(.ok, constant)
    }
    // The second baseline: the route work of GET /tasks/{id} (path parameter, id check, no
    // query allowed) with the constant body, so the benchmark can tell routing from the read.
    router.get("/bench/constant/{id}") { request, context in
        _ = try taskID(context)
        try noQuery(request)
        return JSONBody.response(.ok, constant)
    }
}

/// Every request body is read by one rule, RFC 8259's: a trailing comma (`{"title":"x",}`,
/// `[{…},]`) is malformed JSON, a 400, whether the body is one object, an array or a patch.
let bodyDecoder: JSONValueDecoder = {
    var decoder = JSONValueDecoder()
    decoder.allowsTrailingCommas = false
    return decoder
}()

/// The body of `POST /tasks`: one task object, decoded here, or an array of them, checked
/// here as far as its first byte and decoded during the insert (``NewTasks``).
func newTasks(_ request: Request) async throws -> NewTasks {
    let body = try await request.body.collect(upTo: maxBodyBytes)
    return try body.withUnsafeReadableBytes { bytes throws -> NewTasks in
        do {
            switch try TaskBodyShape.of(bytes) {
            case .array: return .array(try bodyDecoder.elements(of: NewTask.self, in: bytes))
            case .object: return .one(try bodyDecoder.decode(NewTask.self, from: bytes))
            }
        } catch let error as APIError {
            throw error
        } catch {
            throw badBody(error)
        }
    }
}

/// Routes that take no query parameters refuse them rather than ignore them.
func noQuery(_ request: Request) throws {
    _ = try QueryParameters(request, allowed: [])
}

/// CORS for the origins given (`*`: any): Hummingbird's `CORSMiddleware` for a request from
/// one of them, nothing added for another (the browser then refuses the response).
struct AllowedOrigins: RouterMiddleware {
    typealias Context = BasicRequestContext
    let origins: Set<String>
    let cors: CORSMiddleware<BasicRequestContext>

    init(_ origins: [String]) {
        self.origins = Set(origins)
        cors = CORSMiddleware(allowOrigin: origins.contains("*") ? .all : .originBased,
                              allowHeaders: [.accept, .contentType, .origin],
                              allowMethods: [.get, .head, .post, .patch, .delete, .options],
                              maxAge: .seconds(600))
    }

    func handle(_ request: Request, context: Context,
                next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let origin = request.headers[.origin], origins.contains("*") || origins.contains(origin) else {
            return try await next(request, context)
        }
        return try await cors.handle(request, context: context, next: next)
    }
}

/// The paths of the API and the methods each answers.
let apiMethods: [(path: String, methods: [HTTPRequest.Method])] = [
    ("/tasks", [.get, .head, .post, .delete]),
    ("/tasks/weekly", [.get, .head]),
    ("/tasks/{id}", [.get, .head, .patch, .delete]),
]

/// `handler` for GET, and for HEAD the same status and headers with no body (a streamed
/// result's statement stops when its body is dropped).
func getAndHead(_ router: Router<BasicRequestContext>, _ path: RouterPath,
                _ handler: @escaping @Sendable (Request, BasicRequestContext) async throws -> Response) {
    router.get(path, use: handler)
    router.head(path) { request, context in
        let response = try await handler(request, context)
        return Response(status: response.status, headers: response.headers, body: ResponseBody())
    }
}
