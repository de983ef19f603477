import Foundation

/// A value type that reads a CSV field by its own rule (``CSVText``, the conversions of
/// ``CSVDecodableCursor``): the library's own ``DatabaseValueConvertible`` types.
///
/// ``CSVField/decode(_:)`` picks the rule for a type: this protocol's, else the raw value's
/// for a `RawRepresentable` type, else ``DatabaseValueConvertible/fromDatabaseValue(_:)``
/// (``CSVField/decodeThroughDatabaseValue(_:)``).
@usableFromInline
protocol CSVFieldDecodable {
    /// The field as a `Self`; throws ``CSVFieldError`` when it does not convert.
    static func decode(csvField field: CSVField) throws -> Self
}

extension CSVFieldDecodable {
    /// ``decode(csvField:)`` as a `T`, which is `Self` (the caller found `T` conforms).
    @inlinable @inline(__always)
    static func decode<T>(csvField field: CSVField, as type: T.Type) throws -> T {
        try decode(csvField: field) as! T
    }
}

extension CSVField {
    /// The field as a `T`. The library's own types convert by their ``CSVFieldDecodable``
    /// rule; the check is on the type, which a specialized caller knows at compile time.
    @inlinable @inline(__always)
    func decode<T: DatabaseValueConvertible>(_ type: T.Type) throws -> T {
        if let D = T.self as? any CSVFieldDecodable.Type { return try D.decode(csvField: self, as: T.self) }
        return try decodeOther(T.self)
    }

    /// A type outside the library: a `RawRepresentable` type whose raw value is a
    /// ``DatabaseValueConvertible`` reads the raw value's field, then `init(rawValue:)`
    /// (string and integer enums); any other type reads through ``decodeThroughDatabaseValue(_:)``.
    @usableFromInline
    func decodeOther<T: DatabaseValueConvertible>(_ type: T.Type) throws -> T {
        if let R = T.self as? any RawRepresentable.Type, let v = try decodeRaw(R) {
            return v as! T
        }
        return try decodeThroughDatabaseValue(T.self)
    }

    /// `R` from its raw value's field; nil when `R.RawValue` is not a ``DatabaseValueConvertible``.
    private func decodeRaw<R: RawRepresentable>(_ type: R.Type) throws -> R? {
        guard let Raw = R.RawValue.self as? any DatabaseValueConvertible.Type else { return nil }
        let raw = try decode(Raw)
        if let v = R(rawValue: raw as! R.RawValue) { return v }
        throw mismatch(R.self)
    }

    /// The field through ``DatabaseValueConvertible/fromDatabaseValue(_:)``: a NULL field as
    /// `.null`; text as `.text`, or — when the type refuses the text and it is a number —
    /// as `.integer` (`-?[0-9]+` within 64 bits), else `.real`. So `Decimal`, `URL`, `UUID`
    /// and types storing text read their text, and a type storing numbers its number.
    @usableFromInline
    func decodeThroughDatabaseValue<T: DatabaseValueConvertible>(_ type: T.Type) throws -> T {
        guard let b = bytes else {
            if let v = T.fromDatabaseValue(.null) { return v }
            throw mismatch(T.self)
        }
        if let v = T.fromDatabaseValue(.text(CSVText.string(b))) { return v }
        if let i = CSVText.integer(b, as: Int64.self), let v = T.fromDatabaseValue(.integer(i)) { return v }
        if let d = CSVText.double(b), let v = T.fromDatabaseValue(.real(d)) { return v }
        throw mismatch(T.self)
    }
}

// MARK: - The library's types

extension Optional: CSVFieldDecodable where Wrapped: DatabaseValueConvertible {
    /// A NULL field is nil; anything else decodes as `Wrapped`.
    @inlinable
    static func decode(csvField field: CSVField) throws -> Wrapped? {
        if field.bytes == nil { return nil }
        return try field.decode(Wrapped.self)
    }
}

extension DatabaseInteger {
    /// `-?[0-9]+` within the type's range.
    @inlinable
    static func decode(csvField field: CSVField) throws -> Self {
        if let b = field.bytes, let v = CSVText.integer(b, as: Self.self) { return v }
        throw field.mismatch(Self.self)
    }
}

extension Int: CSVFieldDecodable {}
extension Int8: CSVFieldDecodable {}
extension Int16: CSVFieldDecodable {}
extension Int32: CSVFieldDecodable {}
extension Int64: CSVFieldDecodable {}
extension UInt8: CSVFieldDecodable {}
extension UInt16: CSVFieldDecodable {}
extension UInt32: CSVFieldDecodable {}

extension UInt64: CSVFieldDecodable {
    /// `[0-9]+` within 64-bit signed range (as SQLite's INTEGER).
    @inlinable
    static func decode(csvField field: CSVField) throws -> UInt64 {
        if let b = field.bytes, let v = CSVText.integer(b, as: UInt64.self) { return v }
        throw field.mismatch(UInt64.self)
    }
}

extension UInt: CSVFieldDecodable {
    @inlinable
    static func decode(csvField field: CSVField) throws -> UInt {
        if let b = field.bytes, let v = CSVText.integer(b, as: UInt.self) { return v }
        throw field.mismatch(UInt.self)
    }
}

extension Bool: CSVFieldDecodable {
    /// `true`/`false`/`1`/`0`, ASCII case ignored.
    @inlinable
    static func decode(csvField field: CSVField) throws -> Bool {
        if let b = field.bytes, let v = CSVText.bool(b) { return v }
        throw field.mismatch(Bool.self)
    }
}

extension Double: CSVFieldDecodable {
    @inlinable
    static func decode(csvField field: CSVField) throws -> Double {
        if let b = field.bytes, let v = CSVText.double(b) { return v }
        throw field.mismatch(Double.self)
    }
}

extension Float: CSVFieldDecodable {
    @inlinable
    static func decode(csvField field: CSVField) throws -> Float {
        if let b = field.bytes, let v = CSVText.float(b) { return v }
        throw field.mismatch(Float.self)
    }
}

extension String: CSVFieldDecodable {
    /// The text as it is.
    @inlinable
    static func decode(csvField field: CSVField) throws -> String {
        if let b = field.bytes { return CSVText.string(b) }
        throw field.mismatch(String.self)
    }
}

extension Date: CSVFieldDecodable {
    /// Any form SQLite's date functions read (the date codec of `sq_date.h`).
    @inlinable
    static func decode(csvField field: CSVField) throws -> Date {
        if let b = field.bytes, let v = CSVText.date(b) { return v }
        throw field.mismatch(Date.self)
    }
}

extension Data: CSVFieldDecodable {
    /// Base64.
    @inlinable
    static func decode(csvField field: CSVField) throws -> Data {
        if let b = field.bytes, let v = CSVText.data(b) { return v }
        throw field.mismatch(Data.self)
    }
}

extension Array: CSVFieldDecodable where Element == UInt8 {
    /// Base64, as `Data`.
    @inlinable
    static func decode(csvField field: CSVField) throws -> [UInt8] {
        if let b = field.bytes, let v = CSVText.data(b) { return [UInt8](v) }
        throw field.mismatch([UInt8].self)
    }
}

/// The library's types that read their text (or number) through ``DatabaseValueConvertible/fromDatabaseValue(_:)``.
extension UUID: CSVFieldDecodable {
    @usableFromInline
    static func decode(csvField field: CSVField) throws -> UUID { try field.decodeThroughDatabaseValue(UUID.self) }
}

extension Decimal: CSVFieldDecodable {
    @usableFromInline
    static func decode(csvField field: CSVField) throws -> Decimal { try field.decodeThroughDatabaseValue(Decimal.self) }
}

extension URL: CSVFieldDecodable {
    @usableFromInline
    static func decode(csvField field: CSVField) throws -> URL { try field.decodeThroughDatabaseValue(URL.self) }
}

extension Substring: CSVFieldDecodable {
    @usableFromInline
    static func decode(csvField field: CSVField) throws -> Substring { try field.decodeThroughDatabaseValue(Substring.self) }
}

extension DatabaseValue: CSVFieldDecodable {
    @usableFromInline
    static func decode(csvField field: CSVField) throws -> DatabaseValue {
        try field.decodeThroughDatabaseValue(DatabaseValue.self)
    }
}
