import Foundation
import Synchronization
import Testing
@testable import StreamQLite

/// ``ImportOptions/createTable``: a missing table made from the keys of the first
/// elements, typed by CSV's inference rule (`sq_csv_value_fits`), the rest read in strict mode.
@Suite struct JSONCreateTableTests {
    let db: Database

    init() throws {
        db = try Database(path: ":memory:")
    }

    private func text(_ sql: String) throws -> String { try db.scalarText(sql) ?? "NULL" }

    private func columns(_ table: String) throws -> String {
        try text("SELECT group_concat(name || ' ' || type, ', ') FROM (SELECT * FROM pragma_table_info('\(table)') ORDER BY cid)")
    }

    private func tableExists(_ table: String) throws -> Bool {
        try db.value(Int.self, "SELECT count(*) FROM sqlite_master WHERE name = ?", table) == 1
    }

    /// ``ImportOptions/columnTypes``: the declared type replaces the inferred one; a key the
    /// inferred elements lack is an error.
    @Test func declaredColumnTypesReplaceTheInferredOnes() throws {
        var o = JSONImportOptions(createTable: true)
        o.columnTypes = ["code": "TEXT"]
        #expect(try db.importJSON(bytes: Array(#"[{"id":1,"code":"007"},{"id":2,"code":"042"}]"#.utf8), into: "t", options: o) == 2)
        #expect(try columns("t") == "id INTEGER, code TEXT")
        #expect(try text("SELECT group_concat(code) FROM t") == "007,042")
        o.columnTypes = ["nope": "TEXT"]
        #expect(throws: Database.JSONImportError.self) { try db.importJSON(bytes: Array(#"[{"id":1}]"#.utf8), into: "u", options: o) }
        #expect(try !tableExists("u"))
    }

    @Test func keysDifferingBetweenElementsAreColumnsInFirstSeenOrderAndMissingKeysAreNull() throws {
        let json = #"[{"b":1,"a":"x"},{"c":true,"b":2},{"A":"y","d":null},{}]"#
        #expect(try db.importJSON(bytes: Array(json.utf8), into: "t", options: .init(createTable: true)) == 4)
        // "A" is column a (keys equal ignoring ASCII case are one column, as the core matches them)
        #expect(try columns("t") == "b INTEGER, a TEXT, c INTEGER, d TEXT")
        #expect(try text("SELECT group_concat(quote(b) || '|' || quote(a) || '|' || quote(c) || '|' || quote(d), ' ') FROM t")
                == "1|'x'|NULL|NULL 2|NULL|1|NULL NULL|'y'|NULL|NULL NULL|NULL|NULL|NULL")
    }

    @Test func typesAreInferredByCSVsRuleOnWhatTheValuesAreStoredAs() throws {
        let ndjson = """
            {"int":1,"real":1.5,"mixed":1,"zip":"02134","numtext":"12","day":"2024-05-01","at":"2024-05-01T14:00:00+02:00","flag":true,"flagnum":false,"huge":12345678901234567890,"inf":1e400,"nested":{"k":[1,2]},"list":[1],"none":null,"strnum":"x","one":1.0}
            {"int":-7,"real":2,"mixed":2.25,"zip":"90210","numtext":"13","day":"2024-05-02","at":"2024-05-02","flag":false,"flagnum":2.5,"huge":1,"inf":1,"nested":[],"list":"text","none":null,"strnum":3,"one":2.0}
            """
        #expect(try db.importJSON(bytes: Array(ndjson.utf8), into: "t", options: .init(layout: .ndjson, createTable: true)) == 2)
        #expect(try columns("t") == "int INTEGER, real REAL, mixed REAL, zip TEXT, numtext TEXT, day DATE, at DATETIME, "
                + "flag INTEGER, flagnum REAL, huge TEXT, inf TEXT, nested TEXT, list TEXT, none TEXT, strnum TEXT, one REAL")
        #expect(try text("""
            SELECT group_concat(quote(int) || ' ' || quote(real) || ' ' || quote(mixed) || ' ' || quote(zip) || ' ' || quote(numtext)
                || ' ' || quote(day) || ' ' || quote(at) || ' ' || quote(flag) || ' ' || quote(flagnum) || ' ' || quote(huge)
                || ' ' || quote(inf) || ' ' || quote(nested) || ' ' || quote(list) || ' ' || quote(strnum) || ' ' || quote(one), ' / ')
            FROM t
            """) == "1 1.5 1.0 '02134' '12' '2024-05-01' '2024-05-01 12:00:00.000' 1 0.0 '12345678901234567890' '1e400' "
                + "'{\"k\":[1,2]}' '[1]' 'x' 1.0 / -7 2.0 2.25 '90210' '13' '2024-05-02' '2024-05-02 00:00:00.000' 0 2.5 '1' '1' "
                + "'[]' 'text' '3' 2.0")
    }

    @Test func aKeyFirstSeenAfterTheSampleIsAnErrorNamingItAndNothingIsCreated() throws {
        let ndjson = "{\"id\":1}\n{\"id\":2}\n{\"id\":3,\"late\":\"x\"}\n"
        do {
            try db.importJSON(bytes: Array(ndjson.utf8), into: "t", options: .init(layout: .ndjson, createTable: true, inferRecords: 2))
            Issue.record("expected an error")
        } catch let e as Database.JSONImportError {
            #expect(e.element == 2 && e.key == "late" && e.line == 3)
            #expect(e.message.hasPrefix("no column for this key: the table was created from the keys of the first 2 elements"))
        }
        #expect(try !tableExists("t"))
        // rejecting: the element goes to the reject table, whole, with the reason
        let n = try db.importJSON(bytes: Array(ndjson.utf8), into: "t",
                                  options: .init(layout: .ndjson, createTable: true, inferRecords: 2,
                                                 onError: .skip, rejectTable: "bad"))
        #expect(n == 2)
        #expect(try text("SELECT group_concat(id) FROM t") == "1,2")
        #expect(try text("SELECT record || ' ' || \"column\" || ' ' || raw FROM bad") == #"2 late {"id":3,"late":"x"}"#)
    }

    /// Rejecting: bad records among the first ones type nothing (a broken line, an element
    /// that is no object) and are rejected by the import as without createTable.
    @Test func badRecordsInTheSampleAreRejectedAndTypeNothing() throws {
        let ndjson = "{\"id\":1,\"n\":1}\n{\"id\":2,\"n\":\n7\n{\"id\":3,\"n\":\"x\",\"m\":2}\n{\"id\":4}\n"
        let n = try db.importJSON(bytes: Array(ndjson.utf8), into: "t",
                                  options: .init(layout: .ndjson, createTable: true, onError: .skip, rejectTable: "bad"))
        #expect(n == 3)
        #expect(try columns("t") == "id INTEGER, n TEXT, m INTEGER")
        #expect(try text("SELECT group_concat(quote(id) || ' ' || quote(n) || ' ' || quote(m), ' / ') FROM t")
                == "1 '1' NULL / 3 'x' 2 / 4 NULL NULL")
        #expect(try text("SELECT group_concat(record || ' ' || raw, ' / ') FROM bad") == #"1 {"id":2,"n": / 2 7"#)
    }

    @Test func aLaterValueItsInferredColumnCannotHoldIsAnError() throws {
        for (late, key) in [(#"{"n":1.5}"#, "n"), (#"{"n":"abc"}"#, "n"), (#"{"n":{"k":1}}"#, "n"), (#"{"d":"soon"}"#, "d")] {
            let ndjson = "{\"n\":1,\"d\":\"2024-05-01\"}\n{\"n\":2}\n" + late + "\n"
            do {
                try db.importJSON(bytes: Array(ndjson.utf8), into: "t", options: .init(layout: .ndjson, createTable: true, inferRecords: 2))
                Issue.record("expected an error for \(late)")
            } catch let e as Database.JSONImportError {
                #expect(e.element == 2 && e.key == key, "\(late): \(e)")
                #expect(e.message.hasSuffix("the column's type was inferred from the first 2 elements "
                                            + "(JSONImportOptions.inferRecords): create the table to take this value"), "\(e)")
            }
            #expect(try !tableExists("t"))
        }
    }

    /// A later value of a kind the sample never showed for its column would be stored
    /// changed (the string "12" as 12, 5 or true as text): refused, or rejected whole.
    @Test func aLaterValueOfAKindItsColumnNeverHadIsRefusedNotConverted() throws {
        let sample = #"{"n":1,"s":"a","b":true,"z":null,"m":"x"}"# + "\n" + #"{"n":2,"s":"b","b":false,"z":null,"m":3}"# + "\n"
        let refused: [(String, String, String)] = [
            (#"{"n":"12"}"#, "n", "a string cannot go into INTEGER column n, which takes numbers only"),
            (#"{"s":5}"#, "s", "a number cannot go into TEXT column s, which takes strings only"),
            (#"{"s":true}"#, "s", "true cannot go into TEXT column s, which takes strings only"),
            (#"{"s":["a"]}"#, "s", "a nested object/array cannot go into TEXT column s"),
            (#"{"b":5}"#, "b", "a number cannot go into INTEGER column b, which takes true/false only"),
            (#"{"z":5}"#, "z", "a number cannot go into TEXT column z, which takes strings only"),
            (#"{"m":false}"#, "m", "false cannot go into TEXT column m, which takes strings, numbers only"),
        ]
        for (late, key, why) in refused {
            do {
                try db.importJSON(bytes: Array((sample + late + "\n").utf8), into: "t",
                                  options: .init(layout: .ndjson, createTable: true, inferRecords: 2))
                Issue.record("expected an error for \(late)")
            } catch let e as Database.JSONImportError {
                #expect(e.element == 2 && e.key == key && e.line == 3 && e.message.hasPrefix(why), "\(late): \(e)")
                #expect(e.message.hasSuffix("create the table to take this value"), "\(e)")
            }
            #expect(try !tableExists("t"))
        }
        // kinds the sample showed go in: a number into a column of strings and numbers, a
        // string into a column of nulls, null anywhere; rejecting keeps the others
        let later = #"{"n":3,"s":"c","b":null,"z":"zz","m":4.5}"# + "\n" + #"{"n":"4"}"# + "\n" + #"{"n":5}"# + "\n"
        #expect(try db.importJSON(bytes: Array((sample + later).utf8), into: "t",
                                  options: .init(layout: .ndjson, createTable: true, inferRecords: 2,
                                                 onError: .skip, rejectTable: "bad")) == 4)
        #expect(try columns("t") == "n INTEGER, s TEXT, b INTEGER, z TEXT, m TEXT")
        #expect(try text("SELECT group_concat(quote(n) || ' ' || quote(s) || ' ' || quote(b) || ' ' || quote(z) || ' ' || quote(m), ' / ') FROM t")
                == "1 'a' 1 NULL 'x' / 2 'b' 0 NULL '3' / 3 'c' NULL 'zz' '4.5' / 5 NULL NULL NULL NULL")
        #expect(try text("SELECT record || ' ' || \"column\" || ' ' || raw FROM bad") == #"3 n {"n":"4"}"#)
    }

    @Test func anEmptyInputOrOneWithoutKeysIsAnErrorAndNothingIsCreated() throws {
        for (input, layout, what) in [("", JSONImportOptions.Layout.ndjson, "the input has no element"),
                                      ("[]", .array, "the input has no element"),
                                      ("[{},{}]", .array, "and no key is in its first 2 elements to infer its columns from"),
                                      ("[{}]", .array, "and no key is in its first element to infer its columns from")] {
            do {
                try db.importJSON(bytes: Array(input.utf8), into: "t", options: .init(layout: layout, createTable: true))
                Issue.record("expected an error for '\(input)'")
            } catch let e as Database.JSONImportError {
                #expect(e.message.contains(what), "\(e)")
            }
            #expect(try !tableExists("t"))
        }
        // an existing table is filled as without createTable
        try db.execute("CREATE TABLE e(id INTEGER)")
        #expect(try db.importJSON(bytes: Array("[]".utf8), into: "e", options: .init(createTable: true)) == 0)
    }

    @Test func keysThatCannotNameAColumnAndColumnsWithCreateTableAreErrors() throws {
        #expect { try db.importJSON(bytes: Array(#"[{"a":1},{"":1}]"#.utf8), into: "t", options: .init(createTable: true)) }
            throws: { e in
                let e = e as? Database.JSONImportError
                // the position of the element the key is first in
                return e?.message.contains("cannot name a column") == true && e?.element == 1 && e?.key == ""
                    && e?.byteOffset == 9 && e?.line == 1 && e?.column == 10
            }
        #expect { try db.importJSON(bytes: Array(#"[{"File":1}]"#.utf8), into: "t",
                                    options: .init(createTable: true, filenameColumn: "file")) }
            throws: { e in
                let e = e as? Database.JSONImportError
                return e?.message.contains("filenameColumn") == true && e?.element == 0 && e?.key == "File"
                    && e?.byteOffset == 1 && e?.line == 1 && e?.column == 2
            }
        #expect { try db.importJSON(bytes: Array(#"[{"a":1}]"#.utf8), into: "t", options: .init(columns: ["a"], createTable: true)) }
            throws: { ($0 as? Database.JSONImportError)?.message.contains("columns cannot be given") == true }
        #expect(try !tableExists("t"))
        // a rename names the column
        try db.importJSON(bytes: Array(#"[{"id_str":"7","x":1}]"#.utf8), into: "r",
                          options: .init(renames: ["id_str": "id"], createTable: true))
        #expect(try columns("r") == "id TEXT, x INTEGER")
    }

    /// Inference reads the elements the import reads (a path's array), whatever the chunks.
    @Test func aPathsElementsInChunksOfAnySizeAndNegativeZeros() async throws {
        let json = #"{"meta": {"n": 1}, "data": {"rows": [{"z": -0, "r": -0.0, "s": "x"}, {"z": 0, "r": 1.5, "t": [1, {"u": null}]}]}}"#
        let bytes = Array(json.utf8)
        for size in [1, 2, 7, bytes.count] {
            let stream = AsyncStream<[UInt8]> { c in
                for i in stride(from: 0, to: bytes.count, by: size) { c.yield(Array(bytes[i..<min(i + size, bytes.count)])) }
                c.finish()
            }
            let table = "p\(size)"
            #expect(try await db.importJSON(from: stream, into: table,
                                            options: .init(layout: .arrayAt(["data", "rows"]), createTable: true)) == 2)
            // -0 and -0.0 are no INTEGER or REAL by the rule (the column would change them): their literals, as TEXT
            #expect(try columns(table) == "z TEXT, r TEXT, s TEXT, t TEXT")
            #expect(try text("SELECT group_concat(quote(z) || ' ' || quote(r) || ' ' || quote(s) || ' ' || quote(t), ' / ') FROM \(table)")
                    == "'-0' '-0.0' 'x' NULL / '0' '1.5' NULL '[1,{\"u\":null}]'")
        }
    }

    /// The sample is read on the caller's thread and fed again; the rest of a file may go
    /// through the worker: the same rows from a file in small chunks, from memory and from
    /// several files (the first creates the table, the others are read as its own).
    @Test func fromAFileInSmallChunksAndFromSeveralFiles() throws {
        var ndjson = ""
        for i in 0..<8000 { ndjson += "{\"id\":\(i),\"name\":\"n\\\"\(i)\",\"v\":\(Double(i) / 4),\"tags\":[\(i)]}\n" }
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("json-create-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("a.ndjson").path
        try Data(ndjson.utf8).write(to: URL(fileURLWithPath: path))
        #expect(try db.importJSON(contentsOfFile: path, into: "f",
                                  options: .init(layout: .ndjson, createTable: true, inferRecords: 10, chunkSize: 64)) == 8000)
        #expect(try db.importJSON(bytes: Array(ndjson.utf8), into: "m", options: .init(layout: .ndjson, createTable: true)) == 8000)
        #expect(try columns("f") == "id INTEGER, name TEXT, v REAL, tags TEXT")
        #expect(try text("SELECT count(*) FROM f JOIN m USING (id) WHERE f.name IS m.name AND f.v IS m.v AND f.tags IS m.tags") == "8000")
        let second = dir.appendingPathComponent("b.ndjson").path
        try Data("{\"id\":5000,\"extra\":1}\n".utf8).write(to: URL(fileURLWithPath: second))
        do {
            try db.importJSON(contentsOfFiles: [path, second], into: "g", options: .init(layout: .ndjson, createTable: true))
            Issue.record("expected an error")
        } catch let e as Database.JSONImportError {
            #expect(e.file == second && e.key == "extra" && e.message.contains("the keys of the first 1000 elements"))
        }
        #expect(try !tableExists("g"))
    }

    /// Python's `json` as the oracle: every element's values come back from the created
    /// table as Python reads them (booleans as 1/0, nested values as JSON text that reads
    /// back equal, missing keys as NULL), the columns in first-seen key order.
    @Test func valuesRoundTripAgainstPythonsJSON() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("json-oracle-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("in.ndjson").path, database = dir.appendingPathComponent("db.sqlite").path
        _ = try runPython("""
            import json, random, sys
            r = random.Random(22)
            texts = ["plain", "12", "007", "quote \\" back\\\\slash", "line\\nbreak", "tab\\t", "é ü ✓ 😀", "", "\\u0001ctl", "2024-05-01x"]
            with open(sys.argv[1], "w", encoding="utf-8") as f:
                for i in range(500):
                    e = {"id": i}
                    if r.random() < 0.8: e["price"] = r.choice([round(r.uniform(-1e6, 1e6), 2), r.randint(-99, 99)])
                    e["name"] = r.choice(texts)
                    if r.random() < 0.5: e["flag"] = r.choice([True, False])
                    if r.random() < 0.5: e["meta"] = {"k": r.choice(texts), "n": [r.randint(0, 9), None, True, 1.5]}
                    if r.random() < 0.3: e["maybe"] = None
                    if i > 3 and r.random() < 0.1: e["late_" + str(i % 3)] = r.choice([1, "x", [1]])
                    f.write(json.dumps(e, ensure_ascii=r.random() < 0.5) + "\\n")
            """, args: [input])
        let file = try Database(path: database)
        #expect(try file.importJSON(contentsOfFile: input, into: "t", options: .init(layout: .ndjson, createTable: true, chunkSize: 333)) == 500)
        try file.closeConnection()
        let out = try runPython("""
            import json, sqlite3, sys
            elems = [json.loads(l) for l in open(sys.argv[1], encoding="utf-8")]
            keys = []
            for e in elems:
                keys += [k for k in e if k not in keys]
            con = sqlite3.connect(sys.argv[2])
            info = list(con.execute("PRAGMA table_info(t)"))
            assert [c[1] for c in info] == keys, ([c[1] for c in info], keys)
            types = {c[1]: c[2] for c in info}
            bad = []
            for e, row in zip(elems, con.execute("SELECT * FROM t ORDER BY rowid")):
                for k, got in zip(keys, row):
                    want = e.get(k)
                    if isinstance(want, bool): want = int(want)
                    if isinstance(want, (dict, list)) or (types[k] == "TEXT" and got is not None and not isinstance(want, str)):
                        got = json.loads(got)
                    if got != want or type(got) is not type(want) and not (isinstance(want, int) and isinstance(got, float)):
                        bad.append((e["id"], k, want, got))
            print(len(elems), types, bad[:5])
            """, args: [input, database])
        #expect(out.hasPrefix("500 ") && out.hasSuffix(" []\n"), "\(out)")
    }
}
