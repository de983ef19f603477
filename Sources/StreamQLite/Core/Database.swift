import CStreamQLite

/// A connection to an SQLite database, with StreamQLite's SQL functions registered.
///
/// ```swift
/// let db = try Database(path: "tasks.db")
/// try db.execute("CREATE TABLE tasks(id INTEGER PRIMARY KEY, title TEXT NOT NULL, done INTEGER NOT NULL)")
/// try db.transaction { try db.execute("INSERT INTO tasks(title, done) VALUES (?, ?)", "Clean Room", false) }
/// let open = try db.rows(Todo.self, "SELECT * FROM tasks WHERE done = ?", false).collect()
/// ```
///
/// A connection is used from one place at a time: `Database` is not `Sendable`.
/// Share one between tasks through ``DatabaseActor``.
public final class Database {
    /// How to open a database file.
    public struct OpenFlags: OptionSet, Sendable {
        public let rawValue: Int32
        public init(rawValue: Int32) { self.rawValue = rawValue }
        /// Read and write (the default, with ``create``).
        public static let readWrite = OpenFlags(rawValue: SQLITE_OPEN_READWRITE)
        /// Read only.
        public static let readOnly = OpenFlags(rawValue: SQLITE_OPEN_READONLY)
        /// Create the file if it does not exist.
        public static let create = OpenFlags(rawValue: SQLITE_OPEN_CREATE)
        /// Interpret the path as a `file:` URI.
        public static let uri = OpenFlags(rawValue: SQLITE_OPEN_URI)
        /// An in-memory database (the path names it for shared-cache URIs).
        public static let memory = OpenFlags(rawValue: SQLITE_OPEN_MEMORY)
        /// No connection mutex: the caller serializes all use (``Database`` does).
        public static let noMutex = OpenFlags(rawValue: SQLITE_OPEN_NOMUTEX)
        /// The default: read/write, create, no connection mutex (a ``Database`` is used from one place at a time).
        public static let `default`: OpenFlags = [.readWrite, .create, .noMutex]
    }

    /// Connection settings.
    public struct Configuration: Sendable {
        /// Register StreamQLite's SQL functions on the connection (default true).
        public var registersExtension = true
        /// How many prepared statements ``Database/cachedStatement(_:)`` keeps (default 64).
        public var statementCacheCapacity = 64
        /// How long to wait on a locked database, in seconds (default 5; 0 fails at once).
        public var busyTimeout: Double = 5
        /// Include bound arguments in ``DatabaseError`` descriptions (default false: they may be private).
        public var publicStatementArguments = false
        /// Allow ``Database/loadExtension(_:entryPoint:)`` (default false).
        public var allowsExtensionLoading = false
        /// The defaults given above.
        public init() {}
    }

    /// Hit, miss and eviction counts of the statement cache.
    public struct CacheStatistics: Sendable, Equatable {
        /// Statements found in the cache.
        public var hits = 0
        /// Statements prepared because the cache had none free for the SQL.
        public var misses = 0
        /// Statements dropped from the cache to keep it within its capacity (finalized then, or when their user releases them).
        public var evictions = 0
        /// Statements currently held by the cache.
        public var count = 0
    }

    final class CacheEntry {
        /// The SQL the entry is cached under.
        let key: String
        @exclusivity(unchecked) var statement: Statement
        @exclusivity(unchecked) var lastUse: UInt64
        init(key: String, statement: Statement, lastUse: UInt64) { self.key = key; self.statement = statement; self.lastUse = lastUse }
    }

    /// The handle and settings the connection's statements share (see ``ConnectionState``).
    @usableFromInline let state: ConnectionState
    /// The `sqlite3` pointer; nil once closed.
    @usableFromInline var connection: OpaquePointer? {
        @inline(__always) get { state.handle }
        set { state.handle = newValue }
    }
    /// The path the connection was opened with.
    public let path: String
    /// The connection's settings.
    public let configuration: Configuration
    // Unchecked exclusivity: a Database is used from one place at a time, and the
    // dynamic checks cost ~75 instructions each on the point-query path.
    @exclusivity(unchecked) var cache: [String: CacheEntry] = [:]
    /// The entry of the last cache hit or insert, checked before hashing the SQL: loops of
    /// point queries ask for the same SQL (usually the same `String` storage, so the
    /// comparison is one pointer check). Cleared whenever its entry leaves `cache`.
    @exclusivity(unchecked) var lastEntry: CacheEntry?
    @exclusivity(unchecked) var useClock: UInt64 = 0
    var savepointDepth = 0
    /// Statement cache counters.
    @exclusivity(unchecked) public private(set) var cacheStatistics = CacheStatistics()
    var functionBoxes: [AnyObject] = []

    /// Opens (by default creating) the database at `path`; `":memory:"` is a private in-memory database.
    ///
    /// ```swift
    /// let db = try Database(path: "tasks.db")            // created when missing
    /// let scratch = try Database()                         // in memory
    /// ```
    ///
    /// - Parameters:
    ///   - path: The database file, or `":memory:"` (a `file:` URI with ``OpenFlags/uri``).
    ///   - flags: How to open it (``OpenFlags/default``: read-write, created when missing).
    ///   - configuration: The connection's settings (busy timeout, statement cache size…).
    /// - Throws: ``DatabaseError`` when SQLite cannot open the file, or the extension's
    ///   functions cannot be registered on the connection.
    public init(path: String = ":memory:", flags: OpenFlags = .default, configuration: Configuration = Configuration()) throws {
        self.path = path
        self.configuration = configuration
        self.state = ConnectionState(publicStatementArguments: configuration.publicStatementArguments)
        var db: OpaquePointer?
        var openFlags = flags
        if !openFlags.contains(.readOnly) && !openFlags.contains(.readWrite) { openFlags.insert(.readWrite) }
        let rc = sqlite3_open_v2(path, &db, openFlags.rawValue | SQLITE_OPEN_EXRESCODE, nil)
        guard rc == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            if let db { sqlite3_close_v2(db) }
            throw DatabaseError(code: rc, message: "cannot open \(path): \(message)")
        }
        sqlite3_extended_result_codes(db, 1)
        if configuration.registersExtension {
            var err: UnsafeMutablePointer<CChar>?
            let irc = sqlite3_streamqlite_init(db, &err, nil)
            if irc != SQLITE_OK {
                let msg = err.map { String(cString: $0) } ?? "streamqlite init failed"
                sqlite3_free(err)
                sqlite3_close_v2(db)
                throw DatabaseError(code: irc, message: msg)
            }
        }
        sqlite3_busy_timeout(db, Int32(max(0, configuration.busyTimeout) * 1000))
        connection = db
    }

    deinit {
        lastEntry = nil
        cache.removeAll()
        // Statements still held elsewhere (a cached statement kept past its Database) keep
        // SQLite's connection as a zombie until finalized; their use throws "closed".
        if let connection { sqlite3_close_v2(connection) }
        state.handle = nil
    }

    /// The `sqlite3` pointer. Trap-free code checks ``isClosed`` first; library entry points throw on closed connections.
    var handle: OpaquePointer {
        guard let connection else { preconditionFailure("StreamQLite: the connection is closed") }
        return connection
    }

    /// The `sqlite3` pointer for direct use of the C API; nil once closed.
    public var sqliteHandle: OpaquePointer? { connection }

    /// True after ``closeConnection()``.
    public var isClosed: Bool { connection == nil }

    @inlinable @inline(__always)
    func checkOpen(_ sql: String? = nil) throws { try state.checkOpen(sql) }

    /// Closes the connection: finalizes the cached statements and closes; further use throws.
    ///
    /// Statements you still hold stay valid objects (their use throws); SQLite
    /// releases the connection once the last of them is released.
    ///
    /// ```swift
    /// try db.closeConnection()   // a later call on db throws "the connection is closed"
    /// ```
    ///
    /// - Throws: ``DatabaseError`` when SQLite refuses to close (a statement of yours still
    ///   runs); the connection then stays usable.
    public func closeConnection() throws {
        guard let db = connection else { return }
        lastEntry = nil
        cache.removeAll()
        cacheStatistics.count = 0
        connection = nil
        let rc = sqlite3_close_v2(db)
        if rc != SQLITE_OK { throw DatabaseError(code: rc, message: "cannot close: \(String(cString: sqlite3_errstr(rc)))") }
    }

    // MARK: Statements

    /// Prepares `sql` (one statement) into a statement you own.
    public func makeStatement(_ sql: String) throws -> Statement {
        try makeStatement(sql, retainsDatabase: true)
    }

    /// Prepares `sql`; a statement for the cache does not retain the `Database` (no cycle).
    func makeStatement(_ sql: String, retainsDatabase: Bool) throws -> Statement {
        try checkOpen(sql)
        let (stmt, rest) = try prepareFirst(Substring(sql), persistent: true, retainsDatabase: retainsDatabase)
        guard let stmt else { throw DatabaseError(code: SQLITE_MISUSE, message: "no SQL statement", sql: sql) }
        if !isBlankSQL(rest) {
            throw DatabaseError(code: SQLITE_MISUSE, message: "one statement expected, found more: \(rest.prefix(60))", sql: sql)
        }
        return stmt
    }

    /// A prepared statement for `sql` from the connection's bounded LRU cache.
    ///
    /// The statement comes reset with its bindings cleared. While you hold it,
    /// it is yours: asking for the same SQL again (a nested query) prepares a
    /// separate statement. Release it and it goes back to the cache.
    public func cachedStatement(_ sql: String) throws -> Statement {
        try cachedStatement(sql) { retainsDatabase in try makeStatement(sql, retainsDatabase: retainsDatabase) }
    }

    /// The library's own statements (a bulk insert's `INSERT … VALUES` of N rows) from the
    /// same cache: a write that makes the same statement again (each file of an import of
    /// several, each `insert(contentsOf:)`) does not prepare it again. `prepare` prepares it
    /// when the cache has none free (its errors are thrown as they are). Release the
    /// statement to give it back; it is reset and its bindings cleared when handed out.
    func cachedStatement(_ sql: String, preparingWith prepare: () throws -> OpaquePointer) throws -> Statement {
        try cachedStatement(sql) { retainsDatabase in
            Statement(database: self, handle: try prepare(), sql: sql, retainsDatabase: retainsDatabase)
        }
    }

    /// The cache's one lookup: a free cached statement for `sql`, else `make(retainsDatabase)`
    /// (false: for the cache, which must not retain the `Database`), cached when it can be.
    @inline(__always)
    private func cachedStatement(_ sql: String, making make: (Bool) throws -> Statement) throws -> Statement {
        try checkOpen(sql)
        useClock &+= 1
        if let last = lastEntry, last.key == sql, isKnownUniquelyReferenced(&last.statement) {
            // The common case of a loop of point queries: no hashing, no bookkeeping beyond the hit.
            cacheStatistics.hits += 1
            last.lastUse = useClock
            return checkOut(last.statement)
        }
        if let entry = cache[sql] {
            if isKnownUniquelyReferenced(&entry.statement) {
                cacheStatistics.hits += 1
                entry.lastUse = useClock
                lastEntry = entry
                return checkOut(entry.statement)
            }
            // In use (a nested query of the same SQL): a statement of its own, not cached.
            cacheStatistics.misses += 1
            return try make(true)
        }
        cacheStatistics.misses += 1
        guard configuration.statementCacheCapacity > 0 else { return try make(true) }
        return store(try make(false), for: sql)
    }

    /// Whether the cache holds `statement` (so that releasing it gives it back, not finalizes it).
    func cacheHolds(_ statement: Statement) -> Bool { cache[statement.sql]?.statement === statement }

    /// Puts a freshly prepared statement (not retaining its `Database`) in the cache under `sql`.
    func store(_ statement: Statement, for sql: String) -> Statement {
        guard configuration.statementCacheCapacity > 0 else { return statement }
        if cache.count >= configuration.statementCacheCapacity { evictLeastRecentlyUsed() }
        let entry = CacheEntry(key: sql, statement: statement, lastUse: useClock)
        cache[sql] = entry
        lastEntry = entry
        cacheStatistics.count = cache.count
        return statement
    }

    /// A cached statement handed out: reset (unless the library reset it last and nothing
    /// could step it since) and with its bindings cleared.
    @inline(__always)
    func checkOut(_ statement: Statement) -> Statement {
        if !statement.isReset { sqlite3_reset(statement.handle) }
        statement.isReset = false
        sqlite3_clear_bindings(statement.handle)
        return statement
    }

    func evictLeastRecentlyUsed() {
        guard let oldest = cache.min(by: { $0.value.lastUse < $1.value.lastUse }) else { return }
        if oldest.value === lastEntry { lastEntry = nil }
        cache.removeValue(forKey: oldest.key)  // finalized now, or when its user releases it
        cacheStatistics.evictions += 1
        cacheStatistics.count = cache.count
    }

    /// Finalizes every cached statement not in use.
    public func clearStatementCache() {
        lastEntry = nil
        cache.removeAll()
        cacheStatistics.count = 0
    }

    /// Whether `sql` currently has a statement in the cache.
    public func isCached(_ sql: String) -> Bool { cache[sql] != nil }

    /// Prepares the first statement of `sql`; returns it (nil for blank SQL) and the remaining text.
    func prepareFirst(_ sql: Substring, persistent: Bool, retainsDatabase: Bool = true) throws -> (Statement?, Substring) {
        var stmt: OpaquePointer?
        var consumed = 0
        let flags = persistent ? UInt32(SQLITE_PREPARE_PERSISTENT) : 0
        var text = String(sql)
        let rc = text.withUTF8 { buf -> Int32 in
            buf.withMemoryRebound(to: CChar.self) { chars in
                var tail: UnsafePointer<CChar>?
                let rc = sqlite3_prepare_v3(handle, chars.baseAddress, Int32(chars.count), flags, &stmt, &tail)
                if let tail, let base = chars.baseAddress { consumed = base.distance(to: tail) }
                return rc
            }
        }
        let own = String(sql)
        guard rc == SQLITE_OK else {
            throw DatabaseError.last(connection, code: rc, sql: own)
        }
        let restUTF8 = text.utf8.dropFirst(consumed)
        let rest = Substring(restUTF8)
        guard let stmt else { return (nil, rest) }
        let used = String(decoding: text.utf8.prefix(consumed), as: UTF8.self).trimmingSQLWhitespace()
        return (Statement(database: self, handle: stmt, sql: used, retainsDatabase: retainsDatabase), rest)
    }

    func prepareFirst(_ sql: String, persistent: Bool) throws -> (Statement?, Substring) {
        try prepareFirst(Substring(sql), persistent: persistent)
    }

    // MARK: Executing

    /// Runs `sql`, which may hold several statements; `arguments` go to the last one.
    ///
    /// ```swift
    /// try db.execute("INSERT INTO tasks(title, done) VALUES (?, ?)", "Clean Room", false)
    /// ```
    ///
    /// - Parameters:
    ///   - sql: One or more SQL statements.
    ///   - arguments: Values bound to the last statement's `?` parameters, in order.
    /// - Throws: ``DatabaseError`` carrying the SQL: a syntax error, a constraint, a wrong
    ///   number of arguments.
    public func execute<each A: DatabaseValueConvertible>(_ sql: String, _ arguments: repeat each A) throws {
        try checkOpen(sql)
        switch try prepareForExecute(sql) {
        case .single(let statement): try statement.execute(repeat each arguments)
        case .script(let first, let rest): try executeScript(first: first, rest: rest) { try $0.bind(repeat each arguments) }
        case .blank: break
        }
    }

    /// Runs `sql`, which may hold several statements; `arguments` go to the last one.
    ///
    /// ```swift
    /// try db.execute("UPDATE tasks SET done = :done WHERE id = :id", arguments: [":done": true, ":id": 1])
    /// ```
    ///
    /// - Parameters:
    ///   - sql: One or more SQL statements.
    ///   - arguments: Positional and named values for the last statement.
    /// - Throws: ``DatabaseError`` carrying the SQL.
    public func execute(_ sql: String, arguments: StatementArguments) throws {
        try checkOpen(sql)
        switch try prepareForExecute(sql) {
        case .single(let statement): try statement.execute(arguments: arguments)
        case .script(let first, let rest): try executeScript(first: first, rest: rest) { try $0.bind(arguments: arguments) }
        case .blank: break
        }
    }

    /// What ``execute(_:_:)`` runs: SQL is prepared once (the one prepare path), and a
    /// prepare error is thrown with the SQL, never swallowed.
    enum Executable {
        /// One statement: the cached statement for `sql`.
        case single(Statement)
        /// Several: the first, prepared, and the text after it.
        case script(Statement, Substring)
        /// Nothing but blanks and comments.
        case blank
    }

    func prepareForExecute(_ sql: String) throws -> Executable {
        if cache[sql] != nil { return .single(try cachedStatement(sql)) }
        let (first, rest) = try prepareFirst(Substring(sql), persistent: true, retainsDatabase: false)
        guard let first else { return .blank }
        if isBlankSQL(rest) {
            cacheStatistics.misses += 1
            return .single(store(first, for: sql))
        }
        return .script(first, rest)
    }

    /// Runs the statements of a script in order, `first` (already prepared) then the rest,
    /// each prepared when its turn comes (a statement may depend on the ones before it).
    func executeScript(first: Statement, rest: Substring, bindLast: (Statement) throws -> Void) throws {
        var statement = first
        var tail = rest
        while true {
            let isLast = isBlankSQL(tail)
            if isLast {
                try bindLast(statement)
            } else if sqlite3_bind_parameter_count(statement.handle) > 0 {
                throw DatabaseError(code: SQLITE_RANGE,
                                    message: "only the last statement of a script takes arguments", sql: statement.sql)
            }
            try statement.runToCompletion()
            if isLast { return }
            let (next, after) = try prepareFirst(tail, persistent: false)
            guard let next else { return }  // only blanks and comments left
            statement = next
            tail = after
        }
    }

    /// The rowid of the last successful INSERT on this connection.
    public var lastInsertRowID: Int64 { connection.map { sqlite3_last_insert_rowid($0) } ?? 0 }

    /// Rows changed by the last INSERT, UPDATE or DELETE.
    public var changes: Int { connection.map { Int(sqlite3_changes64($0)) } ?? 0 }

    /// Rows changed since the connection opened.
    public var totalChanges: Int { connection.map { Int(sqlite3_total_changes64($0)) } ?? 0 }

    /// Sets how long to wait on a locked database before failing with `SQLITE_BUSY`.
    ///
    /// ```swift
    /// try db.setBusyTimeout(5)   // wait up to 5 s for another process's lock
    /// ```
    ///
    /// - Parameter seconds: How long a statement waits for a lock before `SQLITE_BUSY`.
    /// - Throws: ``DatabaseError`` when the connection is closed.
    public func setBusyTimeout(_ seconds: Double) throws {
        try checkOpen()
        sqlite3_busy_timeout(handle, Int32(max(0, seconds) * 1000))
    }

    /// True when no transaction is open (autocommit mode).
    public var isAutocommit: Bool { connection.map { sqlite3_get_autocommit($0) != 0 } ?? true }

    /// Makes the running statement stop with `SQLITE_INTERRUPT` as soon as possible.
    ///
    /// The one method safe to call from another thread (through ``Database/InterruptHandle``).
    public func interrupt() { if let connection { sqlite3_interrupt(connection) } }

    /// A `Sendable` handle that can interrupt this connection from another thread.
    public var interruptHandle: Database.InterruptHandle { Database.InterruptHandle(database: self) }

    // MARK: Transactions

    /// How a transaction takes its locks.
    public enum TransactionKind: String, Sendable {
        /// `BEGIN DEFERRED`: locks are taken by the first read and the first write.
        case deferred = "DEFERRED"
        /// `BEGIN IMMEDIATE`: the write lock at once, waiting up to the busy timeout (the default).
        case immediate = "IMMEDIATE"
        /// `BEGIN EXCLUSIVE`: as immediate; in WAL mode the same, otherwise readers are kept out too.
        case exclusive = "EXCLUSIVE"
    }

    /// Runs `body` in a transaction: committed when it returns, rolled back when it throws.
    ///
    /// The default kind is ``TransactionKind/immediate``: the write lock is taken at
    /// `BEGIN`, where the busy timeout applies. A deferred transaction that reads and then
    /// writes fails at once with `SQLITE_BUSY` when another connection wrote meanwhile (in
    /// WAL mode SQLite cannot wait there without deadlocking), whatever the busy timeout;
    /// ask for ``TransactionKind/deferred`` for read-only transactions.
    ///
    /// Nested calls use savepoints: an inner failure rolls back the inner part only
    /// (if the error is caught by the outer body).
    ///
    /// ```swift
    /// try db.transaction {
    ///     try db.execute("INSERT INTO a VALUES (1)")
    ///     try? db.transaction { try db.execute("INSERT INTO a VALUES (2)"); throw Cancel() }  // only 2 is undone
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - kind: `BEGIN IMMEDIATE` (default), `DEFERRED` or `EXCLUSIVE`.
    ///   - body: The work; its return value is returned.
    /// - Returns: What `body` returned.
    /// - Throws: What `body` threw (after the rollback), or ``DatabaseError`` from `BEGIN`/`COMMIT`.
    @discardableResult
    public func transaction<T>(_ kind: TransactionKind = .immediate, _ body: () throws -> T) throws -> T {
        try checkOpen()
        if savepointDepth > 0 || !isAutocommit { return try savepoint(body) }
        try sqExecute("BEGIN \(kind.rawValue) TRANSACTION")
        savepointDepth += 1
        defer { savepointDepth -= 1 }
        let result: T
        do {
            result = try body()
            try sqExecute("COMMIT")
        } catch {
            if !isClosed && !isAutocommit { _ = sqlite3_exec(handle, "ROLLBACK", nil, nil, nil) }
            throw error
        }
        return result
    }

    /// Runs `body` inside a savepoint: released when it returns, rolled back to (and released) when it throws.
    ///
    /// Works inside and outside a transaction; every nested write of the library
    /// (bulk inserts, imports, nested ``transaction(_:_:)`` calls) goes through it.
    ///
    /// ```swift
    /// try db.savepoint { try db.execute("INSERT INTO log VALUES (?)", "step 1") }
    /// ```
    ///
    /// - Parameter body: The work, rolled back to the savepoint when it throws.
    /// - Returns: What `body` returned.
    /// - Throws: What `body` threw, or ``DatabaseError`` from `SAVEPOINT`/`RELEASE`.
    @discardableResult
    public func savepoint<T>(_ body: () throws -> T) throws -> T {
        let savepoint = try OpenSavepoint(self)
        do {
            let result = try body()
            try savepoint.release()
            return result
        } catch {
            savepoint.rollback()
            throw error
        }
    }

    // MARK: Extensions

    /// Loads an SQLite extension from `path` (requires ``Configuration/allowsExtensionLoading``).
    ///
    /// ```swift
    /// try db.loadExtension("/usr/lib/x86_64-linux-gnu/mod_spatialite")
    /// ```
    ///
    /// - Parameters:
    ///   - path: The shared library (its suffix may be left out, as in the shell's `.load`).
    ///   - entryPoint: Its init function, when not the one SQLite derives from the file name.
    /// - Throws: ``DatabaseError`` with SQLite's message (no such file, no entry point).
    public func loadExtension(_ path: String, entryPoint: String? = nil) throws {
        try checkOpen()
        guard configuration.allowsExtensionLoading else {
            throw DatabaseError(code: SQLITE_MISUSE, message: "loadExtension: extension loading is disabled; set Configuration.allowsExtensionLoading")
        }
        sqlite3_enable_load_extension(handle, 1)
        defer { sqlite3_enable_load_extension(handle, 0) }
        var err: UnsafeMutablePointer<CChar>?
        let rc = sqlite3_load_extension(handle, path, entryPoint, &err)
        if rc != SQLITE_OK {
            let msg = err.map { String(cString: $0) } ?? String(cString: sqlite3_errmsg(handle))
            sqlite3_free(err)
            throw DatabaseError(code: rc, message: "loadExtension \(path): \(msg)")
        }
    }

    /// Runs `sql` and returns the first column of the first row as text (nil for no row or NULL).
    public func scalarText(_ sql: String) throws -> String? {
        try value(String?.self, sql) ?? nil
    }
}

@available(*, unavailable, message: "A Database is used from one place at a time; share it through DatabaseActor")
extension Database: Sendable {}

extension Database {
    /// Interrupts a connection from any thread.
    public struct InterruptHandle: @unchecked Sendable {
        // sqlite3_interrupt is documented as safe to call from other threads while the connection is open.
        weak var database: Database?
        /// Stops the connection's running statement with `SQLITE_INTERRUPT`.
        public func interrupt() { database?.interrupt() }
    }
}

/// True when `sql` holds only whitespace, semicolons and comments.
func isBlankSQL(_ sql: Substring) -> Bool {
    var it = sql.utf8[...]
    while let c = it.first {
        switch c {
        case 0x20, 0x09, 0x0A, 0x0D, 0x0C, 0x3B:
            it = it.dropFirst()
        case 0x2D where it.dropFirst().first == 0x2D:
            if let nl = it.firstIndex(of: 0x0A) { it = it[it.index(after: nl)...] } else { return true }
        case 0x2F where it.dropFirst().first == 0x2A:
            it = it.dropFirst(2)
            var found = false
            while let d = it.first {
                it = it.dropFirst()
                if d == 0x2A && it.first == 0x2F { it = it.dropFirst(); found = true; break }
            }
            if !found { return true }
        default:
            return false
        }
    }
    return true
}

extension String {
    func trimmingSQLWhitespace() -> String {
        var s = Substring(self)
        while let c = s.last, c == " " || c == "\n" || c == "\t" || c == "\r" || c == ";" { s = s.dropLast() }
        while let c = s.first, c == " " || c == "\n" || c == "\t" || c == "\r" { s = s.dropFirst() }
        return String(s)
    }
}
