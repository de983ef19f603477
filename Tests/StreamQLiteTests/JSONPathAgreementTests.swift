import Foundation
import Testing
import StreamQLite

/// `elements(of:layout: .arrayAt)` (the Swift decoder) and `importJSON(layout: .arrayAt)`
/// (the C ingest core's JSON driver, as the json_stream table) find the same arrays:
/// both drive the one C path matcher (`sq_json_path`). Before, the decoder tracked the
/// path itself and read only the first matching array.
@Suite struct JSONPathAgreementTests {
    struct Row: Codable, Equatable { var id: Int }

    /// The ids the decoder streams and the ids importJSON stores, for one document and path.
    func both(_ doc: String, _ path: [String]) throws -> (decoded: Result<[Int], any Error>, imported: Result<[Int], any Error>) {
        let bytes = Array(doc.utf8)
        let decoded = Result { try JSONValueDecoder().elements(of: Row.self, in: bytes, layout: .arrayAt(path)).collect().map(\.id) }
        let imported = Result { () throws -> [Int] in
            let db = try Database()
            try db.execute("CREATE TABLE t(id INTEGER)")
            _ = try db.importJSON(bytes: bytes, into: "t", options: .init(layout: .arrayAt(path)))
            return try db.values(Int.self, "SELECT id FROM t ORDER BY rowid").collect()
        }
        return (decoded, imported)
    }

    @Test(arguments: [
        // escaped keys are compared unescaped; a repeated key selects each of its arrays
        (#"{"d\u0061ta":{"it\"ems":[{"id":1}]},"data":{"it\"ems":[{"id":2},{"id":3}]}}"#, ["data", "it\"ems"], [1, 2, 3]),
        (#"{"items":[{"id":1}],"meta":{"items":[{"id":9}]},"items":[{"id":2},{"id":3}]}"#, ["items"], [1, 2, 3]),
        // arrays on the way and at other depths are not the path
        (#"{"x":[{"a":[{"id":5}]}],"a":[{"id":1},{"id":2}],"y":[[{"a":[{"id":6}]}]]}"#, ["a"], [1, 2]),
        (#"{"a":{"b":[{"id":1}]},"b":[{"id":9}],"a":{"c":{"b":[{"id":8}]},"b":[{"id":2}]}}"#, ["a", "b"], [1, 2]),
        // a key with a dot is one step; the nested keys are two
        (#"{"a.b":[{"id":7}],"a":{"b":[{"id":8}]}}"#, ["a.b"], [7]),
        (#"{"a.b":[{"id":7}],"a":{"b":[{"id":8}]}}"#, ["a", "b"], [8]),
        // empty and unicode keys, an empty array, nested arrays inside the elements
        (#"{"":{"é":[{"id":4,"n":[[1],[2]]}]},"é":[]}"#, ["", "é"], [4]),
        (#"{"k":[],"k":[{"id":1}]}"#, ["k"], [1]),
    ] as [(String, [String], [Int])])
    func bothReadTheSameArrays(doc: String, path: [String], expected: [Int]) throws {
        let (decoded, imported) = try both(doc, path)
        #expect(try decoded.get() == expected)
        #expect(try imported.get() == expected)
    }

    @Test(arguments: [
        (#"{"a":{"b":5}}"#, ["a", "b"]),              // a scalar at the path
        (#"{"a":{"b":{"id":1}}}"#, ["a", "b"]),       // an object at the path
        (#"{"a":[{"id":1}]}"#, ["nope"]),              // nothing at the path
        (#"[{"id":1}]"#, ["a"]),                       // the top level is an array
    ] as [(String, [String])])
    func bothRefuseWhatIsNoArray(doc: String, path: [String]) throws {
        let (decoded, imported) = try both(doc, path)
        #expect(throws: (any Error).self) { try decoded.get() }
        #expect(throws: (any Error).self) { try imported.get() }
    }
}

/// `JSONValueDecoder`/`JSONValueEncoder` `.formatted(DateFormatter)`: the same dates and
/// text as Foundation's `JSONDecoder`/`JSONEncoder` with the same formatter.
@Suite struct JSONFormattedDateTests {
    struct Event: Codable, Equatable { var at: Date; var until: Date? }

    static func formatter(_ format: String, _ zone: String) -> DateFormatter {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = TimeZone(identifier: zone)
        f.dateFormat = format
        return f
    }

    @Test(arguments: [
        ("dd/MM/yyyy HH:mm", "UTC"), ("yyyy-MM-dd'T'HH:mm:ss.SSSZZZZZ", "America/New_York"),
        ("EEE, d MMM yyyy HH:mm:ss zzz", "Europe/Paris"), ("yyyyMMdd", "Pacific/Apia"),
    ])
    func decodesAndEncodesAsFoundation(format: String, zone: String) throws {
        let f = Self.formatter(format, zone)
        let dates = [Date(timeIntervalSince1970: 0), Date(timeIntervalSince1970: 1_714_564_800.25),
                     Date(timeIntervalSince1970: -1_000_000_000), Date(timeIntervalSince1970: 4_102_444_800)]
        let events = dates.map { Event(at: $0, until: $0.addingTimeInterval(86_400 * 40)) } + [Event(at: dates[1], until: nil)]

        let theirsEncoder = JSONEncoder()
        theirsEncoder.dateEncodingStrategy = .formatted(f)
        theirsEncoder.outputFormatting = [.sortedKeys]
        var oursEncoder = JSONValueEncoder()
        oursEncoder.dateEncodingStrategy = .formatted(f)
        oursEncoder.outputFormatting = [.sortedKeys]
        let theirsText = Array(try theirsEncoder.encode(events))
        #expect(try oursEncoder.encode(events) == theirsText)

        let theirsDecoder = JSONDecoder()
        theirsDecoder.dateDecodingStrategy = .formatted(f)
        var oursDecoder = JSONValueDecoder()
        oursDecoder.dateDecodingStrategy = .formatted(f)
        #expect(try oursDecoder.decode([Event].self, from: theirsText) == theirsDecoder.decode([Event].self, from: Data(theirsText)))
    }

    @Test func aStringTheFormatterDoesNotReadIsAnError() throws {
        var d = JSONValueDecoder()
        d.dateDecodingStrategy = .formatted(Self.formatter("dd/MM/yyyy", "UTC"))
        let error = #expect(throws: DecodingError.self) { try d.decode(Event.self, from: Array(#"{"at": "2024-05-01"}"#.utf8)) }
        #expect("\(String(describing: error))".contains("Date string does not match format expected by formatter"))
        let theirs = JSONDecoder()
        theirs.dateDecodingStrategy = .formatted(Self.formatter("dd/MM/yyyy", "UTC"))
        #expect(throws: DecodingError.self) { try theirs.decode(Event.self, from: Data(#"{"at": "2024-05-01"}"#.utf8)) }
        #expect(throws: DecodingError.self) { try d.decode(Event.self, from: Array(#"{"at": 5}"#.utf8)) }
    }
}

/// `JSONDecodable`: `init(json:)` gives what `init(from:)` gives (Foundation's decoder as the oracle).
@Suite struct JSONDecodableTests {
    struct Owner: Codable, Equatable, JSONDecodable {
        var name: String; var since: Int
        init(name: String, since: Int) { self.name = name; self.since = since }
        init(json: inout JSONObjectReader) throws {
            name = try json.decode("name"); since = try json.decode("since")
        }
    }
    struct Order: Codable, Equatable, JSONDecodable {
        var id: Int64; var owner: Owner; var tags: [String]; var price: Double; var note: String?; var paid: Bool
        var owners: [Owner]
        init(json: inout JSONObjectReader) throws {
            id = try json.decode("id")
            owner = try json.decode("owner")
            tags = try json.decode("tags")
            price = try json.decode("price")
            note = try json.decodeIfPresent("note")
            paid = try json.decode("paid")
            owners = try json.decode("owners")
        }
    }
    /// Counts the calls of `init(json:)`: the decoder must use it, not `init(from:)`.
    struct Counted: Decodable, JSONDecodable {
        nonisolated(unsafe) static var calls = 0
        var v: Int
        init(json: inout JSONObjectReader) throws { Counted.calls += 1; v = try json.decode("v") }
    }

    @Test func readsAsDecodableDoesInAnyKeyOrder() throws {
        let docs = [
            #"[{"id":1,"owner":{"name":"a","since":2000},"tags":["x"],"price":1.5,"note":"n","paid":true,"owners":[]}]"#,
            #"[{"owners":[{"since":1,"name":"b"}],"paid":false,"price":-0.0,"tags":[],"owner":{"since":3,"name":"é\"\\"},"id":9007199254740993}]"#,
            #"[{"id":2,"id":3,"owner":{"name":"a","since":1,"name":"z"},"tags":[],"price":1e2,"note":null,"paid":true,"owners":[],"extra":[1,{"a":2}]}]"#,
        ]
        for doc in docs {
            let theirs = try JSONDecoder().decode([Order].self, from: Data(doc.utf8))
            #expect(try JSONValueDecoder().decode([Order].self, from: Array(doc.utf8)) == theirs, "\(doc)")
            #expect(try JSONValueDecoder().elements(of: Order.self, in: Array(doc.utf8)).collect() == theirs)
        }
    }

    @Test func theDecoderCallsInitJSON() throws {
        Counted.calls = 0
        let big = "[" + (0..<20_000).map { #"{"v":\#($0)}"# }.joined(separator: ",") + "]"
        #expect(try JSONValueDecoder().decode([Counted].self, from: Array(big.utf8)).map(\.v) == Array(0..<20_000))
        #expect(try JSONValueDecoder().decode(Counted.self, from: Array(#"{"v":5}"#.utf8)).v == 5)
        #expect(Counted.calls == 20_001)
    }

    /// `decode` into an optional picks the generic `T?` (null is nil), not the `String` overload.
    struct Opt: Decodable, JSONDecodable {
        var a: String?; var b: Int?; var c: Int64; var d: Double; var e: Bool
        init(json: inout JSONObjectReader) throws {
            a = try json.decode("a"); b = try json.decodeIfPresent("b")
            c = try json.decode("c"); d = try json.decode("d"); e = try json.decode("e")
        }
    }

    @Test func optionalsAndTheTypedOverloads() throws {
        let o = try JSONValueDecoder().decode(Opt.self, from: Array(#"{"a":null,"c":9007199254740993,"d":1.0,"e":false}"#.utf8))
        #expect(o.a == nil && o.b == nil && o.c == 9_007_199_254_740_993 && o.d == 1.0 && o.e == false)
        let p = try JSONValueDecoder().decode(Opt.self, from: Array(#"{"e":true,"d":-2.5e3,"c":-1,"b":7,"a":"x"}"#.utf8))
        #expect(p.a == "x" && p.b == 7 && p.c == -1 && p.d == -2500 && p.e)
        #expect(throws: DecodingError.self) { try JSONValueDecoder().decode(Opt.self, from: Array(#"{"c":1,"d":1,"e":true}"#.utf8)) }
        #expect(throws: DecodingError.self) { try JSONValueDecoder().decode(Opt.self, from: Array(#"{"a":1,"c":1,"d":1,"e":true}"#.utf8)) }
    }

    @Test func errorsAreDecodingErrorsWithTheirPath() throws {
        let missing = #expect(throws: DecodingError.self) {
            try JSONValueDecoder().decode([Owner].self, from: Array(#"[{"name":"a","since":1},{"name":"b"}]"#.utf8))
        }
        guard case .keyNotFound(let key, let context)? = missing else { Issue.record("\(String(describing: missing))"); return }
        #expect(key.stringValue == "since")
        #expect(context.codingPath.map(\.stringValue) == ["Index 1"])
        #expect(throws: DecodingError.self) { try JSONValueDecoder().decode(Owner.self, from: Array(#"{"name":1,"since":1}"#.utf8)) }
        #expect(throws: DecodingError.self) { try JSONValueDecoder().decode(Owner.self, from: Array(#"{"name":"a","since":1.5}"#.utf8)) }
        #expect(throws: DecodingError.self) { try JSONValueDecoder().decode([Owner].self, from: Array(#"[null]"#.utf8)) }
        #expect(throws: DecodingError.self) { try JSONValueDecoder().decode(Owner.self, from: Array(#"{"name":"a","since":1"#.utf8)) }
    }
}

/// Many values, large ones (9,000 tokens) among small ones, from whole bytes and NDJSON:
/// the values, and the coding path and position of an error far into the input.
@Suite struct JSONManyElementsTests {
    struct Big: Codable, Equatable { var id: Int; var values: [Int] }

    @Test func valuesPathsAndErrorsFarIntoTheInput() throws {
        // Small values (many per batch), large ones (one batch each), and both mixed.
        let items = (0..<1_000).map { Big(id: $0, values: $0 % 97 == 0 ? Array(0..<9_000) : [$0]) }
        let bytes = Array(try JSONEncoder().encode(items))
        #expect(try JSONValueDecoder().decode([Big].self, from: bytes) == items)
        #expect(try JSONValueDecoder().elements(of: Big.self, in: bytes).collect() == items)
        let ndjson = Array(items.map { String(decoding: try! JSONEncoder().encode($0), as: UTF8.self) }.joined(separator: "\n").utf8)
        #expect(try JSONValueDecoder().elements(of: Big.self, in: ndjson, layout: .ndjson).collect() == items)

        // A type error in element 700: its path and position, after 700 good values.
        var text = "[" + (0..<1_000).map { $0 == 700 ? #"{"id":"x","values":[]}"# : #"{"id":\#($0),"values":[]}"# }.joined(separator: ",\n") + "]"
        let cursor = try JSONValueDecoder().elements(of: Big.self, in: Array(text.utf8))
        for i in 0..<700 { #expect(try cursor.next()?.id == i) }
        let error = try #require(throws: DecodingError.self) { try cursor.next() }
        guard case .typeMismatch(_, let context) = error else { Issue.record("\(error)"); return }
        #expect(context.codingPath.map(\.stringValue) == ["Index 700", "id"])
        #expect(context.debugDescription.contains("line 701, column 7"), "\(context.debugDescription)")

        // A syntax error after 300 values: the 300 first, then the error, then the same error.
        text = "[" + (0..<300).map { #"{"id":\#($0),"values":[]}"# }.joined(separator: ",") + ",{]"
        let broken = try JSONValueDecoder().elements(of: Big.self, in: Array(text.utf8))
        for i in 0..<300 { #expect(try broken.next()?.id == i) }
        #expect(throws: DecodingError.self) { try broken.next() }
        #expect(throws: DecodingError.self) { try broken.next() }
        #expect(throws: DecodingError.self) { try JSONValueDecoder().decode([Big].self, from: Array(text.utf8)) }
    }
}
