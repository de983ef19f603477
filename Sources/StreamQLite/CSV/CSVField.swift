import CStreamQLite
import Foundation

/// A field of a CSV record, as ``CSVRowCursor`` reads it for a type without a rule of its
/// own (``CSVFieldPlan``).
@usableFromInline
struct CSVField {
    /// The field's UTF-8 bytes (valid only during the call; quotes removed, `""` made `"`),
    /// or nil for a NULL field (an empty unquoted field, or the NULL text).
    @usableFromInline let bytes: UnsafeBufferPointer<UInt8>?

    @inlinable init(bytes: UnsafeBufferPointer<UInt8>?) { self.bytes = bytes }

    /// The field through ``DatabaseValueConvertible/fromDatabaseValue(_:)``: a NULL field as
    /// `.null`; text as `.text`, or — when the type refuses the text and it is a number —
    /// as `.integer` (`-?[0-9]+` within 64 bits), else `.real`. So `Decimal`, `URL`, `UUID`
    /// and types storing text read their text, and a type storing numbers its number.
    /// Errors name `named` (for an optional, its wrapped type).
    @inlinable
    func decodeThroughDatabaseValue<T: DatabaseValueConvertible>(_ type: T.Type, named: Any.Type) throws -> T {
        guard let b = bytes else {
            if let v = T.fromDatabaseValue(.null) { return v }
            throw CSVFieldError(bytes: nil, type: named)
        }
        if let v = T.fromDatabaseValue(.text(CSVText.string(b))) { return v }
        if let i = CSVText.integer(b, as: Int64.self), let v = T.fromDatabaseValue(.integer(i)) { return v }
        if let d = CSVText.double(b), let v = T.fromDatabaseValue(.real(d)) { return v }
        throw CSVFieldError(bytes: b, type: named)
    }
}

/// Why a CSV field does not convert to a type; ``CSVRowCursor`` turns it into a
/// ``CSVImportError`` naming line, byte, record, field and header name, and
/// ``CSVDecodableCursor`` into a `DecodingError` with the same words.
@usableFromInline
struct CSVFieldError: Error, Equatable {
    /// `'text' is not a T` (the text cut at 200 bytes; for a number type, why the number
    /// does not fit when it is one), or `NULL for a non-optional T`.
    var message: String

    init(message: String) { self.message = message }

    /// The error for a field (nil: NULL) not converting to `type`: `'text' is not a T`, or
    /// `NULL for a non-optional T`.
    @usableFromInline
    init(bytes: UnsafeBufferPointer<UInt8>?, type: Any.Type) {
        if let b = bytes {
            let why = type is any BinaryFloatingPoint.Type || type is any FixedWidthInteger.Type
                ? CSVText.refusal(b) : ""
            message = "'\(String(decoding: b.prefix(200), as: UTF8.self))' is not a \(type)\(why)"
        } else {
            message = "NULL for a non-optional \(type)"
        }
    }
}

/// The one set of CSV field text → value conversions, used by ``CSVDecodableCursor``
/// (`Decodable`) and ``CSVRowCursor`` (``RowDecodable``): nil when the text does not convert.
@usableFromInline
enum CSVText {
    /// The field's text as a number by the one rule of the C core (`sq_number.h`), which
    /// the typed tables and `importCSV` apply too: the kind (`SQ_NUMBER_*`) and the value.
    @usableFromInline
    static func number(_ b: UnsafeBufferPointer<UInt8>) -> (kind: Int32, value: sq_number) {
        var v = sq_number()
        guard let base = b.baseAddress else { return (SQ_NUMBER_NOT, v) }
        // Unprotected: the C rule writes one sq_number; no stack canary in every caller.
        let k = _withUnprotectedUnsafeMutablePointer(to: &v) { out in
            UnsafeRawPointer(base).withMemoryRebound(to: CChar.self, capacity: b.count) { sq_number_text($0, b.count, out) }
        }
        return (k, v)
    }

    /// `-?[0-9]+` within 64 bits (``number(_:)``, not a negative zero), then within `T`.
    @usableFromInline
    static func integer<T: FixedWidthInteger>(_ b: UnsafeBufferPointer<UInt8>, as type: T.Type) -> T? {
        let n = number(b)
        return n.kind == SQ_NUMBER_INTEGER ? T(exactly: n.value.i) : nil
    }

    /// A number that a `REAL` keeps (``number(_:)``): no `NaN`, `inf`, hex, spaces,
    /// nothing beyond the range of a double or below its smallest normal value, no negative zero.
    @usableFromInline
    static func double(_ b: UnsafeBufferPointer<UInt8>) -> Double? {
        let n = number(b)
        return n.kind == SQ_NUMBER_INTEGER || n.kind == SQ_NUMBER_REAL ? n.value.r : nil
    }

    /// ``double(_:)`` rounded to a `Float`, when that is finite and normal (or a zero written as one).
    @usableFromInline
    static func float(_ b: UnsafeBufferPointer<UInt8>) -> Float? {
        guard let d = double(b) else { return nil }
        let f = Float(d)
        return f.isFinite && (f.isNormal || d == 0) ? f : nil
    }

    /// Why a number type refuses the text, when the one rule says more than "not a number":
    /// `" (it is beyond the range of a REAL …)"`, or "".
    static func refusal(_ b: UnsafeBufferPointer<UInt8>) -> String {
        let k = number(b).kind
        guard k != SQ_NUMBER_NOT, k != SQ_NUMBER_INTEGER, k != SQ_NUMBER_REAL else { return "" }
        return " (it \(String(cString: sq_number_refusal(k))))"
    }

    /// `true`/`false`/`1`/`0`, ASCII case ignored.
    @usableFromInline
    static func bool(_ b: UnsafeBufferPointer<UInt8>) -> Bool? {
        guard let base = b.baseAddress else { return nil }
        let p = UnsafeRawPointer(base).assumingMemoryBound(to: CChar.self)
        switch b.count {
        case 1 where b[0] == UInt8(ascii: "1"): return true
        case 1 where b[0] == UInt8(ascii: "0"): return false
        case 4 where sqlite3_strnicmp(p, "true", 4) == 0: return true
        case 5 where sqlite3_strnicmp(p, "false", 5) == 0: return false
        default: return nil
        }
    }

    /// The one date codec (`sq_date.h`): every form SQLite's date functions read.
    @usableFromInline
    static func date(_ b: UnsafeBufferPointer<UInt8>) -> Date? { parseSQLiteDate(b) }

    /// Base64.
    @usableFromInline
    static func data(_ b: UnsafeBufferPointer<UInt8>) -> Data? { Data(base64Encoded: Data(b)) }

    @usableFromInline
    static func string(_ b: UnsafeBufferPointer<UInt8>) -> String { String(decoding: b, as: UTF8.self) }
}
