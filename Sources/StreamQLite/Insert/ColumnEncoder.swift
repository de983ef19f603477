import CStreamQLite
import Foundation

/// Encodes one property value that is not a primitive: accepts a single value
/// (enums with raw values, wrappers), flags keyed/unkeyed content as nested.
final class ColumnEncoder: Encoder, SingleValueEncodingContainer {
    var codingPath: [any CodingKey] = []
    var userInfo: [CodingUserInfoKey: Any] = [:]
    let stmt: OpaquePointer
    let index: Int32
    let column: String
    unowned let owner: BindingEncoder
    var nested = false
    var bound = false

    init(stmt: OpaquePointer, index: Int32, column: String, owner: BindingEncoder) {
        self.stmt = stmt
        self.index = index
        self.column = column
        self.owner = owner
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        nested = true
        return KeyedEncodingContainer(DiscardingKeyedContainer<Key>())
    }
    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        nested = true
        return DiscardingUnkeyedContainer()
    }
    func singleValueContainer() -> any SingleValueEncodingContainer { self }

    func encodeNil() throws { sqlite3_bind_null(stmt, index); bound = true }
    func encode(_ value: Bool) throws { try encode(Int64(value ? 1 : 0)) }
    func encode(_ value: String) throws { sqBindText(stmt, index, value); bound = true }
    func encode(_ value: Double) throws {
        if value.isNaN { throw RowEncodingFailure(column: column, message: "NaN cannot be stored (SQLite would store NULL)") }
        sqlite3_bind_double(stmt, index, value); bound = true
    }
    func encode(_ value: Float) throws { try encode(Double(value)) }
    func encode(_ value: Int) throws { try encode(Int64(value)) }
    func encode(_ value: Int8) throws { try encode(Int64(value)) }
    func encode(_ value: Int16) throws { try encode(Int64(value)) }
    func encode(_ value: Int32) throws { try encode(Int64(value)) }
    func encode(_ value: Int64) throws { sqlite3_bind_int64(stmt, index, value); bound = true }
    func encode(_ value: UInt) throws { try encode(UInt64(value)) }
    func encode(_ value: UInt8) throws { try encode(Int64(value)) }
    func encode(_ value: UInt16) throws { try encode(Int64(value)) }
    func encode(_ value: UInt32) throws { try encode(Int64(value)) }
    func encode(_ value: UInt64) throws {
        guard value <= UInt64(Int64.max) else {
            throw RowEncodingFailure(column: column, message: "\(value) does not fit SQLite's 64-bit signed INTEGER")
        }
        try encode(Int64(value))
    }
    func encode<T: Encodable>(_ value: T) throws {
        // A wrapper around another value: the owner handles Date, Data, UUID… for the same column.
        if try sqBindSpecialValue(value, stmt, index, column: column, dateEncoding: owner.dateEncoding) {
            bound = true
            return
        }
        let inner = ColumnEncoder(stmt: stmt, index: index, column: column, owner: owner)
        try value.encode(to: inner)
        nested = nested || inner.nested
        bound = bound || inner.bound
    }
}

/// Binds the values an insert stores in a form of their own: `Date` (as `dateEncoding`
/// says), `Data` and `[UInt8]` (BLOB), `UUID`, `URL` and `Decimal` (TEXT). False for any
/// other value. The one copy of these rules, for properties (``BindingEncoder``) and for
/// the values wrapped in single-value types (``ColumnEncoder``). Throws for a `Date` that
/// `.unixSeconds` cannot store as a number read back as the same instant.
func sqBindSpecialValue<T>(_ value: T, _ stmt: OpaquePointer, _ index: Int32, column: String?,
                           dateEncoding: InsertOptions.DateEncoding) throws -> Bool {
    switch value {
    case let date as Date:
        switch dateEncoding {
        case .text: sqBindText(stmt, index, sqliteDateString(date))
        case .unixSeconds:
            let seconds = date.timeIntervalSince1970
            guard numberIsUnixSeconds(seconds) else {
                throw RowEncodingFailure(column: column, message: unixSecondsRefusal(date))
            }
            sqlite3_bind_double(stmt, index, seconds)
        }
    case let data as Data:
        data.withUnsafeBytes {
            _ = sqlite3_bind_blob64(stmt, index, $0.baseAddress ?? UnsafeRawPointer(bitPattern: 1), sqlite3_uint64($0.count),
                                    streamTransientDestructor)
        }
    case let bytes as [UInt8] where T.self == [UInt8].self:
        // Only a real [UInt8]: an empty array of any element type casts to [UInt8].
        sqBindBlob(stmt, index, bytes)
    case let uuid as UUID:
        sqBindText(stmt, index, uuid.uuidString)
    case let url as URL:
        sqBindText(stmt, index, url.absoluteString)
    case let decimal as Decimal:
        sqBindText(stmt, index, decimal.description)
    default:
        return false
    }
    return true
}
