import Foundation

/// The extension's week and fiscal-calendar functions, for `WeekCalendar` and
/// `FiscalCalendar`: one private in-memory connection (the same C code as the
/// SQL functions, with its locale, zone and label caches), used by one caller at a time.
final class WeekEngine: @unchecked Sendable {
    static let shared = WeekEngine()

    private let lock = NSLock()
    private var db: Database?

    /// Runs `body` on the engine's connection, opened on first use.
    func run<T>(_ body: (Database) throws -> T) throws -> T {
        lock.lock()
        defer { lock.unlock() }
        if db == nil { db = try Database() }
        return try body(db!)
    }
}
