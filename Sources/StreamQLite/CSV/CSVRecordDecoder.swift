import CStreamQLite
import Foundation

/// A `Decoder` reading a `Decodable` value straight from the fields of a CSV record.
///
/// Coding keys are matched to header names by the ingest core's rule (exact, else
/// ignoring ASCII case; two names matching only ignoring case are an error);
/// without a header the names are c1, c2, … (or a key's `intValue` + 1). The key →
/// field plan is built on the first record and reused (keys come in the same order
/// on every record, as in ``RowDecoder``; a key that does not match its plan entry
/// is looked up by name and rewrites it).
///
/// Field text → value: `String` as is; integers `-?[0-9]+` within the type's range;
/// `Double`/`Float` by Swift's parser (`1.5`, `1e-05`, `Infinity`); `Bool` from
/// `true`/`false`/`1`/`0` (ASCII case ignored); `Date` by the one date codec
/// (`sq_date.h`: every form SQLite's date functions read); `Data` from base64;
/// a NULL field (an empty unquoted field, or the NULL text) is `nil` for optionals
/// and an error otherwise; other `Decodable` types decode from the field as a single
/// value (string and integer enums, wrappers).
final class CSVRecordDecoder: Decoder {
    struct PlanEntry {
        var name: String
        var field: Int
        var keyType: ObjectIdentifier?
        var bits: UInt64
    }

    let reader: CSVFieldReader
    var plan: [PlanEntry] = []
    var position = 0
    /// The field a single-value decode reads.
    var currentField = 0
    /// Inside a value read from one field: no keyed container (a CSV field holds no object).
    var inField = false
    var codingPath: [any CodingKey] = []
    var userInfo: [CodingUserInfoKey: Any] = [:]
    private var names: [String]?

    init(reader: CSVFieldReader) { self.reader = reader }

    func beginRecord() { position = 0 }

    /// The field of `key` (-1: no such field); advances the plan.
    @inline(__always)
    func field<Key: CodingKey>(for key: Key) throws -> Int {
        let p = position
        if _fastPath(p < plan.count), plan[p].keyType == ObjectIdentifier(Key.self),
           let bits = RowDecoder.keyBits(key), plan[p].bits == bits {
            position = p + 1
            return plan[p].field
        }
        return try fieldByName(for: key)
    }

    private func fieldByName<Key: CodingKey>(for key: Key) throws -> Int {
        let name = key.stringValue
        let bits = RowDecoder.keyBits(key)
        let p = position
        position = p + 1
        if p < plan.count && plan[p].name == name {
            if bits != nil { plan[p].keyType = ObjectIdentifier(Key.self); plan[p].bits = bits! }
            return plan[p].field
        }
        let f = try resolve(name, intValue: key.intValue)
        let entry = PlanEntry(name: name, field: f, keyType: bits == nil ? nil : ObjectIdentifier(Key.self), bits: bits ?? 0)
        if p < plan.count { plan[p] = entry } else if p == plan.count && p < 256 { plan.append(entry) }
        return f
    }

    /// The core's rule: exact, else ASCII case-insensitive (ambiguous: an error).
    private func resolve(_ name: String, intValue: Int?) throws -> Int {
        if names == nil { names = reader.fieldNames }
        let names = self.names!
        if let i = names.firstIndex(of: name) { return i }
        let matches = names.indices.filter { sqlite3_stricmp(names[$0], name) == 0 }
        if matches.count > 1 {
            throw DecodingError.dataCorrupted(.init(codingPath: codingPath,
                debugDescription: "CSV: key '\(name)' matches the header names '\(names[matches[0]])' and '\(names[matches[1]])' only ignoring case: ambiguous"))
        }
        if let m = matches.first { return m }
        if let i = intValue, i >= 0, i < names.count { return i }
        return -1
    }

    // MARK: Values

    /// Where a decoding error happened.
    func context(_ key: (any CodingKey)?, field: Int, _ what: String) -> DecodingError.Context {
        let place = field >= 0 ? ", field \(field + 1)" + (reader.name(of: field).map { " (\($0))" } ?? "") : ""
        return .init(codingPath: codingPath + (key.map { [$0] } ?? []),
                     debugDescription: "CSV line \(reader.line), record \(reader.record)\(place): \(what)")
    }

    /// The bytes of field `f` of the current record; nil for NULL.
    @inline(__always)
    func bytes(_ f: Int) -> UnsafeBufferPointer<UInt8>? {
        let field = reader.fields[f]
        if field.isNull { return nil }
        return UnsafeBufferPointer(start: reader.text + field.start, count: field.count)
    }

    func isNull(_ f: Int) -> Bool { f < 0 || f >= reader.fields.count || reader.fields[f].isNull }

    func value<T>(_ type: T.Type, field f: Int, key: (any CodingKey)?) throws -> T {
        guard f >= 0 else {
            if let key {
                throw DecodingError.keyNotFound(key, context(key, field: -1,
                    "no field '\(key.stringValue)' in the header (\(reader.fieldNames.joined(separator: ", ")))"))
            }
            throw DecodingError.valueNotFound(T.self, context(key, field: f, "no field"))
        }
        guard f < reader.fields.count, let b = bytes(f) else {
            throw DecodingError.valueNotFound(T.self, context(key, field: f, "NULL for a non-optional \(T.self)"))
        }
        if let v = convert(b, to: T.self) { return v }
        let text = String(decoding: b.prefix(200), as: UTF8.self)
        throw DecodingError.typeMismatch(T.self, context(key, field: f, "'\(text)' is not a \(T.self)"))
    }

    /// The field's text as T, or nil when it is not one.
    private func convert<T>(_ b: UnsafeBufferPointer<UInt8>, to type: T.Type) -> T? {
        switch type {
        case is String.Type: return String(decoding: b, as: UTF8.self) as? T
        case is Int.Type: return integer(b).flatMap { Int(exactly: $0) } as? T
        case is Int64.Type: return integer(b) as? T
        case is Int32.Type: return integer(b).flatMap { Int32(exactly: $0) } as? T
        case is Int16.Type: return integer(b).flatMap { Int16(exactly: $0) } as? T
        case is Int8.Type: return integer(b).flatMap { Int8(exactly: $0) } as? T
        case is UInt.Type: return integer(b).flatMap { UInt(exactly: $0) } as? T
        case is UInt64.Type: return integer(b).flatMap { UInt64(exactly: $0) } as? T
        case is UInt32.Type: return integer(b).flatMap { UInt32(exactly: $0) } as? T
        case is UInt16.Type: return integer(b).flatMap { UInt16(exactly: $0) } as? T
        case is UInt8.Type: return integer(b).flatMap { UInt8(exactly: $0) } as? T
        case is Double.Type: return Double(Substring(decoding: b, as: UTF8.self)) as? T
        case is Float.Type: return Float(Substring(decoding: b, as: UTF8.self)) as? T
        case is Bool.Type: return boolean(b) as? T
        case is Date.Type: return parseSQLiteDate(b) as? T
        case is Data.Type: return Data(base64Encoded: Data(b)) as? T
        default: return nil
        }
    }

    /// `-?[0-9]+` within 64 bits (the number parser of `sq_json.h`).
    private func integer(_ b: UnsafeBufferPointer<UInt8>) -> Int64? {
        guard let p = b.baseAddress, b.count > 0 else { return nil }
        var v: Int64 = 0
        return p.withMemoryRebound(to: CChar.self, capacity: b.count) {
            sq_json_number_int64($0, b.count, &v) != 0 ? v : nil
        }
    }

    private func boolean(_ b: UnsafeBufferPointer<UInt8>) -> Bool? {
        switch b.count {
        case 1: return b[0] == UInt8(ascii: "1") ? true : b[0] == UInt8(ascii: "0") ? false : nil
        case 4: return sqlite3_strnicmp(UnsafeRawPointer(b.baseAddress!).assumingMemoryBound(to: CChar.self), "true", 4) == 0 ? true : nil
        case 5: return sqlite3_strnicmp(UnsafeRawPointer(b.baseAddress!).assumingMemoryBound(to: CChar.self), "false", 5) == 0 ? false : nil
        default: return nil
        }
    }

    /// A nested `Decodable`: a built-in field type, or a single value read from the field.
    func nested<T: Decodable>(_ type: T.Type, field f: Int, key: (any CodingKey)?) throws -> T {
        switch type {
        case is String.Type, is Int.Type, is Int64.Type, is Int32.Type, is Int16.Type, is Int8.Type,
             is UInt.Type, is UInt64.Type, is UInt32.Type, is UInt16.Type, is UInt8.Type,
             is Double.Type, is Float.Type, is Bool.Type, is Date.Type, is Data.Type:
            return try value(type, field: f, key: key)
        default:
            guard f >= 0 else { return try value(type, field: f, key: key) }
            let saved = (currentField, inField)
            currentField = f
            inField = true
            defer { (currentField, inField) = saved }
            return try T(from: self)
        }
    }

    // MARK: Decoder

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        if inField {
            throw DecodingError.typeMismatch(type, context(nil, field: currentField, "a CSV field holds no nested object"))
        }
        return KeyedDecodingContainer(CSVKeyedContainer<Key>(decoder: self))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        throw DecodingError.typeMismatch([Any].self, context(nil, field: currentField, "a CSV field is not an array"))
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        CSVFieldContainer(decoder: self, field: currentField)
    }
}

struct CSVKeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let decoder: CSVRecordDecoder
    var codingPath: [any CodingKey] { decoder.codingPath }
    var allKeys: [Key] { decoder.reader.fieldNames.compactMap { Key(stringValue: $0) } }

    func contains(_ key: Key) -> Bool {
        decoder.reader.fieldNames.contains { sqlite3_stricmp($0, key.stringValue) == 0 }
    }

    func decodeNil(forKey key: Key) throws -> Bool {
        let f = try decoder.field(for: key)
        decoder.position -= 1   // the value's decode uses the plan entry again
        return decoder.isNull(f)
    }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        let f = try decoder.field(for: key)
        if decoder.isNull(f) { return nil }
        return try decoder.nested(type, field: f, key: key)
    }

    @inline(__always) func read<T>(_ type: T.Type, _ key: Key) throws -> T {
        try decoder.value(type, field: try decoder.field(for: key), key: key)
    }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try read(type, key) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try read(type, key) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try read(type, key) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try read(type, key) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try read(type, key) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try read(type, key) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try read(type, key) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try read(type, key) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try read(type, key) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try read(type, key) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try read(type, key) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try read(type, key) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try read(type, key) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try read(type, key) }
    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try decoder.nested(type, field: try decoder.field(for: key), key: key)
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        throw DecodingError.typeMismatch(type, decoder.context(key, field: -1, "a CSV field holds no nested object"))
    }
    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        throw DecodingError.typeMismatch([Any].self, decoder.context(key, field: -1, "a CSV field holds no array"))
    }
    func superDecoder() throws -> any Decoder { decoder }
    func superDecoder(forKey key: Key) throws -> any Decoder { decoder }
}

/// One field read as a single value (string and integer enums, wrappers).
struct CSVFieldContainer: SingleValueDecodingContainer {
    let decoder: CSVRecordDecoder
    let field: Int
    var codingPath: [any CodingKey] { decoder.codingPath }

    func decodeNil() -> Bool { decoder.isNull(field) }
    func decode(_ type: Bool.Type) throws -> Bool { try decoder.value(type, field: field, key: nil) }
    func decode(_ type: String.Type) throws -> String { try decoder.value(type, field: field, key: nil) }
    func decode(_ type: Double.Type) throws -> Double { try decoder.value(type, field: field, key: nil) }
    func decode(_ type: Float.Type) throws -> Float { try decoder.value(type, field: field, key: nil) }
    func decode(_ type: Int.Type) throws -> Int { try decoder.value(type, field: field, key: nil) }
    func decode(_ type: Int8.Type) throws -> Int8 { try decoder.value(type, field: field, key: nil) }
    func decode(_ type: Int16.Type) throws -> Int16 { try decoder.value(type, field: field, key: nil) }
    func decode(_ type: Int32.Type) throws -> Int32 { try decoder.value(type, field: field, key: nil) }
    func decode(_ type: Int64.Type) throws -> Int64 { try decoder.value(type, field: field, key: nil) }
    func decode(_ type: UInt.Type) throws -> UInt { try decoder.value(type, field: field, key: nil) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try decoder.value(type, field: field, key: nil) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try decoder.value(type, field: field, key: nil) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try decoder.value(type, field: field, key: nil) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try decoder.value(type, field: field, key: nil) }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try decoder.nested(type, field: field, key: nil) }
}
