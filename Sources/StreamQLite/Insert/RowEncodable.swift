import CStreamQLite
import Foundation

/// A value type that binds its own columns, the fastest way to bulk insert.
///
/// ``databaseColumns`` names the columns; ``bind(to:)`` binds one value per
/// column, in that order, with no key lookups at all:
///
/// ```swift
/// struct Todo: RowEncodable {
///     var id: Int64, title: String, done: Bool, score: Double?
///     static let databaseColumns = ["id", "title", "done", "score"]
///     func bind(to row: inout RowBinder) throws {
///         row.bind(id); row.bind(title); row.bind(done); row.bind(score)
///     }
/// }
/// try db.insert(contentsOf: tasks, into: "tasks")
/// ```
public protocol RowEncodable {
    /// The columns ``bind(to:)`` binds, in order.
    static var databaseColumns: [String] { get }
    /// Binds one value per column of ``databaseColumns``, in order.
    func bind(to row: inout RowBinder) throws
}

/// Binds the values of one row of a bulk insert, in column order; see ``RowEncodable``.
///
/// Binding more values than there are columns, fewer, or a NaN throws an
/// ``InsertError`` naming the row and the column.
public struct RowBinder {
    @usableFromInline let stmt: OpaquePointer
    @usableFromInline let columns: [String]
    @usableFromInline let base: Int32
    @usableFromInline var position = 0
    @usableFromInline var failure: String?
    /// Where TEXT values are copied for `SQLITE_STATIC` binding; nil: SQLite copies them.
    @usableFromInline let arena: BindArena?

    @usableFromInline
    init(stmt: OpaquePointer, columns: [String], base: Int32, arena: BindArena? = nil) {
        self.stmt = stmt
        self.columns = columns
        self.base = base
        self.arena = arena
    }

    @inlinable
    mutating func next() -> Int32? {
        guard position < columns.count else {
            if failure == nil { failure = "more values bound than the \(columns.count) columns of databaseColumns" }
            return nil
        }
        position += 1
        return base &+ Int32(truncatingIfNeeded: position)
    }

    /// Binds NULL.
    @inlinable
    public mutating func bindNull() {
        if let i = next() { sqlite3_bind_null(stmt, i) }
    }
    /// Binds an integer.
    @inlinable
    public mutating func bind(_ value: Int64) {
        if let i = next() { sqlite3_bind_int64(stmt, i, value) }
    }
    /// Binds an integer.
    @inlinable
    public mutating func bind(_ value: Int) {
        if let i = next() { sqlite3_bind_int64(stmt, i, Int64(value)) }
    }
    /// Binds `true` as 1 and `false` as 0.
    @inlinable
    public mutating func bind(_ value: Bool) {
        if let i = next() { sqlite3_bind_int64(stmt, i, value ? 1 : 0) }
    }
    /// Binds a REAL; NaN is an error (SQLite would silently store NULL).
    @inlinable
    public mutating func bind(_ value: Double) {
        guard let i = next() else { return }
        if value.isNaN {
            if failure == nil { failure = "NaN cannot be stored (column '\(columns[position - 1])')" }
            return
        }
        sqlite3_bind_double(stmt, i, value)
    }
    /// Binds TEXT.
    @inlinable
    public mutating func bind(_ value: String) {
        if let i = next() { sqBindText(stmt, i, value, arena: arena) }
    }
    /// Binds a BLOB.
    @inlinable
    public mutating func bind(_ value: [UInt8]) {
        if let i = next() { sqBindBlob(stmt, i, value) }
    }
    /// Binds a date as the library's one date text (`2024-05-01 12:00:00.250`, UTC),
    /// the same text every other API writes.
    public mutating func bind(_ value: Date) {
        if let i = next() { sqBindText(stmt, i, sqliteDateString(value), arena: arena) }
    }
    /// Binds a `Float` as a REAL; NaN is an error, as for `Double`.
    @inlinable
    public mutating func bind(_ value: Float) { bind(Double(value)) }
    /// Binds the value, or NULL.
    @inlinable public mutating func bind(_ value: Float?) { if let value { bind(value) } else { bindNull() } }
    /// Binds any other ``DatabaseValueConvertible`` value (an enum with a raw value, `Int32`,
    /// `URL`, `Optional` of one …) as it binds as a statement argument.
    @inlinable
    public mutating func bind<T: DatabaseValueConvertible>(_ value: T) {
        guard let i = next() else { return }
        let rc = value._bind(to: stmt, at: i)
        if rc != SQLITE_OK && failure == nil { failure = "column '\(columns[position - 1])': \(String(cString: sqlite3_errstr(rc)))" }
    }
    /// A value that is not a ``DatabaseValueConvertible`` cannot be bound by hand (the
    /// `Encodable` insert path writes nested values to JSON columns).
    @available(*, unavailable, message: "RowBinder binds DatabaseValueConvertible values; insert a type with nested values through Encodable (with @RowCodable: write @RowCodable(encodable: false))")
    public mutating func bind<T: Encodable>(_ value: T) { fatalError() }
    /// Binds the value, or NULL.
    public mutating func bind(_ value: Date?) { if let value { bind(value) } else { bindNull() } }
    /// Binds the value, or NULL.
    @inlinable public mutating func bind(_ value: Int64?) { if let value { bind(value) } else { bindNull() } }
    /// Binds the value, or NULL.
    @inlinable public mutating func bind(_ value: Int?) { if let value { bind(value) } else { bindNull() } }
    /// Binds the value, or NULL.
    @inlinable public mutating func bind(_ value: Bool?) { if let value { bind(value) } else { bindNull() } }
    /// Binds the value, or NULL.
    @inlinable public mutating func bind(_ value: Double?) { if let value { bind(value) } else { bindNull() } }
    /// Binds the value, or NULL.
    @inlinable public mutating func bind(_ value: String?) { if let value { bind(value) } else { bindNull() } }
    /// Binds the value, or NULL.
    @inlinable public mutating func bind(_ value: [UInt8]?) { if let value { bind(value) } else { bindNull() } }
}

extension RowBinder {
    /// Checks that a ``RowEncodable/bind(to:)`` bound exactly one value per column.
    @usableFromInline
    func finish(type: Any.Type) throws {
        if let failure {
            throw RowEncodingFailure(column: nil, message: failure)
        }
        if position != columns.count {
            throw RowEncodingFailure(
                column: columns[position],
                message: "\(type).bind(to:) bound \(position) of the \(columns.count) databaseColumns")
        }
    }
}
