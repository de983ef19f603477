import Foundation
import Testing
@testable import StreamQLite

// A JSONObjectWriter key that is a StaticString without a pointer representation (a
// unicode-scalar literal through a generic context), whose utf8CodeUnitCount traps.

/// A unicode-scalar literal turned into a StaticString through a generic context: the one way to
/// get the scalar (non-pointer) representation the writer has a branch for.
private func scalarKey<K: ExpressibleByUnicodeScalarLiteral>(_: K.Type) -> K { "é" }

private struct ReviewScalarKey: Encodable, JSONEncodable {
    func encode(json: inout JSONObjectWriter) throws {
        try json.encode(1, forKey: scalarKey(StaticString.self))
    }
    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: JSONStringKey.self)
        try c.encode(1, forKey: JSONStringKey("é"))
    }
}

@Suite struct JSONEncodableScalarKeyTests {
    @Test func aScalarStaticStringKey() throws {
        #expect(!scalarKey(StaticString.self).hasPointerRepresentation)
        let ours = String(decoding: try JSONValueEncoder().encode(ReviewScalarKey()), as: UTF8.self)
        #expect(ours == #"{"é":1}"#)
    }
}
