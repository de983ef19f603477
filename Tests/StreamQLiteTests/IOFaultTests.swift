import CFaultVFS
import CSQLite
import Foundation
import Testing
@testable import StreamQLite

/// I/O errors under the Swift imports and inserts, as SQLite's own tests inject them: the
/// database is opened through "faulty" (Tests/CFaultVFS: the default VFS with the Nth
/// xRead, xWrite, xSync or xTruncate failing with SQLITE_IOERR_READ, SQLITE_FULL,
/// SQLITE_IOERR_FSYNC or SQLITE_IOERR_TRUNCATE), for N = 1, 2, 3 … until a run ends
/// before its Nth call, with one failure and with every call from the Nth failing. Each run
/// must end in success or in an error that says what failed (an I/O or disk-full code), the
/// connection must be usable afterwards, and the database, opened again without faults, must
/// pass `PRAGMA integrity_check` and hold the whole import or none of it.
@Suite(.serialized) struct IOFaultTests {
    static let rows = 2_000

    /// A CSV file of `rows` records, every 100th with a score that is no number.
    static func csvFile(_ dir: URL) throws -> String {
        var text = "id,name,score\n"
        for i in 1...rows { text += i % 100 == 0 ? "\(i),P\(i),x\(i)\n" : "\(i),\"P \(i), the \(i % 7)th\",\(i).5\n" }
        let path = dir.appendingPathComponent("data.csv").path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    static func ndjsonFile(_ dir: URL) throws -> String {
        var text = ""
        for i in 1...rows { text += "{\"id\":\(i),\"name\":\"P\(i)\",\"score\":\(i).5}\n" }
        let path = dir.appendingPathComponent("data.ndjson").path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    struct Person: Encodable {
        let id: Int
        let name: String
        let score: Double
    }

    static let rejectTable = """
        CREATE TABLE rej(file TEXT, line INTEGER, "offset" INTEGER, record INTEGER, "column" TEXT,
                         reason TEXT, raw TEXT, raw_truncated INTEGER)
        """

    /// The workload's (rows, rejects) as a new connection without faults sees them.
    static func state(_ path: String, hasRejects: Bool = true) throws -> (String, Int, Int) {
        let db = try Database(path: path)
        let ok = try db.value(String.self, "PRAGMA integrity_check") ?? "?"
        return (ok, try db.value(Int.self, "SELECT count(*) FROM t") ?? -1,
                hasRejects ? try db.value(Int.self, "SELECT count(*) FROM rej") ?? -1 : 0)
    }

    /// Runs `work` under I/O faults at every N, in both modes; returns the failure points.
    static func sweep(_ name: String, pageCache: Int = 2,
                      _ work: (Database) throws -> Void) throws -> Int {
        #expect(sq_fault_vfs_register() == SQLITE_OK)
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("iofault-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("f.db").path
        let setup = """
            CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT, score REAL);
            CREATE INDEX t_name ON t(name);
            \(rejectTable);
            INSERT INTO t VALUES (-1, 'there before', 0);
            """
        func fresh() throws -> Database {
            try? FileManager.default.removeItem(atPath: path)
            try Database(path: path).execute(setup)
            return try Database(path: "file:\(path)?vfs=faulty", flags: [.readWrite, .create, .uri])
        }
        // Without faults: the whole import.
        let db0 = try fresh()
        try db0.execute("PRAGMA cache_size=\(pageCache)")
        try work(db0)
        let whole = try state(path)
        #expect(whole.0 == "ok" && whole.1 > 1, "\(name): the import without faults")
        var points = 0
        for persist in [false, true] {
            var n = 1
            while true {
                let db = try fresh()
                try db.execute("PRAGMA cache_size=\(pageCache)")
                sq_fault_vfs_arm(Int64(n), persist ? 1 : 0)
                let result = Result { try work(db) }
                let hits = sq_fault_vfs_disarm()
                let how = "\(name), N=\(n)\(persist ? " (persistent)" : "")"
                if case .failure(let error) = result {
                    let text = "\(error)"
                    #expect(text.contains("disk I/O error") || text.contains("database or disk is full")
                            || text.contains("SQLite error 10") || text.contains("SQLite error 13"),
                            "\(how): the I/O error reported as: \(text)")
                }
                // The connection is usable (a read: the fault is gone).
                #expect((try? db.value(Int.self, "SELECT 40 + 2")) == 42, "\(how): the connection is not usable")
                #expect(FaultsAboveSQLiteTests.busyStatements(db).isEmpty, "\(how): statements left running")
                let s = try state(path)
                #expect(s.0 == "ok", "\(how): integrity_check: \(s.0)")
                #expect((s.1 == 1 && s.2 == 0) || (s.1 == whole.1 && s.2 == whole.2),
                        "\(how): half an import: \(s.1) rows, \(s.2) rejects (none: 1, 0; whole: \(whole.1), \(whole.2))")
                switch result {
                case .success: #expect(s.1 == whole.1, "\(how): success, yet \(s.1) rows")
                case .failure: #expect(s.1 == 1 && s.2 == 0, "\(how): an error, yet \(s.1 - 1) rows stored")
                }
                if hits == 0 { break }
                points += 1
                n += 1
            }
        }
        return points
    }

    @Test func importCSVUnderIOErrors() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("iofault-csv-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let csv = try Self.csvFile(dir)
        let points = try Self.sweep("importCSV") { db in
            try db.importCSV(contentsOfFile: csv, into: "t", options: CSVImportOptions(strict: false))
        }
        #expect(points > 10)
    }

    @Test func importCSVWithRejectsUnderIOErrors() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("iofault-rej-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let csv = try Self.csvFile(dir)
        let points = try Self.sweep("importCSV with a reject table") { db in
            try db.importCSV(contentsOfFile: csv, into: "t",
                             options: CSVImportOptions(strict: true, onError: .skip, rejectTable: "rej"))
        }
        #expect(points > 10)
    }

    @Test func importJSONUnderIOErrors() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("iofault-json-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let nd = try Self.ndjsonFile(dir)
        let points = try Self.sweep("importJSON") { db in
            try db.importJSON(contentsOfFile: nd, into: "t", options: JSONImportOptions(layout: .ndjson))
        }
        #expect(points > 10)
    }

    @Test func insertUnderIOErrors() throws {
        let people = (1...Self.rows).map { Person(id: $0, name: "P \($0)", score: Double($0) + 0.5) }
        let points = try Self.sweep("insert(contentsOf:)") { db in
            try db.insert(contentsOf: people, into: "t")
        }
        #expect(points > 10)
    }

    /// Output to a full disk (`/dev/full`: every write fails with ENOSPC), small results that
    /// fit the sink's buffer and large ones: the write throws the sink's error, the
    /// statement is reset, the connection usable.
    @Test func writeJSONAndWriteCSVToAFullDisk() throws {
        let db = try FaultsAboveSQLiteTests.makeDatabase()
        for limit in [3, FaultsAboveSQLiteTests.rows] {
            let sql = "SELECT id, title, done FROM t ORDER BY id LIMIT \(limit)"
            var json = try FileDescriptorSink(path: "/dev/full")
            #expect(throws: FileDescriptorSink.WriteError.writeFailed(errno: ENOSPC)) { try db.writeJSON(sql, to: &json) }
            var csv = try FileDescriptorSink(path: "/dev/full")
            #expect(throws: FileDescriptorSink.WriteError.writeFailed(errno: ENOSPC)) { try db.writeCSV(sql, to: &csv) }
            try FaultsAboveSQLiteTests.expectClean(db, "after writing \(limit) rows to a full disk")
        }
    }

    /// A `DatabasePool` writer inserting under readers, through "faulty" (the pool's path as a
    /// `file:` URI naming the VFS; Debian's SQLite reads URIs in every open): the write is all
    /// or nothing, and no reader ever sees part of it.
    @Test func aPoolWriterUnderReadersUnderIOErrors() async throws {
        #expect(sq_fault_vfs_register() == SQLITE_OK)
        let people = (1...Self.rows).map { Person(id: $0, name: "P \($0)", score: Double($0) + 0.5) }
        var points = 0
        for persist in [false, true] {
            var n = 1
            while true {
                let dir = FileManager.default.temporaryDirectory.appendingPathComponent("iofault-pool-\(UUID().uuidString)")
                try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
                defer { try? FileManager.default.removeItem(at: dir) }
                let path = dir.appendingPathComponent("p.db").path
                try Database(path: path).execute("""
                    PRAGMA journal_mode=WAL;
                    CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT, score REAL);
                    INSERT INTO t VALUES (-1, 'there before', 0)
                    """)
                let pool = try DatabasePool(path: "file:\(path)?vfs=faulty", readers: 2)
                sq_fault_vfs_arm(Int64(n), persist ? 1 : 0)
                async let written: Void = pool.write { db in _ = try db.insert(contentsOf: people, into: "t") }
                var seen: Set<Int> = []
                for _ in 0..<20 {
                    if let c = try? await pool.read({ db in try db.value(Int.self, "SELECT count(*) FROM t") }) {
                        seen.insert(c)
                    }
                }
                let result: Result<Void, any Error>
                do { try await written; result = .success(()) } catch { result = .failure(error) }
                let hits = sq_fault_vfs_disarm()
                let how = "pool, N=\(n)\(persist ? " (persistent)" : "")"
                #expect(seen.isSubset(of: [1, Self.rows + 1]), "\(how): a reader saw \(seen)")
                let s = try Self.state(path, hasRejects: false)
                #expect(s.0 == "ok", "\(how): integrity_check: \(s.0)")
                switch result {
                case .success: #expect(s.1 == Self.rows + 1, "\(how): success, yet \(s.1) rows")
                case .failure(let error):
                    #expect(s.1 == 1, "\(how): an error (\(error)), yet \(s.1 - 1) rows stored")
                }
                if hits == 0 { break }
                points += 1
                n += 1
            }
        }
        #expect(points > 5)
    }
}
