import CStreamQLite

/// A prepared statement: bind arguments, step, read rows, reset, run again.
///
/// Get one from ``Database/makeStatement(_:)`` (owned by you, finalized when
/// released) or ``Database/cachedStatement(_:)`` (from the connection's bounded
/// cache). Holding a statement and re-running it with new arguments skips
/// both preparing and hashing the SQL:
///
/// ```swift
/// let insert = try db.makeStatement("INSERT INTO tasks(title, done) VALUES (?, ?)")
/// for title in titles { try insert.execute(title, false) }
/// ```
///
/// A statement keeps its connection alive; after ``Database/closeConnection()`` every
/// use throws.
public final class Statement {
    /// The SQL the statement was prepared from.
    public let sql: String
    /// The `sqlite3_stmt` pointer, for direct use of the C API.
    public let handle: OpaquePointer
    /// The connection the statement belongs to; nil once that `Database` has been released.
    ///
    /// A statement you own (``Database/makeStatement(_:)``) keeps its `Database`
    /// alive. A cached statement does not (the cache belongs to the `Database`,
    /// and a strong reference back would keep every connection alive forever):
    /// cursors keep the `Database` alive for you; if you hold a statement from
    /// ``Database/cachedStatement(_:)`` yourself, keep its `Database` too — once
    /// the `Database` is released the connection is closed, and using the
    /// statement throws "the connection is closed".
    public var database: Database? { retainedDatabase ?? weakDatabase }
    /// Strong for statements the caller owns, nil for cached ones.
    private let retainedDatabase: Database?
    private weak var weakDatabase: Database?
    /// The connection's handle and settings, shared with the `Database` (outlives it if need be).
    @usableFromInline let connection: ConnectionState
    @usableFromInline var names: [String]?
    @usableFromInline var indexByName: [String: Int]?
    /// Last name lookups in order: rows ask for the same names in the same order.
    @exclusivity(unchecked) @usableFromInline var lookupTrail: [(String, Int)] = []
    @exclusivity(unchecked) @usableFromInline var lookupHint = 0
    /// SQLite's count of re-preparations of this statement when its column metadata
    /// (``columnNames``, name lookups) was last known good; see ``refreshIfReprepared()``.
    @exclusivity(unchecked) @usableFromInline var metadataGeneration: Int32 = 0
    /// True only while the statement sits in the cache after ``Database/value(_:_:_:)``
    /// reset it (it never escapes that call): the next check-out can skip its reset.
    @exclusivity(unchecked) @usableFromInline var isReset = false
    /// What an output format keeps for this statement's columns (the JSON writer: its
    /// pre-encoded column prefixes), built on the first write and dropped with the other
    /// column metadata. The format that wrote last owns it; another replaces it.
    @exclusivity(unchecked) @usableFromInline var outputLayout: AnyObject?
    /// The result column of each of `rowPlanType`'s column names (-1: none), for a
    /// `Row.ColumnPlan` (`@RowCodable`'s `init(row:)`); made on its first row, dropped
    /// with the other column metadata.
    @exclusivity(unchecked) @usableFromInline var rowPlanType: ObjectIdentifier?
    @exclusivity(unchecked) @usableFromInline var rowPlan: UnsafeMutablePointer<Int32>?

    init(database: Database, handle: OpaquePointer, sql: String, retainsDatabase: Bool) {
        self.retainedDatabase = retainsDatabase ? database : nil
        self.connection = database.state
        if !retainsDatabase { self.weakDatabase = database }
        self.handle = handle
        self.sql = sql
    }

    deinit {
        sqlite3_finalize(handle)
        rowPlan?.deallocate()
    }

    // MARK: Columns

    /// The number of result columns.
    public var columnCount: Int { Int(sqlite3_column_count(handle)) }

    /// The result column names, read once per statement.
    public var columnNames: [String] {
        if let names { return names }
        let n = sqlite3_column_count(handle)
        let list = (0..<n).map { sqlite3_column_name(handle, $0).map { String(cString: $0) } ?? "" }
        names = list
        return list
    }

    /// The index of the column named `name` (exact match first, then case-insensitive); resolved once per statement.
    public func columnIndex(named name: String) -> Int? {
        if let indexByName { return indexByName[name] ?? indexByName[name.lowercased()] }
        var map: [String: Int] = [:]
        for (i, n) in columnNames.enumerated().reversed() {
            map[n] = i
        }
        for (i, n) in columnNames.enumerated().reversed() where map[n.lowercased()] == nil {
            map[n.lowercased()] = i
        }
        indexByName = map
        return map[name] ?? map[name.lowercased()]
    }

    // MARK: Binding

    /// Resets the statement, clears its bindings and binds `arguments` to `?` parameters in order.
    ///
    /// The number of values must equal the number of parameters.
    @inlinable
    public func bind<each A: DatabaseValueConvertible>(_ arguments: repeat each A) throws {
        try prepareForBinding()
        try bindFresh(repeat each arguments)
    }

    /// Binds `arguments` to a statement that is already reset with its bindings cleared
    /// (as ``Database/cachedStatement(_:)`` hands it out): ``bind(_:)`` without its reset.
    @inlinable
    func bindFresh<each A: DatabaseValueConvertible>(_ arguments: repeat each A) throws {
        var index: Int32 = 0
        var rc = SQLITE_OK
        for argument in repeat each arguments {
            index += 1
            if rc == SQLITE_OK { rc = argument._bind(to: handle, at: index) }
        }
        if _slowPath(rc != SQLITE_OK || index != sqlite3_bind_parameter_count(handle)) {
            try bindingFailed(rc: rc, given: Int(index))
        }
    }

    /// Resets the statement, clears its bindings and binds positional and named `arguments`.
    public func bind(arguments: StatementArguments) throws {
        try prepareForBinding()
        do {
            try arguments.bind(to: self)
        } catch var error as DatabaseError {
            if connection.publicStatementArguments { error.arguments = arguments.sqlDescription }
            throw error
        }
    }

    /// Binds one value to parameter `index` (1-based), leaving the other bindings in place.
    public func bind(_ value: some DatabaseValueConvertible, at index: Int) throws {
        try connection.checkOpen(sql)
        try check(value._bind(to: handle, at: Int32(index)))
    }

    /// Binds one value to the parameter named `name` (`:name`, `@name`, `$name`, or the bare name).
    public func bind(_ value: some DatabaseValueConvertible, named name: String) throws {
        try connection.checkOpen(sql)
        var index: Int32 = 0
        if let first = name.first, ":@$".contains(first) {
            index = sqlite3_bind_parameter_index(handle, name)
        } else {
            for prefix in [":", "@", "$"] where index == 0 { index = sqlite3_bind_parameter_index(handle, prefix + name) }
        }
        guard index > 0 else { throw error(SQLITE_RANGE, "no parameter named \(name)") }
        try check(value._bind(to: handle, at: index))
    }

    /// Resets the statement (ending any step in progress) and clears its bindings.
    @usableFromInline
    func prepareForBinding() throws {
        try connection.checkOpen(sql)
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    @usableFromInline
    func bindingFailed(rc: Int32, given: Int) throws {
        // The count first: binding a third argument to two parameters fails with SQLITE_RANGE too.
        let expected = Int(sqlite3_bind_parameter_count(handle))
        if given != expected {
            throw error(SQLITE_RANGE, "the statement has \(expected) parameter\(expected == 1 ? "" : "s"), \(given) argument\(given == 1 ? "" : "s") given")
        }
        try check(rc)
    }

    /// Clears all bindings (parameters become NULL).
    public func clearBindings() { sqlite3_clear_bindings(handle) }

    // MARK: Running

    /// Advances to the next row: true when a row is available, false when the statement is done.
    ///
    /// Throws "the connection is closed" after ``Database/closeConnection()``.
    @inlinable @inline(__always)
    public func step() throws -> Bool {
        let rc = sqlite3_stmt_busy(handle) == 0 ? stepFirst() : stepNext()
        if _fastPath(rc == SQLITE_ROW) { return true }
        if rc == SQLITE_DONE { return false }
        throw stepFailed(rc)
    }

    /// One step after the first of a run. Every step the library takes goes through
    /// this or ``stepFirst()``: a closed connection is never stepped (SQLite keeps a
    /// closed connection alive while statements exist, so its statements would
    /// still read and write the file).
    @inlinable @inline(__always)
    func stepNext() -> Int32 {
        if _slowPath(connection.handle == nil) { return SQLITE_MISUSE }  // stepFailed: "the connection is closed"
        return sqlite3_step(handle)
    }

    /// The first step of a run, which is where SQLite re-prepares a statement whose
    /// schema changed: the column metadata cached from earlier runs is dropped if it did.
    @inlinable @inline(__always)
    func stepFirst() -> Int32 {
        let rc = stepNext()
        refreshIfReprepared()
        return rc
    }

    /// Drops the cached column names and name lookups when SQLite has re-prepared the
    /// statement since they were read (`DROP TABLE` + `CREATE TABLE`, `ALTER TABLE …`:
    /// the same SQL may now have other columns, in another order).
    @inlinable @inline(__always)
    func refreshIfReprepared() {
        let generation = sqlite3_stmt_status(handle, SQLITE_STMTSTATUS_REPREPARE, 0)
        if _slowPath(generation != metadataGeneration) {
            metadataGeneration = generation
            names = nil
            indexByName = nil
            lookupTrail = []
            lookupHint = 0
            outputLayout = nil
            rowPlanType = nil
        }
    }

    @usableFromInline
    func stepFailed(_ rc: Int32) -> DatabaseError {
        guard let db = connection.handle else { return DatabaseError(code: SQLITE_MISUSE, message: "the connection is closed", sql: sql) }
        let e = DatabaseError.last(db, code: rc, sql: sql)
        sqlite3_reset(handle)
        return e
    }

    /// Resets the statement so it can run again; bindings are kept.
    public func reset() { sqlite3_reset(handle) }

    /// Binds `arguments` and runs the statement to completion, ignoring rows.
    @inlinable
    public func execute<each A: DatabaseValueConvertible>(_ arguments: repeat each A) throws {
        try bind(repeat each arguments)
        try runToCompletion()
    }

    /// Binds `arguments` and runs the statement to completion, ignoring rows.
    public func execute(arguments: StatementArguments) throws {
        try bind(arguments: arguments)
        try runToCompletion()
    }

    @usableFromInline
    func runToCompletion() throws {
        defer { sqlite3_reset(handle) }
        while try step() {}
    }

    // MARK: Errors

    @usableFromInline
    func error(_ code: Int32, _ message: String) -> DatabaseError {
        DatabaseError(code: code, message: message, sql: sql)
    }

    @usableFromInline
    func check(_ rc: Int32) throws {
        guard rc != SQLITE_OK else { return }
        if rc == SQLITE_RANGE { throw error(rc, "argument out of range (or too large for SQLite's INTEGER)") }
        throw DatabaseError.last(connection.handle, code: rc, sql: sql)
    }

    /// Adds the column name, index, SQL and expected type to a decoding error.
    @usableFromInline
    func decodingError(_ error: any Error, column: Int, type: Any.Type) -> any Error {
        var e: DatabaseError
        if let databaseError = error as? DatabaseError {
            e = databaseError
        } else if let decodingError = error as? DecodingError {
            // A value the standard library could not decode (an enum's unknown raw value…):
            // the same error as every other decoding failure, with the column and the SQL.
            e = DatabaseError(code: SQLITE_MISMATCH, message: decodingError.streamQLiteDescription)
        } else {
            return error  // an error of the type's own init(from:): passed on as it is
        }
        if e.column == nil && column >= 0 && column < columnCount { e.column = columnNames[column] }
        if e.columnIndex == nil { e.columnIndex = column }
        if e.expectedType == nil { e.expectedType = String(describing: type) }
        if e.sql == nil { e.sql = sql }
        return e
    }
}

extension DecodingError {
    /// The context every case carries (nil only for a case a later Swift adds).
    var context: Context? {
        switch self {
        case .typeMismatch(_, let c), .valueNotFound(_, let c), .keyNotFound(_, let c), .dataCorrupted(let c): return c
        @unknown default: return nil
        }
    }

    /// The failure in one sentence (the context's description, the key or type involved).
    var streamQLiteDescription: String {
        switch self {
        case .dataCorrupted(let context):
            return context.debugDescription
        case .typeMismatch(let type, let context):
            return "expected \(type): \(context.debugDescription)"
        case .valueNotFound(let type, let context):
            return "expected \(type), found no value: \(context.debugDescription)"
        case .keyNotFound(let key, let context):
            return "no value for key '\(key.stringValue)': \(context.debugDescription)"
        @unknown default:
            return "\(self)"
        }
    }
}
