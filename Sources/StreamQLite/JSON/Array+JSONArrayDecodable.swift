import CStreamQLite
import Foundation

/// `[Element]` read element by element from a ``JSONElementReader``.
protocol JSONArrayDecodable {
    static func decodeElements(_ reader: JSONElementReader) throws -> Self
}

extension Array: JSONArrayDecodable where Element: Decodable {
    static func decodeElements(_ reader: JSONElementReader) throws -> [Element] {
        if let hand = Element.self as? any JSONDecodable.Type {
            // `init(json:)` straight from the reader: no `unwrap` dispatch per element.
            return try decodeHandWritten(hand, reader)
        }
        return try collectElements(reader) { try reader.decode(Element.self) }
    }

    private static func decodeHandWritten<H: JSONDecodable>(_ hand: H.Type, _ reader: JSONElementReader) throws -> [Element] {
        let values: [H] = try collectElements(reader) { try reader.decodeHandWritten(H.self) }
        return unsafeBitCast(values, to: [Element].self)
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
