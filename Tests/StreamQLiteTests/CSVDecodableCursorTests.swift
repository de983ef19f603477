import Foundation
import Testing
@testable import StreamQLite

@Suite struct CSVDecodableCursorTests {
    typealias Stop = CSVStopFixture.Stop
    let csv = CSVStopFixture.csv

    @Test func decodesRecordsStraightIntoValues() throws {
        let cursor = try CSVDecodableCursor(Stop.self, bytes: Array(csv.utf8))
        let stops = try cursor.collect()
        #expect(stops == CSVStopFixture.stops)
        #expect(cursor.fieldNames == CSVStopFixture.fieldNames)
    }

    @Test func aFileInSmallChunksGivesTheSameValues() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("csv-records-\(getpid()).csv").path
        try Data(csv.utf8).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        for size in [1, 3, 64, 1 << 16] {
            let a = try CSVDecodableCursor(Stop.self, contentsOfFile: path, options: .init(chunkSize: size)).collect()
            let b = try CSVDecodableCursor(Stop.self, bytes: Array(csv.utf8)).collect()
            #expect(a == b, "chunk size \(size)")
        }
        #expect(throws: CSVImportError.self) { try CSVDecodableCursor(Stop.self, contentsOfFile: "/nonexistent.csv") }
    }

    @Test func conversionErrorsNameLineRecordAndField() throws {
        struct Row: Decodable { var id: Int; var n: UInt8 }
        func message(_ text: String) -> String {
            guard case .failure(let error) = Result(catching: { try CSVDecodableCursor(Row.self, bytes: Array(text.utf8)).collect() })
            else { return "no error" }
            if case let DecodingError.typeMismatch(_, c) = error { return c.debugDescription }
            if case let DecodingError.valueNotFound(_, c) = error { return c.debugDescription }
            if case let DecodingError.keyNotFound(_, c) = error { return c.debugDescription }
            return "\(error)"
        }
        #expect(message("id,n\n1,2\n2,300\n") == "CSV line 3, byte 11, record 1, field 2 (n): '300' is not a UInt8")
        #expect(message("id,n\n1.5,2\n") == "CSV line 2, byte 5, record 0, field 1 (id): '1.5' is not a Int")
        #expect(message("id,n\n,2\n") == "CSV line 2, byte 5, record 0, field 1 (id): NULL for a non-optional Int")
        #expect(message("id\n1\n") == "CSV line 2, byte 3, record 0: no field 'n' in the header (id)")
        #expect(message("id,n\n1,\"2\n") == "CSVDecodableCursor: line 2, byte 7, field 2 (n): unterminated quoted field (the input ends before its closing quote)")
        #expect(message("Id,ID,n\n1,2,3\n").contains("header name 'ID' repeats field 1 ('Id')"))
    }

    @Test func noHeaderNamesAreCNAndOptionsApply() throws {
        struct Pair: Decodable, Equatable { var c1: String; var c2: Int? }
        let pairs = try CSVDecodableCursor(Pair.self, bytes: Array("a;1\nb;NA\n".utf8),
                                        options: .init(header: false, delimiter: ";", nullText: "NA")).collect()
        #expect(pairs == [Pair(c1: "a", c2: 1), Pair(c1: "b", c2: nil)])
    }

    /// The same values through writeCSV → CSVDecodableCursor, and through Python's csv writer.
    @Test func roundTripsWithWriteCSVAndPython() throws {
        struct T: Decodable, Equatable { var i: Int64; var s: String; var r: Double }
        let db = try Database()
        try db.execute("CREATE TABLE t(i INTEGER, s TEXT, r REAL)")
        for (k, s) in csvTrickyTexts.enumerated() { try db.execute("INSERT INTO t VALUES (?, ?, ?)", Int64(k) << 40, s, 1 / Double(k + 3)) }
        let want = csvTrickyTexts.enumerated().map { T(i: Int64($0.offset) << 40, s: $0.element, r: 1 / Double($0.offset + 3)) }
        let viaWriter = try CSVDecodableCursor(T.self, bytes: try db.csvBytes("SELECT i, s, r FROM t"),
                                            options: .init(emptyIsNull: false)).collect()
        #expect(viaWriter == want)
        let script = """
            import csv, io, json, sys
            rows = json.loads(sys.argv[1])
            out = io.StringIO(newline='')
            w = csv.writer(out)
            w.writerow(['i', 's', 'r'])
            for k, s in enumerate(rows):
                w.writerow([k << 40, s, repr(1 / (k + 3))])
            sys.stdout.buffer.write(out.getvalue().encode('utf-8'))
            """
        let json = String(decoding: try JSONEncoder().encode(csvTrickyTexts), as: UTF8.self)
        let viaPython = try CSVDecodableCursor(T.self, bytes: Array(try runPython(script, args: [json]).utf8),
                                            options: .init(emptyIsNull: false)).collect()
        #expect(viaPython == want)
    }
}
