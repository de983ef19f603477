import CStreamQLite

/// One SQLite value: NULL, INTEGER, REAL, TEXT or BLOB.
///
/// The slow, general path of ``DatabaseValueConvertible``: user types convert
/// to and from it; the built-in types read and bind SQLite values directly.
public enum DatabaseValue: Sendable, Hashable, CustomStringConvertible {
    /// SQL NULL.
    case null
    /// A 64-bit signed INTEGER.
    case integer(Int64)
    /// An IEEE 754 double (REAL).
    case real(Double)
    /// TEXT, as a Swift string (SQLite's bytes decoded as UTF-8).
    case text(String)
    /// A BLOB's bytes.
    case blob([UInt8])

    /// Reads a protected or unprotected `sqlite3_value`.
    public init(sqliteValue v: OpaquePointer) {
        switch sqlite3_value_type(v) {
        case SQLITE_INTEGER: self = .integer(sqlite3_value_int64(v))
        case SQLITE_FLOAT: self = .real(sqlite3_value_double(v))
        case SQLITE_TEXT:
            let n = Int(sqlite3_value_bytes(v))
            self = .text(sqlite3_value_text(v).map { String(decoding: UnsafeBufferPointer(start: $0, count: n), as: UTF8.self) } ?? "")
        case SQLITE_BLOB:
            let n = Int(sqlite3_value_bytes(v))
            if let p = sqlite3_value_blob(v), n > 0 {
                self = .blob(Array(UnsafeRawBufferPointer(start: p, count: n)))
            } else {
                self = .blob([])
            }
        default: self = .null
        }
    }

    /// The SQLite storage class name: `NULL`, `INTEGER`, `REAL`, `TEXT` or `BLOB`.
    public var storageClass: String {
        switch self {
        case .null: "NULL"
        case .integer: "INTEGER"
        case .real: "REAL"
        case .text: "TEXT"
        case .blob: "BLOB"
        }
    }

    /// The value as SQL would show it: `NULL`, `42`, `'text'`, `x'00ff'`.
    public var description: String {
        switch self {
        case .null: return "NULL"
        case .integer(let i): return String(i)
        case .real(let d): return String(d)
        case .text(let s):
            let short = s.count > 40 ? String(s.prefix(40)) + "…" : s
            var quoted = "'"
            for c in short { quoted += c == "'" ? "''" : String(c) }
            return quoted + "'"
        case .blob(let b):
            let hex = "0123456789abcdef".utf8.map { $0 }
            var out = "x'"
            for byte in b.prefix(20) {
                out.unicodeScalars.append(Unicode.Scalar(hex[Int(byte >> 4)]))
                out.unicodeScalars.append(Unicode.Scalar(hex[Int(byte & 15)]))
            }
            return out + (b.count > 20 ? "…'" : "'")
        }
    }
}

extension DatabaseValue: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { self }
    public static func fromDatabaseValue(_ value: DatabaseValue) -> DatabaseValue? { value }
    public static func _decode(sqliteValue v: OpaquePointer) throws -> DatabaseValue { DatabaseValue(sqliteValue: v) }
    public static func _decode(statement: OpaquePointer, column: Int32) throws -> DatabaseValue {
        DatabaseValue(sqliteValue: sqlite3_column_value(statement, column))
    }

    public func _bind(to statement: OpaquePointer, at index: Int32) -> Int32 {
        switch self {
        case .null: return sqlite3_bind_null(statement, index)
        case .integer(let i): return sqlite3_bind_int64(statement, index, i)
        case .real(let d): return sqlite3_bind_double(statement, index, d)
        case .text(let s): return s._bind(to: statement, at: index)
        case .blob(let b): return b._bind(to: statement, at: index)
        }
    }

    public func _setResult(of context: OpaquePointer) {
        switch self {
        case .null: sqlite3_result_null(context)
        case .integer(let i): sqlite3_result_int64(context, i)
        case .real(let d): sqlite3_result_double(context, d)
        case .text(let s): s._setResult(of: context)
        case .blob(let b): b._setResult(of: context)
        }
    }
}

/// What a failed conversion says: `expected INTEGER, found TEXT 'abc'`.
@usableFromInline
func conversionFailure(_ expected: String, _ v: OpaquePointer) -> DatabaseError {
    DatabaseError(code: SQLITE_MISMATCH, message: "expected \(expected), found \(DatabaseValue(sqliteValue: v).storageClassAndValue)")
}

extension DatabaseValue {
    var storageClassAndValue: String {
        self == .null ? "NULL" : "\(storageClass) \(description)"
    }
}
