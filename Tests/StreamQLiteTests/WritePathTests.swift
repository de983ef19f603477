import Foundation
import Testing
@testable import StreamQLite

// The one write path (InsertBatcher over BulkInsertSession) behind insert(contentsOf:)
// with and without RETURNING and importJSON/importCSV: batch boundaries, partial last
// batches, failures in a later batch, RETURNING with upserts, and what the import and
// insert paths store for the same values.

struct WritePathRow: Codable, Equatable {
    var id: Int
    var title: String
    var score: Double?
    var day: Date?
}

struct WritePathFastRow: RowEncodable {
    var id: Int64
    var title: String
    static let databaseColumns = ["id", "title"]
    func bind(to row: inout RowBinder) throws { row.bind(id); row.bind(title) }
}

/// A sink that throws at its `limit`-th row.
struct WritePathThrowingSink: RowSink {
    struct Stop: Error {}
    var limit: Int
    var rows = 0
    mutating func beginRow() throws {
        rows += 1
        if rows == limit { throw Stop() }
    }
}

/// Writes its properties through nested containers by hand (no `encode(_:forKey:)` for them).
struct WritePathHandNested: Codable, Equatable {
    struct Meta: Codable, Equatable {
        var owner: String
        var priority: Int
        var seen: Date?
        var note: String?
        enum CodingKeys: String, CodingKey { case owner, priority, seen, note }
    }
    var id: Int
    var meta: Meta
    var tags: [String]
    var grid: [[Int]]

    enum CodingKeys: String, CodingKey { case id, meta, tags, grid }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        var tagList = c.nestedUnkeyedContainer(forKey: .tags)       // opened before meta, filled after it
        var m = c.nestedContainer(keyedBy: Meta.CodingKeys.self, forKey: .meta)
        try m.encode(meta.priority, forKey: .priority)
        try m.encode(meta.owner, forKey: .owner)
        try m.encodeIfPresent(meta.seen, forKey: .seen)
        try m.encodeIfPresent(meta.note, forKey: .note)
        for t in tags { try tagList.encode(t) }
        var g = c.nestedUnkeyedContainer(forKey: .grid)
        for row in grid {
            var inner = g.nestedUnkeyedContainer()
            for v in row { try inner.encode(v) }
        }
    }
}

/// The same shape, synthesized (`encode(_:forKey:)` for every property).
struct WritePathSynthesizedNested: Codable {
    var id: Int
    var meta: WritePathHandNested.Meta
    var tags: [String]
    var grid: [[Int]]
}

@Suite struct WritePathTests {
    let db: Database

    init() throws {
        db = try Database(path: ":memory:")
        try db.execute("CREATE TABLE t(id INTEGER PRIMARY KEY, title TEXT NOT NULL UNIQUE, score REAL, day DATETIME)")
    }

    func rows(_ n: Int, from start: Int = 1) -> [WritePathRow] {
        var out: [WritePathRow] = []
        for i in start..<(start + n) {
            let score: Double? = i % 3 == 0 ? nil : Double(i) / 4
            let seconds: Double = 1_714_564_800.25 + Double(i) * 86_400
            let day: Date? = i % 2 == 0 ? nil : Date(timeIntervalSince1970: seconds)
            out.append(WritePathRow(id: i, title: "r\(i)", score: score, day: day))
        }
        return out
    }

    // MARK: RETURNING across batches

    @Test(arguments: [1, 2, 3, 7, 8, 50])
    func returningSeesEveryRowAcrossBatchesAndAPartialLastBatch(batchSize: Int) throws {
        var sink = JSONTestCollectingSink()
        let n = try db.insert(contentsOf: rows(7), into: "t", options: .init(batchSize: batchSize),
                              returning: "id, upper(title) AS T", into: &sink)
        #expect(n == 7)
        #expect(sink.columns == ["id", "T"])
        #expect(sink.beginCount == 1 && sink.endCount == 1)
        #expect(Set(sink.rows) == Set((1...7).map { [JSONTestValue.int(Int64($0)), .text("R\($0)")] }))
        #expect(sink.rows.count == 7)
        #expect(try jsonTestCount(db, "t") == 7)
    }

    @Test func returningRowEncodableAcrossBatchesWithAPartialLastBatch() throws {
        var sink = JSONTestCollectingSink()
        let values = (1...11).map { WritePathFastRow(id: Int64($0), title: "f\($0)") }
        try db.insert(contentsOf: values, into: "t", options: .init(batchSize: 4), returning: "id", into: &sink)
        #expect(Set(sink.rows) == Set((1...11).map { [JSONTestValue.int(Int64($0))] }))
        #expect(sink.rows.count == 11 && sink.beginCount == 1 && sink.endCount == 1)
    }

    @Test func returningWithAnUpsertAcrossBatchesReportsInsertedAndUpdatedRows() throws {
        try db.insert(contentsOf: rows(4), into: "t")
        var changed = rows(7)
        for i in changed.indices { changed[i].title = "new\(changed[i].id)" }
        var sink = JSONTestCollectingSink()
        let n = try db.insert(contentsOf: changed, into: "t",
                              options: .init(onConflict: .update(target: ["id"], set: ["title"]), batchSize: 3),
                              returning: "id, title", into: &sink)
        #expect(n == 7)
        #expect(Set(sink.rows) == Set((1...7).map { [JSONTestValue.int(Int64($0)), .text("new\($0)")] }))
        // set: ["title"] only: the scores of the 4 old rows are the old ones (equal here), and nothing else changed.
        #expect(try jsonTestQuery(db, "SELECT count(*), sum(title LIKE 'new%') FROM t") == [[.int(7), .int(7)]])
    }

    @Test func anEmptyRowEncodableSequenceStillGivesOneResult() throws {
        var sink = JSONTestCollectingSink()
        #expect(try db.insert(contentsOf: [WritePathFastRow](), into: "t", returning: "id", into: &sink) == 0)
        #expect(sink.beginCount == 1 && sink.endCount == 1 && sink.columns == ["id"] && sink.rows.isEmpty)
    }

    @Test func aSinkThatThrowsRollsBackTheInsertAndLeavesTheConnectionUsable() throws {
        var sink = WritePathThrowingSink(limit: 5)
        #expect(throws: WritePathThrowingSink.Stop.self) {
            try db.insert(contentsOf: rows(9), into: "t", options: .init(batchSize: 2), returning: "id", into: &sink)
        }
        #expect(try jsonTestCount(db, "t") == 0)
        // The statements were reset: the same shapes run again.
        var ok = JSONTestCollectingSink()
        try db.insert(contentsOf: rows(9), into: "t", options: .init(batchSize: 2), returning: "id", into: &ok)
        #expect(ok.rows.count == 9)
    }

    // MARK: A failure in a later batch

    @Test(arguments: [(batch: 3, bad: 7), (batch: 3, bad: 9), (batch: 3, bad: 10), (batch: 50, bad: 9), (batch: 1, bad: 4)])
    func aConstraintInALaterBatchRollsBackEverythingAndNamesTheRow(batch: Int, bad: Int) throws {
        try db.execute("INSERT INTO t(id, title) VALUES (1000, 'taken')")
        var values = rows(11)
        values[bad].title = "taken"
        let e = try #require(throws: InsertError.self) {
            try db.insert(contentsOf: values, into: "t", options: .init(batchSize: batch))
        }
        #expect(e.row == bad)
        #expect(e.column == "title")
        #expect(e.message.contains("UNIQUE"))
        #expect(try jsonTestCount(db, "t") == 1)
        // With RETURNING too.
        var sink = JSONTestCollectingSink()
        let r = try #require(throws: InsertError.self) {
            try db.insert(contentsOf: values, into: "t", options: .init(batchSize: batch), returning: "id", into: &sink)
        }
        #expect(r.row == bad)
        #expect(try jsonTestCount(db, "t") == 1)
    }

    @Test func aRowThatCannotBeEncodedInALaterBatchRollsBackEverything() throws {
        var values = rows(10)
        values[8].score = .nan
        let e = try #require(throws: InsertError.self) {
            try db.insert(contentsOf: values, into: "t", options: .init(batchSize: 3))
        }
        #expect(e.row == 8 && e.column == "score")
        #expect(try jsonTestCount(db, "t") == 0)
    }

    @Test func aConstraintInALaterImportBatchRollsBackEverythingAndNamesTheElement() throws {
        var json = "["
        for i in 1...10 { json += (i > 1 ? ",\n" : "") + "{\"id\": \(i), \"title\": \"\(i == 8 ? "r2" : "r\(i)")\"}" }
        json += "]"
        let e = try #require(throws: Database.JSONImportError.self) {
            try db.importJSON(bytes: Array(json.utf8), into: "t", options: .init(batchSize: 3))
        }
        #expect(e.element == 7)
        #expect(e.line == 8)
        #expect(e.key == "title")
        #expect(try jsonTestCount(db, "t") == 0)
        // The same through CSV: record 7 is on line 9 (after the header).
        var csv = "id,title\n"
        for i in 1...10 { csv += "\(i),\(i == 8 ? "r2" : "r\(i)")\n" }
        let c = try #require(throws: CSVImportError.self) {
            try db.importCSV(bytes: Array(csv.utf8), into: "t", options: .init(batchSize: 3))
        }
        #expect(c.record == 7 && c.line == 9)
        #expect(try jsonTestCount(db, "t") == 0)
    }

    // MARK: Import and insert store the same values

    @Test func importJSONAndInsertStoreIdenticalValues() throws {
        try db.execute("CREATE TABLE u(id INTEGER PRIMARY KEY, title TEXT NOT NULL UNIQUE, score REAL, day DATETIME)")
        let values = rows(23)
        try db.insert(contentsOf: values, into: "t", options: .init(batchSize: 4))
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601withMilliseconds
        try db.importJSON(bytes: Array(try encoder.encode(values)), into: "u", options: .init(batchSize: 5))
        let query = "SELECT id, typeof(title), title, typeof(score), quote(score), typeof(day), day FROM %@ ORDER BY id"
        let inserted = try jsonTestQuery(db, query.replacingOccurrences(of: "%@", with: "t"))
        let imported = try jsonTestQuery(db, query.replacingOccurrences(of: "%@", with: "u"))
        #expect(inserted.count == 23)
        #expect(inserted == imported)
        #expect(inserted[0][6] == .text("2024-05-02 12:00:00.250"))
    }

    // MARK: Nested containers in JSON columns

    func nestedValues() -> [WritePathHandNested] {
        var out: [WritePathHandNested] = []
        for i in 0..<5 {
            let seen: Date? = i % 2 == 0 ? Date(timeIntervalSince1970: 1_714_564_800.5 + Double(i)) : nil
            let meta = WritePathHandNested.Meta(owner: "o\(i) \"q\" é/ş", priority: i - 2, seen: seen,
                                                note: i == 3 ? "line\nbreak" : nil)
            let tags: [String] = i == 1 ? [] : (0..<i).map { "t\($0)" }
            out.append(WritePathHandNested(id: i, meta: meta, tags: tags, grid: [[i, -i], [], [0]]))
        }
        return out
    }

    @Test func nestedContainersOfAHandWrittenEncodeGoToJSONColumnsAndReadBack() throws {
        try db.execute("CREATE TABLE n(id INTEGER PRIMARY KEY, meta JSON, tags JSON, grid TEXT)")
        let values = nestedValues()
        try db.insert(contentsOf: values, into: "n", options: .init(batchSize: 2, jsonColumns: ["grid"]))
        let back = try db.rows(WritePathHandNested.self, "SELECT id, meta, tags, grid FROM n ORDER BY id").collect()
        #expect(back == values)
        // Byte for byte what the synthesized encode(_:forKey:) path writes (the one JSON encoder).
        try db.execute("CREATE TABLE s(id INTEGER PRIMARY KEY, meta JSON, tags JSON, grid TEXT)")
        let synthesized = values.map { WritePathSynthesizedNested(id: $0.id, meta: $0.meta, tags: $0.tags, grid: $0.grid) }
        try db.insert(contentsOf: synthesized, into: "s", options: .init(jsonColumns: ["grid"]))
        let hand = try jsonTestQuery(db, "SELECT meta, tags, grid FROM n ORDER BY id")
        let synth = try jsonTestQuery(db, "SELECT meta, tags, grid FROM s ORDER BY id")
        #expect(hand == synth)
        #expect(hand[0] == [.text(#"{"owner":"o0 \"q\" é/ş","priority":-2,"seen":"2024-05-01 12:00:00.500"}"#),
                            .text("[]"), .text("[[0,0],[],[0]]")])
        #expect(try jsonTestQuery(db, "SELECT json_valid(meta) AND json_valid(tags) AND json_valid(grid) FROM n")
                == Array(repeating: [.int(1)], count: 5))
    }

    @Test func aNestedContainerForAColumnThatIsNotJSONIsAClearError() throws {
        try db.execute("CREATE TABLE p(id INTEGER PRIMARY KEY, meta TEXT, tags JSON, grid JSON)")
        let e = try #require(throws: InsertError.self) { try db.insert(contentsOf: nestedValues(), into: "p") }
        #expect(e.row == 0 && e.column == "meta")
        #expect(e.message.contains("needs a JSON column"))
        #expect(try jsonTestCount(db, "p") == 0)
    }

    @Test func anUnknownKeyForANestedContainerIsSkippedWhenAskedTo() throws {
        try db.execute("CREATE TABLE q(id INTEGER PRIMARY KEY, tags JSON)")
        let e = try #require(throws: InsertError.self) {
            try db.insert(contentsOf: nestedValues(), into: "q", options: .init(columns: ["id", "tags"]))
        }
        #expect(e.column == "meta")
        try db.insert(contentsOf: nestedValues(), into: "q", options: .init(ignoreUnknownKeys: true))
        #expect(try jsonTestQuery(db, "SELECT tags FROM q WHERE id = 2") == [[.text(#"["t0","t1"]"#)]])
    }

    // MARK: Special values inside single-value wrappers

    struct Digest: Codable { var bytes: [UInt8]
        init(_ bytes: [UInt8]) { self.bytes = bytes }
        init(from decoder: any Decoder) throws { bytes = try decoder.singleValueContainer().decode([UInt8].self) }
        func encode(to encoder: any Encoder) throws { var c = encoder.singleValueContainer(); try c.encode(bytes) }
    }
    struct Signed: Codable { var id: Int; var digest: Digest; var raw: [UInt8] }

    @Test func aWrapperAroundBytesBindsABlobAsBytesThemselvesDo() throws {
        try db.execute("CREATE TABLE b(id INTEGER PRIMARY KEY, digest BLOB, raw BLOB)")
        try db.insert(contentsOf: [Signed(id: 1, digest: Digest([0, 1, 255]), raw: [0, 1, 255])], into: "b")
        #expect(try jsonTestQuery(db, "SELECT typeof(digest), hex(digest), typeof(raw), hex(raw) FROM b")
                == [[.text("blob"), .text("0001FF"), .text("blob"), .text("0001FF")]])
    }

    // MARK: The chunked file loop

    @Test func aMissingFileIsReportedBeforeAMissingTableByBothImports() throws {
        let json = try #require(throws: Database.JSONImportError.self) {
            try db.importJSON(contentsOfFile: "/nonexistent/x.json", into: "no_such_table")
        }
        #expect(json.message.hasPrefix("cannot open /nonexistent/x.json: "))
        let csv = try #require(throws: CSVImportError.self) {
            try db.importCSV(contentsOfFile: "/nonexistent/x.csv", into: "no_such_table")
        }
        #expect(csv.message.hasPrefix("cannot open /nonexistent/x.csv: "))
        // A directory opens but cannot be read: an error with the path, nothing stored.
        let dir = try #require(throws: Database.JSONImportError.self) {
            try db.importJSON(contentsOfFile: NSTemporaryDirectory(), into: "t")
        }
        #expect(dir.message.hasPrefix("cannot read \(NSTemporaryDirectory())"))
        let csvDir = try #require(throws: CSVImportError.self) {
            try db.importCSV(contentsOfFile: NSTemporaryDirectory(), into: "t")
        }
        #expect(csvDir.message.hasPrefix("cannot read \(NSTemporaryDirectory())"))
        #expect(try jsonTestCount(db, "t") == 0)
    }

    @Test func fileImportsReadInSmallChunksStoreWhatTheBytesImportsStore() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("writepath-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        var json = "[", csv = "id,title,score\n"
        for i in 1...40 { json += (i > 1 ? "," : "") + "{\"id\":\(i),\"title\":\"é\(i)\",\"score\":\(i).5}"; csv += "\(i),é\(i),\(i).5\n" }
        json += "]"
        try Data(json.utf8).write(to: dir.appendingPathComponent("a.json"))
        try Data(csv.utf8).write(to: dir.appendingPathComponent("a.csv"))
        try db.execute("CREATE TABLE u(id INTEGER PRIMARY KEY, title TEXT NOT NULL UNIQUE, score REAL, day DATETIME)")
        var seen: [Int] = []
        #expect(try db.importJSON(contentsOfFile: dir.appendingPathComponent("a.json").path, into: "t",
                                  options: .init(batchSize: 7, chunkSize: 5), progress: { seen.append($0.bytes) }) == 40)
        #expect(seen.count > 40 && seen.last == json.utf8.count)
        #expect(try db.importCSV(contentsOfFile: dir.appendingPathComponent("a.csv").path, into: "u",
                                 options: .init(batchSize: 7, chunkSize: 3)) == 40)
        let query = "SELECT id, title, typeof(score), score FROM %@ ORDER BY id"
        #expect(try jsonTestQuery(db, query.replacingOccurrences(of: "%@", with: "t"))
                == jsonTestQuery(db, query.replacingOccurrences(of: "%@", with: "u")))
        #expect(try jsonTestCount(db, "t") == 40)
    }
}

extension JSONEncoder.DateEncodingStrategy {
    /// `2024-05-01T12:00:00.250Z`.
    static var iso8601withMilliseconds: JSONEncoder.DateEncodingStrategy {
        .custom { date, encoder in
            var c = encoder.singleValueContainer()
            let f = ISO8601DateFormatter()
            f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
            try c.encode(f.string(from: date))
        }
    }
}
