import CStreamQLite
import Foundation

/// Decodes `Decodable` values from JSON bytes with the library's C parser, without
/// building a tree or dictionaries: a drop-in for Foundation's `JSONDecoder`.
///
/// The parser (`sq_json.h`, RFC 8259 plus the trailing commas `JSONDecoder` accepts,
/// `[1,]` and `{"a":1,}`) records each token on a flat tape;
/// the decoder walks the tape, matches keys to properties by scanning an
/// object's tokens (in-order keys cost one comparison each) and converts
/// strings and numbers only when a property asks for them.
///
/// ```swift
/// struct Task: Decodable { var id: Int; var title: String; var createdAt: Date }
/// var decoder = JSONValueDecoder()
/// decoder.keyDecodingStrategy = .convertFromSnakeCase
/// decoder.dateDecodingStrategy = .iso8601
/// let tasks = try decoder.decode([Task].self, from: responseBody)
/// ```
///
/// Results equal `JSONDecoder`'s for the same bytes and options (numbers are
/// converted by the same rules: `1.0` decodes as the `Int` 1, `1.5` or `1e400`
/// is an error; duplicate keys: the first wins), except for the default date
/// strategy, which is the library's date text (see ``DateDecodingStrategy``).
/// Errors are `DecodingError`s with the coding path; their debug description
/// gives the line, column and byte offset of the offending value.
///
/// The decoder and containers an `init(from:)` receives are valid while the
/// `decode` call runs (as Codable intends: a type reads what it needs in its
/// initializer); a container or super decoder kept after its value of a streamed
/// array was decoded throws rather than read another value (the decoder itself
/// cannot tell: keep values, not decoders).
public struct JSONValueDecoder: Sendable {
    /// How JSON object keys are matched to coding keys.
    public enum KeyDecodingStrategy: Sendable {
        /// Keys as they are.
        case useDefaultKeys
        /// `snake_case_keys` are converted to `camelCaseKeys` before matching, as
        /// `JSONDecoder.KeyDecodingStrategy.convertFromSnakeCase` does. Keys of
        /// `[String: T]` dictionaries are not converted.
        case convertFromSnakeCase
        /// Your function gives the key each JSON key is matched as, as
        /// `JSONDecoder.KeyDecodingStrategy.custom`: it receives the coding path ending with
        /// the key as the document has it. Keys of `[String: T]` dictionaries are not converted.
        /// When two keys of an object convert to one, the first member is read (as `JSONDecoder`).
        ///
        /// ```swift
        /// var decoder = JSONValueDecoder()
        /// decoder.keyDecodingStrategy = .custom { path in   // AnyKey: a CodingKey type of yours
        ///     AnyKey(stringValue: path.last!.stringValue.lowercased())!
        /// }
        /// ```
        case custom(@Sendable (_ codingPath: [any CodingKey]) -> any CodingKey)
    }

    /// How `Date` values are read.
    public enum DateDecodingStrategy: Sendable {
        /// The library's date text, `yyyy-MM-dd HH:mm:ss.SSS` in UTC, as every
        /// other API of the library writes it (the default). Reading also accepts
        /// SQLite's other time values (`T` separator, optional seconds and fraction,
        /// `Z` or `±HH:MM`, a bare date), and a number as seconds since 1970 (unlike a
        /// stored date column, a number from 0 to 5373484.5 is not read as a Julian day).
        case databaseText
        /// `Date`'s own `Decodable` form (seconds since 2001-01-01), as `JSONDecoder`'s default.
        case deferredToDate
        /// A number of seconds since 1970-01-01T00:00:00Z.
        case secondsSince1970
        /// A number of milliseconds since 1970-01-01T00:00:00Z.
        case millisecondsSince1970
        /// An ISO 8601 string, parsed as `JSONDecoder`'s `.iso8601` does (`Date.ISO8601FormatStyle()`).
        case iso8601
        /// A string read by the formatter, as `JSONDecoder`'s `.formatted`
        /// (`formatter.date(from:)`; a string it does not read is an error).
        ///
        /// ```swift
        /// let f = DateFormatter()
        /// f.locale = Locale(identifier: "en_US_POSIX")
        /// f.timeZone = TimeZone(identifier: "UTC")
        /// f.dateFormat = "dd/MM/yyyy HH:mm"
        /// var decoder = JSONValueDecoder()
        /// decoder.dateDecodingStrategy = .formatted(f)   // reads "01/05/2024 12:00"
        /// ```
        case formatted(DateFormatter)
        /// Your function reads the date from the decoder.
        case custom(@Sendable (any Decoder) throws -> Date)
    }

    /// How `Data` values are read.
    public enum DataDecodingStrategy: Sendable {
        /// A Base64 string (the default, as `JSONDecoder`).
        case base64
        /// `Data`'s own `Decodable` form (an array of bytes).
        case deferredToData
        /// Your function reads the data from the decoder.
        case custom(@Sendable (any Decoder) throws -> Data)
    }

    /// How JSON strings standing for non-finite numbers are read into `Double` and `Float`.
    public enum NonConformingFloatDecodingStrategy: Sendable {
        /// A string is never a number (the default).
        case `throw`
        /// These exact strings are read as +∞, -∞ and NaN.
        case convertFromString(positiveInfinity: String, negativeInfinity: String, nan: String)
    }

    /// The key strategy; default ``KeyDecodingStrategy/useDefaultKeys``.
    public var keyDecodingStrategy: KeyDecodingStrategy = .useDefaultKeys
    /// The date strategy; default ``DateDecodingStrategy/databaseText``.
    public var dateDecodingStrategy: DateDecodingStrategy = .databaseText
    /// The data strategy; default ``DataDecodingStrategy/base64``.
    public var dataDecodingStrategy: DataDecodingStrategy = .base64
    /// The non-finite number strategy; default ``NonConformingFloatDecodingStrategy/throw``.
    public var nonConformingFloatDecodingStrategy: NonConformingFloatDecodingStrategy = .throw
    /// Values handed to `init(from:)` as `decoder.userInfo`.
    public var userInfo: [CodingUserInfoKey: any Sendable] = [:]
    /// Whether `decode(_:from:)` accepts a comma after the last element or member
    /// (`[1,]`, `{"a":1,}`), as `JSONDecoder` does: true by default. Set it to false to read
    /// documents as RFC 8259 writes them, as ``elements(of:in:layout:)-(_,UnsafeRawBufferPointer,_)`` and the SQL functions do (a
    /// service that answers malformed JSON with an error, whatever the shape of the body).
    public var allowsTrailingCommas = true

    /// Creates a decoder with the default options.
    public init() {}

    /// Decodes a `T` from one JSON document.
    ///
    /// ```swift
    /// let config = try JSONValueDecoder().decode(Config.self, from: Array(fileBytes))
    /// ```
    ///
    /// - Parameters:
    ///   - type: The type to decode.
    ///   - bytes: One JSON document (UTF-8, UTF-16 or UTF-32).
    /// - Returns: The decoded value.
    /// - Throws: `DecodingError` with the coding path, and for a syntax error the line and column.
    public func decode<T: Decodable>(_ type: T.Type, from bytes: [UInt8]) throws -> T {
        try bytes.withUnsafeBytes { try decode(type, from: $0) }
    }

    /// Decodes a `T` from one JSON document.
    ///
    /// ```swift
    /// let todo = try JSONValueDecoder().decode(Todo.self, from: data)
    /// ```
    ///
    /// - Parameters:
    ///   - type: The type to decode.
    ///   - data: One JSON document.
    /// - Returns: The decoded value.
    /// - Throws: `DecodingError` with the coding path, and for a syntax error the line and column.
    public func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
        try data.withUnsafeBytes { try decode(type, from: $0) }
    }

    /// Decodes a `T` from one JSON document held in a string.
    ///
    /// ```swift
    /// let ids = try JSONValueDecoder().decode([Int].self, from: "[1, 2, 3]")
    /// ```
    ///
    /// - Parameters:
    ///   - type: The type to decode.
    ///   - string: One JSON document.
    /// - Returns: The decoded value.
    /// - Throws: `DecodingError` with the coding path, and for a syntax error the line and column.
    public func decode<T: Decodable>(_ type: T.Type, from string: String) throws -> T {
        var s = string
        return try s.withUTF8 { try decode(type, from: UnsafeRawBufferPointer($0)) }
    }

    /// Decodes a `T` from one JSON document; the bytes are only read during the call.
    ///
    /// The document is UTF-8, or UTF-16 or UTF-32 (either byte order) with or without a byte
    /// order mark, told apart by its first four bytes as `JSONDecoder` does (RFC 4627, section 3).
    /// A comma after the last element or member (`[1,]`, `{"a":1,}`) is accepted, as
    /// `JSONDecoder` accepts it, unless ``allowsTrailingCommas`` is false.
    public func decode<T: Decodable>(_ type: T.Type, from bytes: UnsafeRawBufferPointer) throws -> T {
        if let utf8 = try Self.utf8(of: bytes) {
            return try utf8.withUnsafeBytes { try decodeUTF8(type, from: $0) }
        }
        return try decodeUTF8(type, from: bytes)
    }

    /// The document as UTF-8 when it is UTF-16 or UTF-32 (nil: it is UTF-8).
    static func utf8(of bytes: UnsafeRawBufferPointer) throws -> [UInt8]? {
        let n = bytes.count
        guard n >= 2, bytes[0] == 0 || bytes[1] == 0 || bytes[0] >= 0xFE else { return nil }
        let b0 = bytes[0], b1 = bytes[1], b2: UInt8? = n > 2 ? bytes[2] : nil, b3: UInt8? = n > 3 ? bytes[3] : nil
        let encoding: String.Encoding, bom: Int
        switch (b0, b1, b2, b3) {
        case (0, 0, 0xFE, 0xFF): (encoding, bom) = (.utf32BigEndian, 4)
        case (0xFE, 0xFF, 0, 0): (encoding, bom) = (.utf32LittleEndian, 4)
        case (0xFE, 0xFF, _, _): (encoding, bom) = (.utf16BigEndian, 2)
        case (0xFF, 0xFE, _, _): (encoding, bom) = (.utf16LittleEndian, 2)
        case let (0, 0, 0, .some(c)) where c != 0: (encoding, bom) = (.utf32BigEndian, 0)
        case let (0, c, 0, .some(d)) where c != 0 && d != 0: (encoding, bom) = (.utf16BigEndian, 0)
        case let (c, 0, 0, 0) where c != 0: (encoding, bom) = (.utf32LittleEndian, 0)
        case let (c, 0, .some(d), 0) where c != 0 && d != 0: (encoding, bom) = (.utf16LittleEndian, 0)
        case let (0, c, nil, nil) where c != 0: (encoding, bom) = (.utf16BigEndian, 0)
        case let (c, 0, nil, nil) where c != 0: (encoding, bom) = (.utf16LittleEndian, 0)
        default: return nil
        }
        guard let text = String(bytes: bytes[bom...], encoding: encoding) else {
            throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription:
                "JSONValueDecoder.decode: the document is not valid \(encoding) (told by its first bytes, as JSONDecoder does)."))
        }
        return Array(text.utf8)
    }

    func decodeUTF8<T: Decodable>(_ type: T.Type, from bytes: UnsafeRawBufferPointer) throws -> T {
        if bytes.count >= Self.streamedArraySize && Self.startsWithArray(bytes) {
            // One element's tokens at a time: no memory for the whole document's.
            return try JSONTopArrayDecoder(bytes: bytes, options: Options(self)).decode(T.self)
        }
        var decoder: JSONTapeDecoder? = try JSONTapeDecoder.pool.take()
        defer { JSONTapeDecoder.pool.give(&decoder) }
        let d = decoder!
        try d.parse(bytes, options: Options(self))
        return try d.decodeTop(type)
    }

    /// Top-level arrays at least this large are decoded element by element.
    static let streamedArraySize = 256 * 1024

    /// Whether the first byte after whitespace (and a byte order mark) is `[`.
    static func startsWithArray(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var i = 0
        if bytes.count >= 3 && bytes[0] == 0xEF && bytes[1] == 0xBB && bytes[2] == 0xBF { i = 3 }
        while i < bytes.count, bytes[i] == 0x20 || bytes[i] == 0x0A || bytes[i] == 0x0D || bytes[i] == 0x09 { i += 1 }
        return i < bytes.count && bytes[i] == UInt8(ascii: "[")
    }



    /// The options as the decoder reads them (no existentials on the hot path).
    /// Sendable: `userInfo` holds the public API's `any Sendable` values.
    struct Options: @unchecked Sendable {
        var keys: JSONKeyConversion
        var date: DateDecodingStrategy
        var data: DataDecodingStrategy
        var nonConforming: NonConformingFloatDecodingStrategy
        var userInfo: [CodingUserInfoKey: Any]
        var trailingCommas: Bool
        init(_ d: JSONValueDecoder) {
            switch d.keyDecodingStrategy {
            case .useDefaultKeys: keys = JSONKeyConversion(.none)
            case .convertFromSnakeCase: keys = JSONKeyConversion(.fromSnakeCase)
            case .custom(let f): keys = JSONKeyConversion(.custom(f))
            }
            date = d.dateDecodingStrategy
            data = d.dataDecodingStrategy
            nonConforming = d.nonConformingFloatDecodingStrategy
            trailingCommas = d.allowsTrailingCommas
            var info: [CodingUserInfoKey: Any] = [:]
            for (k, v) in d.userInfo { info[k] = v }
            userInfo = info
        }
    }
}
