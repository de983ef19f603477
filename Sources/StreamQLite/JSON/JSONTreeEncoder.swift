import Foundation

/// The `Encoder` ``JSONValueEncoder`` falls back to when an `encode(to:)` uses its
/// containers out of order (writes into a container after a later one, or uses
/// `superEncoder`), which a stream of bytes cannot follow: the value is built as a
/// small tree of containers (the way `JSONEncoder` always works), then written
/// through the same ``JSONOutput``, so both paths give the same bytes.
final class JSONTreeEncoder: Encoder {
    let options: JSONValueEncoder.Options
    let codingPath: [any CodingKey]
    /// What this encoder's value became.
    let slot: JSONTreeSlot
    var userInfo: [CodingUserInfoKey: Any] { options.userInfo }
    /// Set when a container of another kind was asked for after a value was encoded.
    var misuse: String?

    init(options: JSONValueEncoder.Options, codingPath: [any CodingKey] = [], slot: JSONTreeSlot = JSONTreeSlot()) {
        self.options = options
        self.codingPath = codingPath
        self.slot = slot
    }

    func encodeTop<T: Encodable>(_ value: T) throws -> JSONTreeValue {
        guard let v = try box(value) else {
            throw EncodingError.invalidValue(value, .init(codingPath: [], debugDescription: "Top-level \(T.self) did not encode any values."))
        }
        return v
    }

    /// The tree of `value`, nil when its `encode(to:)` wrote nothing.
    func box<T: Encodable>(_ value: T, key: (any CodingKey)? = nil) throws -> JSONTreeValue? {
        let path = key.map { codingPath + [$0] } ?? codingPath
        if let special = try options.special(value, path: path) {
            switch special {
            case .scalar(let s): return .scalar(s)
            case .encode(let body):
                let sub = JSONTreeEncoder(options: options, codingPath: path)
                try body(sub)
                return try sub.finish()
            }
        }
        switch value {
        case let v as String: return .scalar(.string(v))
        case let v as Int: return .scalar(.int(Int64(v)))
        case let v as Double: return .scalar(try options.number(v, path: path))
        case let v as Bool: return .scalar(.bool(v))
        case let v as Float: return .scalar(try options.number(v, path: path))
        case let v as Int8: return .scalar(.int(Int64(v)))
        case let v as Int16: return .scalar(.int(Int64(v)))
        case let v as Int32: return .scalar(.int(Int64(v)))
        case let v as Int64: return .scalar(.int(v))
        case let v as UInt: return .scalar(.uint(UInt64(v)))
        case let v as UInt8: return .scalar(.uint(UInt64(v)))
        case let v as UInt16: return .scalar(.uint(UInt64(v)))
        case let v as UInt32: return .scalar(.uint(UInt64(v)))
        case let v as UInt64: return .scalar(.uint(v))
        default: break
        }
        let sub = JSONTreeEncoder(options: options, codingPath: path)
        sub.rawKeys = options.snakeCase && value is JSONStringDictionaryEncodable
        try value.encode(to: sub)
        return try sub.finish()
    }

    /// A `[String: V]` under a key strategy keeps its keys.
    var rawKeys = false

    func finish() throws -> JSONTreeValue? {
        if let misuse { throw EncodingError.invalidValue(misuse, .init(codingPath: codingPath, debugDescription: misuse)) }
        return slot.value
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        switch slot.value {
        case nil:
            let object = JSONTreeObject(rawKeys: rawKeys)
            slot.value = .object(object)
            return KeyedEncodingContainer(JSONTreeKeyedContainer<Key>(encoder: self, object: object, codingPath: codingPath))
        case .object(let object)?:
            return KeyedEncodingContainer(JSONTreeKeyedContainer<Key>(encoder: self, object: object, codingPath: codingPath))
        default:
            misuse = "a keyed container was asked for after another kind of value was encoded"
            return KeyedEncodingContainer(JSONTreeKeyedContainer<Key>(encoder: self, object: JSONTreeObject(rawKeys: false), codingPath: codingPath))
        }
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        switch slot.value {
        case nil:
            let array = JSONTreeArray()
            slot.value = .array(array)
            return JSONTreeUnkeyedContainer(encoder: self, array: array, codingPath: codingPath)
        case .array(let array)?:
            return JSONTreeUnkeyedContainer(encoder: self, array: array, codingPath: codingPath)
        default:
            misuse = "an unkeyed container was asked for after another kind of value was encoded"
            return JSONTreeUnkeyedContainer(encoder: self, array: JSONTreeArray(), codingPath: codingPath)
        }
    }

    func singleValueContainer() -> any SingleValueEncodingContainer { JSONTreeSingleValueContainer(encoder: self) }

    /// Stores a single value (once).
    func setSingle(_ value: JSONTreeValue?) {
        guard slot.value == nil else {
            misuse = "a single value was encoded after another value"
            return
        }
        slot.value = value ?? .object(JSONTreeObject(rawKeys: false))
    }

    /// The JSON key of `key` in `object`.
    func jsonKey(_ key: some CodingKey, in object: JSONTreeObject) -> String {
        options.snakeCase && !object.rawKeys ? convertToSnakeCase(key.stringValue) : key.stringValue
    }
}

/// A value under construction: filled by an encoder (nil: nothing encoded yet).
final class JSONTreeSlot {
    var value: JSONTreeValue?
}

final class JSONTreeObject {
    var keys: [String] = []
    var values: [JSONTreeValue] = []
    let rawKeys: Bool
    init(rawKeys: Bool) { self.rawKeys = rawKeys }
}

final class JSONTreeArray {
    var values: [JSONTreeValue] = []
}

enum JSONTreeValue {
    case scalar(JSONScalar)
    case object(JSONTreeObject)
    case array(JSONTreeArray)
    /// A super encoder's value (an empty object if it wrote nothing).
    case slot(JSONTreeSlot)

    /// Writes the value; duplicate keys, sorting and layout are ``JSONOutput``'s.
    func write(to out: inout JSONOutput) {
        switch self {
        case .scalar(let s):
            out.scalar(s)
        case .object(let o):
            _ = out.open(object: true)
            for (k, v) in zip(o.keys, o.values) {
                out.key(k, byte: -1, type: nil)
                v.write(to: &out)
            }
            out.close()
        case .array(let a):
            _ = out.open(object: false)
            for v in a.values {
                out.beforeElement()
                v.write(to: &out)
            }
            out.close()
        case .slot(let s):
            (s.value ?? .object(JSONTreeObject(rawKeys: false))).write(to: &out)
        }
    }
}

struct JSONTreeKeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let encoder: JSONTreeEncoder
    let object: JSONTreeObject
    let codingPath: [any CodingKey]

    func add(_ key: Key, _ value: JSONTreeValue) {
        object.keys.append(encoder.jsonKey(key, in: object))
        object.values.append(value)
    }
    func box<T: Encodable>(_ value: T, _ key: Key) throws -> JSONTreeValue {
        let sub = JSONTreeEncoder(options: encoder.options, codingPath: codingPath)
        return try sub.box(value, key: key) ?? .object(JSONTreeObject(rawKeys: false))
    }

    mutating func encodeNil(forKey key: Key) throws { add(key, .scalar(.null)) }
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws { add(key, try box(value, key)) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        let nested = JSONTreeObject(rawKeys: false)
        add(key, .object(nested))
        return KeyedEncodingContainer(JSONTreeKeyedContainer<NestedKey>(encoder: encoder, object: nested, codingPath: codingPath + [key]))
    }
    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let nested = JSONTreeArray()
        add(key, .array(nested))
        return JSONTreeUnkeyedContainer(encoder: encoder, array: nested, codingPath: codingPath + [key])
    }
    mutating func superEncoder() -> any Encoder {
        let slot = JSONTreeSlot()
        object.keys.append("super")
        object.values.append(.slot(slot))
        return JSONTreeEncoder(options: encoder.options, codingPath: codingPath + [JSONStringKey("super")], slot: slot)
    }
    mutating func superEncoder(forKey key: Key) -> any Encoder {
        let slot = JSONTreeSlot()
        add(key, .slot(slot))
        return JSONTreeEncoder(options: encoder.options, codingPath: codingPath + [key], slot: slot)
    }
}

struct JSONTreeUnkeyedContainer: UnkeyedEncodingContainer {
    let encoder: JSONTreeEncoder
    let array: JSONTreeArray
    let codingPath: [any CodingKey]
    var count: Int { array.values.count }

    func box<T: Encodable>(_ value: T) throws -> JSONTreeValue {
        let sub = JSONTreeEncoder(options: encoder.options, codingPath: codingPath)
        return try sub.box(value, key: JSONIndexKey(index: count)) ?? .object(JSONTreeObject(rawKeys: false))
    }

    mutating func encodeNil() throws { array.values.append(.scalar(.null)) }
    mutating func encode<T: Encodable>(_ value: T) throws { array.values.append(try box(value)) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        let nested = JSONTreeObject(rawKeys: false)
        let path = codingPath + [JSONIndexKey(index: count)]
        array.values.append(.object(nested))
        return KeyedEncodingContainer(JSONTreeKeyedContainer<NestedKey>(encoder: encoder, object: nested, codingPath: path))
    }
    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let nested = JSONTreeArray()
        let path = codingPath + [JSONIndexKey(index: count)]
        array.values.append(.array(nested))
        return JSONTreeUnkeyedContainer(encoder: encoder, array: nested, codingPath: path)
    }
    mutating func superEncoder() -> any Encoder {
        let slot = JSONTreeSlot()
        let path = codingPath + [JSONIndexKey(index: count)]
        array.values.append(.slot(slot))
        return JSONTreeEncoder(options: encoder.options, codingPath: path, slot: slot)
    }
}

struct JSONTreeSingleValueContainer: SingleValueEncodingContainer {
    let encoder: JSONTreeEncoder
    var codingPath: [any CodingKey] { encoder.codingPath }

    mutating func encodeNil() throws { encoder.setSingle(.scalar(.null)) }
    mutating func encode<T: Encodable>(_ value: T) throws {
        encoder.setSingle(try encoder.box(value))
    }
}
