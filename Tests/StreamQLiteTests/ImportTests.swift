import Foundation
import Testing
@testable import StreamQLite

private func chunks(_ parts: [[UInt8]]) -> AsyncStream<[UInt8]> {
    AsyncStream { continuation in
        for p in parts { continuation.yield(p) }
        continuation.finish()
    }
}

@Suite struct ImportTests {
    let db: Database

    init() throws {
        db = try Database(path: ":memory:")
        try jsonTestExec(db, """
            CREATE TABLE tasks(id INTEGER PRIMARY KEY, title TEXT NOT NULL, score REAL, done INTEGER,
                               added DATETIME, tags JSON, note TEXT, created TEXT DEFAULT 'default')
            """)
    }

    @Test func renamesAndCoercionFollowTheDeclaredColumnTypes() throws {
        let json = #"""
        [{"id_str": "17", "id": 999, "title": "Write docs", "score": "2.5", "done": true,
          "date_added": "2024-05-01T14:00:00+02:00", "tags": ["docs", {"k": "v\"q"}], "unknown": 1, "note": 12.50},
         {"id_str": "18", "title": "B", "score": 3, "done": false, "date_added": "2024-05-02", "tags": null}]
        """#
        let n = try db.importJSON(bytes: Array(json.utf8), into: "tasks",
                                  options: .init(renames: ["id_str": "id", "date_added": "added"]))
        #expect(n == 2)
        let rows = try jsonTestQuery(db, "SELECT id, title, score, done, added, tags, note, created FROM tasks ORDER BY id")
        #expect(rows[0] == [.int(17), .text("Write docs"), .real(2.5), .int(1), .text("2024-05-01 12:00:00.000"),
                            .text(#"["docs",{"k":"v\"q"}]"#), .text("12.50"), .text("default")])
        // a bare date in a DATETIME column is its midnight, in full (equal to that instant's text)
        #expect(rows[1] == [.int(18), .text("B"), .real(3), .int(0), .text("2024-05-02 00:00:00.000"), .null, .null, .text("default")])
    }

    @Test func ndjsonRowsAreReadLineByLine() throws {
        let json = "{\"id\":1,\"title\":\"a\"}\n\n{\"id\":2,\"title\":\"b\"}\n"
        #expect(try db.importJSON(bytes: Array(json.utf8), into: "tasks", options: .init(layout: .ndjson)) == 2)
        #expect(try jsonTestCount(db, "tasks") == 2)
    }

    @Test func theArrayAtAPathIsFoundAndTheRestSkipped() throws {
        let json = #"{"meta": {"tasks": [{"id": 5}]}, "data": {"count": 2, "tasks": [{"id": 1, "title": "x"}, {"id": 2, "title": "y"}]}, "more": [1]}"#
        #expect(try db.importJSON(bytes: Array(json.utf8), into: "tasks", options: .init(layout: .arrayAt(["data", "tasks"]))) == 2)
        #expect(try jsonTestQuery(db, "SELECT id FROM tasks ORDER BY id") == [[.int(1)], [.int(2)]])
        let error = try #require(throws: Database.JSONImportError.self) {
            try db.importJSON(bytes: Array(json.utf8), into: "tasks", options: .init(layout: .arrayAt(["data", "nope"])))
        }
        #expect(error.message.contains("data.nope"))
    }

    /// A CSV file none of whose header names is a column of the table (the wrong table): an
    /// error naming the table's columns, not rows of nothing but defaults (an INSERT of no
    /// column failed with a syntax error showing the statement). (In JSON a missing key is
    /// NULL: every column is inserted.)
    @Test func aRecordNamingNoColumnIsAnError() throws {
        let before = try jsonTestCount(db, "tasks")
        let csv = try #require(throws: CSVImportError.self) {
            try db.importCSV(bytes: Array("x,y\n1,2\n".utf8), into: "tasks")
        }
        #expect(csv.message.hasPrefix("no field of the record names a column of table tasks (its columns: "), "\(csv)")
        #expect(csv.line == 2)
        #expect(try jsonTestCount(db, "tasks") == before)
    }

    @Test func aTopLevelObjectIsNotAnArray() throws {
        let error = try #require(throws: Database.JSONImportError.self) {
            try db.importJSON(bytes: Array(#"{"id": 1}"#.utf8), into: "tasks")
        }
        #expect(error.message.contains("array of objects"))
        #expect(error.byteOffset == 0 && error.line == 1)
    }

    @Test func anElementThatIsNotAnObjectIsAnErrorWithItsIndex() throws {
        let error = try #require(throws: Database.JSONImportError.self) {
            try db.importJSON(bytes: Array("[{\"id\":1,\"title\":\"a\"},\n 7]".utf8), into: "tasks")
        }
        #expect(error.element == 1 && error.line == 2 && error.column == 2 && error.byteOffset == 24)
        #expect(try jsonTestCount(db, "tasks") == 0)
    }

    @Test func strictModeRejectsUnknownKeysWithOffsetLineAndElement() throws {
        let json = "[\n{\"id\": 1, \"title\": \"a\"},\n{\"id\": 2, \"title\": \"b\", \"colour\": \"red\"}\n]"
        let error = try #require(throws: Database.JSONImportError.self) {
            try db.importJSON(bytes: Array(json.utf8), into: "tasks", options: .init(strict: true))
        }
        #expect(error.element == 1)
        #expect(error.key == "colour")
        #expect(error.line == 3)
        #expect(error.byteOffset == Array(json.utf8).firstIndex(of: UInt8(ascii: "c"))! - 1)  // the opening quote of "colour"
        #expect(error.description.contains("line 3"))
        #expect(try jsonTestCount(db, "tasks") == 0)
        // Not strict: the key is ignored.
        #expect(try db.importJSON(bytes: Array(json.utf8), into: "tasks") == 2)
    }

    @Test(arguments: [
        (#"{"id": "x1", "title": "t"}"#, "not an integer"),
        (#"{"id": 1.5, "title": "t"}"#, "not an integer"),
        (#"{"id": 123456789012345678901234, "title": "t"}"#, "64-bit"),
        (#"{"id": 1, "title": "t", "score": "high"}"#, "not a number"),
        (#"{"id": 1, "title": "t", "added": "2024-13-01"}"#, "not a date"),
        (#"{"id": 1, "title": "t", "score": [1]}"#, "nested"),
        (#"{"id": 1, "title": "t", "title": "u"}"#, "appears twice"),
    ])
    func strictModeRejectsLossyCoercions(element: String, expected: String) throws {
        let json = "[{\"id\": 100, \"title\": \"ok\"}, " + element + "]"
        let error = try #require(throws: Database.JSONImportError.self) {
            try db.importJSON(bytes: Array(json.utf8), into: "tasks", options: .init(strict: true))
        }
        #expect(error.message.contains(expected), "\(error)")
        #expect(error.element == 1)
        #expect(try jsonTestCount(db, "tasks") == 0)
    }

    @Test func withoutStrictModeValuesThatDoNotFitAreStoredAsTheyAre() throws {
        let json = #"[{"id": 1, "title": "t", "score": "high", "done": 1.5, "added": "soon"}, {"id": 2.0, "title": 7, "done": 123456789012345678901234}]"#
        try db.importJSON(bytes: Array(json.utf8), into: "tasks")
        #expect(try jsonTestQuery(db, "SELECT id, title, score, done, added FROM tasks ORDER BY id")
                == [[.int(1), .text("t"), .text("high"), .real(1.5), .text("soon")],
                    // bound as its literal text; SQLite's INTEGER affinity then makes it REAL
                    [.int(2), .text("7"), .null, .real(1.2345678901234569e+23), .null]])
    }

    @Test func aSyntaxErrorLateInTheInputRollsBackAllRows() throws {
        var json = "[" + (0..<300).map { "{\"id\": \($0), \"title\": \"t\($0)\"}" }.joined(separator: ",\n")
        json += ",\n{\"id\": 300, \"title\": tru}]"
        let error = try #require(throws: Database.JSONImportError.self) {
            try db.importJSON(bytes: Array(json.utf8), into: "tasks")
        }
        #expect(error.line == 301)
        #expect(error.element == 300)
        #expect(error.message.hasPrefix("invalid JSON"))
        #expect(try jsonTestCount(db, "tasks") == 0)
    }

    @Test func aConstraintViolationNamesTheElementItsPositionAndTheColumn() throws {
        var items = (0..<120).map { "{\"id\": \($0), \"title\": \"t\"}" }
        items[77] = "{\"id\": 5, \"title\": \"dup\"}"
        let json = "[" + items.joined(separator: "\n,") + "]"
        let error = try #require(throws: Database.JSONImportError.self) {
            try db.importJSON(bytes: Array(json.utf8), into: "tasks")
        }
        #expect(error.element == 77)
        #expect(error.key == "id")
        #expect(error.line == 78)
        #expect(error.message.contains("UNIQUE constraint failed"))
        #expect(try jsonTestCount(db, "tasks") == 0)
    }

    @Test func columnsWithADefaultKeepItWhenTheFirstElementLacksTheKey() throws {
        try db.importJSON(bytes: Array(#"[{"id": 1, "title": "a"}]"#.utf8), into: "tasks")
        let error = try #require(throws: Database.JSONImportError.self) {
            try db.importJSON(bytes: Array(#"[{"id": 2, "title": "a"}, {"id": 3, "title": "b", "created": "x"}]"#.utf8), into: "tasks")
        }
        #expect(error.element == 1 && error.key == "created")
        try db.importJSON(bytes: Array(#"[{"id": 4, "title": "b", "created": "given"}]"#.utf8), into: "tasks")
        #expect(try jsonTestQuery(db, "SELECT created FROM tasks ORDER BY id") == [[.text("default")], [.text("given")]])
    }

    @Test func datesAreValidatedAndNormalizedToTheOneDateTextInUTC() throws {
        let cases: [(String, String)] = [
            ("2024-05-01", "2024-05-01 00:00:00.000"),
            ("2024-05-01T12:00:00Z", "2024-05-01 12:00:00.000"),
            ("2024-05-01 12:00", "2024-05-01 12:00:00.000"),
            ("2024-05-01T00:30:00.123456+01:00", "2024-04-30 23:30:00.123"),
            ("2024-02-29T23:59:59.5-01:30", "2024-03-01 01:29:59.500"),
            ("1969-12-31T23:00:00-02:00", "1970-01-01 01:00:00.000"),
            ("2024-05-01 12:00:00.250", "2024-05-01 12:00:00.250"),
        ]
        try jsonTestExec(db, "CREATE TABLE d(n INTEGER PRIMARY KEY, at DATETIME)")
        let json = "[" + cases.enumerated().map { "{\"n\": \($0.offset), \"at\": \"\($0.element.0)\"}" }.joined(separator: ",") + "]"
        try db.importJSON(bytes: Array(json.utf8), into: "d", options: .init(strict: true))
        #expect(try jsonTestQuery(db, "SELECT at FROM d ORDER BY n") == cases.map { [.text($0.1)] })
        for bad in ["2023-02-29", "2024-05-01T25:00", "2024-5-01", "2024-05-01T12:00:00+", "yesterday", "2024-05-01T12:00:00.Z", ""] {
            let error = #expect(throws: Database.JSONImportError.self) {
                try db.importJSON(bytes: Array("[{\"n\": 100, \"at\": \"\(bad)\"}]".utf8), into: "d", options: .init(strict: true))
            }
            #expect(error?.message.contains("not a date") == true, "\(bad)")
            // Lenient: kept as it was written.
            try db.importJSON(bytes: Array("[{\"n\": 100, \"at\": \"\(bad)\"}]".utf8), into: "d")
            #expect(try jsonTestQuery(db, "SELECT at FROM d WHERE n = 100") == [[.text(bad)]])
            try jsonTestExec(db, "DELETE FROM d WHERE n = 100")
        }
    }

    @Test func keysMatchColumnsExactlyElseIgnoringASCIICase() throws {
        // "ID" fills id and "TITLE" title, as SQLite matches column names (json_stream does the same).
        try db.importJSON(bytes: Array(#"[{"ID": 1, "TITLE": "a"}, {"Id": 2, "title": "b"}]"#.utf8), into: "tasks")
        #expect(try jsonTestQuery(db, "SELECT id, title FROM tasks ORDER BY id") == [[.int(1), .text("a")], [.int(2), .text("b")]])
        // ASCII only: "NOTÉ" is not "noté".
        try jsonTestExec(db, "CREATE TABLE accents(\"noté\" TEXT)")
        let error = #expect(throws: Database.JSONImportError.self) {
            try db.importJSON(bytes: Array(#"[{"NOTÉ": 1}]"#.utf8), into: "accents", options: .init(strict: true))
        }
        #expect(error?.key == "NOTÉ")
        // Two renamed keys equal ignoring case: exact matches are fine, a third spelling is ambiguous.
        let options = JSONImportOptions(renames: ["Foo": "note", "FOO": "tags"])
        try db.importJSON(bytes: Array(#"[{"id": 10, "title": "t", "Foo": "n", "FOO": [1]}]"#.utf8), into: "tasks", options: options)
        #expect(try jsonTestQuery(db, "SELECT note, tags FROM tasks WHERE id = 10") == [[.text("n"), .text("[1]")]])
        let ambiguous = #expect(throws: Database.JSONImportError.self) {
            try db.importJSON(bytes: Array(#"[{"id": 11, "title": "t", "foo": 1}]"#.utf8), into: "tasks", options: options)
        }
        #expect(ambiguous?.key == "foo" && ambiguous?.element == 0)
        #expect(ambiguous.map { $0.message.contains("matches both") && $0.message.contains("'Foo'") && $0.message.contains("'FOO'") } == true,
                "\(String(describing: ambiguous))")
    }

    @Test func twoMembersOfOneObjectForOneColumnAreAnErrorInEveryMode() throws {
        // SQLite's ->> would take the first, JSONDecoder and JavaScript the last: no guess.
        for json in [#"[{"id": 1, "title": "a", "title": "b"}]"#, #"[{"id": 1, "title": "a", "TITLE": "b"}]"#] {
            let error = #expect(throws: Database.JSONImportError.self) { try db.importJSON(bytes: Array(json.utf8), into: "tasks") }
            #expect(error?.element == 0 && error?.message.contains("column 'title'") == true, "\(String(describing: error))")
        }
        // A repeated key that feeds no column is ignored like any unknown key.
        try db.importJSON(bytes: Array(#"[{"id": 1, "title": "a", "x": 1, "x": 2}]"#.utf8), into: "tasks")
        #expect(try jsonTestCount(db, "tasks") == 1)
    }

    @Test func anEmptyArrayImportsNothing() throws {
        #expect(try db.importJSON(bytes: Array("  []  ".utf8), into: "tasks") == 0)
        #expect(try db.importJSON(bytes: [], into: "tasks", options: .init(layout: .ndjson)) == 0)
    }

    @Test func chunksSplitAtEveryByteBoundaryGiveTheSameRowsAndErrors() async throws {
        let doc = Array(#"[{"id": 1, "title": "h\u00e9 \"q\"", "tags": {"a": [1, 2.5e3, null]}, "score": -0.5},"#.utf8)
            + Array("\n {\"id_s\": \"2\", \"title\": \"\u{1F600}\", \"done\": false, \"added\": \"2024-01-02T03:04:05Z\"}]".utf8)
        let options = JSONImportOptions(renames: ["id_s": "id"])
        try db.importJSON(bytes: doc, into: "tasks", options: options)
        let reference = try jsonTestQuery(db, "SELECT * FROM tasks ORDER BY id")
        #expect(reference.count == 2)
        for cut in 1..<doc.count {
            try jsonTestExec(db, "DELETE FROM tasks")
            let n = try await db.importJSON(from: chunks([Array(doc[..<cut]), Array(doc[cut...])]), into: "tasks", options: options)
            #expect(n == 2)
            #expect(try jsonTestQuery(db, "SELECT * FROM tasks ORDER BY id") == reference, "cut at \(cut)")
        }
        try jsonTestExec(db, "DELETE FROM tasks")
        #expect(try await db.importJSON(from: chunks(doc.map { [$0] }), into: "tasks", options: options) == 2)
        #expect(try jsonTestQuery(db, "SELECT * FROM tasks ORDER BY id") == reference)
        // A broken document reports the same position wherever it is cut.
        var broken = doc
        broken[broken.count - 3] = UInt8(ascii: ",")  // "...Z",}]
        var positions = Set<[Int]>()
        for cut in stride(from: 1, to: broken.count, by: 7) {
            try jsonTestExec(db, "DELETE FROM tasks")
            do {
                try await db.importJSON(from: chunks([Array(broken[..<cut]), Array(broken[cut...])]), into: "tasks", options: options)
                Issue.record("no error at cut \(cut)")
            } catch let error as Database.JSONImportError {
                positions.insert([error.byteOffset, error.line, error.column, error.element ?? -1])
            }
            #expect(try jsonTestCount(db, "tasks") == 0)
        }
        #expect(positions.count == 1)
    }

    @Test func anAsyncSequenceOfDataChunksIsImportedAndAFailureRollsBack() async throws {
        let ndjson = (0..<100).map { "{\"id\": \($0), \"title\": \"t\"}\n" }.joined()
        let data = Data(ndjson.utf8)
        let parts = stride(from: 0, to: data.count, by: 333).map { data[$0..<min($0 + 333, data.count)] }
        let stream = AsyncStream<Data> { c in
            for p in parts { c.yield(Data(p)) }
            c.finish()
        }
        var reports = 0
        let n = try await db.importJSON(from: stream, into: "tasks", options: .init(layout: .ndjson)) { _ in reports += 1 }
        #expect(n == 100)
        #expect(reports >= parts.count)
        let bad = AsyncStream<Data> { c in
            c.yield(Data("{\"id\": 500, \"title\": \"x\"}\n{\"id\": 1, \"title\": \"dup\"}\n".utf8))
            c.finish()
        }
        await #expect(throws: Database.JSONImportError.self) {
            try await db.importJSON(from: bad, into: "tasks", options: .init(layout: .ndjson))
        }
        #expect(try jsonTestCount(db, "tasks") == 100)  // id 500 was rolled back with the failing row
    }

    @Test func aFileIsImportedInChunksWithProgress() throws {
        let path = NSTemporaryDirectory() + "streamqlite-import-\(UUID().uuidString).json"
        defer { try? FileManager.default.removeItem(atPath: path) }
        let json = "[" + (0..<5000).map { "{\"id\": \($0), \"title\": \"task \($0)\", \"score\": \(Double($0) / 8)}" }
            .joined(separator: ",\n") + "]"
        try json.write(toFile: path, atomically: true, encoding: .utf8)
        var reports: [ImportProgress] = []
        let n = try db.importJSON(contentsOf: URL(fileURLWithPath: path), into: "tasks",
                                  options: .init(chunkSize: 4096)) { reports.append($0) }
        #expect(n == 5000)
        #expect(reports.count > 10)
        #expect(reports.last == ImportProgress(bytes: json.utf8.count, rows: 5000))
        #expect(zip(reports, reports.dropFirst()).allSatisfy { $0.bytes <= $1.bytes && $0.rows <= $1.rows })
        #expect(throws: Database.JSONImportError.self) { try db.importJSON(contentsOfFile: path + ".missing", into: "tasks") }
    }

    @Test func insertThenJSONThenImportRoundTripsEveryValue() throws {
        try db.insert(contentsOf: (0..<500).map { i in
            InsertTestTask(id: i, title: "t\(i) \"quoted\" \\ \n é \u{2028}", score: i % 4 == 0 ? nil : Double(i) * 1.1 - 100,
                 done: i % 2 == 0, status: .open, tags: ["a\(i)"], meta: i % 3 == 0 ? nil : .init(owner: "o", priority: i))
        }, into: "tasks", options: .init(ignoreUnknownKeys: true))
        try jsonTestExec(db, "CREATE TABLE copy AS SELECT * FROM tasks WHERE 0")
        let json = try db.jsonBytes("SELECT id, title, score, done, added, tags, note, created FROM tasks",
                                    options: .init(rawJSONColumns: ["tags"]))
        #expect(try db.importJSON(bytes: json, into: "copy") == 500)
        #expect(try jsonTestQuery(db, "SELECT count(*) FROM (SELECT * FROM tasks EXCEPT SELECT * FROM copy)") == [[.int(0)]])
        #expect(try jsonTestQuery(db, "SELECT count(*) FROM (SELECT * FROM copy EXCEPT SELECT * FROM tasks)") == [[.int(0)]])
        // NDJSON too.
        try jsonTestExec(db, "DELETE FROM copy")
        let lines = try db.jsonBytes("SELECT * FROM tasks", options: .init(format: .ndjson, rawJSONColumns: ["tags"]))
        #expect(try db.importJSON(bytes: lines, into: "copy", options: .init(layout: .ndjson)) == 500)
        #expect(try jsonTestQuery(db, "SELECT count(*) FROM (SELECT * FROM tasks EXCEPT SELECT * FROM copy)") == [[.int(0)]])
    }
}
