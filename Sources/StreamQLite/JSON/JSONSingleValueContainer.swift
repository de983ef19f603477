import CStreamQLite
import Foundation

struct JSONSingleValueContainer: SingleValueDecodingContainer {
    let decoder: JSONTapeDecoder
    /// The value's token, -1 for a missing value (a `superDecoder` of a missing key reads as null).
    let index: Int
    /// The decoder's generation when the container was made (see ``JSONTapeDecoder/advanceGeneration()``).
    let generation: UInt64

    init(decoder: JSONTapeDecoder, index: Int) {
        self.decoder = decoder
        self.index = index
        generation = decoder.generation
    }

    var codingPath: [any CodingKey] { index >= 0 ? decoder.path(to: index) : decoder.basePath }

    @inline(__always) func read<T>(_ body: (Int) throws -> T) throws -> T {
        if _slowPath(decoder.generation != generation) { throw decoder.expiredError() }
        guard index >= 0 else { throw decoder.missingValue(T.self) }
        return try body(index)
    }
    private var none: JSONStringKey? { nil }

    /// False once expired, so that the next read throws.
    func decodeNil() -> Bool {
        guard decoder.generation == generation else { return false }
        return index < 0 || decoder.tokens[index].kind == JSONKind.null
    }
    func decode(_ type: Bool.Type) throws -> Bool { try read { try decoder.readBool(at: $0) } }
    func decode(_ type: String.Type) throws -> String { try read { try decoder.readString(at: $0) } }
    func decode(_ type: Double.Type) throws -> Double { try read { try decoder.readDouble(at: $0) } }
    func decode(_ type: Float.Type) throws -> Float { try read { try decoder.readFloat(at: $0) } }
    func decode(_ type: Int.Type) throws -> Int { try read { try decoder.readInteger(type, at: $0) } }
    func decode(_ type: Int8.Type) throws -> Int8 { try read { try decoder.readInteger(type, at: $0) } }
    func decode(_ type: Int16.Type) throws -> Int16 { try read { try decoder.readInteger(type, at: $0) } }
    func decode(_ type: Int32.Type) throws -> Int32 { try read { try decoder.readInteger(type, at: $0) } }
    func decode(_ type: Int64.Type) throws -> Int64 { try read { try decoder.readInteger(type, at: $0) } }
    func decode(_ type: UInt.Type) throws -> UInt { try read { try decoder.readInteger(type, at: $0) } }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try read { try decoder.readInteger(type, at: $0) } }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try read { try decoder.readInteger(type, at: $0) } }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try read { try decoder.readInteger(type, at: $0) } }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try read { try decoder.readInteger(type, at: $0) } }
    func decode(_ type: Int128.Type) throws -> Int128 { try read { try decoder.readInteger(type, at: $0) } }
    func decode(_ type: UInt128.Type) throws -> UInt128 { try read { try decoder.readInteger(type, at: $0) } }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try read { try decoder.unwrap(type, at: $0) } }
}
