import Foundation
import Testing
@testable import StreamQLite

// The decoding fast paths checked against Foundation's
// JSONDecoder and the standard library: strings made from the parser's validated
// bytes in Swift's small form, keys matched in a streamed array whose elements
// reuse the same token indexes, `[T]` of types read by their own `init(from:)`.

@Suite struct JSONDecodingFastPathTests {
    struct Texts: Codable, Equatable { var s: [String]; var k: [String: Int] }

    /// Every length around the small form's limit (15 bytes), ASCII, escaped, non-ASCII.
    static let samples: [String] = {
        var all: [String] = []
        for n in 0...20 { all.append(String((0..<n).map { Character(UnicodeScalar(UInt8(0x21 + ($0 * 7) % 90))) })) }
        all += ["comment", "a\"b", "tab\there", "\u{7F}", "é", "naïve", "😀", "e\u{301}", "abcdefghijklmnó", "\u{0}x"]
        return all
    }()

    @Test func stringsEqualTheStandardLibrarysAndFoundations() throws {
        let value = Texts(s: Self.samples, k: Dictionary(Self.samples.enumerated().map { ($1, $0) }, uniquingKeysWith: { a, _ in a }))
        let json = try JSONEncoder().encode(value)
        let ours = try JSONValueDecoder().decode(Texts.self, from: json)
        let theirs = try JSONDecoder().decode(Texts.self, from: json)
        #expect(ours == theirs)
        #expect(ours == value)
        for (a, b) in zip(ours.s, Self.samples) {
            // The same String in every respect the standard library looks at.
            #expect(a == b && a.hashValue == b.hashValue && a.utf8.count == b.utf8.count && a.count == b.count)
            #expect(Array(a.utf8) == Array(b.utf8) && Array(a.unicodeScalars) == Array(b.unicodeScalars))
            #expect(a < b + "~" && !(a < b) && (a + "x") == (b + "x"))
            var m = a
            m.append("!")
            m.removeLast()
            #expect(m == b)
            #expect(a.utf8.withContiguousStorageIfAvailable { Array($0) } ?? Array(a.utf8) == Array(b.utf8))
        }
        #expect(JSONValidatedString.smallFormWorks)
    }

    @Test func smallFormIsOnlyForASCIIUpTo15Bytes() {
        for s in Self.samples {
            var t = s
            let made = t.withUTF8 { JSONValidatedString.make($0.baseAddress ?? UnsafePointer(bitPattern: 1)!, $0.count) }
            #expect(made == s && made.utf8.count == s.utf8.count)
            let small = t.withUTF8 { $0.count <= 15 ? JSONValidatedString.small($0.baseAddress ?? UnsafePointer(bitPattern: 1)!, $0.count) : nil }
            #expect((small != nil) == (s.utf8.count <= 15 && s.utf8.allSatisfy { $0 < 0x80 }))
        }
    }

    struct Pair: Codable, Equatable { var a: Int; var b: Int }

    /// Each element's tokens start at index 0 again: where the keys were found in one
    /// element must not be taken for the next (in order, out of order, duplicated, missing).
    @Test func keysOfEveryStreamedElementAreFoundAfresh() throws {
        let elements = [#"{"a":1,"b":2}"#, #"{"b":3,"a":4}"#, #"{"a":5,"a":6,"b":7}"#, #"{"x":0,"b":8,"a":9}"#,
                        #"{"a":10,"b":11}"#, #"{"b":12,"a":13,"b":14}"#]
        // Large enough to be decoded element by element (a top-level array from 256 KiB).
        let json = "[" + Array(repeating: elements.joined(separator: ","), count: 9000).joined(separator: ",\n") + "]"
        #expect(json.utf8.count >= JSONValueDecoder.streamedArraySize)
        let ours = try JSONValueDecoder().decode([Pair].self, from: Array(json.utf8))
        let theirs = try JSONDecoder().decode([Pair].self, from: Data(json.utf8))
        #expect(ours == theirs)
        #expect(ours.prefix(6) == [Pair(a: 1, b: 2), Pair(a: 4, b: 3), Pair(a: 5, b: 7), Pair(a: 9, b: 8), Pair(a: 10, b: 11), Pair(a: 13, b: 12)])
        // The same through the cursor and from a small document.
        let small = "[" + elements.joined(separator: ",") + "]"
        #expect(try JSONValueDecoder().decode([Pair].self, from: Array(small.utf8)) == Array(ours.prefix(6)))
        let cursor = try JSONValueDecoder().elements(of: Pair.self, in: Array(small.utf8))
        var streamed: [Pair] = []
        while let p = try cursor.next() { streamed.append(p) }
        #expect(streamed == Array(ours.prefix(6)))
    }

    /// `[T]` of a type read by its own `init(from:)` (decoded without `unwrap` per element)
    /// and of the types the decoder reads itself: the same values and errors as before.
    @Test func arraysOfEveryKindOfElement() throws {
        let n = 30_000
        let pairs = (0..<n).map { Pair(a: $0, b: -$0) }
        let json = try JSONEncoder().encode(pairs)
        #expect(try JSONValueDecoder().decode([Pair].self, from: json) == pairs)
        let dates = (0..<n).map { Date(timeIntervalSince1970: Double($0)) }
        var encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .secondsSince1970
        var ours = JSONValueDecoder()
        ours.dateDecodingStrategy = .secondsSince1970
        #expect(try ours.decode([Date].self, from: encoder.encode(dates)) == dates)
        encoder = JSONEncoder()
        let strings = (0..<n).map { "s\($0)" }
        #expect(try JSONValueDecoder().decode([String].self, from: encoder.encode(strings)) == strings)
        let maps = (0..<n).map { ["k_\($0)": $0] }
        ours = JSONValueDecoder()
        ours.keyDecodingStrategy = .convertFromSnakeCase
        let theirs = JSONDecoder()
        theirs.keyDecodingStrategy = .convertFromSnakeCase
        let mapsJSON = try encoder.encode(maps)
        #expect(mapsJSON.count >= JSONValueDecoder.streamedArraySize)
        #expect(try ours.decode([[String: Int]].self, from: mapsJSON) == theirs.decode([[String: Int]].self, from: mapsJSON))
        // An error in element 20,000: its coding path and position.
        let bad = Array(("[" + (0..<n).map { $0 == 20_000 ? #"{"a":"x","b":0}"# : #"{"a":\#($0),"b":0}"# }
            .joined(separator: ",") + "]").utf8)
        do {
            _ = try JSONValueDecoder().decode([Pair].self, from: bad)
            Issue.record("no error")
        } catch DecodingError.typeMismatch(_, let context) {
            #expect(context.codingPath.map(\.intValue) == [20000, nil])
            #expect(context.codingPath.last?.stringValue == "a")
            #expect(context.debugDescription.contains("line 1, column "))
        }
    }
}
