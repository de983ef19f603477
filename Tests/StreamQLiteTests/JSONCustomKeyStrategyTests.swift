import Foundation
import Testing
@testable import StreamQLite

// `.custom` key strategies, both ways, checked against Foundation's JSONEncoder / JSONDecoder
// at run time: the coding paths the function receives, how often it is called, the bytes
// written, the values read, dictionaries' keys, and keys that convert to one key.

/// A key of any name (the functions below return these).
private struct AnyKey: CodingKey {
    var stringValue: String
    var intValue: Int?
    init(_ s: String) { stringValue = s }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { stringValue = "\(intValue)"; self.intValue = intValue }
}

/// What a key function was given, in call order.
private final class PathLog: @unchecked Sendable {
    let lock = NSLock()
    var paths: [[String]] = []
    func add(_ path: [any CodingKey]) { lock.withLock { paths.append(path.map(\.stringValue)) } }
}

/// `QQQ` before each key, logging the path (as Foundation's `encodingKeyStrategyPath` test).
private func prefixing(_ log: PathLog) -> @Sendable ([any CodingKey]) -> any CodingKey {
    { path in log.add(path); return AnyKey("QQQ" + path.last!.stringValue) }
}

private struct Leaf: Codable, Equatable { var helloWorld = "test"; var count = 1 }
private struct Middle: Codable, Equatable { var nestedValue = Leaf(); var list = [Leaf(), Leaf()] }
private struct Outer: Codable, Equatable {
    var outerValue = Middle()
    var byName: [String: Leaf] = ["keptAsIs": Leaf()]
    var optional: Int? = nil
}

/// Writes a key chosen at run time, through a nested container and a super encoder too.
private struct Dynamic: Encodable {
    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: AnyKey.self)
        try c.encode("v", forKey: AnyKey("someKey"))
        var n = c.nestedContainer(keyedBy: AnyKey.self, forKey: AnyKey("nestedBox"))
        try n.encode(1, forKey: AnyKey("innerKey"))
        var u = c.nestedUnkeyedContainer(forKey: AnyKey("listBox"))
        try u.encode(Leaf())
        try Leaf().encode(to: c.superEncoder(forKey: AnyKey("superBox")))
    }
}

private func ourEncoder(_ strategy: JSONValueEncoder.KeyEncodingStrategy) -> JSONValueEncoder {
    var e = JSONValueEncoder()
    e.outputFormatting = [.sortedKeys]
    e.keyEncodingStrategy = strategy
    return e
}

private func foundationEncoder(_ strategy: JSONEncoder.KeyEncodingStrategy) -> JSONEncoder {
    let e = JSONEncoder()
    e.outputFormatting = [.sortedKeys]
    e.keyEncodingStrategy = strategy
    return e
}

@Suite struct JSONCustomKeyStrategyTests {
    @Test func customEncodingKeysAreFoundationsWithTheSamePathsAndCalls() throws {
        for value in [Outer()] as [Outer] {
            let ourLog = PathLog(), theirLog = PathLog()
            let ours = try ourEncoder(.custom(prefixing(ourLog))).encode(value)
            let theirs = try foundationEncoder(.custom(prefixing(theirLog))).encode(value)
            #expect(String(decoding: ours, as: UTF8.self) == String(decoding: theirs, as: UTF8.self))
            #expect(String(decoding: ours, as: UTF8.self).contains(#""QQQouterValue":{"QQQlist":[{"QQQcount":1"#))
            // Dictionary keys are written as they are (the function is not asked about them).
            #expect(String(decoding: ours, as: UTF8.self).contains(#""keptAsIs":"#))
            // Called once per key written, with the coding path of the types' keys. (Inside a
            // `[String: V]` Foundation leaves the dictionary's own key out of the path,
            // ["keptAsIs", "count"]; here the path is whole, as `encoder.codingPath` is.)
            func sorted(_ paths: [[String]]) -> [[String]] {
                paths.map { $0.first == "byName" && $0.count > 1 ? Array($0.dropFirst()) : $0 }.sorted { $0.lexicographicallyPrecedes($1) }
            }
            #expect(sorted(ourLog.paths) == sorted(theirLog.paths))
            #expect(ourLog.paths.contains(["byName", "keptAsIs", "count"]))
            #expect(ourLog.paths.contains(["outerValue", "nestedValue", "helloWorld"]))
            #expect(ourLog.paths.contains(["outerValue", "list", "Index 1", "count"]))
        }
    }

    @Test func customEncodingKeysApplyToNestedContainersAndSuperEncoders() throws {
        let ourLog = PathLog(), theirLog = PathLog()
        let ours = try ourEncoder(.custom(prefixing(ourLog))).encode(Dynamic())
        let theirs = try foundationEncoder(.custom(prefixing(theirLog))).encode(Dynamic())
        #expect(String(decoding: ours, as: UTF8.self) == String(decoding: theirs, as: UTF8.self))
        #expect(String(decoding: ours, as: UTF8.self) == #"{"QQQlistBox":[{"QQQcount":1,"QQQhelloWorld":"test"}],"QQQnestedBox":{"QQQinnerKey":1},"QQQsomeKey":"v","QQQsuperBox":{"QQQcount":1,"QQQhelloWorld":"test"}}"#)
        #expect(ourLog.paths.count == theirLog.paths.count)
        // Into a sink, pretty printed: the same bytes as Foundation's.
        var pretty = ourEncoder(.custom(prefixing(PathLog())))
        pretty.outputFormatting = [.sortedKeys, .prettyPrinted]
        final class Collected: @unchecked Sendable { var bytes: [UInt8] = [] }
        let collected = Collected()
        var sink = ClosureSink { collected.bytes += $0 }
        try pretty.encode(Outer(), into: &sink)
        let foundationPretty = foundationEncoder(.custom(prefixing(PathLog())))
        foundationPretty.outputFormatting = [.sortedKeys, .prettyPrinted]
        #expect(collected.bytes == Array(try foundationPretty.encode(Outer())))
    }

    @Test func keysEncodedToOneNameKeepTheLastValueAsFoundation() throws {
        let same: @Sendable ([any CodingKey]) -> any CodingKey = { _ in AnyKey("oneTwo") }
        struct Two: Encodable {
            enum CodingKeys: String, CodingKey { case oneTwo, oneTwoThree }
            func encode(to encoder: any Encoder) throws {
                var c = encoder.container(keyedBy: CodingKeys.self)
                try c.encode("test", forKey: .oneTwo)
                try c.encode("test2", forKey: .oneTwoThree)
            }
        }
        let ours = String(decoding: try ourEncoder(.custom(same)).encode(Two()), as: UTF8.self)
        #expect(ours == #"{"oneTwo":"test2"}"#)
        #expect(ours == String(decoding: try foundationEncoder(.custom(same)).encode(Two()), as: UTF8.self))
    }

    @Test func customDecodingKeysMatchAsFoundationsWithTheDocumentsKeysInThePath() throws {
        // The function drops a `----` prefix, as Foundation's decodingKeyStrategyCustom test does.
        let log = PathLog(), theirLog = PathLog()
        func strip(_ log: PathLog) -> @Sendable ([any CodingKey]) -> any CodingKey {
            { path in
                log.add(path)
                let s = path.last!.stringValue
                return s.hasPrefix("----") ? AnyKey(String(s.dropFirst(4))) : path.last!
            }
        }
        let json = #"{"----outerValue":{"----nestedValue":{"----helloWorld":"x","count":2},"----list":[{"----helloWorld":"y","count":3}]},"byName":{"----kept":{"helloWorld":"z","count":4}},"optional":5}"#
        var ours = JSONValueDecoder()
        ours.keyDecodingStrategy = .custom(strip(log))
        let theirs = JSONDecoder()
        theirs.keyDecodingStrategy = .custom(strip(theirLog))
        let value = try ours.decode(Outer.self, from: json)
        #expect(value == (try theirs.decode(Outer.self, from: Data(json.utf8))))
        #expect(value.outerValue.nestedValue == Leaf(helloWorld: "x", count: 2))
        #expect(value.byName == ["----kept": Leaf(helloWorld: "z", count: 4)])
        // The function sees the document's key at the end of the converted path.
        #expect(log.paths.contains(["outerValue", "nestedValue", "----helloWorld"]))
        #expect(Set(log.paths) == Set(theirLog.paths))
        // Hand-written types and streamed elements read through the same conversion.
        let many = "[" + Array(repeating: #"{"----userId":1,"----firstName":"a"}"#, count: 3).joined(separator: ",") + "]"
        #expect(try ours.decode([Hand].self, from: many) == Array(repeating: Hand(userId: 1, firstName: "a"), count: 3))
        let cursor = try ours.elements(of: Hand.self, in: Array(many.utf8))
        var streamed: [Hand] = []
        while let h = try cursor.next() { streamed.append(h) }
        #expect(streamed == Array(repeating: Hand(userId: 1, firstName: "a"), count: 3))
    }

    @Test func keysDecodedToOneNameReadTheFirstMemberAsFoundation() throws {
        struct Five: Decodable {
            var oneTwo: String
            var numberOfKeys: Int
            enum CodingKeys: String, CodingKey { case oneTwo, oneTwoThree }
            init(from decoder: any Decoder) throws {
                let c = try decoder.container(keyedBy: CodingKeys.self)
                oneTwo = try c.decode(String.self, forKey: .oneTwo)
                numberOfKeys = c.allKeys.count
            }
        }
        let same: @Sendable ([any CodingKey]) -> any CodingKey = { _ in AnyKey("oneTwo") }
        let json = #"{"unused key 1":"test1","unused key 2":"test2"}"#
        var ours = JSONValueDecoder()
        ours.keyDecodingStrategy = .custom(same)
        let theirs = JSONDecoder()
        theirs.keyDecodingStrategy = .custom(same)
        let a = try ours.decode(Five.self, from: json), b = try theirs.decode(Five.self, from: Data(json.utf8))
        #expect(a.oneTwo == "test1" && a.numberOfKeys == 1)
        #expect(a.oneTwo == b.oneTwo && a.numberOfKeys == b.numberOfKeys)
    }

    @Test func anErrorUnderACustomStrategyNamesTheConvertedKeys() throws {
        let strip: @Sendable ([any CodingKey]) -> any CodingKey = { path in AnyKey(String(path.last!.stringValue.dropFirst(2))) }
        let json = #"{"__outerValue":{"__nestedValue":{"__helloWorld":1,"__count":2}}}"#
        func path(_ body: () throws -> Any) -> [String] {
            switch Result(catching: body) {
            case .success: return ["no error"]
            case .failure(DecodingError.typeMismatch(_, let c)): return c.codingPath.map(\.stringValue)
            case .failure(let error): return ["\(error)"]
            }
        }
        struct M: Decodable { var nestedValue: Leaf }
        struct O: Decodable { var outerValue: M }
        var ours = JSONValueDecoder()
        ours.keyDecodingStrategy = .custom(strip)
        let theirs = JSONDecoder()
        theirs.keyDecodingStrategy = .custom(strip)
        #expect(path { try ours.decode(O.self, from: json) } == ["outerValue", "nestedValue", "helloWorld"])
        #expect(path { try ours.decode(O.self, from: json) } == path { try theirs.decode(O.self, from: Data(json.utf8)) })
    }
}

private struct Hand: Decodable, JSONDecodable, Equatable {
    var userId: Int
    var firstName: String
    init(userId: Int, firstName: String) { self.userId = userId; self.firstName = firstName }
    init(json: inout JSONObjectReader) throws {
        userId = try json.decode("userId")
        firstName = try json.decode("firstName")
    }
}
