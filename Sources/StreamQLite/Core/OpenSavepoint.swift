import CStreamQLite

/// A savepoint that is open: the one savepoint mechanism of the library.
///
/// ``Database/savepoint(_:)`` wraps a closure in one; writes whose body cannot be a
/// closure (a bulk insert holding the connection's mutex across its loop, an import
/// awaiting chunks) open one, then ``release()`` it or ``rollback()``. Names follow the
/// nesting depth (`streamqlite_sp1`, `streamqlite_sp2`, …), so nested savepoints never
/// release or roll back each other.
@usableFromInline
struct OpenSavepoint {
    @usableFromInline let db: Database
    @usableFromInline let name: String
    @usableFromInline let depth: Int

    /// Opens a savepoint (`SAVEPOINT streamqlite_spN`).
    @usableFromInline
    init(_ db: Database) throws {
        try db.checkOpen()
        depth = db.savepointDepth + 1
        name = "streamqlite_sp\(depth)"
        self.db = db
        try db.sqExecute("SAVEPOINT \(name)")
        db.savepointDepth = depth
    }

    /// Keeps what was written since it opened (`RELEASE`); on failure the savepoint is
    /// still open: call ``rollback()``.
    @usableFromInline
    func release() throws {
        try db.sqExecute("RELEASE \(name)")
        db.savepointDepth = depth - 1
    }

    /// Undoes everything written since it opened and ends it (`ROLLBACK TO`, `RELEASE`).
    @usableFromInline
    func rollback() {
        if !db.isClosed { _ = sqlite3_exec(db.handle, "ROLLBACK TO \(name); RELEASE \(name)", nil, nil, nil) }
        db.savepointDepth = depth - 1
    }
}
