import CStreamQLite
import Foundation

extension Data: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { .blob([UInt8](self)) }
    public static func fromDatabaseValue(_ value: DatabaseValue) -> Data? { [UInt8].fromDatabaseValue(value).map { Data($0) } }
    /// BLOB (or TEXT, as its UTF-8 bytes).
    public static func _decode(statement: OpaquePointer, column: Int32) throws -> Data {
        Data(try columnBytes(statement, column))
    }
    /// Binds the bytes in place; SQLite makes its one copy.
    public func _bind(to statement: OpaquePointer, at index: Int32) -> Int32 {
        withUnsafeBytes { buf in
            sqlite3_bind_blob64(statement, index, buf.baseAddress ?? UnsafeRawPointer(bitPattern: 1), sqlite3_uint64(buf.count), sqliteTransient)
        }
    }
}

/// Dates are stored as UTC text `yyyy-MM-dd HH:mm:ss.SSS`, the format SQLite's
/// date functions read and that sorts chronologically.
///
/// Reading accepts that format and its ISO-8601 variants (`T` separator,
/// optional seconds and fraction, `Z` or `±HH:MM`, a bare `yyyy-MM-dd`), and
/// INTEGER/REAL by the rule SQL's week functions apply (SQLite's `'auto'` rule): a Julian
/// day from 0 to 5373484.5 (`2455563.5` is 2011-01-02, as SQLite reads it), else Unix
/// seconds (`1293926400`). Any other text, and a number outside the years 0000-9999, throws.
extension Date: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { .text(sqliteDateString(self)) }
    public static func fromDatabaseValue(_ value: DatabaseValue) -> Date? {
        switch value {
        case .integer(let i): dateFromNumber(Double(i))
        case .real(let d): dateFromNumber(d)
        case .text(let s): parseSQLiteDate(Array(s.utf8))
        default: nil
        }
    }
    public static func _decode(sqliteValue v: OpaquePointer) throws -> Date {
        switch sqlite3_value_type(v) {
        case SQLITE_INTEGER, SQLITE_FLOAT:
            if let d = dateFromNumber(sqlite3_value_double(v)) { return d }
            throw DatabaseError(code: SQLITE_MISMATCH, message: "not a valid date: \(DatabaseValue(sqliteValue: v)) "
                                + "(a number is a Julian day from 0 to 5373484.5, else Unix seconds, within the years 0000-9999)")
        case SQLITE_TEXT:
            let n = Int(sqlite3_value_bytes(v))
            if let p = sqlite3_value_text(v), let d = parseSQLiteDate(UnsafeBufferPointer(start: p, count: n)) { return d }
            throw DatabaseError(code: SQLITE_MISMATCH, message: "not a valid date: \(DatabaseValue(sqliteValue: v))")
        default:
            throw conversionFailure("a date (TEXT, INTEGER or REAL)", v)
        }
    }
}

/// A stored number as a `Date` by the rule SQL's week functions apply (`sq_date.h`,
/// SQLite's `'auto'` rule): a Julian day from 0 to 5373484.5, else Unix seconds;
/// nil outside the years 0000-9999.
func dateFromNumber(_ x: Double) -> Date? {
    var seconds = 0.0
    return sq_date_number_seconds(x, &seconds) == 0 ? Date(timeIntervalSince1970: seconds) : nil
}

/// Whether the stored number `seconds` reads back as those Unix seconds by the rule of
/// ``dateFromNumber(_:)`` (not from 0 to 5373484.5, a Julian day; within 0000-9999).
func numberIsUnixSeconds(_ seconds: Double) -> Bool {
    var back = 0.0
    return sq_date_number_seconds(seconds, &back) == 0 && back == seconds
}

/// Why ``InsertOptions/DateEncoding/unixSeconds`` refuses `date`: its seconds, read back by
/// the rule of ``dateFromNumber(_:)``, would be another instant (1970-01-01 to 1970-03-04,
/// read as Julian days) or none (outside the years 0000-9999).
func unixSecondsRefusal(_ date: Date) -> String {
    let seconds = date.timeIntervalSince1970
    let why = seconds >= 0 && seconds < 5_373_484.5
        ? "a stored number from 0 to 5373484.5 is a Julian day (SQLite's 'auto' rule, which SQL and Swift apply)"
        : "a stored number is a time only within the years 0000-9999"
    return "the Date \(sqliteDateString(date)) cannot be stored as Unix seconds (\(seconds)): \(why), "
        + "so it would not read back as the same Date; store it as text (dateEncoding: .text, the default)"
}

/// The one date text of the library: `2024-05-01 12:00:00.250`, UTC, milliseconds
/// floored (a `Date` never moves to a later millisecond, second or day).
///
/// Written by the C codec (`sq_date.h`) that every path shares: binding, bulk
/// inserts, `importJSON` into date columns and dates inside nested JSON values.
func sqliteDateString(_ date: Date) -> String {
    withUnsafeTemporaryAllocation(of: CChar.self, capacity: Int(SQ_DATE_TEXT_MAX)) { buf in
        let n = Int(sq_date_format_ms(dateMilliseconds(date), buf.baseAddress!))
        return String(decoding: UnsafeRawBufferPointer(start: buf.baseAddress!, count: n), as: UTF8.self)
    }
}

/// Milliseconds since 1970, floored; saturated far outside the years 0000-9999.
///
/// Rounded to the microsecond first: a `Date` made from a millisecond text
/// (`ms / 1000` seconds) is a hair below or above it in binary, and must
/// write back as the same text.
@inline(__always)
func dateMilliseconds(_ date: Date) -> Int64 {
    let us = (date.timeIntervalSince1970 * 1_000_000).rounded()
    let limit = Double(1 << 62)  // ±146,000 years
    guard us.isFinite else { return us < 0 ? -(1 << 52) : (1 << 52) }
    return Int64(max(-limit, min(limit, us))).floorDiv(1000)
}

extension Int64 {
    /// The quotient rounded toward negative infinity.
    func floorDiv(_ d: Int64) -> Int64 {
        let q = self / d
        return (self % d != 0 && (self < 0) != (d < 0)) ? q - 1 : q
    }
}

/// Reads a time value in any form SQLite's date functions accept (the library's
/// date text, ISO 8601 with `T`, `Z` or `±HH:MM`, a bare date as midnight UTC, a
/// Julian day number); nil for anything else. The C codec of `sq_date.h`.
func parseSQLiteDate<C: RandomAccessCollection>(_ s: C) -> Date? where C.Element == UInt8, C.Index == Int {
    let parsed: Int64?? = s.withContiguousStorageIfAvailable { buf -> Int64? in
        var ms: Int64 = 0
        guard let base = buf.baseAddress, buf.count < Int(Int32.max),
              _withUnprotectedUnsafeMutablePointer(to: &ms, {
                  sq_date_parse_ms(UnsafeRawPointer(base).assumingMemoryBound(to: CChar.self), Int32(buf.count), $0)
              }) == 0
        else { return nil }
        return ms
    }
    guard let parsed else { return parseSQLiteDate(Array(s)) }  // not contiguous: copy once
    return parsed.map { Date(timeIntervalSince1970: Double($0) / 1000) }
}

/// UUIDs are stored as their 36-character text; reading accepts that text or a 16-byte BLOB.
extension UUID: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { .text(uuidString) }
    public static func fromDatabaseValue(_ value: DatabaseValue) -> UUID? {
        switch value {
        case .text(let s): return UUID(uuidString: s)
        case .blob(let b) where b.count == 16:
            return UUID(uuid: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]))
        default: return nil
        }
    }
}
