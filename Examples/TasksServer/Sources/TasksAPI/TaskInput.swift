import Foundation

/// A JSON object key, for reading objects whose keys are checked one by one.
public struct FieldKey: CodingKey, Sendable {
    public var stringValue: String
    public var intValue: Int? { nil }
    public init(_ name: String) { stringValue = name }
    public init?(stringValue: String) { self.stringValue = stringValue }
    public init?(intValue: Int) { nil }
}

extension KeyedDecodingContainer where Key == FieldKey {
    /// Throws for the first key not in `allowed`: a misspelt field is an error, not ignored.
    func rejectUnknownFields(_ allowed: [String], in what: String) throws {
        for key in allKeys where !allowed.contains(key.stringValue) {
            throw DecodingError.dataCorrupted(.init(
                codingPath: codingPath + [key],
                debugDescription: "unknown field '\(key.stringValue)' (\(what) has \(allowed.joined(separator: ", ")))"))
        }
    }

    /// The value of `name` if the key is there; `null` is an error (a field is given a value or left out).
    func field<T: Decodable>(_ type: T.Type, _ name: String) throws -> T? {
        let key = FieldKey(name)
        guard contains(key) else { return nil }
        return try decode(T.self, forKey: key)
    }

    func validTitle(_ title: String) throws -> String {
        if title.allSatisfy(\.isWhitespace) {
            throw DecodingError.dataCorrupted(.init(codingPath: codingPath + [FieldKey("title")],
                                                   debugDescription: "title must not be empty"))
        }
        // SQLite's text functions (length, the CHECK on title, upper, LIKE…) stop at a NUL.
        if title.utf8.contains(0) {
            throw DecodingError.dataCorrupted(.init(codingPath: codingPath + [FieldKey("title")],
                                                   debugDescription: "title must not contain U+0000"))
        }
        return title
    }

    /// `createdAt` if given: a date text SQLite reads, within ``createdAtRange``. A number is
    /// refused: SQLite reads 2460431.5 as a Julian day, JSON decoders as Unix seconds.
    func createdAt() throws -> Date? {
        let key = FieldKey("createdAt")
        guard contains(key) else { return nil }
        if (try? decode(String.self, forKey: key)) == nil, (try? decode(Double.self, forKey: key)) != nil {
            throw DecodingError.dataCorrupted(.init(codingPath: codingPath + [key],
                debugDescription: "createdAt must be a date text such as \"2024-05-01 12:00:00\", not a number (Unix seconds or a Julian day?)"))
        }
        let date = try decode(Date.self, forKey: key)
        guard createdAtRange.contains(date) else {
            throw DecodingError.dataCorrupted(.init(codingPath: codingPath + [key],
                debugDescription: "createdAt must be from 0001-01-01 to 9998-12-31 (UTC): the weekly report counts in every time zone"))
        }
        return date
    }

    /// `done`, or `completed` (the Todo-Backend name of the same field); both may be given
    /// when they agree.
    func done() throws -> Bool? {
        let done = try field(Bool.self, "done"), completed = try field(Bool.self, "completed")
        if let done, let completed, done != completed {
            throw DecodingError.dataCorrupted(.init(codingPath: codingPath + [FieldKey("completed")],
                debugDescription: "completed is another name for done: give one, or both with the same value"))
        }
        return done ?? completed
    }
}

/// A task to create: `{"title": "Buy milk", "done": false, "order": 3, "createdAt": "2024-05-01 12:00:00"}`.
///
/// `title` is required and not blank; `done` (or its Todo-Backend name `completed`) defaults
/// to false; `order` (any integer, the client's own sort key) to 0; `createdAt` to the time of
/// the request. Any other key, `null` for a field, or a value of the wrong type is refused.
public struct NewTask: Decodable, Sendable {
    public static let fields = ["title", "done", "completed", "order", "createdAt"]
    public var title: String
    public var done: Bool
    public var order: Int64
    public var createdAt: Date?

    public init(title: String, done: Bool = false, order: Int64 = 0, createdAt: Date? = nil) {
        self.title = title
        self.done = done
        self.order = order
        self.createdAt = createdAt
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: FieldKey.self)
        try c.rejectUnknownFields(Self.fields, in: "a new task")
        title = try c.validTitle(c.decode(String.self, forKey: FieldKey("title")))
        done = try c.done() ?? false
        order = try c.field(Int64.self, "order") ?? 0
        createdAt = try c.createdAt()
    }
}

/// The times a task may have been created: years 0001 to 9998 in UTC, so that its local
/// time in any time zone (UTC−12 to UTC+14) stays within the years `locale_week` counts
/// (0000–9999). One stored task out of that range would make the weekly report fail for
/// every caller in some time zones.
public let createdAtRange = Date(timeIntervalSince1970: -62_135_596_800)...Date(timeIntervalSince1970: 253_370_764_800 - 0.001)

/// The fields a PATCH changes; the others stay as they are. Same rules as ``NewTask``.
public struct TaskPatch: Decodable, Sendable {
    public static let fields = NewTask.fields
    public var title: String?
    public var done: Bool?
    public var order: Int64?
    public var createdAt: Date?

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: FieldKey.self)
        try c.rejectUnknownFields(Self.fields, in: "a task patch")
        title = try c.field(String.self, "title").map { try c.validTitle($0) }
        done = try c.done()
        order = try c.field(Int64.self, "order")
        createdAt = try c.createdAt()
    }
}

/// What a POST body holds: one task object or an array of them.
public enum TaskBodyShape {
    case object, array

    /// Looks at the first non-blank byte; anything but `{` or `[` is left to the decoder
    /// (decoding it as an object gives the error with its position).
    public static func of(_ bytes: UnsafeRawBufferPointer) throws -> TaskBodyShape {
        for b in bytes where !(b == 0x20 || b == 0x0A || b == 0x0D || b == 0x09) {
            return b == UInt8(ascii: "[") ? .array : .object
        }
        throw APIError.badRequest("empty request body: expected a task object or an array of task objects")
    }
}

/// A decoding failure as a 400 with one clear sentence: where (`$[2].done`), what, and the
/// position in the body when the decoder gives one.
public func badBody(_ error: any Error) -> APIError {
    guard let error = error as? DecodingError else { return .badRequest("invalid request body: \(error)") }
    func path(_ keys: [any CodingKey]) -> String {
        "$" + keys.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
    }
    func detail(_ context: DecodingError.Context) -> String {
        var text = context.debugDescription
        if let underlying = context.underlyingError as NSError?,
           let more = underlying.userInfo[NSDebugDescriptionErrorKey] as? String, !text.contains(more) {
            text += " (\(more))"
        }
        return text
    }
    switch error {
    case .dataCorrupted(let context) where context.codingPath.isEmpty:
        return .badRequest("malformed JSON: \(detail(context))")
    case .dataCorrupted(let context):
        return .badRequest("\(path(context.codingPath)): \(detail(context))")
    case .keyNotFound(let key, let context):
        return .badRequest("\(path(context.codingPath)): missing field '\(key.stringValue)'")
    case .typeMismatch(_, let context), .valueNotFound(_, let context):
        return .badRequest("\(path(context.codingPath)): \(detail(context))")
    @unknown default:
        return .badRequest("invalid request body: \(error)")
    }
}
