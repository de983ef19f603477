import Foundation

/// The `Encoder` that builds a value as a small tree of containers (the way `JSONEncoder`
/// always works), then writes it through the same ``JSONOutput``, so it gives the bytes the
/// streaming encoder gives. ``JSONStreamEncoder`` hands the rest of a document to it when an
/// `encode(to:)` uses its containers in a way a stream of bytes cannot follow (see
/// ``JSONStreamEncoder/takeOver()``); the insert coders use it for nested JSON columns.
final class JSONTreeEncoder: Encoder {
    let options: JSONValueEncoder.Options
    let codingPath: [any CodingKey]
    /// What this encoder's value became.
    let slot: JSONTreeSlot
    var userInfo: [CodingUserInfoKey: Any] { options.userInfo }
    /// Where a misuse (a container of another kind asked for after a value was encoded) is
    /// reported: shared by the encoders of one document, thrown when it is finished.
    let misuse: JSONTreeMisuse

    init(options: JSONValueEncoder.Options, codingPath: [any CodingKey] = [], slot: JSONTreeSlot = JSONTreeSlot(),
         misuse: JSONTreeMisuse = JSONTreeMisuse()) {
        self.options = options
        self.codingPath = codingPath
        self.slot = slot
        self.misuse = misuse
    }

    /// An encoder for a value below this one, reporting to the same place.
    func sub(_ path: [any CodingKey], slot: JSONTreeSlot = JSONTreeSlot()) -> JSONTreeEncoder {
        JSONTreeEncoder(options: options, codingPath: path, slot: slot, misuse: misuse)
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
                let sub = sub(path)
                try body(sub)
                return try sub.finish() ?? .object(JSONTreeObject(rawKeys: false))
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
        case let v as Int128: return .scalar(.number(String(v)))
        case let v as UInt128: return .scalar(.number(String(v)))
        default: break
        }
        let sub = sub(path)
        sub.rawKeys = options.keys.converts && value is JSONStringKeyedEncodable
        try value.encode(to: sub)
        return try sub.finish()
    }

    /// A `[String: V]` under a key strategy keeps its keys.
    var rawKeys = false

    func finish() throws -> JSONTreeValue? {
        try misuse.check()
        return slot.value
    }

    func misused(_ what: String) { misuse.report(what, at: codingPath) }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        switch slot.value {
        case nil:
            let object = JSONTreeObject(rawKeys: rawKeys)
            slot.value = .object(object)
            return KeyedEncodingContainer(JSONTreeKeyedContainer<Key>(encoder: self, object: object, codingPath: codingPath, rawKeys: rawKeys))
        case .object(let object)?:
            return KeyedEncodingContainer(JSONTreeKeyedContainer<Key>(encoder: self, object: object, codingPath: codingPath, rawKeys: rawKeys))
        default:
            misused("a keyed container was asked for after another kind of value was encoded")
            return KeyedEncodingContainer(JSONTreeKeyedContainer<Key>(encoder: self, object: JSONTreeObject(rawKeys: false), codingPath: codingPath, rawKeys: false))
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
            misused("an unkeyed container was asked for after another kind of value was encoded")
            return JSONTreeUnkeyedContainer(encoder: self, array: JSONTreeArray(), codingPath: codingPath)
        }
    }

    func singleValueContainer() -> any SingleValueEncodingContainer { JSONTreeSingleValueContainer(encoder: self) }

    /// Stores a single value (once).
    func setSingle(_ value: JSONTreeValue?) {
        guard slot.value == nil else {
            misused("a single value was encoded after another value")
            return
        }
        slot.value = value ?? .object(JSONTreeObject(rawKeys: false))
    }

    /// The JSON key of `key` in a container at `path` (`raw`: written as it is, a `[String: V]`'s).
    func jsonKey(_ key: some CodingKey, in path: [any CodingKey], raw: Bool) -> String {
        raw ? key.stringValue : options.keys.convert(key, in: path)
    }
}

/// The first misuse of the containers of one document (see ``JSONTreeEncoder/misuse``).
final class JSONTreeMisuse {
    var error: EncodingError?
    func report(_ what: String, at path: [any CodingKey]) {
        if error == nil { error = .invalidValue(what, .init(codingPath: path, debugDescription: what)) }
    }
    func check() throws { if let error { throw error } }
}

/// A value under construction: filled by an encoder (nil: nothing encoded yet).
final class JSONTreeSlot {
    var value: JSONTreeValue?
    init(_ value: JSONTreeValue? = nil) { self.value = value }
}

final class JSONTreeObject {
    /// JSON keys, as written (key strategy applied); a key may come twice (the last value wins when written).
    var keys: [String] = []
    var values: [JSONTreeValue] = []
    let rawKeys: Bool
    init(rawKeys: Bool) { self.rawKeys = rawKeys }

    /// The object to write members of `key` into, as `JSONEncoder` finds it: the one a
    /// nested container or an encoded value already made for `key`, else a new one.
    func nestedObject(_ key: String) -> JSONTreeObject {
        if let i = keys.lastIndex(of: key), let existing = values[i].object { return existing }
        let object = JSONTreeObject(rawKeys: false)
        keys.append(key)
        values.append(.object(object))
        return object
    }

    /// ``nestedObject(_:)`` for an array.
    func nestedArray(_ key: String) -> JSONTreeArray {
        if let i = keys.lastIndex(of: key), let existing = values[i].array { return existing }
        let array = JSONTreeArray()
        keys.append(key)
        values.append(.array(array))
        return array
    }
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

    var object: JSONTreeObject? {
        switch self {
        case .object(let o): return o
        case .slot(let s): return s.value?.object
        default: return nil
        }
    }

    var array: JSONTreeArray? {
        switch self {
        case .array(let a): return a
        case .slot(let s): return s.value?.array
        default: return nil
        }
    }

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
    /// Keys are written as they are: the container of a `[String: V]` (a nested container of
    /// a key type converts its keys even in an object a dictionary made, as `JSONEncoder`'s).
    let rawKeys: Bool

    func add(_ key: Key, _ value: JSONTreeValue) {
        object.keys.append(encoder.jsonKey(key, in: codingPath, raw: rawKeys))
        object.values.append(value)
    }
    func box<T: Encodable>(_ value: T, _ key: Key) throws -> JSONTreeValue {
        try encoder.sub(codingPath).box(value, key: key) ?? .object(JSONTreeObject(rawKeys: false))
    }

    mutating func encodeNil(forKey key: Key) throws { add(key, .scalar(.null)) }
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws { add(key, try box(value, key)) }
    mutating func encode(_ value: Int128, forKey key: Key) throws { add(key, .scalar(.number(String(value)))) }
    mutating func encode(_ value: UInt128, forKey key: Key) throws { add(key, .scalar(.number(String(value)))) }

    // Two nested containers for one key write into one object (or array), as `JSONEncoder`'s.
    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        let nested = object.nestedObject(encoder.jsonKey(key, in: codingPath, raw: rawKeys))
        return KeyedEncodingContainer(JSONTreeKeyedContainer<NestedKey>(encoder: encoder, object: nested, codingPath: codingPath + [key], rawKeys: false))
    }
    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let nested = object.nestedArray(encoder.jsonKey(key, in: codingPath, raw: rawKeys))
        return JSONTreeUnkeyedContainer(encoder: encoder, array: nested, codingPath: codingPath + [key])
    }
    mutating func superEncoder() -> any Encoder {
        let slot = JSONTreeSlot()
        object.keys.append("super")
        object.values.append(.slot(slot))
        return encoder.sub(codingPath + [JSONStringKey("super")], slot: slot)
    }
    mutating func superEncoder(forKey key: Key) -> any Encoder {
        let slot = JSONTreeSlot()
        add(key, .slot(slot))
        return encoder.sub(codingPath + [key], slot: slot)
    }
}

struct JSONTreeUnkeyedContainer: UnkeyedEncodingContainer {
    let encoder: JSONTreeEncoder
    let array: JSONTreeArray
    let codingPath: [any CodingKey]
    var count: Int { array.values.count }

    func box<T: Encodable>(_ value: T) throws -> JSONTreeValue {
        try encoder.sub(codingPath).box(value, key: JSONIndexKey(index: count)) ?? .object(JSONTreeObject(rawKeys: false))
    }

    mutating func encodeNil() throws { array.values.append(.scalar(.null)) }
    mutating func encode<T: Encodable>(_ value: T) throws { array.values.append(try box(value)) }
    mutating func encode(_ value: Int128) throws { array.values.append(.scalar(.number(String(value)))) }
    mutating func encode(_ value: UInt128) throws { array.values.append(.scalar(.number(String(value)))) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        let nested = JSONTreeObject(rawKeys: false)
        let path = codingPath + [JSONIndexKey(index: count)]
        array.values.append(.object(nested))
        return KeyedEncodingContainer(JSONTreeKeyedContainer<NestedKey>(encoder: encoder, object: nested, codingPath: path, rawKeys: false))
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
        return encoder.sub(path, slot: slot)
    }
}

struct JSONTreeSingleValueContainer: SingleValueEncodingContainer {
    let encoder: JSONTreeEncoder
    var codingPath: [any CodingKey] { encoder.codingPath }

    mutating func encodeNil() throws { encoder.setSingle(.scalar(.null)) }
    mutating func encode<T: Encodable>(_ value: T) throws {
        encoder.setSingle(try encoder.box(value))
    }
    mutating func encode(_ value: Int128) throws { encoder.setSingle(.scalar(.number(String(value)))) }
    mutating func encode(_ value: UInt128) throws { encoder.setSingle(.scalar(.number(String(value)))) }
}

/// Reads back what ``JSONOutput`` wrote of a document so far into a tree: complete values
/// as they are (scalars as their written text), the containers still open as the chain
/// ``open`` (outermost first), each ready to take more members. Only for output this
/// library wrote (valid JSON up to where it stopped); see ``JSONStreamEncoder/takeOver()``.
struct JSONWrittenReader {
    let bytes: UnsafeBufferPointer<UInt8>
    var i = 0
    /// The containers the text leaves open, outermost first.
    var open: [JSONTreeValue] = []
    /// The key of the innermost open object whose value the text had not begun.
    var pendingKey: String?

    init(_ bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    mutating func skipSpace() {
        while i < bytes.count, bytes[i] == 0x20 || bytes[i] == 0x0A || bytes[i] == 0x0D || bytes[i] == 0x09 { i += 1 }
    }

    /// The value at `i`, or nil at the end of the text; `rawKeys[d]`: whether the open
    /// container at depth `d` keeps its keys as they are (a `[String: V]` under a key strategy).
    mutating func value(rawKeys: [Bool]) -> JSONTreeValue? {
        skipSpace()
        guard i < bytes.count else { return nil }
        switch bytes[i] {
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            let isObject = bytes[i] == UInt8(ascii: "{")
            i += 1
            let depth = open.count
            let object = isObject ? JSONTreeObject(rawKeys: depth < rawKeys.count ? rawKeys[depth] : false) : nil
            let array = isObject ? nil : JSONTreeArray()
            let node: JSONTreeValue = object.map { .object($0) } ?? .array(array!)
            open.append(node)
            while true {
                skipSpace()
                guard i < bytes.count else { return node }
                if bytes[i] == (isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) { i += 1; open.removeLast(); return node }
                if bytes[i] == UInt8(ascii: ",") { i += 1; skipSpace() }
                var key: String?
                if isObject {
                    key = keyString()
                    skipSpace()
                    i += 1 // ':'
                }
                // Nothing after a key: the member's value had not begun.
                guard let v = value(rawKeys: rawKeys) else { pendingKey = key; return node }
                if let object, let key {
                    object.keys.append(key)
                    object.values.append(v)
                } else {
                    array?.values.append(v)
                }
                // The value is a container left open: so is this one.
                if open.count > depth + 1 { return node }
            }
        default:
            let start = i
            if bytes[i] == UInt8(ascii: "\"") {
                i += 1
                while bytes[i] != UInt8(ascii: "\"") { i += bytes[i] == UInt8(ascii: "\\") ? 2 : 1 }
                i += 1
            } else {
                while i < bytes.count, !Self.ends(bytes[i]) { i += 1 }
            }
            return .scalar(.number(String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<i]), as: UTF8.self)))
        }
    }

    static func ends(_ b: UInt8) -> Bool {
        b == UInt8(ascii: ",") || b == UInt8(ascii: "]") || b == UInt8(ascii: "}") || b == 0x20 || b == 0x0A || b == 0x0D || b == 0x09
    }

    /// The key at `i` (a written JSON string), unescaped.
    mutating func keyString() -> String {
        let start = i
        i += 1
        var escaped = false
        while bytes[i] != UInt8(ascii: "\"") {
            if bytes[i] == UInt8(ascii: "\\") { escaped = true; i += 2 } else { i += 1 }
        }
        i += 1
        let text = UnsafeBufferPointer(rebasing: bytes[(start + 1)..<(i - 1)])
        guard escaped else { return String(decoding: text, as: UTF8.self) }
        let quoted = UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(bytes)[start..<i])
        return (try? JSONValueDecoder().decode(String.self, from: quoted)) ?? String(decoding: text, as: UTF8.self)
    }
}
