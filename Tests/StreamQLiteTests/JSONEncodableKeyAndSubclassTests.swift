import Foundation
import Testing
@testable import StreamQLite

// JSONEncodable edge cases: a subclass overriding encode(to:), hand-written keys in a document
// the tree took over under convertToSnakeCase, canonically equivalent keys.

private struct ReviewPlainDoc: Encodable { var point: ReviewHandPoint; var other: Int }
private struct ReviewRestartDoc: Encodable { var point: ReviewHandPoint; var other: OutOfOrder }

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


@Suite struct JSONEncodableKeyAndSubclassTests {
    // A subclass that adds members through encode(to:) inherits the base's encode(json:):
    // the encoder must not silently drop the subclass's members.
    @Test func aSubclassOverridingEncodeToKeepsItsMembers() throws {
        #expect(try encodedByFoundation(ReviewDerived()) == #"{"a":1,"b":2}"#)
        #expect(try encodedByUs(ReviewDerived()) == #"{"a":1,"b":2}"#)
        #expect(try encodedByUs([ReviewDerived()] as [ReviewBase]) == #"[{"a":1,"b":2}]"#)
    }

    // The same hand-written value must come out the same whatever its siblings are: a
    // sibling that makes the stream encoder restart as a tree must not switch the value
    // from encode(json:) (raw keys) to encode(to:) (keys converted by the strategy).
    @Test func aRestartedDocumentWritesHandKeysAsTheStreamDoes() throws {
        let point = ReviewHandPoint(createdAt: 5, userName: "x")
        let plain = try encodedByUs(ReviewPlainDoc(point: point, other: 1), snake: true)
        let restarted = try encodedByUs(ReviewRestartDoc(point: point, other: OutOfOrder()), snake: true)
        // The object under "point", cut out of each document.
        func pointPart(_ s: String) -> Substring {
            let start = s.range(of: "\"point\":")!.upperBound
            return s[start...].prefix { $0 != "}" }
        }
        #expect(pointPart(plain) == pointPart(restarted), "\(plain) vs \(restarted)")
        // Foundation's own output for the restarted document, to show which one it matches.
        let reference = try encodedByFoundation(ReviewRestartDoc(point: point, other: OutOfOrder()), snake: true)
        #expect(restarted == reference)
    }

    // Keys that Swift's String == treats as equal (canonical equivalence): the Encodable
    // path and JSONEncoder keep one member; the hand-written path must agree.
    @Test func canonicallyEquivalentKeys() throws {
        let hand = try encodedByUs(ReviewEquivalentKeys(), [])
        let plain = try encodedByUs(ReviewEquivalentKeysPlain(), [])
        let reference = try encodedByFoundation(ReviewEquivalentKeysPlain(), [])
        #expect(plain == reference)
        #expect(hand == plain, "hand \(hand) vs Encodable path \(plain) vs JSONEncoder \(reference)")
    }
}
