import CStreamQLite
import Foundation

extension JSONTapeDecoder {
    // MARK: Scalars

    @inline(__always)
    func readBool(at i: Int) throws -> Bool {
        let k = tokens[i].kind
        if k == JSONKind.true { return true }
        if k == JSONKind.false { return false }
        throw DecodingError.typeMismatch(Bool.self, .init(
            codingPath: path(to: i),
            debugDescription: "Expected to decode Bool but found \(JSONKind.describe(k)) instead (\(location(of: i)))"))
    }

    @inline(__always)
    func readString(at i: Int) throws -> String {
        let t = tokens[i]
        guard t.kind == JSONKind.string else { throw mismatch(String.self, at: i) }
        return JSONValidatedString.make(text(t), Int(t.length))
    }

    @inline(__always)
    func readInteger<T: FixedWidthInteger>(_ type: T.Type, at i: Int) throws -> T {
        let t = tokens[i]
        guard t.kind == JSONKind.number else { throw mismatch(T.self, at: i) }
        if _fastPath(t.flags & JSONKind.integerFlag != 0) {
            // Up to 18 digits cannot overflow an Int64.
            let p = text(t)
            let n = Int(t.length)
            let negative = p[0] == UInt8(ascii: "-")
            var k = negative ? 1 : 0
            if _fastPath(n - k <= 18) {
                var v: Int64 = 0
                while k < n {
                    v = v &* 10 &+ Int64(p[k] &- 0x30)
                    k &+= 1
                }
                if negative { v = -v }
                if let r = T(exactly: v) { return r }
                throw notRepresentable(T.self, at: i)
            }
        }
        return try readIntegerSlow(T.self, at: i)
    }

    /// Long integers, and numbers with a fraction or exponent: `JSONDecoder`'s rules.
    func readIntegerSlow<T: FixedWidthInteger>(_ type: T.Type, at i: Int) throws -> T {
        let b = bytes(at: i)
        if tokens[i].flags & JSONKind.integerFlag != 0 {
            // Exact, with overflow checks.
            let negative = b[0] == UInt8(ascii: "-")
            var v: T = 0
            var ok = true
            for c in b.dropFirst(negative ? 1 : 0) {
                let (m, o1) = v.multipliedReportingOverflow(by: 10)
                let d = T(c &- 0x30)
                let (s, o2) = negative ? m.subtractingReportingOverflow(d) : m.addingReportingOverflow(d)
                if o1 || o2 { ok = false; break }
                v = s
            }
            if ok { return v }
        }
        // As `JSONDecoder`: through Double when that is exact below 2^53, else through Decimal.
        let d = sq_json_number_double(UnsafeRawPointer(b.baseAddress!).assumingMemoryBound(to: CChar.self), b.count)
        guard let value = T(exactly: d) else { throw notRepresentable(T.self, at: i) }
        if d.magnitude < 9_007_199_254_740_992 { return value }
        if let decimal = Decimal(string: String(decoding: b, as: UTF8.self)), let value = T(jsonDecimal: decimal) {
            return value
        }
        throw notRepresentable(T.self, at: i)
    }

    @inline(__always)
    func readDouble(at i: Int) throws -> Double {
        let t = tokens[i]
        guard t.kind == JSONKind.number else { return try nonConforming(Double.self, at: i) }
        let p = text(t)
        let n = Int(t.length)
        if t.flags & JSONKind.integerFlag != 0 && n <= 16 {
            // At most 15 digits: exact in a Double.
            let negative = p[0] == UInt8(ascii: "-")
            var k = negative ? 1 : 0
            var v: Int64 = 0
            while k < n {
                v = v &* 10 &+ Int64(p[k] &- 0x30)
                k &+= 1
            }
            if n - (negative ? 1 : 0) <= 15 {
                // -0 stays -0.0, as strtod gives.
                return negative ? (v == 0 ? -0.0 : -Double(v)) : Double(v)
            }
        }
        if let d = fastDouble(p, n) { return d }
        let d = sq_json_number_double(UnsafeRawPointer(p).assumingMemoryBound(to: CChar.self), n)
        return try checkedFloat(d, at: i)
    }

    /// Clinger's fast path: up to 15 significant digits and a power of ten up to 22 are exact.
    @inline(__always)
    func fastDouble(_ p: UnsafePointer<UInt8>, _ n: Int) -> Double? {
        var k = 0
        let negative = p[0] == UInt8(ascii: "-")
        if negative { k = 1 }
        var mantissa: UInt64 = 0
        var digits = 0
        var scale = 0
        var seenDot = false
        while k < n {
            let c = p[k]
            if c == UInt8(ascii: ".") { seenDot = true; k += 1; continue }
            if c == UInt8(ascii: "e") || c == UInt8(ascii: "E") { break }
            if mantissa != 0 || c != 0x30 { digits += 1 }
            if digits > 15 { return nil }
            mantissa = mantissa * 10 + UInt64(c - 0x30)
            if seenDot { scale -= 1 }
            k += 1
        }
        if k < n {
            k += 1
            var expNegative = false
            if p[k] == UInt8(ascii: "-") { expNegative = true; k += 1 } else if p[k] == UInt8(ascii: "+") { k += 1 }
            var e = 0
            while k < n {
                e = e * 10 + Int(p[k] - 0x30)
                if e > 400 { return nil }
                k += 1
            }
            scale += expNegative ? -e : e
        }
        var d = Double(mantissa)
        if scale < 0 {
            guard scale >= -22 else { return nil }
            d /= powersOfTen[-scale]
        } else if scale > 0 {
            guard scale <= 22 else { return nil }
            d *= powersOfTen[scale]
        }
        return negative ? -d : d
    }

    /// `JSONDecoder` rejects numbers that overflow to ±∞ or underflow to 0.
    func checkedFloat<F: BinaryFloatingPoint>(_ value: F, at i: Int) throws -> F {
        if value.isFinite {
            if value != 0 { return value }
            // A true zero has no non-zero digit before its exponent.
            for c in bytes(at: i) {
                if c == UInt8(ascii: "e") || c == UInt8(ascii: "E") { break }
                if c >= UInt8(ascii: "1") && c <= UInt8(ascii: "9") { throw notRepresentable(F.self, at: i) }
            }
            return value
        }
        throw notRepresentable(F.self, at: i)
    }

    func readFloat(at i: Int) throws -> Float {
        let t = tokens[i]
        guard t.kind == JSONKind.number else { return try nonConforming(Float.self, at: i) }
        // strtof rounds once, straight to Float (as JSONDecoder).
        guard let f = Float(Substring(String(decoding: bytes(at: i), as: UTF8.self))) else {
            throw notRepresentable(Float.self, at: i)
        }
        return try checkedFloat(f, at: i)
    }

    func nonConforming<F: BinaryFloatingPoint>(_ type: F.Type, at i: Int) throws -> F {
        if case .convertFromString(let posInf, let negInf, let nan) = options.nonConforming, tokens[i].kind == JSONKind.string {
            // The string as written is compared, as `JSONDecoder` does: `"Na\u004E"` is not `"NaN"`.
            let b = writtenString(at: i)
            if b.elementsEqual(posInf.utf8) { return F.infinity }
            if b.elementsEqual(negInf.utf8) { return -F.infinity }
            if b.elementsEqual(nan.utf8) { return F.nan }
        }
        throw mismatch(F.self, at: i)
    }

    /// The string at `i` as the document has it (escapes not undone), when it is at hand;
    /// else the string.
    func writtenString(at i: Int) -> UnsafeBufferPointer<UInt8> {
        let t = tokens[i]
        guard t.flags & JSONTape.arenaFlag != 0 else { return bytes(at: i) }
        let start = offset(of: i) + 1 - inputOffset
        guard start >= 1, start <= inputCount else { return bytes(at: i) }
        var end = start
        while end < inputCount && input[end] != UInt8(ascii: "\"") { end += input[end] == UInt8(ascii: "\\") ? 2 : 1 }
        return UnsafeBufferPointer(start: input + start, count: min(end, inputCount) - start)
    }

    // MARK: Any value

    /// Decodes the value at token `i`; `key` is its key in the enclosing container (for the coding path).
    @inline(__always)
    func unwrap<T: Decodable>(_ type: T.Type, at i: Int) throws -> T {
        // The common scalars without going through `init(from:)`.
        if T.self == String.self { return unsafeBitCast(try readString(at: i), to: T.self) }
        if T.self == Int.self { return unsafeBitCast(try readInteger(Int.self, at: i), to: T.self) }
        if T.self == Double.self { return unsafeBitCast(try readDouble(at: i), to: T.self) }
        if T.self == Bool.self { return unsafeBitCast(try readBool(at: i), to: T.self) }
        return try unwrapOther(type, at: i)
    }

    /// Whether `unwrap` reads a `T` other than by calling its `init(from:)` (a scalar, a
    /// type with a strategy, a ``JSONDecodable`` type, a dictionary keeping its keys).
    func readsItself<T: Decodable>(_ type: T.Type) -> Bool {
        T.self == String.self || T.self == Int.self || T.self == Double.self || T.self == Bool.self
            || T.self == Date.self || T.self == Data.self || T.self == URL.self || T.self == Decimal.self
            || plan(for: T.self).pointee.readsDirectly
    }

    func unwrapOther<T: Decodable>(_ type: T.Type, at i: Int) throws -> T {
        // `decode(Employee.self as Person.Type, …)`: the runtime type's `init(from:)`, as `JSONDecoder`.
        if _slowPath(type != T.self) {
            let runtime: any Decodable.Type = type
            return try unwrapRuntimeType(runtime, at: i) as! T
        }
        if T.self == Date.self { return try readDate(at: i) as! T }
        if T.self == Data.self { return try readData(at: i) as! T }
        if T.self == URL.self { return try readURL(at: i) as! T }
        if T.self == Decimal.self { return try readDecimal(at: i) as! T }
        // The other scalars, as their single value container reads them (no `init(from:)`).
        if T.self == Int64.self { return unsafeBitCast(try readInteger(Int64.self, at: i), to: T.self) }
        if T.self == Int32.self { return unsafeBitCast(try readInteger(Int32.self, at: i), to: T.self) }
        if T.self == UInt8.self { return unsafeBitCast(try readInteger(UInt8.self, at: i), to: T.self) }
        if T.self == Float.self { return unsafeBitCast(try readFloat(at: i), to: T.self) }
        let plan = plan(for: T.self)
        if plan.pointee.readsDirectly {
            if let hand = plan.pointee.hand {
                return try nested { try decodeOpened(hand, as: T.self, self, at: i) }
            }
            if let array = plan.pointee.array {
                return try nested { try decodeArrayOpened(array, as: T.self, self, at: i) }
            }
            if let dictionary = plan.pointee.dictionary {
                return try nested { try decodeDictionaryOpened(dictionary, as: T.self, self, at: i) }
            }
        }
        return try nested {
            current = i
            return try T(from: self)
        }
    }

    /// Decodes a value of `type` (opened: its own plan and `init(from:)`).
    func unwrapRuntimeType<U: Decodable>(_ type: U.Type, at i: Int) throws -> Any {
        try unwrap(U.self, at: i)
    }

    /// Runs `body` one level deeper (the key only documents the call: paths come from the tape).
    @inline(__always)
    func nested<R>(_ body: () throws -> R) throws -> R {
        let saved = current
        depth += 1
        defer {
            depth -= 1
            current = saved
        }
        return try body()
    }

    func readDate(at i: Int) throws -> Date {
        if tokens[i].kind == JSONKind.null { throw mismatch(Date.self, at: i) }
        switch options.date {
        case .databaseText:
            if tokens[i].kind == JSONKind.number {
                // As a date column: a number is seconds since 1970.
                return Date(timeIntervalSince1970: try readDouble(at: i))
            }
            guard tokens[i].kind == JSONKind.string else { throw mismatch(String.self, at: i) }
            guard let date = parseSQLiteDate(bytes(at: i)) else {
                throw corrupted("Expected a date as text yyyy-MM-dd HH:mm:ss.SSS (UTC), found \"\(string(at: i))\"", at: i)
            }
            return date
        case .deferredToDate:
            return try nested { current = i; return try Date(from: self) }
        case .secondsSince1970:
            return Date(timeIntervalSince1970: try readDouble(at: i))
        case .millisecondsSince1970:
            return Date(timeIntervalSince1970: try readDouble(at: i) / 1000.0)
        case .iso8601:
            let s = try readString(at: i)
            guard let date = try? Date.ISO8601FormatStyle().parse(s) else {
                throw corrupted("Expected date string to be ISO8601-formatted.", at: i)
            }
            return date
        case .formatted(let formatter):
            let s = try readString(at: i)
            guard let date = formatter.date(from: s) else {
                throw corrupted("Date string does not match format expected by formatter.", at: i)
            }
            return date
        case .custom(let body):
            return try nested { current = i; return try body(self) }
        }
    }

    func readData(at i: Int) throws -> Data {
        if tokens[i].kind == JSONKind.null { throw mismatch(Data.self, at: i) }
        switch options.data {
        case .base64:
            guard tokens[i].kind == JSONKind.string else { throw mismatch(String.self, at: i) }
            guard let data = Data(base64Encoded: string(at: i)) else {
                throw corrupted("Encountered Data is not valid Base64.", at: i)
            }
            return data
        case .deferredToData:
            return try nested { current = i; return try Data(from: self) }
        case .custom(let body):
            return try nested { current = i; return try body(self) }
        }
    }

    func readURL(at i: Int) throws -> URL {
        if tokens[i].kind == JSONKind.null { throw mismatch(URL.self, at: i) }
        let s = try readString(at: i)
        guard let url = URL(string: s) else { throw corrupted("Invalid URL string.", at: i) }
        return url
    }

    func readDecimal(at i: Int) throws -> Decimal {
        guard tokens[i].kind == JSONKind.number else { throw mismatch(Decimal.self, at: i) }
        guard let d = Decimal(string: String(decoding: bytes(at: i), as: UTF8.self)) else {
            throw notRepresentable(Decimal.self, at: i)
        }
        return d
    }

}

private let powersOfTen: [Double] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
    1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
]

extension FixedWidthInteger {
    /// `JSONDecoder`'s Decimal → integer conversion: the fraction is truncated; nil when it does not fit.
    init?(jsonDecimal decimal: Decimal) {
        guard decimal.isFinite else { return nil }
        // The description is plain digits ("-12345678901234567.5", no exponent).
        let text = decimal.description
        let integral = text.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)[0]
        if integral == "-0" { self = 0; return }
        guard let v = Self(integral) else { return nil }
        self = v
    }
}
