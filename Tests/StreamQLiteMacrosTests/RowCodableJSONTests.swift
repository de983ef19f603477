#if Macros
import Foundation
import StreamQLiteMacros
import Testing

// @RowCodable(json: true)'s JSONDecodable/JSONEncodable against the synthesized Codable of a
// twin type with the same properties (JSONValueDecoder/JSONValueEncoder use init(json:) and
// encode(json:) for the macro's type, init(from:) and encode(to:) for the twin): the same
// values, the same errors, the same bytes.

@RowCodable(encodable: false, json: true)  // nested values: no bind(to:)
struct JSONMacroTask: Codable, Equatable {
    var id: Int
    var title: String
    var done: Bool
    var small: Int8
    var score: Double?
    var note: String?
    var meta: MacroMeta                   // nested object
    var tags: [String]
    var level: MacroLevel
    var extra: [String: Int]?
}

struct JSONTwinTask: Codable, Equatable {
    var id: Int
    var title: String
    var done: Bool
    var small: Int8
    var score: Double?
    var note: String?
    var meta: MacroMeta
    var tags: [String]
    var level: MacroLevel
    var extra: [String: Int]?
}

@RowCodable(columns: .snakeCase, json: true)  // columns: applies to columns, not to JSON keys
struct JSONMacroKeyed: Codable, Equatable {
    var taskID: Int
    var firstName: String
    var cached = 0                        // not a coding key
    enum CodingKeys: String, CodingKey {
        case taskID = "task_id"
        case firstName
    }
}

struct JSONTwinKeyed: Codable, Equatable {
    var taskID: Int
    var firstName: String
    var cached = 0
    enum CodingKeys: String, CodingKey {
        case taskID = "task_id"
        case firstName
    }
}

@RowCodable(json: true)
struct JSONMacroCamel: Codable, Equatable {
    var firstName: String
    var lastURLPart: String?
}

struct JSONTwinCamel: Codable, Equatable {
    var firstName: String
    var lastURLPart: String?
}

/// `json` decoded as `M` (init(json:)) and as `T` (init(from:)): equal values (compared through
/// Foundation's encoder, which knows neither protocol), or the same error.
func bothJSONPaths<M: JSONDecodable & Encodable, T: Decodable & Encodable>(
    _ m: M.Type, _ t: T.Type, _ json: String, decoder: JSONValueDecoder = JSONValueDecoder(),
    sourceLocation: SourceLocation = #_sourceLocation
) -> Bool {
    let encoder = JSONEncoder()
    encoder.outputFormatting = .sortedKeys
    func decode<D: Decodable & Encodable>(_ d: D.Type) -> Result<String, any Error> {
        Result { String(decoding: try encoder.encode(try decoder.decode([D].self, from: json)), as: UTF8.self) }
    }
    let results = [decode(M.self), decode(T.self)]
    switch (results[0], results[1]) {
    case (.success(let a), .success(let b)):
        #expect(a == b, "\(json)", sourceLocation: sourceLocation)
        return true
    case (.failure(let a), .failure(let b)):
        #expect(describe(a, M.self) == describe(b, T.self), "\(json)", sourceLocation: sourceLocation)
        return false
    default:
        Issue.record("one path threw, the other did not: \(results[0]) / \(results[1]) for \(json)", sourceLocation: sourceLocation)
        return false
    }
}

/// The error's description with the type's name taken out (the twins differ only by name).
func describe(_ error: any Error, _ type: Any.Type) -> String {
    "\(error)".replacingOccurrences(of: "\(type)", with: "T")
}

let jsonTask = #"{"id":1,"title":"one","done":false,"small":7,"score":1.5,"note":null,"meta":{"owner":"ann","priority":2},"tags":["a","b"],"level":"low","extra":{"x":1}}"#

@Test func rowCodableJSONReadsWhatDecodableReads() throws {
    let valid = [
        "[\(jsonTask)]",
        // other member order, extra members, optionals missing, duplicates (the first wins)
        #"[{"tags":[],"level":"high","meta":{"priority":3,"owner":"bob"},"small":-128,"done":true,"title":"two","id":2,"zzz":[1,{"a":2}]}]"#,
        #"[{"id":5.0,"title":"t","done":true,"small":1e1,"score":2,"meta":{"owner":"c","priority":0},"tags":[],"level":"low","extra":null}]"#,
    ]
    for json in valid { #expect(bothJSONPaths(JSONMacroTask.self, JSONTwinTask.self, json), "\(json)") }
    // A key twice: both paths read the first member, as JSONDecoder does.
    #expect(bothJSONPaths(JSONMacroTask.self, JSONTwinTask.self,
                          #"[{"id":3,"id":4,"title":"t","done":true,"small":0,"meta":{"owner":"c","priority":0},"tags":["x"],"level":"low"}]"#))
    #expect(try JSONValueDecoder().decode([JSONMacroTask].self,
                                          from: #"[{"id":3,"id":4,"title":"t","done":true,"small":0,"meta":{"owner":"c","priority":0},"tags":["x"],"level":"low"}]"#)[0].id == 3)
}

@Test func rowCodableJSONFailsWhereDecodableFails() {
    let invalid = [
        #"[{"id":null,"title":"t","done":true,"small":1,"meta":{"owner":"c","priority":0},"tags":[],"level":"low"}]"#,  // null
        #"[{"id":1,"title":5,"done":true,"small":1,"meta":{"owner":"c","priority":0},"tags":[],"level":"low"}]"#,      // type
        #"[{"id":1.5,"title":"t","done":true,"small":1,"meta":{"owner":"c","priority":0},"tags":[],"level":"low"}]"#,
        #"[{"id":1,"title":"t","done":"yes","small":1,"meta":{"owner":"c","priority":0},"tags":[],"level":"low"}]"#,
        #"[{"id":1,"title":"t","done":true,"small":300,"meta":{"owner":"c","priority":0},"tags":[],"level":"low"}]"#,  // Int8 overflow
        #"[{"id":1,"title":"t","done":true,"small":1,"meta":{"owner":1,"priority":0},"tags":[],"level":"low"}]"#,     // nested
        #"[{"id":1,"title":"t","done":true,"small":1,"meta":{"owner":"c","priority":0},"tags":[1],"level":"low"}]"#,
        #"[{"id":1,"title":"t","done":true,"small":1,"meta":{"owner":"c","priority":0},"tags":[],"level":"mid"}]"#,   // raw value
        #"[{"id":1,"title":"t","done":true,"small":1,"meta":{"owner":"c","priority":0},"tags":[],"level":"low","score":"x"}]"#,
        #"[{"id":1,"title":"t","done":true,"small":1,"meta":{"owner":"c","priority":0},"tags":[],"level":"low","note":3}]"#,
        #"[{"id":1,"title":"t","done":true,"small":1,"meta":{"owner":"c","priority":0},"tags":[],"level":"low","extra":[1]}]"#,
        #"[[1,2]]"#, #"[5]"#,
    ]
    for json in invalid { #expect(!bothJSONPaths(JSONMacroTask.self, JSONTwinTask.self, json), "\(json)") }
    // The same error case, key and coding path, but other texts (JSON/, reported to its owner).
    withKnownIssue("keyNotFound: JSONObjectReader's debugDescription names the key as \"id\", the keyed container as CodingKeys(stringValue: \"id\", …)") {
        #expect(!bothJSONPaths(JSONMacroTask.self, JSONTwinTask.self,
                               #"[{"title":"t","done":true,"small":1,"meta":{"owner":"c","priority":0},"tags":[],"level":"low"}]"#))
    }
    withKnownIssue("null for the struct: valueNotFound(T) from init(json:), valueNotFound(Dictionary<String, Any>) from init(from:)") {
        #expect(!bothJSONPaths(JSONMacroTask.self, JSONTwinTask.self, #"[null]"#))
    }
}

@Test func rowCodableJSONKeysAreCodingKeys() {
    #expect(bothJSONPaths(JSONMacroKeyed.self, JSONTwinKeyed.self, #"[{"task_id":1,"firstName":"Ann","cached":5}]"#))
    var snake = JSONValueDecoder()
    snake.keyDecodingStrategy = .convertFromSnakeCase
    // The JSON's keys converted: "first_name" is firstName, "last_url_part" lastUrlPart (not lastURLPart).
    #expect(bothJSONPaths(JSONMacroCamel.self, JSONTwinCamel.self, #"[{"first_name":"A","last_url_part":"x"}]"#, decoder: snake))
    #expect(bothJSONPaths(JSONMacroCamel.self, JSONTwinCamel.self, #"[{"first_name":"A","lastURLPart":"x"}]"#, decoder: snake))
    #expect(bothJSONPaths(JSONMacroCamel.self, JSONTwinCamel.self, #"[{"firstName":"A","last_url_part":"x"}]"#))
    #expect(JSONMacroKeyed.databaseColumns == ["task_id", "first_name"])
    withKnownIssue("keyNotFound: the same error, other debugDescription texts (see above)") {
        #expect(!bothJSONPaths(JSONMacroKeyed.self, JSONTwinKeyed.self, #"[{"taskID":1,"firstName":"Ann"}]"#))
        #expect(!bothJSONPaths(JSONMacroKeyed.self, JSONTwinKeyed.self, #"[{"task_id":1,"first_name":"Ann"}]"#, decoder: snake))
    }
}

@Test func rowCodableJSONWritesWhatEncodableWrites() throws {
    let values = [
        JSONTwinTask(id: 1, title: "a \"quoted\" / é", done: true, small: -3, score: 0.1, note: nil,
                     meta: MacroMeta(owner: "ann", priority: 2), tags: ["x", "y"], level: .high, extra: ["b": 2, "a": 1]),
        JSONTwinTask(id: -9, title: "", done: false, small: 127, score: nil, note: "n",
                     meta: MacroMeta(owner: "", priority: 0), tags: [], level: .low, extra: nil),
    ]
    let macroValues = values.map {
        JSONMacroTask(id: $0.id, title: $0.title, done: $0.done, small: $0.small, score: $0.score, note: $0.note,
                      meta: $0.meta, tags: $0.tags, level: $0.level, extra: $0.extra)
    }
    let formats: [JSONValueEncoder.OutputFormatting] = [[], .sortedKeys, .prettyPrinted, [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]]
    for format in formats {
        for snake in [false, true] {
            var encoder = JSONValueEncoder()
            encoder.outputFormatting = format
            if snake { encoder.keyEncodingStrategy = .convertToSnakeCase }
            #expect(try encoder.encode(macroValues) == encoder.encode(values), "\(format) \(snake)")
            #expect(try encoder.encode(macroValues[0]) == encoder.encode(values[0]))
        }
    }
    var encoder = JSONValueEncoder()
    encoder.outputFormatting = .sortedKeys
    #expect(try encoder.encode(JSONMacroKeyed(taskID: 1, firstName: "A", cached: 3))
            == encoder.encode(JSONTwinKeyed(taskID: 1, firstName: "A", cached: 3)))
    // Round trip through both protocols.
    #expect(try JSONValueDecoder().decode([JSONMacroTask].self, from: JSONValueEncoder().encode(macroValues)) == macroValues)
}
#endif
