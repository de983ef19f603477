import Foundation
import Testing
@testable import StreamQLite

// Coding paths, dictionary keys and the runtime type of a decoded class, each
// checked against Foundation's JSONEncoder / JSONDecoder on the same input.

/// A CodingKey that is a struct, not a synthesized enum.
private struct AnyKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(_ s: String) { stringValue = s }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

/// Records `encoder.codingPath` inside its `encode(to:)`.
private final class PathLog: @unchecked Sendable {
    var paths: [[String]] = []
    static let key = CodingUserInfoKey(rawValue: "pathLog")!
}

private struct Leaf: Codable {
    var v = 1
    func encode(to encoder: any Encoder) throws {
        (encoder.userInfo[PathLog.key] as? PathLog)?.paths.append(encoder.codingPath.map(\.stringValue))
        var c = encoder.container(keyedBy: AnyKey.self)
        try c.encode(v, forKey: AnyKey("leafValue"))
    }
    init() {}
    init(from decoder: any Decoder) throws {
        (decoder.userInfo[PathLog.key] as? PathLog)?.paths.append(decoder.codingPath.map(\.stringValue))
        let c = try decoder.container(keyedBy: AnyKey.self)
        v = try c.decode(Int.self, forKey: AnyKey("leafValue"))
    }
}

private struct Outer: Codable {
    var leaf = Leaf()
    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: AnyKey.self)
        try c.encode(leaf, forKey: AnyKey("myLeaf"))
    }
    init() {}
    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: AnyKey.self)
        leaf = try c.decode(Leaf.self, forKey: AnyKey("myLeaf"))
    }
}

private struct BadLeaf: Decodable {
    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: AnyKey.self)
        _ = try c.decode(String.self, forKey: AnyKey("leafValue"))
    }
}
private struct BadOuter: Decodable {
    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: AnyKey.self)
        _ = try c.decode(BadLeaf.self, forKey: AnyKey("myLeaf"))
    }
}

/// A value that records the coding path it is encoded and decoded at.
private struct PathProbe: Codable, Equatable {
    var n = 0
    init(_ n: Int) { self.n = n }
    func encode(to encoder: any Encoder) throws {
        (encoder.userInfo[PathLog.key] as? PathLog)?.paths.append(
            encoder.codingPath.map { "\($0.stringValue)|\($0.intValue.map(String.init) ?? "nil")" })
        var c = encoder.singleValueContainer()
        try c.encode(n)
    }
    init(from decoder: any Decoder) throws {
        (decoder.userInfo[PathLog.key] as? PathLog)?.paths.append(
            decoder.codingPath.map { "\($0.stringValue)|\($0.intValue.map(String.init) ?? "nil")" })
        n = try decoder.singleValueContainer().decode(Int.self)
    }
}

private class MetaPerson: Codable { var name = "p"; init() {} }
private final class MetaEmployee: MetaPerson {
    var badge = 0
    private enum K: String, CodingKey { case badge }
    override init() { super.init() }
    required init(from decoder: any Decoder) throws {
        badge = try decoder.container(keyedBy: K.self).decode(Int.self, forKey: .badge)
        try super.init(from: decoder)
    }
    override func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: K.self)
        try c.encode(badge, forKey: .badge)
        try super.encode(to: encoder)
    }
}

/// A subclass that adds nothing: it inherits the synthesized `init(from:)`.
private final class PlainSubclass: MetaPerson {}

private func pathText(_ error: any Error) -> String {
    switch error {
    case DecodingError.typeMismatch(_, let c), DecodingError.valueNotFound(_, let c),
         DecodingError.keyNotFound(_, let c), DecodingError.dataCorrupted(let c):
        return c.codingPath.map { "\($0.stringValue)|\($0.intValue.map(String.init) ?? "nil")" }.joined(separator: ",")
    default: return "\(error)"
    }
}

@Suite struct JSONCodingPathParityTests {
    @Test func encoderPathsHoldKeysBeforeSnakeCaseConversion() throws {
        let ours = PathLog(), theirs = PathLog()
        var e = JSONValueEncoder()
        e.keyEncodingStrategy = .convertToSnakeCase
        e.userInfo[PathLog.key] = ours
        let f = JSONEncoder()
        f.keyEncodingStrategy = .convertToSnakeCase
        f.userInfo[PathLog.key] = theirs
        let a = try e.encode(Outer())
        let b = try f.encode(Outer())
        #expect(String(decoding: a, as: UTF8.self) == String(decoding: b, as: UTF8.self))
        #expect(theirs.paths == [["myLeaf"]])
        #expect(ours.paths == theirs.paths)
    }

    @Test func decoderPathsHoldKeysBeforeSnakeCaseConversion() throws {
        let json = Data(#"{"my_leaf":{"leaf_value":3}}"#.utf8)
        let ours = PathLog(), theirs = PathLog()
        var d = JSONValueDecoder()
        d.keyDecodingStrategy = .convertFromSnakeCase
        d.userInfo[PathLog.key] = ours
        let f = JSONDecoder()
        f.keyDecodingStrategy = .convertFromSnakeCase
        f.userInfo[PathLog.key] = theirs
        #expect(try d.decode(Outer.self, from: json).leaf.v == 3)
        #expect(try f.decode(Outer.self, from: json).leaf.v == 3)
        #expect(ours.paths == theirs.paths)
        // and in an error's path
        let bad = Data(#"{"my_leaf":{"leaf_value":3}}"#.utf8)
        var ourError = "", theirError = ""
        do { _ = try d.decode(BadOuter.self, from: bad) } catch { ourError = pathText(error) }
        do { _ = try f.decode(BadOuter.self, from: bad) } catch { theirError = pathText(error) }
        #expect(theirError == "myLeaf|nil,leafValue|nil")
        #expect(ourError == theirError)
    }

    @Test func intKeyedDictionaryPathsKeepTheIntValue() throws {
        let ours = PathLog(), theirs = PathLog()
        var e = JSONValueEncoder()
        e.userInfo[PathLog.key] = ours
        let f = JSONEncoder()
        f.userInfo[PathLog.key] = theirs
        _ = try e.encode([42: PathProbe(1)])
        _ = try f.encode([42: PathProbe(1)])
        #expect(theirs.paths == [["42|42"]])
        #expect(ours.paths == theirs.paths)

        let dOurs = PathLog(), dTheirs = PathLog()
        var d = JSONValueDecoder()
        d.userInfo[PathLog.key] = dOurs
        let g = JSONDecoder()
        g.userInfo[PathLog.key] = dTheirs
        let json = Data(#"{"42":1}"#.utf8)
        #expect(try d.decode([Int: PathProbe].self, from: json) == [42: PathProbe(1)])
        _ = try g.decode([Int: PathProbe].self, from: json)
        #expect(dOurs.paths == dTheirs.paths)

        // an error below an Int key
        let bad = Data(#"{"42":"x"}"#.utf8)
        var ourError = "", theirError = ""
        do { _ = try d.decode([Int: Int].self, from: bad) } catch { ourError = pathText(error) }
        do { _ = try g.decode([Int: Int].self, from: bad) } catch { theirError = pathText(error) }
        #expect(ourError == theirError)
        var ourText = "", theirText = ""
        do { _ = try d.decode([Int: Int].self, from: bad) } catch { ourText = "\(error)" }
        do { _ = try g.decode([Int: Int].self, from: bad) } catch { theirText = "\(error)" }
        #expect(ourText.contains("[42]") == theirText.contains("[42]"), "ours: \(ourText)\ntheirs: \(theirText)")
    }

    /// `{"1":1,"01":2}` as `[Int: Int]`: two spellings of the key 1. The first wins, as for
    /// every duplicate key, every run. (`JSONDecoder` takes the members in its dictionary's
    /// hash order: [1: 1] or [1: 2] from one process to the next.)
    @Test func twoSpellingsOfOneIntKeyTheFirstWins() throws {
        let json = Data(#"{"1":1,"01":2}"#.utf8)
        #expect(try JSONValueDecoder().decode([Int: Int].self, from: json) == [1: 1])
        #expect(try JSONValueDecoder().decode([Int: Int].self, from: Data(#"{"01":2,"1":1}"#.utf8)) == [1: 2])
        #expect(try JSONValueDecoder().decode([Int: Int].self, from: Data(#"{"1":1,"1":2}"#.utf8)) == [1: 1])
        let foundation = try JSONDecoder().decode([Int: Int].self, from: json)
        #expect(foundation == [1: 1] || foundation == [1: 2])
        // under a key strategy the keys go through it, and `Dictionary.init(from:)` keeps the last
        var converting = JSONValueDecoder()
        converting.keyDecodingStrategy = .convertFromSnakeCase
        #expect(try converting.decode([Int: Int].self, from: json) == [1: 2])
        // a key that is no number: the standard library's error, with the key in the path
        #expect(throws: DecodingError.self) { try JSONValueDecoder().decode([Int: Int].self, from: Data(#"{"1":1,"x":2}"#.utf8)) }
        var ours = "", theirs = ""
        do { _ = try JSONValueDecoder().decode([Int: Int].self, from: Data(#"{"1":1,"x":2}"#.utf8)) } catch { ours = pathText(error) }
        do { _ = try JSONDecoder().decode([Int: Int].self, from: Data(#"{"1":1,"x":2}"#.utf8)) } catch { theirs = pathText(error) }
        #expect(ours == theirs)
        // [Int: [Int: String]] round trip, and the sizes of a large one
        let nested = [1: [2: "a"], 30: [40: "b", -5: "c"]]
        #expect(try JSONValueDecoder().decode([Int: [Int: String]].self, from: JSONEncoder().encode(nested)) == nested)
        let big = Dictionary(uniqueKeysWithValues: (0..<5000).map { ($0 * 7 - 9000, "v\($0)") })
        #expect(try JSONValueDecoder().decode([Int: String].self, from: JSONValueEncoder().encode(big)) == big)
    }

    @Test func runtimeSubclassThroughAMetatypeInAVariable() throws {
        let json = Data(#"{"name":"n","badge":7}"#.utf8)
        let meta: MetaPerson.Type = MetaEmployee.self
        let theirs = try JSONDecoder().decode(meta, from: json)
        let ours = try JSONValueDecoder().decode(meta, from: json)
        #expect(type(of: theirs) == MetaEmployee.self)
        #expect(type(of: ours) == type(of: theirs))
        #expect((ours as? MetaEmployee)?.badge == 7)
        let array = try JSONValueDecoder().decode([MetaPerson].self, from: Data("[\(String(decoding: json, as: UTF8.self))]".utf8))
        #expect(type(of: array[0]) == MetaPerson.self)
        let plain: MetaPerson.Type = PlainSubclass.self
        #expect(type(of: try JSONDecoder().decode(plain, from: json)) == PlainSubclass.self)
        #expect(type(of: try JSONValueDecoder().decode(plain, from: json)) == PlainSubclass.self)
        #expect(type(of: try JSONValueDecoder().decode(plain, from: Array(json))) == PlainSubclass.self)
    }
}
