import CStreamQLite

/// A view of the current row of a statement, with typed getters by index and by name.
///
/// A row is only valid until its cursor steps again: read what you need, don't keep it.
///
/// ```swift
/// let cursor = try db.rows("SELECT id, title FROM tasks")
/// while let row = try cursor.next() {
///     let id: Int = try row[0]
///     let title: String = try row["title"]
/// }
/// ```
public struct Row {
    /// The statement whose current row this is; nil for a record of an input file (a CSV
    /// record read by ``CSVRowCursor``).
    public let statement: Statement?
    @usableFromInline let stmt: OpaquePointer?
    /// The input record this row is (nil for a statement's row): a CSV record, whose fields
    /// are read with the conversions of its reader.
    @usableFromInline let record: InputRecord?
    /// Keeps the cursor (which resets the statement when released) alive while the row is in use.
    @usableFromInline let owner: AnyObject?

    @usableFromInline init(statement: Statement, owner: AnyObject? = nil) {
        self.statement = statement
        self.stmt = statement.handle
        self.record = nil
        self.owner = owner
    }

    @usableFromInline init(record: InputRecord) {
        self.statement = nil
        self.stmt = nil
        self.record = record
        self.owner = nil
    }

    /// The number of columns (of fields, for a CSV record).
    @inlinable public var count: Int {
        if let record { return record.fieldCount }
        return Int(sqlite3_column_count(stmt))
    }

    /// Whether the value at `index` is NULL.
    @inlinable public func isNull(_ index: Int) -> Bool {
        if let record { return record.isNull(index) }
        return sqlite3_column_type(stmt, Int32(index)) == SQLITE_NULL
    }

    /// The value at `index` decoded as `T`; throws with the column name and the expected type when it does not fit.
    ///
    /// ```swift
    /// let id = try row.decode(Int.self, at: 0)
    /// ```
    ///
    /// - Parameters:
    ///   - type: The value's type (`Int?`, `String?`… accept NULL).
    ///   - index: The column, from 0.
    /// - Returns: The column's value as a `T`.
    /// - Throws: ``DatabaseError`` naming the column when the value is not a `T` (TEXT '12'
    ///   is no `Int`) or NULL for a non-optional `T`.
    @inlinable @inline(__always)
    public func decode<T: DatabaseValueConvertible>(_ type: T.Type = T.self, at index: Int) throws -> T {
        if let record {
            // The record's own read is not generic (it checks the plan kept for the field is
            // for `T`); only a field read a new way takes the generic path.
            return try _withUnprotectedUnsafeTemporaryAllocation(of: T.self, capacity: 1) { buffer in
                let p = buffer.baseAddress.unsafelyUnwrapped
                if _fastPath(try record.read(index, as: ObjectIdentifier(T.self), into: UnsafeMutableRawPointer(p))) {
                    return p.move()
                }
                return try record.decodeByPlan(T.self, at: index)
            }
        }
        do {
            return try T._decode(statement: stmt.unsafelyUnwrapped, column: Int32(index))
        } catch {
            throw statement.unsafelyUnwrapped.decodingError(error, column: index, type: T.self)
        }
    }

    /// The value in the column named `name` decoded as `T`; a missing column throws.
    ///
    /// ```swift
    /// let title = try row.decode(String.self, named: "title")
    /// ```
    ///
    /// - Parameters:
    ///   - type: The value's type (`Int?`, `String?`… accept NULL).
    ///   - name: The column's name (its first match, ASCII case ignored).
    /// - Returns: The column's value as a `T`.
    /// - Throws: ``DatabaseError`` when there is no such column or the value is not a `T`.
    @inlinable @inline(__always)
    public func decode<T: DatabaseValueConvertible>(_ type: T.Type = T.self, named name: String) throws -> T {
        try decode(T.self, at: try index(of: name, for: T.self))
    }

    /// The index of the column `name`: resolved once per statement (per CSV input), then
    /// checked against the order of earlier lookups.
    @inlinable @inline(__always)
    public func index<T>(of name: String, for type: T.Type) throws -> Int {
        if let record { return try record.fieldIndex(of: name, for: T.self) }
        let statement = self.statement.unsafelyUnwrapped
        if let i = lookUpTrail(name, statement.lookupTrail, &statement.lookupHint) { return i }
        return try statement.resolveColumn(name, type: T.self)
    }

    /// The value at `index` as `T`.
    @inlinable public subscript<T: DatabaseValueConvertible>(_ index: Int) -> T {
        @inline(__always) get throws { try decode(T.self, at: index) }
    }

    /// The value in the column named `name` as `T`.
    @inlinable public subscript<T: DatabaseValueConvertible>(_ name: String) -> T {
        @inline(__always) get throws { try decode(T.self, named: name) }
    }

    /// The value at `index` as a ``DatabaseValue`` (a CSV field: its text, or `.null`).
    public func value(at index: Int) -> DatabaseValue {
        if let record { return record.value(at: index) }
        return DatabaseValue(sqliteValue: sqlite3_column_value(stmt, Int32(index)))
    }

    /// The column names (a CSV input's header names, or c1, c2, …).
    public var columnNames: [String] { record?.fieldNames ?? statement.unsafelyUnwrapped.columnNames }
}

/// The name → index plan of ``Row/index(of:for:)``: rows ask for the same names in the
/// same order, so the entry after the last hit is tried first. One helper for a
/// statement's columns and an input record's fields.
@inlinable @inline(__always)
func lookUpTrail(_ name: String, _ trail: [(String, Int)], _ hint: inout Int) -> Int? {
    let h = hint
    if _fastPath(h < trail.count) {
        let entry = trail[h]
        if entry.0 == name {
            hint = h + 1 == trail.count ? 0 : h + 1
            return entry.1
        }
    }
    for (k, (n, i)) in trail.enumerated() where n == name {
        hint = k + 1 == trail.count ? 0 : k + 1
        return i
    }
    return nil
}

/// A record of an input file read as a ``Row`` (a CSV record): its fields by index, by
/// name, and as typed values. The input reader keeps the conversion plan of each field.
///
/// A class its readers subclass rather than a protocol: ``Row`` holds one reference, as it
/// holds its statement, and calls the reader's methods through the class's table; an
/// existential in `Row` costs its value witnesses on every copy of every row. The methods
/// here are never called: every reader overrides them all.
@usableFromInline
class InputRecord {
    @usableFromInline init() {}
    /// The number of fields of the current record.
    @usableFromInline var fieldCount: Int { fatalError("InputRecord.fieldCount: not overridden") }
    /// The input's field names (its header's, or c1, c2, …).
    @usableFromInline var fieldNames: [String] { fatalError("InputRecord.fieldNames: not overridden") }
    /// Whether field `index` is NULL (or missing).
    @usableFromInline func isNull(_ index: Int) -> Bool { fatalError("InputRecord.isNull: not overridden") }
    /// Field `index` as a ``DatabaseValue`` (its text, or `.null`).
    @usableFromInline func value(at index: Int) -> DatabaseValue { fatalError("InputRecord.value: not overridden") }
    /// The index of the field `name`; a missing field throws (read as a `type`).
    @usableFromInline func fieldIndex(of name: String, for type: Any.Type) throws -> Int {
        fatalError("InputRecord.fieldIndex: not overridden")
    }
    /// Field `index` into `out` (memory for the type `type` identifies) when the plan kept for
    /// the field is for that type and reads it without a generic call; false otherwise
    /// (nothing read).
    @usableFromInline func read(_ index: Int, as type: ObjectIdentifier, into out: UnsafeMutableRawPointer) throws -> Bool {
        fatalError("InputRecord.read: not overridden")
    }
    /// Field `index` as a `T` when ``read(_:as:into:)`` did not read it.
    @usableFromInline func decodeByPlan<T: DatabaseValueConvertible>(_ type: T.Type, at index: Int) throws -> T {
        fatalError("InputRecord.decodeByPlan: not overridden")
    }
}

extension Statement {
    @usableFromInline
    func resolveColumn(_ name: String, type: Any.Type) throws -> Int {
        guard let i = columnIndex(named: name) else {
            throw DatabaseError.decoding("no such column in the result (columns: \(columnNames.joined(separator: ", ")))",
                                        column: name, index: nil, type: type, sql: sql)
        }
        if lookupTrail.count < 16 { lookupTrail.append((name, i)) }
        return i
    }
}

/// A type that decodes itself from a row by hand, reading columns by index: the fastest path.
///
/// ```swift
/// struct Todo: RowDecodable {
///     var id: Int, title: String, done: Bool
///     init(row: Row) throws {
///         id = try row[0]; title = try row[1]; done = try row[2]
///     }
/// }
/// let tasks = try db.rows(Todo.self, "SELECT id, title, done FROM tasks").collect()
/// ```
///
/// The same type reads the records of a CSV file with ``CSVRowCursor`` (`row[i]` is the
/// i-th field, `row["name"]` the field under that header name).
public protocol RowDecodable {
    /// Reads the current row.
    init(row: Row) throws
}
