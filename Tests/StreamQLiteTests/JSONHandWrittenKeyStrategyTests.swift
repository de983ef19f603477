import Foundation
import Testing
@testable import StreamQLite

/// Hand-written JSON coding follows the coders' key strategies as `Codable` does: what
/// ``JSONEncodable`` writes with `convertToSnakeCase`, ``JSONDecodable`` reads back with
/// `convertFromSnakeCase`, and both agree with Foundation and with the type's own
/// `init(from:)` / `encode(to:)` on the same bytes.
@Suite struct JSONHandWrittenKeyStrategyTests {
    struct Account: Codable, Equatable, JSONDecodable, JSONEncodable {
        var userId: Int
        var firstName: String
        var lastLoginAt: Double?
        var plain: Bool

        init(userId: Int, firstName: String, lastLoginAt: Double?, plain: Bool) {
            self.userId = userId; self.firstName = firstName; self.lastLoginAt = lastLoginAt; self.plain = plain
        }
        init(json: inout JSONObjectReader) throws {
            userId = try json.decode("userId")
            firstName = try json.decode("firstName")
            lastLoginAt = try json.decodeIfPresent("lastLoginAt")
            plain = try json.decode("plain")
        }
        func encode(json: inout JSONObjectWriter) throws {
            try json.encode(userId, forKey: "userId")
            try json.encode(firstName, forKey: "firstName")
            try json.encodeIfPresent(lastLoginAt, forKey: "lastLoginAt")
            try json.encode(plain, forKey: "plain")
        }
    }

    /// The same members read by the synthesized `init(from:)` (no hand-written path).
    struct AccountCodable: Codable, Equatable {
        var userId: Int
        var firstName: String
        var lastLoginAt: Double?
        var plain: Bool
    }

    static let values = [
        Account(userId: 1, firstName: "Ada", lastLoginAt: 1.5, plain: true),
        Account(userId: 2, firstName: "", lastLoginAt: nil, plain: false),
    ]

    @Test func whatTheHandWrittenEncoderWritesInSnakeCaseIsReadBackByHand() throws {
        var encoder = JSONValueEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.outputFormatting = [.sortedKeys]
        let bytes = try encoder.encode(Self.values)
        let foundation = JSONEncoder()
        foundation.keyEncodingStrategy = .convertToSnakeCase
        foundation.outputFormatting = [.sortedKeys]
        #expect(bytes == Array(try foundation.encode(Self.values)))
        #expect(String(decoding: bytes, as: UTF8.self).contains("\"first_name\""))

        var decoder = JSONValueDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        #expect(try decoder.decode([Account].self, from: bytes) == Self.values)
        // The same as the synthesized init(from:) through our decoder and through Foundation's.
        let viaCodable = try decoder.decode([AccountCodable].self, from: bytes)
        let foundationDecoder = JSONDecoder()
        foundationDecoder.keyDecodingStrategy = .convertFromSnakeCase
        #expect(viaCodable == (try foundationDecoder.decode([AccountCodable].self, from: Data(bytes))))
        #expect(viaCodable.map(\.firstName) == Self.values.map(\.firstName))
    }

    @Test func withSnakeCaseAKeyIsFoundByItsConvertedNameInAnyOrder() throws {
        var decoder = JSONValueDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        let json = #"{"plain": true, "last_login_at": 2.5, "first_name": "Bo", "user_id": 7}"#
        let hand = try decoder.decode(Account.self, from: Array(json.utf8))
        #expect(hand == Account(userId: 7, firstName: "Bo", lastLoginAt: 2.5, plain: true))
        // Without the strategy the snake_case keys are not the members' names.
        #expect(throws: DecodingError.self) { try JSONValueDecoder().decode(Account.self, from: Array(json.utf8)) }
    }
}
