import Foundation
import Testing
@testable import StreamQLite

/// The same records stored through all six ways in — `execute` with bound Swift
/// values, `insert(contentsOf:)`, `importJSON`, SQL `INSERT … SELECT` from a
/// `json_stream` table, `importCSV`, and `INSERT … SELECT` from a `csv_stream`
/// table — give six identical tables, and Python (its `json` and `csv` modules
/// wrote the files; its `sqlite3` and `datetime` read the tables back) finds in
/// every table exactly the values it wrote: the same text byte for byte, the same
/// double bit for bit, the same 64-bit integer, the same instant, NULL apart from ''.
@Suite struct EveryPathAgreementTests {
    struct Record: Codable {
        var id: Int
        var name: String
        var amount: Double
        var qty: Int64
        var seenMs: Int64
        var note: String?
    }

    /// The row as the Swift paths store it: the instant as a `Date`.
    struct Stored: Encodable {
        var id: Int
        var name: String
        var amount: Double
        var qty: Int64
        var seen: Date
        var note: String?
    }

    static let texts = [
        "plain", "", " padded ", "a,b", "say \"hi\"", "\"", "two\nlines", "cr\rhere", "crlf\r\nend", "tab\there",
        "semi;colon", "pipe|bar", "caf\u{e9} \u{20ac} \u{1F600}", "\u{1}\u{1f}\u{7f}", "\u{2028}\u{FEFF}", "NA", "null",
        "\\N", "0012", "1e5", "12", "-0", "2024-05-01", "{\"k\": [1]}", "back\\slash", "/slash/", String(repeating: "long ", count: 200),
    ]

    static let doubles: [Double] = [
        0, 0.1, 0.1 + 0.2, -1.5, 1e-7, 123456789.125, .greatestFiniteMagnitude, .leastNonzeroMagnitude, .leastNormalMagnitude,
        9007199254740992, 1e21, 1e22, -3.0, 0.000001, 100, 4.35, 2.675, 1 / 3,
    ]

    static let integers: [Int64] = [0, 1, -1, 42, Int64.max, Int64.min, Int64.min + 1, 9_007_199_254_740_993, 1_000_000_000_000]

    /// Deterministic records covering every text, double and integer above, and
    /// instants from 1901 to 2099 with milliseconds (some before 1970).
    static func records(count: Int) -> [Record] {
        var seed: UInt64 = 0x5EED
        func next() -> UInt64 {
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            return seed >> 11
        }
        return (0..<count).map { i in
            let note: String? = i % 5 == 0 ? nil : i % 5 == 1 ? "" : texts[Int(next() % UInt64(texts.count))]
            let ms = Int64(next() % 6_248_000_000_000) - 2_177_452_800_000  // 1901 … 2099
            return Record(id: i + 1, name: texts[i % texts.count],
                          amount: i < doubles.count ? doubles[i] : Double(Int64(next() % 2_000_000_001) - 1_000_000_000) / 997,
                          qty: i < integers.count ? integers[i] : Int64(bitPattern: next() << 11 | next() % 2048),
                          seenMs: i % 7 == 3 ? -(Int64(i) % 3) - 1 : ms, note: note)
        }
    }

    static let columns = "id INTEGER PRIMARY KEY, name TEXT NOT NULL, amount REAL, qty INTEGER, seen DATETIME, note TEXT"
    static let paths = ["viaExecute", "viaInsert", "viaImportJSON", "viaJSONStream", "viaImportCSV", "viaCSVStream"]

    /// Python writes the JSON file (dates as ISO 8601 with Z, +00:00 or an offset;
    /// non-ASCII as \u escapes) and the CSV file (strings quoted, numbers bare, NULL
    /// as an unquoted `\N`) from the records.
    static let writer = #"""
        import csv, datetime, io, json, sys
        records = json.loads(sys.argv[1])
        utc = datetime.timezone.utc
        zones = [utc, datetime.timezone(datetime.timedelta(hours=5, minutes=30)), datetime.timezone(datetime.timedelta(hours=-8))]
        def iso(r):
            t = datetime.datetime(1970, 1, 1, tzinfo=utc) + datetime.timedelta(milliseconds=r["seenMs"])
            text = t.astimezone(zones[r["id"] % 3]).isoformat(timespec="milliseconds")
            return text.replace("+00:00", "Z") if r["id"] % 2 else text
        rows = [{"id": r["id"], "name": r["name"], "amount": r["amount"], "qty": r["qty"], "seen": iso(r), "note": r.get("note")} for r in records]
        with open(sys.argv[2], "w", encoding="utf-8") as f:
            json.dump(rows, f, ensure_ascii=True)
        class Null(int):
            def __str__(self): return "\\N"
            __repr__ = __str__
        with open(sys.argv[3], "w", encoding="utf-8", newline="") as f:
            w = csv.writer(f, quoting=csv.QUOTE_NONNUMERIC, lineterminator="\r\n")
            w.writerow(["id", "name", "amount", "qty", "seen", "note"])
            for r in rows:
                w.writerow([Null() if v is None else v for v in r.values()])
        """#

    /// Python reads every table and compares each value with the record it wrote.
    static let reader = #"""
        import datetime, json, sqlite3, struct, sys
        records = {r["id"]: r for r in json.loads(sys.argv[1])}
        con = sqlite3.connect(sys.argv[2])
        epoch = datetime.datetime(1970, 1, 1)
        bad = 0
        for table in json.loads(sys.argv[3]):
            seen_ids = set()
            for row in con.execute(f"SELECT id, name, amount, qty, seen, note, typeof(amount), typeof(qty) FROM {table}"):
                id, name, amount, qty, seen, note, tamount, tqty = row
                r = records[id]; seen_ids.add(id)
                t = epoch + datetime.timedelta(milliseconds=r["seenMs"])
                want_seen = t.strftime("%Y-%m-%d %H:%M:%S.") + "%03d" % (t.microsecond // 1000)
                same_amount = tamount == "real" and struct.pack("<d", amount) == struct.pack("<d", float(r["amount"])) \
                    or (r["amount"] == 0 and amount == 0)
                checks = [name == r["name"], same_amount, tqty == "integer" and qty == r["qty"], seen == want_seen,
                          note == r.get("note") and type(note) == type(r.get("note"))]
                if not all(checks):
                    bad += 1
                    if bad < 10: print("mismatch", table, id, checks, repr(row)[:200], repr(r)[:200])
            if seen_ids != set(records):
                bad += 1; print("rows", table, len(seen_ids), len(records))
        print("bad", bad)
        """#

    @Test func sixWaysInStoreWhatPythonWroteAndReadBackTheSame() throws {
        let dir = FileManager.default.temporaryDirectory
            .appendingPathComponent("sq-every-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let dbPath = dir.appendingPathComponent("t.sqlite").path
        let jsonPath = dir.appendingPathComponent("in.json").path
        let csvPath = dir.appendingPathComponent("in.csv").path
        let records = Self.records(count: 600)
        let recordsJSON = String(decoding: try JSONEncoder().encode(records), as: UTF8.self)
        _ = try runPython(Self.writer, args: [recordsJSON, jsonPath, csvPath])

        do {
            let db = try Database(path: dbPath)
            for table in Self.paths { try db.execute("CREATE TABLE \(table)(\(Self.columns))") }
            let stored = records.map {
                Stored(id: $0.id, name: $0.name, amount: $0.amount, qty: $0.qty,
                       seen: Date(timeIntervalSince1970: Double($0.seenMs) / 1000), note: $0.note)
            }
            try db.transaction {
                for s in stored {
                    try db.execute("INSERT INTO viaExecute VALUES (?, ?, ?, ?, ?, ?)", s.id, s.name, s.amount, s.qty, s.seen, s.note)
                }
            }
            try db.insert(contentsOf: stored, into: "viaInsert")
            try db.importJSON(contentsOfFile: jsonPath, into: "viaImportJSON")
            let declared = Self.columns.replacingOccurrences(of: " PRIMARY KEY", with: "").replacingOccurrences(of: " NOT NULL", with: "")
            try db.execute("CREATE VIRTUAL TABLE temp.js USING json_stream(filename='\(jsonPath)', columns='\(declared)')")
            try db.execute("INSERT INTO viaJSONStream SELECT * FROM js")
            try db.importCSV(contentsOfFile: csvPath, into: "viaImportCSV", options: .init(nullText: "\\N"))
            try db.execute("CREATE VIRTUAL TABLE temp.cs USING csv_stream(filename='\(csvPath)', null='\\N', columns='\(declared)')")
            try db.execute("INSERT INTO viaCSVStream SELECT * FROM cs")

            // All six tables hold the same values with the same types (REAL compared as IS: bit for bit
            // but for 0.0 and -0.0, which SQLite stores alike).
            for table in Self.paths.dropFirst() {
                let differing = try db.value(Int.self, """
                    SELECT count(*) FROM viaExecute a FULL JOIN \(table) b USING (id)
                    WHERE NOT (a.name IS b.name AND a.amount IS b.amount AND typeof(a.amount) = typeof(b.amount)
                               AND a.qty IS b.qty AND typeof(a.qty) = typeof(b.qty) AND a.seen IS b.seen
                               AND a.note IS b.note AND typeof(a.note) = typeof(b.note))
                    """)
                #expect(differing == 0, "\(table) differs from viaExecute in \(differing ?? -1) rows")
            }
        }
        let tables = String(decoding: try JSONEncoder().encode(Self.paths), as: UTF8.self)
        let out = try runPython(Self.reader, args: [recordsJSON, dbPath, tables])
        #expect(out.hasSuffix("bad 0\n"), "\(out)")
    }
}
