import CStreamQLite
import Foundation

/// A `Decoder` that reads a row straight from `sqlite3_column_*`.
///
/// The coding-key → column plan is built on the first row and reused: keys
/// arrive in the same order on every row (synthesized `init(from:)`), so each
/// lookup is one string comparison with the plan's next entry.
public final class RowDecoder: Decoder {
    @usableFromInline let statement: Statement
    @usableFromInline let stmt: OpaquePointer
    /// The plan: (key, column or -1 when missing), in the order the type asks.
    @exclusivity(unchecked) @usableFromInline var plan: [(String, Int32)] = []
    @exclusivity(unchecked) @usableFromInline var position = 0
    /// The column a single-value decode reads (a nested RawRepresentable, Date …).
    @exclusivity(unchecked) @usableFromInline var currentColumn: Int32 = 0
    public var codingPath: [any CodingKey] = []
    public var userInfo: [CodingUserInfoKey: Any] = [:]

    init(statement: Statement) {
        self.statement = statement
        self.stmt = statement.handle
    }

    @inlinable func beginRow() { position = 0 }

    /// The column of `key`, -1 when the result has no such column.
    @inlinable @inline(__always)
    func column(for key: some CodingKey) -> Int32 {
        let name = key.stringValue
        if _fastPath(position < plan.count) {
            let entry = plan[position]
            if entry.0 == name {
                position += 1
                return entry.1
            }
        }
        return resolve(name)
    }

    @usableFromInline func resolve(_ name: String) -> Int32 {
        let c = Int32(statement.columnIndex(named: name) ?? -1)
        if plan.count < 256 {
            if position < plan.count { plan[position] = (name, c) } else { plan.append((name, c)) }
            position += 1
        }
        return c
    }

    /// The keyed container of the last Key type, reused for every row (creating one allocates a box).
    var cachedContainer: AnyObject?
    var cachedKeyType: ObjectIdentifier?

    public func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        if cachedKeyType == ObjectIdentifier(Key.self), let box = cachedContainer {
            // KeyedDecodingContainer is a struct holding one reference: its box.
            return unsafeBitCast(box, to: KeyedDecodingContainer<Key>.self)
        }
        let container = KeyedDecodingContainer(RowKeyedContainer<Key>(decoder: self))
        if MemoryLayout<KeyedDecodingContainer<Key>>.size == MemoryLayout<AnyObject>.size {
            cachedContainer = unsafeBitCast(container, to: AnyObject.self)
            cachedKeyType = ObjectIdentifier(Key.self)
        }
        return container
    }

    public func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        throw DatabaseError(code: SQLITE_MISMATCH, message: "a row decodes as a keyed container (a struct), not an array", sql: statement.sql)
    }

    public func singleValueContainer() throws -> any SingleValueDecodingContainer {
        ColumnValueContainer(decoder: self, column: currentColumn)
    }

    @usableFromInline
    func missing(_ key: some CodingKey, _ type: Any.Type) -> DatabaseError {
        DatabaseError.decoding("no such column in the result (columns: \(statement.columnNames.joined(separator: ", ")))",
                               column: key.stringValue, index: nil, type: type, sql: statement.sql)
    }

    @inlinable @inline(__always)
    func decode<T: DatabaseValueConvertible>(_ type: T.Type, _ key: some CodingKey) throws -> T {
        let c = column(for: key)
        guard c >= 0 else { throw missing(key, T.self) }
        do { return try T.decode(statement: stmt, column: c) } catch {
            throw statement.decodingError(error, column: Int(c), type: T.self)
        }
    }

    @usableFromInline
    func decodeNested<T: Decodable>(_ type: T.Type, _ key: some CodingKey) throws -> T {
        let c = column(for: key)
        guard c >= 0 else { throw missing(key, T.self) }
        if let convertible = T.self as? any DatabaseValueConvertible.Type {
            do { return try convertible.decode(statement: stmt, column: c) as! T } catch {
                throw statement.decodingError(error, column: Int(c), type: T.self)
            }
        }
        // Single-value Decodable types (RawRepresentable enums, wrappers) read the column.
        currentColumn = c
        let saved = position
        do {
            let value = try T(from: self)
            position = saved
            return value
        } catch {
            throw statement.decodingError(error, column: Int(c), type: T.self)
        }
    }
}

struct RowKeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    unowned(unsafe) let decoder: RowDecoder
    var codingPath: [any CodingKey] { [] }
    var allKeys: [Key] { decoder.statement.columnNames.compactMap { Key(stringValue: $0) } }

    func contains(_ key: Key) -> Bool { decoder.statement.columnIndex(named: key.stringValue) != nil }

    func decodeNil(forKey key: Key) throws -> Bool {
        guard let c = decoder.statement.columnIndex(named: key.stringValue) else { return true }
        return sqlite3_column_type(decoder.stmt, Int32(c)) == SQLITE_NULL
    }

    /// Optional properties: a missing column or NULL is nil.
    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        let c = decoder.column(for: key)
        if c < 0 || sqlite3_column_type(decoder.stmt, c) == SQLITE_NULL { return nil }
        decoder.position -= 1  // let the typed decode consume the plan entry
        return try decode(T.self, forKey: key)
    }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try decoder.decode(type, key) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try decoder.decode(type, key) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try decoder.decode(type, key) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try decoder.decode(type, key) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try decoder.decode(type, key) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try decoder.decode(type, key) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try decoder.decode(type, key) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try decoder.decode(type, key) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try decoder.decode(type, key) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try decoder.decode(type, key) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try decoder.decode(type, key) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try decoder.decode(type, key) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try decoder.decode(type, key) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try decoder.decode(type, key) }
    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T { try decoder.decodeNested(type, key) }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        throw decoder.missing(key, type)
    }
    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        throw DatabaseError(code: SQLITE_MISMATCH, message: "nested arrays are not supported", sql: decoder.statement.sql)
    }
    func superDecoder() throws -> any Decoder { decoder }
    func superDecoder(forKey key: Key) throws -> any Decoder { decoder }
}

/// One column read as a single value (for `Decodable` wrappers and enums).
struct ColumnValueContainer: SingleValueDecodingContainer {
    let decoder: RowDecoder
    let column: Int32
    var codingPath: [any CodingKey] { [] }

    func decodeNil() -> Bool { sqlite3_column_type(decoder.stmt, column) == SQLITE_NULL }
    func read<T: DatabaseValueConvertible>(_ type: T.Type) throws -> T { try T.decode(statement: decoder.stmt, column: column) }
    func decode(_ type: Bool.Type) throws -> Bool { try read(type) }
    func decode(_ type: String.Type) throws -> String { try read(type) }
    func decode(_ type: Double.Type) throws -> Double { try read(type) }
    func decode(_ type: Float.Type) throws -> Float { try read(type) }
    func decode(_ type: Int.Type) throws -> Int { try read(type) }
    func decode(_ type: Int8.Type) throws -> Int8 { try read(type) }
    func decode(_ type: Int16.Type) throws -> Int16 { try read(type) }
    func decode(_ type: Int32.Type) throws -> Int32 { try read(type) }
    func decode(_ type: Int64.Type) throws -> Int64 { try read(type) }
    func decode(_ type: UInt.Type) throws -> UInt { try read(type) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try read(type) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try read(type) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try read(type) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try read(type) }
    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        if let convertible = T.self as? any DatabaseValueConvertible.Type {
            return try convertible.decode(statement: decoder.stmt, column: column) as! T
        }
        throw DatabaseError(code: SQLITE_MISMATCH, message: "\(T.self) cannot be read from one column")
    }
}
