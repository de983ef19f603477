import CStreamQLite

/// A lazy sequence of values read from a statement as it steps.
///
/// Iterate with `while let x = try cursor.next()`, ``forEach(_:)`` or ``collect()``.
/// The cursor resets its statement when it is exhausted, fails or is released,
/// so a cached statement goes back to the cache in a clean state.
public protocol Cursor: AnyObject {
    /// What the cursor produces: a decoded row, a value, a tuple, a JSON element, a CSV record.
    associatedtype Element
    /// The next element, or nil when the statement is done.
    func next() throws -> Element?
}

extension Cursor {
    /// All remaining elements in an array.
    ///
    /// Inlinable, so it is specialized for the caller's cursor type (unspecialized, each
    /// append would look up the array's type metadata).
    ///
    /// ```swift
    /// let all = try db.rows(Todo.self, "SELECT * FROM tasks").collect()
    /// ```
    ///
    /// - Returns: The rest of the elements, in order.
    /// - Throws: The first error of ``next()``; the elements before it are dropped.
    @inlinable
    public func collect() throws -> [Element] {
        var result: [Element] = []
        while let e = try next() { result.append(e) }
        return result
    }

    /// Calls `body` for every remaining element.
    ///
    /// ```swift
    /// try db.rows(Todo.self, "SELECT * FROM tasks").forEach { print($0.title) }
    /// ```
    ///
    /// - Parameter body: Called with each element; an error it throws stops the loop.
    /// - Throws: What ``next()`` or `body` threw.
    @inlinable
    public func forEach(_ body: (Element) throws -> Void) throws {
        while let e = try next() { try body(e) }
    }
}

/// The stepping part shared by the statement cursors: each stores the statement, its
/// handle and the two flags, and resets the statement in its `deinit` unless done.
///
/// A protocol, not a base class, so that the public cursors do not publish it: its methods
/// are generic over the cursor and specialized for each (final) cursor class, where the
/// flags are the class's own stored properties.
@usableFromInline
protocol StatementCursor: AnyObject {
    /// The statement being stepped.
    var statement: Statement { get }
    /// The statement's handle.
    var stmt: OpaquePointer { get }
    /// True once the statement is done or failed (it was reset).
    var done: Bool { get set }
    /// False until the first step (which may re-prepare the statement; see ``Statement/stepFirst()``).
    var started: Bool { get set }
}

extension StatementCursor {
    /// Steps; true when a row is ready. Resets the statement when done or failed.
    ///
    /// Inlined into every `next()`, so only the row-to-row step is here: the first step
    /// (which checks for a re-prepared statement), the end and errors are calls. A small
    /// `next()` is inlined into the caller's loop in turn, and there a `Decodable` row
    /// type's `init(from:)` is inlined with `RowDecoder` known, instead of being called
    /// through an `any Decoder` (BENCHMARKS.md, "Fetching rows in Swift").
    @inlinable @inline(__always)
    func advance() throws -> Bool {
        if _fastPath(started && !done) {
            let rc = statement.stepNext()
            if _fastPath(rc == SQLITE_ROW) { return true }
            return try finish(rc)
        }
        return try advanceFirst()
    }

    /// The first step of a run, or any step once done. Inlinable (and never inlined): the
    /// caller's module specializes it for the cursor class, so the flags and the statement
    /// are the class's stored properties, not calls through the protocol's witnesses (a
    /// point query steps once: this is every step it makes).
    @inlinable @inline(never)
    func advanceFirst() throws -> Bool {
        if done { return false }
        started = true
        let rc = statement.stepFirst()
        if rc == SQLITE_ROW { return true }
        return try finish(rc)
    }

    /// The end of the rows (false) or a failed step (throws); the statement is reset either way.
    @inlinable @inline(never)
    func finish(_ rc: Int32) throws -> Bool {
        done = true
        if rc == SQLITE_DONE { sqlite3_reset(stmt); return false }
        throw statement.stepFailed(rc)
    }

    @inlinable @inline(never)
    func fail(_ error: any Error) -> any Error {
        done = true
        sqlite3_reset(stmt)
        return error
    }
}

/// Rows as ``Row`` views (valid until the next call to `next()`).
public final class RowCursor: StatementCursor {
    /// The statement being stepped.
    public let statement: Statement
    @usableFromInline let stmt: OpaquePointer
    @exclusivity(unchecked) @usableFromInline var done = false
    @exclusivity(unchecked) @usableFromInline var started = false
    /// Keeps the connection open while the cursor lives (a cached statement does not).
    let database: Database?

    init(statement: Statement) {
        self.statement = statement
        self.database = statement.database
        self.stmt = statement.handle
    }

    deinit { if !done { sqlite3_reset(stmt) } }

    /// The current row, or nil when done.
    @inlinable public func next() throws -> Row? {
        try advance() ? Row(statement: statement, owner: self) : nil
    }
    /// Calls `body` with every remaining row.
    public func forEach(_ body: (Row) throws -> Void) throws {
        while let row = try next() { try body(row) }
    }

    /// All remaining rows, each as its values in column order.
    ///
    /// A ``Row`` is a view valid until the next step, so the rows are copied into
    /// ``DatabaseValue``s; the column names are the statement's ``Statement/columnNames``.
    ///
    /// ```swift
    /// let rows = try db.rows("SELECT id, title FROM tasks ORDER BY id").collect()
    /// // [[.integer(1), .text("milk")], [.integer(2), .text("eggs")]]
    /// ```
    public func collect() throws -> [[DatabaseValue]] {
        var result: [[DatabaseValue]] = []
        while let row = try next() {
            result.append((0..<row.count).map { row.value(at: $0) })
        }
        return result
    }
}

/// Single values from the first column.
public final class ValueCursor<Value: DatabaseValueConvertible>: Cursor, StatementCursor {
    /// The statement being stepped.
    public let statement: Statement
    @usableFromInline let stmt: OpaquePointer
    @exclusivity(unchecked) @usableFromInline var done = false
    @exclusivity(unchecked) @usableFromInline var started = false
    /// Keeps the connection open while the cursor lives (a cached statement does not).
    let database: Database?

    init(statement: Statement) {
        self.statement = statement
        self.database = statement.database
        self.stmt = statement.handle
    }

    deinit { if !done { sqlite3_reset(stmt) } }

    @inlinable public func next() throws -> Value? {
        guard try advance() else { return nil }
        do { return try Value._decode(statement: stmt, column: 0) } catch {
            throw fail(statement.decodingError(error, column: 0, type: Value.self))
        }
    }
}

/// Values of a ``RowDecodable`` type.
public final class RowDecodableCursor<Value: RowDecodable>: Cursor, StatementCursor {
    /// The statement being stepped.
    public let statement: Statement
    @usableFromInline let stmt: OpaquePointer
    @exclusivity(unchecked) @usableFromInline var done = false
    @exclusivity(unchecked) @usableFromInline var started = false
    /// Keeps the connection open while the cursor lives (a cached statement does not).
    let database: Database?

    init(statement: Statement) {
        self.statement = statement
        self.database = statement.database
        self.stmt = statement.handle
    }

    deinit { if !done { sqlite3_reset(stmt) } }

    @inlinable public func next() throws -> Value? {
        guard try advance() else { return nil }
        do { return try Value(row: Row(statement: statement)) } catch { throw fail(error) }
    }
}

/// Tuples of values from the first columns, in order.
public final class TupleCursor<each V: DatabaseValueConvertible>: Cursor, StatementCursor {
    /// The statement being stepped.
    public let statement: Statement
    @usableFromInline let stmt: OpaquePointer
    @exclusivity(unchecked) @usableFromInline var done = false
    @exclusivity(unchecked) @usableFromInline var started = false
    /// Keeps the connection open while the cursor lives (a cached statement does not).
    let database: Database?

    init(statement: Statement) {
        self.statement = statement
        self.database = statement.database
        self.stmt = statement.handle
    }

    deinit { if !done { sqlite3_reset(stmt) } }

    public func next() throws -> (repeat each V)? {
        guard try advance() else { return nil }
        var column: Int32 = 0
        func read<T: DatabaseValueConvertible>(_ type: T.Type) throws -> T {
            defer { column += 1 }
            do { return try T._decode(statement: stmt, column: column) } catch {
                throw statement.decodingError(error, column: Int(column), type: T.self)
            }
        }
        do { return (repeat try read((each V).self)) } catch { throw fail(error) }
    }

    /// All remaining rows as tuples.
    ///
    /// Declared here, not only inherited from ``Cursor``: the protocol's generic
    /// `collect()` on a tuple of a parameter pack, called in the same expression that
    /// makes the cursor (`try db.tuples(Int.self, String.self, sql: …).collect()`),
    /// crashes the Swift 6.3 type checker or fails to type-check.
    public func collect() throws -> [(repeat each V)] {
        var rows: [(repeat each V)] = []
        while let row = try next() { rows.append(row) }
        return rows
    }
}
