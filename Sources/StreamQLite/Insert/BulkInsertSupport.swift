import CStreamQLite
import Foundation

/// A value type that binds its own columns, the fastest way to bulk insert.
///
/// ``databaseColumns`` names the columns; ``bind(to:)`` binds one value per
/// column, in that order, with no key lookups at all:
///
/// ```swift
/// struct Todo: RowEncodable {
///     var id: Int64, title: String, done: Bool, score: Double?
///     static let databaseColumns = ["id", "title", "done", "score"]
///     func bind(to row: inout RowBinder) throws {
///         row.bind(id); row.bind(title); row.bind(done); row.bind(score)
///     }
/// }
/// try db.insert(contentsOf: tasks, into: "tasks")
/// ```
public protocol RowEncodable {
    /// The columns ``bind(to:)`` binds, in order.
    static var databaseColumns: [String] { get }
    /// Binds one value per column of ``databaseColumns``, in order.
    func bind(to row: inout RowBinder) throws
}

/// Binds the values of one row of a bulk insert, in column order; see ``RowEncodable``.
///
/// Binding more values than there are columns, fewer, or a NaN throws an
/// ``InsertError`` naming the row and the column.
public struct RowBinder {
    @usableFromInline let stmt: OpaquePointer
    @usableFromInline let columns: [String]
    @usableFromInline let base: Int32
    @usableFromInline var position = 0
    @usableFromInline var failure: String?
    /// Where TEXT values are copied for `SQLITE_STATIC` binding; nil: SQLite copies them.
    @usableFromInline let arena: BindArena?

    @usableFromInline
    init(stmt: OpaquePointer, columns: [String], base: Int32, arena: BindArena? = nil) {
        self.stmt = stmt
        self.columns = columns
        self.base = base
        self.arena = arena
    }

    @inlinable
    mutating func next() -> Int32? {
        guard position < columns.count else {
            if failure == nil { failure = "more values bound than the \(columns.count) columns of databaseColumns" }
            return nil
        }
        position += 1
        return base &+ Int32(truncatingIfNeeded: position)
    }

    /// Binds NULL.
    @inlinable
    public mutating func bindNull() {
        if let i = next() { sqlite3_bind_null(stmt, i) }
    }
    /// Binds an integer.
    @inlinable
    public mutating func bind(_ value: Int64) {
        if let i = next() { sqlite3_bind_int64(stmt, i, value) }
    }
    /// Binds an integer.
    @inlinable
    public mutating func bind(_ value: Int) {
        if let i = next() { sqlite3_bind_int64(stmt, i, Int64(value)) }
    }
    /// Binds `true` as 1 and `false` as 0.
    @inlinable
    public mutating func bind(_ value: Bool) {
        if let i = next() { sqlite3_bind_int64(stmt, i, value ? 1 : 0) }
    }
    /// Binds a REAL; NaN is an error (SQLite would silently store NULL).
    @inlinable
    public mutating func bind(_ value: Double) {
        guard let i = next() else { return }
        if value.isNaN {
            if failure == nil { failure = "NaN cannot be stored (column '\(columns[position - 1])')" }
            return
        }
        sqlite3_bind_double(stmt, i, value)
    }
    /// Binds TEXT.
    @inlinable
    public mutating func bind(_ value: String) {
        if let i = next() { sqBindText(stmt, i, value, arena: arena) }
    }
    /// Binds a BLOB.
    @inlinable
    public mutating func bind(_ value: [UInt8]) {
        if let i = next() { sqBindBlob(stmt, i, value) }
    }
    /// Binds a date as the library's one date text (`2024-05-01 12:00:00.250`, UTC),
    /// the same text every other API writes.
    public mutating func bind(_ value: Date) {
        if let i = next() { sqBindText(stmt, i, sqliteDateString(value), arena: arena) }
    }
    /// Binds the value, or NULL.
    public mutating func bind(_ value: Date?) { if let value { bind(value) } else { bindNull() } }
    /// Binds the value, or NULL.
    @inlinable public mutating func bind(_ value: Int64?) { if let value { bind(value) } else { bindNull() } }
    /// Binds the value, or NULL.
    @inlinable public mutating func bind(_ value: Int?) { if let value { bind(value) } else { bindNull() } }
    /// Binds the value, or NULL.
    @inlinable public mutating func bind(_ value: Bool?) { if let value { bind(value) } else { bindNull() } }
    /// Binds the value, or NULL.
    @inlinable public mutating func bind(_ value: Double?) { if let value { bind(value) } else { bindNull() } }
    /// Binds the value, or NULL.
    @inlinable public mutating func bind(_ value: String?) { if let value { bind(value) } else { bindNull() } }
    /// Binds the value, or NULL.
    @inlinable public mutating func bind(_ value: [UInt8]?) { if let value { bind(value) } else { bindNull() } }
}

/// Memory for the TEXT values of one batch of a bulk insert, bound with
/// `SQLITE_STATIC`: SQLite reads them in place when the batch statement steps.
///
/// `SQLITE_TRANSIENT` makes SQLite free the parameter's previous buffer and
/// `malloc` a new one for every bound string (about 600 instructions per
/// value, most of a 3-column row's binding cost); here a string costs a
/// bump-pointer copy. The batch loop calls ``reset()`` once the statement has
/// run; before a statement steps again every one of its parameters is bound
/// anew, so no parameter ever points at recycled memory when SQLite reads it.
@usableFromInline
final class BindArena {
    // Unchecked: touched twice per bound string; only the batch loop's thread uses an arena.
    @exclusivity(unchecked) @usableFromInline var cursor: UnsafeMutablePointer<UInt8>
    @exclusivity(unchecked) @usableFromInline var end: UnsafeMutablePointer<UInt8>
    /// Standard blocks (`blockSize` bytes); `blocks[current]` is being filled. Kept across resets.
    private var blocks: [UnsafeMutablePointer<UInt8>]
    private var current = 0
    /// Values too large for a block, freed on reset.
    private var large: [UnsafeMutablePointer<UInt8>] = []
    private static let blockSize = 64 * 1024

    @usableFromInline
    init() {
        let first = UnsafeMutablePointer<UInt8>.allocate(capacity: Self.blockSize)
        blocks = [first]
        cursor = first
        end = first + Self.blockSize
    }

    deinit {
        for b in blocks { b.deallocate() }
        for b in large { b.deallocate() }
    }

    /// Copies `n` bytes and returns their stable address (valid until ``reset()``); never nil, even for `n == 0`.
    @inlinable @inline(__always)
    func copy(_ source: UnsafeRawPointer, _ n: Int) -> UnsafePointer<UInt8> {
        if end - cursor >= n {
            let p = cursor
            UnsafeMutableRawPointer(p).copyMemory(from: source, byteCount: n)
            cursor = p + n
            return UnsafePointer(p)
        }
        return copySlow(source, n)
    }

    @usableFromInline
    func copySlow(_ source: UnsafeRawPointer, _ n: Int) -> UnsafePointer<UInt8> {
        if n > Self.blockSize / 4 {
            let p = UnsafeMutablePointer<UInt8>.allocate(capacity: n)
            UnsafeMutableRawPointer(p).copyMemory(from: source, byteCount: n)
            large.append(p)
            return UnsafePointer(p)
        }
        current += 1
        if current == blocks.count { blocks.append(.allocate(capacity: Self.blockSize)) }
        cursor = blocks[current]
        end = cursor + Self.blockSize
        UnsafeMutableRawPointer(cursor).copyMemory(from: source, byteCount: n)
        let p = cursor
        cursor += n
        return UnsafePointer(p)
    }

    /// Recycles every byte handed out (call once the statements bound to them have run).
    @usableFromInline
    func reset() {
        current = 0
        cursor = blocks[0]
        end = cursor + Self.blockSize
        if !large.isEmpty {
            for b in large { b.deallocate() }
            large.removeAll(keepingCapacity: true)
        }
    }
}

/// Binds a Swift string as TEXT: copied into `arena` and bound `SQLITE_STATIC`, or,
/// without an arena, bound `SQLITE_TRANSIENT` (SQLite copies it).
@inlinable @inline(__always)
func sqBindText(_ stmt: OpaquePointer, _ index: Int32, _ value: String, arena: BindArena?) {
    guard let arena else { sqBindText(stmt, index, value); return }
    let done: Void? = value.utf8.withContiguousStorageIfAvailable { p in
        let bytes = arena.copy(UnsafeRawPointer(p.baseAddress ?? UnsafePointer(bitPattern: 1)!), p.count)
        _ = sqlite3_bind_text64(stmt, index, UnsafeRawPointer(bytes).assumingMemoryBound(to: CChar.self),
                                sqlite3_uint64(p.count), nil /* SQLITE_STATIC */, UInt8(SQLITE_UTF8))
    }
    if done == nil { sqBindText(stmt, index, value) }  // not contiguous UTF-8: SQLite copies
}

/// Binds bytes as a BLOB (SQLite copies them).
@usableFromInline
func sqBindBlob(_ stmt: OpaquePointer, _ index: Int32, _ value: [UInt8]) {
    value.withUnsafeBytes {
        _ = sqlite3_bind_blob64(stmt, index, $0.baseAddress ?? UnsafeRawPointer(bitPattern: 1), sqlite3_uint64($0.count),
                                streamTransientDestructor)
    }
}

/// Binds a Swift string as TEXT without an intermediate copy when the string is native UTF-8.
@usableFromInline
func sqBindText(_ stmt: OpaquePointer, _ index: Int32, _ value: String) {
    let done: Void? = value.utf8.withContiguousStorageIfAvailable { p in
        _ = sqlite3_bind_text64(stmt, index, UnsafeRawPointer(p.baseAddress ?? UnsafePointer(bitPattern: 1)!)
                                    .assumingMemoryBound(to: CChar.self),
                                sqlite3_uint64(p.count), streamTransientDestructor, UInt8(SQLITE_UTF8))
    }
    if done == nil {
        let bytes = Array(value.utf8)
        bytes.withUnsafeBufferPointer { p in
            _ = sqlite3_bind_text64(stmt, index, UnsafeRawPointer(p.baseAddress ?? UnsafePointer(bitPattern: 1)!)
                                        .assumingMemoryBound(to: CChar.self),
                                    sqlite3_uint64(p.count), streamTransientDestructor, UInt8(SQLITE_UTF8))
        }
    }
}

/// Quotes an SQL identifier: `tasks` → `"tasks"`, `a"b` → `"a""b"`.
func sqQuoteIdentifier(_ name: String) -> String {
    "\"" + name.replacingAll("\"", with: "\"\"") + "\""
}

extension String {
    func replacingAll(_ target: Character, with replacement: String) -> String {
        var out = ""
        out.reserveCapacity(utf8.count)
        for c in self { if c == target { out += replacement } else { out.append(c) } }
        return out
    }
}

/// One column of a table, from `PRAGMA table_info`.
struct TableColumn {
    var name: String
    var declaredType: String
    var notNull: Bool
    var primaryKey: Int
    var hasDefault: Bool

    /// Declared JSON (`JSON`, `JSONB`, `JSON TEXT`…): nested values are stored as JSON text.
    var isJSON: Bool { declaredType.uppercased().contains("JSON") }
    /// Declared as a date or time (`DATE`, `DATETIME`, `TIMESTAMP`, `TIME`).
    /// The ingest core's rule (`sq_ingest_type_is_date`), so bulk inserts and imports agree.
    var isDate: Bool {
        var t = declaredType
        return t.withUTF8 { buf in
            buf.withMemoryRebound(to: CChar.self) { sq_ingest_type_is_date($0.baseAddress, Int32($0.count)) != 0 }
        }
    }
}

extension Database {
    /// The columns of `table` (`schema.table` allowed), or an error if there is no such table.
    func sqTableColumns(_ table: String, function: String) throws -> [TableColumn] {
        var stmt: OpaquePointer?
        let (schema, name) = sqSplitQualifiedName(table)
        let sql = "SELECT name, type, \"notnull\", pk, dflt_value IS NOT NULL FROM pragma_table_info(?1, ?2)"
        guard sqlite3_prepare_v2(handle, sql, -1, &stmt, nil) == SQLITE_OK, let stmt else {
            throw DatabaseError(code: sqlite3_errcode(handle), message: String(cString: sqlite3_errmsg(handle)))
        }
        defer { sqlite3_finalize(stmt) }
        sqBindText(stmt, 1, name)
        if let schema { sqBindText(stmt, 2, schema) } else { sqlite3_bind_null(stmt, 2) }
        var columns: [TableColumn] = []
        while sqlite3_step(stmt) == SQLITE_ROW {
            columns.append(TableColumn(
                name: String(cString: sqlite3_column_text(stmt, 0)),
                declaredType: sqlite3_column_text(stmt, 1).map { String(cString: $0) } ?? "",
                notNull: sqlite3_column_int(stmt, 2) != 0,
                primaryKey: Int(sqlite3_column_int(stmt, 3)),
                hasDefault: sqlite3_column_int(stmt, 4) != 0))
        }
        if columns.isEmpty {
            throw DatabaseError(code: SQLITE_ERROR, message: "\(function): no such table: \(table)")
        }
        return columns
    }

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

func sqSplitQualifiedName(_ table: String) -> (schema: String?, name: String) {
    if let dot = table.firstIndex(of: "."), !table.hasPrefix("\"") {
        return (String(table[..<dot]), String(table[table.index(after: dot)...]))
    }
    return (nil, table)
}

func sqQuoteQualifiedName(_ table: String) -> String {
    let (schema, name) = sqSplitQualifiedName(table)
    if let schema { return sqQuoteIdentifier(schema) + "." + sqQuoteIdentifier(name) }
    return sqQuoteIdentifier(name)
}

/// Extracts the column from an SQLite constraint message such as
/// `UNIQUE constraint failed: tasks.id` or `NOT NULL constraint failed: tasks.title`.
func constraintColumn(in message: String) -> String? {
    // Only NOT NULL and UNIQUE (and PRIMARY KEY, reported as UNIQUE) name columns, as
    // `table.column`; a CHECK names its expression or constraint name, which is no column.
    guard let range = message.range(of: "NOT NULL constraint failed: ") ?? message.range(of: "UNIQUE constraint failed: ")
    else { return nil }
    let rest = message[range.upperBound...]
    let first = rest.split(separator: ",").first.map { $0.trimmingSpaces } ?? ""
    if let dot = first.lastIndex(of: ".") { return String(first[first.index(after: dot)...]) }
    return first.isEmpty ? nil : String(first)
}

extension Substring {
    var trimmingSpaces: Substring {
        var s = self
        while s.first == " " { s = s.dropFirst() }
        while s.last == " " { s = s.dropLast() }
        return s
    }
}
