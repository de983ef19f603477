import Hummingbird

/// Query parameters, each allowed once, unknown ones refused (a misspelt `lmit` is not ignored).
public struct QueryParameters {
    public private(set) var values: [String: String] = [:]

    public init(_ request: Request, allowed: [String]) throws {
        for (key, value) in request.uri.queryParameters {
            let name = String(key)
            guard allowed.contains(name) else {
                throw APIError.badRequest("unknown query parameter '\(name)'" +
                    (allowed.isEmpty ? "" : " (allowed: \(allowed.joined(separator: ", ")))"))
            }
            guard values[name] == nil else { throw APIError.badRequest("query parameter '\(name)' given twice") }
            values[name] = String(value)
        }
    }

    public func string(_ name: String) -> String? { values[name] }

    public func bool(_ name: String) throws -> Bool? {
        guard let v = values[name] else { return nil }
        switch v {
        case "true": return true
        case "false": return false
        default: throw APIError.badRequest("query parameter '\(name)' must be true or false, got '\(v)'")
        }
    }

    /// A whole number in `range`.
    public func integer(_ name: String, in range: ClosedRange<Int64>) throws -> Int64? {
        guard let v = values[name] else { return nil }
        guard let n = Int64(v), range.contains(n) else {
            throw APIError.badRequest("query parameter '\(name)' must be an integer from \(range.lowerBound) to \(range.upperBound), got '\(v)'")
        }
        return n
    }
}

/// `GET /tasks?done=&after=&limit=&offset=`: tasks by id; no limit returns every task
/// (streamed). `after=ID` starts after that id (keyset paging: SQLite seeks to it, where
/// `offset=N` steps over N rows).
public struct TaskListQuery: Sendable {
    public var done: Bool?
    public var after: Int64?
    public var limit: Int64?
    public var offset: Int64

    public init(_ request: Request) throws {
        let q = try QueryParameters(request, allowed: ["done", "after", "limit", "offset"])
        done = try q.bool("done")
        after = try q.integer("after", in: 0...Int64.max)
        limit = try q.integer("limit", in: 0...Int64.max)
        offset = try q.integer("offset", in: 0...Int64.max) ?? 0
    }
}

/// `GET /tasks/weekly?locale=en_US&tz=America/New_York`: locale required, tz UTC by default.
public struct WeeklyQuery: Sendable {
    public var locale: String
    public var timeZone: String

    public init(_ request: Request) throws {
        let q = try QueryParameters(request, allowed: ["locale", "tz"])
        guard let locale = q.string("locale") else {
            throw APIError.badRequest("query parameter 'locale' is required (e.g. locale=en_US or locale=de-DE)")
        }
        self.locale = locale
        timeZone = q.string("tz") ?? "UTC"
    }
}

/// The `{id}` of `/tasks/{id}`: a positive integer.
public func taskID(_ context: some RequestContext) throws -> Int64 {
    let text = context.parameters.get("id") ?? ""
    guard let id = Int64(text), id > 0 else {
        throw APIError.badRequest("task id must be a positive integer, got '\(text)'")
    }
    return id
}

/// The start of a task's `url` (the Todo-Backend field), `http://HOST/tasks/`, the id follows:
/// HOST is the request's `Host` header as the client sent it (host and port). Without a Host
/// header (HTTP/1.0), or with one that is not a URL authority (a space, `/`, `@`, a
/// non-ASCII letter…), the url is the path alone, `/tasks/7`, which a client resolves
/// against the address it called. Nothing is refused because of it.
public func taskURLBase(_ request: Request) -> String {
    guard let host = request.head.authority, !host.isEmpty, host.utf8.count <= 255,
          host.utf8.allSatisfy({ authorityBytes.contains($0) }) else { return "/tasks/" }
    return "http://\(host)/tasks/"
}

/// The bytes of an RFC 3986 authority without user info: reg-name, IP literal, port.
private let authorityBytes = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~!$&'()*+,;=:[]%".utf8)
