import Foundation
import Testing
@testable import StreamQLite

// Regression tests for defects found in review of b809a91 (each failed on b809a91/b160c6d;
// fixed by 4e926e7 and 924e503): a subclass overriding encode(to:), a document restarted as a
// tree under convertToSnakeCase, canonically equivalent keys.

private struct ReviewHandPoint: Codable, JSONEncodable {
    var createdAt: Int
    var userName: String
    func encode(json: inout JSONObjectWriter) throws {
        try json.encode(createdAt, forKey: "createdAt")
        try json.encode(userName, forKey: "userName")
    }
}

/// Uses a nested container after writing to its parent: the stream encoder restarts the
/// whole document as a tree.
private struct ReviewOutOfOrder: Encodable {
    enum K: String, CodingKey { case a, b, c }
    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: K.self)
        var n = c.nestedContainer(keyedBy: K.self, forKey: .a)
        try c.encode(1, forKey: .b)
        try n.encode(2, forKey: .c)
    }
}

private struct ReviewPlainDoc: Encodable { var point: ReviewHandPoint; var other: Int }
private struct ReviewRestartDoc: Encodable { var point: ReviewHandPoint; var other: ReviewOutOfOrder }

/// A type whose encode(json:) writes different key sets for different values.
private struct ReviewVarying: Codable, JSONEncodable {
    var a: Int?
    var b: Int?
    var c: Int?
    var z: String?
    func encode(json: inout JSONObjectWriter) throws {
        try json.encodeIfPresent(z, forKey: "z")
        try json.encodeIfPresent(c, forKey: "c")
        try json.encodeIfPresent(b, forKey: "b")
        try json.encodeIfPresent(a, forKey: "a")
    }
    enum CodingKeys: String, CodingKey { case z, c, b, a }
}

/// Keys that are canonically equivalent Strings but different bytes ("é" precomposed and decomposed).
private struct ReviewEquivalentKeys: Encodable, JSONEncodable {
    func encode(json: inout JSONObjectWriter) throws {
        try json.encode(1, forKey: "\u{E9}")
        try json.encode(2, forKey: "e\u{301}")
    }
    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: JSONStringKey.self)
        try c.encode(1, forKey: JSONStringKey("\u{E9}"))
        try c.encode(2, forKey: JSONStringKey("e\u{301}"))
    }
}
private struct ReviewEquivalentKeysPlain: Encodable {
    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: JSONStringKey.self)
        try c.encode(1, forKey: JSONStringKey("\u{E9}"))
        try c.encode(2, forKey: JSONStringKey("e\u{301}"))
    }
}

private func ours<T: Encodable>(_ value: T, _ formatting: JSONValueEncoder.OutputFormatting = [.sortedKeys],
                                snake: Bool = false) throws -> String {
    var e = JSONValueEncoder()
    e.outputFormatting = formatting
    if snake { e.keyEncodingStrategy = .convertToSnakeCase }
    return String(decoding: try e.encode(value), as: UTF8.self)
}

private func foundation<T: Encodable>(_ value: T, _ formatting: JSONEncoder.OutputFormatting = [.sortedKeys],
                                      snake: Bool = false) throws -> String {
    let e = JSONEncoder()
    e.outputFormatting = formatting
    if snake { e.keyEncodingStrategy = .convertToSnakeCase }
    return String(decoding: try e.encode(value), as: UTF8.self)
}

/// A class hierarchy: the base writes itself by hand; the subclass adds a member the
/// usual way (overriding encode(to:)), as Codable class hierarchies do.
private class ReviewBase: Encodable, JSONEncodable {
    var a = 1
    func encode(json: inout JSONObjectWriter) throws { try json.encode(a, forKey: "a") }
    enum K: String, CodingKey { case a, b }
    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: K.self)
        try c.encode(a, forKey: .a)
    }
}
private final class ReviewDerived: ReviewBase {
    var b = 2
    override func encode(to encoder: any Encoder) throws {
        try super.encode(to: encoder)
        var c = encoder.container(keyedBy: K.self)
        try c.encode(b, forKey: .b)
    }
}

/// Dates, data, URLs and nested optionals in hand-written members (the generic overload).
private struct ReviewDated: Codable, JSONEncodable {
    var when: Date
    var maybe: Date?
    var blob: Data
    var link: URL
    var leaves: [ReviewHandPoint]?
    var inner: ReviewHandPoint?
    func encode(json: inout JSONObjectWriter) throws {
        try json.encode(when, forKey: "when")
        try json.encodeIfPresent(maybe, forKey: "maybe")
        try json.encode(blob, forKey: "blob")
        try json.encode(link, forKey: "link")
        try json.encodeIfPresent(leaves, forKey: "leaves")
        try json.encodeIfPresent(inner, forKey: "inner")
    }
}

@Suite struct ReviewJSONEncodableRegressionTests {
    // A subclass that adds members through encode(to:) inherits the base's encode(json:):
    // the encoder must not silently drop the subclass's members.
    @Test func aSubclassOverridingEncodeToKeepsItsMembers() throws {
        #expect(try foundation(ReviewDerived()) == #"{"a":1,"b":2}"#)
        #expect(try ours(ReviewDerived()) == #"{"a":1,"b":2}"#)
        #expect(try ours([ReviewDerived()] as [ReviewBase]) == #"[{"a":1,"b":2}]"#)
    }

    // The same hand-written value must come out the same whatever its siblings are: a
    // sibling that makes the stream encoder restart as a tree must not switch the value
    // from encode(json:) (raw keys) to encode(to:) (keys converted by the strategy).
    @Test func aRestartedDocumentWritesHandKeysAsTheStreamDoes() throws {
        let point = ReviewHandPoint(createdAt: 5, userName: "x")
        let plain = try ours(ReviewPlainDoc(point: point, other: 1), snake: true)
        let restarted = try ours(ReviewRestartDoc(point: point, other: ReviewOutOfOrder()), snake: true)
        // The object under "point", cut out of each document.
        func pointPart(_ s: String) -> Substring {
            let start = s.range(of: "\"point\":")!.upperBound
            return s[start...].prefix { $0 != "}" }
        }
        #expect(pointPart(plain) == pointPart(restarted), "\(plain) vs \(restarted)")
        // Foundation's own output for the restarted document, to show which one it matches.
        let reference = try foundation(ReviewRestartDoc(point: point, other: ReviewOutOfOrder()), snake: true)
        #expect(restarted == reference)
    }

    // Keys that Swift's String == treats as equal (canonical equivalence): the Encodable
    // path and JSONEncoder keep one member; the hand-written path must agree.
    @Test func canonicallyEquivalentKeys() throws {
        let hand = try ours(ReviewEquivalentKeys(), [])
        let plain = try ours(ReviewEquivalentKeysPlain(), [])
        let reference = try foundation(ReviewEquivalentKeysPlain(), [])
        #expect(plain == reference)
        #expect(hand == plain, "hand \(hand) vs Encodable path \(plain) vs JSONEncoder \(reference)")
    }
}
