import Foundation
import Testing
@testable import StreamQLite

private func csvChunks(_ bytes: [UInt8], size: Int) -> AsyncStream<[UInt8]> {
    AsyncStream { continuation in
        var i = 0
        while i < bytes.count {
            continuation.yield(Array(bytes[i..<min(i + size, bytes.count)]))
            i += size
        }
        continuation.finish()
    }
}

@Suite struct CSVImportTests {
    let db: Database

    init() throws {
        db = try Database()
        try db.execute("""
            CREATE TABLE people(id INTEGER PRIMARY KEY, name TEXT NOT NULL, amount REAL, born DATE,
                                seen DATETIME, note TEXT, kind TEXT DEFAULT 'person')
            """)
    }

    private func rows(_ sql: String) throws -> [String] {
        // one string per record (records end with CRLF; fields may hold LF), NULL as <null>
        try db.csvString(sql, options: .init(header: false, nullText: "<null>"))
            .components(separatedBy: "\r\n").dropLast()
    }

    @Test func headerNamesRenamesAndCoercionByDeclaredType() throws {
        let csv = #"""
            ID,Name,amount,date_of_birth,seen,note,extra
            1,"Smith, John",12.50,1990-05-01,2024-05-01T14:00:00+02:00,"say ""hi""",x
            2,Doe,,1985-01-31,2024-05-02 10:00:00,,y
            3,"two
            lines",7,,,"",z
            """#
        var reports: [ImportProgress] = []
        let n = try db.importCSV(bytes: Array(csv.utf8), into: "people",
                                 options: .init(renames: ["date_of_birth": "born"]), progress: { reports.append($0) })
        #expect(n == 3)
        #expect(try rows("SELECT id, name, amount, typeof(amount), born, seen, quote(note), kind FROM people") == [
            "1,\"Smith, John\",12.5,real,1990-05-01,2024-05-01 12:00:00.000,\"'say \"\"hi\"\"'\",person",
            "2,Doe,<null>,null,1985-01-31,2024-05-02 10:00:00.000,NULL,person",
            "3,\"two\nlines\",7.0,real,<null>,<null>,'',person",
        ])
        #expect(reports.last == ImportProgress(bytes: csv.utf8.count, rows: 3))
    }

    @Test func optionsDelimiterQuoteNullEmptyPadAndNoHeader() throws {
        try db.execute("CREATE TABLE t(a TEXT, b TEXT, c INTEGER)")
        try db.importCSV(bytes: Array("x;'p;q';NA\ny;;\n".utf8), into: "t",
                         options: .init(header: false, delimiter: ";", quote: "'", nullText: "NA"))
        try db.importCSV(bytes: Array("a\tb\tc\n\"q\t\t5\nz\n".utf8), into: "t",
                         options: .init(delimiter: "\t", quote: nil, emptyIsNull: false, padShortRecords: true))
        #expect(try rows("SELECT quote(a), quote(b), quote(c) FROM t") == [
            "'x','p;q',NULL", "'y',NULL,NULL", "\"'\"\"q'\",'',5", "'z',NULL,NULL",
        ])
    }

    @Test func errorsNameLineByteAndFieldAndImportNothing() throws {
        func failure(_ csv: String, _ options: CSVImportOptions = .init()) -> CSVImportError? {
            do {
                try db.importCSV(bytes: Array(csv.utf8), into: "people", options: options)
                return nil
            } catch let e as CSVImportError { return e } catch { return CSVImportError(message: "\(error)") }
        }
        let header = "id,name,amount\n"
        let unterminated = failure(header + "1,a,1\n2,\"open\n")
        #expect(unterminated == CSVImportError(message: "unterminated quoted field (the input ends before its closing quote)",
                                               line: 3, byteOffset: 23, record: 1, field: 2, fieldName: "name"))
        #expect(unterminated?.description == "importCSV: line 3, byte 23, field 2 (name): unterminated quoted field (the input ends before its closing quote)")
        #expect(failure(header + "1,5\" pipe,1\n")?.message.hasPrefix("quote character inside an unquoted field") == true)
        #expect(failure(header + "1,a\n")?.message == "record has 2 fields, the first record has 3")
        #expect(failure(header + "1,\"a\"b,1\n")?.byteOffset == 20)
        #expect(failure("id,name,ID\n1,2,3\n")?.message.contains("header name 'ID' repeats field 1 ('id')") == true)
        #expect(failure("")?.message == "empty file: no header")
        let strict = failure(header + "x,a,1\n", .init(strict: true))
        #expect(strict?.field == 1 && strict?.fieldName == "id" && strict?.line == 2
                && strict?.message.contains("is not an integer") == true)
        let constraint = failure(header + "1,a,1\n2,,2\n")
        #expect(constraint?.message == "NOT NULL constraint failed: people.name" && constraint?.line == 3 && constraint?.record == 1)
        var bad = Array((header + "1,caf").utf8)
        bad += [0xE9, 0x2C, 0x31, 0x0A]
        #expect((try? db.importCSV(bytes: bad, into: "people")) == nil)
        #expect(try db.value(Int.self, "SELECT count(*) FROM people") == 0)
        #expect(throws: CSVImportError.self) { try db.importCSV(contentsOfFile: "/nonexistent/x.csv", into: "people") }
        #expect(throws: CSVImportError.self) { try db.importCSV(contentsOfFile: "/tmp", into: "people") }
        #expect(throws: (any Error).self) { try db.importCSV(bytes: Array(header.utf8), into: "nope") }
    }

    @Test func createTableFromTheHeaderWithInferredTypes() throws {
        let csv = "zip,qty,price,when,flag\n02134,1,2.50,2024-05-01,true\n90210,2,3,2024-05-02,false\n"
        #expect(try db.importCSV(bytes: Array(csv.utf8), into: "shop", options: .init(createTable: true)) == 2)
        #expect(try rows("SELECT name || ' ' || type FROM pragma_table_info('shop')")
                == ["zip TEXT", "qty INTEGER", "price REAL", "when DATE", "flag TEXT"])
        #expect(try rows("SELECT zip, qty, typeof(qty), price FROM shop") == ["02134,1,integer,2.5", "90210,2,integer,3.0"])
        // a later value that does not fit: an error with its line; nothing created or stored
        let late = "id,qty\n1,10\n2,20\n3,N/A\n"
        do {
            try db.importCSV(bytes: Array(late.utf8), into: "late", options: .init(createTable: true, inferRecords: 2))
            Issue.record("expected an error")
        } catch let e as CSVImportError {
            #expect(e.line == 4 && e.field == 2 && e.fieldName == "qty" && e.message.hasPrefix("'N/A' is not an integer"))
        }
        #expect(try db.value(Int.self, "SELECT count(*) FROM sqlite_master WHERE name = 'late'") == 0)
    }

    /// ``CSVImportOptions/nullTexts``: several texts read as NULL (unquoted only), with
    /// ``CSVImportOptions/nullText``; the inference then sees numbers.
    @Test func severalNullTexts() throws {
        let csv = "a,b\n1,NA\n-,2\n\\N,\"NA\"\n"
        var o = CSVImportOptions(nullText: "\\N", createTable: true)
        o.nullTexts = ["NA", "-"]
        #expect(try db.importCSV(bytes: Array(csv.utf8), into: "nulls", options: o) == 3)
        #expect(try rows("SELECT quote(a), quote(b) FROM nulls") == ["1,NULL", "NULL,'2'", "NULL,'NA'"])
        #expect(try rows("SELECT name || ' ' || type FROM pragma_table_info('nulls')") == ["a INTEGER", "b TEXT"])
    }

    /// ``ImportOptions/columnTypes``: the declared type replaces the inferred one; a
    /// declared INTEGER checks every value, and a value that does not fit says the type was
    /// declared; a name the file lacks is an error.
    @Test func declaredColumnTypesReplaceTheInferredOnes() throws {
        let csv = "id,code,amount\n1,007,5\n2,042,6.5\n"
        var o = CSVImportOptions(createTable: true, columnTypes: ["CODE": "TEXT", "amount": "NUMERIC"])
        #expect(try db.importCSV(bytes: Array(csv.utf8), into: "typed", options: o) == 2)
        #expect(try rows("SELECT name || ' ' || type FROM pragma_table_info('typed')") == ["id INTEGER", "code TEXT", "amount NUMERIC"])
        #expect(try rows("SELECT code FROM typed") == ["007", "042"])
        o.columnTypes = ["code": "INTEGER"]
        do {
            try db.importCSV(bytes: Array("id,code\n1,7\n2,x7\n".utf8), into: "strict", options: o)
            Issue.record("expected an error")
        } catch let e as CSVImportError {
            #expect(e.line == 3 && e.message == "'x7' is not an integer written canonically (no leading zeros, no sign +, within 64 bits), "
                    + "the type INTEGER its column was declared with", "\(e)")
        }
        o.columnTypes = ["nope": "TEXT"]
        #expect(throws: CSVImportError(message: "columnTypes: the input has no column nope (its columns: id, code, amount)")) {
            try db.importCSV(bytes: Array(csv.utf8), into: "typo", options: o)
        }
        #expect(try db.value(Int.self, "SELECT count(*) FROM sqlite_master WHERE name IN ('strict', 'typo')") == 0)
    }

    /// Timestamps with `T`, `Z` or an offset are inferred DATETIME and stored as the one date
    /// text (UTC): `>=` with a bound `Date` compares instants, as Python's `zoneinfo` does.
    @Test func inferredTimestampsCompareWithBoundDates() throws {
        var csv = "sold_at,n\n"
        var want = 0
        let cut = Date(timeIntervalSince1970: 1_735_707_600)            // 2025-01-01T05:00:00Z
        for i in 0..<600 {
            let at = Date(timeIntervalSince1970: 1_735_660_800 + Double(i) * 151)   // from 2025-01-01T00:00Z
            let f = ISO8601DateFormatter()
            f.timeZone = TimeZone(secondsFromGMT: [0, 3600 * 5, -3600 * 8][i % 3])
            csv += f.string(from: at) + ",\(i)\n"                    // 2025-01-01T08:51:00Z, …+05:00, …-08:00
            if at >= cut { want += 1 }
        }
        try db.importCSV(bytes: Array(csv.utf8), into: "sales", options: .init(createTable: true))
        #expect(try rows("SELECT type FROM pragma_table_info('sales') WHERE name = 'sold_at'") == ["DATETIME"])
        #expect(try db.value(Int.self, "SELECT count(*) FROM sales WHERE sold_at >= ?", cut) == want)
        // a bare date in a declared DATETIME column is that midnight's text, equal to the Date
        try db.execute("CREATE TABLE days(at DATETIME)")
        try db.importCSV(bytes: Array("at\n2024-05-02\n".utf8), into: "days")
        #expect(try db.value(Int.self, "SELECT count(*) FROM days WHERE at = ?", Date(timeIntervalSince1970: 1_714_608_000)) == 1)
    }

    @Test func fromAsyncChunksOfAnySizeAndFromAFile() async throws {
        var csv = "id,name,amount\n"
        for i in 1...300 { csv += "\(i),\"n,\(i)\",\(Double(i) / 4)\n" }
        let bytes = Array(csv.utf8)
        for size in [1, 7, 4096] {
            try db.execute("DELETE FROM people")
            #expect(try await db.importCSV(from: csvChunks(bytes, size: size), into: "people") == 300)
            #expect(try db.value(String.self, "SELECT group_concat(name || amount, '') FROM (SELECT * FROM people ORDER BY id)")
                    == (1...300).map { "n,\($0)\(Double($0) / 4)" }.joined())
        }
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("csv-import-\(getpid()).csv").path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        try db.execute("DELETE FROM people")
        #expect(try db.importCSV(contentsOfFile: path, into: "people", options: .init(chunkSize: 100)) == 300)
        // created from a file with inference, read in small chunks
        #expect(try db.importCSV(contentsOfFile: path, into: "inferred", options: .init(createTable: true, inferRecords: 5, chunkSize: 64)) == 300)
        #expect(try rows("SELECT type FROM pragma_table_info('inferred')") == ["INTEGER", "TEXT", "REAL"])
    }

    @Test func cancellationRollsBack() async throws {
        let path = FileManager.default.temporaryDirectory
            .appendingPathComponent("csv-cancel-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).sqlite").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Database(path: path).execute("CREATE TABLE c(id INTEGER PRIMARY KEY, name TEXT)")
        let stream = AsyncStream<[UInt8]> { continuation in
            let producer = Task {
                continuation.yield(Array("id,name\n".utf8))
                for i in 0..<100 {
                    if Task.isCancelled { break }
                    continuation.yield(Array("\(i),n\(i)\n".utf8))
                    try? await Task.sleep(for: .milliseconds(10))
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in producer.cancel() }
        }
        let task = Task { () -> Int in
            let db = try Database(path: path)
            return try await db.importCSV(from: stream, into: "c")
        }
        try await Task.sleep(for: .milliseconds(150))
        task.cancel()
        let result = await task.result
        #expect(throws: CancellationError.self) { try result.get() }
        #expect(try Database(path: path).value(Int.self, "SELECT count(*) FROM c") == 0)
    }

    /// One file through importCSV and through INSERT … SELECT from the typed csv_stream
    /// table (the same C reader, driver and ingest core): identical values and types.
    @Test func importCSVAndTheTypedTableStoreTheSame() throws {
        var csv = "ID,name,amount,born,seen,note\n"
        let notes = ["", "\"\"", "x", "\"say \"\"hi\"\"\"", "12", "\"a,b\"", "NA"]
        for i in 1...200 {
            let amount = i % 7 == 0 ? "" : i % 5 == 0 ? "abc" : i % 3 == 0 ? "\(i)" : "\(Double(i) / 8)"
            let born = i % 4 == 0 ? "1990-02-30" : "19\(50 + i % 50)-0\(1 + i % 9)-1\(i % 10)"
            let seen = "2024-05-0\(1 + i % 9)T1\(i % 10):00:00\(i % 2 == 0 ? "Z" : "+02:00")"
            csv += "\(i),\"n\(i)\",\(amount),\(born),\(seen),\(notes[i % notes.count])\n"
        }
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("csv-agree-\(getpid()).csv").path
        try Data(csv.utf8).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        try db.execute("CREATE TABLE other AS SELECT * FROM people WHERE 0")
        try db.importCSV(contentsOfFile: path, into: "people", options: .init(nullText: "NA"))
        try db.execute("""
            CREATE VIRTUAL TABLE temp.incoming USING csv_stream(filename='\(path)', null=NA,
              columns='id INTEGER, name TEXT NOT NULL, amount REAL, born DATE, seen DATETIME, note TEXT')
            """)
        try db.execute("INSERT INTO other(id, name, amount, born, seen, note) SELECT * FROM incoming")
        let differing = try db.value(Int.self, """
            SELECT count(*) FROM people p JOIN other o USING (id)
            WHERE NOT (p.name IS o.name AND p.amount IS o.amount AND typeof(p.amount) = typeof(o.amount)
                       AND p.born IS o.born AND p.seen IS o.seen AND p.note IS o.note AND typeof(p.note) = typeof(o.note))
            """)
        #expect(try db.value(Int.self, "SELECT count(*) FROM other") == 200)
        #expect(differing == 0)
        // and the coercions happened: REAL, text kept, dates normalized, '' vs NULL
        #expect(try rows("SELECT typeof(amount), count(*) FROM people GROUP BY 1 ORDER BY 1")
                == ["null,28", "real,137", "text,35"])
        #expect(try db.value(String.self, "SELECT seen FROM people WHERE id = 1") == "2024-05-02 09:00:00.000")
    }

    /// Outside oracle: what Python's csv module writes, importCSV stores as the same strings.
    @Test func pythonWrittenCSVIsStoredAsTheSameValues() throws {
        try db.execute("CREATE TABLE t(a TEXT, b TEXT, c TEXT)")
        let values = csvTrickyTexts.filter { !$0.hasPrefix("\u{FEFF}") }
        let script = """
            import csv, io, json, sys
            values = json.loads(sys.argv[1])
            out = io.StringIO(newline='')
            w = csv.writer(out, delimiter=sys.argv[2], lineterminator=sys.argv[3])
            w.writerow(['a', 'b', 'c'])
            for i, v in enumerate(values):
                w.writerow([v, values[(i + 1) % len(values)], str(i)])
            sys.stdout.buffer.write(out.getvalue().encode('utf-8'))
            """
        let json = String(decoding: try JSONEncoder().encode(values), as: UTF8.self)
        for (delimiter, eol) in [(",", "\r\n"), (";", "\r\n"), ("\t", "\r\n"), ("|", "\r\n")] {
            try db.execute("DELETE FROM t")
            let csv = try runPython(script, args: [json, delimiter, eol])
            // Python writes '' as an empty field: read empty fields as ''
            try db.importCSV(bytes: Array(csv.utf8), into: "t",
                             options: .init(delimiter: Unicode.Scalar(delimiter)!, emptyIsNull: false))
            var got: [[String]] = []
            try db.rows("SELECT a, b, c FROM t ORDER BY rowid").forEach { row in
                got.append([try row.decode(String.self, at: 0), try row.decode(String.self, at: 1), try row.decode(String.self, at: 2)])
            }
            let want = values.enumerated().map { [$0.element, values[($0.offset + 1) % values.count], "\($0.offset)"] }
            #expect(got == want, "delimiter \(delimiter)")
        }
    }
}
