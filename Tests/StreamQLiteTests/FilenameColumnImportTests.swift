import Foundation
import Testing
@testable import StreamQLite

/// `filenameColumn` of importCSV / importJSON: each row's file in a column, as the SQL
/// functions' `filename` column gives it.
@Suite struct FilenameColumnImportTests {
    let db: Database
    let dir: String

    init() throws {
        db = try Database(path: ":memory:")
        dir = NSTemporaryDirectory() + "filename-column-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        try "id,n\n1,10\n2,20\n".write(toFile: dir + "/a.csv", atomically: true, encoding: .utf8)
        try "n,id\n30,3\n".write(toFile: dir + "/b.csv", atomically: true, encoding: .utf8)
        try "{\"id\":1}\n{\"id\":2}\n".write(toFile: dir + "/a.ndjson", atomically: true, encoding: .utf8)
        try "{\"id\":3,\"source\":\"not from the file\"}\n".write(toFile: dir + "/b.ndjson", atomically: true, encoding: .utf8)
    }

    private func text(_ sql: String) throws -> String { try db.scalarText(sql) ?? "NULL" }

    @Test func csvFilesNameTheirRows() throws {
        try db.execute("CREATE TABLE t(id INTEGER, n INTEGER, source TEXT)")
        let n = try db.importCSV(contentsOfFiles: [dir + "/*.csv"], into: "t", options: .init(filenameColumn: "source"))
        #expect(n == 3)
        #expect(try text("SELECT group_concat(id || ':' || n || ':' || replace(source, '\(dir)/', ''), ' ') FROM t")
                == "1:10:a.csv 2:20:a.csv 3:30:b.csv")
    }

    @Test func jsonFilesNameTheirRowsAndTheKeyOfThatNameIsNotRead() throws {
        try db.execute("CREATE TABLE t(id INTEGER, source TEXT)")
        let n = try db.importJSON(contentsOfFiles: [dir + "/b.ndjson", dir + "/a.ndjson"], into: "t",
                                  options: .init(layout: .ndjson, filenameColumn: "source"))
        #expect(n == 3)
        #expect(try text("SELECT group_concat(id || ':' || replace(source, '\(dir)/', ''), ' ') FROM t")
                == "3:b.ndjson 1:a.ndjson 2:a.ndjson")
    }

    @Test func oneFileAndBytes() throws {
        try db.execute("CREATE TABLE t(id INTEGER, n INTEGER, source TEXT)")
        try db.importCSV(contentsOfFile: dir + "/a.csv", into: "t", options: .init(filenameColumn: "source"))
        try db.importCSV(bytes: Array("id,n\n9,90\n".utf8), into: "t", options: .init(filenameColumn: "source"))
        #expect(try text("SELECT group_concat(id || ':' || ifnull(replace(source, '\(dir)/', ''), 'NULL'), ' ') FROM t")
                == "1:a.csv 2:a.csv 9:NULL")
    }

    @Test func createTableAddsTheColumn() throws {
        let n = try db.importCSV(contentsOfFiles: [dir + "/*.csv"], into: "made",
                                 options: .init(createTable: true, filenameColumn: "src"))
        #expect(n == 3)
        #expect(try text("SELECT group_concat(name || ' ' || type, ', ') FROM pragma_table_info('made')")
                == "id INTEGER, n INTEGER, src TEXT")
        #expect(try text("SELECT count(*) FROM made WHERE src LIKE '%/b.csv'") == "1")
    }

    @Test func aMissingColumnIsAnError() throws {
        try db.execute("CREATE TABLE t(id INTEGER, n INTEGER)")
        #expect(throws: CSVImportError(message: "filenameColumn: table t has no column source")) {
            try db.importCSV(contentsOfFile: dir + "/a.csv", into: "t", options: .init(filenameColumn: "source"))
        }
        #expect {
            try db.importJSON(contentsOfFile: dir + "/a.ndjson", into: "t",
                              options: .init(layout: .ndjson, filenameColumn: "source"))
        } throws: { ($0 as? Database.JSONImportError)?.message == "filenameColumn: table t has no column source" }
    }
}
