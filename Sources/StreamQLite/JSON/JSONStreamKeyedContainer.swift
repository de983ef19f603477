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

    var codingPath: [any CodingKey] { encoder.containerPath(cell.pointee) }

    /// The same call on the tree's container of this object (see ``JSONStreamEncoder/takeOver()``).
    @inline(never)
    func inTree<R>(_ body: (inout KeyedEncodingContainer<Key>) throws -> R) rethrows -> R {
        try Self.inTree(encoder, cell.pointee, body)
    }

    /// ``inTree(_:)`` for object `id` of `e` (out of line: the writing calls stay small).
    @inline(never)
    static func inTree<R>(_ e: JSONStreamEncoder, _ id: UInt64, _ body: (inout KeyedEncodingContainer<Key>) throws -> R) rethrows -> R {
        var c = e.treeKeyed(Key.self, id)
        return try body(&c)
    }

    mutating func encodeNil(forKey key: Key) throws { let id = cell.pointee; try with { e in if e.beginMember(key, id) { e.out.append("null") } else { try Self.inTree(e, id) { try $0.encodeNil(forKey: key) } } } }
    mutating func encode(_ value: Bool, forKey key: Key) throws { let id = cell.pointee; try with { e in if e.beginMember(key, id) { e.out.scalar(.bool(value)) } else { try Self.inTree(e, id) { try $0.encode(value, forKey: key) } } } }
    mutating func encode(_ value: String, forKey key: Key) throws { let id = cell.pointee; try with { e in if e.beginMember(key, id) { e.out.string(value) } else { try Self.inTree(e, id) { try $0.encode(value, forKey: key) } } } }
    mutating func encode(_ value: Double, forKey key: Key) throws {
        let id = cell.pointee
        try with { e in if e.beginMember(key, id) { e.out.scalar(try e.options.number(value, path: e.memberPath)) } else { try Self.inTree(e, id) { try $0.encode(value, forKey: key) } } }
    }
    mutating func encode(_ value: Float, forKey key: Key) throws {
        let id = cell.pointee
        try with { e in if e.beginMember(key, id) { e.out.scalar(try e.options.number(value, path: e.memberPath)) } else { try Self.inTree(e, id) { try $0.encode(value, forKey: key) } } }
    }
    mutating func encode(_ value: Int, forKey key: Key) throws { let id = cell.pointee; try with { e in if e.beginMember(key, id) { e.out.integer(Int64(value)) } else { try Self.inTree(e, id) { try $0.encode(value, forKey: key) } } } }
    mutating func encode(_ value: Int8, forKey key: Key) throws { let id = cell.pointee; try with { e in if e.beginMember(key, id) { e.out.integer(Int64(value)) } else { try Self.inTree(e, id) { try $0.encode(value, forKey: key) } } } }
    mutating func encode(_ value: Int16, forKey key: Key) throws { let id = cell.pointee; try with { e in if e.beginMember(key, id) { e.out.integer(Int64(value)) } else { try Self.inTree(e, id) { try $0.encode(value, forKey: key) } } } }
    mutating func encode(_ value: Int32, forKey key: Key) throws { let id = cell.pointee; try with { e in if e.beginMember(key, id) { e.out.integer(Int64(value)) } else { try Self.inTree(e, id) { try $0.encode(value, forKey: key) } } } }
    mutating func encode(_ value: Int64, forKey key: Key) throws { let id = cell.pointee; try with { e in if e.beginMember(key, id) { e.out.integer(value) } else { try Self.inTree(e, id) { try $0.encode(value, forKey: key) } } } }
    mutating func encode(_ value: UInt, forKey key: Key) throws { let id = cell.pointee; try with { e in if e.beginMember(key, id) { e.out.unsigned(UInt64(value)) } else { try Self.inTree(e, id) { try $0.encode(value, forKey: key) } } } }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { let id = cell.pointee; try with { e in if e.beginMember(key, id) { e.out.unsigned(UInt64(value)) } else { try Self.inTree(e, id) { try $0.encode(value, forKey: key) } } } }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { let id = cell.pointee; try with { e in if e.beginMember(key, id) { e.out.unsigned(UInt64(value)) } else { try Self.inTree(e, id) { try $0.encode(value, forKey: key) } } } }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { let id = cell.pointee; try with { e in if e.beginMember(key, id) { e.out.unsigned(UInt64(value)) } else { try Self.inTree(e, id) { try $0.encode(value, forKey: key) } } } }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { let id = cell.pointee; try with { e in if e.beginMember(key, id) { e.out.unsigned(value) } else { try Self.inTree(e, id) { try $0.encode(value, forKey: key) } } } }
    mutating func encode(_ value: Int128, forKey key: Key) throws { let id = cell.pointee; try with { e in if e.beginMember(key, id) { e.out.scalar(.number(String(value))) } else { try Self.inTree(e, id) { try $0.encode(value, forKey: key) } } } }
    mutating func encode(_ value: UInt128, forKey key: Key) throws { let id = cell.pointee; try with { e in if e.beginMember(key, id) { e.out.scalar(.number(String(value))) } else { try Self.inTree(e, id) { try $0.encode(value, forKey: key) } } } }
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        let id = cell.pointee
        try with { e in if e.beginMember(key, id) { try e.encodeValue(value) } else { try Self.inTree(e, id) { try $0.encode(value, forKey: key) } } }
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        let id = cell.pointee
        let e = encoder
        guard e.beginNested(key, id) else { return inTree { $0.nestedContainer(keyedBy: NestedKey.self, forKey: key) } }
        return e.keyedContainer(NestedKey.self, id: e.openObject(NestedKey.self))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let id = cell.pointee
        let e = encoder
        guard e.beginNested(key, id) else { return inTree { $0.nestedUnkeyedContainer(forKey: key) } }
        return JSONStreamUnkeyedContainer(encoder: e, id: e.out.open(object: false))
    }

    // A super encoder writes whenever its user wants: the tree takes the document over.
    mutating func superEncoder() -> any Encoder { encoder.takeOver(); return inTree { $0.superEncoder() } }
    mutating func superEncoder(forKey key: Key) -> any Encoder { encoder.takeOver(); return inTree { $0.superEncoder(forKey: key) } }
}

/// A kept keyed container of ``JSONStreamEncoder``.
struct JSONEncoderContainerSlot {
    var keyType: ObjectIdentifier
    /// The thunk handing the container out (a `ContainerThunk`).
    var thunk: AnyObject
    /// The container's box, unretained: a retain count of 1 (the thunk's) means no copy is alive.
    var box: Unmanaged<AnyObject>
    var cell: UnsafeMutablePointer<UInt64>
    func release() { cell.deallocate() }
}
