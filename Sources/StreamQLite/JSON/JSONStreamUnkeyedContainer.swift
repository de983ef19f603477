import CStreamQLite
import Foundation

struct JSONStreamUnkeyedContainer: UnkeyedEncodingContainer {
    let encoder: JSONStreamEncoder
    let id: UInt64

    var codingPath: [any CodingKey] {
        guard let d = encoder.out.depth(of: id) else { return encoder.codingPath }
        return Array(encoder.codingPath.prefix(d))
    }

    var count: Int {
        guard let d = encoder.out.depth(of: id) else { return 0 }
        return encoder.out.frames[d].count
    }

    @inline(__always) func begin() -> Bool {
        guard encoder.activate(id) else { return false }
        encoder.out.beforeElement()
        return true
    }

    mutating func encodeNil() throws { if begin() { encoder.out.append("null") } }
    mutating func encode(_ value: Bool) throws { if begin() { encoder.out.scalar(.bool(value)) } }
    mutating func encode(_ value: String) throws { if begin() { encoder.out.string(value) } }
    mutating func encode(_ value: Double) throws { if begin() { encoder.out.scalar(try encoder.options.number(value, path: encoder.codingPath)) } }
    mutating func encode(_ value: Float) throws { if begin() { encoder.out.scalar(try encoder.options.number(value, path: encoder.codingPath)) } }
    mutating func encode(_ value: Int) throws { if begin() { encoder.out.integer(Int64(value)) } }
    mutating func encode(_ value: Int8) throws { if begin() { encoder.out.integer(Int64(value)) } }
    mutating func encode(_ value: Int16) throws { if begin() { encoder.out.integer(Int64(value)) } }
    mutating func encode(_ value: Int32) throws { if begin() { encoder.out.integer(Int64(value)) } }
    mutating func encode(_ value: Int64) throws { if begin() { encoder.out.integer(value) } }
    mutating func encode(_ value: UInt) throws { if begin() { encoder.out.unsigned(UInt64(value)) } }
    mutating func encode(_ value: UInt8) throws { if begin() { encoder.out.unsigned(UInt64(value)) } }
    mutating func encode(_ value: UInt16) throws { if begin() { encoder.out.unsigned(UInt64(value)) } }
    mutating func encode(_ value: UInt32) throws { if begin() { encoder.out.unsigned(UInt64(value)) } }
    mutating func encode(_ value: UInt64) throws { if begin() { encoder.out.unsigned(value) } }
    mutating func encode<T: Encodable>(_ value: T) throws { if begin() { try encoder.encodeValue(value) } }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        guard begin() else { return encoder.keyedContainer(NestedKey.self, id: 0) }
        return encoder.keyedContainer(NestedKey.self, id: encoder.openObject(NestedKey.self))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        guard begin() else { return JSONStreamUnkeyedContainer(encoder: encoder, id: 0) }
        return JSONStreamUnkeyedContainer(encoder: encoder, id: encoder.out.open(object: false))
    }

    mutating func superEncoder() -> any Encoder { encoder.restart = true; return encoder }
}
