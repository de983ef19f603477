import Foundation
import Testing
import StreamQLite

// Nested Codable values in JSON columns: what insert(contentsOf:) writes, rows(T.self, …)
// reads back equal; a nested value is read from its column's JSON, never from the outer
// row's columns. Oracles: Python's json module reading the stored text, Foundation's
// JSONDecoder/JSONEncoder.

enum NestedShape: Codable, Equatable, Hashable {
    case circle(radius: Double)
    case polygon([NestedPoint], closed: Bool)
    case empty
}

struct NestedPoint: Codable, Equatable, Hashable { var x: Int; var y: Int }

struct NestedMeta: Codable, Equatable {
    var owner: String
    var priority: Int
    var seen: Date?
    var ratio: Double?
}

enum NestedLevel: String, Codable { case low, high }

struct NestedRecord: Codable, Equatable {
    var id: Int
    var tags: [String]
    var empty: [String]
    var scores: [String: Double]
    var byID: [Int: String]
    var set: Set<Int>
    var meta: NestedMeta
    var maybe: NestedMeta?
    var missing: NestedMeta?
    var shape: NestedShape
    var shapes: [NestedShape]
    var matrix: [[Int?]]
    var level: NestedLevel
    var optionalTags: [String]?
    var price: Decimal
    var link: URL
}

let nestedSchema = """
    CREATE TABLE records(id INTEGER PRIMARY KEY, tags JSON, empty JSON, scores JSON, byID JSON, "set" JSON, meta JSON,
                         maybe JSON, missing JSON, shape JSON, shapes JSON, matrix JSON, level TEXT, optionalTags JSON,
                         price TEXT, link TEXT)
    """

func nestedRecord(_ i: Int) -> NestedRecord {
    NestedRecord(
        id: i, tags: ["t\(i)", "a/b", "quote \" é ☃"], empty: [], scores: ["x": 0.1, "y": -2.5e-7, "z": 1e300],
        byID: [1: "one", -7: "minus seven", 100 + i: "self"], set: [3, 1, 2, i],
        meta: NestedMeta(owner: "o\(i)", priority: i % 5, seen: Date(timeIntervalSince1970: 1_714_564_800.25 + Double(i)), ratio: nil),
        maybe: i % 2 == 0 ? nil : NestedMeta(owner: "m", priority: -1, seen: nil, ratio: 0.5), missing: nil,
        shape: [.circle(radius: 2.5), .polygon([NestedPoint(x: 1, y: 2), NestedPoint(x: -3, y: 4)], closed: true), .empty][i % 3],
        shapes: [.empty, .circle(radius: Double(i))], matrix: [[1, nil], [], [Int?.none]], level: i % 2 == 0 ? .low : .high,
        optionalTags: i % 3 == 0 ? nil : ["x"], price: Decimal(string: "12345678901234567890.123456789")! + Decimal(i),
        link: URL(string: "https://example.com/path?q=\(i)&r=a%20b#frag")!)
}

@Suite struct NestedJSONColumnTests {
    @Test func aNestedStructIsReadFromItsColumnNotFromTheOuterRowsColumns() throws {
        // Before: `inner` was decoded from the outer row's `id` and `name` columns.
        struct Inner: Codable, Equatable { var id: Int; var name: String }
        struct Outer: Codable, Equatable { var id: Int; var name: String; var inner: Inner }
        let db = try Database()
        try db.execute("CREATE TABLE t(id INTEGER, name TEXT, inner JSON)")
        try db.execute(#"INSERT INTO t VALUES (1, 'outer', '{"id": 99, "name": "inner"}')"#)
        let rows = try db.rows(Outer.self, "SELECT * FROM t").collect()
        #expect(rows == [Outer(id: 1, name: "outer", inner: Inner(id: 99, name: "inner"))])
    }

    @Test func everyNestedShapeRoundTripsThroughInsertAndRows() throws {
        let db = try Database()
        try db.execute(nestedSchema)
        let records = (0..<7).map(nestedRecord)
        try db.insert(contentsOf: records, into: "records")
        let back = try db.rows(NestedRecord.self, "SELECT * FROM records ORDER BY id").collect()
        #expect(back.count == records.count)
        for (a, b) in zip(back, records) { #expect(a == b) }
        // A nil optional is NULL, not the JSON text null.
        #expect(try db.value(Int.self, "SELECT count(*) FROM records WHERE missing IS NULL") == 7)
        #expect(try db.value(Int.self, "SELECT count(*) FROM records WHERE maybe IS NULL") == 4)
        #expect(try db.value(String.self, "SELECT typeof(empty) || ':' || empty FROM records LIMIT 1") == "text:[]")
        // Dates inside nested values: the library's date text, milliseconds floored, as a Date column.
        #expect(try db.value(String.self, "SELECT json_extract(meta, '$.seen') FROM records WHERE id = 1") == "2024-05-01 12:00:01.250")
        struct Stamp: Codable, Equatable { var at: Date }
        struct Row: Codable, Equatable { var id: Int; var meta: Stamp }
        try db.execute("CREATE TABLE stamps(id INTEGER, meta JSON)")
        try db.insert(contentsOf: [Row(id: 1, meta: Stamp(at: Date(timeIntervalSince1970: -0.0005)))], into: "stamps")
        #expect(try db.value(String.self, "SELECT meta FROM stamps") == #"{"at":"1969-12-31 23:59:59.999"}"#)
        #expect(try db.rows(Row.self, "SELECT * FROM stamps").collect() == [Row(id: 1, meta: Stamp(at: Date(timeIntervalSince1970: -0.001)))])
    }

    @Test func theStoredJSONIsWhatPythonsJsonAndFoundationSee() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("nested-\(UUID().uuidString).db").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let records = (0..<4).map(nestedRecord)
        do {
            let db = try Database(path: path)
            try db.execute(nestedSchema)
            try db.insert(contentsOf: records, into: "records")
        }
        // Foundation's encoding of the same nested values, dates as the library's date text.
        let foundation = JSONEncoder()
        foundation.dateEncodingStrategy = .custom { date, encoder in
            // The expected text, computed independently: UTC, milliseconds floored.
            let ms = Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
            let f = DateFormatter()
            f.locale = Locale(identifier: "en_US_POSIX")
            f.timeZone = TimeZone(identifier: "UTC")
            f.dateFormat = "yyyy-MM-dd HH:mm:ss.SSS"
            var c = encoder.singleValueContainer()
            try c.encode(f.string(from: Date(timeIntervalSince1970: Double(ms) / 1000)))
        }
        var expected: [[String: String]] = []
        for r in records {
            func json<T: Encodable>(_ v: T) throws -> String { String(decoding: try foundation.encode(v), as: UTF8.self) }
            expected.append(["tags": try json(r.tags), "scores": try json(r.scores), "byID": try json(r.byID),
                             "set": try json(r.set.sorted()), "meta": try json(r.meta), "shape": try json(r.shape),
                             "shapes": try json(r.shapes), "matrix": try json(r.matrix)])
        }
        let expectedPath = path + ".expected.json"
        defer { try? FileManager.default.removeItem(atPath: expectedPath) }
        try JSONEncoder().encode(expected).write(to: URL(fileURLWithPath: expectedPath))
        let script = """
            import json, sqlite3, sys
            db = sqlite3.connect(sys.argv[1])
            expected = json.load(open(sys.argv[2]))
            cols = ["tags", "scores", "byID", "set", "meta", "shape", "shapes", "matrix"]
            problems = []
            for row, exp in zip(db.execute("SELECT " + ", ".join('"%s"' % c for c in cols) + " FROM records ORDER BY id"), expected):
                for c, text in zip(cols, row):
                    got = json.loads(text)
                    want = json.loads(exp[c])
                    if c == "set": got = sorted(got)
                    if got != want: problems.append("%s: %r != %r" % (c, got, want))
                    if json.dumps(got, sort_keys=True, separators=(",", ":"), ensure_ascii=False) != text and c != "set":
                        problems.append("%s not canonical: %s" % (c, text))
            print("ok" if not problems else "\\n".join(problems))
            """
        let result = try runPython(script, args: [path, expectedPath])
        #expect(result.trimmingCharacters(in: .whitespacesAndNewlines) == "ok")
    }

    @Test func decimalAndURLAreTextBothWays() throws {
        struct Money: Codable, Equatable { var id: Int; var amount: Decimal; var link: URL; var other: Decimal? }
        let db = try Database()
        try db.execute("CREATE TABLE m(id INTEGER, amount TEXT, link TEXT, other TEXT)")
        let values = [Money(id: 1, amount: Decimal(string: "0.1")!, link: URL(string: "https://a.example/x?y=1")!, other: nil),
                      Money(id: 2, amount: Decimal(string: "-123456789012345678901234567890.5")!, link: URL(string: "file:///tmp/a%20b")!,
                            other: Decimal(string: "1e-20")!)]
        try db.insert(contentsOf: values, into: "m")
        #expect(try db.rows(Money.self, "SELECT * FROM m ORDER BY id").collect() == values)
        #expect(try db.value(String.self, "SELECT typeof(amount) || ' ' || amount FROM m WHERE id = 1") == "text 0.1")
        // Bound directly, read directly.
        try db.execute("INSERT INTO m VALUES (?, ?, ?, ?)", 3, Decimal(string: "2.50")!, URL(string: "https://b.example")!, Decimal(7))
        #expect(try db.value(Decimal.self, "SELECT amount FROM m WHERE id = 3") == Decimal(string: "2.5"))
        #expect(try db.value(URL.self, "SELECT link FROM m WHERE id = 3") == URL(string: "https://b.example"))
        #expect(try db.value(Decimal.self, "SELECT 42") == 42)
        #expect(try db.value(Decimal.self, "SELECT 0.25") == Decimal(string: "0.25"))
        let bad = try #require(throws: DatabaseError.self) { try db.value(Decimal.self, "SELECT '12abc'") }
        #expect(bad.message.contains("12abc"))
        #expect(throws: DatabaseError.self) { try db.value(URL.self, "SELECT 5") }
    }

    @Test func aNestedValueWhoseColumnIsNotJSONIsAnErrorNamingTheColumnAndSQL() throws {
        struct Inner: Codable { var a: Int }
        struct Outer: Codable { var id: Int; var inner: Inner }
        let db = try Database()
        try db.execute("CREATE TABLE t(id INTEGER, inner)")
        try db.execute("INSERT INTO t VALUES (1, 5)")
        let sql = "SELECT id, inner FROM t"
        let e1 = try #require(throws: DatabaseError.self) { try db.rows(Outer.self, sql).collect() }
        #expect(e1.column == "inner" && e1.sql == sql)
        #expect(e1.message.contains("JSON") && e1.message.contains("INTEGER 5"), "\(e1)")

        try db.execute("UPDATE t SET inner = 'not json'")
        let e2 = try #require(throws: DatabaseError.self) { try db.rows(Outer.self, sql).collect() }
        #expect(e2.column == "inner" && e2.sql == sql)
        #expect(e2.message.contains("not JSON") && e2.message.contains("not json"), "\(e2)")

        try db.execute(#"UPDATE t SET inner = '{"a": "x"}'"#)
        let e3 = try #require(throws: DatabaseError.self) { try db.rows(Outer.self, sql).collect() }
        #expect(e3.column == "inner" && e3.sql == sql)
        #expect(e3.message.contains("at a") && e3.message.contains("byte offset 6"), "\(e3)")

        try db.execute(#"UPDATE t SET inner = '[1]'"#)
        let e4 = try #require(throws: DatabaseError.self) { try db.rows(Outer.self, sql).collect() }
        #expect(e4.column == "inner", "\(e4)")
    }

    @Test func genericAndWrappedNestedValues() throws {
        struct Box<T: Codable & Equatable>: Codable, Equatable { var id: Int; var value: T }
        struct Wrapper: Codable, Equatable {
            var points: [NestedPoint]
            init(points: [NestedPoint]) { self.points = points }
            init(from decoder: any Decoder) throws { points = try decoder.singleValueContainer().decode([NestedPoint].self) }
            func encode(to encoder: any Encoder) throws { var c = encoder.singleValueContainer(); try c.encode(points) }
        }
        let db = try Database()
        try db.execute("CREATE TABLE b(id INTEGER, value JSON)")
        try db.insert(contentsOf: [Box<NestedPoint?>(id: 1, value: NestedPoint(x: 1, y: 2)), Box(id: 2, value: nil)], into: "b")
        #expect(try db.rows(Box<NestedPoint?>.self, "SELECT * FROM b ORDER BY id").collect()
                == [Box<NestedPoint?>(id: 1, value: NestedPoint(x: 1, y: 2)), Box<NestedPoint?>(id: 2, value: nil)])
        try db.execute("DELETE FROM b")
        let w = Box(id: 3, value: Wrapper(points: [NestedPoint(x: 5, y: 6)]))
        try db.insert(contentsOf: [w], into: "b")
        #expect(try db.value(String.self, "SELECT value FROM b") == #"[{"x":5,"y":6}]"#)
        #expect(try db.rows(Box<Wrapper>.self, "SELECT * FROM b").collect() == [w])
        // JSON null text reads as nil for an optional.
        try db.execute("UPDATE b SET value = ' null '")
        #expect(try db.rows(Box<NestedPoint?>.self, "SELECT * FROM b").collect() == [Box<NestedPoint?>(id: 3, value: nil)])
    }

    @Test func handWrittenNestedContainersReadTheColumnsJSON() throws {
        struct P: Decodable, Equatable {
            var id: Int, x: Int, first: String
            enum K: String, CodingKey { case id, point, list }
            enum PK: String, CodingKey { case x }
            init(id: Int, x: Int, first: String) { self.id = id; self.x = x; self.first = first }
            init(from decoder: any Decoder) throws {
                let c = try decoder.container(keyedBy: K.self)
                id = try c.decode(Int.self, forKey: .id)
                x = try c.nestedContainer(keyedBy: PK.self, forKey: .point).decode(Int.self, forKey: .x)
                var u = try c.nestedUnkeyedContainer(forKey: .list)
                first = try u.decode(String.self)
            }
        }
        let db = try Database()
        let rows = try db.rows(P.self, #"SELECT 1 AS id, '{"x": 7}' AS point, '["a", "b"]' AS list"#).collect()
        #expect(rows == [P(id: 1, x: 7, first: "a")])
    }

    @Test func nestedValuesMatchFoundationsDecodingOfTheSameColumnText() throws {
        // Whatever JSON text a column holds, the nested value equals JSONDecoder's reading of it.
        struct Row: Decodable { var v: [String: [NestedPoint?]] }
        let db = try Database()
        let texts = [#"{"a":[{"x":1,"y":2},null],"b":[]}"#, #"{"z":[{"y":-1,"x":1e2,"extra":[1,{}]}]}"#, #"{}"#, #"{"\u00e9\n":[null]}"#]
        for text in texts {
            let ours = try db.rows(Row.self, "SELECT ? AS v", text).collect()[0].v
            let theirs = try JSONDecoder().decode([String: [NestedPoint?]].self, from: Data(text.utf8))
            #expect(ours == theirs, "\(text)")
        }
    }

    @Test func userInfoReachesNestedValues() throws {
        struct Scaled: Decodable, Equatable {
            var v: Double
            init(v: Double) { self.v = v }
            init(from decoder: any Decoder) throws {
                let factor = decoder.userInfo[CodingUserInfoKey(rawValue: "factor")!] as? Double ?? 1
                v = try decoder.container(keyedBy: AnyJSON.Key.self).decode(Double.self, forKey: .init(stringValue: "v")) * factor
            }
        }
        struct Row: Decodable, Equatable { var s: Scaled }
        let db = try Database()
        let statement = try db.makeStatement(#"SELECT '{"v": 2}' AS s"#)
        let rows = try statement.rows(Row.self, userInfo: [CodingUserInfoKey(rawValue: "factor")!: 10.0]).collect()
        #expect(rows == [Row(s: Scaled(v: 20))])
    }
}
