import Foundation

/// A type that writes itself as a JSON object by hand: the fastest way from Swift
/// values to JSON, the encoding counterpart of ``JSONDecodable``.
///
/// ``JSONValueEncoder`` calls `encode(json:)` wherever it encodes a value of such a
/// type (a whole document, the elements of `[T]`, a property of another type),
/// instead of `encode(to:)`. The writer takes `StaticString` keys and writes each
/// member straight into the output: no `CodingKey`, no container box, no generic
/// dispatch for the common types. Strings and numbers go through the same escaper and
/// number formatter as the `Encodable` path, so the bytes are the same.
///
/// ```swift
/// struct Task: Codable, JSONEncodable {
///     var id: Int
///     var title: String
///     var done: Bool
///     var tags: [String]
///     var note: String?
///
///     func encode(json: inout JSONObjectWriter) throws {
///         try json.encode(id, forKey: "id")
///         try json.encode(title, forKey: "title")
///         try json.encode(done, forKey: "done")
///         try json.encode(tags, forKey: "tags")              // any Encodable value
///         try json.encodeIfPresent(note, forKey: "note")     // nil: no member
///     }
/// }
/// let body = try JSONValueEncoder().encode(tasks)          // [Task]: encode(json:) per element
/// ```
///
/// Write the members as the synthesized `encode(to:)` does (the same keys, in
/// declaration order, `encodeIfPresent` for optionals) and the output is byte for
/// byte the `Encodable` path's, and `JSONEncoder`'s, for every option:
///
/// - **Keys** are the coding keys' names: the encoder's key strategy applies to them
///   (``JSONValueEncoder/KeyEncodingStrategy/convertToSnakeCase`` writes `"createdAt"`
///   as `"created_at"`, converted once per key), as it does to `encode(to:)`'s keys; they
///   are escaped like any string.
/// - **Sorted keys** (``JSONValueEncoder/OutputFormatting/sortedKeys``): members
///   written in sorted order cost nothing extra; otherwise the object is reordered
///   when it is finished, by an order worked out once per type and key sequence.
///   A key written twice: the later value wins, as in `JSONEncoder`.
/// - **Pretty printing**, `/` escaping, the date, data and non-conforming float
///   strategies apply as usual (dates and data through the generic `encode(_:forKey:)`).
///
/// `encode(json:)` is used for structs and enums. For a class the encoder calls
/// `encode(to:)`, which a subclass may override to add members. When the encoder falls
/// back to its tree path (some `encode(to:)` in the document using its containers out of
/// order, or `superEncoder`), the whole document is written by `encode(to:)`: the same bytes.
///
/// The writer is valid only during `encode(json:)`.
public protocol JSONEncodable: Encodable {
    /// Writes the value's members to the JSON object `json`.
    func encode(json: inout JSONObjectWriter) throws
}

/// The JSON object a ``JSONEncodable`` type writes in `encode(json:)`.
///
/// Each call writes one member: the separator, the key (quoted and escaped), the
/// value. The overloads for `String`, the integer types, `Double`, `Float`, `Bool`,
/// ``JSONEncodable`` values and arrays of them write without generic dispatch; any
/// other `Encodable` value goes through the encoder's `Encodable` path.
public struct JSONObjectWriter {
    let encoder: Unmanaged<JSONStreamEncoder>
    /// The object's frame.
    let id: UInt64

    init(encoder: JSONStreamEncoder, id: UInt64) {
        self.encoder = Unmanaged.passUnretained(encoder)
        self.id = id
    }

    /// Runs `body` with the encoder after writing `key` (into the tree when the stream gave
    /// way to one: see ``JSONStreamEncoder/takeOver()``).
    @inline(__always)
    func member(_ key: StaticString, _ body: (JSONStreamEncoder) throws -> Void) rethrows {
        try encoder._withUnsafeGuaranteedRef { e in
            guard _fastPath(e.out.frames.last?.id == id) || e.activate(id) else {
                let aside = e.beginAside()
                try body(e)
                e.addToTree(id, key, e.endAside(aside))
                return
            }
            if _fastPath(key.hasPointerRepresentation) {
                e.out.handKey(key.utf8Start, key.utf8CodeUnitCount)
            } else {
                let interned = JSONEncodableKeys.intern(key)
                e.out.handKey(interned.baseAddress!, interned.count)
            }
            try body(e)
        }
    }

    // MARK: Scalars (no generic dispatch: called from other modules)

    /// Writes `value` under `key`.
    public mutating func encode(_ value: String, forKey key: StaticString) throws {
        member(key) { $0.out.string(value) }
    }
    /// Writes `value` under `key`.
    public mutating func encode(_ value: Int, forKey key: StaticString) throws {
        member(key) { $0.out.integer(Int64(value)) }
    }
    /// Writes `value` under `key`.
    public mutating func encode(_ value: Int64, forKey key: StaticString) throws {
        member(key) { $0.out.integer(value) }
    }
    /// Writes `value` under `key`.
    public mutating func encode(_ value: Int32, forKey key: StaticString) throws {
        member(key) { $0.out.integer(Int64(value)) }
    }
    /// Writes `value` under `key`.
    public mutating func encode(_ value: UInt64, forKey key: StaticString) throws {
        member(key) { $0.out.unsigned(value) }
    }
    /// Writes `value` under `key`.
    public mutating func encode(_ value: UInt, forKey key: StaticString) throws {
        member(key) { $0.out.unsigned(UInt64(value)) }
    }
    /// Writes `value` under `key` (NaN and infinities: the encoder's non-conforming float strategy).
    public mutating func encode(_ value: Double, forKey key: StaticString) throws {
        try member(key) { e in
            if _fastPath(value.isFinite) { e.out.double(value) } else { e.out.scalar(try e.options.number(value, path: e.memberPath)) }
        }
    }
    /// Writes `value` under `key` (NaN and infinities: the encoder's non-conforming float strategy).
    public mutating func encode(_ value: Float, forKey key: StaticString) throws {
        try member(key) { e in e.out.scalar(try e.options.number(value, path: e.memberPath)) }
    }
    /// Writes `value` under `key`.
    public mutating func encode(_ value: Bool, forKey key: StaticString) throws {
        member(key) { e in if value { e.out.append("true") } else { e.out.append("false") } }
    }
    /// Writes `null` under `key`.
    public mutating func encodeNil(forKey key: StaticString) throws {
        member(key) { $0.out.append("null") }
    }

    // MARK: Nested values

    /// Writes `value` under `key` with its `encode(json:)`.
    public mutating func encode<T: JSONEncodable>(_ value: T, forKey key: StaticString) throws {
        // A class instance goes through `encode(to:)`, which a subclass may override.
        try member(key) { e in if T.self is AnyObject.Type { try e.encodeValue(value) } else { try e.encodeHand(value) } }
    }

    /// Writes the array `value` under `key`, each element with its `encode(json:)`.
    public mutating func encode<T: JSONEncodable>(_ value: [T], forKey key: StaticString) throws {
        try member(key) { e in if T.self is AnyObject.Type { try e.encodeValue(value) } else { try e.encodeHandArray(value) } }
    }

    /// Writes the array `value` under `key`.
    public mutating func encode(_ value: [String], forKey key: StaticString) throws {
        try member(key) { try value.encodeElements(to: $0) }
    }

    /// Writes the array `value` under `key`.
    public mutating func encode(_ value: [Int], forKey key: StaticString) throws {
        try member(key) { try value.encodeElements(to: $0) }
    }

    /// Writes any `Encodable` value under `key`, as the `Encodable` path does (dates and data
    /// by the encoder's strategies, an `Optional`'s nil as `null`, ``JSONEncodable`` values by hand).
    public mutating func encode<T: Encodable>(_ value: T, forKey key: StaticString) throws {
        try member(key) { try $0.encodeValue(value) }
    }

    // MARK: Optionals (as synthesized `encode(to:)`: nil writes no member)

    /// Writes `value` under `key`; nothing when it is nil.
    public mutating func encodeIfPresent(_ value: String?, forKey key: StaticString) throws {
        if let value { try encode(value, forKey: key) }
    }
    /// Writes `value` under `key`; nothing when it is nil.
    public mutating func encodeIfPresent(_ value: Int?, forKey key: StaticString) throws {
        if let value { try encode(value, forKey: key) }
    }
    /// Writes `value` under `key`; nothing when it is nil.
    public mutating func encodeIfPresent(_ value: Double?, forKey key: StaticString) throws {
        if let value { try encode(value, forKey: key) }
    }
    /// Writes `value` under `key`; nothing when it is nil.
    public mutating func encodeIfPresent(_ value: Bool?, forKey key: StaticString) throws {
        if let value { try encode(value, forKey: key) }
    }
    /// Writes `value` under `key` with its `encode(json:)`; nothing when it is nil.
    public mutating func encodeIfPresent<T: JSONEncodable>(_ value: T?, forKey key: StaticString) throws {
        if let value { try encode(value, forKey: key) }
    }
    /// Writes `value` under `key`; nothing when it is nil.
    public mutating func encodeIfPresent<T: Encodable>(_ value: T?, forKey key: StaticString) throws {
        if let value { try encode(value, forKey: key) }
    }

    /// The coding path of the object (as `Encodable` types see it).
    public var codingPath: [any CodingKey] {
        encoder._withUnsafeGuaranteedRef { $0.containerPath(id) }
    }

    /// The encoder's `userInfo`.
    public var userInfo: [CodingUserInfoKey: Any] { encoder._withUnsafeGuaranteedRef { $0.userInfo } }
}

/// Keys given as a `StaticString` of one Unicode scalar (no pointer to its bytes): their
/// UTF-8 kept for the life of the program, one copy per scalar.
enum JSONEncodableKeys {
    nonisolated(unsafe) static var interned: [UInt32: UnsafeBufferPointer<UInt8>] = [:]
    static let lock = NSLock()

    static func intern(_ key: StaticString) -> UnsafeBufferPointer<UInt8> {
        let scalar = key.unicodeScalar
        lock.lock()
        defer { lock.unlock() }
        if let p = interned[scalar.value] { return p }
        let bytes = Array(String(scalar).utf8)
        let p = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: bytes.count)
        _ = p.initialize(from: bytes)
        interned[scalar.value] = UnsafeBufferPointer(p)
        return UnsafeBufferPointer(p)
    }
}
