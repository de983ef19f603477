import NIOConcurrencyHelpers
import StreamQLite

/// A read-only connection. `Database` is not `Sendable`; the pool hands each connection
/// to one holder at a time, which is what makes moving it between tasks and threads safe.
final class ReadConnection: @unchecked Sendable {
    let db: Database
    init(path: String) throws {
        db = try Database(path: path, flags: [.readOnly, .noMutex])
    }
}

/// A fixed set of read-only connections on the WAL file: reads run in parallel with each
/// other and with the writer. `checkout` waits (suspends, never blocks a thread) when all
/// are in use; waiters are served first come, first served.
final class ReaderPool: Sendable {
    private struct State {
        var idle: [ReadConnection]
        var waiters: [CheckedContinuation<ReadConnection, Never>] = []
    }
    private let state: NIOLockedValueBox<State>
    let count: Int

    init(path: String, count: Int) throws {
        self.count = count
        state = NIOLockedValueBox(State(idle: try (0..<count).map { _ in try ReadConnection(path: path) }))
    }

    func checkout() async -> ReadConnection {
        if let connection = state.withLockedValue({ $0.idle.popLast() }) { return connection }
        return await withCheckedContinuation { waiter in
            let connection = state.withLockedValue { s -> ReadConnection? in
                if let c = s.idle.popLast() { return c }
                s.waiters.append(waiter)
                return nil
            }
            if let connection { waiter.resume(returning: connection) }
        }
    }

    func checkin(_ connection: ReadConnection) {
        let waiter = state.withLockedValue { s -> CheckedContinuation<ReadConnection, Never>? in
            if s.waiters.isEmpty { s.idle.append(connection); return nil }
            return s.waiters.removeFirst()
        }
        waiter?.resume(returning: connection)
    }

    /// Runs a short read (a point query, a check) right here, on the calling task's
    /// thread of Swift's cooperative pool: microseconds, no thread hop.
    func read<T: Sendable>(_ body: (Database) throws -> T) async throws -> T {
        let connection = await checkout()
        defer { checkin(connection) }
        return try body(connection.db)
    }
}
