import Foundation
import Synchronization
import Testing
@testable import StreamQLite

/// `onError: .skip` of importJSON / importCSV: the same rejects as the SQL tables'
/// `on_error='skip'` (the C core and `sq_reject.c`), the reject table and `onReject`.
@Suite struct ImportRejectTests {
    let db: Database

    init() throws {
        db = try Database(path: ":memory:")
        try db.execute("CREATE TABLE t(id INTEGER, n INTEGER)")
    }

    private func text(_ sql: String) throws -> String { try db.scalarText(sql) ?? "NULL" }

    let ndjson = "{\"id\":1,\"n\":10}\n{\"id\":2,\"n\":\"x\"}\n{\"id\":3,\"n\":\n{\"id\":4,\"n\":40}\n7\n"

    @Test func ndjsonRejectsGoToTheRejectTableAndTheRestIsImported() throws {
        let n = try db.importJSON(bytes: Array(ndjson.utf8), into: "t",
                                  options: .init(layout: .ndjson, strict: true, onError: .skip, rejectTable: "rej"))
        #expect(n == 2)
        #expect(try text("SELECT group_concat(id || ':' || n, ' ') FROM t") == "1:10 4:40")
        #expect(try text("SELECT group_concat(line || '/' || \"offset\" || '/' || record || '/' || raw, ' | ') FROM rej")
                == "2/16/1/{\"id\":2,\"n\":\"x\"} | 3/33/2/{\"id\":3,\"n\": | 5/62/4/7")
        #expect(try text("SELECT reason FROM rej WHERE record = 1")
                == "importJSON: line 2, column 13 (byte 28), element 1, key 'n': 'x' is not an integer, column n is INTEGER (strict mode)")
        #expect(try text("SELECT count(*) FROM rej WHERE file IS NULL AND raw_truncated = 0") == "3")
    }

    /// `createTable: true` with `.skip`: a record of another field count among the records
    /// read to infer the types is left out of the inference (its values type nothing) and
    /// rejected, as `csv_stream` without `columns=` does with `on_error=skip`.
    @Test func aBadRecordInTheInferenceSampleIsRejectedAndTypesNothing() throws {
        let csv = "id,amount,note\n1,10,ok\n2,x,long,record\n3,30,fine\n"
        let n = try db.importCSV(bytes: Array(csv.utf8), into: "inferred",
                                 options: .init(createTable: true, onError: .skip, rejectTable: "rej"))
        #expect(n == 2)
        #expect(try text("SELECT group_concat(name || ' ' || type, ', ') FROM pragma_table_info('inferred')")
                == "id INTEGER, amount INTEGER, note TEXT")
        #expect(try text("SELECT group_concat(id || ':' || typeof(amount) || ':' || note, ' ') FROM inferred")
                == "1:integer:ok 3:integer:fine")
        #expect(try text("SELECT line || '/' || record || '/' || raw FROM rej") == "3/1/2,x,long,record")
        // aborting (the default), the same file stops at that record
        #expect(throws: CSVImportError.self) {
            try db.importCSV(bytes: Array(csv.utf8), into: "inferred2", options: .init(createTable: true))
        }
    }

    @Test func onRejectGetsEveryRejectWithoutATable() throws {
        let got = Mutex<[ImportReject]>([])
        let n = try db.importJSON(bytes: Array(ndjson.utf8), into: "t",
                                  options: .init(layout: .ndjson, strict: true, onError: .skip,
                                                 onReject: { r in got.withLock { $0.append(r) } }))
        #expect(n == 2)
        let rejects = got.withLock { $0 }
        #expect(rejects.map(\.record) == [1, 2, 4])
        #expect(rejects.map(\.line) == [2, 3, 5])
        #expect(rejects.first?.column == "n")
        #expect(rejects.last.map { String(decoding: $0.raw, as: UTF8.self) } == "7")
    }

    @Test func skipNeedsARejectTableOrOnReject() {
        #expect(throws: Database.JSONImportError.self) {
            try db.importJSON(bytes: Array(ndjson.utf8), into: "t", options: .init(layout: .ndjson, onError: .skip))
        }
        #expect(throws: CSVImportError.self) {
            try db.importCSV(bytes: Array("id,n\n1,2\n".utf8), into: "t", options: .init(onError: .skip))
        }
    }

    @Test func anExceededBudgetAbortsAndLeavesNothing() throws {
        do {
            _ = try db.importJSON(bytes: Array(ndjson.utf8), into: "t",
                                  options: .init(layout: .ndjson, strict: true, onError: .skip, maxErrors: .count(2),
                                                 rejectTable: "rej"))
            Issue.record("no error")
        } catch let e as Database.JSONImportError {
            #expect(e.message.hasPrefix("more than 2 records rejected (maxErrors=2); the last: importJSON: line 5"))
        }
        #expect(try text("SELECT count(*) FROM t") == "0")
        #expect(try text("SELECT count(*) FROM sqlite_schema WHERE name = 'rej'") == "0")
    }

    @Test func csvOnePercentBadRecordsCountedExactly() throws {
        var csv = "id,n\n"
        for i in 1...1000 { csv += "\(i)," + (i % 100 == 0 ? "bad" : "\(i * 2)") + "\n" }
        let path = NSTemporaryDirectory() + "reject-\(UUID().uuidString).csv"
        try csv.write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let n = try db.importCSV(contentsOfFile: path, into: "t",
                                 options: .init(strict: true, chunkSize: 1000, onError: .skip, maxErrors: .fraction(0.01),
                                                rejectTable: "temp.rej"))
        #expect(n == 990)
        #expect(try text("SELECT count(*) FROM t WHERE n = id * 2") == "990")
        #expect(try text("SELECT count(*) FROM temp.rej WHERE file = '\(path)' AND line = record + 2 AND raw = (record + 1) || ',bad'")
                == "10")
        #expect(try text("SELECT reason FROM temp.rej WHERE record = 99")
                == "importCSV: line 101, byte 640, field 2 (n): 'bad' is not an integer, column n is INTEGER (strict mode)")
    }

    @Test func csvFractionBudgetIsCheckedAtTheEnd() throws {
        let csv = "id,n\n1,1\n2,x\n3,3\n4\n"
        #expect(throws: CSVImportError.self) {
            try db.importCSV(bytes: Array(csv.utf8), into: "t",
                             options: .init(strict: true, onError: .skip, maxErrors: .fraction(0.25), rejectTable: "rej"))
        }
        #expect(try text("SELECT count(*) FROM t") == "0")
        #expect(try db.importCSV(bytes: Array(csv.utf8), into: "t",
                                 options: .init(strict: true, onError: .skip, maxErrors: .fraction(0.5), rejectTable: "rej")) == 2)
        #expect(try text("SELECT count(*) FROM rej") == "2")
    }

    @Test func aRejectTableThatCannotBeUsedIsAnErrorBeforeReading() throws {
        try db.execute("CREATE VIEW v AS SELECT 1")
        do {
            _ = try db.importJSON(bytes: Array(ndjson.utf8), into: "t",
                                  options: .init(layout: .ndjson, onError: .skip, rejectTable: "v"))
            Issue.record("no error")
        } catch let e as Database.JSONImportError {
            #expect(e.message == "reject_table main.v is a view, not a table")
        }
    }
}
