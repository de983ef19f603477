import Foundation
import Testing
@testable import StreamQLite

/// One input, one stored result, whichever way it comes in: Swift `importJSON` and SQL
/// `INSERT … SELECT` from the typed `json_stream` virtual table are two thin drivers of
/// the same C ingest core (`sq_ingest.h`). These tests store the same document through
/// both into tables of the same declared types and compare every value and its type,
/// and check the nested JSON text against Python's `json` as an outside oracle.
///
/// Each case here was a divergence before the core: `"ID"` filled `id` through
/// importJSON and was NULL through json_stream; a nested `\b` was `\b` through one and
/// `\u0008` through the other; `"7"` into a REAL column was 7.0 through one and '7'
/// through the other; dates were normalized by one only; `2.0` into an INTEGER column
/// was 2 through one and 2.0 through the other.
@Suite struct IngestAgreementTests {
    let dir: URL

    init() throws {
        dir = FileManager.default.temporaryDirectory
            .appendingPathComponent("sq-agree-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    }

    /// Columns of both tables: every affinity, date columns, JSON.
    static let columns = """
        n INTEGER PRIMARY KEY, i INTEGER, r REAL, t TEXT, num NUMERIC, u, d DATETIME, dd DATE, j JSON
        """

    static let document = #"""
    [{"n": 1, "I": 12, "R": 12, "T": 12, "NUM": 12, "U": 12},
     {"n": 2, "i": 12.0, "r": 1.50, "t": 1.50, "num": 1.50, "u": 1.50},
     {"n": 3, "i": 9223372036854775807, "r": 9223372036854775808, "t": 123456789012345678901234, "num": 123456789012345678901234, "u": -0},
     {"n": 4, "i": 1e3, "r": 4.9e-324, "t": 1e400, "num": 1e3, "u": 1e400},
     {"n": 5, "i": "12", "r": "7", "t": "x", "num": "12", "u": "", "d": "2024-05-01T14:00:00+02:00", "dd": "2024-05-01"},
     {"n": 6, "i": "x1", "r": "-2.5e-3", "t": "", "num": "", "d": "2024-05-01 12:00:00.5Z", "dd": "2024-02-29T23:59:59.5-01:30"},
     {"n": 7, "i": true, "r": true, "t": true, "num": false, "u": false, "d": "1969-12-31T23:00:00-02:00", "dd": "soon"},
     {"n": 8, "i": null, "r": null, "t": null, "d": "2024-05-01", "dd": 2460431.5},
     {"n": 9, "t": ["a\bb", "\f\n\r\t\"\\\/", "\u0001\u001f\u007f", "é\u2028😀", {"k\tk": {"": []}}],
      "u": {"nested": [true, false, null, {"deep": ["\b"]}]}, "j": ["\u0000", "", {}],
      "i": "9223372036854775808", "r": "abc", "num": "1.5"},
     {"n": 10, "t": {"a": 1.50, "b": [-0, 1e3, 2.5E-3]}, "u": [123456789012345678901234], "j": {"x": "y"}}]
    """#

    /// Stores `document` into `viaImport` with importJSON and into `viaSQL` with
    /// INSERT … SELECT from a json_stream table; returns both tables' rows with types.
    func storeBothWays(_ db: Database, document: String, columns: String = Self.columns,
                       names: String = "n, i, r, t, num, u, d, dd, j") throws -> (imported: [[JSONTestValue]], selected: [[JSONTestValue]]) {
        let file = dir.appendingPathComponent("doc-\(UInt32.random(in: 0...UInt32.max)).json")
        try Data(document.utf8).write(to: file)
        try db.execute("CREATE TABLE viaImport(\(columns))")
        try db.execute("CREATE TABLE viaSQL(\(columns))")
        try db.importJSON(bytes: Array(document.utf8), into: "viaImport")
        let quoted = file.path.replacingOccurrences(of: "'", with: "''")
        let declared = columns.replacingOccurrences(of: " PRIMARY KEY", with: "")
        try db.execute("CREATE VIRTUAL TABLE temp.incoming USING json_stream(filename='\(quoted)', columns='\(declared)')")
        try db.execute("INSERT INTO viaSQL SELECT * FROM incoming")
        let list = names.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        let typed = list.map { c in "\(c), typeof(\(c))" }.joined(separator: ", ")
        return (try jsonTestQuery(db, "SELECT \(typed) FROM viaImport ORDER BY \(list[0])"),
                try jsonTestQuery(db, "SELECT \(typed) FROM viaSQL ORDER BY \(list[0])"))
    }

    @Test func importJSONAndTheJSONStreamTableStoreTheSameValues() throws {
        let db = try Database()
        let (imported, selected) = try storeBothWays(db, document: Self.document)
        #expect(imported.count == 10)
        for (a, b) in zip(imported, selected) {
            #expect(a == b, "importJSON stored \(a), json_stream \(b)")
        }
        // Spot checks of what both stored (the values each divergence got wrong).
        let byN = Dictionary(uniqueKeysWithValues: imported.map { row -> (Int64, [JSONTestValue]) in
            guard case .int(let n) = row[0] else { return (-1, row) }
            return (n, row)
        })
        #expect(byN[1]?[2] == .int(12) && byN[1]?[4] == .real(12) && byN[1]?[6] == .text("12"))  // keys by case
        #expect(byN[2]?[2] == .int(12))                                                          // 12.0 → INTEGER
        #expect(byN[5]?[4] == .real(7))                                                          // "7" → REAL
        #expect(byN[5]?[12] == .text("2024-05-01 12:00:00.000"))                                 // dates normalized
        #expect(byN[6]?[14] == .text("2024-03-01 01:29:59.500"))
        #expect(byN[7]?[4] == .real(1) && byN[7]?[6] == .text("1"))                              // booleans
        #expect(byN[9]?[6] == .text(#"["a\bb","\f\n\r\t\"\\/","\u0001\u001f\#u{7f}","é\#u{2028}😀",{"k\tk":{"":[]}}]"#))
        #expect(byN[3]?[2] == .int(Int64.max) && byN[3]?[8] == .real(1.2345678901234568e+23))
        #expect(byN[4]?[2] == .int(1000) && byN[4]?[4] == .real(.leastNonzeroMagnitude))                      // a subnormal
        #expect(byN[4]?[6] == .text("1e400") && byN[4]?[10] == .text("1e400"))                  // TEXT, untyped: kept
        #expect(byN[3]?[10] == .text("-0"))                                                      // untyped: kept
    }

    /// A number the column would change is an error on both paths, in every mode:
    /// as text, SQLite's affinity would store Inf or 0 all the same.
    @Test func numbersAColumnWouldChangeAreErrorsOnBothPaths() throws {
        for (column, value, words) in [("i INTEGER", "1e400", "beyond the range of a REAL"), ("r REAL", "-1e400", "beyond the range"),
                                       ("r REAL", "1E-400", "too close to zero"), ("i INTEGER", "-0.0", "negative zero"),
                                       ("n NUMERIC", "\"1e999\"", "beyond the range")] {
            let db = try Database()
            let name = column.split(separator: " ")[0]
            let document = "[{\"\(name)\": \(value)}]"
            let file = dir.appendingPathComponent("changed-\(UInt32.random(in: 0...UInt32.max)).json")
            try Data(document.utf8).write(to: file)
            try db.execute("CREATE TABLE t(\(column))")
            #expect { try db.importJSON(bytes: Array(document.utf8), into: "t") } throws: { "\($0)".contains(words) }
            try db.execute("CREATE VIRTUAL TABLE temp.s USING json_stream(filename='\(file.path)', columns='\(column)')")
            #expect { try db.execute("INSERT INTO t SELECT * FROM s") } throws: { "\($0)".contains(words) }
            #expect(try db.scalarText("SELECT count(*) FROM t") == "0")
        }
    }

    @Test func theNestedJSONTextAgreesWithPythonsJSON() throws {
        let dbPath = dir.appendingPathComponent("agree.sqlite").path
        let docPath = dir.appendingPathComponent("agree.json").path
        try Data(Self.document.utf8).write(to: URL(fileURLWithPath: docPath))
        do {
            let db = try Database(path: dbPath)
            _ = try storeBothWays(db, document: Self.document)
        }
        // Python parses the original document and both tables' nested texts: equal values;
        // where no number is involved, Python's own minified text is byte for byte ours.
        let script = #"""
            import json, sqlite3, sys
            doc = json.load(open(sys.argv[2], encoding="utf-8"))
            con = sqlite3.connect(sys.argv[1])
            bad = checked = exact = 0
            def has_number(v):
                if isinstance(v, bool) or v is None or isinstance(v, str): return False
                if isinstance(v, (int, float)): return True
                return any(has_number(x) for x in (v.values() if isinstance(v, dict) else v))
            for table in ("viaImport", "viaSQL"):
                for n, t, u, j in con.execute(f"SELECT n, t, u, j FROM {table} ORDER BY n"):
                    element = next(e for e in doc if e["n"] == n)
                    for name, stored in (("t", t), ("u", u), ("j", j)):
                        original = element.get(name)
                        if not isinstance(original, (dict, list)):
                            continue
                        checked += 1
                        if json.loads(stored) != original:
                            print("value differs", table, n, name, repr(stored)); bad += 1
                        if not has_number(original):
                            exact += 1
                            if stored != json.dumps(original, ensure_ascii=False, separators=(",", ":")):
                                print("text differs", table, n, name, repr(stored)); bad += 1
            print("checked", checked, "exact", exact, "bad", bad)
            """#
        let out = try runPython(script, args: [dbPath, docPath])
        #expect(out.contains("checked 12 exact 8 bad 0"), "\(out)")
    }

    @Test func strictModeRefusesTheSameValuesBothWays() throws {
        // The same lossy value is an error through both drivers, with the same message.
        for (element, expected) in [(#"{"n": 1, "i": 1.5}"#, "1.5 is not an integer, column i is INTEGER (strict mode)"),
                                    (#"{"n": 1, "r": "high"}"#, "'high' is not a number, column r is REAL (strict mode)"),
                                    (#"{"n": 1, "d": "2024-13-01"}"#, "'2024-13-01' is not a date or date-time, column d is a date column (strict mode)"),
                                    (#"{"n": 1, "i": [1]}"#, "a nested array cannot go into INTEGER column i (strict mode)"),
                                    (#"{"n": 1, "zz": 1}"#, "no column for this key (strict mode")] {
            let db = try Database()
            let document = "[" + element + "]"
            try db.execute("CREATE TABLE s(n INTEGER, i INTEGER, r REAL, d DATETIME)")
            let importError = #expect(throws: Database.JSONImportError.self) {
                try db.importJSON(bytes: Array(document.utf8), into: "s", options: .init(strict: true))
            }
            #expect(importError?.message.contains(expected) == true, "\(String(describing: importError))")
            let file = dir.appendingPathComponent("strict-\(UInt32.random(in: 0...UInt32.max)).json")
            try Data(document.utf8).write(to: file)
            try db.execute("CREATE VIRTUAL TABLE temp.st USING json_stream(filename='\(file.path)', columns='n INTEGER, i INTEGER, r REAL, d DATETIME', strict=1)")
            let sqlError = #expect(throws: DatabaseError.self) { try db.execute("INSERT INTO s SELECT * FROM st") }
            #expect(sqlError?.message.contains(expected) == true, "\(String(describing: sqlError))")
        }
    }

    @Test func keysThatDifferOnlyInCaseAreMatchedAndRefusedTheSameWay() throws {
        let db = try Database()
        // "ID" and "Title" fill id and title through both.
        let (imported, selected) = try storeBothWays(db, document: #"[{"ID": 1, "Title": "a"}, {"id": 2, "TITLE": "b"}]"#,
                                                     columns: "id INTEGER, title TEXT", names: "id, title")
        #expect(imported == selected)
        #expect(imported == [[.int(1), .text("integer"), .text("a"), .text("text")], [.int(2), .text("integer"), .text("b"), .text("text")]])
        // Two members for one column are refused through both.
        let document = #"[{"id": 1, "ID": 2}]"#
        let importError = #expect(throws: Database.JSONImportError.self) { try db.importJSON(bytes: Array(document.utf8), into: "viaImport") }
        let file = dir.appendingPathComponent("twice.json")
        try Data(document.utf8).write(to: file)
        try db.execute("CREATE VIRTUAL TABLE temp.twice USING json_stream(filename='\(file.path)', columns='id INTEGER')")
        let sqlError = #expect(throws: DatabaseError.self) { try db.execute("INSERT INTO viaSQL(id) SELECT * FROM twice") }
        let expected = "keys 'id' and 'ID' of one object both match column 'id'"
        #expect(importError?.message == expected)
        #expect(sqlError?.message.contains(expected) == true, "\(String(describing: sqlError))")
    }
}
