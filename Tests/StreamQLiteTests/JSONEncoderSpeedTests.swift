import Foundation
import Testing
@testable import StreamQLite

// The fast path of `Encodable` objects (fourth session): an object opened by a container of
// a one-byte key type (synthesized `CodingKeys`) keeps its members as a hand-written object's,
// by the addresses of its keys' names, sorted and rid of duplicates by the hand-written plans;
// a key of another kind in such an object sends the value to the tree encoder. `Date`, `Data`,
// `URL` and `Decimal` are recognised by the kind kept per type. Oracle: Foundation's `JSONEncoder`.

/// A key that is not one byte (a `String` inside): not on the fast path.
private struct TextKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(_ s: String) { stringValue = s }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

/// Keys that need escaping, that sort differently from their declaration, and that become
/// equal under snake_case (`myURL`, `my_url`).
private enum OddKey: String, CodingKey {
    case zed = "Zed", slash = "my/Key", accent = "é", url = "myURL", snake = "my_url", quote = "ab\"c", empty = ""
}

private enum OtherKey: String, CodingKey { case b, a, myURL }

/// Writes its members in `plan` order, through any mix of key types and nesting.
private struct Shape: Encodable {
    enum Step {
        case odd(OddKey, Int)
        case other(OtherKey, String)
        case text(String, Bool)
        case nested(OddKey, [Shape])
        case nestedKeyed(OtherKey, Int)
        case nilValue(OddKey)
        case date(OtherKey, Date)
        case special(OddKey, Data, URL, Decimal)
        case double(OddKey, Double)
    }
    var plan: [Step]

    func encode(to encoder: any Encoder) throws {
        for step in plan {
            switch step {
            case .odd(let k, let v):
                var c = encoder.container(keyedBy: OddKey.self)
                try c.encode(v, forKey: k)
            case .other(let k, let v):
                var c = encoder.container(keyedBy: OtherKey.self)
                try c.encode(v, forKey: k)
            case .text(let k, let v):
                var c = encoder.container(keyedBy: TextKey.self)
                try c.encode(v, forKey: TextKey(k))
            case .nested(let k, let shapes):
                var c = encoder.container(keyedBy: OddKey.self)
                var u = c.nestedUnkeyedContainer(forKey: k)
                for s in shapes {
                    var inner = u.nestedContainer(keyedBy: OtherKey.self)
                    try inner.encode(s.plan.count, forKey: .a)
                    try u.encode(s)
                }
            case .nestedKeyed(let k, let v):
                var c = encoder.container(keyedBy: OtherKey.self)
                var n = c.nestedContainer(keyedBy: OddKey.self, forKey: k)
                try n.encode(v, forKey: .zed)
                try n.encode(-v, forKey: .empty)
            case .nilValue(let k):
                var c = encoder.container(keyedBy: OddKey.self)
                try c.encodeNil(forKey: k)
            case .date(let k, let d):
                var c = encoder.container(keyedBy: OtherKey.self)
                try c.encode(d, forKey: k)
            case .special(let k, let data, let url, let decimal):
                var c = encoder.container(keyedBy: OddKey.self)
                var n = c.nestedUnkeyedContainer(forKey: k)
                try n.encode(data)
                try n.encode(url)
                try n.encode(decimal)
            case .double(let k, let d):
                var c = encoder.container(keyedBy: OddKey.self)
                try c.encode(d, forKey: k)
            }
        }
    }
}

private struct Shapes {
    var state: UInt64
    mutating func next() -> Int {
        state = state &* 6364136223846793005 &+ 1442695040888963407
        return Int(truncatingIfNeeded: state >> 33)
    }
    mutating func pick<T>(_ all: [T]) -> T { all[next() % all.count] }
    mutating func step(depth: Int, mixed: Bool) -> Shape.Step {
        let odd: [OddKey] = [.zed, .slash, .accent, .url, .snake, .quote, .empty]
        let other: [OtherKey] = [.b, .a, .myURL]
        switch next() % (mixed ? 9 : 7) {
        case 0: return .odd(pick(odd), next() % 1000 - 500)
        case 1: return .nested(pick(odd), depth > 1 ? [] : (0..<(next() % 3)).map { _ in shape(depth: depth + 1, mixed: mixed) })
        case 2: return .nilValue(pick(odd))
        case 3: return .special(pick(odd), Data((0..<(next() % 5)).map { UInt8(truncatingIfNeeded: $0 &* 37) }),
                                URL(string: "https://example.com/a/\(next() % 100)?q=1")!, Decimal(next() % 10000) / 100)
        case 4: return .double(pick(odd), Double(next() % 100000) / 7)
        case 5: return .odd(pick(odd), next())
        case 6: return .nilValue(pick(odd))
        case 7:
            switch next() % 3 {
            case 0: return .other(pick(other), "o\(next() % 10)")
            case 1: return .nestedKeyed(pick(other), next() % 50)
            default: return .date(pick(other), Date(timeIntervalSince1970: Double(next() % 4_000_000_000) / 1000))
            }
        default: return .text(pick(["Zed", "myURL", "a", "k/\(next() % 3)", "é"]), next() % 2 == 0)
        }
    }
    /// (`JSONEncoder` stops the program when a nested container is asked for under a key that
    /// holds something else: each nested container gets a key of its own here, also under snake_case.)
    mutating func shape(depth: Int, mixed: Bool) -> Shape {
        var plan = (0..<(next() % 6)).map { _ in step(depth: depth, mixed: mixed) }
        func name(_ s: Shape.Step) -> (String, nested: Bool) {
            let (n, nested): (String, Bool)
            switch s {
            case .odd(let k, _), .nilValue(let k), .double(let k, _): (n, nested) = (k.stringValue, false)
            case .nested(let k, _), .special(let k, _, _, _): (n, nested) = (k.stringValue, true)
            case .other(let k, _), .date(let k, _): (n, nested) = (k.stringValue, false)
            case .nestedKeyed(let k, _): (n, nested) = (k.stringValue, true)
            case .text(let k, _): (n, nested) = (k, false)
            }
            return (n.lowercased().replacingOccurrences(of: "_", with: ""), nested)
        }
        for i in plan.indices where name(plan[i]).nested {
            let mine = name(plan[i]).0
            if plan.indices.contains(where: { $0 != i && name(plan[$0]).0 == mine }) { plan[i] = .odd(.zed, next()) }
        }
        return Shape(plan: plan)
    }
}

/// `values` encode as `JSONEncoder` encodes them in every layout, with keys as declared and
/// converted to snake_case (that run also with `snakeCaseAlso` applied to both encoders).
func expectAgreementInEveryLayout<T: Encodable>(
    _ values: T, snakeCaseAlso: @escaping (inout JSONValueEncoder, JSONEncoder) -> Void = { _, _ in },
    sourceLocation: SourceLocation = #_sourceLocation
) {
    for f in allFormattings {
        let plain = bothEncode(values, f)
        #expect(plain.ours == plain.foundation, "\(f)", sourceLocation: sourceLocation)
        let snake = bothEncode(values, f) { o, t in
            o.keyEncodingStrategy = .convertToSnakeCase
            t.keyEncodingStrategy = .convertToSnakeCase
            snakeCaseAlso(&o, t)
        }
        #expect(snake.ours == snake.foundation, "snake_case \(f)", sourceLocation: sourceLocation)
    }
}

@Suite struct JSONEncoderSpeedTests {
    /// Objects of one key type: keys out of order, escaped, repeated (the later wins), coming
    /// and going between objects of the same type; in every layout and with snake_case.
    @Test func objectsOfOneByteKeyTypeAgreeWithJSONEncoder() throws {
        var r = Shapes(state: 7)
        let values = (0..<400).map { _ in r.shape(depth: 0, mixed: false) }
        expectAgreementInEveryLayout(values)
        // Every object alone too (no plan left over from the one before).
        for v in values.prefix(60) { #expect(bothEncode(v).ours == bothEncode(v).foundation) }
    }

    /// One object written through containers of several key types: two one-byte key types,
    /// and a key holding a `String` (which sends the value to the tree encoder).
    @Test func objectsWrittenThroughSeveralKeyTypesAgreeWithJSONEncoder() throws {
        var r = Shapes(state: 11)
        let values = (0..<400).map { _ in r.shape(depth: 0, mixed: true) }
        expectAgreementInEveryLayout(values) { o, t in
            o.dateEncodingStrategy = .millisecondsSince1970
            t.dateEncodingStrategy = .millisecondsSince1970
        }
        // A string key after one-byte keys and before them, in one object.
        let mixed = Shape(plan: [.odd(.zed, 1), .text("Zed", true), .other(.a, "x"), .odd(.url, 2), .text("b", false)])
        for f in allFormattings { #expect(bothEncode([mixed, mixed], f).ours == bothEncode([mixed, mixed], f).foundation, "\(f)") }
        #expect(try oursEncode(mixed, [.sortedKeys]) == #"{"Zed":true,"a":"x","b":false,"myURL":2}"#)
        #expect(try oursEncode(Shape(plan: [.odd(.zed, 1), .other(.a, "x"), .odd(.zed, 3)]), []) == #"{"a":"x","Zed":3}"#)
    }

    /// A non-finite double in an object of a one-byte key type: the error's coding path names
    /// the keys as declared, not converted to snake_case, as `JSONEncoder`'s does (before, the
    /// converted key: `my_url`).
    @Test func aNonFiniteDoubleNamesItsPathWithTheDeclaredKeys() throws {
        func paths<T: Encodable>(_ value: T) throws -> (ours: [String], foundation: [String]) {
            var ours = JSONValueEncoder()
            ours.keyEncodingStrategy = .convertToSnakeCase
            let theirs = JSONEncoder()
            theirs.keyEncodingStrategy = .convertToSnakeCase
            let mine = try #require(throws: EncodingError.self) { try ours.encode(value) }
            let foundation = try #require(throws: EncodingError.self) { try theirs.encode(value) }
            guard case .invalidValue(_, let a) = mine, case .invalidValue(_, let b) = foundation else {
                Issue.record("not invalidValue: \(mine) / \(foundation)")
                return ([], [])
            }
            return (a.codingPath.map(\.stringValue), b.codingPath.map(\.stringValue))
        }
        let flat = try paths([Shape(plan: [.odd(.zed, 1)]), Shape(plan: [.odd(.quote, 2), .double(.url, .infinity)])])
        #expect(flat.ours == ["Index 1", "myURL"])
        #expect(flat.ours == flat.foundation)
        let deep = [Shape(plan: [.odd(.zed, 1)]),
                    Shape(plan: [.nested(.url, [Shape(plan: [.odd(.quote, 2), .double(.url, .infinity)])])])]
        // (`JSONEncoder` leaves the key of the nested array out: ["Index 1", "Index 1", "myURL"].)
        #expect(try paths(deep).ours == ["Index 1", "myURL", "Index 1", "myURL"])
    }

    /// `[String: V]` with sorted keys (sorted in place, no arrays): keys of every length, that
    /// share prefixes, need escaping, are not ASCII, in and out of order; nested dictionaries.
    @Test func sortedDictionariesAgreeWithJSONEncoder() throws {
        var r = Shapes(state: 5)
        let alphabet = ["a", "b", "ab", "é", "e\u{301}", "/", "\"", "Z", "\u{7F}", "😀", "\n", "_"]
        var values: [[String: [String: Int]]] = []
        for _ in 0..<200 {
            var outer: [String: [String: Int]] = [:]
            for _ in 0..<(r.next() % 6) {
                var inner: [String: Int] = [:]
                for _ in 0..<(r.next() % 9) {
                    inner[(0..<(r.next() % 4)).map { _ in r.pick(alphabet) }.joined()] = r.next() % 100
                }
                outer[(0..<(1 + r.next() % 3)).map { _ in r.pick(alphabet) }.joined()] = inner
            }
            values.append(outer)
        }
        for f in allFormattings {
            #expect(bothEncode(values, f).ours == bothEncode(values, f).foundation, "\(f)")
            let snake = bothEncode(values, f) { o, t in
                o.keyEncodingStrategy = .convertToSnakeCase
                t.keyEncodingStrategy = .convertToSnakeCase
            }
            #expect(snake.ours == snake.foundation, "snake_case \(f)")
        }
        #expect(try oursEncode(["b": 1, "a": 2, "ab": 3, "": 4, "B": 5], [.sortedKeys]) == #"{"":4,"B":5,"a":2,"ab":3,"b":1}"#)
    }

    /// The same value encoded again by one encoder (its key names and plans kept) and by a
    /// new one: the same bytes.
    @Test func encodingAgainGivesTheSameBytes() throws {
        var r = Shapes(state: 3)
        let values = (0..<100).map { _ in r.shape(depth: 0, mixed: true) }
        var e = JSONValueEncoder()
        e.outputFormatting = [.sortedKeys]
        let first = try e.encode(values)
        #expect(try e.encode(values) == first)
        #expect(try e.encode(values.reversed()) == (try e.encode(Array(values.reversed()))))
        #expect(bothEncode(values.reversed() as [Shape]).ours == bothEncode(values.reversed() as [Shape]).foundation)
    }
}
