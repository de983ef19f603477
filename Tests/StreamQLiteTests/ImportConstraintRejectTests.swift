import Foundation
import Synchronization
import Testing
@testable import StreamQLite

/// `onError: .skip` of importCSV / importJSON for rows the table itself refuses (NOT NULL,
/// UNIQUE, CHECK, a foreign key, a STRICT column's type): each is rejected whole like a bad
/// record, the rest of its batch is stored, and rows + rejects = records read.
@Suite struct ImportConstraintRejectTests {
    let db: Database

    init() throws {
        db = try Database(path: ":memory:")
        try db.execute("CREATE TABLE t(id INTEGER UNIQUE, n INTEGER NOT NULL CHECK (n >= 0))")
    }

    private func text(_ sql: String) throws -> String { try db.scalarText(sql) ?? "NULL" }

    let csv = "id,n\n1,10\n2,\n3,-5\n1,7\n4,40\n"

    @Test func csvConstraintViolationsGoToTheRejectTable() throws {
        let n = try db.importCSV(bytes: Array(csv.utf8), into: "t", options: .init(onError: .skip, rejectTable: "rej"))
        #expect(n == 2)
        #expect(try text("SELECT group_concat(id || ':' || n, ' ') FROM t") == "1:10 4:40")
        #expect(try text("SELECT group_concat(line || '/' || \"offset\" || '/' || record || '/' || ifnull(\"column\", '-'), ' | ') FROM rej")
                == "3/10/1/n | 4/13/2/- | 5/18/3/id")
        #expect(try text("SELECT group_concat(reason, ' | ') FROM rej")
                == "importCSV: line 3, byte 10: NOT NULL constraint failed: t.n | "
                + "importCSV: line 4, byte 13: CHECK constraint failed: n >= 0 | "
                + "importCSV: line 5, byte 18: UNIQUE constraint failed: t.id")
        // Each with its record's text, as a format reject would have it.
        #expect(try text("SELECT group_concat(raw || '/' || raw_truncated || '/' || ifnull(file, '-'), ' | ') FROM rej")
                == "2,/0/- | 3,-5/0/- | 1,7/0/-")
    }

    @Test func theAbortDefaultStillStopsAndStoresNothing() throws {
        #expect(throws: CSVImportError.self) { try db.importCSV(bytes: Array(csv.utf8), into: "t") }
        #expect(try text("SELECT count(*) FROM t") == "0")
    }

    @Test func theRestOfAFailedBatchIsStoredOnce() throws {
        var s = "id,n\n"
        for i in 0..<500 { s += "\(i)," + (i % 100 == 37 ? "" : "\(i)") + "\n" }
        let got = Mutex<[Int]>([])
        let n = try db.importCSV(bytes: Array(s.utf8), into: "t",
                                 options: .init(batchSize: 50, onError: .skip,
                                                onReject: { r in got.withLock { $0.append(r.record) } }))
        #expect(n == 495)
        #expect(got.withLock { $0 } == [37, 137, 237, 337, 437])
        #expect(try text("SELECT count(*) || '/' || count(DISTINCT id) || '/' || sum(id) FROM t")
                == "495/495/\((0..<500).filter { $0 % 100 != 37 }.reduce(0, +))")
    }

    @Test func severalRefusedRowsInOneBatchAreEachRejected() throws {
        // Refused rows at a batch's edges, side by side, and a batch refused whole.
        let bad = Set([0, 1, 24, 25, 49, 50, 51, 77]).union(100..<150)
        var s = "id,n\n"
        for i in 0..<160 { s += "\(i)," + (bad.contains(i) ? "" : "\(i)") + "\n" }
        let got = Mutex<[Int]>([])
        let n = try db.importCSV(bytes: Array(s.utf8), into: "t",
                                 options: .init(batchSize: 50, onError: .skip,
                                                onReject: { r in got.withLock { $0.append(r.record) } }))
        #expect(n == 160 - bad.count)
        #expect(got.withLock { $0 } == bad.sorted())
        #expect(try text("SELECT count(*) || '/' || sum(id) FROM t")
                == "\(160 - bad.count)/\((0..<160).filter { !bad.contains($0) }.reduce(0, +))")
    }

    @Test func onConflictFailLeavesNoDuplicateRows() throws {
        // A constraint ON CONFLICT FAIL keeps the rows a failed statement inserted before the
        // refused one: the batch's savepoint undoes them before the replay.
        try db.execute("CREATE TABLE f(id INTEGER UNIQUE ON CONFLICT FAIL, v TEXT)")
        let n = try db.importCSV(bytes: Array("id,v\n1,a\n2,b\n2,c\n3,d\n".utf8), into: "f",
                                 options: .init(onError: .skip, rejectTable: "rej"))
        #expect(n == 3)
        #expect(try text("SELECT group_concat(id || v, ' ') FROM f") == "1a 2b 3d")
        #expect(try text("SELECT record FROM rej") == "2")
    }

    @Test func aTriggerRaiseFailUndoesItsPartialWork() throws {
        try db.execute("""
            CREATE TABLE log(x INTEGER);
            CREATE TABLE g(id INTEGER);
            CREATE TRIGGER g_check BEFORE INSERT ON g BEGIN
              INSERT INTO log VALUES (NEW.id);
              SELECT RAISE(FAIL, 'no sevens') WHERE NEW.id = 7;
            END;
            """)
        let n = try db.importCSV(bytes: Array("id\n6\n7\n8\n".utf8), into: "g",
                                 options: .init(onError: .skip, rejectTable: "rej"))
        #expect(n == 2)
        #expect(try text("SELECT group_concat(x, ' ') FROM log") == "6 8")
        #expect(try text("SELECT reason FROM rej") == "importCSV: line 3, byte 5: no sevens")
    }

    @Test func strictTableTypesAndForeignKeysAreRejects() throws {
        try db.execute("""
            PRAGMA foreign_keys = ON;
            CREATE TABLE parent(id INTEGER PRIMARY KEY);
            INSERT INTO parent VALUES (1), (2);
            CREATE TABLE child(id INTEGER, parent INTEGER REFERENCES parent(id), qty INTEGER) STRICT;
            """)
        let n = try db.importCSV(bytes: Array("id,parent,qty\n1,1,5\n2,9,5\n3,2,lots\n4,2,6\n".utf8), into: "child",
                                 options: .init(onError: .skip, rejectTable: "rej"))
        #expect(n == 2)
        #expect(try text("SELECT group_concat(id, ' ') FROM child") == "1 4")
        let reasons = try text("SELECT group_concat(record || ': ' || reason, ' | ') FROM rej")
        // (the import's own strict conversion refuses 'lots' before SQLite's STRICT table does:
        // asking for rejects makes a value that does not fit its column a reject)
        #expect(reasons.contains("1: importCSV: line 3, byte 20: FOREIGN KEY constraint failed")
                && reasons.contains("2: importCSV: line 4, byte 30, field 3 (qty): 'lots' is not an integer"), "\(reasons)")
    }

    @Test func constraintRejectsCountAgainstMaxErrors() throws {
        do {
            try db.importCSV(bytes: Array(csv.utf8), into: "t",
                             options: .init(onError: .skip, maxErrors: .count(2), rejectTable: "rej"))
            Issue.record("no error")
        } catch let e as CSVImportError {
            #expect(e.message == "more than 2 records rejected (maxErrors=2); the last: "
                    + "importCSV: line 5, byte 18: UNIQUE constraint failed: t.id")
        }
        #expect(try text("SELECT count(*) FROM t") == "0")
        #expect(try text("SELECT count(*) FROM sqlite_schema WHERE name = 'rej'") == "0")
    }

    @Test func theFractionBudgetCountsConstraintRejectsOfTheLastBatch() throws {
        // 3 of 5 records rejected by the table, all in the last (partial) batch.
        #expect(throws: CSVImportError.self) {
            try db.importCSV(bytes: Array(csv.utf8), into: "t",
                             options: .init(onError: .skip, maxErrors: .fraction(0.5), rejectTable: "rej"))
        }
        let n = try db.importCSV(bytes: Array(csv.utf8), into: "t",
                                 options: .init(onError: .skip, maxErrors: .fraction(0.6), rejectTable: "rej"))
        #expect(n == 2)
    }

    @Test func rowsAndRejectsAddUpWithFormatRejects() throws {
        // strict: 'x' is a record error of the core; the others are the table's.
        let ndjson = "{\"id\":1,\"n\":1}\n{\"id\":2,\"n\":\"x\"}\n{\"id\":1,\"n\":3}\n{\"id\":4,\"n\":null}\n{\"id\":5,\"n\":5}\n"
        let got = Mutex<[ImportReject]>([])
        let n = try db.importJSON(bytes: Array(ndjson.utf8), into: "t",
                                  options: .init(layout: .ndjson, strict: true, onError: .skip,
                                                 onReject: { r in got.withLock { $0.append(r) } }))
        let rejects = got.withLock { $0 }
        #expect(n == 2)
        #expect(n + rejects.count == 5)
        #expect(rejects.map(\.record) == [1, 2, 3])
        #expect(rejects[1].reason == "importJSON: line 3, column 1 (byte 32), element 2, key 'id': UNIQUE constraint failed: t.id")
        #expect(rejects[1].column == "id")
        #expect(String(decoding: rejects[1].raw, as: UTF8.self) == "{\"id\":1,\"n\":3}" && !rejects[1].rawTruncated)
        #expect(rejects[2].column == "n")
    }

    @Test func manyFilesNameEachRejectsFile() throws {
        let dir = NSTemporaryDirectory() + "constraint-rejects-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try "id,n\n1,1\n2,2\n".write(toFile: dir + "/a.csv", atomically: true, encoding: .utf8)
        try "id,n\n3,3\n2,9\n".write(toFile: dir + "/b.csv", atomically: true, encoding: .utf8)
        let n = try db.importCSV(contentsOfFiles: [dir + "/*.csv"], into: "t",
                                 options: .init(onError: .skip, rejectTable: "rej"))
        #expect(n == 3)
        #expect(try text("SELECT file || ':' || line FROM rej") == dir + "/b.csv:3")
    }
}

/// Without a rollback journal a refused batch cannot be undone: such a row stops the import
/// (saying why) instead of being rejected; format rejects still work.
@Suite struct ImportConstraintRejectJournalOffTests {
    @Test func journalModeOffStopsOnARefusedRow() throws {
        let path = NSTemporaryDirectory() + "journal-off-\(UUID().uuidString).db"
        defer { try? FileManager.default.removeItem(atPath: path) }
        let db = try Database(path: path)
        try db.execute("PRAGMA journal_mode=OFF")
        try db.execute("CREATE TABLE t(id INTEGER UNIQUE, n INTEGER)")
        #expect(try db.importCSV(bytes: Array("id,n\n1,1\n2,x\n".utf8), into: "t",
                                 options: .init(strict: true, onError: .skip, rejectTable: "rej")) == 1)
        #expect {
            try db.importCSV(bytes: Array("id,n\n3,3\n1,1\n".utf8), into: "t", options: .init(onError: .skip, rejectTable: "rej"))
        } throws: {
            ($0 as? CSVImportError)?.message
                == "UNIQUE constraint failed: t.id (not rejected: with journal_mode=OFF SQLite cannot undo the refused row's batch)"
        }
    }
}
