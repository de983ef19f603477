import CStreamQLite
import Foundation

/// The decoder of a whole document whose top-level value is an array: the array's
/// elements are parsed and decoded one at a time (the tape holds one element), so
/// `decode([T].self, from:)` needs no memory for the tokens of the whole document.
/// Anything but an unkeyed container at the top level (a keyed container, a single
/// value) is answered by a regular whole-document decoder.
final class JSONTopArrayDecoder: Decoder {
    let reader: JSONElementReader
    let bytes: UnsafeRawBufferPointer
    let options: JSONValueDecoder.Options
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { options.userInfo }
    /// The whole-document decoder, when the type asked for something else than the array.
    private var whole: JSONTapeDecoder?
    private var streamed = false
    /// The document's syntax error, once found by the whole-document parse.
    private var failure: (any Error)?

    init(bytes: UnsafeRawBufferPointer, options: JSONValueDecoder.Options) throws {
        self.bytes = bytes
        self.options = options
        reader = try JSONElementReader(whole: bytes, layout: .array, options: options, trailingCommas: options.trailingCommas)
    }

    deinit { JSONTapeDecoder.pool.give(&whole) }

    /// Decodes `T`, then checks the rest of the document (values the type did not read included).
    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        if let array = T.self as? any JSONArrayDecodable.Type {
            // `[Element]`: the elements straight from the reader (what `Array.init(from:)`
            // does, without its per-element generic metadata lookup).
            streamed = true
            return try array.decodeElements(reader) as! T
        }
        let value = try type.init(from: self)
        // Whatever the type read, the whole document is checked (as a whole-document parse would).
        if whole == nil { try reader.drain { false } }
        return value
    }

    /// The whole document on a tape of its own (for containers other than the top-level array).
    func wholeDecoder() throws -> JSONTapeDecoder {
        if let whole { return whole }
        if let failure { throw failure }
        guard !streamed else {
            throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "The top-level array was already read as an unkeyed container"))
        }
        let d = try JSONTapeDecoder.pool.take()
        whole = d
        do { try d.parse(bytes, options: options) } catch {
            failure = error
            throw error
        }
        return d
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        try wholeDecoder().container(keyedBy: type)
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        if let whole { return try whole.unkeyedContainer() }
        if let failure { throw failure }
        streamed = true
        return JSONStreamedUnkeyedContainer(reader: reader)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        try wholeDecoder().singleValueContainer()
    }
}

// MARK: - The array as an unkeyed container

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
