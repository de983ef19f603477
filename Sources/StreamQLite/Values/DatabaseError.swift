import CStreamQLite

/// The one error type the library throws for SQLite failures and decoding failures.
///
/// It carries SQLite's result code and extended result code, SQLite's message,
/// the SQL of the statement involved and, for decoding failures, the column and
/// the Swift type that was expected. Statement arguments are only included when
/// the connection was opened with ``Database/Configuration/publicStatementArguments``.
///
/// ```swift
/// do { try db.execute("SELEKT 1") }
/// catch let error as DatabaseError { print(error.code, error.message, error.sql ?? "") }
/// ```
public struct DatabaseError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The primary result code (`SQLITE_ERROR`, `SQLITE_CONSTRAINT`, …).
    public var code: Int32
    /// The extended result code (`SQLITE_CONSTRAINT_UNIQUE`, …); equal to `code` when SQLite gave none.
    public var extendedCode: Int32
    /// SQLite's message, or the library's explanation for decoding failures.
    public var message: String
    /// The SQL of the statement that failed, when there is one.
    public var sql: String?
    /// The arguments bound to the statement, only when the connection opted in.
    public var arguments: String?
    /// The name of the column that could not be decoded.
    public var column: String?
    /// The index of the column that could not be decoded.
    public var columnIndex: Int?
    /// The Swift type that was expected for a decoding failure.
    public var expectedType: String?

    /// Creates an error from a result code and a message.
    public init(code: Int32, extendedCode: Int32? = nil, message: String, sql: String? = nil) {
        self.code = code & 0xFF
        self.extendedCode = extendedCode ?? code
        self.message = message
        self.sql = sql
    }

    /// A decoding failure (`SQLITE_MISMATCH`): the value in a column does not fit the Swift type.
    static func decoding(_ message: String, column: String?, index: Int?, type: Any.Type, sql: String?) -> DatabaseError {
        var e = DatabaseError(code: SQLITE_MISMATCH, message: message, sql: sql)
        e.column = column
        e.columnIndex = index
        e.expectedType = String(describing: type)
        return e
    }

    /// The connection's current error, with `sql`.
    static func last(_ db: OpaquePointer?, code rc: Int32? = nil, sql: String?) -> DatabaseError {
        guard let db else { return DatabaseError(code: rc ?? SQLITE_MISUSE, message: "connection is closed", sql: sql) }
        let ext = sqlite3_extended_errcode(db)
        let code = rc ?? ext
        let message = String(cString: sqlite3_errmsg(db))
        return DatabaseError(code: code, extendedCode: ext & 0xFF == code & 0xFF ? ext : code, message: message, sql: sql)
    }

    /// `SQLite error 1 (SQLITE_ERROR): no such table: t — in: SELECT * FROM t`.
    public var description: String {
        var s = "SQLite error \(code)"
        if let name = sqlite3_errstr(extendedCode) { s += " (\(String(cString: name)))" }
        s += ": "
        if let column {
            s += "column \(column)"
            if let columnIndex { s += " (index \(columnIndex))" }
            if let expectedType { s += " as \(expectedType)" }
            s += ": "
        } else if let columnIndex {
            s += "column index \(columnIndex)"
            if let expectedType { s += " as \(expectedType)" }
            s += ": "
        }
        s += message
        if let sql { s += " — in: \(sql)" }
        if let arguments { s += " — arguments: \(arguments)" }
        return s
    }
}
