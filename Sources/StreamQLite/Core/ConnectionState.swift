import CStreamQLite

/// What a connection's statements share with their ``Database``: the `sqlite3`
/// handle (nil once the connection is closed) and the settings statements read.
///
/// Statements hold this rather than the `Database`: the `Database` owns its
/// statement cache, and cached statements pointing back at it strongly would
/// keep every connection that ever cached a statement alive forever.
@usableFromInline
final class ConnectionState {
    /// The `sqlite3` pointer; nil after the connection is closed.
    @exclusivity(unchecked) @usableFromInline var handle: OpaquePointer?
    /// Include bound arguments in error descriptions.
    @usableFromInline let publicStatementArguments: Bool
    /// An output writer's buffer kept between calls (taken while one runs): the JSON
    /// writer's, between `writeJSON` calls.
    @exclusivity(unchecked) var spareOutputStorage: AnyObject?

    init(publicStatementArguments: Bool) {
        self.publicStatementArguments = publicStatementArguments
    }

    /// Throws `SQLITE_MISUSE` "the connection is closed" once it is.
    @inlinable @inline(__always)
    func checkOpen(_ sql: String? = nil) throws {
        if _slowPath(handle == nil) { throw DatabaseError(code: SQLITE_MISUSE, message: "the connection is closed", sql: sql) }
    }
}
