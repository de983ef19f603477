import CStreamQLite
import Foundation

/// `[Element]` read by the decoders themselves: element by element from a
/// ``JSONElementReader`` (a top-level array decoded one element at a time), or from the
/// tape: the elements counted first (an array of that size, no growing), then each decoded
/// as `Array.init(from:)` would through an unkeyed container.
protocol JSONArrayDecodable {
    static func decodeElements(_ reader: JSONElementReader) throws -> Self
    static func decodeArray(from decoder: JSONTapeDecoder, at index: Int) throws -> Self
}

extension Array: JSONArrayDecodable where Element: Decodable {
    static func decodeElements(_ reader: JSONElementReader) throws -> [Element] {
        if let hand = Element.self as? any JSONDecodable.Type {
            // `init(json:)` straight from the reader: no `unwrap` dispatch per element.
            return try decodeHandWritten(hand, reader)
        }
        if !reader.decoder.readsItself(Element.self) {
            // A type read by its `init(from:)`: called straight, without `unwrap`'s checks per element.
            return try collectElements(reader) { try reader.decodePlain(Element.self) }
        }
        return try collectElements(reader) { try reader.decode(Element.self) }
    }

    private static func decodeHandWritten<H: JSONDecodable>(_ hand: H.Type, _ reader: JSONElementReader) throws -> [Element] {
        let values: [H] = try collectElements(reader) { try reader.decodeHandWritten(H.self) }
        return unsafeBitCast(values, to: [Element].self)
    }
}

extension Array where Element: Decodable {
    static func decodeArray(from decoder: JSONTapeDecoder, at index: Int) throws -> [Element] {
        let t = decoder.tokens[index]
        guard t.kind == JSONKind.array else {
            // `Array.init(from:)`'s own error (null, another kind of value).
            decoder.current = index
            return try Self(from: decoder)
        }
        let end = Int(t.length)
        var count = 0
        var j = index &+ 1
        while j < end {
            count &+= 1
            j = decoder.next(j)
        }
        // An empty array without `unsafeUninitializedCapacity`: with capacity 0 it writes the
        // count into the standard library's shared empty-array storage (a race under TSan).
        guard count > 0 else { return [] }
        return try [Element](unsafeUninitializedCapacity: count) { buffer, initialized in
            var j = index &+ 1
            while initialized < count {
                (buffer.baseAddress.unsafelyUnwrapped + initialized).initialize(to: try decoder.unwrap(Element.self, at: j))
                initialized &+= 1
                j = decoder.next(j)
            }
        }
    }
}

/// The values of a ``JSONElementReader``, each made by `one`, collected into a buffer
/// of their own and made an array once at the end: this code is not specialized for
/// `E`, and `Array.append` there looked up the array's generic metadata for every
/// element (a third of decoding a small struct).
func collectElements<E>(_ reader: JSONElementReader, _ one: () throws -> E) throws -> [E] {
    var capacity = 16
    var count = 0
    var buffer = UnsafeMutablePointer<E>.allocate(capacity: capacity)
    defer {
        buffer.deinitialize(count: count)
        buffer.deallocate()
    }
    loop: while true {
        switch try reader.step() {
        case .value:
            if count == capacity {
                let grown = UnsafeMutablePointer<E>.allocate(capacity: capacity * 2)
                grown.moveInitialize(from: buffer, count: count)
                buffer.deallocate()
                buffer = grown
                capacity *= 2
            }
            (buffer + count).initialize(to: try one())
            count += 1
        case .end: break loop
        case .needInput: if try reader.finish() == .end { break loop }
        }
    }
    let n = count
    guard n > 0 else { return [] }
    let result = [E](unsafeUninitializedCapacity: n) { target, initialized in
        target.baseAddress!.moveInitialize(from: buffer, count: n)
        initialized = n
    }
    count = 0
    return result
}
