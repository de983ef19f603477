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

    /// The field's text by `rule` (a ``CSVText`` conversion); a NULL field, or text the rule
    /// refuses, is not a `T`.
    @inlinable @inline(__always)
    func convert<T>(_ type: T.Type, _ rule: (UnsafeBufferPointer<UInt8>) -> T?) throws -> T {
        if let b = bytes, let v = rule(b) { return v }
        throw mismatch(T.self)
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
        try field.convert(Self.self) { CSVText.integer($0, as: Self.self) }
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
        try field.convert(UInt64.self) { CSVText.integer($0, as: UInt64.self) }
    }
}

extension UInt: CSVFieldDecodable {
    @inlinable
    static func decode(csvField field: CSVField) throws -> UInt {
        try field.convert(UInt.self) { CSVText.integer($0, as: UInt.self) }
    }
}

extension Bool: CSVFieldDecodable {
    /// `true`/`false`/`1`/`0`, ASCII case ignored.
    @inlinable
    static func decode(csvField field: CSVField) throws -> Bool {
        try field.convert(Bool.self, CSVText.bool)
    }
}

extension Double: CSVFieldDecodable {
    @inlinable
    static func decode(csvField field: CSVField) throws -> Double {
        try field.convert(Double.self, CSVText.double)
    }
}

extension Float: CSVFieldDecodable {
    @inlinable
    static func decode(csvField field: CSVField) throws -> Float {
        try field.convert(Float.self, CSVText.float)
    }
}

extension String: CSVFieldDecodable {
    /// The text as it is.
    @inlinable
    static func decode(csvField field: CSVField) throws -> String {
        try field.convert(String.self) { CSVText.string($0) }
    }
}

extension Date: CSVFieldDecodable {
    /// Any form SQLite's date functions read (the date codec of `sq_date.h`).
    @inlinable
    static func decode(csvField field: CSVField) throws -> Date {
        try field.convert(Date.self, CSVText.date)
    }
}

extension Data: CSVFieldDecodable {
    /// Base64.
    @inlinable
    static func decode(csvField field: CSVField) throws -> Data {
        try field.convert(Data.self, CSVText.data)
    }
}

extension Array: CSVFieldDecodable where Element == UInt8 {
    /// Base64, as `Data`.
    @inlinable
    static func decode(csvField field: CSVField) throws -> [UInt8] {
        try field.convert([UInt8].self) { CSVText.data($0).map { [UInt8]($0) } }
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
