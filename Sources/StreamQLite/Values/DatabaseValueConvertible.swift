import CStreamQLite

/// The SQLITE_TRANSIENT destructor: SQLite copies the bytes before the bind call returns.
@usableFromInline
nonisolated(unsafe) let emptyBytes = UnsafeMutablePointer<UInt8>.allocate(capacity: 1)

@usableFromInline
let sqliteTransient = unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)

/// A value that can be bound to a statement parameter, read from a column or a
/// function argument, and returned from a custom SQL function.
///
/// User types conform by converting to and from ``DatabaseValue``
/// (``databaseValue`` and ``fromDatabaseValue(_:)``); the library's column reads, parameter
/// binds and function results go through the underscored requirements, whose default
/// implementations are built on those two:
///
/// ```swift
/// struct Cents: DatabaseValueConvertible {
///     var value: Int64
///     var databaseValue: DatabaseValue { .integer(value) }
///     static func fromDatabaseValue(_ v: DatabaseValue) -> Cents? {
///         if case .integer(let i) = v { Cents(value: i) } else { nil }
///     }
/// }
/// try db.execute("INSERT INTO prices(amount) VALUES (?)", Cents(value: 250))
/// ```
///
/// `RawRepresentable` types whose raw value conforms (string or integer enums)
/// get every requirement for free: declare `extension Color: DatabaseValueConvertible {}`.
/// The built-in conformances (integers, `Double`, `Float`, `Bool`, `String`,
/// `[UInt8]`, `Data`, `Date`, `UUID`, `Optional`) read and bind SQLite values
/// directly, without going through ``DatabaseValue``.
public protocol DatabaseValueConvertible {
    /// The value as an SQLite value.
    var databaseValue: DatabaseValue { get }
    /// The Swift value for an SQLite value, or nil when it does not convert.
    static func fromDatabaseValue(_ value: DatabaseValue) -> Self?

    // The fast paths between SQLite's C values and Swift values, called by the library with
    // the C handles (`sqlite3_stmt *`, `sqlite3_value *`, `sqlite3_context *`). They are
    // requirements so that the built-in conformances (integers, `Double`, `String`,
    // `Data`…) read and bind without a ``DatabaseValue``, and are called statically from
    // the decoding and binding loops, which are specialized for the value's type. The
    // underscore keeps them out of the documentation and of code completion: a conforming
    // type of yours gets them from the extension below.

    /// Reads column `column` of the current row of `statement` (an `sqlite3_stmt *`); throws
    /// a ``DatabaseError`` (`SQLITE_MISMATCH`) when the value does not convert.
    static func _decode(statement: OpaquePointer, column: Int32) throws -> Self
    /// Reads an `sqlite3_value *` (a function argument); throws when it does not convert.
    static func _decode(sqliteValue: OpaquePointer) throws -> Self
    /// Binds the value to parameter `index` (1-based) of `statement` (an `sqlite3_stmt *`);
    /// returns SQLite's result code.
    func _bind(to statement: OpaquePointer, at index: Int32) -> Int32
    /// Sets the value as the result of a custom SQL function call (an `sqlite3_context *`).
    func _setResult(of context: OpaquePointer)
}

/// The fast-path requirements for a type that converts through ``DatabaseValue`` only.
extension DatabaseValueConvertible {
    public static func _decode(sqliteValue v: OpaquePointer) throws -> Self {
        if let value = fromDatabaseValue(DatabaseValue(sqliteValue: v)) { return value }
        throw conversionFailure(String(describing: Self.self), v)
    }
    public static func _decode(statement: OpaquePointer, column: Int32) throws -> Self {
        try _decode(sqliteValue: sqlite3_column_value(statement, column))
    }
    public func _bind(to statement: OpaquePointer, at index: Int32) -> Int32 {
        databaseValue._bind(to: statement, at: index)
    }
    public func _setResult(of context: OpaquePointer) {
        databaseValue._setResult(of: context)
    }
}

extension DatabaseValueConvertible where Self: RawRepresentable, RawValue: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { rawValue.databaseValue }
    public static func fromDatabaseValue(_ value: DatabaseValue) -> Self? {
        RawValue.fromDatabaseValue(value).flatMap(Self.init(rawValue:))
    }
    public static func _decode(statement: OpaquePointer, column: Int32) throws -> Self {
        let raw = try RawValue._decode(statement: statement, column: column)
        if let value = Self(rawValue: raw) { return value }
        throw DatabaseError(code: SQLITE_MISMATCH, message: "\(DatabaseValue(sqliteValue: sqlite3_column_value(statement, column))) is not a raw value of \(Self.self)")
    }
    public func _bind(to statement: OpaquePointer, at index: Int32) -> Int32 {
        rawValue._bind(to: statement, at: index)
    }
}

// MARK: - Integers

// The column readers below fetch the column's `sqlite3_value` once
// (`sqlite3_column_value`) and read its type and content with the cheap
// `sqlite3_value_*` accessors: every `sqlite3_column_*` call repeats the
// statement checks and the API-exit bookkeeping, so one call instead of two
// (type, then content) saves ~45 instructions per column. The values are the
// same: `sqlite3_column_int64(s, i)` is `sqlite3_value_int64(sqlite3_column_value(s, i))`.

/// Reads an integer column strictly: INTEGER, or a REAL with an exact integer value.
@inlinable @inline(__always)
func readInt64(_ stmt: OpaquePointer, _ column: Int32) throws -> Int64 {
    let v: OpaquePointer = sqlite3_column_value(stmt, column)
    if _fastPath(sqlite3_value_type(v) == SQLITE_INTEGER) { return sqlite3_value_int64(v) }
    return try readInt64Slow(v)
}

@usableFromInline
func readInt64Slow(_ v: OpaquePointer) throws -> Int64 {
    switch sqlite3_value_type(v) {
    case SQLITE_INTEGER: return sqlite3_value_int64(v)
    case SQLITE_FLOAT:
        let d = sqlite3_value_double(v)
        if let i = Int64(exactly: d) { return i }
        throw conversionFailure("INTEGER", v)
    default:
        throw conversionFailure("INTEGER", v)
    }
}

@usableFromInline
func integerOverflow<T>(_ value: Int64, _ type: T.Type) -> DatabaseError {
    DatabaseError(code: SQLITE_MISMATCH, message: "integer \(value) overflows \(T.self)")
}

/// The shared implementation of the fixed-width integer conformances (`Int`, `Int8`…`Int64`,
/// `UInt8`…`UInt32`): their `DatabaseValueConvertible` members are this extension's.
@usableFromInline
protocol DatabaseInteger: FixedWidthInteger, DatabaseValueConvertible {}

extension DatabaseInteger {
    @inlinable public var databaseValue: DatabaseValue { .integer(Int64(self)) }
    @inlinable public static func fromDatabaseValue(_ value: DatabaseValue) -> Self? {
        switch value {
        case .integer(let i): Self(exactly: i)
        case .real(let d): Self(exactly: d)
        default: nil
        }
    }
    @inlinable @inline(__always)
    public static func _decode(statement: OpaquePointer, column: Int32) throws -> Self {
        let i = try readInt64(statement, column)
        if let v = Self(exactly: i) { return v }
        throw integerOverflow(i, Self.self)
    }
    @inlinable
    public static func _decode(sqliteValue v: OpaquePointer) throws -> Self {
        let i = try readInt64Slow(v)
        if let value = Self(exactly: i) { return value }
        throw integerOverflow(i, Self.self)
    }
    @inlinable @inline(__always)
    public func _bind(to statement: OpaquePointer, at index: Int32) -> Int32 {
        sqlite3_bind_int64(statement, index, Int64(self))
    }
    @inlinable public func _setResult(of context: OpaquePointer) { sqlite3_result_int64(context, Int64(self)) }
}

extension Int: DatabaseValueConvertible, DatabaseInteger {}
extension Int8: DatabaseValueConvertible, DatabaseInteger {}
extension Int16: DatabaseValueConvertible, DatabaseInteger {}
extension Int32: DatabaseValueConvertible, DatabaseInteger {}
extension Int64: DatabaseValueConvertible, DatabaseInteger {}
extension UInt8: DatabaseValueConvertible, DatabaseInteger {}
extension UInt16: DatabaseValueConvertible, DatabaseInteger {}
extension UInt32: DatabaseValueConvertible, DatabaseInteger {}

extension UInt64: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { Int64(exactly: self).map { .integer($0) } ?? .real(Double(self)) }
    public static func fromDatabaseValue(_ value: DatabaseValue) -> UInt64? {
        if case .integer(let i) = value { return UInt64(exactly: i) }
        return nil
    }
    /// Values above `Int64.max` do not fit SQLite's INTEGER: binding them fails with `SQLITE_RANGE`.
    public func _bind(to statement: OpaquePointer, at index: Int32) -> Int32 {
        guard let i = Int64(exactly: self) else { return SQLITE_RANGE }
        return sqlite3_bind_int64(statement, index, i)
    }
}

extension UInt: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { UInt64(self).databaseValue }
    public static func fromDatabaseValue(_ value: DatabaseValue) -> UInt? { UInt64.fromDatabaseValue(value).flatMap { UInt(exactly: $0) } }
    public func _bind(to statement: OpaquePointer, at index: Int32) -> Int32 { UInt64(self)._bind(to: statement, at: index) }
}

// MARK: - Bool, Double, Float

extension Bool: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { .integer(self ? 1 : 0) }
    public static func fromDatabaseValue(_ value: DatabaseValue) -> Bool? {
        switch value {
        case .integer(let i): i != 0
        case .real(let d): d != 0
        default: nil
        }
    }
    /// INTEGER (or REAL): zero is false, anything else true.
    @inlinable @inline(__always)
    public static func _decode(statement: OpaquePointer, column: Int32) throws -> Bool {
        let v: OpaquePointer = sqlite3_column_value(statement, column)
        if _fastPath(sqlite3_value_type(v) == SQLITE_INTEGER) { return sqlite3_value_int64(v) != 0 }
        return try _decode(sqliteValue: v)
    }
    @inlinable @inline(__always)
    public func _bind(to statement: OpaquePointer, at index: Int32) -> Int32 {
        sqlite3_bind_int64(statement, index, self ? 1 : 0)
    }
    public func _setResult(of context: OpaquePointer) { sqlite3_result_int64(context, self ? 1 : 0) }
}

extension Double: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { .real(self) }
    public static func fromDatabaseValue(_ value: DatabaseValue) -> Double? {
        switch value {
        case .integer(let i): Double(i)
        case .real(let d): d
        default: nil
        }
    }
    /// REAL or INTEGER.
    @inlinable @inline(__always)
    public static func _decode(statement: OpaquePointer, column: Int32) throws -> Double {
        let v: OpaquePointer = sqlite3_column_value(statement, column)
        let type = sqlite3_value_type(v)
        if _fastPath(type == SQLITE_FLOAT || type == SQLITE_INTEGER) { return sqlite3_value_double(v) }
        return try _decode(sqliteValue: v)
    }
    @inlinable @inline(__always)
    public func _bind(to statement: OpaquePointer, at index: Int32) -> Int32 {
        sqlite3_bind_double(statement, index, self)
    }
    public func _setResult(of context: OpaquePointer) { sqlite3_result_double(context, self) }
}

extension Float: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { .real(Double(self)) }
    public static func fromDatabaseValue(_ value: DatabaseValue) -> Float? { Double.fromDatabaseValue(value).map(Float.init) }
}

// MARK: - String and bytes

extension String: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { .text(self) }
    public static func fromDatabaseValue(_ value: DatabaseValue) -> String? {
        switch value {
        case .text(let s): s
        case .integer(let i): String(i)
        case .real(let d): String(d)
        default: nil
        }
    }
    /// TEXT (INTEGER and REAL are converted to their text by SQLite); NULL and BLOB throw.
    @inlinable @inline(__always)
    public static func _decode(statement: OpaquePointer, column: Int32) throws -> String {
        try _decode(sqliteValue: sqlite3_column_value(statement, column))
    }
    @inlinable @inline(__always)
    public static func _decode(sqliteValue v: OpaquePointer) throws -> String {
        let type = sqlite3_value_type(v)
        guard _fastPath(type == SQLITE_TEXT || type == SQLITE_INTEGER || type == SQLITE_FLOAT) else {
            throw conversionFailure("TEXT", v)
        }
        let p = sqlite3_value_text(v)
        let n = Int(sqlite3_value_bytes(v))
        return String(decoding: UnsafeBufferPointer(start: p, count: n), as: UTF8.self)
    }
    /// Binds the string's UTF-8 storage directly (no C-string conversion); SQLite makes its one copy.
    @inlinable @inline(__always)
    public func _bind(to statement: OpaquePointer, at index: Int32) -> Int32 {
        var s = self
        return s.withUTF8 { buf in
            sqlite3_bind_text64(statement, index, UnsafeRawPointer(buf.baseAddress ?? UnsafePointer(emptyBytes)).assumingMemoryBound(to: CChar.self),
                                sqlite3_uint64(buf.count), sqliteTransient, UInt8(SQLITE_UTF8))
        }
    }
    public func _setResult(of context: OpaquePointer) {
        var s = self
        s.withUTF8 { buf in
            sqlite3_result_text64(context, UnsafeRawPointer(buf.baseAddress ?? UnsafePointer(emptyBytes)).assumingMemoryBound(to: CChar.self),
                                  sqlite3_uint64(buf.count), sqliteTransient, UInt8(SQLITE_UTF8))
        }
    }
}

extension Substring: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { .text(String(self)) }
    public static func fromDatabaseValue(_ value: DatabaseValue) -> Substring? { String.fromDatabaseValue(value).map { Substring($0) } }
}

extension Array: DatabaseValueConvertible where Element == UInt8 {
    public var databaseValue: DatabaseValue { .blob(self) }
    public static func fromDatabaseValue(_ value: DatabaseValue) -> [UInt8]? {
        switch value {
        case .blob(let b): b
        case .text(let s): Array(s.utf8)
        default: nil
        }
    }
    /// BLOB (or TEXT, as its UTF-8 bytes).
    public static func _decode(statement: OpaquePointer, column: Int32) throws -> [UInt8] {
        Array(try columnBytes(statement, column))
    }
    /// Binds the array's storage directly; SQLite makes its one copy. An empty array is an empty BLOB, not NULL.
    public func _bind(to statement: OpaquePointer, at index: Int32) -> Int32 {
        withUnsafeBytes { buf in
            sqlite3_bind_blob64(statement, index, buf.baseAddress ?? UnsafeRawPointer(bitPattern: 1), sqlite3_uint64(buf.count), sqliteTransient)
        }
    }
    public func _setResult(of context: OpaquePointer) {
        withUnsafeBytes { buf in
            sqlite3_result_blob64(context, buf.baseAddress ?? UnsafeRawPointer(bitPattern: 1), sqlite3_uint64(buf.count), sqliteTransient)
        }
    }
}

// MARK: - Optional

extension Optional: DatabaseValueConvertible where Wrapped: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { self?.databaseValue ?? .null }
    public static func fromDatabaseValue(_ value: DatabaseValue) -> Wrapped?? {
        if value == .null { return .some(nil) }
        return Wrapped.fromDatabaseValue(value).map { .some($0) }
    }
    /// NULL is nil; anything else decodes as `Wrapped`.
    @inlinable @inline(__always)
    public static func _decode(statement: OpaquePointer, column: Int32) throws -> Wrapped? {
        if sqlite3_column_type(statement, column) == SQLITE_NULL { return nil }
        return try Wrapped._decode(statement: statement, column: column)
    }
    public static func _decode(sqliteValue v: OpaquePointer) throws -> Wrapped? {
        if sqlite3_value_type(v) == SQLITE_NULL { return nil }
        return try Wrapped._decode(sqliteValue: v)
    }
    @inlinable @inline(__always)
    public func _bind(to statement: OpaquePointer, at index: Int32) -> Int32 {
        switch self {
        case .none: sqlite3_bind_null(statement, index)
        case .some(let w): w._bind(to: statement, at: index)
        }
    }
    public func _setResult(of context: OpaquePointer) {
        switch self {
        case .none: sqlite3_result_null(context)
        case .some(let w): w._setResult(of: context)
        }
    }
}

/// The bytes of a BLOB column (or a TEXT one, as its UTF-8), valid until the statement
/// steps or resets; empty for no bytes. Other storage classes throw (`SQLITE_MISMATCH`).
@usableFromInline
func columnBytes(_ statement: OpaquePointer, _ column: Int32) throws -> UnsafeRawBufferPointer {
    let v: OpaquePointer = sqlite3_column_value(statement, column)
    let type = sqlite3_value_type(v)
    guard type == SQLITE_BLOB || type == SQLITE_TEXT else {
        throw conversionFailure("BLOB", v)
    }
    let p = sqlite3_value_blob(v)  // before sqlite3_value_bytes, as SQLite asks
    let n = Int(sqlite3_value_bytes(v))
    guard let p, n > 0 else { return UnsafeRawBufferPointer(start: nil, count: 0) }
    return UnsafeRawBufferPointer(start: p, count: n)
}
