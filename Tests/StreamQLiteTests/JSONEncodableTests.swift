import Foundation
import Testing
@testable import StreamQLite

// JSONEncodable (encode(json:)): the oracle is Foundation's JSONEncoder on the same
// value (it calls the synthesized encode(to:)) with sorted keys, and our own
// Encodable path on a twin type without the conformance in declaration order
// (JSONEncoder orders unsorted keys at random).

/// Every kind of member the writer has an overload for, written as the synthesized `encode(to:)` does.
struct HandLeaf: Codable, Equatable, JSONEncodable {
    var name: String
    var n: Int
    var x: Double
    var f: Float
    var ok: Bool
    var i64: Int64
    var i32: Int32
    var u64: UInt64
    var u: UInt
    var note: String?
    var count: Int?
    var ratio: Double?
    var flag: Bool?
    var slashKey: String  // key with characters that are escaped
    var unicodeKey: Int   // key with non-ASCII characters (sorted by UTF-8 bytes)

    enum CodingKeys: String, CodingKey {
        case name, n, x, f, ok, i64, i32, u64, u, note, count, ratio, flag
        case slashKey = "a/\"b\\"
        case unicodeKey = "é☃"
    }

    func encode(json: inout JSONObjectWriter) throws {
        try json.encode(name, forKey: "name")
        try json.encode(n, forKey: "n")
        try json.encode(x, forKey: "x")
        try json.encode(f, forKey: "f")
        try json.encode(ok, forKey: "ok")
        try json.encode(i64, forKey: "i64")
        try json.encode(i32, forKey: "i32")
        try json.encode(u64, forKey: "u64")
        try json.encode(u, forKey: "u")
        try json.encodeIfPresent(note, forKey: "note")
        try json.encodeIfPresent(count, forKey: "count")
        try json.encodeIfPresent(ratio, forKey: "ratio")
        try json.encodeIfPresent(flag, forKey: "flag")
        try json.encode(slashKey, forKey: "a/\"b\\")
        try json.encode(unicodeKey, forKey: "é☃")
    }
}

/// Nested hand-written values, arrays of them, generic members (dictionaries, dates, nested arrays).
struct HandTree: Codable, Equatable, JSONEncodable {
    var id: Int
    var leaf: HandLeaf
    var leaves: [HandLeaf]
    var tags: [String]
    var counts: [Int]
    var attributes: [String: String]
    var maybe: HandLeaf?
    var grid: [[Int]]
    var when: Date
    var optionals: [Int?]

    func encode(json: inout JSONObjectWriter) throws {
        try json.encode(id, forKey: "id")
        try json.encode(leaf, forKey: "leaf")
        try json.encode(leaves, forKey: "leaves")
        try json.encode(tags, forKey: "tags")
        try json.encode(counts, forKey: "counts")
        try json.encode(attributes, forKey: "attributes")
        try json.encodeIfPresent(maybe, forKey: "maybe")
        try json.encode(grid, forKey: "grid")
        try json.encode(when, forKey: "when")
        try json.encode(optionals, forKey: "optionals")
    }
}

/// The same shapes without `JSONEncodable` (the `Encodable` path).
struct PlainLeaf: Codable, Equatable {
    var name: String, n: Int, x: Double, f: Float, ok: Bool, i64: Int64, i32: Int32, u64: UInt64, u: UInt
    var note: String?, count: Int?, ratio: Double?, flag: Bool?
    var slashKey: String, unicodeKey: Int
    enum CodingKeys: String, CodingKey {
        case name, n, x, f, ok, i64, i32, u64, u, note, count, ratio, flag
        case slashKey = "a/\"b\\"
        case unicodeKey = "é☃"
    }
    init(_ h: HandLeaf) {
        name = h.name; n = h.n; x = h.x; f = h.f; ok = h.ok; i64 = h.i64; i32 = h.i32; u64 = h.u64; u = h.u
        note = h.note; count = h.count; ratio = h.ratio; flag = h.flag; slashKey = h.slashKey; unicodeKey = h.unicodeKey
    }
}
struct PlainTree: Codable, Equatable {
    var id: Int, leaf: PlainLeaf, leaves: [PlainLeaf], tags: [String], counts: [Int], attributes: [String: String]
    var maybe: PlainLeaf?, grid: [[Int]], when: Date, optionals: [Int?]
    init(_ h: HandTree) {
        id = h.id; leaf = PlainLeaf(h.leaf); leaves = h.leaves.map(PlainLeaf.init); tags = h.tags; counts = h.counts
        attributes = h.attributes; maybe = h.maybe.map(PlainLeaf.init); grid = h.grid; when = h.when; optionals = h.optionals
    }
}

struct RandomValues {
    var rng = SystemRandomNumberGenerator()

    mutating func string() -> String {
        let pieces = ["a", "Z", "0", " ", "/", "\"", "\\", "\n", "\t", "\u{0}", "\u{1f}", "\u{7f}", "é", "☃", "😀", "\u{2028}", "comment", "task 12"]
        return (0..<Int.random(in: 0...6, using: &rng)).map { _ in pieces.randomElement(using: &rng)! }.joined()
    }

    mutating func double() -> Double {
        switch Int.random(in: 0..<4, using: &rng) {
        case 0: return [0, -0.0, 1e300, -1e-300, .leastNonzeroMagnitude, .greatestFiniteMagnitude, 0.1, 1e16, 1e21, 2.5].randomElement(using: &rng)!
        case 1: return Double(Int.random(in: -1000...1000, using: &rng)) / 8
        default:
            while true {
                let d = Double(bitPattern: rng.next())
                if d.isFinite { return d }
            }
        }
    }

    mutating func int() -> Int {
        Bool.random(using: &rng) ? [Int.min, .max, 0, -1, 9, 10, 99, 100].randomElement(using: &rng)! : Int.random(in: -100_000...100_000, using: &rng)
    }

    mutating func leaf() -> HandLeaf {
        let some = { (r: inout RandomValues) in Bool.random(using: &r.rng) }
        return HandLeaf(
            name: string(), n: int(), x: double(),
            f: Float(bitPattern: UInt32.random(in: 0..<0x7F80_0000, using: &rng)) * (Bool.random(using: &rng) ? 1 : -1),
            ok: Bool.random(using: &rng), i64: Bool.random(using: &rng) ? .min : .random(in: .min ... .max, using: &rng),
            i32: .random(in: .min ... .max, using: &rng), u64: Bool.random(using: &rng) ? .max : .random(in: 0 ... .max, using: &rng),
            u: .random(in: 0 ... .max, using: &rng),
            note: some(&self) ? string() : nil, count: some(&self) ? int() : nil, ratio: some(&self) ? double() : nil,
            flag: some(&self) ? Bool.random(using: &rng) : nil, slashKey: string(), unicodeKey: int())
    }

    mutating func tree(_ id: Int) -> HandTree {
        HandTree(
            id: id, leaf: leaf(), leaves: (0..<Int.random(in: 0...3, using: &rng)).map { _ in leaf() },
            tags: (0..<Int.random(in: 0...3, using: &rng)).map { _ in string() },
            counts: (0..<Int.random(in: 0...3, using: &rng)).map { _ in int() },
            attributes: Dictionary((0..<Int.random(in: 0...3, using: &rng)).map { _ in (string(), string()) }, uniquingKeysWith: { a, _ in a }),
            maybe: Bool.random(using: &rng) ? leaf() : nil,
            grid: (0..<Int.random(in: 0...2, using: &rng)).map { _ in (0..<Int.random(in: 0...2, using: &rng)).map { _ in int() } },
            when: Date(timeIntervalSince1970: Double(Int.random(in: 0...2_000_000_000, using: &rng))),
            optionals: (0..<Int.random(in: 0...3, using: &rng)).map { _ in Bool.random(using: &rng) ? int() : nil })
    }
}

/// Our bytes for `value` with `formatting`, JSONEncoder's default date strategy.
func oursEncode<T: Encodable>(_ value: T, _ formatting: JSONValueEncoder.OutputFormatting) throws -> String {
    var e = JSONValueEncoder()
    e.outputFormatting = formatting
    e.dateEncodingStrategy = .deferredToDate
    return String(decoding: try e.encode(value), as: UTF8.self)
}

let ourFormattings: [JSONValueEncoder.OutputFormatting] = [
    [], [.prettyPrinted], [.withoutEscapingSlashes], [.prettyPrinted, .withoutEscapingSlashes],
    [.sortedKeys], [.sortedKeys, .prettyPrinted], [.sortedKeys, .withoutEscapingSlashes],
    [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes],
]

@Suite struct JSONEncodableTests {
    @Test func randomValuesEncodeAsJSONEncoderAndTheEncodablePathEncodeThem() throws {
        var r = RandomValues()
        let trees = (0..<300).map { r.tree($0) }
        let plain = trees.map(PlainTree.init)
        for f in allFormattings {
            // JSONEncoder on the hand-written type itself (its encode(to:)).
            #expect(bothEncode(trees, f).ours == bothEncode(trees, f).foundation, "\(f)")
            for t in trees.prefix(20) { #expect(bothEncode(t, f).ours == bothEncode(t, f).foundation, "\(f)") }
        }
        for f in ourFormattings {
            #expect(try oursEncode(trees, f) == oursEncode(plain, f), "\(f)")
            #expect(try oursEncode(trees.map(\.leaf), f) == oursEncode(plain.map(\.leaf), f), "\(f)")
        }
    }

    @Test func roundTripThroughTheDecoder() throws {
        var r = RandomValues()
        let trees = (0..<200).map { r.tree($0) }
        var e = JSONValueEncoder()
        e.outputFormatting = [.sortedKeys]
        e.dateEncodingStrategy = .secondsSince1970
        var d = JSONValueDecoder()
        d.dateDecodingStrategy = .secondsSince1970
        let back = try d.decode([HandTree].self, from: try e.encode(trees))
        // -0.0 == 0.0 and Float/Double compare by value: equal after the round trip.
        #expect(back == trees)
    }

    @Test func theBenchmarkShapesEncodeAsJSONEncoderEncodesThem() throws {
        struct Hi: Codable, JSONEncodable {
            var hi: Int, there: Int, comment: String
            func encode(json: inout JSONObjectWriter) throws {
                try json.encode(hi, forKey: "hi"); try json.encode(there, forKey: "there"); try json.encode(comment, forKey: "comment")
            }
        }
        struct Task: Codable, JSONEncodable {
            var id: Int64, title: String, done: Bool
            func encode(json: inout JSONObjectWriter) throws {
                try json.encode(id, forKey: "id"); try json.encode(title, forKey: "title"); try json.encode(done, forKey: "done")
            }
        }
        let his = (0..<1000).map { Hi(hi: $0 * 7919 - 3_000_000, there: $0, comment: "comment") }
        let tasks = (0..<1000).map { Task(id: Int64($0), title: "task \($0)", done: $0 % 3 == 0) }
        for f in allFormattings {
            #expect(bothEncode(his, f).ours == bothEncode(his, f).foundation, "\(f)")
            #expect(bothEncode(tasks, f).ours == bothEncode(tasks, f).foundation, "\(f)")
        }
        #expect(try oursEncode([Hi(hi: 1, there: -2, comment: "c")], []) == #"[{"hi":1,"there":-2,"comment":"c"}]"#)
        #expect(try oursEncode([Hi(hi: 1, there: -2, comment: "c")], [.sortedKeys]) == #"[{"comment":"c","hi":1,"there":-2}]"#)
    }

    /// A type whose hand-written encoding says so: proves which path wrote each value.
    struct Marked: Codable, JSONEncodable {
        var v = 1
        func encode(json: inout JSONObjectWriter) throws {
            try json.encode(v, forKey: "v")
            try json.encode(true, forKey: "byHand")
        }
    }

    @Test func theEncoderCallsEncodeJSONWhereverTheTypeAppears() throws {
        struct Holder: Encodable { var one = Marked(); var many = [Marked(), Marked()]; var maybe: Marked? = Marked(); var map = ["k": Marked()] }
        #expect(try oursEncode(Marked(), []) == #"{"v":1,"byHand":true}"#)
        #expect(try oursEncode([Marked()], []) == #"[{"v":1,"byHand":true}]"#)
        #expect(try oursEncode([[Marked()]], []) == #"[[{"v":1,"byHand":true}]]"#)
        #expect(try oursEncode(Holder(), []) ==
                #"{"one":{"v":1,"byHand":true},"many":[{"v":1,"byHand":true},{"v":1,"byHand":true}],"maybe":{"v":1,"byHand":true},"map":{"k":{"v":1,"byHand":true}}}"#)
        // Into a sink and for JSON columns too.
        var sink: [UInt8] = []
        try JSONValueEncoder().encode([Marked()], into: &sink)
        #expect(String(decoding: sink, as: UTF8.self) == #"[{"v":1,"byHand":true}]"#)
    }

    @Test func keysInAnyOrderDuplicatesAndChangingKeySequences() throws {
        // Written out of sorted order, a key twice (the later wins), members that come and go:
        // a new key sequence of the same type is worked out again, not taken from the last one.
        struct Messy: Codable, JSONEncodable {
            var a: Int?, b: Int?, twice: Bool
            enum K: String, CodingKey { case z, a, b, m }
            func encode(to encoder: any Encoder) throws {
                var c = encoder.container(keyedBy: K.self)
                try c.encode(1, forKey: .z)
                try c.encodeIfPresent(a, forKey: .a)
                try c.encodeIfPresent(b, forKey: .b)
                if twice { try c.encode(2, forKey: .z) }
                try c.encode("m", forKey: .m)
            }
            func encode(json: inout JSONObjectWriter) throws {
                try json.encode(1, forKey: "z")
                try json.encodeIfPresent(a, forKey: "a")
                try json.encodeIfPresent(b, forKey: "b")
                if twice { try json.encode(2, forKey: "z") }
                try json.encode("m", forKey: "m")
            }
        }
        var values: [Messy] = []
        for i in 0..<64 { values.append(Messy(a: i & 1 == 0 ? i : nil, b: i & 2 == 0 ? -i : nil, twice: i & 4 == 0)) }
        values += values.reversed()
        for f in allFormattings { #expect(bothEncode(values, f).ours == bothEncode(values, f).foundation, "\(f)") }
        #expect(try oursEncode(Messy(a: 5, b: nil, twice: true), []) == #"{"a":5,"z":2,"m":"m"}"#)
        #expect(try oursEncode(Messy(a: 5, b: nil, twice: false), []) == #"{"z":1,"a":5,"m":"m"}"#)
        #expect(try oursEncode(Messy(a: 5, b: 6, twice: true), [.sortedKeys]) == #"{"a":5,"b":6,"m":"m","z":2}"#)
    }

    @Test func emptyObjectsAndEmptyArraysInEveryLayout() throws {
        struct Empty: Codable, JSONEncodable {
            func encode(json: inout JSONObjectWriter) throws {}
            func encode(to encoder: any Encoder) throws { _ = encoder.container(keyedBy: JSONStringKey.self) }
        }
        struct Holder: Codable, JSONEncodable {
            var e = Empty(), es: [Empty] = [], list: [Empty] = [Empty()]
            func encode(json: inout JSONObjectWriter) throws {
                try json.encode(e, forKey: "e"); try json.encode(es, forKey: "es"); try json.encode(list, forKey: "list")
            }
        }
        for f in allFormattings {
            #expect(bothEncode(Holder(), f).ours == bothEncode(Holder(), f).foundation, "\(f)")
            #expect(bothEncode([Empty](), f).ours == bothEncode([Empty](), f).foundation, "\(f)")
            #expect(bothEncode(Empty(), f).ours == bothEncode(Empty(), f).foundation, "\(f)")
        }
    }

    @Test func nonConformingFloatsThrowWithTheirPathOrBecomeStrings() throws {
        var r = RandomValues()
        var leaves = (0..<3).map { _ in r.leaf() }
        leaves[1].x = .nan
        let error = try #require(throws: EncodingError.self) { try JSONValueEncoder().encode(leaves) }
        guard case .invalidValue(_, let context) = error else { return }
        #expect(context.codingPath.map(\.stringValue) == ["Index 1", "x"])
        leaves[2].f = -.infinity
        let both = bothEncode(leaves) { o, t in
            o.nonConformingFloatEncodingStrategy = .convertToString(positiveInfinity: "+inf", negativeInfinity: "-inf", nan: "nan")
            t.nonConformingFloatEncodingStrategy = .convertToString(positiveInfinity: "+inf", negativeInfinity: "-inf", nan: "nan")
        }
        #expect(both.ours == both.foundation)
        if case .value(let s) = both.ours { #expect(s.contains(#""x":"nan""#) && s.contains(#""f":"-inf""#)) }
    }

    @Test func aKeyOfOneUnicodeScalarStaticString() throws {
        struct One: Codable, JSONEncodable {
            func encode(to encoder: any Encoder) throws {
                var c = encoder.container(keyedBy: JSONStringKey.self)
                try c.encode(1, forKey: JSONStringKey("é"))
            }
            func encode(json: inout JSONObjectWriter) throws {
                try json.encode(1, forKey: StaticString(unicodeScalarLiteral: "é"))
            }
        }
        #expect(bothEncode([One(), One()]).ours == bothEncode([One(), One()]).foundation)
    }

    @Test func stringsOfEveryShortLengthWithAByteToEscapeAnywhere() throws {
        // The word-at-a-time copy of clean strings (overlapping words at the end, three bytes
        // below four): every length up to 40, every position, every kind of byte that is escaped.
        var strings: [String] = []
        for n in 0...40 {
            let clean = String((0..<n).map { Character(UnicodeScalar(UInt8(0x61 + $0 % 26))) })
            strings.append(clean)
            for k in 0..<n {
                for dirty in ["\"", "\\", "/", "\n", "\u{1}", "\u{1f}", "é", "\u{7f}", " "] {
                    var chars = Array(clean)
                    chars[k] = Character(dirty)
                    strings.append(String(chars))
                }
            }
        }
        for f in allFormattings {
            let r = bothEncode(strings, f)
            #expect(r.ours == r.foundation, "\(f)")
        }
        struct Keyed: Codable, JSONEncodable {
            var s: String
            func encode(json: inout JSONObjectWriter) throws { try json.encode(s, forKey: "s") }
        }
        let keyed = strings.map(Keyed.init)
        #expect(bothEncode(keyed).ours == bothEncode(keyed).foundation)
    }

    @Test func dictionariesWrittenByTheEncoderItself() throws {
        // [String: V] is written member by member by the encoder (no keyed container): keys as
        // they are under snake_case, escaped, sorted by bytes, nested, empty, of hand-written values.
        var r = RandomValues()
        struct Holder: Codable {
            var someMap: [String: Int], nestedMap: [String: [String: Int]], leaves: [String: HandLeaf], emptyMap: [String: String]
        }
        var holders: [Holder] = []
        for i in 0..<50 {
            var m: [String: Int] = [:], n: [String: [String: Int]] = [:], l: [String: HandLeaf] = [:]
            for _ in 0..<(i % 7) { m[r.string()] = r.int(); n[r.string()] = i % 2 == 0 ? [:] : ["someKey": i, "é": -i]; l[r.string()] = r.leaf() }
            m["camelCaseKey"] = i
            holders.append(Holder(someMap: m, nestedMap: n, leaves: l, emptyMap: [:]))
        }
        for f in allFormattings {
            #expect(bothEncode(holders, f).ours == bothEncode(holders, f).foundation, "\(f)")
            let snake = bothEncode(holders, f) { o, t in o.keyEncodingStrategy = .convertToSnakeCase; t.keyEncodingStrategy = .convertToSnakeCase }
            #expect(snake.ours == snake.foundation, "\(f)")
        }
    }

    class Base: Encodable, JSONEncodable {
        var a = 1
        enum K: String, CodingKey { case a, b }
        func encode(json: inout JSONObjectWriter) throws { try json.encode(a, forKey: "a") }
        func encode(to encoder: any Encoder) throws { var c = encoder.container(keyedBy: K.self); try c.encode(a, forKey: .a) }
    }
    final class Derived: Base, @unchecked Sendable {
        var b = 2
        override func encode(to encoder: any Encoder) throws {
            try super.encode(to: encoder)
            var c = encoder.container(keyedBy: K.self)
            try c.encode(b, forKey: .b)
        }
    }

    @Test func classesGoThroughEncodeToWhichASubclassMayOverride() throws {
        struct Holder: Encodable, JSONEncodable {
            var one: Base = Derived(), many: [Base] = [Derived(), Base()]
            func encode(json: inout JSONObjectWriter) throws { try json.encode(one, forKey: "one"); try json.encode(many, forKey: "many") }
        }
        #expect(try oursEncode(Derived(), [.sortedKeys]) == #"{"a":1,"b":2}"#)
        #expect(try oursEncode([Derived()] as [Base], [.sortedKeys]) == #"[{"a":1,"b":2}]"#)
        #expect(bothEncode(Holder()).ours == bothEncode(Holder()).foundation)
    }

    @Test func canonicallyEquivalentKeysAreOneKeyAsInJSONEncoder() throws {
        struct Equivalent: Encodable, JSONEncodable {
            func encode(json: inout JSONObjectWriter) throws {
                try json.encode(1, forKey: "\u{E9}"); try json.encode(3, forKey: "b"); try json.encode(2, forKey: "e\u{301}")
            }
            func encode(to encoder: any Encoder) throws {
                var c = encoder.container(keyedBy: JSONStringKey.self)
                try c.encode(1, forKey: JSONStringKey("\u{E9}")); try c.encode(3, forKey: JSONStringKey("b")); try c.encode(2, forKey: JSONStringKey("e\u{301}"))
            }
        }
        struct Plain: Encodable {
            func encode(to encoder: any Encoder) throws { try Equivalent().encode(to: encoder) }
        }
        for f in ourFormattings {
            #expect(try oursEncode([Equivalent(), Equivalent()], f) == oursEncode([Plain(), Plain()], f), "\(f)")
        }
    }

    @Test func aOneScalarStaticStringMadeInAGenericContext() throws {
        func scalarKey<K: ExpressibleByUnicodeScalarLiteral>(_: K.Type) -> K { "é" }
        struct Scalar: Encodable, JSONEncodable {
            let key: StaticString
            func encode(json: inout JSONObjectWriter) throws { try json.encode(1, forKey: key) }
            func encode(to encoder: any Encoder) throws {
                var c = encoder.container(keyedBy: JSONStringKey.self)
                try c.encode(1, forKey: JSONStringKey("é"))
            }
        }
        let key = scalarKey(StaticString.self)
        #expect(!key.hasPointerRepresentation)
        #expect(try oursEncode([Scalar(key: key), Scalar(key: key)], [.sortedKeys]) == #"[{"é":1},{"é":1}]"#)
    }

    @Test func snakeCaseConvertsHandWrittenKeysAsJSONEncoderDoes() throws {
        struct Point: Codable, JSONEncodable {
            var createdAt: Int, userName: String, aURLValue: Int, a1B: Int?
            func encode(json: inout JSONObjectWriter) throws {
                try json.encode(createdAt, forKey: "createdAt"); try json.encode(userName, forKey: "userName")
                try json.encode(aURLValue, forKey: "aURLValue"); try json.encodeIfPresent(a1B, forKey: "a1B")
            }
        }
        // Out of order (superEncoder-free but nested-container misuse): the document falls back to the tree path.
        struct Doc: Encodable { var pointList: [Point]; var other: Int }
        struct RestartDoc: Encodable { var pointList: [Point]; var other: OutOfOrder }
        let points = (0..<6).map { Point(createdAt: $0, userName: "u\($0)", aURLValue: -$0, a1B: $0 % 2 == 0 ? $0 : nil) }
        for f in allFormattings {
            let snake = { (o: inout JSONValueEncoder, t: JSONEncoder) in o.keyEncodingStrategy = .convertToSnakeCase; t.keyEncodingStrategy = .convertToSnakeCase }
            let r = bothEncode(Doc(pointList: points, other: 1), f, configure: snake)
            #expect(r.ours == r.foundation, "\(f)")
            let restarted = bothEncode(RestartDoc(pointList: points, other: OutOfOrder()), f, configure: snake)
            #expect(restarted.ours == restarted.foundation, "\(f)")
        }
    }
}

/// Uses a nested container after writing to its parent (nested-container misuse, no
/// superEncoder): the stream encoder restarts the whole document as a tree.
struct OutOfOrder: Encodable {
    enum K: String, CodingKey { case a, b, c }
    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: K.self)
        var n = c.nestedContainer(keyedBy: K.self, forKey: .a)
        try c.encode(1, forKey: .b)
        try n.encode(2, forKey: .c)
    }
}
