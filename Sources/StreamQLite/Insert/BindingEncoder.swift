import CStreamQLite
import Foundation

/// An `Encoder` that binds a value's properties straight into a prepared
/// statement's parameters: no dictionaries, no intermediate values.
///
/// One instance serves a whole bulk insert; `beginRow` points it at the
/// parameters of the next row. In discovery mode it only records the keys.
final class BindingEncoder: Encoder {
    var codingPath: [any CodingKey] = []
    var userInfo: [CodingUserInfoKey: Any] = [:]

    @exclusivity(unchecked)
    var plan: InsertPlan?
    @exclusivity(unchecked)
    var stmt: OpaquePointer?
    @exclusivity(unchecked)
    var base: Int32 = 0
    @exclusivity(unchecked)
    var cursor = 0
    @exclusivity(unchecked)
    var stamp = 0
    /// Per column: the row stamp that last bound it (raw memory: no CoW checks per value).
    @exclusivity(unchecked)
    var boundStamp: UnsafeMutablePointer<Int> = .allocate(capacity: 1)
    /// The plan's column names, as raw memory, for the in-order fast path.
    @exclusivity(unchecked)
    var columnNames: UnsafeMutablePointer<String> = .allocate(capacity: 1)
    @exclusivity(unchecked)
    var columnCount = 0

    deinit {
        keyMemo.deallocate()
        columnNames.deinitialize(count: columnCount)
        columnNames.deallocate()
        boundStamp.deallocate()
    }
    @exclusivity(unchecked)
    var failure: RowEncodingFailure?
    /// Where top-level TEXT properties are copied for `SQLITE_STATIC` binding (the
    /// batch loop resets it after each batch has run); nil: SQLite copies them.
    @exclusivity(unchecked)
    var arena: BindArena?
    let ignoreUnknownKeys: Bool
    let dateEncoding: InsertOptions.DateEncoding
    @exclusivity(unchecked)
    var discovering = false
    var discovered: [String] = []
    /// Nested values in JSON columns: the library's JSON encoder (keys sorted, `/` as is,
    /// dates as `dateEncoding` says), one buffer reused for the whole insert.
    lazy var jsonEncoder = JSONColumnEncoder(dateEncoding: dateEncoding)

    init(ignoreUnknownKeys: Bool, dateEncoding: InsertOptions.DateEncoding) {
        self.ignoreUnknownKeys = ignoreUnknownKeys
        self.dateEncoding = dateEncoding
    }

    func use(plan: InsertPlan) {
        self.plan = plan
        keyMemoType = nil
        columnNames.deinitialize(count: columnCount)
        columnNames.deallocate()
        boundStamp.deallocate()
        columnCount = plan.columns.count
        columnNames = .allocate(capacity: max(columnCount, 1))
        columnNames.initialize(from: plan.columns, count: columnCount)
        boundStamp = .allocate(capacity: max(columnCount, 1))
        boundStamp.initialize(repeating: -1, count: columnCount)
    }

    /// Binds `value` into the parameters of the row starting after `base`; NULL for columns it did not encode.
    func encodeRow<T: Encodable>(_ value: T, stmt: OpaquePointer, base: Int32) throws {
        self.stmt = stmt
        self.base = base
        cursor = 0
        stamp &+= 1
        failure = nil
        if !nestedJSON.isEmpty { nestedJSON.removeAll(keepingCapacity: true) }  // left by a row that threw
        try value.encode(to: self)
        if let failure { throw failure }
        if !nestedJSON.isEmpty { try bindNestedJSON() }
        let s = stamp
        for i in 0..<columnCount where boundStamp[i] != s {
            sqlite3_bind_null(stmt, base + Int32(i) + 1)
        }
    }

    /// Records the keys `value` encodes (and its nil optional properties) without binding.
    func discoverKeys<T: Encodable>(_ value: T) throws -> [String] {
        discovering = true
        discovered = []
        failure = nil
        defer { discovering = false }
        try value.encode(to: self)
        if let failure { throw failure }
        return discovered
    }

    /// The container of the last key type: every value asks for the same one.
    @exclusivity(unchecked) private var lastContainer = LastKeyedContainer()

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        if _fastPath(lastContainer.holds(Key.self)) { return lastContainer.encoding(Key.self) }
        let container = KeyedEncodingContainer(BindingKeyedContainer<Key>(encoder: self))
        lastContainer.keep(container)
        return container
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        fail(nil, "a row must encode as a keyed container (a struct or class with properties), not an array")
        return DiscardingUnkeyedContainer()
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        fail(nil, "a row must encode as a keyed container (a struct or class with properties), not a single value")
        return DiscardingSingleValueContainer()
    }

    func fail(_ column: String?, _ message: String) {
        if failure == nil { failure = RowEncodingFailure(column: column, message: message) }
    }

    /// Key → column memo for keys that are one byte of plain data, as synthesized
    /// `CodingKeys` enums are: indexed by that byte, the position + 2 (1: a
    /// skipped key, 0: not seen yet). Saves the `stringValue` call and the name
    /// comparison on every property of every row after the first.
    @exclusivity(unchecked)
    private var keyMemo: UnsafeMutablePointer<Int> = {
        let p = UnsafeMutablePointer<Int>.allocate(capacity: 256)
        p.initialize(repeating: 0, count: 256)
        return p
    }()
    @exclusivity(unchecked)
    private var keyMemoType: ObjectIdentifier?

    /// The position of `key`'s column, -1 to skip it (discovery, ignored unknown key).
    @inline(__always)
    func position<K: CodingKey>(for key: K) throws -> Int {
        guard isByteCodingKey(K.self) && !discovering else { return try positionByName(key) }
        let byte = codingKeyByte(key)
        if keyMemoType == ObjectIdentifier(K.self) {
            let m = keyMemo[byte]
            if m >= 2 {
                let c = m &- 2
                cursor = c &+ 1
                boundStamp[c] = stamp
                return c
            }
            if m == 1 { return -1 }
        } else {
            keyMemo.update(repeating: 0, count: 256)
            keyMemoType = ObjectIdentifier(K.self)
        }
        let c = try positionByName(key)
        keyMemo[byte] = c &+ 2
        return c
    }

    /// The position of `key`'s column by name (see ``position(for:)``).
    func positionByName(_ key: some CodingKey) throws -> Int {
        let name = key.stringValue
        if discovering {
            discovered.append(name)
            return -1
        }
        if cursor < columnCount && columnNames[cursor] == name {
            let c = cursor
            cursor += 1
            boundStamp[c] = stamp
            return c
        }
        let plan = plan.unsafelyUnwrapped
        if let c = plan.index[name.lowercased()] {
            cursor = c + 1
            boundStamp[c] = stamp
            return c
        }
        if ignoreUnknownKeys { return -1 }
        throw RowEncodingFailure(column: name, message: "the value has a property '\(name)' with no column in the insert (columns: \(plan.columns.joined(separator: ", "))); pass columns: or unknownKeys: .ignore")
    }

    @inline(__always)
    func check(_ rc: Int32, _ column: Int) throws {
        if rc != SQLITE_OK {
            throw RowEncodingFailure(column: plan?.columns[column], message: "cannot bind: SQLite error \(rc)")
        }
    }

    func bindInt(_ v: Int64, _ key: some CodingKey) throws {
        let c = try position(for: key)
        if c >= 0 { try check(sqlite3_bind_int64(stmt, base + Int32(c) + 1, v), c) }
    }

    func bindUInt(_ v: UInt64, _ key: some CodingKey) throws {
        guard v <= UInt64(Int64.max) else {
            throw RowEncodingFailure(column: key.stringValue, message: "\(v) does not fit SQLite's 64-bit signed INTEGER")
        }
        try bindInt(Int64(v), key)
    }

    func bindDouble(_ v: Double, _ key: some CodingKey) throws {
        let c = try position(for: key)
        guard c >= 0 else { return }
        if v.isNaN {
            throw RowEncodingFailure(column: plan?.columns[c], message: "NaN cannot be stored (SQLite would store NULL)")
        }
        try check(sqlite3_bind_double(stmt, base + Int32(c) + 1, v), c)
    }

    func bindText(_ v: String, _ key: some CodingKey) throws {
        let c = try position(for: key)
        if c >= 0 { sqBindText(stmt.unsafelyUnwrapped, base + Int32(c) + 1, v, arena: arena) }
    }

    func bindNull(_ key: some CodingKey) throws {
        let c = try position(for: key)
        if c >= 0 { try check(sqlite3_bind_null(stmt, base + Int32(c) + 1), c) }
    }

    // MARK: Nested containers

    /// The values of JSON columns written through nested containers (a hand-written
    /// `encode(to:)` calling `nestedContainer(keyedBy:forKey:)` or
    /// `nestedUnkeyedContainer(forKey:)`): the container's content is collected while the
    /// row encodes, then written as JSON by the library's one JSON encoder.
    @exclusivity(unchecked) var nestedJSON: [(column: Int, encoder: JSONTreeEncoder)] = []

    /// The encoder collecting a nested container's value for `key`'s column; nil when the
    /// key is skipped (key discovery, an ignored unknown key) or on a failure (recorded).
    func nestedEncoder(forKey key: some CodingKey) -> JSONTreeEncoder? {
        let c: Int
        do { c = try position(for: key) } catch {
            let failure = error as? RowEncodingFailure
            fail(failure?.column ?? key.stringValue, failure?.message ?? "\(error)")
            return nil
        }
        guard c >= 0 else { return nil }
        let plan = self.plan.unsafelyUnwrapped
        guard plan.isJSON[c] else {
            fail(plan.columns[c], "a nested container for '\(key.stringValue)' needs a JSON column (declared type containing JSON, or options.jsonColumns)")
            return nil
        }
        let nested = JSONTreeEncoder(options: jsonEncoder.encoder.options, codingPath: [key])
        nestedJSON.append((c, nested))
        return nested
    }

    /// Binds the JSON text of each nested container of the row (copied to the arena).
    func bindNestedJSON() throws {
        defer { nestedJSON.removeAll(keepingCapacity: true) }
        let stmt = self.stmt.unsafelyUnwrapped
        let plan = self.plan.unsafelyUnwrapped
        for (c, nested) in nestedJSON {
            let tree: JSONTreeValue?
            do { tree = try nested.finish() } catch let error as EncodingError {
                throw RowEncodingFailure(column: plan.columns[c], message: "cannot write the nested value as JSON: \(error.streamQLiteDescription)")
            }
            let index = base + Int32(c) + 1
            guard let tree else {
                sqlite3_bind_null(stmt, index)
                continue
            }
            let writer = jsonEncoder.encoder
            writer.reset()
            tree.write(to: &writer.out)
            bindJSONText(writer.out.bytes, stmt, index)
        }
    }

    /// Binds JSON text written by the JSON encoder (its buffer is reused): copied to the
    /// arena and bound `SQLITE_STATIC`, or, without an arena, copied by SQLite.
    func bindJSONText(_ json: UnsafeBufferPointer<UInt8>, _ stmt: OpaquePointer, _ index: Int32) {
        let start = UnsafeRawPointer(json.baseAddress ?? UnsafePointer(bitPattern: 1)!)
        if let arena {
            let copy = arena.copy(start, json.count)
            _ = sqlite3_bind_text64(stmt, index, UnsafeRawPointer(copy).assumingMemoryBound(to: CChar.self),
                                    sqlite3_uint64(json.count), nil /* SQLITE_STATIC */, UInt8(SQLITE_UTF8))
        } else {
            _ = sqlite3_bind_text64(stmt, index, start.assumingMemoryBound(to: CChar.self),
                                    sqlite3_uint64(json.count), streamTransientDestructor, UInt8(SQLITE_UTF8))
        }
    }

    func bindValue<T: Encodable>(_ value: T, _ key: some CodingKey) throws {
        let c = try position(for: key)
        guard c >= 0 else { return }
        let index = base + Int32(c) + 1
        let stmt = self.stmt.unsafelyUnwrapped
        let plan = self.plan.unsafelyUnwrapped
        if try sqBindSpecialValue(value, stmt, index, column: plan.columns[c], dateEncoding: dateEncoding) { return }
        if plan.isJSON[c] {
            // A nil optional is NULL (the decoder reads NULL as nil), anything else its JSON text.
            if let optional = value as? any JSONOptionalValue, optional.isNone {
                sqlite3_bind_null(stmt, index)
                return
            }
            let json: UnsafeBufferPointer<UInt8>
            do { json = try jsonEncoder.encode(value) } catch let error as EncodingError {
                throw RowEncodingFailure(column: plan.columns[c], message: "cannot write the nested \(T.self) as JSON: \(error.streamQLiteDescription)")
            }
            bindJSONText(json, stmt, index)
            return
        }
        // A single-value type (a RawRepresentable enum, a wrapper): bind what it encodes.
        let single = ColumnEncoder(stmt: stmt, index: index, column: plan.columns[c], owner: self)
        try value.encode(to: single)
        if single.nested {
            throw RowEncodingFailure(
                column: plan.columns[c],
                message: "a nested \(T.self) needs a JSON column (declared type containing JSON, or options.jsonColumns)")
        }
        if !single.bound { sqlite3_bind_null(stmt, index) }
    }
}

struct BindingKeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    /// Unretained (no retain cycle, no retain/release per property): the encoder
    /// caches this container and outlives every `encode(to:)` call it makes;
    /// Codable types do not keep containers past their `encode(to:)`.
    private let ref: Unmanaged<BindingEncoder>
    var codingPath: [any CodingKey] { [] }

    init(encoder: BindingEncoder) { ref = .passUnretained(encoder) }

    private var encoder: BindingEncoder { ref.takeUnretainedValue() }

    @inline(__always)
    private func with(_ body: (BindingEncoder) throws -> Void) throws {
        try ref._withUnsafeGuaranteedRef(body)
    }

    mutating func encodeNil(forKey key: Key) throws { try with { try $0.bindNull(key) } }
    mutating func encode(_ value: Bool, forKey key: Key) throws { try with { try $0.bindInt(value ? 1 : 0, key) } }
    mutating func encode(_ value: String, forKey key: Key) throws { try with { try $0.bindText(value, key) } }
    mutating func encode(_ value: Double, forKey key: Key) throws { try with { try $0.bindDouble(value, key) } }
    mutating func encode(_ value: Float, forKey key: Key) throws { try with { try $0.bindDouble(Double(value), key) } }
    mutating func encode(_ value: Int, forKey key: Key) throws { try with { try $0.bindInt(Int64(value), key) } }
    mutating func encode(_ value: Int8, forKey key: Key) throws { try with { try $0.bindInt(Int64(value), key) } }
    mutating func encode(_ value: Int16, forKey key: Key) throws { try with { try $0.bindInt(Int64(value), key) } }
    mutating func encode(_ value: Int32, forKey key: Key) throws { try with { try $0.bindInt(Int64(value), key) } }
    mutating func encode(_ value: Int64, forKey key: Key) throws { try with { try $0.bindInt(value, key) } }
    mutating func encode(_ value: UInt, forKey key: Key) throws { try with { try $0.bindUInt(UInt64(value), key) } }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { try with { try $0.bindInt(Int64(value), key) } }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { try with { try $0.bindInt(Int64(value), key) } }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { try with { try $0.bindInt(Int64(value), key) } }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { try with { try $0.bindUInt(value, key) } }
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws { try with { try $0.bindValue(value, key) } }

    /// A nested object for a JSON column: written there as JSON text when the row ends.
    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key)
        -> KeyedEncodingContainer<NestedKey>
    {
        guard let nested = encoder.nestedEncoder(forKey: key) else {
            return KeyedEncodingContainer(DiscardingKeyedContainer<NestedKey>())
        }
        return nested.container(keyedBy: NestedKey.self)
    }
    /// A nested array for a JSON column: written there as JSON text when the row ends.
    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        guard let nested = encoder.nestedEncoder(forKey: key) else { return DiscardingUnkeyedContainer() }
        return nested.unkeyedContainer()
    }
    mutating func superEncoder() -> any Encoder {
        encoder.fail(nil, "superEncoder is not supported in a row")
        return encoder
    }
    mutating func superEncoder(forKey key: Key) -> any Encoder {
        encoder.fail(key.stringValue, "superEncoder is not supported in a row")
        return encoder
    }
}
