import CStreamQLite
import Foundation

/// Decodes `Decodable` values from JSON bytes with the library's C parser, without
/// building a tree or dictionaries: a drop-in for Foundation's `JSONDecoder`.
///
/// The parser (`sq_json.h`, strict RFC 8259) records each token on a flat tape;
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
public struct JSONValueDecoder: Sendable {
    /// How JSON object keys are matched to coding keys.
    public enum KeyDecodingStrategy: Sendable {
        /// Keys as they are.
        case useDefaultKeys
        /// `snake_case_keys` are converted to `camelCaseKeys` before matching, as
        /// `JSONDecoder.KeyDecodingStrategy.convertFromSnakeCase` does. Keys of
        /// `[String: T]` dictionaries are not converted.
        case convertFromSnakeCase
    }

    /// How `Date` values are read.
    public enum DateDecodingStrategy: Sendable {
        /// The library's date text, `yyyy-MM-dd HH:mm:ss.SSS` in UTC, as every
        /// other API of the library writes it (the default). Reading also accepts
        /// SQLite's other time values (`T` separator, optional seconds and fraction,
        /// `Z` or `±HH:MM`, a bare date), and a number as seconds since 1970, as a
        /// date column does.
        case databaseText
        /// `Date`'s own `Decodable` form (seconds since 2001-01-01), as `JSONDecoder`'s default.
        case deferredToDate
        /// A number of seconds since 1970-01-01T00:00:00Z.
        case secondsSince1970
        /// A number of milliseconds since 1970-01-01T00:00:00Z.
        case millisecondsSince1970
        /// An ISO 8601 string, parsed as `JSONDecoder`'s `.iso8601` does (`Date.ISO8601FormatStyle()`).
        case iso8601
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

    /// Creates a decoder with the default options.
    public init() {}

    /// Decodes a `T` from one JSON document.
    ///
    /// ```swift
    /// let config = try JSONValueDecoder().decode(Config.self, from: Array(fileBytes))
    /// ```
    public func decode<T: Decodable>(_ type: T.Type, from bytes: [UInt8]) throws -> T {
        try bytes.withUnsafeBytes { try decode(type, from: $0) }
    }

    /// Decodes a `T` from one JSON document.
    public func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
        try data.withUnsafeBytes { try decode(type, from: $0) }
    }

    /// Decodes a `T` from one JSON document held in a string.
    public func decode<T: Decodable>(_ type: T.Type, from string: String) throws -> T {
        var s = string
        return try s.withUTF8 { try decode(type, from: UnsafeRawBufferPointer($0)) }
    }

    /// Decodes a `T` from one JSON document; the bytes are only read during the call.
    public func decode<T: Decodable>(_ type: T.Type, from bytes: UnsafeRawBufferPointer) throws -> T {
        var tape: JSONTape? = try JSONTape.pool.take()
        defer { JSONTape.pool.give(&tape) }
        do {
            try tape!.parse(bytes)
        } catch let failure as JSONParseFailure {
            throw DecodingError.dataCorrupted(.init(
                codingPath: [],
                debugDescription: "The given data was not valid JSON: \(failure.message) (line \(failure.line), column \(failure.column), byte offset \(failure.offset))",
                underlyingError: failure))
        }
        return try Self.decode(T.self, tape: tape!, input: bytes, options: Options(self))
    }

    /// Decodes from a parsed tape (the decoder is gone when this returns, so the tape can be reused).
    static func decode<T: Decodable>(_ type: T.Type, tape: JSONTape, input: UnsafeRawBufferPointer, options: Options) throws -> T {
        let decoder = JSONTapeDecoder(tape: tape, input: input, options: options)
        return try decoder.decodeTop(T.self)
    }

    /// The options as the decoder reads them (no existentials on the hot path).
    /// Sendable: `userInfo` holds the public API's `any Sendable` values.
    struct Options: @unchecked Sendable {
        var snakeCase: Bool
        var date: DateDecodingStrategy
        var data: DataDecodingStrategy
        var nonConforming: NonConformingFloatDecodingStrategy
        var userInfo: [CodingUserInfoKey: Any]
        init(_ d: JSONValueDecoder) {
            if case .convertFromSnakeCase = d.keyDecodingStrategy { snakeCase = true } else { snakeCase = false }
            date = d.dateDecodingStrategy
            data = d.dataDecodingStrategy
            nonConforming = d.nonConformingFloatDecodingStrategy
            var info: [CodingUserInfoKey: Any] = [:]
            for (k, v) in d.userInfo { info[k] = v }
            userInfo = info
        }
    }
}

// MARK: - Token kinds

enum JSONKind {
    static let null = UInt8(SQ_JSON_NULL.rawValue)
    static let `false` = UInt8(SQ_JSON_FALSE.rawValue)
    static let `true` = UInt8(SQ_JSON_TRUE.rawValue)
    static let number = UInt8(SQ_JSON_NUMBER.rawValue)
    static let string = UInt8(SQ_JSON_STRING.rawValue)
    static let key = UInt8(SQ_JSON_KEY.rawValue)
    static let object = UInt8(SQ_JSON_BEGIN_OBJECT.rawValue)
    static let array = UInt8(SQ_JSON_BEGIN_ARRAY.rawValue)
    static let integerFlag = UInt8(SQ_JSON_F_INTEGER)
    static let negativeFlag = UInt8(SQ_JSON_F_NEGATIVE)

    /// As `JSONDecoder` names them in its messages.
    static func describe(_ kind: UInt8) -> String {
        switch kind {
        case string, key: return "a string"
        case number: return "number"
        case `true`, `false`: return "bool"
        case null: return "null"
        case object: return "a dictionary"
        default: return "an array"
        }
    }
}

/// An index in an unkeyed container's coding path (`Index 3`, as `JSONDecoder` prints it).
struct JSONIndexKey: CodingKey {
    var intValue: Int?
    var stringValue: String { "Index \(intValue!)" }
    init(index: Int) { intValue = index }
    init?(stringValue: String) { return nil }
    init?(intValue: Int) { self.intValue = intValue }
}

/// A key by name (dictionary keys, `super`).
struct JSONStringKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(_ s: String) { stringValue = s }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { return nil }
}

/// Marks `[String: V]`: with `convertFromSnakeCase` its keys are kept as they are (as `JSONDecoder` does).
protocol JSONStringDictionaryDecodable {
    static func decodeKeepingKeys(from decoder: JSONTapeDecoder, at index: Int) throws -> Self
}

extension Dictionary: JSONStringDictionaryDecodable where Key == String, Value: Decodable {
    static func decodeKeepingKeys(from decoder: JSONTapeDecoder, at index: Int) throws -> Self {
        let t = decoder.tokens[index]
        guard t.kind == JSONKind.object else { throw decoder.mismatch([String: Any].self, at: index) }
        var result: [String: Value] = [:]
        var j = index + 1
        let end = Int(t.length)
        while j < end {
            let key = decoder.string(at: j)
            let value = try decoder.unwrap(Value.self, at: j + 1, key: JSONStringKey(key))
            if result[key] == nil { result[key] = value }
            j = decoder.next(j + 1)
        }
        return result
    }
}

// MARK: - The decoder

/// The `Decoder` walking a ``JSONTape``. One instance decodes a whole document;
/// `init(from:)` calls get it with `current` set to their value's token.
final class JSONTapeDecoder: Decoder {
    let tape: JSONTape
    var tokens: UnsafeMutablePointer<JSONToken>
    /// The input bytes (streaming: the reader's window, which starts at input offset `inputOffset`).
    var input: UnsafePointer<UInt8>
    var inputCount: Int
    var inputOffset = 0
    /// Streaming: the line of `input[0]`'s line and where that line starts (input offset).
    var lineBase = 1
    var lineStartBase = 0
    var arena: UnsafeMutablePointer<UInt8>
    let options: JSONValueDecoder.Options
    /// The coding path of token `baseIndex` (the root: empty): paths are rebuilt from the
    /// tape when asked for (an error, `codingPath`), so decoding a value costs nothing for them.
    var basePath: [any CodingKey] = []
    var baseIndex = 0
    /// The token `container(keyedBy:)`, `unkeyedContainer()` and `singleValueContainer()` read.
    var current = 0
    /// Per object nesting level: where the next key is expected (see ``JSONKeyedContainer``);
    /// `hintCapacity` levels, grown on demand.
    var hints: UnsafeMutablePointer<KeyHint>
    var hintCapacity = 8
    var depth = 0 {
        didSet { if _slowPath(depth >= hintCapacity) { growHints() } }
    }
    /// Keeps the input bytes alive when the decoder owns them (a column's JSON text).
    var inputOwner: AnyObject?
    /// `snake_case` JSON key → converted key.
    var converted: [String: String] = [:]

    struct KeyHint {
        /// The object the hint is about.
        var object: Int = -1
        /// The key token expected next.
        var next: Int = 0
        /// Every key so far was found at `next`, starting at the object's first member:
        /// the members before `next` hold other keys, so a match at `next` is the first one.
        var inOrder = true
    }

    var codingPath: [any CodingKey] { path(to: current) }
    var userInfo: [CodingUserInfoKey: Any] { options.userInfo }

    init(tape: JSONTape, input: UnsafeRawBufferPointer, options: JSONValueDecoder.Options) {
        self.tape = tape
        tokens = tape.tokens
        self.input = (input.baseAddress ?? UnsafeRawPointer(bitPattern: 1)!).assumingMemoryBound(to: UInt8.self)
        inputCount = input.count
        arena = tape.arena
        self.options = options
        hints = .allocate(capacity: hintCapacity)
        hints.initialize(repeating: KeyHint(), count: hintCapacity)
    }

    deinit { hints.deallocate() }

    func growHints() {
        let capacity = max(hintCapacity * 2, depth + 1)
        let h = UnsafeMutablePointer<KeyHint>.allocate(capacity: capacity)
        h.moveInitialize(from: hints, count: hintCapacity)
        (h + hintCapacity).initialize(repeating: KeyHint(), count: capacity - hintCapacity)
        hints.deallocate()
        hints = h
        hintCapacity = capacity
    }

    func decodeTop<T: Decodable>(_ type: T.Type) throws -> T {
        try unwrap(T.self, at: 0, key: nil as JSONStringKey?)
    }

    // MARK: Tape access

    /// The index of the token after the value at `i` (skips a container's subtree).
    @inline(__always) func next(_ i: Int) -> Int {
        let t = tokens[i]
        return t.kind >= JSONKind.object ? Int(t.length) : i &+ 1
    }

    /// The text of a string, key or number token.
    @inline(__always) func text(_ t: JSONToken) -> UnsafePointer<UInt8> {
        t.flags & JSONTape.arenaFlag != 0 ? UnsafePointer(arena + Int(t.position)) : input + (Int(t.position) &- inputOffset)
    }

    @inline(__always) func bytes(at i: Int) -> UnsafeBufferPointer<UInt8> {
        let t = tokens[i]
        return UnsafeBufferPointer(start: text(t), count: Int(t.length))
    }

    /// The string or key at `i` (the parser validated its UTF-8).
    func string(at i: Int) -> String {
        String(decoding: bytes(at: i), as: UTF8.self)
    }

    /// The document offset of the token at `i`.
    func offset(of i: Int) -> Int {
        let t = tokens[i]
        if t.flags & JSONTape.arenaFlag != 0 {
            return Int(UnsafeRawPointer(arena + Int(t.position) - 8).loadUnaligned(as: UInt64.self))
        }
        if t.kind == JSONKind.string || t.kind == JSONKind.key { return Int(t.position) - 1 }
        return Int(t.position)
    }

    /// "line L, column C, byte offset O" of the token at `i` (columns count bytes from 1).
    func location(of i: Int) -> String {
        let o = offset(of: i)
        var line = lineBase
        var lineStart = lineStartBase
        var p = 0
        let end = min(max(o - inputOffset, 0), inputCount)
        while p < end {
            if input[p] == 0x0A { line += 1; lineStart = inputOffset + p + 1 }
            p += 1
        }
        return "line \(line), column \(o - lineStart + 1), byte offset \(o)"
    }

    // MARK: Errors

    /// The coding path of the value at token `target`, rebuilt from the tape: object
    /// members add their key (converted with the snake_case strategy), array
    /// elements their index.
    func path(to target: Int) -> [any CodingKey] {
        var result = basePath
        var i = baseIndex
        guard target >= 0, i >= 0 else { return result }
        while i != target {
            let t = tokens[i]
            let end = Int(t.length)
            guard t.kind >= JSONKind.object, target > i, target < end else { break }
            if t.kind == JSONKind.object {
                var j = i + 1
                while j < end {
                    let after = next(j + 1)
                    if target <= j { return result }  // a key token: its object's path
                    if target < after {
                        result.append(JSONStringKey(keyString(at: j)))
                        i = j + 1
                        break
                    }
                    j = after
                }
            } else {
                var j = i + 1
                var n = 0
                while j < end {
                    let after = next(j)
                    if target < after {
                        result.append(JSONIndexKey(index: n))
                        i = j
                        break
                    }
                    j = after
                    n += 1
                }
            }
        }
        return result
    }

    func mismatch(_ type: Any.Type, at i: Int, key: (some CodingKey)? = nil as JSONStringKey?) -> DecodingError {
        let codingPath = path(to: i)
        let kind = tokens[i].kind
        if kind == JSONKind.null {
            return .valueNotFound(type, .init(codingPath: codingPath,
                                              debugDescription: "Cannot get value of type \(type) -- found null value instead (\(location(of: i)))"))
        }
        return .typeMismatch(type, .init(codingPath: codingPath,
                                         debugDescription: "Expected to decode \(type) but found \(JSONKind.describe(kind)) instead (\(location(of: i)))"))
    }

    func corrupted(_ message: String, at i: Int, key: (some CodingKey)?) -> DecodingError {
        .dataCorrupted(.init(codingPath: path(to: i), debugDescription: "\(message) (\(location(of: i)))"))
    }

    func notRepresentable(_ type: Any.Type, at i: Int, key: (some CodingKey)?) -> DecodingError {
        let literal = String(decoding: bytes(at: i), as: UTF8.self)
        return corrupted("Number \(literal) is not representable in Swift as \(type)", at: i, key: key)
    }

    // MARK: Scalars

    @inline(__always)
    func readBool(at i: Int, key: (some CodingKey)?) throws -> Bool {
        let k = tokens[i].kind
        if k == JSONKind.true { return true }
        if k == JSONKind.false { return false }
        throw DecodingError.typeMismatch(Bool.self, .init(
            codingPath: path(to: i),
            debugDescription: "Expected to decode Bool but found \(JSONKind.describe(k)) instead (\(location(of: i)))"))
    }

    @inline(__always)
    func readString(at i: Int, key: (some CodingKey)?) throws -> String {
        let t = tokens[i]
        guard t.kind == JSONKind.string else { throw mismatch(String.self, at: i, key: key) }
        return String(decoding: UnsafeBufferPointer(start: text(t), count: Int(t.length)), as: UTF8.self)
    }

    @inline(__always)
    func readInteger<T: FixedWidthInteger>(_ type: T.Type, at i: Int, key: (some CodingKey)?) throws -> T {
        let t = tokens[i]
        guard t.kind == JSONKind.number else { throw mismatch(T.self, at: i, key: key) }
        if _fastPath(t.flags & JSONKind.integerFlag != 0) {
            // Up to 18 digits cannot overflow an Int64.
            let p = text(t)
            let n = Int(t.length)
            let negative = p[0] == UInt8(ascii: "-")
            var k = negative ? 1 : 0
            if _fastPath(n - k <= 18) {
                var v: Int64 = 0
                while k < n {
                    v = v &* 10 &+ Int64(p[k] &- 0x30)
                    k &+= 1
                }
                if negative { v = -v }
                if let r = T(exactly: v) { return r }
                throw notRepresentable(T.self, at: i, key: key)
            }
        }
        return try readIntegerSlow(T.self, at: i, key: key)
    }

    /// Long integers, and numbers with a fraction or exponent: `JSONDecoder`'s rules.
    func readIntegerSlow<T: FixedWidthInteger>(_ type: T.Type, at i: Int, key: (some CodingKey)?) throws -> T {
        let b = bytes(at: i)
        if tokens[i].flags & JSONKind.integerFlag != 0 {
            // Exact, with overflow checks.
            let negative = b[0] == UInt8(ascii: "-")
            var v: T = 0
            var ok = true
            for c in b.dropFirst(negative ? 1 : 0) {
                let (m, o1) = v.multipliedReportingOverflow(by: 10)
                let d = T(c &- 0x30)
                let (s, o2) = negative ? m.subtractingReportingOverflow(d) : m.addingReportingOverflow(d)
                if o1 || o2 { ok = false; break }
                v = s
            }
            if ok { return v }
        }
        // As `JSONDecoder`: through Double when that is exact below 2^53, else through Decimal.
        let d = sq_json_number_double(UnsafeRawPointer(b.baseAddress!).assumingMemoryBound(to: CChar.self), b.count)
        guard let value = T(exactly: d) else { throw notRepresentable(T.self, at: i, key: key) }
        if d.magnitude < 9_007_199_254_740_992 { return value }
        if let decimal = Decimal(string: String(decoding: b, as: UTF8.self)), let value = T(jsonDecimal: decimal) {
            return value
        }
        throw notRepresentable(T.self, at: i, key: key)
    }

    @inline(__always)
    func readDouble(at i: Int, key: (some CodingKey)?) throws -> Double {
        let t = tokens[i]
        guard t.kind == JSONKind.number else { return try nonConforming(Double.self, at: i, key: key) }
        let p = text(t)
        let n = Int(t.length)
        if t.flags & JSONKind.integerFlag != 0 && n <= 16 {
            // At most 15 digits: exact in a Double.
            let negative = p[0] == UInt8(ascii: "-")
            var k = negative ? 1 : 0
            var v: Int64 = 0
            while k < n {
                v = v &* 10 &+ Int64(p[k] &- 0x30)
                k &+= 1
            }
            if n - (negative ? 1 : 0) <= 15 {
                // -0 stays -0.0, as strtod gives.
                return negative ? (v == 0 ? -0.0 : -Double(v)) : Double(v)
            }
        }
        if let d = fastDouble(p, n) { return d }
        let d = sq_json_number_double(UnsafeRawPointer(p).assumingMemoryBound(to: CChar.self), n)
        return try checkedFloat(d, at: i, key: key)
    }

    /// Clinger's fast path: up to 15 significant digits and a power of ten up to 22 are exact.
    @inline(__always)
    func fastDouble(_ p: UnsafePointer<UInt8>, _ n: Int) -> Double? {
        var k = 0
        let negative = p[0] == UInt8(ascii: "-")
        if negative { k = 1 }
        var mantissa: UInt64 = 0
        var digits = 0
        var scale = 0
        var seenDot = false
        while k < n {
            let c = p[k]
            if c == UInt8(ascii: ".") { seenDot = true; k += 1; continue }
            if c == UInt8(ascii: "e") || c == UInt8(ascii: "E") { break }
            if mantissa != 0 || c != 0x30 { digits += 1 }
            if digits > 15 { return nil }
            mantissa = mantissa * 10 + UInt64(c - 0x30)
            if seenDot { scale -= 1 }
            k += 1
        }
        if k < n {
            k += 1
            var expNegative = false
            if p[k] == UInt8(ascii: "-") { expNegative = true; k += 1 } else if p[k] == UInt8(ascii: "+") { k += 1 }
            var e = 0
            while k < n {
                e = e * 10 + Int(p[k] - 0x30)
                if e > 400 { return nil }
                k += 1
            }
            scale += expNegative ? -e : e
        }
        var d = Double(mantissa)
        if scale < 0 {
            guard scale >= -22 else { return nil }
            d /= powersOfTen[-scale]
        } else if scale > 0 {
            guard scale <= 22 else { return nil }
            d *= powersOfTen[scale]
        }
        return negative ? -d : d
    }

    /// `JSONDecoder` rejects numbers that overflow to ±∞ or underflow to 0.
    func checkedFloat<F: BinaryFloatingPoint>(_ value: F, at i: Int, key: (some CodingKey)?) throws -> F {
        if value.isFinite {
            if value != 0 { return value }
            // A true zero has no non-zero digit before its exponent.
            for c in bytes(at: i) {
                if c == UInt8(ascii: "e") || c == UInt8(ascii: "E") { break }
                if c >= UInt8(ascii: "1") && c <= UInt8(ascii: "9") { throw notRepresentable(F.self, at: i, key: key) }
            }
            return value
        }
        throw notRepresentable(F.self, at: i, key: key)
    }

    func readFloat(at i: Int, key: (some CodingKey)?) throws -> Float {
        let t = tokens[i]
        guard t.kind == JSONKind.number else { return try nonConforming(Float.self, at: i, key: key) }
        // strtof rounds once, straight to Float (as JSONDecoder).
        guard let f = Float(Substring(String(decoding: bytes(at: i), as: UTF8.self))) else {
            throw notRepresentable(Float.self, at: i, key: key)
        }
        return try checkedFloat(f, at: i, key: key)
    }

    func nonConforming<F: BinaryFloatingPoint>(_ type: F.Type, at i: Int, key: (some CodingKey)?) throws -> F {
        if case .convertFromString(let posInf, let negInf, let nan) = options.nonConforming, tokens[i].kind == JSONKind.string {
            let b = bytes(at: i)
            if b.elementsEqual(posInf.utf8) { return F.infinity }
            if b.elementsEqual(negInf.utf8) { return -F.infinity }
            if b.elementsEqual(nan.utf8) { return F.nan }
        }
        throw mismatch(F.self, at: i, key: key)
    }

    // MARK: Any value

    /// Decodes the value at token `i`; `key` is its key in the enclosing container (for the coding path).
    @inline(__always)
    func unwrap<T: Decodable>(_ type: T.Type, at i: Int, key: (some CodingKey)?) throws -> T {
        // The common scalars without going through `init(from:)`.
        if T.self == String.self { return unsafeBitCast(try readString(at: i, key: key), to: T.self) }
        if T.self == Int.self { return unsafeBitCast(try readInteger(Int.self, at: i, key: key), to: T.self) }
        if T.self == Double.self { return unsafeBitCast(try readDouble(at: i, key: key), to: T.self) }
        if T.self == Bool.self { return unsafeBitCast(try readBool(at: i, key: key), to: T.self) }
        return try unwrapOther(T.self, at: i, key: key)
    }

    func unwrapOther<T: Decodable>(_ type: T.Type, at i: Int, key: (some CodingKey)?) throws -> T {
        if T.self == Date.self { return try readDate(at: i, key: key) as! T }
        if T.self == Data.self { return try readData(at: i, key: key) as! T }
        if T.self == URL.self { return try readURL(at: i, key: key) as! T }
        if T.self == Decimal.self { return try readDecimal(at: i, key: key) as! T }
        if options.snakeCase, let dictionary = T.self as? any JSONStringDictionaryDecodable.Type {
            return try nested(key) { try dictionary.decodeKeepingKeys(from: self, at: i) as! T }
        }
        return try nested(key) {
            current = i
            return try T(from: self)
        }
    }

    /// Runs `body` one level deeper (the key only documents the call: paths come from the tape).
    @inline(__always)
    func nested<R>(_ key: (some CodingKey)?, _ body: () throws -> R) throws -> R {
        let saved = current
        depth += 1
        defer {
            depth -= 1
            current = saved
        }
        return try body()
    }

    func readDate(at i: Int, key: (some CodingKey)?) throws -> Date {
        if tokens[i].kind == JSONKind.null { throw mismatch(Date.self, at: i, key: key) }
        switch options.date {
        case .databaseText:
            if tokens[i].kind == JSONKind.number {
                // As a date column: a number is seconds since 1970.
                return Date(timeIntervalSince1970: try readDouble(at: i, key: key))
            }
            guard tokens[i].kind == JSONKind.string else { throw mismatch(String.self, at: i, key: key) }
            guard let date = parseSQLiteDate(bytes(at: i)) else {
                throw corrupted("Expected a date as text yyyy-MM-dd HH:mm:ss.SSS (UTC), found \"\(string(at: i))\"", at: i, key: key)
            }
            return date
        case .deferredToDate:
            return try nested(key) { current = i; return try Date(from: self) }
        case .secondsSince1970:
            return Date(timeIntervalSince1970: try readDouble(at: i, key: key))
        case .millisecondsSince1970:
            return Date(timeIntervalSince1970: try readDouble(at: i, key: key) / 1000.0)
        case .iso8601:
            let s = try readString(at: i, key: key)
            guard let date = try? Date.ISO8601FormatStyle().parse(s) else {
                throw corrupted("Expected date string to be ISO8601-formatted.", at: i, key: key)
            }
            return date
        case .custom(let body):
            return try nested(key) { current = i; return try body(self) }
        }
    }

    func readData(at i: Int, key: (some CodingKey)?) throws -> Data {
        if tokens[i].kind == JSONKind.null { throw mismatch(Data.self, at: i, key: key) }
        switch options.data {
        case .base64:
            guard tokens[i].kind == JSONKind.string else { throw mismatch(String.self, at: i, key: key) }
            guard let data = Data(base64Encoded: string(at: i)) else {
                throw corrupted("Encountered Data is not valid Base64.", at: i, key: key)
            }
            return data
        case .deferredToData:
            return try nested(key) { current = i; return try Data(from: self) }
        case .custom(let body):
            return try nested(key) { current = i; return try body(self) }
        }
    }

    func readURL(at i: Int, key: (some CodingKey)?) throws -> URL {
        if tokens[i].kind == JSONKind.null { throw mismatch(URL.self, at: i, key: key) }
        let s = try readString(at: i, key: key)
        guard let url = URL(string: s) else { throw corrupted("Invalid URL string.", at: i, key: key) }
        return url
    }

    func readDecimal(at i: Int, key: (some CodingKey)?) throws -> Decimal {
        guard tokens[i].kind == JSONKind.number else { throw mismatch(Decimal.self, at: i, key: key) }
        guard let d = Decimal(string: String(decoding: bytes(at: i), as: UTF8.self)) else {
            throw notRepresentable(Decimal.self, at: i, key: key)
        }
        return d
    }

    // MARK: Decoder

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        let i = current
        guard i >= 0 else { throw missingValue([String: Any].self) }
        let t = tokens[i]
        guard t.kind == JSONKind.object else {
            if t.kind == JSONKind.null {
                throw DecodingError.valueNotFound([String: Any].self, .init(
                    codingPath: path(to: i), debugDescription: "Cannot get keyed decoding container -- found null value instead (\(location(of: i)))"))
            }
            throw mismatch([String: Any].self, at: i)
        }
        return KeyedDecodingContainer(JSONKeyedContainer<Key>(decoder: self, object: i, end: Int(t.length), depth: depth))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let i = current
        guard i >= 0 else { throw missingValue([Any].self) }
        let t = tokens[i]
        guard t.kind == JSONKind.array else {
            if t.kind == JSONKind.null {
                throw DecodingError.valueNotFound([Any].self, .init(
                    codingPath: path(to: i), debugDescription: "Cannot get unkeyed decoding container -- found null value instead (\(location(of: i)))"))
            }
            throw mismatch([Any].self, at: i)
        }
        return JSONUnkeyedContainer(decoder: self, array: i, end: Int(t.length))
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        JSONSingleValueContainer(decoder: self, index: current)
    }

    /// The error for a value that is not there (a `superDecoder` of a missing key reads as null).
    func missingValue(_ type: Any.Type) -> DecodingError {
        .valueNotFound(type, .init(codingPath: basePath, debugDescription: "Cannot get value of type \(type) -- found null value instead"))
    }

    /// A decoder for the value at `i` (-1: a missing key) whose coding path is `path` (superDecoder).
    func decoder(for i: Int, path: [any CodingKey]) -> JSONTapeDecoder {
        let d = JSONTapeDecoder(tape: tape, input: UnsafeRawBufferPointer(start: input, count: inputCount), options: options)
        d.basePath = path
        d.baseIndex = i
        d.current = i
        d.depth = depth
        return d
    }

    // MARK: Keys

    /// The key at `i` as the coding keys see it (converted from snake_case with that strategy).
    func keyString(at i: Int) -> String {
        let raw = string(at: i)
        guard options.snakeCase else { return raw }
        if let c = converted[raw] { return c }
        let c = convertFromSnakeCase(raw)
        converted[raw] = c
        return c
    }

    /// Whether the key at `j` is `name`.
    @inline(__always)
    func keyMatches(_ j: Int, _ name: UnsafeBufferPointer<UInt8>) -> Bool {
        let t = tokens[j]
        guard Int(t.length) == name.count else { return false }
        return name.count == 0 || memcmp(text(t), name.baseAddress!, name.count) == 0
    }

    /// The value token of `key` in the object at `object`, or nil; with `consume`, moves the
    /// object's hint past it.
    @inline(__always)
    func find(_ key: some CodingKey, object: Int, end: Int, depth: Int, consume: Bool) -> Int? {
        if options.snakeCase { return findConverted(key.stringValue, object: object, end: end) }
        var name = key.stringValue
        return name.withUTF8 { name -> Int? in
            let h = hints + depth
            if h.pointee.object != object {
                h.pointee = KeyHint(object: object, next: object + 1, inOrder: true)
            }
            let n = h.pointee.next
            if _fastPath(h.pointee.inOrder && n < end && keyMatches(n, name)) {
                if consume { h.pointee.next = next(n + 1) }
                return n + 1
            }
            return findSlow(name, object: object, end: end, hint: h, consume: consume)
        }
    }

    func findSlow(_ name: UnsafeBufferPointer<UInt8>, object: Int, end: Int, hint h: UnsafeMutablePointer<KeyHint>, consume: Bool) -> Int? {
        var j = object + 1
        var sawNonASCII = false
        while j < end {
            if keyMatches(j, name) {
                if sawNonASCII, let earlier = findEquivalent(String(decoding: name, as: UTF8.self), object: object, end: j) {
                    return earlier
                }
                if consume {
                    h.pointee.inOrder = false
                    h.pointee.next = next(j + 1)
                }
                return j + 1
            }
            if !sawNonASCII && bytes(at: j).contains(where: { $0 >= 0x80 }) { sawNonASCII = true }
            j = next(j + 1)
        }
        // No byte-equal key: String equality (canonical equivalence), as JSONDecoder's dictionary.
        if sawNonASCII || name.contains(where: { $0 >= 0x80 }) {
            return findEquivalent(String(decoding: name, as: UTF8.self), object: object, end: end)
        }
        return nil
    }

    /// The first member whose key equals `name` as Strings compare.
    func findEquivalent(_ name: String, object: Int, end: Int) -> Int? {
        var j = object + 1
        while j < end {
            if string(at: j) == name { return j + 1 }
            j = next(j + 1)
        }
        return nil
    }

    func findConverted(_ name: String, object: Int, end: Int) -> Int? {
        var j = object + 1
        while j < end {
            if keyString(at: j) == name { return j + 1 }
            j = next(j + 1)
        }
        return nil
    }
}

/// `JSONDecoder`'s `convertFromSnakeCase` conversion.
func convertFromSnakeCase(_ stringKey: String) -> String {
    guard !stringKey.isEmpty else { return stringKey }
    guard let firstNonUnderscore = stringKey.firstIndex(where: { $0 != "_" }) else { return stringKey }
    var lastNonUnderscore = stringKey.index(before: stringKey.endIndex)
    while lastNonUnderscore > firstNonUnderscore && stringKey[lastNonUnderscore] == "_" {
        stringKey.formIndex(before: &lastNonUnderscore)
    }
    let keyRange = firstNonUnderscore...lastNonUnderscore
    let leading = stringKey[stringKey.startIndex..<firstNonUnderscore]
    let trailing = stringKey[stringKey.index(after: lastNonUnderscore)..<stringKey.endIndex]
    let components = stringKey[keyRange].split(separator: "_")
    let joined: String
    if components.count == 1 {
        joined = String(stringKey[keyRange])
    } else {
        joined = ([components[0].lowercased()] + components[1...].map { $0.capitalized }).joined()
    }
    return String(leading) + joined + String(trailing)
}

private let powersOfTen: [Double] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
    1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
]

extension FixedWidthInteger {
    /// `JSONDecoder`'s Decimal → integer conversion: the fraction is truncated; nil when it does not fit.
    init?(jsonDecimal decimal: Decimal) {
        guard decimal.isFinite else { return nil }
        // The description is plain digits ("-12345678901234567.5", no exponent).
        let text = decimal.description
        let integral = text.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)[0]
        if integral == "-0" { self = 0; return }
        guard let v = Self(integral) else { return nil }
        self = v
    }
}

// MARK: - Containers

struct JSONKeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let decoder: JSONTapeDecoder
    let object: Int
    let end: Int
    let depth: Int

    var codingPath: [any CodingKey] { decoder.path(to: object) }

    @inline(__always) func value(_ key: Key) throws -> Int {
        if let v = decoder.find(key, object: object, end: end, depth: depth, consume: true) { return v }
        throw keyNotFound(key)
    }

    func keyNotFound(_ key: Key) -> DecodingError {
        DecodingError.keyNotFound(key, .init(
            codingPath: codingPath,
            debugDescription: "No value associated with key \(key) (\"\(key.stringValue)\") in the object at \(decoder.location(of: object))"))
    }

    var allKeys: [Key] {
        var seen = Set<String>()
        var keys: [Key] = []
        var j = object + 1
        while j < end {
            let s = decoder.keyString(at: j)
            if seen.insert(s).inserted, let k = Key(stringValue: s) { keys.append(k) }
            j = decoder.next(j + 1)
        }
        return keys
    }

    func contains(_ key: Key) -> Bool {
        decoder.find(key, object: object, end: end, depth: depth, consume: false) != nil
    }

    func decodeNil(forKey key: Key) throws -> Bool {
        guard let v = decoder.find(key, object: object, end: end, depth: depth, consume: false) else { throw keyNotFound(key) }
        return decoder.tokens[v].kind == JSONKind.null
    }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try decoder.readBool(at: try value(key), key: key) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try decoder.readString(at: try value(key), key: key) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try decoder.readDouble(at: try value(key), key: key) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try decoder.readFloat(at: try value(key), key: key) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try decoder.readInteger(type, at: try value(key), key: key) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try decoder.readInteger(type, at: try value(key), key: key) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try decoder.readInteger(type, at: try value(key), key: key) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try decoder.readInteger(type, at: try value(key), key: key) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try decoder.readInteger(type, at: try value(key), key: key) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try decoder.readInteger(type, at: try value(key), key: key) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try decoder.readInteger(type, at: try value(key), key: key) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try decoder.readInteger(type, at: try value(key), key: key) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try decoder.readInteger(type, at: try value(key), key: key) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try decoder.readInteger(type, at: try value(key), key: key) }
    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try decoder.unwrap(T.self, at: try value(key), key: key)
    }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        guard let v = decoder.find(key, object: object, end: end, depth: depth, consume: true),
              decoder.tokens[v].kind != JSONKind.null else { return nil }
        return try decoder.unwrap(T.self, at: v, key: key)
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        let v = try value(key)
        return try decoder.nested(key) { decoder.current = v; return try decoder.container(keyedBy: type) }
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        let v = try value(key)
        return try decoder.nested(key) { decoder.current = v; return try decoder.unkeyedContainer() }
    }

    func superDecoder() throws -> any Decoder { superDecoder(JSONStringKey("super")) }
    func superDecoder(forKey key: Key) throws -> any Decoder { superDecoder(key) }

    /// A decoder for the key's value, or for `null` when the key is missing (as `JSONDecoder`).
    private func superDecoder(_ key: some CodingKey) -> any Decoder {
        let v = decoder.find(key, object: object, end: end, depth: depth, consume: false)
        return decoder.decoder(for: v ?? -1, path: codingPath + [key])
    }
}

struct JSONUnkeyedContainer: UnkeyedDecodingContainer {
    let decoder: JSONTapeDecoder
    let array: Int
    let end: Int
    /// The token of the next element.
    var position: Int
    var currentIndex = 0

    init(decoder: JSONTapeDecoder, array: Int, end: Int) {
        self.decoder = decoder
        self.array = array
        self.end = end
        position = array + 1
    }

    var codingPath: [any CodingKey] { decoder.path(to: array) }

    var count: Int? {
        var n = 0
        var j = array + 1
        while j < end { n += 1; j = decoder.next(j) }
        return n
    }

    var isAtEnd: Bool { position >= end }

    @inline(__always) func element<T>(_ type: T.Type) throws -> Int {
        guard position < end else {
            throw DecodingError.valueNotFound(T.self, .init(
                codingPath: codingPath + [JSONIndexKey(index: currentIndex)], debugDescription: "Unkeyed container is at end."))
        }
        return position
    }

    @inline(__always) mutating func advance() {
        position = decoder.next(position)
        currentIndex += 1
    }

    @inline(__always) mutating func read<T>(_ type: T.Type, _ body: (JSONTapeDecoder, Int, JSONIndexKey) throws -> T) throws -> T {
        let i = try element(T.self)
        let value = try body(decoder, i, JSONIndexKey(index: currentIndex))
        advance()
        return value
    }

    mutating func decodeNil() throws -> Bool {
        let i = try element((Any?).self)
        if decoder.tokens[i].kind == JSONKind.null { advance(); return true }
        return false
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool { try read(type) { d, i, k in try d.readBool(at: i, key: k) } }
    mutating func decode(_ type: String.Type) throws -> String { try read(type) { d, i, k in try d.readString(at: i, key: k) } }
    mutating func decode(_ type: Double.Type) throws -> Double { try read(type) { d, i, k in try d.readDouble(at: i, key: k) } }
    mutating func decode(_ type: Float.Type) throws -> Float { try read(type) { d, i, k in try d.readFloat(at: i, key: k) } }
    mutating func decode(_ type: Int.Type) throws -> Int { try read(type) { d, i, k in try d.readInteger(type, at: i, key: k) } }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try read(type) { d, i, k in try d.readInteger(type, at: i, key: k) } }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try read(type) { d, i, k in try d.readInteger(type, at: i, key: k) } }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try read(type) { d, i, k in try d.readInteger(type, at: i, key: k) } }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try read(type) { d, i, k in try d.readInteger(type, at: i, key: k) } }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try read(type) { d, i, k in try d.readInteger(type, at: i, key: k) } }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try read(type) { d, i, k in try d.readInteger(type, at: i, key: k) } }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try read(type) { d, i, k in try d.readInteger(type, at: i, key: k) } }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try read(type) { d, i, k in try d.readInteger(type, at: i, key: k) } }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try read(type) { d, i, k in try d.readInteger(type, at: i, key: k) } }
    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { try read(type) { d, i, k in try d.unwrap(T.self, at: i, key: k) } }

    mutating func decodeIfPresent<T: Decodable>(_ type: T.Type) throws -> T? {
        guard position < end else { return nil }
        if decoder.tokens[position].kind == JSONKind.null { advance(); return nil }
        return try decode(T.self)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        try read(KeyedDecodingContainer<NestedKey>.self) { d, i, key in
            try d.nested(key) { d.current = i; return try d.container(keyedBy: type) }
        }
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try read((any UnkeyedDecodingContainer).self) { d, i, key in
            try d.nested(key) { d.current = i; return try d.unkeyedContainer() }
        }
    }

    mutating func superDecoder() throws -> any Decoder {
        let path = codingPath
        return try read((any Decoder).self) { d, i, key in d.decoder(for: i, path: path + [key]) }
    }
}

struct JSONSingleValueContainer: SingleValueDecodingContainer {
    let decoder: JSONTapeDecoder
    /// The value's token, -1 for a missing value (a `superDecoder` of a missing key reads as null).
    let index: Int

    var codingPath: [any CodingKey] { index >= 0 ? decoder.path(to: index) : decoder.basePath }

    @inline(__always) func read<T>(_ body: (Int) throws -> T) throws -> T {
        guard index >= 0 else { throw decoder.missingValue(T.self) }
        return try body(index)
    }
    private var none: JSONStringKey? { nil }

    func decodeNil() -> Bool { index < 0 || decoder.tokens[index].kind == JSONKind.null }
    func decode(_ type: Bool.Type) throws -> Bool { try read { try decoder.readBool(at: $0, key: none) } }
    func decode(_ type: String.Type) throws -> String { try read { try decoder.readString(at: $0, key: none) } }
    func decode(_ type: Double.Type) throws -> Double { try read { try decoder.readDouble(at: $0, key: none) } }
    func decode(_ type: Float.Type) throws -> Float { try read { try decoder.readFloat(at: $0, key: none) } }
    func decode(_ type: Int.Type) throws -> Int { try read { try decoder.readInteger(type, at: $0, key: none) } }
    func decode(_ type: Int8.Type) throws -> Int8 { try read { try decoder.readInteger(type, at: $0, key: none) } }
    func decode(_ type: Int16.Type) throws -> Int16 { try read { try decoder.readInteger(type, at: $0, key: none) } }
    func decode(_ type: Int32.Type) throws -> Int32 { try read { try decoder.readInteger(type, at: $0, key: none) } }
    func decode(_ type: Int64.Type) throws -> Int64 { try read { try decoder.readInteger(type, at: $0, key: none) } }
    func decode(_ type: UInt.Type) throws -> UInt { try read { try decoder.readInteger(type, at: $0, key: none) } }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try read { try decoder.readInteger(type, at: $0, key: none) } }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try read { try decoder.readInteger(type, at: $0, key: none) } }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try read { try decoder.readInteger(type, at: $0, key: none) } }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try read { try decoder.readInteger(type, at: $0, key: none) } }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try read { try decoder.unwrap(T.self, at: $0, key: none) } }
}
