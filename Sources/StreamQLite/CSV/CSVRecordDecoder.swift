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
/// `Double`/`Float` by the C core's number rule (`sq_number.h`: no `NaN`, `inf`, hex,
/// nothing beyond a double's range); `Bool` from `true`/`false`/`1`/`0` (ASCII case
/// ignored); `Date` by the one date codec (`sq_date.h`: every form SQLite's date functions read); `Data` from base64;
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
    // Unchecked exclusivity: touched for every property; only the cursor's thread uses a decoder.
    @exclusivity(unchecked) var plan: [PlanEntry] = []
    @exclusivity(unchecked) var position = 0
    /// The field a single-value decode reads.
    @exclusivity(unchecked) var currentField = 0
    /// Inside a value read from one field: no keyed container (a CSV field holds no object).
    @exclusivity(unchecked) var inField = false
    var codingPath: [any CodingKey] = []
    var userInfo: [CodingUserInfoKey: Any] = [:]
    /// The container of the last key type: every record asks for the same one.
    @exclusivity(unchecked) var lastContainer = LastKeyedContainer()

    /// The reader's file the plan is for.
    var fileIndex = 0

    init(reader: CSVFieldReader) { self.reader = reader }

    func beginRecord() { position = 0 }

    /// Another file, another header: the plan starts again.
    func newHeader() {
        plan.removeAll()
        fileIndex = reader.fileIndex
    }

    /// The field of `key` (-1: no such field); advances the plan.
    @inline(__always)
    func field<Key: CodingKey>(for key: Key) throws -> Int {
        let p = position
        if _fastPath(p < plan.count), plan[p].keyType == ObjectIdentifier(Key.self),
           let bits = codingKeyBits(key), plan[p].bits == bits {
            position = p + 1
            return plan[p].field
        }
        return try fieldByName(for: key)
    }

    private func fieldByName<Key: CodingKey>(for key: Key) throws -> Int {
        let name = key.stringValue
        let bits = codingKeyBits(key)
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

    /// The core's rule (``CSVFieldReader/fieldIndex(named:)``), else a key's `intValue`.
    private func resolve(_ name: String, intValue: Int?) throws -> Int {
        if let i = reader.fieldIndex(named: name) { return i }
        if let i = intValue, i >= 0, i < reader.fieldNames.count { return i }
        return -1
    }

    // MARK: Values

    /// Where a decoding error happened.
    func context<K: CodingKey>(_ key: K, field: Int, _ what: String) -> DecodingError.Context {
        let inRecord = field >= 0 && field < reader.fieldCount
        let line = inRecord ? reader.fields[field].line : reader.line
        let byte = inRecord ? reader.fields[field].offset : reader.offset
        let place = field >= 0 ? ", field \(field + 1)" + (reader.name(of: field).map { " (\($0))" } ?? "") : ""
        return .init(codingPath: codingPath + (key is CSVNoKey ? [] : [key]),
                     debugDescription: "CSV line \(line), byte \(byte), record \(reader.record)\(place): \(what)")
    }

    /// The bytes of field `f` of the current record; nil for NULL.
    @inline(__always)
    func bytes(_ f: Int) -> UnsafeBufferPointer<UInt8>? {
        let field = reader.fields[f]
        if field.isNull { return nil }
        return UnsafeBufferPointer(start: reader.text + field.start, count: field.count)
    }

    @inline(__always)
    func isNull(_ f: Int) -> Bool { f < 0 || f >= reader.fieldCount || reader.fields[f].isNull }

    /// The bytes of field `f`, or the error for a missing field or a NULL.
    @inline(__always)
    func present<K: CodingKey>(_ f: Int, _ type: Any.Type, _ key: K) throws -> UnsafeBufferPointer<UInt8> {
        if _fastPath(f >= 0 && f < reader.fieldCount), let b = bytes(f) { return b }
        throw absent(f, type, key)
    }

    private func absent<K: CodingKey>(_ f: Int, _ type: Any.Type, _ key: K) -> DecodingError {
        if f < 0, !(key is CSVNoKey) {
            return DecodingError.keyNotFound(key, context(key, field: -1,
                "no field '\(key.stringValue)' in the header (\(reader.fieldNames.joined(separator: ", ")))"))
        }
        return DecodingError.valueNotFound(type, context(key, field: f, "NULL for a non-optional \(type)"))
    }

    private func mismatch<T, K: CodingKey>(_ b: UnsafeBufferPointer<UInt8>, _ f: Int, _ type: T.Type, _ key: K) -> DecodingError {
        DecodingError.typeMismatch(type, context(key, field: f, CSVFieldError(bytes: b, type: T.self).message))
    }

    // One function per field type: no dynamic casts on the hot path.

    // The conversions are ``CSVText``'s (shared with ``CSVRowCursor``).

    @inline(__always)
    func string<K: CodingKey>(_ f: Int, _ key: K) throws -> String {
        CSVText.string(try present(f, String.self, key))
    }

    /// The field's text by `rule` (a ``CSVText`` conversion); a missing field, a NULL, or text
    /// the rule refuses throws.
    @inline(__always)
    func convert<V, K: CodingKey>(_ f: Int, _ key: K, _ rule: (UnsafeBufferPointer<UInt8>) -> V?) throws -> V {
        let b = try present(f, V.self, key)
        guard let v = rule(b) else { throw mismatch(b, f, V.self, key) }
        return v
    }

    @inline(__always)
    func integer<T: FixedWidthInteger, K: CodingKey>(_ type: T.Type, _ f: Int, _ key: K) throws -> T {
        try convert(f, key) { CSVText.integer($0, as: T.self) }
    }

    @inline(__always)
    func double<K: CodingKey>(_ f: Int, _ key: K) throws -> Double { try convert(f, key, CSVText.double) }

    func float<K: CodingKey>(_ f: Int, _ key: K) throws -> Float { try convert(f, key, CSVText.float) }

    func bool<K: CodingKey>(_ f: Int, _ key: K) throws -> Bool { try convert(f, key, CSVText.bool) }

    func date<K: CodingKey>(_ f: Int, _ key: K) throws -> Date { try convert(f, key, CSVText.date) }

    func data<K: CodingKey>(_ f: Int, _ key: K) throws -> Data { try convert(f, key, CSVText.data) }

    /// A nested `Decodable`: `Date` and `Data` read from the field, anything else
    /// decodes itself from the field as a single value (enums, wrappers, the built-in
    /// types through their single-value `init(from:)`).
    func nested<T: Decodable, K: CodingKey>(_ type: T.Type, field f: Int, key: K) throws -> T {
        if T.self == Date.self { return try date(f, key) as! T }
        if T.self == Data.self { return try data(f, key) as! T }
        if f < 0 { throw absent(f, T.self, key) }
        let saved = (currentField, inField)
        currentField = f
        inField = true
        defer { (currentField, inField) = saved }
        return try T(from: self)
    }

    // MARK: Decoder

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        if inField {
            throw DecodingError.typeMismatch(type, context(noKey, field: currentField, "a CSV field holds no nested object"))
        }
        if _fastPath(lastContainer.holds(Key.self)) { return lastContainer.decoding(Key.self) }
        let container = KeyedDecodingContainer(CSVKeyedContainer<Key>(unmanaged: Unmanaged.passUnretained(self)))
        lastContainer.keep(container)
        return container
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        throw DecodingError.typeMismatch([Any].self, context(noKey, field: currentField, "a CSV field is not an array"))
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        CSVFieldContainer(decoder: self, field: currentField)
    }
}

struct CSVKeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    /// The decoder outlives the container while `init(from:)` runs (its cursor owns it):
    /// held unretained, no retain/release per property (as ``RowKeyedContainer``).
    let unmanaged: Unmanaged<CSVRecordDecoder>
    var decoder: CSVRecordDecoder { unmanaged.takeUnretainedValue() }
    @inline(__always) func with<R>(_ body: (CSVRecordDecoder) throws -> R) rethrows -> R {
        try unmanaged._withUnsafeGuaranteedRef(body)
    }
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

    /// The field of `key` when it is not NULL (nil: a missing field or NULL).
    @inline(__always) func presentField(_ d: CSVRecordDecoder, _ key: Key) throws -> Int? {
        let f = try d.field(for: key)
        return d.isNull(f) ? nil : f
    }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try with { d in try d.bool(d.field(for: key), key) } }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try with { d in try d.string(d.field(for: key), key) } }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try with { d in try d.double(d.field(for: key), key) } }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try with { d in try d.float(d.field(for: key), key) } }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try with { d in try d.integer(type, d.field(for: key), key) } }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try with { d in try d.integer(type, d.field(for: key), key) } }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try with { d in try d.integer(type, d.field(for: key), key) } }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try with { d in try d.integer(type, d.field(for: key), key) } }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try with { d in try d.integer(type, d.field(for: key), key) } }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try with { d in try d.integer(type, d.field(for: key), key) } }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try with { d in try d.integer(type, d.field(for: key), key) } }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try with { d in try d.integer(type, d.field(for: key), key) } }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try with { d in try d.integer(type, d.field(for: key), key) } }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try with { d in try d.integer(type, d.field(for: key), key) } }
    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try with { d in try d.nested(type, field: d.field(for: key), key: key) }
    }

    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? { try with { d in try presentField(d, key).map { try d.bool($0, key) } } }
    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? { try with { d in try presentField(d, key).map { try d.string($0, key) } } }
    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? { try with { d in try presentField(d, key).map { try d.double($0, key) } } }
    func decodeIfPresent(_ type: Float.Type, forKey key: Key) throws -> Float? { try with { d in try presentField(d, key).map { try d.float($0, key) } } }
    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? { try with { d in try presentField(d, key).map { try d.integer(type, $0, key) } } }
    func decodeIfPresent(_ type: Int8.Type, forKey key: Key) throws -> Int8? { try with { d in try presentField(d, key).map { try d.integer(type, $0, key) } } }
    func decodeIfPresent(_ type: Int16.Type, forKey key: Key) throws -> Int16? { try with { d in try presentField(d, key).map { try d.integer(type, $0, key) } } }
    func decodeIfPresent(_ type: Int32.Type, forKey key: Key) throws -> Int32? { try with { d in try presentField(d, key).map { try d.integer(type, $0, key) } } }
    func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? { try with { d in try presentField(d, key).map { try d.integer(type, $0, key) } } }
    func decodeIfPresent(_ type: UInt.Type, forKey key: Key) throws -> UInt? { try with { d in try presentField(d, key).map { try d.integer(type, $0, key) } } }
    func decodeIfPresent(_ type: UInt8.Type, forKey key: Key) throws -> UInt8? { try with { d in try presentField(d, key).map { try d.integer(type, $0, key) } } }
    func decodeIfPresent(_ type: UInt16.Type, forKey key: Key) throws -> UInt16? { try with { d in try presentField(d, key).map { try d.integer(type, $0, key) } } }
    func decodeIfPresent(_ type: UInt32.Type, forKey key: Key) throws -> UInt32? { try with { d in try presentField(d, key).map { try d.integer(type, $0, key) } } }
    func decodeIfPresent(_ type: UInt64.Type, forKey key: Key) throws -> UInt64? { try with { d in try presentField(d, key).map { try d.integer(type, $0, key) } } }
    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        try with { d in try presentField(d, key).map { try d.nested(type, field: $0, key: key) } }
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

/// No key (a single-value decode).
struct CSVNoKey: CodingKey {
    var stringValue: String { "" }
    var intValue: Int? { nil }
    init() {}
    init?(stringValue: String) { nil }
    init?(intValue: Int) { nil }
}
/// No key: a single-value decode (the error messages then name no key).
let noKey = CSVNoKey()

/// One field read as a single value (string and integer enums, wrappers).
struct CSVFieldContainer: SingleValueDecodingContainer {
    let decoder: CSVRecordDecoder
    let field: Int
    var codingPath: [any CodingKey] { decoder.codingPath }

    func decodeNil() -> Bool { decoder.isNull(field) }
    func decode(_ type: Bool.Type) throws -> Bool { try decoder.bool(field, noKey) }
    func decode(_ type: String.Type) throws -> String { try decoder.string(field, noKey) }
    func decode(_ type: Double.Type) throws -> Double { try decoder.double(field, noKey) }
    func decode(_ type: Float.Type) throws -> Float { try decoder.float(field, noKey) }
    func decode(_ type: Int.Type) throws -> Int { try decoder.integer(type, field, noKey) }
    func decode(_ type: Int8.Type) throws -> Int8 { try decoder.integer(type, field, noKey) }
    func decode(_ type: Int16.Type) throws -> Int16 { try decoder.integer(type, field, noKey) }
    func decode(_ type: Int32.Type) throws -> Int32 { try decoder.integer(type, field, noKey) }
    func decode(_ type: Int64.Type) throws -> Int64 { try decoder.integer(type, field, noKey) }
    func decode(_ type: UInt.Type) throws -> UInt { try decoder.integer(type, field, noKey) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try decoder.integer(type, field, noKey) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try decoder.integer(type, field, noKey) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try decoder.integer(type, field, noKey) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try decoder.integer(type, field, noKey) }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try decoder.nested(type, field: field, key: noKey) }
}
