import Foundation
import Testing
import StreamQLite

// Streamed elements reuse one tape: what an init(from:) keeps beyond its call (an unkeyed or
// single-value container, a super decoder and its containers) throws when used after the
// next element was decoded; it never reads that element's values. Before, only keyed
// containers were checked: the others read the next element (silently wrong values).

/// What element 0 kept, used after element 1 was decoded.
private final class KeptForLater: @unchecked Sendable {
    var unkeyed: (any UnkeyedDecodingContainer)?
    var single: (any SingleValueDecodingContainer)?
    var superDecoder: (any Decoder)?
    var superKeyed: KeyedDecodingContainer<KeptElement.Keys>?
}

private struct KeptElement: Decodable {
    enum Keys: String, CodingKey { case n, xs, name, inner }
    /// The test's keeper, handed in through userInfo (tests run in parallel).
    static let key = CodingUserInfoKey(rawValue: "kept")!
    var n: Int
    /// Element 0 keeps its containers and a super decoder.
    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: Keys.self)
        n = try c.decode(Int.self, forKey: .n)
        if n == 0 {
            let kept = decoder.userInfo[Self.key] as! KeptForLater
            kept.unkeyed = try c.nestedUnkeyedContainer(forKey: .xs)
            kept.single = try c.superDecoder(forKey: .name).singleValueContainer()
            let inner = try c.superDecoder(forKey: .inner)
            kept.superDecoder = inner
            kept.superKeyed = try inner.container(keyedBy: Keys.self)
        }
    }
}

@Suite struct JSONKeptContainerTests {
    /// What each kept thing reads after element 1 was decoded: a value or "threw".
    fileprivate static func readKept(_ k: KeptForLater) -> [String] {
        func attempt(_ body: () throws -> String) -> String { (try? body()) ?? "threw" }
        var unkeyed = k.unkeyed!
        return [
            attempt { "\(try unkeyed.decode(Int.self))" },
            attempt { try k.single!.decode(String.self) },
            attempt { "\(try k.superDecoder!.container(keyedBy: KeptElement.Keys.self).decode(Int.self, forKey: .n))" },
            attempt { "\(try k.superKeyed!.decode(Int.self, forKey: .n))" },
        ]
    }

    /// A decoder handing `kept` to the elements.
    fileprivate static func decoder(_ kept: KeptForLater) -> JSONValueDecoder {
        var d = JSONValueDecoder()
        d.userInfo = [KeptElement.key: kept]
        return d
    }

    @Test func containersAndSuperDecodersKeptFromAStreamedElementThrowRatherThanReadTheNext() throws {
        let kept = KeptForLater()
        let json = Array(#"[{"n":0,"xs":[10,11],"name":"zero","inner":{"n":100}},{"n":1,"xs":[20,21],"name":"one","inner":{"n":101}}]"#.utf8)
        let cursor = try Self.decoder(kept).elements(of: KeptElement.self, in: json)
        #expect(try cursor.next()?.n == 0)
        // While element 0 is current, what it kept reads element 0.
        var whileCurrent = kept.unkeyed!
        #expect(try whileCurrent.decode(Int.self) == 10)
        #expect(try cursor.next()?.n == 1)
        #expect(Self.readKept(kept) == ["threw", "threw", "threw", "threw"])
        #expect(try cursor.next() == nil)
    }

    @Test func theErrorSaysWhatHappened() throws {
        let kept = KeptForLater()
        let json = Array(#"[{"n":0,"xs":[1],"name":"a","inner":{"n":5}},{"n":1,"xs":[2],"name":"b","inner":{"n":6}}]"#.utf8)
        let cursor = try Self.decoder(kept).elements(of: KeptElement.self, in: json)
        _ = try cursor.next()
        _ = try cursor.next()
        let error = #expect(throws: DecodingError.self) { _ = try kept.single!.decode(String.self) }
        #expect("\(String(describing: error))".contains("after its value was decoded"))
        // A kept unkeyed container does not report its end early (a loop over it would stop
        // silently with what it read so far): the next read throws.
        #expect(kept.unkeyed!.isAtEnd == false)
    }

    @Test func aWholeDocumentDecodeStillLetsKeptThingsReadTheirOwnValues() throws {
        // Decoded whole (not streamed): nothing is reused during the call, so what element 0
        // kept reads element 0 after element 1 was decoded.
        let kept = KeptForLater()
        struct All: Decodable {
            var late: [String] = []
            init(from decoder: any Decoder) throws {
                var u = try decoder.unkeyedContainer()
                while !u.isAtEnd { _ = try u.decode(KeptElement.self) }
                late = JSONKeptContainerTests.readKept(decoder.userInfo[KeptElement.key] as! KeptForLater)
            }
        }
        let json = Array(#"{"all":[{"n":0,"xs":[10,11],"name":"zero","inner":{"n":100}},{"n":1,"xs":[20,21],"name":"one","inner":{"n":101}}]}"#.utf8)
        struct Wrapper: Decodable { var all: All }
        #expect(try Self.decoder(kept).decode(Wrapper.self, from: json).all.late == ["10", "zero", "100", "100"])
    }
}
