import CStreamQLite
import Foundation

/// Decimals are stored as their exact text (`"12345.6789"`), so no digit is lost to REAL.
///
/// Reading accepts that text (a decimal number: optional sign, digits, optional
/// fraction and exponent), an INTEGER, or a REAL (through its shortest text:
/// `0.1` reads as `0.1`). Any other text throws.
///
/// ```swift
/// try db.execute("INSERT INTO prices(amount) VALUES (?)", Decimal(string: "19.99")!)
/// let total: Decimal? = try db.value(Decimal.self, "SELECT amount FROM prices")
/// ```
extension Decimal: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { .text(description) }

    public static func fromDatabaseValue(_ value: DatabaseValue) -> Decimal? {
        switch value {
        case .integer(let i): return Decimal(i)
        case .real(let d): return d.isFinite ? Decimal(string: "\(d)", locale: Locale(identifier: "en_US_POSIX")) : nil
        case .text(let s): return decimal(fromText: s)
        default: return nil
        }
    }

    /// The decimal a whole text spells, or nil (`Decimal(string:)` alone accepts a prefix: "12abc" → 12).
    static func decimal(fromText s: String) -> Decimal? {
        var digits = 0
        var i = s.utf8.startIndex
        let u = s.utf8
        func skipDigits() { while i < u.endIndex, (48...57).contains(u[i]) { i = u.index(after: i); digits += 1 } }
        if i < u.endIndex, u[i] == UInt8(ascii: "-") || u[i] == UInt8(ascii: "+") { i = u.index(after: i) }
        skipDigits()
        if i < u.endIndex, u[i] == UInt8(ascii: ".") { i = u.index(after: i); skipDigits() }
        guard digits > 0 else { return nil }
        if i < u.endIndex, u[i] == UInt8(ascii: "e") || u[i] == UInt8(ascii: "E") {
            i = u.index(after: i)
            if i < u.endIndex, u[i] == UInt8(ascii: "-") || u[i] == UInt8(ascii: "+") { i = u.index(after: i) }
            let before = digits
            skipDigits()
            guard digits > before else { return nil }
        }
        guard i == u.endIndex else { return nil }
        return Decimal(string: s, locale: Locale(identifier: "en_US_POSIX"))
    }
}

/// URLs are stored as their `absoluteString`; reading accepts TEXT that `URL(string:)` accepts.
///
/// ```swift
/// try db.execute("INSERT INTO links(url) VALUES (?)", URL(string: "https://sqlite.org")!)
/// ```
extension URL: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { .text(absoluteString) }

    public static func fromDatabaseValue(_ value: DatabaseValue) -> URL? {
        guard case .text(let s) = value else { return nil }
        return URL(string: s)
    }
}
