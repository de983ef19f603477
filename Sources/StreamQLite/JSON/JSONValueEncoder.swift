import Foundation

/// Encodes `Encodable` values as JSON bytes, written straight into a buffer or a
/// ``ByteSink``: a drop-in for Foundation's `JSONEncoder`.
///
/// Values are written as `encode(to:)` produces them (no intermediate tree),
/// through the library's one string escaper and number formatter, the ones
/// ``JSONRowWriter`` uses. The output is byte for byte `JSONEncoder`'s for the
/// same options (`JSONEncoder` orders unsorted keys at random: compare with
/// ``OutputFormatting/sortedKeys``), except for the default date strategy,
/// which is the library's date text.
///
/// A type that also conforms to ``JSONEncodable`` is written by its hand-written
/// `encode(json:)` wherever it appears (the document, the elements of `[T]`, a
/// property): the fastest path, with the same bytes.
///
/// ```swift
/// var encoder = JSONValueEncoder()
/// encoder.outputFormatting = [.sortedKeys]
/// encoder.keyEncodingStrategy = .convertToSnakeCase
/// let body: [UInt8] = try encoder.encode(tasks)
///
/// var file = try FileDescriptorSink(path: "tasks.json")
/// try encoder.encode(tasks, into: &file)
/// ```
public struct JSONValueEncoder: Sendable {
    /// Layout options, as `JSONEncoder.OutputFormatting`.
    public struct OutputFormatting: OptionSet, Sendable {
        public let rawValue: UInt
        /// Creates the options from their bits.
        public init(rawValue: UInt) { self.rawValue = rawValue }
        /// Two spaces per level, one member per line, `"key" : value`.
        public static let prettyPrinted = OutputFormatting(rawValue: 1)
        /// Object keys in the order of their UTF-8 bytes.
        public static let sortedKeys = OutputFormatting(rawValue: 2)
        /// `/` as it is (by default it is written `\/`, as `JSONEncoder` does); the same bit as
        /// `JSONEncoder.OutputFormatting.withoutEscapingSlashes`.
        public static let withoutEscapingSlashes = OutputFormatting(rawValue: 8)
    }

    /// How coding keys become JSON keys.
    public enum KeyEncodingStrategy: Sendable {
        /// Keys as they are.
        case useDefaultKeys
        /// `camelCaseKeys` become `camel_case_keys` (`myURLValue` → `my_url_value`), as
        /// `JSONEncoder.KeyEncodingStrategy.convertToSnakeCase`. Keys of `[String: T]` dictionaries are kept.
        case convertToSnakeCase
        /// Your function gives the key to write, as `JSONEncoder.KeyEncodingStrategy.custom`: it
        /// receives the coding path ending with the key (the keys as the types name them) and
        /// is called once for each key written. Keys of `[String: T]` dictionaries are kept.
        ///
        /// ```swift
        /// var encoder = JSONValueEncoder()
        /// encoder.keyEncodingStrategy = .custom { path in   // AnyKey: a CodingKey type of yours
        ///     AnyKey(stringValue: path.last!.stringValue.uppercased())!
        /// }
        /// ```
        case custom(@Sendable (_ codingPath: [any CodingKey]) -> any CodingKey)
    }

    /// How `Date` values are written.
    public enum DateEncodingStrategy: Sendable {
        /// The library's date text, `yyyy-MM-dd HH:mm:ss.SSS` in UTC (the default):
        /// what `Database` binds and stores for dates everywhere.
        case databaseText
        /// `Date`'s own `Encodable` form (seconds since 2001-01-01), `JSONEncoder`'s default.
        case deferredToDate
        /// Seconds since 1970-01-01T00:00:00Z.
        case secondsSince1970
        /// Milliseconds since 1970-01-01T00:00:00Z.
        case millisecondsSince1970
        /// ISO 8601 text (`2024-05-01T12:00:00Z`), as `JSONEncoder`'s `.iso8601`.
        case iso8601
        /// The formatter's text, as `JSONEncoder`'s `.formatted` (`formatter.string(from:)`).
        ///
        /// ```swift
        /// let f = DateFormatter()
        /// f.locale = Locale(identifier: "en_US_POSIX")
        /// f.timeZone = TimeZone(identifier: "UTC")
        /// f.dateFormat = "dd/MM/yyyy HH:mm"
        /// var encoder = JSONValueEncoder()
        /// encoder.dateEncodingStrategy = .formatted(f)   // "01/05/2024 12:00"
        /// ```
        case formatted(DateFormatter)
        /// Your function writes the date to the encoder (nothing written: `{}`).
        case custom(@Sendable (Date, any Encoder) throws -> Void)
    }

    /// How `Data` values are written.
    public enum DataEncodingStrategy: Sendable {
        /// A Base64 string (the default).
        case base64
        /// `Data`'s own `Encodable` form (an array of bytes).
        case deferredToData
        /// Your function writes the data to the encoder (nothing written: `{}`).
        case custom(@Sendable (Data, any Encoder) throws -> Void)
    }

    /// What to do with NaN and infinities, which JSON cannot represent.
    public enum NonConformingFloatEncodingStrategy: Sendable {
        /// Throw `EncodingError.invalidValue` (the default).
        case `throw`
        /// Write these strings instead.
        case convertToString(positiveInfinity: String, negativeInfinity: String, nan: String)
    }

    /// Layout; default compact, keys in encoding order, `/` escaped.
    public var outputFormatting: OutputFormatting = []
    /// Key strategy; default ``KeyEncodingStrategy/useDefaultKeys``.
    public var keyEncodingStrategy: KeyEncodingStrategy = .useDefaultKeys
    /// Date strategy; default ``DateEncodingStrategy/databaseText``.
    public var dateEncodingStrategy: DateEncodingStrategy = .databaseText
    /// Data strategy; default ``DataEncodingStrategy/base64``.
    public var dataEncodingStrategy: DataEncodingStrategy = .base64
    /// Non-finite number strategy; default ``NonConformingFloatEncodingStrategy/throw``.
    public var nonConformingFloatEncodingStrategy: NonConformingFloatEncodingStrategy = .throw
    /// Values handed to `encode(to:)` as `encoder.userInfo`.
    public var userInfo: [CodingUserInfoKey: any Sendable] = [:]

    /// Creates an encoder with the default options.
    public init() {}

    /// The JSON text of `value`.
    ///
    /// ```swift
    /// let bytes = try JSONValueEncoder().encode(["id": 1])   // {"id":1}
    /// ```
    ///
    /// ```swift
    /// let bytes = try JSONValueEncoder().encode(Todo(id: 1, title: "Write docs", done: false))
    /// ```
    ///
    /// - Parameter value: The value to encode.
    /// - Returns: The JSON document's UTF-8 bytes.
    /// - Throws: `EncodingError.invalidValue` for what JSON cannot hold (a non-finite
    ///   `Double` under `.throw`), or what the value's `encode(to:)` threw.
    public func encode<T: Encodable>(_ value: T) throws -> [UInt8] {
        let options = Options(self)
        if _slowPath(options.keys.dependsOnPath) { return try Self.encodeInTree(value, options) { Array($0) } }
        var encoder: JSONStreamEncoder? = JSONStreamEncoder.take(options)
        try encoder!.encodeTop(value)
        let bytes = Array(encoder!.out.bytes)
        JSONStreamEncoder.give(&encoder)
        return bytes
    }

    /// Writes the JSON text of `value` to `sink` (then flushes it).
    ///
    /// ```swift
    /// var out = FileDescriptorSink(fileHandle: .standardOutput)
    /// try JSONValueEncoder().encode(report, into: &out)
    /// ```
    public func encode<T: Encodable>(_ value: T, into sink: inout some ByteSink) throws {
        let options = Options(self)
        if _slowPath(options.keys.dependsOnPath) {
            try Self.encodeInTree(value, options) { try sink.write(UnsafeRawBufferPointer($0)) }
            try sink.flush()
            return
        }
        var encoder: JSONStreamEncoder? = JSONStreamEncoder.take(options)
        try encoder!.encodeTop(value)
        try sink.write(UnsafeRawBufferPointer(encoder!.out.bytes))
        JSONStreamEncoder.give(&encoder)
        try sink.flush()
    }

    /// `value` built as a tree, then written, its bytes handed to `body`: for a key strategy
    /// whose keys depend on their coding path (the stream writes each key type's keys once, prepared).
    static func encodeInTree<T: Encodable, R>(_ value: T, _ options: Options, _ body: (UnsafeBufferPointer<UInt8>) throws -> R) throws -> R {
        let root = try JSONTreeEncoder(options: options).encodeTop(value)
        var out = options.output()
        root.write(to: &out)
        return try body(out.bytes)
    }

    /// The options as the encoders read them.
    struct Options {
        var pretty: Bool
        var sortedKeys: Bool
        var escapeSlashes: Bool
        var keys: JSONKeyConversion
        var date: DateEncodingStrategy
        var data: DataEncodingStrategy
        var nonConforming: NonConformingFloatEncodingStrategy
        var userInfo: [CodingUserInfoKey: Any]

        init(_ e: JSONValueEncoder) {
            pretty = e.outputFormatting.contains(.prettyPrinted)
            sortedKeys = e.outputFormatting.contains(.sortedKeys)
            escapeSlashes = !e.outputFormatting.contains(.withoutEscapingSlashes)
            switch e.keyEncodingStrategy {
            case .useDefaultKeys: keys = JSONKeyConversion(.none)
            case .convertToSnakeCase: keys = JSONKeyConversion(.toSnakeCase)
            case .custom(let f): keys = JSONKeyConversion(.custom(f))
            }
            date = e.dateEncodingStrategy
            data = e.dataEncodingStrategy
            nonConforming = e.nonConformingFloatEncodingStrategy
            var info: [CodingUserInfoKey: Any] = [:]
            for (k, v) in e.userInfo { info[k] = v }
            userInfo = info
        }

        func output() -> JSONOutput { JSONOutput(pretty: pretty, sortedKeys: sortedKeys, escapeSlashes: escapeSlashes) }

        /// A Double as a scalar: itself, or the non-conforming strategy's string, or an error.
        @inline(__always)
        func number(_ v: Double, path: @autoclosure () -> [any CodingKey]) throws -> JSONScalar {
            if _fastPath(v.isFinite) { return .double(v) }
            return try nonFinite(v, "Double.\(v)", path())
        }

        func number(_ v: Float, path: @autoclosure () -> [any CodingKey]) throws -> JSONScalar {
            if _fastPath(v.isFinite) { return .float(v) }
            return try nonFinite(v, "Float.\(v)", path())
        }

        func nonFinite<F: FloatingPoint>(_ v: F, _ description: String, _ path: [any CodingKey]) throws -> JSONScalar {
            if case .convertToString(let pos, let neg, let nan) = nonConforming {
                return .string(v.isNaN ? nan : v > 0 ? pos : neg)
            }
            throw EncodingError.invalidValue(v, .init(codingPath: path, debugDescription: "Unable to encode \(description) directly in JSON."))
        }

        /// A date's seconds as a scalar, or an error when they are not finite: dates never take
        /// the non-conforming strategy's strings (as `JSONEncoder`: they always throw).
        func dateNumber(_ v: Double, path: [any CodingKey]) throws -> JSONScalar {
            if _fastPath(v.isFinite) { return .double(v) }
            throw EncodingError.invalidValue(v, .init(codingPath: path, debugDescription: "Unable to encode Double.\(v) directly in JSON."))
        }

        /// How the values `JSONEncoder` treats specially are written: a scalar, or through
        /// the encoder (a deferred or custom strategy). nil for every other value.
        func special<T: Encodable>(_ value: T, path: @autoclosure () -> [any CodingKey]) throws -> JSONSpecial? {
            if T.self == Date.self {
                let date = value as! Date
                switch self.date {
                case .databaseText: return .scalar(.string(sqliteDateString(date)))
                case .deferredToDate: return .encode { try date.encode(to: $0) }
                case .secondsSince1970: return .scalar(try dateNumber(date.timeIntervalSince1970, path: path()))
                case .millisecondsSince1970: return .scalar(try dateNumber(1000.0 * date.timeIntervalSince1970, path: path()))
                case .iso8601: return .scalar(.string(date.formatted(.iso8601)))
                case .formatted(let formatter): return .scalar(.string(formatter.string(from: date)))
                case .custom(let body): return .encode { try body(date, $0) }
                }
            }
            if T.self == Data.self {
                let data = value as! Data
                switch self.data {
                case .base64: return .scalar(.string(data.base64EncodedString()))
                case .deferredToData: return .encode { try data.encode(to: $0) }
                case .custom(let body): return .encode { try body(data, $0) }
                }
            }
            if T.self == URL.self { return .scalar(.string((value as! URL).absoluteString)) }
            if T.self == Decimal.self { return .scalar(.number((value as! Decimal).description)) }
            return nil
        }
    }
}

/// See ``JSONValueEncoder/Options/special(_:path:)``.
enum JSONSpecial {
    case scalar(JSONScalar)
    case encode((any Encoder) throws -> Void)
}
