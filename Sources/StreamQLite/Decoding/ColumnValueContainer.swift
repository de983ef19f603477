import CStreamQLite
import Foundation

/// One column read as a single value: scalars through ``DatabaseValueConvertible``,
/// anything else (a wrapped nested value) through the column's JSON.
///
/// Serves both a row type that is itself a single value (`RowDecoder.singleValueContainer()`)
/// and a nested value's wrapper inside a JSON column (``JSONColumnDecoder/singleValueContainer()``),
/// which also reads the JSON text `null` as nil and stops reading once its row is over.
struct ColumnValueContainer: SingleValueDecodingContainer {
    let statement: Statement
    let column: Int32
    /// The decoder of the JSON column this value is nested in, or nil for a row's own column.
    let json: JSONColumnDecoder?

    var codingPath: [any CodingKey] { json?.codingPath ?? [] }
    var stmt: OpaquePointer { statement.handle }

    /// SQL NULL; in a JSON column also the JSON text `null`.
    func decodeNil() -> Bool {
        let v: OpaquePointer = sqlite3_column_value(stmt, column)
        switch sqlite3_value_type(v) {
        case SQLITE_NULL: return true
        case SQLITE_TEXT where json != nil:
            guard sqlite3_value_bytes(v) < 64, let p = sqlite3_value_text(v) else { return false }
            let text = UnsafeBufferPointer(start: p, count: Int(sqlite3_value_bytes(v)))
            let isSpace: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }
            guard let first = text.firstIndex(where: { !isSpace($0) }), let last = text.lastIndex(where: { !isSpace($0) }) else { return false }
            return text[first...last].elementsEqual("null".utf8)
        default: return false
        }
    }

    func read<T: DatabaseValueConvertible>(_ type: T.Type) throws -> T {
        try json?.checkCurrent()
        return try T._decode(statement: stmt, column: column)
    }
    func decode(_ type: Bool.Type) throws -> Bool { try read(type) }
    func decode(_ type: String.Type) throws -> String { try read(type) }
    func decode(_ type: Double.Type) throws -> Double { try read(type) }
    func decode(_ type: Float.Type) throws -> Float { try read(type) }
    func decode(_ type: Int.Type) throws -> Int { try read(type) }
    func decode(_ type: Int8.Type) throws -> Int8 { try read(type) }
    func decode(_ type: Int16.Type) throws -> Int16 { try read(type) }
    func decode(_ type: Int32.Type) throws -> Int32 { try read(type) }
    func decode(_ type: Int64.Type) throws -> Int64 { try read(type) }
    func decode(_ type: UInt.Type) throws -> UInt { try read(type) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try read(type) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try read(type) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try read(type) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try read(type) }
    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        if let convertible = T.self as? any DatabaseValueConvertible.Type {
            try json?.checkCurrent()
            return try convertible._decode(statement: stmt, column: column) as! T
        }
        // A wrapped nested value: the column's JSON (see ``JSONColumnDecoder``).
        if let json { return try T(from: json) }
        return try JSONColumnDecoder.decode(T.self, statement: statement, column: column)
    }
}
