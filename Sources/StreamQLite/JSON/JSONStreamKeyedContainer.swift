import CStreamQLite
import Foundation

/// A keyed container of ``JSONStreamEncoder``: plain data (the encoder unretained, the
/// object's frame id in a cell the encoder owns), so it is copied without reference
/// counting and reused for the next object (see ``JSONStreamEncoder/keyedContainer(_:id:)``).
/// Like the encoder, valid while the `encode` call that handed it out runs.
struct JSONStreamKeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let unmanaged: Unmanaged<JSONStreamEncoder>
    let cell: UnsafeMutablePointer<UInt64>

    @inline(__always) func with<R>(_ body: (JSONStreamEncoder) throws -> R) rethrows -> R {
        try unmanaged._withUnsafeGuaranteedRef(body)
    }
    var encoder: JSONStreamEncoder { unmanaged.takeUnretainedValue() }

    var codingPath: [any CodingKey] {
        let e = encoder
        guard let d = e.out.depth(of: cell.pointee) else { return e.codingPath }
        return Array(e.codingPath.prefix(d))
    }

    mutating func encodeNil(forKey key: Key) throws { let id = cell.pointee; with { e in if e.beginMember(key, id) { e.out.append("null") } } }
    mutating func encode(_ value: Bool, forKey key: Key) throws { let id = cell.pointee; with { e in if e.beginMember(key, id) { e.out.scalar(.bool(value)) } } }
    mutating func encode(_ value: String, forKey key: Key) throws { let id = cell.pointee; with { e in if e.beginMember(key, id) { e.out.string(value) } } }
    mutating func encode(_ value: Double, forKey key: Key) throws {
        let id = cell.pointee
        try with { e in if e.beginMember(key, id) { e.out.scalar(try e.options.number(value, path: e.codingPath)) } }
    }
    mutating func encode(_ value: Float, forKey key: Key) throws {
        let id = cell.pointee
        try with { e in if e.beginMember(key, id) { e.out.scalar(try e.options.number(value, path: e.codingPath)) } }
    }
    mutating func encode(_ value: Int, forKey key: Key) throws { let id = cell.pointee; with { e in if e.beginMember(key, id) { e.out.integer(Int64(value)) } } }
    mutating func encode(_ value: Int8, forKey key: Key) throws { let id = cell.pointee; with { e in if e.beginMember(key, id) { e.out.integer(Int64(value)) } } }
    mutating func encode(_ value: Int16, forKey key: Key) throws { let id = cell.pointee; with { e in if e.beginMember(key, id) { e.out.integer(Int64(value)) } } }
    mutating func encode(_ value: Int32, forKey key: Key) throws { let id = cell.pointee; with { e in if e.beginMember(key, id) { e.out.integer(Int64(value)) } } }
    mutating func encode(_ value: Int64, forKey key: Key) throws { let id = cell.pointee; with { e in if e.beginMember(key, id) { e.out.integer(value) } } }
    mutating func encode(_ value: UInt, forKey key: Key) throws { let id = cell.pointee; with { e in if e.beginMember(key, id) { e.out.unsigned(UInt64(value)) } } }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { let id = cell.pointee; with { e in if e.beginMember(key, id) { e.out.unsigned(UInt64(value)) } } }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { let id = cell.pointee; with { e in if e.beginMember(key, id) { e.out.unsigned(UInt64(value)) } } }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { let id = cell.pointee; with { e in if e.beginMember(key, id) { e.out.unsigned(UInt64(value)) } } }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { let id = cell.pointee; with { e in if e.beginMember(key, id) { e.out.unsigned(value) } } }
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        let id = cell.pointee
        try with { e in if e.beginMember(key, id) { try e.encodeValue(value) } }
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        let id = cell.pointee
        return with { e in
            guard e.beginMember(key, id) else { return e.keyedContainer(NestedKey.self, id: 0) }
            return e.keyedContainer(NestedKey.self, id: e.openObject(NestedKey.self))
        }
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let id = cell.pointee
        return with { e in
            guard e.beginMember(key, id) else { return JSONStreamUnkeyedContainer(encoder: e, id: 0) }
            return JSONStreamUnkeyedContainer(encoder: e, id: e.out.open(object: false))
        }
    }

    // A super encoder writes whenever its user wants: the tree encoder handles it.
    mutating func superEncoder() -> any Encoder { let e = encoder; e.restart = true; return e }
    mutating func superEncoder(forKey key: Key) -> any Encoder { let e = encoder; e.restart = true; return e }
}

/// A kept keyed container of ``JSONStreamEncoder``.
struct JSONEncoderContainerSlot {
    var keyType: ObjectIdentifier
    /// The thunk handing the container out (a `JSONEncoderContainerThunk<Key>`).
    var thunk: AnyObject
    /// The container's box, unretained: a retain count of 1 (the thunk's) means no copy is alive.
    var box: Unmanaged<AnyObject>
    var cell: UnsafeMutablePointer<UInt64>
    func release() { cell.deallocate() }
}

final class JSONEncoderContainerThunk<Key: CodingKey> {
    let make: () -> KeyedEncodingContainer<Key>
    init(_ make: @escaping () -> KeyedEncodingContainer<Key>) { self.make = make }
}
