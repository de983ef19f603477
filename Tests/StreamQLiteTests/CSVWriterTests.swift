import Foundation
import Testing
@testable import StreamQLite

/// Tricky values: delimiters, quotes, line ends of every kind, spaces, non-ASCII, empty.
let csvTrickyTexts = [
    "plain", "a,b", "say \"hi\"", "\"", "\"\"", "two\nlines", "cr\rhere", "crlf\r\nend", " padded ",
    "semi;colon", "tab\there", "pipe|bar", "caf\u{e9} \u{20ac} \u{1F600}", "", "NA", "\u{FEFF}bom", ",", "x\"",
]

@Suite struct CSVWriterTests {
    @Test func quotesOnlyWhatNeedsItAndKeepsNullApartFromEmpty() throws {
        let db = try Database()
        let csv = try db.csvString("""
            SELECT 1 AS id, 'a,b' AS t, NULL AS n, '' AS e, 'say "hi"' AS q, 2.5 AS r, 3.0 AS w, x'00ff' AS b
            UNION ALL SELECT 2, 'two' || char(10) || 'lines', 'x', ' sp ', 'cr' || char(13), -0.0, 1e300, NULL
            """)
        #expect(csv == "id,t,n,e,q,r,w,b\r\n"
                + "1,\"a,b\",,\"\",\"say \"\"hi\"\"\",2.5,3.0,AP8=\r\n"
                + "2,\"two\nlines\",x, sp ,\"cr\r\",-0.0,1e+300,\r\n")
    }

    @Test func delimiterNullTextLineEndingHeaderAndBOM() throws {
        let db = try Database()
        let sql = "SELECT 'NA' AS a, NULL AS b, 'x;y' AS c, 'p,q' AS d"
        #expect(try db.csvString(sql, options: .init(delimiter: ";", nullText: "NA", lineEnding: .lf))
                == "a;b;c;d\n\"NA\";NA;\"x;y\";p,q\n")
        #expect(try db.csvString(sql, options: .init(header: false, delimiter: "\t")) == "NA\t\tx;y\tp,q\r\n")
        let bytes = try db.csvBytes("SELECT 'é' AS x", options: .init(byteOrderMark: true))
        #expect(bytes == [0xEF, 0xBB, 0xBF] + Array("x\r\né\r\n".utf8))
        // text starting with a BOM at the very start of the output is quoted (a reader would drop the BOM)
        #expect(try db.csvString("SELECT char(65279) || 'v' AS x", options: .init(header: false)) == "\"\u{FEFF}v\"\r\n")
        #expect(throws: CSVWriterError.self) { try db.csvString("SELECT 1", options: .init(delimiter: "\"")) }
        #expect(throws: CSVWriterError.self) { try db.csvString("SELECT 1", options: .init(delimiter: "é")) }
    }

    /// `''` is written `""` with any NULL text: the reader takes an empty unquoted field for
    /// NULL, so an empty unquoted `''` read back with `null=NA` would be NULL.
    @Test func emptyTextStaysApartFromNullWithANullText() throws {
        let db = try Database()
        let csv = try db.csvString("SELECT '' AS e, NULL AS n", options: .init(nullText: "NA", lineEnding: .lf))
        #expect(csv == "e,n\n\"\",NA\n")
        try db.execute("CREATE TABLE back(e TEXT, n TEXT)")
        try db.importCSV(bytes: Array(csv.utf8), into: "back", options: .init(nullText: "NA"))
        #expect(try db.rows(String?.self, "SELECT quote(e) || '|' || quote(n) FROM back").collect() == ["''|NULL"])
    }

    @Test func invalidUTF8IsReplacedOrRejected() throws {
        let db = try Database()
        let sql = "SELECT CAST(x'61ff62' AS TEXT) AS t"
        #expect(try db.csvString(sql, options: .init(header: false)) == "a\u{FFFD}b\r\n")
        #expect(throws: CSVWriterError.invalidUTF8(row: 0, column: "t", byteOffset: 1)) {
            try db.csvString(sql, options: .init(header: false, invalidUTF8: .reject))
        }
    }

    @Test func writesInChunksIntoAnySink() throws {
        let db = try Database()
        var chunks: [Int] = []
        var all: [UInt8] = []
        var sink = ClosureSink { chunks.append($0.count); all.append(contentsOf: $0) }
        let sql = "WITH RECURSIVE s(v) AS (SELECT 1 UNION ALL SELECT v + 1 FROM s WHERE v < 2000) SELECT v, 'row ' || v FROM s"
        let n = try db.writeCSV(sql, to: &sink, options: .init(chunkSize: 1000))
        #expect(n == 2000)
        #expect(chunks.count > 10 && chunks.allSatisfy { $0 <= 1000 })
        #expect(all == Array(try db.csvString(sql).utf8))
    }

    /// Outside oracle: Python's csv module reads back the same strings.
    @Test func pythonsCSVModuleReadsTheSameValues() throws {
        let db = try Database()
        try db.execute("CREATE TABLE t(i INTEGER, s TEXT, r REAL)")
        for (k, s) in csvTrickyTexts.enumerated() {
            try db.execute("INSERT INTO t VALUES (?, ?, ?)", k * 1_000_000_007 - 5, s, Double(k) / 7 - 1)
        }
        for options in [CSVWriterOptions(), CSVWriterOptions(delimiter: ";", lineEnding: .lf),
                        CSVWriterOptions(delimiter: "\t", quote: "'"), CSVWriterOptions(delimiter: "|")] {
            let bytes = try db.csvBytes("SELECT i, s, r FROM t ORDER BY rowid", options: options)
            let script = """
                import csv, io, json, sys
                data = sys.stdin.buffer.read().decode('utf-8')
                rows = list(csv.reader(io.StringIO(data, newline=''), delimiter=sys.argv[1], quotechar=sys.argv[2], strict=True))
                print(json.dumps(rows))
                """
            let out = try runPython(script, args: [String(options.delimiter), String(options.quote)], input: bytes)
            let rows = try JSONDecoder().decode([[String]].self, from: Data(out.utf8))
            var want = [["i", "s", "r"]]
            for (k, s) in csvTrickyTexts.enumerated() {
                want.append(["\(k * 1_000_000_007 - 5)", s, "\(Double(k) / 7 - 1)"])
            }
            #expect(rows == want, "delimiter \(options.delimiter)")
        }
    }

    /// writeCSV → importCSV: the same values, NULL and '' apart, REALs exact.
    @Test func roundTripThroughImportCSV() throws {
        let db = try Database()
        try db.execute("CREATE TABLE a(i INTEGER, s TEXT, r REAL, n TEXT)")
        try db.execute("CREATE TABLE b(i INTEGER, s TEXT, r REAL, n TEXT)")
        for (k, s) in csvTrickyTexts.enumerated() {
            try db.execute("INSERT INTO a VALUES (?, ?, ?, ?)", k - 9, s, 0.1 * Double(k) + 1e-300, k % 3 == 0 ? nil : s)
        }
        try db.execute("INSERT INTO a VALUES (9223372036854775807, NULL, 1.7976931348623157e308, '')")
        let bytes = try db.csvBytes("SELECT * FROM a")
        #expect(try db.importCSV(bytes: bytes, into: "b") == csvTrickyTexts.count + 1)
        let same = try db.value(Int.self, """
            SELECT count(*) FROM a JOIN b ON a.rowid = b.rowid WHERE a.i IS b.i AND a.s IS b.s AND a.r IS b.r
              AND a.n IS b.n AND typeof(a.s) = typeof(b.s) AND typeof(a.n) = typeof(b.n)
            """)
        #expect(same == csvTrickyTexts.count + 1)
    }
}
