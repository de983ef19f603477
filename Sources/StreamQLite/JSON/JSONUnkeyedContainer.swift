import CStreamQLite
import Foundation

struct JSONUnkeyedContainer: UnkeyedDecodingContainer {
    let decoder: JSONTapeDecoder
    let array: Int
    let end: Int
    /// The token of the next element.
    var position: Int
    var currentIndex = 0
    /// The decoder's generation when the container was made (see ``JSONTapeDecoder/advanceGeneration()``).
    let generation: UInt64

    init(decoder: JSONTapeDecoder, array: Int, end: Int) {
        self.decoder = decoder
        self.array = array
        self.end = end
        position = array + 1
        generation = decoder.generation
    }

    /// Whether the array's tokens are still on the tape.
    @inline(__always) var alive: Bool { decoder.generation == generation }

    var codingPath: [any CodingKey] { decoder.path(to: array) }

    var count: Int? {
        guard alive else { return nil }
        var n = 0
        var j = array + 1
        while j < end { n += 1; j = decoder.next(j) }
        return n
    }

    /// False once expired, so that the next read throws rather than a loop ending early.
    var isAtEnd: Bool { alive && position >= end }

    @inline(__always) func element<T>(_ type: T.Type) throws -> Int {
        if _slowPath(!alive) { throw decoder.expiredError() }
        guard position < end else {
            throw DecodingError.valueNotFound(T.self, .init(
                codingPath: codingPath + [JSONIndexKey(index: currentIndex)], debugDescription: "Unkeyed container is at end."))
        }
        return position
    }

    @inline(__always) mutating func advance() {
        position = decoder.next(position)
        currentIndex += 1
    }

    @inline(__always) mutating func read<T>(_ type: T.Type, _ body: (JSONTapeDecoder, Int, JSONIndexKey) throws -> T) throws -> T {
        let i = try element(T.self)
        let value = try body(decoder, i, JSONIndexKey(index: currentIndex))
        advance()
        return value
    }

    mutating func decodeNil() throws -> Bool {
        let i = try element((Any?).self)
        if decoder.tokens[i].kind == JSONKind.null { advance(); return true }
        return false
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool { try read(type) { d, i, k in try d.readBool(at: i) } }
    mutating func decode(_ type: String.Type) throws -> String { try read(type) { d, i, k in try d.readString(at: i) } }
    mutating func decode(_ type: Double.Type) throws -> Double { try read(type) { d, i, k in try d.readDouble(at: i) } }
    mutating func decode(_ type: Float.Type) throws -> Float { try read(type) { d, i, k in try d.readFloat(at: i) } }
    mutating func decode(_ type: Int.Type) throws -> Int { try read(type) { d, i, k in try d.readInteger(type, at: i) } }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try read(type) { d, i, k in try d.readInteger(type, at: i) } }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try read(type) { d, i, k in try d.readInteger(type, at: i) } }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try read(type) { d, i, k in try d.readInteger(type, at: i) } }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try read(type) { d, i, k in try d.readInteger(type, at: i) } }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try read(type) { d, i, k in try d.readInteger(type, at: i) } }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try read(type) { d, i, k in try d.readInteger(type, at: i) } }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try read(type) { d, i, k in try d.readInteger(type, at: i) } }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try read(type) { d, i, k in try d.readInteger(type, at: i) } }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try read(type) { d, i, k in try d.readInteger(type, at: i) } }
    mutating func decode(_ type: Int128.Type) throws -> Int128 { try read(type) { d, i, k in try d.readInteger(type, at: i) } }
    mutating func decode(_ type: UInt128.Type) throws -> UInt128 { try read(type) { d, i, k in try d.readInteger(type, at: i) } }
    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { try read(type) { d, i, k in try d.unwrap(type, at: i) } }

    mutating func decodeIfPresent<T: Decodable>(_ type: T.Type) throws -> T? {
        if _slowPath(!alive) { throw decoder.expiredError() }
        guard position < end else { return nil }
        if decoder.tokens[position].kind == JSONKind.null { advance(); return nil }
        return try decode(T.self)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        try read(KeyedDecodingContainer<NestedKey>.self) { d, i, key in
            try d.nested { d.current = i; return try d.container(keyedBy: type) }
        }
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try read((any UnkeyedDecodingContainer).self) { d, i, key in
            try d.nested { d.current = i; return try d.unkeyedContainer() }
        }
    }

    mutating func superDecoder() throws -> any Decoder {
        let path = codingPath
        return try read((any Decoder).self) { d, i, key in d.decoder(for: i, path: path + [key]) }
    }
}
