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

    /// The dates whose Unix seconds SQLite's 'auto' rule reads as Julian days (1970-01-20 to
    /// 1970-03-04; before 1970-01-20 as no date): every hour of 1970-01-01 to 1970-03-04
    /// 12:00 (each with its own milliseconds) and the rule's boundaries, written by every
    /// API and read back as the same `Date`, and seen by SQL as the same instant.
    static let ambiguousRangeDates: [Date] = {
        var ms: [Int64] = [0, 1, 1_721_059_499, 1_721_059_500, 1_721_059_501, 5_373_484_499, 5_373_484_500]
        for hour in 0..<(62 * 24 + 13) { ms.append(Int64(hour) * 3_600_000 + Int64(hour * 7919 % 3_600_000)) }
        return ms.map { Date(timeIntervalSince1970: Double($0) / 1000) }
    }()

    @Test func everyDateOfTheAmbiguousNumberRangeReadsBackAsTheSameDateThroughEveryPath() throws {
        let db = try Database(path: ":memory:")
        let dates = Self.ambiguousRangeDates
        try db.execute("CREATE TABLE ev(n INTEGER, at DATETIME)")
        try db.transaction {
            for (i, d) in dates.enumerated() { try db.execute("INSERT INTO ev VALUES (?, ?)", i, d) }
        }
        let k = dates.count
        try db.insert(contentsOf: dates.enumerated().map { Event(n: k + $0.offset, at: $0.element) }, into: "ev")
        try db.insert(contentsOf: dates.enumerated().map { RowEvent(n: 2 * k + $0.offset, at: $0.element) }, into: "ev")
        var json: [UInt8] = []
        try db.writeJSON("SELECT n + \(3 * k) AS n, at FROM ev WHERE n < \(k) ORDER BY n", to: &json)
        try db.importJSON(bytes: json, into: "ev")
        var csv: [UInt8] = []
        try db.writeCSV("SELECT n + \(4 * k) AS n, at FROM ev WHERE n < \(k) ORDER BY n", to: &csv)
        _ = try db.importCSV(bytes: csv, into: "ev")
        let back = try db.tuples(Int.self, Date.self, sql: "SELECT n, at FROM ev ORDER BY n").collect()
        #expect(back.count == 5 * k)
        for (n, d) in back where d != dates[n % k] {
            Issue.record("path \(n / k), \(sqliteDateString(dates[n % k])) read back as \(sqliteDateString(d))")
        }
        // SQL reads the same instant: milliseconds since 1970 from SQLite's own date functions.
        let sqlMs = try db.tuples(Int.self, Int64.self,
            sql: "SELECT n, CAST(round((julianday(at) - 2440587.5) * 86400000.0) AS INTEGER) FROM ev ORDER BY n").collect()
        for (n, ms) in sqlMs where ms != dateMilliseconds(dates[n % k]) {
            Issue.record("path \(n / k): SQL reads \(ms) ms, not \(dateMilliseconds(dates[n % k]))")
        }
    }

    /// `.unixSeconds` refuses a `Date` whose number would read back as another instant (the
    /// whole 1970-01-01 to 1970-03-04 range) with an error naming the row and column; the
    /// instants just outside it are stored as numbers and read back as the same `Date`.
    @Test func unixSecondsRefusesTheDatesItsNumberWouldShift() throws {
        let db = try Database(path: ":memory:")
        try db.execute("CREATE TABLE ev(n INTEGER, at DATETIME)")
        for (i, d) in Self.ambiguousRangeDates.enumerated() where d.timeIntervalSince1970 < 5_373_484.5 {
            do {
                try db.insert(contentsOf: [Event(n: 0, at: d), Event(n: i, at: d)], into: "ev", options: .init(dateEncoding: .unixSeconds))
                Issue.record("\(sqliteDateString(d)) was stored as Unix seconds")
            } catch let error as InsertError {
                #expect(error.row == 0 && error.column == "at" && error.message.contains("Julian day"), "\(error)")
            }
            // the same Date as text (the default) comes back
            try db.insert(contentsOf: [Event(n: i, at: d)], into: "ev")
        }
        #expect(try db.value(Int.self, "SELECT count(*) FROM ev WHERE typeof(at) <> 'text'") == 0)
        let outside = [Date(timeIntervalSince1970: -0.001), Date(timeIntervalSince1970: 5_373_484.5),
                       Date(timeIntervalSince1970: 1_714_564_800.25)]
        try db.execute("DELETE FROM ev")
        try db.insert(contentsOf: outside.enumerated().map { Event(n: $0.offset, at: $0.element) }, into: "ev",
                      options: .init(dateEncoding: .unixSeconds))
        #expect(try db.values(Date.self, "SELECT at FROM ev ORDER BY n").collect() == outside)
        #expect(try db.value(Int.self, "SELECT count(*) FROM ev WHERE typeof(at) = 'real'") == 3)
        let far = Date(timeIntervalSince1970: 253_402_300_800)   // 10000-01-01: no time by the rule
        #expect(throws: InsertError.self) {
            try db.insert(contentsOf: [Event(n: 9, at: far)], into: "ev", options: .init(dateEncoding: .unixSeconds))
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
