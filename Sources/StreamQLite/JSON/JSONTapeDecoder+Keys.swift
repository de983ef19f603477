import CStreamQLite
import Foundation

extension JSONTapeDecoder {
    // MARK: Keys

    /// The key at `i` as the coding keys see it (converted by the key strategy); `path`: the
    /// coding path of its object, which a custom strategy is given.
    func keyString(at i: Int, in path: @autoclosure () -> [any CodingKey]) -> String {
        let raw = string(at: i)
        guard options.keys.converts else { return raw }
        if options.keys.dependsOnPath { return options.keys.convert(raw, in: path()) }
        if let c = converted[raw] { return c }
        let c = options.keys.convert(raw, in: [])
        converted[raw] = c
        return c
    }

    /// Whether the key at `j` is `name`.
    @inline(__always)
    func keyMatches(_ j: Int, _ name: UnsafeBufferPointer<UInt8>) -> Bool {
        let t = tokens[j]
        let n = name.count
        guard Int(t.length) == n else { return false }
        guard n > 0 else { return true }
        let a = text(t), b = name.baseAddress.unsafelyUnwrapped
        if n <= 16 {
            // Short keys (nearly all): no call.
            var i = 0
            while i < n {
                if a[i] != b[i] { return false }
                i &+= 1
            }
            return true
        }
        return memcmp(a, b, n) == 0
    }

    /// The value token of `key` in the object at `object`, or nil; with `consume`, moves the
    /// object's hint past it.
    @inline(__always)
    func find<Key: CodingKey>(_ key: Key, in frame: UnsafeMutablePointer<JSONObjectFrame>, consume: Bool) -> Int? {
        let object = frame.pointee.object, end = frame.pointee.end
        if options.keys.converts { return findConverted(key.stringValue, object: object, end: end) }
        // Synthesized `CodingKeys` (one byte of plain data): the name's bytes kept per key
        // type and case, no `stringValue` call.
        if isByteCodingKey(Key.self) {
            let byte = codingKeyByte(key)
            let names = frame.pointee.names ?? frame.pointee.makeNames()
            if _slowPath(names[byte].count < 0) { names[byte] = JSONKeyName(key.stringValue) }
            return find(UnsafeBufferPointer(start: names[byte].bytes, count: names[byte].count), object: object, end: end,
                        depth: frame.pointee.depth, consume: consume)
        }
        var name = key.stringValue
        return name.withUTF8 { find($0, object: object, end: end, depth: frame.pointee.depth, consume: consume) }
    }

    @inline(__always)
    func find(_ name: UnsafeBufferPointer<UInt8>, object: Int, end: Int, depth: Int, consume: Bool) -> Int? {
        let h = hints + depth
        if h.pointee.object != object {
            h.pointee = KeyHint(object: object, next: object + 1, inOrder: true)
        }
        let n = h.pointee.next
        if _fastPath(h.pointee.inOrder && n < end && keyMatches(n, name)) {
            if consume { h.pointee.next = next(n + 1) }
            return n + 1
        }
        return findSlow(name, object: object, end: end, hint: h, consume: consume)
    }

    func findSlow(_ name: UnsafeBufferPointer<UInt8>, object: Int, end: Int, hint h: UnsafeMutablePointer<KeyHint>, consume: Bool) -> Int? {
        var j = object + 1
        var sawNonASCII = false
        while j < end {
            if keyMatches(j, name) {
                if sawNonASCII, let earlier = findEquivalent(String(decoding: name, as: UTF8.self), object: object, end: j) {
                    return earlier
                }
                if consume {
                    h.pointee.inOrder = false
                    h.pointee.next = next(j + 1)
                }
                return j + 1
            }
            if !sawNonASCII && bytes(at: j).contains(where: { $0 >= 0x80 }) { sawNonASCII = true }
            j = next(j + 1)
        }
        // No byte-equal key: String equality (canonical equivalence), as JSONDecoder's dictionary.
        if sawNonASCII || name.contains(where: { $0 >= 0x80 }) {
            return findEquivalent(String(decoding: name, as: UTF8.self), object: object, end: end)
        }
        return nil
    }

    /// The first member whose key equals `name` as Strings compare.
    func findEquivalent(_ name: String, object: Int, end: Int) -> Int? {
        var j = object + 1
        while j < end {
            if string(at: j) == name { return j + 1 }
            j = next(j + 1)
        }
        return nil
    }

    /// The first member whose converted key is `name` (as `JSONDecoder`, which keeps the first
    /// of the members whose keys convert to one).
    func findConverted(_ name: String, object: Int, end: Int) -> Int? {
        let objectPath = options.keys.dependsOnPath ? path(to: object) : []
        var j = object + 1
        while j < end {
            if keyString(at: j, in: objectPath) == name { return j + 1 }
            j = next(j + 1)
        }
        return nil
    }
}
