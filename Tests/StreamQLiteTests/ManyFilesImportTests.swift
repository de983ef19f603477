import Foundation
import Testing
@testable import StreamQLite

/// `importCSV(contentsOfFiles:)` and `importJSON(contentsOfFiles:)`: several files in one
/// transaction, expanded by the C rule `json_stream` and `csv_stream` use (`sq_files.h`).
@Suite struct ManyFilesImportTests {
    let db: Database
    let dir: String

    init() throws {
        db = try Database()
        dir = FileManager.default.temporaryDirectory
            .appendingPathComponent("many-files-\(getpid())-\(UInt32.random(in: 0...UInt32.max))").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    }

    private func write(_ name: String, _ text: String) throws {
        try Data(text.utf8).write(to: URL(fileURLWithPath: dir + "/" + name))
    }

    private func rows(_ sql: String) throws -> [String] {
        try db.values(String.self, sql).collect()
    }

    private func cleanUp() { try? FileManager.default.removeItem(atPath: dir) }

    @Test func threeFilesGiveTheUnionOfTheirRowsInNameOrder() throws {
        defer { cleanUp() }
        try db.execute("CREATE TABLE t(id INTEGER, name TEXT, note TEXT DEFAULT 'none')")
        // written out of order; the headers differ: missing → DEFAULT, extra → ignored
        try write("day-3.csv", "id\n5\n")
        try write("day-1.csv", "id,name\n1,a\n2,b\n")
        try write("day-2.csv", "name,id,extra\nc,3,x\nd,4,y\n")
        var reports: [ImportProgress] = []
        let n = try db.importCSV(contentsOfFiles: [dir + "/day-*.csv"], into: "t",
                                 options: .init(chunkSize: 5)) { reports.append($0) }
        #expect(n == 5)
        #expect(try rows("SELECT id || ':' || coalesce(name, 'NULL') || ':' || note FROM t ORDER BY rowid")
                == ["1:a:none", "2:b:none", "3:c:none", "4:d:none", "5:NULL:none"])
        #expect(reports.last == ImportProgress(bytes: 16 + 26 + 5, rows: 5, filesDone: 3))
        #expect(reports.map(\.filesDone) == reports.map(\.filesDone).sorted())
        #expect(reports.contains { $0.filesDone == 1 && $0.rows == 2 })
        // strict: the extra header name is an error naming its file
        do {
            try db.importCSV(contentsOfFiles: [dir + "/day-*.csv"], into: "t", options: .init(strict: true))
            Issue.record("expected an error")
        } catch let e as CSVImportError {
            #expect(e.file == dir + "/day-2.csv" && e.line == 2 && e.field == 3)
            #expect(e.description.hasPrefix("importCSV: \(dir)/day-2.csv: line 2, byte 18, field 3 (extra): "))
        }
        #expect(try db.value(Int.self, "SELECT count(*) FROM t") == 5)
    }

    @Test func aListKeepsItsOrderAndEachEntryMayBeAGlob() throws {
        defer { cleanUp() }
        try db.execute("CREATE TABLE t(id INTEGER)")
        try write("a.csv", "id\n1\n")
        try write("b-1.csv", "id\n2\n")
        try write("b-2.csv", "id\n3\n")
        try write("star*.csv", "id\n9\n")
        #expect(try db.importCSV(contentsOfFiles: [dir + "/b-?.csv", dir + "/a.csv", dir + "/star\\*.csv"], into: "t") == 4)
        #expect(try rows("SELECT group_concat(id) FROM t") == ["2,3,1,9"])
    }

    @Test func inferredTypesFromTheFirstFileAreCheckedInTheOthers() throws {
        defer { cleanUp() }
        try write("p-1.csv", "id,name\n1,a\n")
        try write("p-2.csv", "name,id\nb,2\nc,2.5\n")
        do {
            try db.importCSV(contentsOfFiles: [dir + "/p-*.csv"], into: "p", options: .init(createTable: true))
            Issue.record("expected an error")
        } catch let e as CSVImportError {
            #expect(e.file == dir + "/p-2.csv" && e.line == 3 && e.fieldName == "id")
        }
        #expect(throws: (any Error).self) { try db.execute("SELECT * FROM p") }   // rolled back
        try write("p-2.csv", "name,id\nb,2\n")
        #expect(try db.importCSV(contentsOfFiles: [dir + "/p-*.csv"], into: "p", options: .init(createTable: true)) == 2)
        #expect(try rows("SELECT name || id FROM p") == ["a1", "b2"])
    }

    @Test func aGlobMatchingNothingIsAnError() throws {
        defer { cleanUp() }
        try db.execute("CREATE TABLE t(id INTEGER)")
        #expect(throws: CSVImportError(message: "\(dir)/night-*.csv: no file matches\(noMatchHint)")) {
            try db.importCSV(contentsOfFiles: [dir + "/night-*.csv"], into: "t")
        }
        do {
            try db.importJSON(contentsOfFiles: [dir + "/night-*.json"], into: "t")
            Issue.record("expected an error")
        } catch let e as Database.JSONImportError {
            #expect(e.message == "\(dir)/night-*.json: no file matches\(noMatchHint)")
        }
        #expect(throws: CSVImportError(message: "no file named")) { try db.importCSV(contentsOfFiles: [], into: "t") }
    }

    @Test func aDirectoryOrAnUnreadableFileIsAnErrorNamingIt() throws {
        defer { cleanUp() }
        try db.execute("CREATE TABLE t(id INTEGER)")
        try write("d-1.csv", "id\n1\n")
        try FileManager.default.createDirectory(atPath: dir + "/d-2.csv", withIntermediateDirectories: false)
        do {
            try db.importCSV(contentsOfFiles: [dir + "/d-*"], into: "t")
            Issue.record("expected an error")
        } catch let e as CSVImportError {
            #expect(e.message.hasPrefix("cannot read \(dir)/d-2.csv: "))
        }
        try FileManager.default.removeItem(atPath: dir + "/d-2.csv")
        // a dangling symlink: cannot be opened (as a chmod 000 file, also when running as root)
        try FileManager.default.createSymbolicLink(atPath: dir + "/d-2.csv", withDestinationPath: dir + "/nowhere")
        #expect(throws: CSVImportError(message: "cannot open \(dir)/d-2.csv: No such file or directory")) {
            try db.importCSV(contentsOfFiles: [dir + "/d-*"], into: "t")
        }
        #expect(try db.value(Int.self, "SELECT count(*) FROM t") == 0)
    }

    @Test func jsonFilesErrorsNameTheFileAndItsPosition() throws {
        defer { cleanUp() }
        try db.execute("CREATE TABLE ev(id INTEGER, kind TEXT)")
        try write("ev-a.ndjson", "{\"id\": 1, \"kind\": \"a\", \"more\": true}\n{\"id\": 2}\n")
        try write("ev-b.ndjson", "{\"kind\": \"b\", \"id\": 3}\n")
        var last = ImportProgress(bytes: 0, rows: 0)
        #expect(try db.importJSON(contentsOfFiles: [dir + "/ev-*.ndjson"], into: "ev",
                                  options: .init(layout: .ndjson)) { last = $0 } == 3)
        #expect(last.filesDone == 2 && last.rows == 3)
        #expect(try rows("SELECT id || coalesce(kind, '-') FROM ev") == ["1a", "2-", "3b"])
        try write("ev-c.ndjson", "{\"id\": 4}\n{\"id\": 5,}\n")
        do {
            try db.importJSON(contentsOfFiles: [dir + "/ev-*.ndjson"], into: "ev", options: .init(layout: .ndjson))
            Issue.record("expected an error")
        } catch let e as Database.JSONImportError {
            #expect(e.file == dir + "/ev-c.ndjson" && e.line == 2 && e.byteOffset == 19)
            #expect(e.description.hasPrefix("importJSON: \(dir)/ev-c.ndjson: line 2"))
        }
        #expect(try db.value(Int.self, "SELECT count(*) FROM ev") == 3)
    }

    struct Item: Decodable, Equatable { var id: Int; var name: String? }

    struct ItemRow: RowDecodable, Equatable {
        var id: Int; var name: String
        init(id: Int, name: String) { self.id = id; self.name = name }
        init(row: Row) throws { id = try row["id"]; name = try row["name"] }
    }

    @Test func csvCursorsReadEachFileByItsOwnHeader() throws {
        defer { cleanUp() }
        // the second file has its columns the other way round: a plan kept from the first
        // file would read the names as ids
        try write("c-1.csv", "id,name\n1,a\n2,b\n")
        try write("c-2.csv", "name,id\nc,3\n")
        try write("c-3.csv", "id\n4\n")
        let items = try CSVDecodableCursor(Item.self, contentsOfFiles: [dir + "/c-*.csv"]).collect()
        #expect(items == [Item(id: 1, name: "a"), Item(id: 2, name: "b"), Item(id: 3, name: "c"), Item(id: 4, name: nil)])
        let rows = try CSVRowCursor(ItemRow.self, contentsOfFiles: [dir + "/c-[12].csv"]).collect()
        #expect(rows == [ItemRow(id: 1, name: "a"), ItemRow(id: 2, name: "b"), ItemRow(id: 3, name: "c")])
        // errors name the file their position is in
        try write("c-2.csv", "name,id\nc,3\n\"d,4\n")
        do {
            _ = try CSVRowCursor(ItemRow.self, contentsOfFiles: [dir + "/c-*.csv"]).collect()
            Issue.record("expected an error")
        } catch let e as CSVImportError {
            #expect(e.file == dir + "/c-2.csv" && e.line == 3)
        }
        #expect(throws: CSVImportError(message: "\(dir)/none-*.csv: no file matches\(noMatchHint)", function: "CSVDecodableCursor")) {
            _ = try CSVDecodableCursor(Item.self, contentsOfFiles: [dir + "/none-*.csv"])
        }
    }
}

/// What a "no file matches" error adds: how to name a glob character itself.
private let noMatchHint = " (a name holding '*', '?' or '[' is a pattern: write '\\*', '\\?' or '\\[' for the character itself)"
