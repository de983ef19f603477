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
    /// The statement whose current row this is.
    public let statement: Statement
    @usableFromInline let stmt: OpaquePointer
    /// Keeps the cursor (which resets the statement when released) alive while the row is in use.
    @usableFromInline let owner: AnyObject?

    @usableFromInline init(statement: Statement, owner: AnyObject? = nil) {
        self.statement = statement
        self.stmt = statement.handle
        self.owner = owner
    }

    /// The number of columns.
    @inlinable public var count: Int { Int(sqlite3_column_count(stmt)) }

    /// Whether the value at `index` is NULL.
    @inlinable public func isNull(_ index: Int) -> Bool { sqlite3_column_type(stmt, Int32(index)) == SQLITE_NULL }

    /// The value at `index` decoded as `T`; throws with the column name and the expected type when it does not fit.
    @inlinable @inline(__always)
    public func decode<T: DatabaseValueConvertible>(_ type: T.Type = T.self, at index: Int) throws -> T {
        do {
            return try T.decode(statement: stmt, column: Int32(index))
        } catch {
            throw statement.decodingError(error, column: index, type: T.self)
        }
    }

    /// The value in the column named `name` decoded as `T`; a missing column throws.
    @inlinable @inline(__always)
    public func decode<T: DatabaseValueConvertible>(_ type: T.Type = T.self, named name: String) throws -> T {
        try decode(T.self, at: try index(of: name, for: T.self))
    }

    /// The index of the column `name`: resolved once per statement, then checked against the order of earlier lookups.
    @inlinable @inline(__always)
    public func index<T>(of name: String, for type: T.Type) throws -> Int {
        // Rows ask for the same names in the same order: try the entry after the last hit first.
        let trail = statement.lookupTrail
        let hint = statement.lookupHint
        if _fastPath(hint < trail.count) {
            let entry = trail[hint]
            if entry.0 == name {
                statement.lookupHint = hint + 1 == trail.count ? 0 : hint + 1
                return entry.1
            }
        }
        for (k, (n, i)) in trail.enumerated() where n == name {
            statement.lookupHint = k + 1 == trail.count ? 0 : k + 1
            return i
        }
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

    /// The value at `index` as a ``DatabaseValue``.
    public func value(at index: Int) -> DatabaseValue { DatabaseValue(sqliteValue: sqlite3_column_value(stmt, Int32(index))) }

    /// The column names.
    public var columnNames: [String] { statement.columnNames }
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
public protocol RowDecodable {
    /// Reads the current row.
    init(row: Row) throws
}
