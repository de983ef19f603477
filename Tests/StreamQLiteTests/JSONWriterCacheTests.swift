import Foundation
import Testing
@testable import StreamQLite

/// `writeJSON` keeps the escaped column names with the cached statement and the output
/// buffer with the connection: what it writes must still follow the statement's current
/// columns, the options of each call, and nested or interleaved calls.
@Suite struct JSONWriterCacheTests {
    func database() throws -> Database {
        let db = try Database()
        try db.execute("CREATE TABLE p(first TEXT, last TEXT)")
        try db.execute("INSERT INTO p VALUES ('Ada', 'Lovelace')")
        return db
    }

    func json(_ db: Database, _ sql: String, _ options: JSONWriterOptions = JSONWriterOptions()) throws -> String {
        var out: [UInt8] = []
        try db.writeJSON(sql, to: &out, options: options)
        return String(decoding: out, as: UTF8.self)
    }

    // The same number of columns under other names: only the re-prepare tells.
    @Test func renamedColumnBetweenTwoCallsOfTheCachedStatement() throws {
        let db = try database()
        #expect(try json(db, "SELECT * FROM p") == #"[{"first":"Ada","last":"Lovelace"}]"#)
        try db.execute("ALTER TABLE p RENAME COLUMN first TO given")
        #expect(try json(db, "SELECT * FROM p") == #"[{"given":"Ada","last":"Lovelace"}]"#)
    }

    @Test func reorderedColumnsBetweenTwoCallsOfTheCachedStatement() throws {
        let db = try database()
        let options = JSONWriterOptions(format: .ndjson)
        #expect(try json(db, "SELECT * FROM p", options) == "{\"first\":\"Ada\",\"last\":\"Lovelace\"}\n")
        try db.execute("DROP TABLE p")
        try db.execute("CREATE TABLE p(last TEXT, first TEXT)")
        try db.execute("INSERT INTO p(first, last) VALUES ('Grace', 'Hopper')")
        #expect(try json(db, "SELECT * FROM p", options) == "{\"last\":\"Hopper\",\"first\":\"Grace\"}\n")
    }

    @Test func aHeldStatementFollowsARename() throws {
        let db = try database()
        let statement = try db.cachedStatement("SELECT * FROM p")
        #expect(try json(db, "SELECT * FROM p") == #"[{"first":"Ada","last":"Lovelace"}]"#)
        try db.execute("ALTER TABLE p RENAME COLUMN last TO family")
        #expect(try json(db, "SELECT * FROM p") == #"[{"first":"Ada","family":"Lovelace"}]"#)
        _ = statement
    }

    // One statement, other options each call: the prefixes are made for the options asked.
    @Test func optionsChangeBetweenCallsOfOneStatement() throws {
        let db = try database()
        let sql = "SELECT first, last AS \"la\u{2028}st\" FROM p"
        #expect(try json(db, sql) == "[{\"first\":\"Ada\",\"la\\u2028st\":\"Lovelace\"}]")
        #expect(try json(db, sql, JSONWriterOptions(format: .arrayOfArrays)) == #"[["Ada","Lovelace"]]"#)
        #expect(try json(db, sql, JSONWriterOptions(escapeLineSeparators: false)) == "[{\"first\":\"Ada\",\"la\u{2028}st\":\"Lovelace\"}]")
        #expect(try json(db, sql, JSONWriterOptions(prettyPrinted: true)) == "[\n  {\n    \"first\": \"Ada\",\n    \"la\\u2028st\": \"Lovelace\"\n  }\n]")
        #expect(try json(db, "SELECT '[1]' AS first", JSONWriterOptions(rawJSONColumns: ["first"])) == #"[{"first":[1]}]"#)
        #expect(try json(db, "SELECT '[1]' AS first") == #"[{"first":"[1]"}]"#)
        #expect(try json(db, sql, JSONWriterOptions(format: .ndjson)) == "{\"first\":\"Ada\",\"la\\u2028st\":\"Lovelace\"}\n")
    }

    // A sink that runs writeJSON on the same connection while the outer call writes:
    // the outer call holds the connection's buffer, the inner one gets its own.
    @Test func nestedWriteJSONOnOneConnection() throws {
        let db = try database()
        try db.execute("CREATE TABLE n(x INTEGER)")
        try db.execute("WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 3000) INSERT INTO n SELECT i FROM c")
        var inner: [UInt8] = []
        var outer: [UInt8] = []
        var sink = ClosureSink { chunk in
            outer.append(contentsOf: chunk)
            try db.writeJSON("SELECT first FROM p", to: &inner, options: JSONWriterOptions(chunkSize: 64))
        }
        try db.writeJSON("SELECT x FROM n", to: &sink, options: JSONWriterOptions(chunkSize: 64))
        let expected = "[" + (1...3000).map { "{\"x\":\($0)}" }.joined(separator: ",") + "]"
        #expect(String(decoding: outer, as: UTF8.self) == expected)
        let calls = String(decoding: inner, as: UTF8.self).components(separatedBy: #"[{"first":"Ada"}]"#).count - 1
        #expect(calls > 100 && inner.count == calls * #"[{"first":"Ada"}]"#.utf8.count)
        // And the connection's buffer still works for the next call.
        #expect(try json(db, "SELECT count(*) AS n FROM n") == #"[{"n":3000}]"#)
    }

    // A writer fed by hand (no statement) over two results with other columns (NDJSON).
    @Test func aWriterFedTwoResultsWritesEachOnesNames() throws {
        let db = try database()
        var writer = JSONRowWriter(sink: [UInt8](), options: JSONWriterOptions(format: .ndjson))
        try db.stream("SELECT first FROM p", into: &writer)
        try db.stream("SELECT last FROM p", into: &writer)
        try db.stream("SELECT first AS last FROM p", into: &writer)
        #expect(String(decoding: writer.sink as! [UInt8], as: UTF8.self)
                == "{\"first\":\"Ada\"}\n{\"last\":\"Lovelace\"}\n{\"last\":\"Ada\"}\n")
    }

    @Test func booleanColumns() throws {
        let db = try Database()
        try db.execute("CREATE TABLE t(id INTEGER, done)")  // no affinity: 1.0 stays REAL
        try db.execute("INSERT INTO t VALUES (1, 1), (2, 0), (3, NULL)")
        let options = JSONWriterOptions(booleanColumns: ["done"])
        #expect(try json(db, "SELECT id, done FROM t ORDER BY id", options)
                == #"[{"id":1,"done":true},{"id":2,"done":false},{"id":3,"done":null}]"#)
        #expect(try json(db, "SELECT id, done FROM t ORDER BY id", JSONWriterOptions(format: .arrayOfArrays, booleanColumns: ["done"]))
                == #"[[1,true],[2,false],[3,null]]"#)
        // Same statement without the option: integers again.
        #expect(try json(db, "SELECT id, done FROM t ORDER BY id") == #"[{"id":1,"done":1},{"id":2,"done":0},{"id":3,"done":null}]"#)
        // Anything but 0, 1 and NULL is refused, naming row, column and value.
        for (value, shown) in [("2", "2"), ("-1", "-1"), ("1.0", "the REAL 1.0"), ("'true'", "the TEXT 'true'"),
                               ("x'01'", "a BLOB of 1 bytes")] {
            try db.execute("DELETE FROM t")
            try db.execute("INSERT INTO t VALUES (1, 1), (2, \(value))")
            let sql = "SELECT id, done FROM t ORDER BY id"
            #expect(throws: JSONWriterError.notBoolean(row: 1, column: "done", value: shown)) {
                try json(db, sql, options)
            }
        }
        #expect(throws: JSONWriterError.notBoolean(row: 0, column: "done", value: "the JSON 'true'")) {
            try json(db, "SELECT json('true') AS done", options)
        }
        #expect(JSONWriterError.notBoolean(row: 1, column: "done", value: "2").description
                == "JSON output: row 1, column 'done' is declared boolean but holds 2 (only 0, 1 and NULL are booleans)")
    }

    // json('true') and friends are embedded without the parser; anything else still is checked.
    @Test func jsonLiteralsAndOtherShortValues() throws {
        let db = try Database()
        #expect(try json(db, "SELECT json('true') AS a, json('false') AS b, json('null') AS c, json('1') AS d, json('\"x\"') AS e")
                == #"[{"a":true,"b":false,"c":null,"d":1,"e":"x"}]"#)
        #expect(throws: JSONWriterError.self) {
            try json(db, "SELECT 'nul' AS a", JSONWriterOptions(rawJSONColumns: ["a"]))
        }
        #expect(throws: JSONWriterError.self) {
            try json(db, "SELECT 'tru e' AS a", JSONWriterOptions(rawJSONColumns: ["a"]))
        }
        #expect(throws: JSONWriterError.self) {
            try json(db, "SELECT 'nulL' AS a", JSONWriterOptions(rawJSONColumns: ["a"]))
        }
    }
}
