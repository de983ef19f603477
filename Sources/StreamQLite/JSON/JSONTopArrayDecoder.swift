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
        reader = try JSONElementReader(whole: bytes, layout: .array, options: options, trailingCommas: true)
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
