import CStreamQLite
import Foundation

/// The top-level array's elements, read from a ``JSONElementReader`` as they are decoded.
struct JSONStreamedUnkeyedContainer: UnkeyedDecodingContainer {
    let reader: JSONElementReader
    var codingPath: [any CodingKey] { [] }
    /// Unknown until the end is reached.
    var count: Int? { nil }
    var currentIndex: Int { reader.index }

    /// Reads on to the next element; false at the end of the array.
    func available() throws -> Bool {
        while true {
            switch try reader.step() {
            case .value: return true
            case .end: return false
            case .needInput: if try reader.finish() == .end { return false }
            }
        }
    }

    /// `isAtEnd` has to read on; a syntax error there is thrown by the next decode.
    var isAtEnd: Bool { !((try? available()) ?? true) }

    func element<T>(_ type: T.Type) throws -> JSONTapeDecoder {
        guard try available() else {
            throw DecodingError.valueNotFound(T.self, .init(
                codingPath: [JSONIndexKey(index: reader.index)], debugDescription: "Unkeyed container is at end."))
        }
        return reader.prepareDecoder()
    }

    mutating func decodeNil() throws -> Bool {
        guard try available() else {
            throw DecodingError.valueNotFound((Any?).self, .init(codingPath: [JSONIndexKey(index: reader.index)], debugDescription: "Unkeyed container is at end."))
        }
        if reader.tape.tokens[0].kind == JSONKind.null { _ = reader.prepareDecoder(); return true }
        return false
    }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { try element(T.self).decodeTop(type) }
    mutating func decode(_ type: Bool.Type) throws -> Bool { try element(type).decodeTop(type) }
    mutating func decode(_ type: String.Type) throws -> String { try element(type).decodeTop(type) }
    mutating func decode(_ type: Double.Type) throws -> Double { try element(type).decodeTop(type) }
    mutating func decode(_ type: Int.Type) throws -> Int { try element(type).decodeTop(type) }
    mutating func decode(_ type: Int128.Type) throws -> Int128 { try element(type).decodeTop(type) }
    mutating func decode(_ type: UInt128.Type) throws -> UInt128 { try element(type).decodeTop(type) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        try element(type).container(keyedBy: type)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try element((any UnkeyedDecodingContainer).self).unkeyedContainer()
    }

    mutating func superDecoder() throws -> any Decoder {
        let d = try element((any Decoder).self)
        return d.decoder(for: 0, path: [JSONIndexKey(index: reader.index)])
    }
}
