import CStreamQLite

/// Thrown inside the encoder; turned into an ``InsertError`` with the row index by the caller.
@usableFromInline
struct RowEncodingFailure: Error {
    var column: String?
    var message: String
}

/// A bulk insert failed; nothing of it was written.
public struct InsertError: Error, CustomStringConvertible {
    /// The table inserted into.
    public var table: String
    /// The 0-based index of the offending element of the sequence.
    public var row: Int
    /// The column (or property) concerned, when known.
    public var column: String?
    /// What went wrong (SQLite's message for constraint violations).
    public var message: String
    /// SQLite's extended result code, when SQLite reported the error.
    public var sqliteCode: Int32?

    /// The error as one line: table, row, column, message.
    public var description: String {
        "insert into \(table): row \(row)" + (column.map { ", column '\($0)'" } ?? "") + ": \(message)"
    }
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
