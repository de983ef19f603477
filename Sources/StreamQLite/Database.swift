import CStreamQLite

/// A connection to an SQLite database with StreamQLite's SQL functions registered.
///
/// (Skeleton from the locale-weeks issue; the Swift library issue fills it in.)
public final class Database {
    let handle: OpaquePointer

    /// Opens the database at `path` (or `":memory:"`), creating it if needed.
    public init(path: String) throws {
        var db: OpaquePointer?
        let rc = sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nil)
        guard rc == SQLITE_OK, let db else {
            if let db { sqlite3_close_v2(db) }
            throw DatabaseError(code: rc, message: "cannot open \(path)")
        }
        handle = db
        var err: UnsafeMutablePointer<CChar>?
        let irc = sqlite3_streamqlite_init(db, &err, nil)
        if irc != SQLITE_OK {
            let msg = err.map { String(cString: $0) } ?? "streamqlite init failed"
            sqlite3_free(err)
            sqlite3_close_v2(db)
            throw DatabaseError(code: irc, message: msg)
        }
    }

    deinit { sqlite3_close_v2(handle) }

    /// Runs `sql` and returns the first column of the first row as text.
    public func scalarText(_ sql: String) throws -> String? {
        var stmt: OpaquePointer?
        guard sqlite3_prepare_v2(handle, sql, -1, &stmt, nil) == SQLITE_OK else {
            throw DatabaseError(code: sqlite3_errcode(handle), message: String(cString: sqlite3_errmsg(handle)))
        }
        defer { sqlite3_finalize(stmt) }
        switch sqlite3_step(stmt) {
        case SQLITE_ROW:
            return sqlite3_column_text(stmt, 0).map { String(cString: $0) }
        case SQLITE_DONE:
            return nil
        default:
            throw DatabaseError(code: sqlite3_errcode(handle), message: String(cString: sqlite3_errmsg(handle)))
        }
    }
}

/// An error from SQLite.
public struct DatabaseError: Error, CustomStringConvertible {
    public var code: Int32
    public var message: String
    public var description: String { "SQLite error \(code): \(message)" }
}
