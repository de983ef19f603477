import CStreamQLite
import Foundation

struct JSONStreamSingleValueContainer: SingleValueEncodingContainer {
    let encoder: JSONStreamEncoder
    var codingPath: [any CodingKey] { encoder.codingPath }

    /// The same call on the tree's single value container of this value (see ``JSONStreamEncoder/takeOver()``).
    @inline(never)
    func inTree(_ body: (inout any SingleValueEncodingContainer) throws -> Void) rethrows {
        var c = encoder.treeSlotEncoder().singleValueContainer()
        try body(&c)
    }

    mutating func encodeNil() throws { if encoder.beginSingle() { encoder.out.append("null") } else { try inTree { try $0.encodeNil() } } }
    mutating func encode(_ value: Bool) throws { if encoder.beginSingle() { encoder.out.scalar(.bool(value)) } else { try inTree { try $0.encode(value) } } }
    mutating func encode(_ value: String) throws { if encoder.beginSingle() { encoder.out.string(value) } else { try inTree { try $0.encode(value) } } }
    mutating func encode(_ value: Double) throws {
        if encoder.beginSingle() { encoder.out.scalar(try encoder.options.number(value, path: encoder.codingPath)) } else { try inTree { try $0.encode(value) } }
    }
    mutating func encode(_ value: Float) throws {
        if encoder.beginSingle() { encoder.out.scalar(try encoder.options.number(value, path: encoder.codingPath)) } else { try inTree { try $0.encode(value) } }
    }
    mutating func encode(_ value: Int) throws { if encoder.beginSingle() { encoder.out.integer(Int64(value)) } else { try inTree { try $0.encode(value) } } }
    mutating func encode(_ value: Int8) throws { if encoder.beginSingle() { encoder.out.integer(Int64(value)) } else { try inTree { try $0.encode(value) } } }
    mutating func encode(_ value: Int16) throws { if encoder.beginSingle() { encoder.out.integer(Int64(value)) } else { try inTree { try $0.encode(value) } } }
    mutating func encode(_ value: Int32) throws { if encoder.beginSingle() { encoder.out.integer(Int64(value)) } else { try inTree { try $0.encode(value) } } }
    mutating func encode(_ value: Int64) throws { if encoder.beginSingle() { encoder.out.integer(value) } else { try inTree { try $0.encode(value) } } }
    mutating func encode(_ value: UInt) throws { if encoder.beginSingle() { encoder.out.unsigned(UInt64(value)) } else { try inTree { try $0.encode(value) } } }
    mutating func encode(_ value: UInt8) throws { if encoder.beginSingle() { encoder.out.unsigned(UInt64(value)) } else { try inTree { try $0.encode(value) } } }
    mutating func encode(_ value: UInt16) throws { if encoder.beginSingle() { encoder.out.unsigned(UInt64(value)) } else { try inTree { try $0.encode(value) } } }
    mutating func encode(_ value: UInt32) throws { if encoder.beginSingle() { encoder.out.unsigned(UInt64(value)) } else { try inTree { try $0.encode(value) } } }
    mutating func encode(_ value: UInt64) throws { if encoder.beginSingle() { encoder.out.unsigned(value) } else { try inTree { try $0.encode(value) } } }
    mutating func encode(_ value: Int128) throws { if encoder.beginSingle() { encoder.out.scalar(.number(String(value))) } else { try inTree { try $0.encode(value) } } }
    mutating func encode(_ value: UInt128) throws { if encoder.beginSingle() { encoder.out.scalar(.number(String(value))) } else { try inTree { try $0.encode(value) } } }
    mutating func encode<T: Encodable>(_ value: T) throws {
        if encoder.beginSingle() { try encoder.encodeValue(value) } else { try inTree { try $0.encode(value) } }
    }
}
