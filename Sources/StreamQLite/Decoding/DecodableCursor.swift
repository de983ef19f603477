import CStreamQLite

/// Values of a `Decodable` type: the column plan is resolved on the first row.
public final class DecodableCursor<Value: Decodable>: Cursor, StatementCursor {
    /// The statement being stepped.
    public let statement: Statement
    @usableFromInline let stmt: OpaquePointer
    @exclusivity(unchecked) @usableFromInline var done = false
    @exclusivity(unchecked) @usableFromInline var started = false
    /// Keeps the connection open while the cursor lives (a cached statement does not).
    let database: Database?
    @usableFromInline let decoder: RowDecoder
    /// `Value` is a ``DatabaseValueConvertible`` (`Date`, `Int`, an enum…): the first column
    /// is read by its conversion, as in a row type's property — not by its own `init(from:)`
    /// (Foundation's `Date` would read a number as seconds since 2001 and refuse date text).
    @usableFromInline let isValue: Bool

    init(statement: Statement, userInfo: [CodingUserInfoKey: any Sendable]) {
        decoder = RowDecoder(statement: statement)
        decoder.userInfo = userInfo
        isValue = Value.self is any DatabaseValueConvertible.Type
        self.statement = statement
        self.database = statement.database
        self.stmt = statement.handle
    }

    deinit { if !done { sqlite3_reset(stmt) } }

    @inlinable public func next() throws -> Value? {
        guard try advance() else { return nil }
        decoder.beginRow()
        do { return isValue ? try firstColumn() : try Value(from: decoder) } catch { throw fail(error) }
    }

    @usableFromInline func firstColumn() throws -> Value {
        try ColumnValueContainer(statement: statement, column: 0, json: nil).decode(Value.self)
    }
}

extension Database {
    /// Streams the rows of `sql` decoded as `Decodable` values.
    ///
    /// ```swift
    /// let cursor = try db.rows(Todo.self, "SELECT * FROM tasks WHERE done = ?", false)
    /// while let task = try cursor.next() { print(task.title) }
    /// ```
    ///
    /// - Parameters:
    ///   - type: The `Decodable` type of a row: its coding keys name the columns.
    ///   - sql: One SQL statement.
    ///   - arguments: Values bound to its `?` parameters, in order.
    /// - Returns: A cursor stepping the statement as ``Cursor/next()`` is called.
    /// - Throws: ``DatabaseError`` when the SQL does not prepare or an argument cannot be
    ///   bound; decoding errors come from `next()`.
    public func rows<T: Decodable, each A: DatabaseValueConvertible>(
        _ type: T.Type, _ sql: String, _ arguments: repeat each A
    ) throws -> DecodableCursor<T> {
        let statement = try cachedStatement(sql, binding: repeat each arguments)
        return statement.rows(T.self)
    }
}

extension Statement {
    /// A cursor decoding the statement's rows as `Decodable` values (bind first).
    public func rows<T: Decodable>(_ type: T.Type, userInfo: [CodingUserInfoKey: any Sendable] = [:]) -> DecodableCursor<T> {
        DecodableCursor(statement: self, userInfo: userInfo)
    }
}
