/// `String`s from UTF-8 the JSON parser already validated, without validating it again.
///
/// `String(decoding:as:)` checks every byte and then copies; for the short strings
/// that make up most JSON values and keys (up to 15 bytes: Swift's small-string
/// form, held in the `String` itself) that is most of the cost of making one. An
/// ASCII string of up to 15 bytes is made here straight in that form: the bytes in
/// the two words of the `String`, the count and the small-ASCII flags in the top
/// byte — the layout `String` uses on 64-bit platforms (`_StringObject`, fixed by
/// the standard library's ABI). ``JSONValidatedString/smallFormWorks`` checks that
/// layout once against strings the standard library made; if it ever differs, every
/// string goes through `String(decoding:as:)`. Longer or non-ASCII text also does.
enum JSONValidatedString {
    /// Whether strings built in the small form equal the standard library's (checked once).
    static let smallFormWorks: Bool = {
        #if _pointerBitWidth(_64) && _endian(little)
        guard MemoryLayout<String>.size == 16 else { return false }
        for sample in ["", "a", "comment", "123456789012345", "abcdefgh", "key_with\"x"] {
            var s = sample
            let built = s.withUTF8 { small($0.baseAddress ?? UnsafePointer(bitPattern: 1)!, $0.count) }
            guard let built, built == sample, built.utf8.count == sample.utf8.count,
                  built.hashValue == sample.hashValue, Array(built.utf8) == Array(sample.utf8) else { return false }
        }
        var wide = "é"
        if wide.withUTF8({ small($0.baseAddress!, $0.count) }) != nil { return false }
        return true
        #else
        return false
        #endif
    }()

    /// The `String` of `count` bytes of valid UTF-8 at `p`.
    @inline(__always)
    static func make(_ p: UnsafePointer<UInt8>, _ count: Int) -> String {
        if count <= 15 && smallFormWorks, let s = small(p, count) { return s }
        return String(decoding: UnsafeBufferPointer(start: p, count: count), as: UTF8.self)
    }

    /// The small-form `String` of up to 15 ASCII bytes, nil for other bytes.
    @inline(__always)
    static func small(_ p: UnsafePointer<UInt8>, _ count: Int) -> String? {
        #if _pointerBitWidth(_64) && _endian(little)
        var low: UInt64 = 0, high: UInt64 = 0
        var i = 0
        while i < count && i < 8 {
            low |= UInt64(p[i]) &<< UInt64(i &* 8)
            i &+= 1
        }
        while i < count {
            high |= UInt64(p[i]) &<< UInt64((i &- 8) &* 8)
            i &+= 1
        }
        guard (low | high) & 0x8080_8080_8080_8080 == 0 else { return nil }
        // Immortal (0x80), ASCII (0x40), small (0x20), then the count.
        high |= (0xE0 | UInt64(count)) &<< 56
        return unsafeBitCast((low, high), to: String.self)
        #else
        return nil
        #endif
    }
}
