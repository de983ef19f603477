import CStreamQLite
import Foundation

/// The object a ``JSONKeyedContainer`` reads (raw memory owned by the decoder).
struct JSONObjectFrame {
    var object: Int
    var end: Int
    let depth: Int
    /// The decoder's ``JSONTapeDecoder/generation`` when the frame was pointed at its object.
    var generation: UInt64 = 0
    /// The names of a one-byte key type's keys, by byte (`count` -1: not seen yet).
    var names: UnsafeMutablePointer<JSONKeyName>?

    init(object: Int, end: Int, depth: Int) {
        self.object = object
        self.end = end
        self.depth = depth
    }

    mutating func makeNames() -> UnsafeMutablePointer<JSONKeyName> {
        let n = UnsafeMutablePointer<JSONKeyName>.allocate(capacity: 256)
        n.initialize(repeating: JSONKeyName(), count: 256)
        names = n
        return n
    }

    /// Frees the names (the frame's memory is the caller's).
    func freeNames() {
        guard let names else { return }
        for i in 0..<256 where names[i].count > 0 { names[i].bytes.deallocate() }
        names.deallocate()
    }
}

/// A key's UTF-8 bytes.
struct JSONKeyName {
    var bytes: UnsafeMutablePointer<UInt8>
    var count: Int
    init() {
        bytes = UnsafeMutablePointer(bitPattern: 1)!
        count = -1
    }
    init(_ s: String) {
        let utf8 = Array(s.utf8)
        count = utf8.count
        bytes = .allocate(capacity: max(count, 1))
        bytes.initialize(from: utf8, count: count)
    }
}
