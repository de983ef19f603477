import CStreamQLite
import Foundation

extension Data: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { .blob([UInt8](self)) }
    public static func fromDatabaseValue(_ value: DatabaseValue) -> Data? { [UInt8].fromDatabaseValue(value).map { Data($0) } }
    /// BLOB (or TEXT, as its UTF-8 bytes).
    public static func decode(statement: OpaquePointer, column: Int32) throws -> Data {
        Data(try columnBytes(statement, column))
    }
    /// Binds the bytes in place; SQLite makes its one copy.
    public func bind(to statement: OpaquePointer, at index: Int32) -> Int32 {
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
/// INTEGER/REAL as Unix seconds. Any other text throws.
extension Date: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { .text(sqliteDateString(self)) }
    public static func fromDatabaseValue(_ value: DatabaseValue) -> Date? {
        switch value {
        case .integer(let i): Date(timeIntervalSince1970: Double(i))
        case .real(let d): Date(timeIntervalSince1970: d)
        case .text(let s): parseSQLiteDate(Array(s.utf8))
        default: nil
        }
    }
    public static func decode(sqliteValue v: OpaquePointer) throws -> Date {
        switch sqlite3_value_type(v) {
        case SQLITE_INTEGER, SQLITE_FLOAT:
            return Date(timeIntervalSince1970: sqlite3_value_double(v))
        case SQLITE_TEXT:
            let n = Int(sqlite3_value_bytes(v))
            if let p = sqlite3_value_text(v), let d = parseSQLiteDate(UnsafeBufferPointer(start: p, count: n)) { return d }
            throw DatabaseError(code: SQLITE_MISMATCH, message: "not a valid date: \(DatabaseValue(sqliteValue: v))")
        default:
            throw conversionFailure("a date (TEXT, INTEGER or REAL)", v)
        }
    }
}

/// `2024-05-01 12:00:00.000` in UTC.
func sqliteDateString(_ date: Date) -> String {
    let ms = (date.timeIntervalSince1970 * 1000).rounded()
    let total = Int64(ms)
    var days = total / 86_400_000
    var rem = total % 86_400_000
    if rem < 0 { rem += 86_400_000; days -= 1 }
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days + 719_468
    let era = (z >= 0 ? z : z - 146_096) / 146_097
    let doe = z - era * 146_097
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
    let mp = (5 * doy + 2) / 153
    let d = doy - (153 * mp + 2) / 5 + 1
    let m = mp < 10 ? mp + 3 : mp - 9
    let y = yoe + era * 400 + (m <= 2 ? 1 : 0)
    func pad(_ v: Int64, _ w: Int) -> String {
        let s = String(v)
        return s.count >= w ? s : String(repeating: "0", count: w - s.count) + s
    }
    return "\(pad(y, 4))-\(pad(m, 2))-\(pad(d, 2)) \(pad(rem / 3_600_000, 2)):\(pad(rem / 60_000 % 60, 2)):\(pad(rem / 1000 % 60, 2)).\(pad(rem % 1000, 3))"
}

/// Parses `yyyy-MM-dd`, `yyyy-MM-dd[ T]HH:mm[:ss[.fff]][Z|±HH:MM]`; nil for anything else.
func parseSQLiteDate<C: RandomAccessCollection>(_ s: C) -> Date? where C.Element == UInt8, C.Index == Int {
    var i = s.startIndex
    let end = s.endIndex
    func digits(_ count: Int) -> Int? {
        guard end - i >= count else { return nil }
        var v = 0
        for _ in 0..<count {
            let c = s[i]
            guard c >= 0x30 && c <= 0x39 else { return nil }
            v = v * 10 + Int(c - 0x30)
            i += 1
        }
        return v
    }
    func expect(_ c: UInt8) -> Bool {
        guard i < end, s[i] == c else { return false }
        i += 1
        return true
    }
    guard let y = digits(4), expect(0x2D), let mo = digits(2), expect(0x2D), let d = digits(2) else { return nil }
    guard (1...12).contains(mo) else { return nil }
    let monthDays = [31, (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
    guard d >= 1 && d <= monthDays[mo - 1] else { return nil }
    var h = 0, mi = 0, sec = 0
    var frac = 0.0
    var offset = 0
    if i < end {
        guard s[i] == 0x20 || s[i] == 0x54 else { return nil }
        i += 1
        guard let hh = digits(2), expect(0x3A), let mm = digits(2), hh < 24, mm < 60 else { return nil }
        h = hh; mi = mm
        if expect(0x3A) {
            guard let ss = digits(2), ss < 60 else { return nil }
            sec = ss
            if expect(0x2E) {
                var scale = 0.1
                var any = false
                while i < end, s[i] >= 0x30 && s[i] <= 0x39 {
                    frac += Double(s[i] - 0x30) * scale
                    scale /= 10
                    i += 1
                    any = true
                }
                guard any else { return nil }
            }
        }
        if i < end {
            if expect(0x5A) {
            } else if s[i] == 0x2B || s[i] == 0x2D {
                let sign = s[i] == 0x2D ? -1 : 1
                i += 1
                guard let oh = digits(2), expect(0x3A), let om = digits(2) else { return nil }
                offset = sign * (oh * 60 + om) * 60
            } else {
                return nil
            }
        }
        guard i == end else { return nil }
    }
    // Days since 1970-01-01.
    let yy = mo <= 2 ? y - 1 : y
    let era = (yy >= 0 ? yy : yy - 399) / 400
    let yoe = yy - era * 400
    let mp = mo > 2 ? mo - 3 : mo + 9
    let doy = (153 * mp + 2) / 5 + d - 1
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
    let days = era * 146_097 + doe - 719_468
    let seconds = Double(days * 86_400 + h * 3600 + mi * 60 + sec - offset) + frac
    return Date(timeIntervalSince1970: seconds)
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
