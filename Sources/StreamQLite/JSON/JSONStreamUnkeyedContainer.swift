import CStreamQLite
import Foundation

struct JSONStreamUnkeyedContainer: UnkeyedEncodingContainer {
    let encoder: JSONStreamEncoder
    let id: UInt64

    var codingPath: [any CodingKey] { encoder.containerPath(id) }

    var count: Int {
        if encoder.tree != nil { return encoder.treeUnkeyed(id).count }
        guard let d = encoder.out.depth(of: id) else { return 0 }
        return encoder.out.frames[d].count
    }

    /// The same call on the tree's container of this array (see ``JSONStreamEncoder/takeOver()``).
    @inline(never)
    func inTree<R>(_ body: (inout JSONTreeUnkeyedContainer) throws -> R) rethrows -> R {
        var c = encoder.treeUnkeyed(id)
        return try body(&c)
    }

    @inline(__always) func begin() -> Bool {
        guard encoder.activate(id) else { return false }
        encoder.out.beforeElement()
        return true
    }

    mutating func encodeNil() throws { if begin() { encoder.out.append("null") } else { try inTree { try $0.encodeNil() } } }
    mutating func encode(_ value: Bool) throws { if begin() { encoder.out.scalar(.bool(value)) } else { try inTree { try $0.encode(value) } } }
    mutating func encode(_ value: String) throws { if begin() { encoder.out.string(value) } else { try inTree { try $0.encode(value) } } }
    mutating func encode(_ value: Double) throws { if begin() { encoder.out.scalar(try encoder.options.number(value, path: encoder.memberPath)) } else { try inTree { try $0.encode(value) } } }
    mutating func encode(_ value: Float) throws { if begin() { encoder.out.scalar(try encoder.options.number(value, path: encoder.memberPath)) } else { try inTree { try $0.encode(value) } } }
    mutating func encode(_ value: Int) throws { if begin() { encoder.out.integer(Int64(value)) } else { try inTree { try $0.encode(value) } } }
    mutating func encode(_ value: Int8) throws { if begin() { encoder.out.integer(Int64(value)) } else { try inTree { try $0.encode(value) } } }
    mutating func encode(_ value: Int16) throws { if begin() { encoder.out.integer(Int64(value)) } else { try inTree { try $0.encode(value) } } }
    mutating func encode(_ value: Int32) throws { if begin() { encoder.out.integer(Int64(value)) } else { try inTree { try $0.encode(value) } } }
    mutating func encode(_ value: Int64) throws { if begin() { encoder.out.integer(value) } else { try inTree { try $0.encode(value) } } }
    mutating func encode(_ value: UInt) throws { if begin() { encoder.out.unsigned(UInt64(value)) } else { try inTree { try $0.encode(value) } } }
    mutating func encode(_ value: UInt8) throws { if begin() { encoder.out.unsigned(UInt64(value)) } else { try inTree { try $0.encode(value) } } }
    mutating func encode(_ value: UInt16) throws { if begin() { encoder.out.unsigned(UInt64(value)) } else { try inTree { try $0.encode(value) } } }
    mutating func encode(_ value: UInt32) throws { if begin() { encoder.out.unsigned(UInt64(value)) } else { try inTree { try $0.encode(value) } } }
    mutating func encode(_ value: UInt64) throws { if begin() { encoder.out.unsigned(value) } else { try inTree { try $0.encode(value) } } }
    mutating func encode(_ value: Int128) throws { if begin() { encoder.out.scalar(.number(String(value))) } else { try inTree { try $0.encode(value) } } }
    mutating func encode(_ value: UInt128) throws { if begin() { encoder.out.scalar(.number(String(value))) } else { try inTree { try $0.encode(value) } } }
    mutating func encode<T: Encodable>(_ value: T) throws { if begin() { try encoder.encodeValue(value) } else { try inTree { try $0.encode(value) } } }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        guard begin() else { return inTree { $0.nestedContainer(keyedBy: NestedKey.self) } }
        return encoder.keyedContainer(NestedKey.self, id: encoder.openObject(NestedKey.self))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        guard begin() else { return inTree { $0.nestedUnkeyedContainer() } }
        return JSONStreamUnkeyedContainer(encoder: encoder, id: encoder.out.open(object: false))
    }

    mutating func superEncoder() -> any Encoder { encoder.takeOver(); return inTree { $0.superEncoder() } }
}
