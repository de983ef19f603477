import Foundation
import Testing
@testable import StreamQLite

/// One value in, the same value out, whatever API wrote it: the stored text is
/// identical, compares equal with `=`, sorts by time, and an outside reader
/// (Python's `sqlite3` and `datetime`) reads the same instant.
@Suite struct SameValueEveryPathTests {
    struct Event: Codable { var n: Int; var at: Date }
    struct RowEvent: RowEncodable {
        var n: Int; var at: Date
        static let databaseColumns = ["n", "at"]
        func bind(to row: inout RowBinder) throws { row.bind(n); row.bind(at) }
    }

    /// Writes `date` through every API into `ev(n, at)`; returns the stored texts by path.
    func storeThroughEveryPath(_ db: Database, _ date: Date) throws -> [String: String] {
        try db.execute("CREATE TABLE ev(n INTEGER, at DATETIME)")
        try db.execute("INSERT INTO ev VALUES (1, ?)", date)
        try db.insert(contentsOf: [Event(n: 2, at: date)], into: "ev")
        try db.insert(contentsOf: [RowEvent(n: 3, at: date)], into: "ev")
        // importJSON of what writeJSON wrote for row 1.
        var json: [UInt8] = []
        try db.writeJSON("SELECT 4 AS n, at FROM ev WHERE n = 1", to: &json)
        try db.importJSON(bytes: json, into: "ev")
        // importJSON of the ISO 8601 form other programs write.
        let iso = ISO8601DateFormatter()
        iso.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        try db.importJSON(bytes: Array("[{\"n\": 5, \"at\": \"\(iso.string(from: date))\"}]".utf8), into: "ev")
        var stored: [String: String] = [:]
        for (n, at) in try db.tuples(Int.self, String.self, sql: "SELECT n, at FROM ev ORDER BY n").collect() {
            stored[["", "execute", "insert Encodable", "insert RowEncodable", "writeJSON+importJSON", "importJSON ISO 8601"][n]] = at
        }
        return stored
    }

    @Test(arguments: [
        1_714_564_800.251,      // 2024-05-01 12:00:00.251: the case that rounded up on one path, floored on another
        1_714_564_800.2509,     // sub-millisecond: floored everywhere
        -0.0005,                // just before the epoch: floors into 1969
        951_782_399.9999,       // 2000-02-28 23:59:59.999(9): never rounds into the next day
        0,
    ])
    func aDateIsStoredAsTheSameTextThroughEveryAPI(seconds: Double) throws {
        let db = try Database(path: ":memory:")
        let date = Date(timeIntervalSince1970: seconds)
        let stored = try storeThroughEveryPath(db, date)
        let expected = sqliteDateString(date)
        #expect(expected.count == 23)
        for (path, text) in stored where !path.contains("ISO 8601") || seconds * 1000 == (seconds * 1000).rounded() {
            #expect(text == expected, "\(path) stored \(text), execute stored \(stored["execute"] ?? "?")")
        }
        // Every row compares equal to the bound Date.
        let atThatInstant = try #require(try db.value(Int.self, "SELECT count(*) FROM ev WHERE at = ? AND n < 5", date))
        #expect(atThatInstant == 4)
        // And reads back as the same millisecond.
        for d in try db.values(Date.self, "SELECT at FROM ev WHERE n < 5").collect() {
            #expect(sqliteDateString(d) == expected)
        }
    }

    @Test func textOrderIsTimeOrderAndSQLiteReadsTheSameInstant() throws {
        let db = try Database(path: ":memory:")
        try db.execute("CREATE TABLE t(at DATETIME)")
        var dates: [Date] = []
        var seed: UInt64 = 42
        for _ in 0..<2000 {
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            let s = Double(Int64(seed >> 20) % 253_402_300_799_000 - 62_167_219_200_000) / 1000  // years 0000..9999
            dates.append(Date(timeIntervalSince1970: s))
        }
        for d in dates { try db.execute("INSERT INTO t VALUES (?)", d) }
        let byText = try db.values(String.self, "SELECT at FROM t ORDER BY at").collect()
        #expect(byText == dates.sorted().map(sqliteDateString))
        // SQLite's own date functions read each text as the instant we meant.
        let mismatches = try #require(try db.value(Int.self, """
            SELECT count(*) FROM t
            WHERE strftime('%Y-%m-%d %H:%M:%f', at) IS NOT at
            """))
        #expect(mismatches == 0)
    }

    @Test func pythonReadsTheStoredDatesAsTheSameInstants() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("sq-dates-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("d.sqlite").path
        let dates = [1_714_564_800.251, -86_400.5, 951_782_399.999, 253_402_300_799.999, -62_167_219_200.0]
        do {
            let db = try Database(path: path)
            try db.execute("CREATE TABLE t(ms INTEGER, at DATETIME)")
            for s in dates {
                let d = Date(timeIntervalSince1970: s)
                try db.execute("INSERT INTO t VALUES (?, ?)", Int((s * 1000).rounded()), d)
            }
        }
        let script = """
            import sqlite3, sys, datetime
            con = sqlite3.connect(sys.argv[1])
            bad = 0
            epoch = datetime.datetime(1970, 1, 1)
            for ms, at in con.execute("SELECT ms, at FROM t"):
                want = datetime.datetime(1, 1, 1) if ms < -62135596800000 else epoch + datetime.timedelta(milliseconds=ms)
                if ms < -62135596800000:
                    ok = at == "0000-01-01 00:00:00.000"   # year 0 is outside Python's datetime
                else:
                    ok = datetime.datetime.fromisoformat(at) == want
                if not ok:
                    print("mismatch", ms, at, want); bad += 1
            print("bad", bad)
            """
        let out = try runPython(script, args: [path])
        #expect(out.contains("bad 0"), "\(out)")
    }
}
