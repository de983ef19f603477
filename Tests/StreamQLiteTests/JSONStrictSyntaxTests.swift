import Foundation
import Testing
import StreamQLite

/// `allowsTrailingCommas = false`: `decode(_:from:)` reads RFC 8259 as `elements(of:in:)` and
/// the SQL functions do, for small documents and for large top-level arrays (decoded element
/// by element) alike; the default stays `JSONDecoder`'s.
@Suite struct JSONStrictSyntaxTests {
    struct Task: Codable, Equatable { var title: String; var done: Bool? }

    static var strict: JSONValueDecoder {
        var d = JSONValueDecoder()
        d.allowsTrailingCommas = false
        return d
    }

    @Test func strictDecodingRefusesEveryTrailingComma() throws {
        #expect(throws: DecodingError.self) { try Self.strict.decode(Task.self, from: #"{"title":"x",}"#) }
        #expect(throws: DecodingError.self) { try Self.strict.decode(Task.self, from: #"{"title":"x" , }"#) }
        #expect(throws: DecodingError.self) { try Self.strict.decode([Task].self, from: #"[{"title":"x"},]"#) }
        #expect(throws: DecodingError.self) { try Self.strict.decode([Task].self, from: #"[{"title":"x",}]"#) }
        #expect(throws: DecodingError.self) { try Self.strict.decode([String: [Int]].self, from: #"{"a":[1,]}"#) }
        #expect(try Self.strict.decode(Task.self, from: #"{"title":"x","done":true}"#) == Task(title: "x", done: true))
        // The default is JSONDecoder's: accepted.
        #expect(try JSONValueDecoder().decode(Task.self, from: #"{"title":"x",}"#) == Task(title: "x"))
        #expect(try JSONDecoder().decode(Task.self, from: Data(#"{"title":"x",}"#.utf8)) == Task(title: "x"))
    }

    @Test func aLargeArrayIsReadByTheSameRule() throws {
        // Over the size from which a top-level array is decoded element by element.
        var text = "[" + String(repeating: #"{"title":"a long enough title for the test","done":false},"#, count: 6_000)
        text += #"{"title":"last"},]"#
        #expect(text.utf8.count > 256 * 1024)
        #expect(throws: DecodingError.self) { try Self.strict.decode([Task].self, from: text) }
        #expect(try JSONValueDecoder().decode([Task].self, from: text).count == 6_001)
        let fixed = String(text.dropLast(2)) + "]"
        #expect(try Self.strict.decode([Task].self, from: fixed).count == 6_001)
    }
}
