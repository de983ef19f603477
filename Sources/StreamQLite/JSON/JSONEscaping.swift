import Foundation

// The one JSON string escaper and number formatter of the library.
//
// `JSONRowWriter` (query results → JSON) and `JSONValueEncoder` (Encodable →
// JSON) both write strings and numbers through the functions below, into a
// caller-owned output buffer: no String per value, no allocation.

// The Swift runtime's shortest round-trip formatters (what `Double.description`
// and `Float.description` call), exported by libswiftCore.
@_silgen_name("swift_float64ToString")
func _swiftFloat64ToString(
    _ buffer: UnsafeMutablePointer<UInt8>, _ bufferLength: Int, _ value: Double, _ debug: Bool
) -> UInt64

@_silgen_name("swift_float32ToString")
func _swiftFloat32ToString(
    _ buffer: UnsafeMutablePointer<UInt8>, _ bufferLength: Int, _ value: Float, _ debug: Bool
) -> UInt64

let jsonHexDigits: StaticString = "0123456789abcdef"
/// "00" "01" … "99": two decimal digits per lookup.
let digitPairs: StaticString = "00010203040506070809101112131415161718192021222324252627282930313233343536373839404142434445464748495051525354555657585960616263646566676869707172737475767778798081828384858687888990919293949596979899"

/// Copies a few bytes forward without calling memmove (faster for column prefixes and numbers).
@inline(__always)
func smallCopy(_ dst: UnsafeMutablePointer<UInt8>, _ src: UnsafePointer<UInt8>, _ n: Int) {
    var i = 0
    while i < n {
        dst[i] = src[i]
        i &+= 1
    }
}

/// Whether any of the 8 bytes of `w` needs escaping in a JSON string or is not ASCII:
/// `"`, `\`, a control character (< 0x20), ≥ 0x80, and with `slash` also `/`.
/// Exact as a whole-word test.
@inline(__always)
func wordNeedsAttention(_ w: UInt64, slash: Bool = false) -> Bool {
    let ones: UInt64 = 0x0101_0101_0101_0101
    let high: UInt64 = 0x8080_8080_8080_8080
    let quote = w ^ (ones &* 0x22)
    let backslash = w ^ (ones &* 0x5C)
    let control = (w &- ones &* 0x20) & ~w
    let hasQuote = (quote &- ones) & ~quote
    let hasBackslash = (backslash &- ones) & ~backslash
    var hits = control | hasQuote | hasBackslash
    if slash {
        let s = w ^ (ones &* 0x2F)
        hits |= (s &- ones) & ~s
    }
    return (hits & high) | (w & high) != 0
}

/// The escaper's fast path for a string with nothing to escape: copies `p[0..<n]` to `out`
/// and returns true when no byte needs escaping and all are ASCII (see ``wordNeedsAttention(_:slash:)``),
/// else returns false (`out` then holds garbage: write the string with ``jsonEscape``). Reads
/// whole words, overlapping at the end, never past `p + n`; `out` needs `n + 8` bytes of room.
@inline(__always)
func jsonCopyIfClean(_ p: UnsafePointer<UInt8>, _ n: Int, to out: UnsafeMutablePointer<UInt8>, escapeSlash: Bool) -> Bool {
    let src = UnsafeRawPointer(p), dst = UnsafeMutableRawPointer(out)
    if n >= 8 {
        var i = 0
        while i &+ 8 <= n {
            let w = src.loadUnaligned(fromByteOffset: i, as: UInt64.self)
            if wordNeedsAttention(w, slash: escapeSlash) { return false }
            dst.storeBytes(of: w, toByteOffset: i, as: UInt64.self)
            i &+= 8
        }
        if i < n {
            let w = src.loadUnaligned(fromByteOffset: n &- 8, as: UInt64.self)
            if wordNeedsAttention(w, slash: escapeSlash) { return false }
            dst.storeBytes(of: w, toByteOffset: n &- 8, as: UInt64.self)
        }
        return true
    }
    if n >= 4 {
        let a = src.loadUnaligned(as: UInt32.self), b = src.loadUnaligned(fromByteOffset: n &- 4, as: UInt32.self)
        if wordNeedsAttention(UInt64(a) | UInt64(b) << 32, slash: escapeSlash) { return false }
        dst.storeBytes(of: a, as: UInt32.self)
        dst.storeBytes(of: b, toByteOffset: n &- 4, as: UInt32.self)
        return true
    }
    if n > 0 {
        let a = p[0], b = p[n >> 1], c = p[n &- 1]
        // The other five bytes: `a`, which is clean or already fails the test.
        let w = UInt64(a) &* 0x0101_0101_0101_0101 & 0xFFFF_FFFF_FF00_0000 | UInt64(a) | UInt64(b) << 8 | UInt64(c) << 16
        if wordNeedsAttention(w, slash: escapeSlash) { return false }
        out[0] = a
        out[n >> 1] = b
        out[n &- 1] = c
    }
    return true
}

/// Whether key `a` sorts before `b` by their UTF-8 bytes (the order of `JSONEncoder`'s
/// `.sortedKeys`; `String`'s `<` compares Unicode canonical equivalents as equal).
func jsonKeyPrecedes(_ a: String, _ b: String) -> Bool {
    var a = a, b = b
    return a.withUTF8 { pa in
        b.withUTF8 { pb in
            let n = min(pa.count, pb.count)
            if n > 0 {
                let c = memcmp(pa.baseAddress!, pb.baseAddress!, n)
                if c != 0 { return c < 0 }
            }
            return pa.count < pb.count
        }
    }
}

/// Writes the decimal digits of `value` at `out` (which has at least 24 bytes of room); returns the length.
@inline(__always)
func writeDecimal(_ value: Int64, to out: UnsafeMutablePointer<UInt8>) -> Int {
    writeDecimal(magnitude: value.magnitude, negative: value < 0, to: out)
}

/// Writes `-`(if `negative`) and the decimal digits of `magnitude` at `out` (at least 24 bytes of room); returns the length.
@inline(__always)
func writeDecimal(magnitude value: UInt64, negative: Bool, to out: UnsafeMutablePointer<UInt8>) -> Int {
    var magnitude = value
    if magnitude < 10 {  // the most common small values: no scratch, no copy
        if negative { out[0] = UInt8(ascii: "-"); out[1] = UInt8(truncatingIfNeeded: magnitude) &+ 0x30; return 2 }
        out[0] = UInt8(truncatingIfNeeded: magnitude) &+ 0x30
        return 1
    }
    // Two digits at a time, backwards at the end of the reserved room, then moved into place.
    let pairs = digitPairs.utf8Start
    let end = out + 24
    var p = end
    while magnitude >= 100 {
        let r = Int(truncatingIfNeeded: magnitude % 100)
        magnitude /= 100
        p -= 2
        p[0] = pairs[2 &* r]
        p[1] = pairs[2 &* r &+ 1]
    }
    if magnitude >= 10 {
        let r = Int(truncatingIfNeeded: magnitude)
        p -= 2
        p[0] = pairs[2 &* r]
        p[1] = pairs[2 &* r &+ 1]
    } else {
        p -= 1
        p[0] = UInt8(truncatingIfNeeded: magnitude) &+ 0x30
    }
    if negative { p -= 1; p[0] = UInt8(ascii: "-") }
    let length = end - p
    smallCopy(out, p, length)  // forward copy: the destination is below the source
    return length
}

/// Writes the shortest form of a finite `value` that reads back to the same `Double`
/// (Swift's `description`: `0.1`, `1e-05`, `3.0`) at `out`, which has at least 40 bytes
/// of room; returns the length.
@inline(__always)
func writeShortestDouble(_ value: Double, to out: UnsafeMutablePointer<UInt8>) -> Int {
    // The formatter leaves the positions of padding zeros untouched (the
    // stdlib's own caller hands it a buffer of '0's), so pre-fill with '0'.
    // `doublesMatchSwiftDescriptionForRandomBitPatterns` guards this.
    out.initialize(repeating: 0x30, count: 40)
    return Int(_swiftFloat64ToString(out, 40, value, false))
}

/// As ``writeShortestDouble(_:to:)`` for a `Float` (`Float.description`: `0.1`, `1e+20`).
@inline(__always)
func writeShortestFloat(_ value: Float, to out: UnsafeMutablePointer<UInt8>) -> Int {
    out.initialize(repeating: 0x30, count: 40)
    return Int(_swiftFloat32ToString(out, 40, value, false))
}

/// The outcome of one ``jsonEscape(_:_:_:into:room:escapeSlash:escapeLineSeparators:rejectInvalidUTF8:)`` call.
struct JSONEscapeProgress {
    /// Bytes written to the output.
    var written: Int
    /// With `rejectInvalidUTF8`: the input offset of an ill-formed UTF-8 sequence (nothing written for it).
    var invalidAt: Int?
}

/// The JSON string escaper: escapes `p[i..<n]` (UTF-8, the contents of a string
/// without its quotes) into `out`, which has `room` bytes, advancing `i`.
///
/// Escapes `"`, `\` and control characters (short forms `\b \f \n \r \t`,
/// otherwise `\u00XX` with lowercase hex), `/` as `\/` with `escapeSlash`
/// (`JSONEncoder`'s default), U+2028/U+2029 as `\u2028`/`\u2029` with
/// `escapeLineSeparators`; everything else is copied. Ill-formed UTF-8
/// (per Unicode's well-formedness table) becomes U+FFFD for each maximal
/// invalid subpart, or with `rejectInvalidUTF8` stops with its offset.
///
/// Returns when the input is consumed, when fewer than 16 bytes of room are
/// left (the caller flushes and calls again) or at an invalid sequence.
@inline(__always)
func jsonEscape(
    _ p: UnsafePointer<UInt8>, _ n: Int, _ i: inout Int,
    into buffer: UnsafeMutablePointer<UInt8>, room capacity: Int,
    escapeSlash: Bool, escapeLineSeparators: Bool, rejectInvalidUTF8: Bool
) -> JSONEscapeProgress {
    var count = 0
    @inline(__always) func append(_ byte: UInt8) {
        buffer[count] = byte
        count &+= 1
    }
    while i < n {
        // Room for the longest unit below (an escape or replacement: 6 bytes).
        if capacity - count < 16 { break }
        // Fast path: a run of printable ASCII other than `"` and `\` (and `/`), copied while
        // it is scanned, 8 bytes at a time while whole words are clean.
        let limit = min(n, i + (capacity - count - 8))
        var j = i
        let out = buffer + count - i  // out + j is where p[j] goes
        while j &+ 8 <= limit {
            let w = UnsafeRawPointer(p + j).loadUnaligned(as: UInt64.self)
            if wordNeedsAttention(w, slash: escapeSlash) { break }
            UnsafeMutableRawPointer(out + j).storeBytes(of: w, as: UInt64.self)
            j &+= 8
        }
        while j < limit {
            let b = p[j]
            if b &- 0x20 >= 0x60 || b == 0x22 || b == 0x5C || (escapeSlash && b == 0x2F) { break }
            out[j] = b
            j &+= 1
        }
        if j > i {
            count += j - i
            i = j
            continue
        }
        let b = p[i]
        if b < 0x80 {
            append(UInt8(ascii: "\\"))
            switch b {
            case 0x22: append(0x22)
            case 0x5C: append(0x5C)
            case 0x2F: append(0x2F)
            case 0x08: append(UInt8(ascii: "b"))
            case 0x0C: append(UInt8(ascii: "f"))
            case 0x0A: append(UInt8(ascii: "n"))
            case 0x0D: append(UInt8(ascii: "r"))
            case 0x09: append(UInt8(ascii: "t"))
            default:
                append(UInt8(ascii: "u")); append(0x30); append(0x30)
                append(jsonHexDigits.utf8Start[Int(b >> 4)])
                append(jsonHexDigits.utf8Start[Int(b & 15)])
            }
            i += 1
            continue
        }
        // Non-ASCII: find the length of a well-formed sequence, or of the
        // maximal invalid subpart.
        let need: Int
        var lo: UInt8 = 0x80, hi: UInt8 = 0xBF
        switch b {
        case 0xC2...0xDF: need = 1
        case 0xE0: need = 2; lo = 0xA0
        case 0xE1...0xEC, 0xEE, 0xEF: need = 2
        case 0xED: need = 2; hi = 0x9F
        case 0xF0: need = 3; lo = 0x90
        case 0xF1...0xF3: need = 3
        case 0xF4: need = 3; hi = 0x8F
        default: need = 0
        }
        var len = 1
        if need > 0 && i + 1 < n && p[i + 1] >= lo && p[i + 1] <= hi {
            len = 2
            while len <= need && i + len < n && p[i + len] & 0xC0 == 0x80 { len += 1 }
        }
        if need > 0 && len == need + 1 {
            if b == 0xE2 && p[i + 1] == 0x80 && (p[i + 2] == 0xA8 || p[i + 2] == 0xA9) && escapeLineSeparators {
                append(UInt8(ascii: "\\")); append(UInt8(ascii: "u")); append(UInt8(ascii: "2"))
                append(UInt8(ascii: "0")); append(UInt8(ascii: "2"))
                append(p[i + 2] == 0xA8 ? UInt8(ascii: "8") : UInt8(ascii: "9"))
            } else {
                (buffer + count).update(from: p + i, count: len)
                count += len
            }
        } else {
            if rejectInvalidUTF8 { return JSONEscapeProgress(written: count, invalidAt: i) }
            append(0xEF); append(0xBF); append(0xBD)
        }
        i += len
    }
    return JSONEscapeProgress(written: count, invalidAt: nil)
}

/// Appends `s` as a quoted JSON string to `out` (a Swift String is valid UTF-8).
func appendJSONQuoted(_ s: String, to out: inout [UInt8], escapeSlash: Bool = false, escapeLineSeparators: Bool) {
    var s = s
    s.withUTF8 { utf8 in
        out.append(UInt8(ascii: "\""))
        if let p = utf8.baseAddress {
            var i = 0
            while i < utf8.count {
                // At most 6 output bytes per input byte.
                let room = (utf8.count - i) * 6 + 16
                let start = out.count
                out.append(contentsOf: repeatElement(0, count: room))
                let written = out.withUnsafeMutableBufferPointer { buf in
                    jsonEscape(p, utf8.count, &i, into: buf.baseAddress! + start, room: room, escapeSlash: escapeSlash,
                               escapeLineSeparators: escapeLineSeparators, rejectInvalidUTF8: false).written
                }
                out.removeLast(room - written)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}
