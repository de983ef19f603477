import Foundation
import Testing
@testable import StreamQLite

/// ``ImportOptions``: the fields importCSV and importJSON share, set on either format's
/// options as their own or through `common`, and honored the same way by both imports.
@Suite struct ImportOptionsTests {
    let db: Database
    let dir: String

    init() throws {
        db = try Database(path: ":memory:")
        dir = NSTemporaryDirectory() + "import-options-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        // The same records in both formats: id 2's n does not fit an INTEGER column, id 1 comes twice.
        try "id,n\n1,10\n2,x\n3,30\n1,11\n".write(toFile: dir + "/in.csv", atomically: true, encoding: .utf8)
        try "{\"id\":1,\"n\":10}\n{\"id\":2,\"n\":\"x\"}\n{\"id\":3,\"n\":30}\n{\"id\":1,\"n\":11}\n"
            .write(toFile: dir + "/in.ndjson", atomically: true, encoding: .utf8)
        try db.execute("CREATE TABLE c(id INTEGER PRIMARY KEY, n INTEGER, source TEXT)")
        try db.execute("CREATE TABLE j(id INTEGER PRIMARY KEY, n INTEGER, source TEXT)")
    }

    private func text(_ sql: String) throws -> String { try db.scalarText(sql) ?? "NULL" }

    @Test func theSharedFieldsAreSetThroughEitherOptionsOrCommon() {
        var csv = CSVImportOptions(delimiter: ";")
        csv.strict = true
        csv.batchSize = 7
        csv.onConflict = .ignore
        csv.onError = .skip
        csv.maxErrors = .count(3)
        csv.rejectTable = "rej"
        csv.filenameColumn = "source"
        csv.renames["title"] = "name"
        #expect(csv.common.strict && csv.common.batchSize == 7 && csv.common.onConflict == .ignore)
        #expect(csv.common.onError == .skip && csv.common.maxErrors == .count(3))
        #expect(csv.common.rejectTable == "rej" && csv.common.filenameColumn == "source")
        #expect(csv.common.renames == ["title": "name"] && csv.delimiter == ";")

        var json = JSONImportOptions(layout: .ndjson)
        json.common = csv.common
        #expect(json.strict && json.batchSize == 7 && json.onConflict == .ignore && json.onError == .skip)
        #expect(json.rejectTable == "rej" && json.filenameColumn == "source" && json.layout == .ndjson)
        json.common.batchSize = 9
        #expect(json.batchSize == 9 && csv.batchSize == 7)

        // The initializers of before fill `common`; the format's own fields stay its own.
        let oldCSV = CSVImportOptions(header: false, strict: true, onConflict: .replace, batchSize: 3, filenameColumn: "f")
        #expect(!oldCSV.header && oldCSV.common.strict && oldCSV.common.onConflict == .replace)
        #expect(oldCSV.common.batchSize == 3 && oldCSV.common.filenameColumn == "f" && oldCSV.common.chunkSize == 256 * 1024)
        let oldJSON = JSONImportOptions(layout: .ndjson, strict: true, inferRecords: 5, batchSize: 3)
        #expect(oldJSON.common.strict && oldJSON.common.inferRecords == 5 && oldJSON.common.batchSize == 3)
        #expect(!ImportOptions().strict && ImportOptions().batchSize == 50 && ImportOptions().onError == .abort)

        // The batched INSERT of either import takes its options from `common`.
        #expect(csv.common.insertOptions.batchSize == 7 && csv.common.insertOptions.onConflict == .ignore)
    }

    @Test func bothImportsHonorOneImportOptionsAlike() throws {
        var common = ImportOptions(onConflict: .ignore, batchSize: 2, onError: .skip, filenameColumn: "source")
        common.rejectTable = "rej"
        try db.importCSV(contentsOfFile: dir + "/in.csv", into: "c", options: CSVImportOptions(common: common))
        try db.importJSON(contentsOfFile: dir + "/in.ndjson", into: "j",
                          options: JSONImportOptions(layout: .ndjson, common: common))
        // onConflict .ignore keeps the first id 1; .skip rejects id 2 into rej; source names the file.
        #expect(try text("SELECT group_concat(id || ':' || n || ':' || replace(source, '\(dir)/', ''), ' ') FROM c")
                == "1:10:in.csv 3:30:in.csv")
        #expect(try text("SELECT group_concat(id || ':' || n || ':' || replace(source, '\(dir)/', ''), ' ') FROM j")
                == "1:10:in.ndjson 3:30:in.ndjson")
        #expect(try text("SELECT group_concat(replace(file, '\(dir)/', '') || '/' || line || '/' || record || '/' || \"column\", ' ') FROM rej")
                == "in.csv/3/1/n in.ndjson/2/1/n")

        // strict, set in `common`: a name without a column is an error in both formats
        common.strict = true
        common.onError = .abort
        let extraCSV = Array("id,n,extra\n5,50,z\n".utf8)
        let extraJSON = Array("{\"id\":5,\"n\":50,\"extra\":\"z\"}\n".utf8)
        #expect(throws: CSVImportError.self) {
            try db.importCSV(bytes: extraCSV, into: "c", options: CSVImportOptions(common: common))
        }
        #expect(throws: Database.JSONImportError.self) {
            try db.importJSON(bytes: extraJSON, into: "j", options: JSONImportOptions(layout: .ndjson, common: common))
        }
        // turned off through each format's options: both ignore it; bytes have no file name
        var csv = CSVImportOptions(common: common)
        csv.strict = false
        var json = JSONImportOptions(layout: .ndjson, common: common)
        json.strict = false
        #expect(try db.importCSV(bytes: extraCSV, into: "c", options: csv) == 1)
        #expect(try db.importJSON(bytes: extraJSON, into: "j", options: json) == 1)
        #expect(try text("SELECT n || ':' || ifnull(source, 'NULL') FROM c WHERE id = 5") == "50:NULL")
        #expect(try text("SELECT n || ':' || ifnull(source, 'NULL') FROM j WHERE id = 5") == "50:NULL")

        // maxErrors in `common` bounds the rejects of both: none allowed, the bad record stops both
        common.strict = false
        common.onError = .skip
        common.maxErrors = .count(0)
        #expect(throws: CSVImportError.self) {
            try db.importCSV(contentsOfFile: dir + "/in.csv", into: "c", options: CSVImportOptions(common: common))
        }
        #expect(throws: Database.JSONImportError.self) {
            try db.importJSON(contentsOfFile: dir + "/in.ndjson", into: "j",
                              options: JSONImportOptions(layout: .ndjson, common: common))
        }
        #expect(try text("SELECT count(*) FROM c") == "3")
        #expect(try text("SELECT count(*) FROM j") == "3")
        #expect(try text("SELECT count(*) FROM rej") == "2")
    }
}
