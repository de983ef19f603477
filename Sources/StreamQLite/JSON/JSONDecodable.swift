import CStreamQLite
import Foundation

/// A type that reads itself from a JSON object by hand: the fastest way into Swift
/// values, the JSON counterpart of ``RowDecodable``.
///
/// ``JSONValueDecoder`` uses `init(json:)` wherever it decodes a value of such a type
/// (a whole document, the elements of `[T]`, streamed ``JSONValueDecoder/elements(of:in:layout:)-(_,UnsafeRawBufferPointer,_)``,
/// a property of another type), instead of `init(from:)`. The reader matches the keys
/// you name against the object's keys as bytes, in the order you ask for them (one
/// comparison per key when the JSON has them in that order), with no `CodingKey`, no
/// container box and no `String` per key; numbers and strings are read straight from
/// the parser's tokens.
///
/// ```swift
/// struct Task: Codable, JSONDecodable {
///     var id: Int
///     var title: String
///     var done: Bool
///     var tags: [String]
///     var note: String?
///
///     init(json: inout JSONObjectReader) throws {
///         id = try json.decode("id")
///         title = try json.decode("title")
///         done = try json.decode("done")
///         tags = try json.decode("tags")              // any Decodable value
///         note = try json.decodeIfPresent("note")     // missing or null: nil
///     }
/// }
/// let tasks = try JSONValueDecoder().decode([Task].self, from: body)
/// ```
///
/// The keys are matched as the `Decodable` path matches a type's coding keys: with
/// ``JSONValueDecoder/KeyDecodingStrategy/convertFromSnakeCase`` a key written
/// `"firstName"` reads the member `"first_name"` (as ``JSONEncodable`` writes it with
/// `convertToSnakeCase`), so `init(json:)` and `init(from:)` read the same members. Results and errors are those of the `Decodable` path (the same conversions,
/// a missing key is `DecodingError.keyNotFound` with its coding path and position;
/// duplicate keys: the first wins). The reader is valid only during `init(json:)`.
public protocol JSONDecodable: Decodable {
    /// Reads the value from the JSON object `json`.
    init(json: inout JSONObjectReader) throws
}

/// The JSON object a ``JSONDecodable`` type reads in `init(json:)`.
public struct JSONObjectReader {
    let decoder: Unmanaged<JSONTapeDecoder>
    /// The object's token and the index after its last member.
    let object: Int
    let end: Int
    /// The key token expected next.
    var next: Int
    /// Every key so far was found at `next`, starting at the first member: a key found
    /// at `next` is then its first occurrence.
    var inOrder = true
    /// The decoder has a key strategy: keys are compared converted.
    let convertsKeys: Bool

    /// The decoder's tape and input, read here without going through the decoder.
    let tokens: UnsafeMutablePointer<JSONToken>
    let input: UnsafePointer<UInt8>
    let inputOffset: Int
    let arena: UnsafeMutablePointer<UInt8>

    init(decoder: JSONTapeDecoder, object: Int, end: Int) {
        self.decoder = Unmanaged.passUnretained(decoder)
        self.object = object
        self.end = end
        next = object + 1
        tokens = decoder.tokens
        input = decoder.input
        inputOffset = decoder.inputOffset
        arena = decoder.arena
        convertsKeys = decoder.options.keys.converts
    }

    /// The text of a string, key or number token.
    @inline(__always) func text(_ t: JSONToken) -> UnsafePointer<UInt8> {
        t.flags & JSONTape.arenaFlag != 0 ? UnsafePointer(arena + Int(t.position)) : input + (Int(t.position) &- inputOffset)
    }

    /// Whether the key at `j` is `name` (`count` bytes).
    @inline(__always) func keyMatches(_ j: Int, _ name: UnsafePointer<UInt8>, _ count: Int) -> Bool {
        let t = tokens[j]
        guard Int(t.length) == count else { return false }
        let a = text(t)
        var i = 0
        while i < count {
            if a[i] != name[i] { return false }
            i &+= 1
        }
        return true
    }

    /// An integer token of at most 18 digits (cannot overflow an Int64), else nil.
    @inline(__always) func smallInteger(_ v: Int) -> Int64? {
        let t = tokens[v]
        guard t.kind == JSONKind.number && t.flags & JSONKind.integerFlag != 0 else { return nil }
        let p = text(t)
        let n = Int(t.length)
        let negative = p[0] == UInt8(ascii: "-")
        var k = negative ? 1 : 0
        guard n - k <= 18 else { return nil }
        var x: Int64 = 0
        while k < n {
            x = x &* 10 &+ Int64(p[k] &- 0x30)
            k &+= 1
        }
        return negative ? -x : x
    }

    /// The value of `key` as `T` (any `Decodable`; a nested ``JSONDecodable`` is read by hand too).
    ///
    /// A missing key throws `DecodingError.keyNotFound`; `null` throws
    /// `DecodingError.valueNotFound` unless `T` is an `Optional`.
    @inline(__always)
    public mutating func decode<T: Decodable>(_ key: StaticString, as type: T.Type = T.self) throws -> T {
        let v = try value(key.utf8Start, key.utf8CodeUnitCount, key)
        return try decoder._withUnsafeGuaranteedRef { try $0.unwrap(type, at: v) }
    }

    // The common types without generic dispatch: these are called from other modules,
    // where the generic `decode` cannot be specialized.

    /// The value of `key` as an `Int` (`JSONDecoder`'s rules: `1.0` is 1, `1.5` an error).
    public mutating func decode(_ key: StaticString, as type: Int.Type = Int.self) throws -> Int {
        let v = try value(key.utf8Start, key.utf8CodeUnitCount, key)
        if let x = smallInteger(v) { return Int(x) }
        return try decoder.takeUnretainedValue().readInteger(Int.self, at: v)
    }
    /// The value of `key` as an `Int64`.
    public mutating func decode(_ key: StaticString, as type: Int64.Type = Int64.self) throws -> Int64 {
        let v = try value(key.utf8Start, key.utf8CodeUnitCount, key)
        if let x = smallInteger(v) { return x }
        return try decoder.takeUnretainedValue().readInteger(Int64.self, at: v)
    }
    /// The value of `key` as an `Int32`.
    public mutating func decode(_ key: StaticString, as type: Int32.Type = Int32.self) throws -> Int32 {
        let v = try value(key.utf8Start, key.utf8CodeUnitCount, key)
        return try decoder._withUnsafeGuaranteedRef { try $0.readInteger(Int32.self, at: v) }
    }
    /// The value of `key` as a `Double`.
    public mutating func decode(_ key: StaticString, as type: Double.Type = Double.self) throws -> Double {
        let v = try value(key.utf8Start, key.utf8CodeUnitCount, key)
        return try decoder._withUnsafeGuaranteedRef { try $0.readDouble(at: v) }
    }
    /// The value of `key` as a `Bool`.
    public mutating func decode(_ key: StaticString, as type: Bool.Type = Bool.self) throws -> Bool {
        let v = try value(key.utf8Start, key.utf8CodeUnitCount, key)
        return try decoder._withUnsafeGuaranteedRef { try $0.readBool(at: v) }
    }
    /// The value of `key` as a `String`.
    public mutating func decode(_ key: StaticString, as type: String.Type = String.self) throws -> String {
        let v = try value(key.utf8Start, key.utf8CodeUnitCount, key)
        let t = tokens[v]
        if _fastPath(t.kind == JSONKind.string) {
            return JSONValidatedString.make(text(t), Int(t.length))
        }
        return try decoder.takeUnretainedValue().readString(at: v)
    }
    /// The value of `key` as a `String`, or nil when the key is missing or its value is `null`.
    public mutating func decodeIfPresent(_ key: StaticString, as type: String.Type = String.self) throws -> String? {
        guard let v = find(key.utf8Start, key.utf8CodeUnitCount) else { return nil }
        return try decoder._withUnsafeGuaranteedRef { d in d.tokens[v].kind == JSONKind.null ? nil : try d.readString(at: v) }
    }
    /// The value of `key` as an `Int`, or nil when the key is missing or its value is `null`.
    public mutating func decodeIfPresent(_ key: StaticString, as type: Int.Type = Int.self) throws -> Int? {
        guard let v = find(key.utf8Start, key.utf8CodeUnitCount) else { return nil }
        return try decoder._withUnsafeGuaranteedRef { d in d.tokens[v].kind == JSONKind.null ? nil : try d.readInteger(Int.self, at: v) }
    }

    /// The value of `key` (a name known only at run time) as `T`.
    public mutating func decode<T: Decodable>(forKey key: String, as type: T.Type = T.self) throws -> T {
        var k = key
        let v = try k.withUTF8 { try value($0.baseAddress ?? UnsafePointer(bitPattern: 1)!, $0.count, key) }
        return try decoder._withUnsafeGuaranteedRef { try $0.unwrap(type, at: v) }
    }

    /// The value of `key` as `T`, or nil when the key is missing or its value is `null`.
    @inline(__always)
    public mutating func decodeIfPresent<T: Decodable>(_ key: StaticString, as type: T.Type = T.self) throws -> T? {
        guard let v = find(key.utf8Start, key.utf8CodeUnitCount) else { return nil }
        return try decoder._withUnsafeGuaranteedRef { d in
            d.tokens[v].kind == JSONKind.null ? nil : try d.unwrap(type, at: v)
        }
    }

    /// Whether the object has `key` (its value may be `null`).
    public mutating func contains(_ key: StaticString) -> Bool {
        let saved = (next, inOrder)
        defer { (next, inOrder) = saved }
        return find(key.utf8Start, key.utf8CodeUnitCount) != nil
    }

    /// The object's keys, in document order (duplicates once).
    public var keys: [String] {
        let d = decoder.takeUnretainedValue()
        var seen = Set<String>()
        var result: [String] = []
        var j = object + 1
        while j < end {
            let s = d.keyString(at: j, in: d.path(to: object))
            if seen.insert(s).inserted { result.append(s) }
            j = d.next(j + 1)
        }
        return result
    }

    /// The coding path of the object (as `Decodable` types see it).
    public var codingPath: [any CodingKey] { decoder.takeUnretainedValue().path(to: object) }

    /// The value token of the key, or throws `keyNotFound`.
    @inline(__always)
    mutating func value(_ name: UnsafePointer<UInt8>, _ count: Int, _ key: @autoclosure () -> Any) throws -> Int {
        if let v = find(name, count) { return v }
        let d = decoder.takeUnretainedValue()
        let s = String(describing: key())
        throw DecodingError.keyNotFound(JSONStringKey(s), .init(
            codingPath: d.path(to: object),
            debugDescription: "No value associated with key \"\(s)\" in the object at \(d.location(of: object))"))
    }

    /// The value token of the first member named `name`, or nil.
    @inline(__always)
    mutating func find(_ name: UnsafePointer<UInt8>, _ count: Int) -> Int? {
        if _slowPath(convertsKeys) {
            // Members compared by their converted keys, as the keyed container does.
            inOrder = false
            return decoder.takeUnretainedValue().findConverted(
                String(decoding: UnsafeBufferPointer(start: name, count: count), as: UTF8.self), object: object, end: end)
        }
        let n = next
        if _fastPath(inOrder && n < end && keyMatches(n, name, count)) {
            let t = tokens[n + 1]
            next = t.kind >= JSONKind.object ? Int(t.length) : n &+ 2
            return n + 1
        }
        return findSlow(UnsafeBufferPointer(start: name, count: count))
    }

    mutating func findSlow(_ name: UnsafeBufferPointer<UInt8>) -> Int? {
        let d = decoder.takeUnretainedValue()
        var h = JSONTapeDecoder.KeyHint(object: object, next: next, inOrder: inOrder)
        let v = withUnsafeMutablePointer(to: &h) { d.findSlow(name, object: object, end: end, hint: $0, consume: true) }
        if v != nil { next = h.next; inOrder = h.inOrder }
        return v
    }
}

extension JSONTapeDecoder {
    /// Reads the object at `i` with `T.init(json:)`.
    @inline(__always)
    func decodeHandWritten<T: JSONDecodable>(_ type: T.Type, at i: Int) throws -> T {
        let t = tokens[i]
        guard t.kind == JSONKind.object else {
            if t.kind == JSONKind.null {
                throw DecodingError.valueNotFound(T.self, .init(
                    codingPath: path(to: i), debugDescription: "Cannot get value of type \(T.self) -- found null value instead (\(location(of: i)))"))
            }
            throw mismatch([String: Any].self, at: i)
        }
        var reader = JSONObjectReader(decoder: self, object: i, end: Int(t.length))
        return try T(json: &reader)
    }

    /// Whether `T` reads itself by hand (see ``plan(for:)``).
    @inline(__always)
    func handWritten<T>(_ type: T.Type) -> (any JSONDecodable.Type)? {
        plan(for: T.self).hand
    }
}

/// `T.init(json:)` for a `T` known to be `H` (opened from ``JSONTapeDecoder/handWritten(_:)``).
@inline(__always)
func decodeOpened<H: JSONDecodable, T>(_ hand: H.Type, as type: T.Type, _ decoder: JSONTapeDecoder, at i: Int) throws -> T {
    unsafeBitCast(try decoder.decodeHandWritten(H.self, at: i), to: T.self)
}
