/// A `Sendable` handle on one connection for async code: every access is serialized by the actor.
///
/// ```swift
/// let store = try DatabaseActor(path: "tasks.db")
/// let open = try await store.read { db in try db.rows(Todo.self, "SELECT * FROM tasks WHERE done = 0").collect() }
/// try await store.write { db in try db.execute("UPDATE tasks SET done = 1 WHERE id = ?", 3) }
/// ```
public actor DatabaseActor: DatabaseWriter {
    let database: Database
    /// Set while a streamed result (``readOnOwnThread(_:)``) has the connection on its thread.
    private var lent = false
    /// Calls waiting for the connection to come back, in order.
    private var waiting: [UnsafeContinuation<Void, Never>] = []

    /// Opens the database at `path` (see ``Database/init(path:flags:configuration:)``).
    public init(path: String = ":memory:", flags: Database.OpenFlags = .default,
                configuration: Database.Configuration = Database.Configuration()) throws {
        database = try Database(path: path, flags: flags, configuration: configuration)
        interruptHandle = database.interruptHandle
    }

    /// Runs `body` with the connection; nothing else uses it meanwhile.
    public func read<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        if _slowPath(lent) { await waitForConnection() }
        return try body(database)
    }

    /// Runs `body` in an `IMMEDIATE` transaction (rolled back when it throws): the write
    /// lock is taken first, so two writers on one WAL file wait for each other (busy
    /// timeout) instead of failing with `SQLITE_BUSY`.
    public func write<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        if _slowPath(lent) { await waitForConnection() }
        return try database.transaction { try body(database) }
    }

    /// Runs `body` with the connection outside a transaction (schema set-up, `PRAGMA`s,
    /// `VACUUM`, or transactions of your own).
    public func writeWithoutTransaction<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        if _slowPath(lent) { await waitForConnection() }
        return try body(database)
    }

    /// Runs `body` with the connection on a thread started for the call, where it may block
    /// (a streamed result waiting for its consumer); the actor's other calls wait until it
    /// returns. Cancelling the calling task interrupts `body`'s statement.
    ///
    /// Cancellation works through a progress handler the thread puts on the connection while
    /// `body` runs and takes off after it. SQLite keeps one progress handler a connection and
    /// cannot tell which one is set, so a handler installed through ``Database/sqliteHandle``
    /// is replaced for the call and gone after it: set it again afterwards, or run such
    /// statements through ``read(_:)``, which leaves the connection's handler alone.
    public func readOnOwnThread<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        if _slowPath(lent) { await waitForConnection() }
        lent = true
        let thread = ConnectionThread(database: database, name: "StreamQLite DatabaseActor")
        let result: Result<T, any Error>
        do { result = .success(try await thread.run(body)) } catch { result = .failure(error) }
        // The connection is back once the thread has ended (its progress handler removed).
        await thread.stopAndWait()
        lent = false
        if !waiting.isEmpty { waiting.removeFirst().resume() }
        return try result.get()
    }

    /// Waits until a streamed result gives the connection back (first come, first served).
    private func waitForConnection() async {
        while lent {
            await withUnsafeContinuation { waiting.append($0) }
        }
    }

    /// Interrupts the running statement from outside the actor.
    public nonisolated let interruptHandle: Database.InterruptHandle
}
