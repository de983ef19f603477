import CStreamQLite
import Foundation

struct JSONKeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    /// Unretained, as the frame: the container is plain data, copied without reference
    /// counting (see ``JSONTapeDecoder/keyedContainer(_:object:end:)``).
    let unmanagedDecoder: Unmanaged<JSONTapeDecoder>
    /// The object read (reused for the next object of the same type at the same depth
    /// once no copy of this container is left).
    let frame: UnsafeMutablePointer<JSONObjectFrame>

    init(decoder: Unmanaged<JSONTapeDecoder>, frame: UnsafeMutablePointer<JSONObjectFrame>) {
        unmanagedDecoder = decoder
        self.frame = frame
    }

    /// The decoder, retained (cold paths).
    var decoder: JSONTapeDecoder { unmanagedDecoder.takeUnretainedValue() }
    /// Runs `body` with the decoder, not retained (the hot paths).
    @inline(__always) func with<R>(_ body: (JSONTapeDecoder) throws -> R) rethrows -> R {
        try unmanagedDecoder._withUnsafeGuaranteedRef(body)
    }
    @inline(__always) var object: Int { frame.pointee.object }
    @inline(__always) var end: Int { frame.pointee.end }
    @inline(__always) var depth: Int { frame.pointee.depth }

    var codingPath: [any CodingKey] { decoder.path(to: object) }

    @inline(__always) func value(_ key: Key) throws -> Int {
        let f = frame
        try checkAlive()
        if let v = with({ $0.find(key, in: f, consume: true) }) { return v }
        throw keyNotFound(key)
    }

    /// Throws when the container outlived its value's tokens (a streamed element).
    @inline(__always) func checkAlive() throws {
        if _slowPath(frame.pointee.generation != with({ $0.generation })) { throw decoder.expiredError() }
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
            let s = decoder.keyString(at: j, in: codingPath)
            if seen.insert(s).inserted, let k = Key(stringValue: s) { keys.append(k) }
            j = decoder.next(j + 1)
        }
        return keys
    }

    func contains(_ key: Key) -> Bool {
        guard (try? checkAlive()) != nil else { return false }
        return decoder.find(key, in: frame, consume: false) != nil
    }

    func decodeNil(forKey key: Key) throws -> Bool {
        try checkAlive()
        guard let v = decoder.find(key, in: frame, consume: false) else { throw keyNotFound(key) }
        return decoder.tokens[v].kind == JSONKind.null
    }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { let v = try value(key); return try with { try $0.readBool(at: v) } }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { let v = try value(key); return try with { try $0.readString(at: v) } }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { let v = try value(key); return try with { try $0.readDouble(at: v) } }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { let v = try value(key); return try with { try $0.readFloat(at: v) } }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { let v = try value(key); return try with { try $0.readInteger(type, at: v) } }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { let v = try value(key); return try with { try $0.readInteger(type, at: v) } }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { let v = try value(key); return try with { try $0.readInteger(type, at: v) } }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { let v = try value(key); return try with { try $0.readInteger(type, at: v) } }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { let v = try value(key); return try with { try $0.readInteger(type, at: v) } }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { let v = try value(key); return try with { try $0.readInteger(type, at: v) } }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { let v = try value(key); return try with { try $0.readInteger(type, at: v) } }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { let v = try value(key); return try with { try $0.readInteger(type, at: v) } }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { let v = try value(key); return try with { try $0.readInteger(type, at: v) } }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { let v = try value(key); return try with { try $0.readInteger(type, at: v) } }
    func decode(_ type: Int128.Type, forKey key: Key) throws -> Int128 { let v = try value(key); return try with { try $0.readInteger(type, at: v) } }
    func decode(_ type: UInt128.Type, forKey key: Key) throws -> UInt128 { let v = try value(key); return try with { try $0.readInteger(type, at: v) } }
    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        let v = try value(key)
        return try with { try $0.unwrap(type, at: v) }
    }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        try optional(key) { try $0.unwrap(type, at: $1) }
    }

    /// The value of `key` read by `read`, nil when the key is missing or its value is null:
    /// one lookup (the protocol's default `decodeIfPresent` makes three: `contains`,
    /// `decodeNil`, `decode`).
    @inline(__always) func optional<T>(_ key: Key, _ read: (JSONTapeDecoder, Int) throws -> T) throws -> T? {
        let f = frame
        try checkAlive()
        guard let v = with({ $0.find(key, in: f, consume: true) }) else { return nil }
        return try with { d in d.tokens[v].kind == JSONKind.null ? nil : try read(d, v) }
    }

    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? { try optional(key) { try $0.readBool(at: $1) } }
    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? { try optional(key) { try $0.readString(at: $1) } }
    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? { try optional(key) { try $0.readDouble(at: $1) } }
    func decodeIfPresent(_ type: Float.Type, forKey key: Key) throws -> Float? { try optional(key) { try $0.readFloat(at: $1) } }
    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? { try optional(key) { try $0.readInteger(type, at: $1) } }
    func decodeIfPresent(_ type: Int8.Type, forKey key: Key) throws -> Int8? { try optional(key) { try $0.readInteger(type, at: $1) } }
    func decodeIfPresent(_ type: Int16.Type, forKey key: Key) throws -> Int16? { try optional(key) { try $0.readInteger(type, at: $1) } }
    func decodeIfPresent(_ type: Int32.Type, forKey key: Key) throws -> Int32? { try optional(key) { try $0.readInteger(type, at: $1) } }
    func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? { try optional(key) { try $0.readInteger(type, at: $1) } }
    func decodeIfPresent(_ type: UInt.Type, forKey key: Key) throws -> UInt? { try optional(key) { try $0.readInteger(type, at: $1) } }
    func decodeIfPresent(_ type: UInt8.Type, forKey key: Key) throws -> UInt8? { try optional(key) { try $0.readInteger(type, at: $1) } }
    func decodeIfPresent(_ type: UInt16.Type, forKey key: Key) throws -> UInt16? { try optional(key) { try $0.readInteger(type, at: $1) } }
    func decodeIfPresent(_ type: UInt32.Type, forKey key: Key) throws -> UInt32? { try optional(key) { try $0.readInteger(type, at: $1) } }
    func decodeIfPresent(_ type: UInt64.Type, forKey key: Key) throws -> UInt64? { try optional(key) { try $0.readInteger(type, at: $1) } }
    func decodeIfPresent(_ type: Int128.Type, forKey key: Key) throws -> Int128? { try optional(key) { try $0.readInteger(type, at: $1) } }
    func decodeIfPresent(_ type: UInt128.Type, forKey key: Key) throws -> UInt128? { try optional(key) { try $0.readInteger(type, at: $1) } }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        let v = try value(key)
        return try decoder.nested { decoder.current = v; return try decoder.container(keyedBy: type) }
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        let v = try value(key)
        return try decoder.nested { decoder.current = v; return try decoder.unkeyedContainer() }
    }

    func superDecoder() throws -> any Decoder { superDecoder(JSONStringKey("super")) }
    func superDecoder(forKey key: Key) throws -> any Decoder { superDecoder(key) }

    /// A decoder for the key's value, or for `null` when the key is missing (as `JSONDecoder`).
    private func superDecoder(_ key: some CodingKey) -> any Decoder {
        let v = decoder.find(key, in: frame, consume: false)
        return decoder.decoder(for: v ?? -1, path: codingPath + [key])
    }
}
