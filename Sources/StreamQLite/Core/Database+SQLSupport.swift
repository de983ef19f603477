import CStreamQLite

extension Database {
    /// Runs `sql` (no parameters, no rows expected).
    func sqExecute(_ sql: String) throws {
        var err: UnsafeMutablePointer<CChar>?
        let rc = sqlite3_exec(handle, sql, nil, nil, &err)
        if rc != SQLITE_OK {
            let message = err.map { String(cString: $0) } ?? String(cString: sqlite3_errmsg(handle))
            sqlite3_free(err)
            throw DatabaseError(code: rc, extendedCode: sqlite3_extended_errcode(handle), message: message, sql: sql)
        }
    }

    func sqPrepare(_ sql: String) throws -> OpaquePointer {
        var stmt: OpaquePointer?
        let rc = sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &stmt, nil)
        guard rc == SQLITE_OK, let stmt else {
            throw DatabaseError(code: rc, message: String(cString: sqlite3_errmsg(handle)) + " in: \(sql.prefix(200))")
        }
        return stmt
    }

    var sqLastErrorMessage: String { String(cString: sqlite3_errmsg(handle)) }
}
