import Foundation

/// A shared way to read a database from async code: ``DatabaseActor`` (one connection) and
/// ``DatabasePool`` (one writer and parallel readers).
///
/// Code written against `some DatabaseReader` runs on either; the streamed outputs
/// (``jsonChunks(_:_:options:chunksAhead:stallTimeout:as:)``,
/// ``writeJSON(_:_:options:chunksAhead:stallTimeout:to:)``, ``csvChunks(_:_:options:chunksAhead:stallTimeout:as:)``,
/// ``writeCSV(_:_:options:chunksAhead:stallTimeout:to:)``) are written once, here, for both.
///
/// ```swift
/// func openTasks(in store: some DatabaseReader) async throws -> Int {
///     try await store.read { db in try db.value(Int.self, "SELECT count(*) FROM tasks WHERE NOT done") ?? 0 }
/// }
/// ```
public protocol DatabaseReader: Sendable {
    /// Runs `body` with a connection and returns its result.
    ///
    /// - Parameter body: The reads.
    /// - Returns: What `body` returned.
    /// - Throws: What `body` threw, or what getting a connection threw.
    func read<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T

    /// Runs `body` with a connection on a thread of its own, where it may block — a
    /// streamed result waiting for a slow consumer — without holding up a task executor.
    ///
    /// ``DatabasePool``: a reader's thread, whatever thread asks. ``DatabaseActor``: a thread
    /// started for the call, with the actor's connection; the actor's other work waits
    /// until `body` returns. Cancelling the calling task interrupts `body`'s statement,
    /// through the library's progress handler on that connection (one set through
    /// ``Database/sqliteHandle`` is replaced: see ``DatabaseActor/readOnOwnThread(_:)``).
    ///
    /// - Parameter body: The reads, which may block.
    /// - Returns: What `body` returned.
    /// - Throws: What `body` threw, what getting a connection threw, or `CancellationError`.
    func readOnOwnThread<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T
}

/// A ``DatabaseReader`` that also writes: ``DatabaseActor`` and ``DatabasePool``.
///
/// ```swift
/// func finish(_ id: Int, in store: some DatabaseWriter) async throws {
///     try await store.write { db in try db.execute("UPDATE tasks SET done = 1 WHERE id = ?", id) }
/// }
/// ```
public protocol DatabaseWriter: DatabaseReader {
    /// Runs `body` in an `IMMEDIATE` transaction: committed when it returns, rolled back
    /// when it throws.
    ///
    /// - Parameter body: The writes, in one transaction.
    /// - Returns: What `body` returned.
    /// - Throws: What `body` threw (after the rollback), or ``DatabaseError`` from the commit.
    func write<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T

    /// Runs `body` on the writing connection outside a transaction (schema set-up,
    /// `PRAGMA`s, `VACUUM`, or transactions of your own).
    ///
    /// - Parameter body: The work, in autocommit mode.
    /// - Returns: What `body` returned.
    /// - Throws: What `body` threw.
    func writeWithoutTransaction<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T
}
