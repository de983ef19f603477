import CStreamQLite
import Foundation

/// A `Decoder` that reads a row straight from `sqlite3_column_*`.
///
/// The coding-key → column plan is built on the first row and reused: keys
/// arrive in the same order on every row (synthesized `init(from:)`), so each
/// lookup checks one plan entry. A key that does not match its entry (an
/// `init(from:)` that decodes keys conditionally or in another order) is
/// looked up by name and rewrites that entry, so the plan never gives a wrong
/// column, only a slower lookup.
///
/// The hot path avoids the costs of a generic `Decoder` measured with callgrind
/// (instructions per property and per row):
/// - Keys of trivial types up to 8 bytes (synthesized `CodingKeys` enums) are
///   matched by their bits and their type, without calling `stringValue` or
///   touching a `String`; other keys compare their `stringValue` with the plan's.
/// - The plan is an unsafe buffer owned by the decoder: no array retain/release
///   or bounds check per property.
/// - The keyed container of the last key type is returned from a thunk captured
///   on the first row: building it (or bit-casting a cached one) needs the
///   `KeyedDecodingContainer<Key>` metadata, a ~330-instruction hashed lookup
///   in unspecialized code on every row.
@usableFromInline final class RowDecoder: Decoder {
    @usableFromInline let statement: Statement
    @usableFromInline let stmt: OpaquePointer

    /// One step of the plan: the key the type asked for at this position and its column.
    @usableFromInline struct PlanEntry {
        /// The key's `stringValue`.
        @usableFromInline var name: String
        /// The column, or -1 when the result has no such column.
        @usableFromInline var column: Int32
        /// The key's type when `bits` identifies the key (trivial key types of at most 8 bytes), else nil.
        @usableFromInline var keyType: ObjectIdentifier?
        /// The key's bytes, zero-extended.
        @usableFromInline var bits: UInt64
    }

    /// The plan and the position in it, in memory of their own so the keyed container
    /// reaches them through a pointer, without retaining the decoder per property.
    @usableFromInline struct PlanState {
        /// The plan, in the order the type asks for keys (`count` entries, room for `capacity`).
        @usableFromInline var plan: UnsafeMutablePointer<PlanEntry>
        @usableFromInline var count = 0
        @usableFromInline var capacity: Int
        /// The plan entry the next key is checked against.
        @usableFromInline var position = 0
        /// The statement handle.
        @usableFromInline let stmt: OpaquePointer
    }

    /// Allocated by `init`, freed by `deinit`.
    @usableFromInline let state: UnsafeMutablePointer<PlanState>
    @inlinable var plan: UnsafeMutablePointer<PlanEntry> {
        get { state.pointee.plan }
        set { state.pointee.plan = newValue }
    }
    @inlinable var planCount: Int {
        get { state.pointee.count }
        set { state.pointee.count = newValue }
    }
    @inlinable var planCapacity: Int {
        get { state.pointee.capacity }
        set { state.pointee.capacity = newValue }
    }
    @inlinable var position: Int {
        get { state.pointee.position }
        set { state.pointee.position = newValue }
    }
    /// The column a single-value decode reads (a nested RawRepresentable, Date …).
    @exclusivity(unchecked) @usableFromInline var currentColumn: Int32 = 0
    public var codingPath: [any CodingKey] = []
    public var userInfo: [CodingUserInfoKey: Any] = [:] {
        didSet { jsonColumns.removeAll() }  // they hand it to nested values
    }
    /// The last nested type ``decodeNested(_:_:)`` read from a column's JSON (not a
    /// ``DatabaseValueConvertible``): asked once, not on every row (a conformance lookup).
    @exclusivity(unchecked) @usableFromInline var lastJSONType: ObjectIdentifier?
    /// Per column, the decoder of its nested values (made on the first row that reads one,
    /// then reused: see ``JSONColumnDecoder``).
    @exclusivity(unchecked) var jsonColumns: [JSONColumnDecoder?] = []

    /// The plan stops growing here (a type asking for more keys per row looks the rest up by name).
    @usableFromInline static var maxPlanCount: Int { 256 }

    init(statement: Statement) {
        self.statement = statement
        self.stmt = statement.handle
        state = .allocate(capacity: 1)
        state.initialize(to: PlanState(plan: .allocate(capacity: 16), capacity: 16, stmt: statement.handle))
    }

    deinit {
        plan.deinitialize(count: planCount)
        plan.deallocate()
        state.deinitialize(count: 1)
        state.deallocate()
    }

    @inlinable func beginRow() { position = 0 }

    /// The column of `key` when it matches the next plan entry by its bits (and advances), else nil.
    @inlinable @inline(__always)
    static func plannedColumn<Key: CodingKey>(_ state: UnsafeMutablePointer<PlanState>, _ key: Key) -> Int32? {
        let p = state.pointee.position
        if _fastPath(p < state.pointee.count) {
            let entry = state.pointee.plan + p
            if _fastPath(entry.pointee.keyType == ObjectIdentifier(Key.self)), let bits = codingKeyBits(key), entry.pointee.bits == bits {
                state.pointee.position = p + 1
                return entry.pointee.column
            }
        }
        return nil
    }

    /// The column of `key` (-1 when the result has no such column); advances the plan.
    @inlinable @inline(__always)
    func column<Key: CodingKey>(for key: Key) -> Int32 {
        Self.plannedColumn(state, key) ?? columnByName(for: key)
    }

    /// The lookup when the key is not identified by bits or does not match its plan entry.
    @usableFromInline
    func columnByName<Key: CodingKey>(for key: Key) -> Int32 {
        let name = key.stringValue
        let bits = codingKeyBits(key)
        let keyType = bits == nil ? nil : ObjectIdentifier(Key.self)
        let p = position
        position = p + 1
        if p < planCount && plan[p].name == name {
            // Same name: same column. Let later rows match this key by its bits.
            if keyType != nil { plan[p].keyType = keyType; plan[p].bits = bits! }
            return plan[p].column
        }
        let c = Int32(statement.columnIndex(named: name) ?? -1)
        let entry = PlanEntry(name: name, column: c, keyType: keyType, bits: bits ?? 0)
        if p < planCount {
            plan[p] = entry
        } else if p == planCount && p < Self.maxPlanCount {
            if planCount == planCapacity { plan.doubleCapacity(&planCapacity, count: planCount) }
            (plan + p).initialize(to: entry)
            planCount += 1
        }
        return c
    }

    /// The container of the last key type: every row asks for the same one.
    @exclusivity(unchecked) @usableFromInline var lastContainer = LastKeyedContainer()

    /// Inlinable: a caller that knows the decoder is a `RowDecoder` (the row type's
    /// `init(from:)` inlined into the cursor's specialized `next()`) checks the kept
    /// container in place, without a call into the library's unspecialized copy.
    @inlinable
    public func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        if _fastPath(lastContainer.holds(Key.self)) { return lastContainer.decoding(Key.self) }
        return newContainer(Key.self)
    }

    /// A container for a key type the last one was not for, kept for the next rows.
    @usableFromInline @inline(never)
    func newContainer<Key: CodingKey>(_ type: Key.Type) -> KeyedDecodingContainer<Key> {
        let container = KeyedDecodingContainer(RowKeyedContainer<Key>(decoder: Unmanaged.passUnretained(self), state: state))
        lastContainer.keep(container)
        return container
    }

    public func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        throw DatabaseError(code: SQLITE_MISMATCH, message: "a row decodes as a keyed container (a struct), not an array", sql: statement.sql)
    }

    public func singleValueContainer() throws -> any SingleValueDecodingContainer {
        ColumnValueContainer(statement: statement, column: currentColumn, json: nil)
    }

    @usableFromInline
    func missing(_ key: some CodingKey, _ type: Any.Type) -> DatabaseError {
        DatabaseError.decoding("no such column in the result (columns: \(statement.columnNames.joined(separator: ", ")))",
                               column: key.stringValue, index: nil, type: type, sql: statement.sql)
    }

    @inlinable @inline(__always)
    func decode<T: DatabaseValueConvertible>(_ type: T.Type, _ key: some CodingKey) throws -> T {
        let c = column(for: key)
        guard _fastPath(c >= 0) else { throw missing(key, T.self) }
        do { return try T._decode(statement: stmt, column: c) } catch {
            throw statement.decodingError(error, column: Int(c), type: T.self)
        }
    }

    @usableFromInline
    func decodeNested<T: Decodable>(_ type: T.Type, _ key: some CodingKey) throws -> T {
        let c = column(for: key)
        guard c >= 0 else { throw missing(key, T.self) }
        if lastJSONType != ObjectIdentifier(T.self) {
            if let convertible = T.self as? any DatabaseValueConvertible.Type {
                do { return try convertible._decode(statement: stmt, column: c) as! T } catch {
                    throw statement.decodingError(error, column: Int(c), type: T.self)
                }
            }
            lastJSONType = ObjectIdentifier(T.self)
        }
        // Not a column value: a single-value wrapper (a RawRepresentable enum…) reads the
        // column itself; a nested struct, array, dictionary or set reads the column's JSON
        // text. Never the outer row's other columns.
        let value: T
        do {
            value = try jsonColumn(c, key).decodeValue(T.self)
        } catch {
            endJSONValue(c)
            throw statement.decodingError(error, column: Int(c), type: T.self)
        }
        endJSONValue(c)
        return value
    }

    /// The decoder of column `c`'s nested values, the one of the last row when its coding path is `key`'s.
    @inline(__always)
    func jsonColumn<Key: CodingKey>(_ c: Int32, _ key: Key) -> JSONColumnDecoder {
        let i = Int(c)
        if _fastPath(i < jsonColumns.count), let d = jsonColumns[i], _fastPath(d.isPath(of: key)) { return d }
        return newJSONColumn(c, key)
    }

    /// A decoder for column `c`'s nested values, kept for the next rows (not inlined: the
    /// generic code it needs would be set up on every row).
    @inline(never)
    func newJSONColumn<Key: CodingKey>(_ c: Int32, _ key: Key) -> JSONColumnDecoder {
        let i = Int(c)
        if i >= jsonColumns.count { jsonColumns += repeatElement(nil, count: i + 1 - jsonColumns.count) }
        let d = JSONColumnDecoder(statement: statement, column: c, key: key, lifetime: .row, userInfo: userInfo)
        jsonColumns[i] = d
        return d
    }

    /// Column `c`'s value is decoded: its decoder serves the next row, unless the type kept
    /// it (then it is retired, and the next row gets a new one).
    @inline(__always)
    func endJSONValue(_ c: Int32) {
        let i = Int(c)
        if _slowPath(i < jsonColumns.count && !isKnownUniquelyReferenced(&jsonColumns[i])) {
            jsonColumns[i]?.retire()
            jsonColumns[i] = nil
        }
    }
}

struct RowKeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    /// The decoder, which outlives the container while `init(from:)` runs (its cursor owns it).
    /// Held unretained, and used through `_withUnsafeGuaranteedRef`: no retain/release per property.
    /// The one thing this rules out: an `init(from:)` that stores its container and uses it
    /// after the cursor is gone (no synthesized or ordinary `Decodable` type does that).
    let unmanagedDecoder: Unmanaged<RowDecoder>
    /// The decoder's plan: the fast path of a property reads only this and the statement.
    let state: UnsafeMutablePointer<RowDecoder.PlanState>
    init(decoder: Unmanaged<RowDecoder>, state: UnsafeMutablePointer<RowDecoder.PlanState>) {
        unmanagedDecoder = decoder
        self.state = state
    }
    var decoder: RowDecoder { unmanagedDecoder.takeUnretainedValue() }
    @inline(__always) func withDecoder<R>(_ body: (RowDecoder) throws -> R) rethrows -> R {
        try unmanagedDecoder._withUnsafeGuaranteedRef(body)
    }

    /// A property: the planned column (or a lookup by name), read as `T`.
    @inline(__always) func read<T: DatabaseValueConvertible>(_ type: T.Type, _ key: Key) throws -> T {
        let c = RowDecoder.plannedColumn(state, key) ?? withDecoder { $0.columnByName(for: key) }
        guard _fastPath(c >= 0) else { throw withDecoder { $0.missing(key, T.self) } }
        do { return try T._decode(statement: state.pointee.stmt, column: c) } catch {
            throw withDecoder { $0.statement.decodingError(error, column: Int(c), type: T.self) }
        }
    }

    var codingPath: [any CodingKey] { [] }
    var allKeys: [Key] { decoder.statement.columnNames.compactMap { Key(stringValue: $0) } }

    func contains(_ key: Key) -> Bool { decoder.statement.columnIndex(named: key.stringValue) != nil }

    func decodeNil(forKey key: Key) throws -> Bool {
        guard let c = decoder.statement.columnIndex(named: key.stringValue) else { return true }
        return sqlite3_column_type(decoder.stmt, Int32(c)) == SQLITE_NULL
    }

    /// Optional properties: a missing column or NULL is nil.
    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        let isNil = withDecoder { d in
            let c = d.column(for: key)
            if c < 0 || sqlite3_column_type(d.stmt, c) == SQLITE_NULL { return true }
            d.position -= 1  // let the typed decode consume the plan entry
            return false
        }
        return isNil ? nil : try decode(T.self, forKey: key)
    }

    // Inlined into the witnesses the stdlib's container box calls: one call a property, not two.
    @inline(__always) func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try read(type, key) }
    @inline(__always) func decode(_ type: String.Type, forKey key: Key) throws -> String { try read(type, key) }
    @inline(__always) func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try read(type, key) }
    @inline(__always) func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try read(type, key) }
    @inline(__always) func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try read(type, key) }
    @inline(__always) func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try read(type, key) }
    @inline(__always) func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try read(type, key) }
    @inline(__always) func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try read(type, key) }
    @inline(__always) func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try read(type, key) }
    @inline(__always) func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try read(type, key) }
    @inline(__always) func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try read(type, key) }
    @inline(__always) func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try read(type, key) }
    @inline(__always) func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try read(type, key) }
    @inline(__always) func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try read(type, key) }
    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T { try decoder.decodeNested(type, key) }

    /// The column's JSON object (see ``JSONColumnDecoder``).
    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        try withDecoder { d in
            let c = d.column(for: key)
            guard c >= 0 else { throw d.missing(key, type) }
            do {
                return try JSONColumnDecoder(statement: d.statement, column: c, key: key, lifetime: .container).container(keyedBy: type)
            } catch {
                throw d.statement.decodingError(error, column: Int(c), type: KeyedDecodingContainer<NestedKey>.self)
            }
        }
    }
    /// The column's JSON array (see ``JSONColumnDecoder``).
    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try withDecoder { d in
            let c = d.column(for: key)
            guard c >= 0 else { throw d.missing(key, [Any].self) }
            do {
                return try JSONColumnDecoder(statement: d.statement, column: c, key: key, lifetime: .container).unkeyedContainer()
            } catch {
                throw d.statement.decodingError(error, column: Int(c), type: [Any].self)
            }
        }
    }
    func superDecoder() throws -> any Decoder { decoder }
    func superDecoder(forKey key: Key) throws -> any Decoder { decoder }
}
