/// A `Sendable` handle on one connection for async code: every access is serialized by the actor.
///
/// ```swift
/// let store = try DatabaseActor(path: "tasks.db")
/// let open = try await store.read { db in try db.rows(Todo.self, "SELECT * FROM tasks WHERE done = 0").collect() }
/// try await store.write { db in try db.execute("UPDATE tasks SET done = 1 WHERE id = ?", 3) }
/// ```
public actor DatabaseActor {
    let database: Database

    /// Opens the database at `path` (see ``Database/init(path:flags:configuration:)``).
    public init(path: String = ":memory:", flags: Database.OpenFlags = .default,
                configuration: Database.Configuration = Database.Configuration()) throws {
        database = try Database(path: path, flags: flags, configuration: configuration)
        interruptHandle = database.interruptHandle
    }

    /// Runs `body` with the connection; nothing else uses it meanwhile.
    public func read<T: Sendable>(_ body: @Sendable (Database) throws -> T) throws -> T {
        try body(database)
    }

    /// Runs `body` in an `IMMEDIATE` transaction (rolled back when it throws): the write
    /// lock is taken first, so two writers on one WAL file wait for each other (busy
    /// timeout) instead of failing with `SQLITE_BUSY`.
    public func write<T: Sendable>(_ body: @Sendable (Database) throws -> T) throws -> T {
        try database.transaction { try body(database) }
    }

    /// Interrupts the running statement from outside the actor.
    public nonisolated let interruptHandle: Database.InterruptHandle
}
