import Foundation
import Testing
import StreamQLite

/// Integers past 2^53, where a number goes through `Decimal`: `JSONValueDecoder` gives what
/// Foundation's `JSONDecoder` gives — the value, or an error for a number with a fraction or
/// out of range — never a fraction silently dropped.
@Suite struct JSONIntegerEdgeTests {
    enum Outcome: Equatable { case value(String), error }

    static func ours<T: Decodable & FixedWidthInteger>(_ type: T.Type, _ text: String) -> Outcome {
        do { return .value("\(try JSONValueDecoder().decode([T].self, from: "[\(text)]")[0])") } catch { return .error }
    }

    static func foundation<T: Decodable & FixedWidthInteger>(_ type: T.Type, _ text: String) -> Outcome {
        do { return .value("\(try JSONDecoder().decode([T].self, from: Data("[\(text)]".utf8))[0])") } catch { return .error }
    }

    /// Numbers both read the same way: integers in and out of range, whole numbers written
    /// with a fraction or an exponent, fractions below 2^53 (read through a Double by both).
    static let agreeing = [
        "9223372036854775806.0", "-9223372036854775808", "9223372036854775807", "9223372036854775808",
        "18446744073709551615", "18446744073709551616", "1e19", "1.5e19", "9007199254740993", "1.5", "-0.0",
        "12.0", "1e2", "-1e2", "1.0000000000000001", "-9223372036854775809",
    ]

    /// Whole-number types and a fraction from 2^53 up: JSONDecoder refuses some
    /// (-9223372036854775801.5) and drops the fraction of others (9007199254740993.5 → …993);
    /// ours refuses every one — a value is never stored changed.
    static let fractionsPast2To53 = [
        "-9223372036854775801.5", "9223372036854775807.5", "12345678901234567890.123456789",
        "9007199254740993.5", "9007199254740993.25", "1152921504606846977.5", "-1152921504606846977.5",
        "4611686018427387905.5", "123456789012345678.5", "12345678901234567.5",
    ]

    @Test(arguments: agreeing) func int64AsFoundation(_ text: String) {
        #expect(Self.ours(Int64.self, text) == Self.foundation(Int64.self, text), "Int64 from \(text)")
    }

    @Test(arguments: agreeing) func uint64AsFoundation(_ text: String) {
        #expect(Self.ours(UInt64.self, text) == Self.foundation(UInt64.self, text), "UInt64 from \(text)")
    }

    @Test(arguments: fractionsPast2To53) func aFractionIsNeverDropped(_ text: String) {
        #expect(Self.ours(Int64.self, text) == .error, "Int64 from \(text)")
        #expect(Self.ours(UInt64.self, text) == .error, "UInt64 from \(text)")
        // What JSONDecoder does instead: an error, or the value without its fraction.
        let whole = String(text.split(separator: ".")[0])
        for f in [Self.foundation(Int64.self, text), Self.foundation(UInt64.self, text)] {
            #expect(f == .error || f == .value(whole), "JSONDecoder on \(text): \(f)")
        }
    }
}

/// The output options carry Foundation's bits, so a value moved between the two means the same.
@Suite struct JSONOutputFormattingBitsTests {
    @Test func theBitsAreFoundations() {
        #expect(JSONValueEncoder.OutputFormatting.prettyPrinted.rawValue == JSONEncoder.OutputFormatting.prettyPrinted.rawValue)
        #expect(JSONValueEncoder.OutputFormatting.sortedKeys.rawValue == JSONEncoder.OutputFormatting.sortedKeys.rawValue)
        #expect(JSONValueEncoder.OutputFormatting.withoutEscapingSlashes.rawValue
                == JSONEncoder.OutputFormatting.withoutEscapingSlashes.rawValue)
    }
}

/// A date's seconds that are not finite are an error under every non-conforming strategy, as
/// JSONEncoder's (dates always throw), not the strategy's "inf" string.
@Suite struct JSONNonFiniteDateTests {
    @Test(arguments: [0, 1]) func nonFiniteDateSecondsThrowEvenWithConvertToString(_ which: Int) throws {
        // seconds: an infinite date; milliseconds: the largest finite one, whose 1000× is not
        let date = Date(timeIntervalSinceReferenceDate: which == 0 ? .infinity : .greatestFiniteMagnitude)
        var ours = JSONValueEncoder()
        ours.dateEncodingStrategy = which == 0 ? .secondsSince1970 : .millisecondsSince1970
        ours.nonConformingFloatEncodingStrategy = .convertToString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        let foundation = JSONEncoder()
        foundation.dateEncodingStrategy = which == 0 ? .secondsSince1970 : .millisecondsSince1970
        foundation.nonConformingFloatEncodingStrategy = .convertToString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        #expect(throws: EncodingError.self) { _ = try foundation.encode([date]) }
        #expect(throws: EncodingError.self) { _ = try ours.encode([date]) }
        // A finite date is written as before.
        #expect(String(decoding: try ours.encode([Date(timeIntervalSince1970: 2)]), as: UTF8.self) == (which == 0 ? "[2]" : "[2000]"))
    }
}
