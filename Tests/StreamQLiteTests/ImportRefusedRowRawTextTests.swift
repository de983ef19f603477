import Foundation
import Synchronization
import Testing
@testable import StreamQLite
import CStreamQLite

/// A row the table refuses (`onError: .skip`, a CHECK constraint) is rejected with the raw
/// text a format reject of the same record gets (`sq_ingest_set_row_raw`): the same bytes,
/// the same 4096-byte limit cut before a UTF-8 character, the same `raw_truncated`. Each
/// input is imported twice: leniently into a table whose CHECK refuses the rows with a bad
/// amount, and in strict mode, where the same records are format rejects; the rejects must
/// match, in the reject table and for `onReject`. From bytes (the calling thread), from a
/// small file (the calling thread), from a large one and its gzip (the worker,
/// `sq_pipe.h`), at several chunk and batch sizes; records cross chunks, span lines (a
/// quoted newline, an escaped one), and some are longer than the limit.
@Suite struct ImportRefusedRowRawTextTests {
    enum Format: CaseIterable { case csv, ndjson, array }

    let dir: String

    init() throws {
        dir = NSTemporaryDirectory() + "sq-refused-raw-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    }

    /// Pseudo-random letters (they compress poorly: the gzip file stays over `SQ_PIPE_MIN_INPUT`).
    private static func letters(_ seed: Int, _ n: Int) -> String {
        let alphabet = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        var x = UInt64(seed) &* 6364136223846793005 &+ 1442695040888963407
        var s = ""
        s.reserveCapacity(n)
        for _ in 0..<n {
            x = x &* 6364136223846793005 &+ 1442695040888963407
            s.append(alphabet[Int(x >> 33) % alphabet.count])
        }
        return s
    }

    /// Record `i`: every 13th (from 5) has a bad amount; every 29th (from 3) a note longer
    /// than the raw text's limit, of 2-byte characters behind 0 or 1 ASCII byte (the cut
    /// falls inside a character or between two); every 17th a newline in its name.
    private static func fields(_ i: Int) -> (name: String, amount: String?, bad: String?, note: String) {
        let name = i % 17 == 0 ? "N\n\(i)" : "N, \(i)"
        let note = i % 29 == 3 ? String(repeating: "a", count: i % 2) + String(repeating: "é", count: 2100 + i % 3)
                               : letters(i, 100 + (i * 37) % 800)
        return (name, i % 13 == 5 ? nil : String(i * 3), i % 13 == 5 ? "x\(i)" : nil, note)
    }

    static func text(_ format: Format, _ n: Int) -> String {
        var s = format == .csv ? "id,name,amount,note\n" : format == .array ? "[\n" : ""
        for i in 0..<n {
            let f = fields(i)
            switch format {
            case .csv:
                s += "\(i),\"\(f.name)\",\(f.amount ?? f.bad!),\(f.note)\n"
            case .ndjson, .array:
                if format == .array && i > 0 { s += ",\n" }
                let name = f.name.replacingOccurrences(of: "\n", with: "\\n")
                s += "{\"id\": \(i), \"name\": \"\(name)\", \"amount\": \(f.amount ?? "\"\(f.bad!)\""), \"note\": \"\(f.note)\"}"
                if format == .ndjson { s += "\n" }
            }
        }
        return format == .array ? s + "\n]\n" : s
    }

    private func write(_ name: String, _ text: String, gzip: Bool = false) throws -> String {
        let path = dir + "/" + name
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        guard gzip else { return path }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/sh")
        p.arguments = ["-c", "gzip -c '\(path)' > '\(path).gz'"]
        try p.run()
        p.waitUntilExit()
        return path + ".gz"
    }

    enum Source { case bytes, file(String) }

    /// Imports `text` from `source` (refused: leniently into a table refusing the bad
    /// amounts; else strictly, where they are format rejects): the rows stored, the reject
    /// table's (record, raw, raw_truncated) and onReject's.
    private func rejects(_ format: Format, _ text: String, from source: Source, refused: Bool,
                         chunkSize: Int, batchSize: Int) throws -> (rows: Int, table: String, reported: [String]) {
        let db = try Database(path: ":memory:")
        try db.execute("PRAGMA journal_mode=MEMORY")
        try db.execute("CREATE TABLE t(id INTEGER, name TEXT, amount INTEGER"
                       + (refused ? " CHECK (typeof(amount) = 'integer')" : "") + ", note TEXT)")
        let got = Mutex<[String]>([])
        let onReject: @Sendable (ImportReject) -> Void = { r in
            got.withLock { $0.append("\(r.record):\(r.rawTruncated):" + r.raw.map { String($0, radix: 16) }.joined(separator: " ")) }
        }
        let n: Int
        switch (format, source) {
        case (.csv, _):
            let o = CSVImportOptions(strict: !refused, batchSize: batchSize, chunkSize: chunkSize, onError: .skip,
                                     rejectTable: "rej", onReject: onReject)
            if case .file(let path) = source {
                n = try db.importCSV(contentsOfFile: path, into: "t", options: o)
            } else {
                n = try db.importCSV(bytes: Array(text.utf8), into: "t", options: o)
            }
        case (.ndjson, _), (.array, _):
            let o = JSONImportOptions(layout: format == .ndjson ? .ndjson : .array, strict: !refused, batchSize: batchSize,
                                      chunkSize: chunkSize, onError: .skip, rejectTable: "rej", onReject: onReject)
            if case .file(let path) = source {
                n = try db.importJSON(contentsOfFile: path, into: "t", options: o)
            } else {
                n = try db.importJSON(bytes: Array(text.utf8), into: "t", options: o)
            }
        }
        let table = try db.scalarText("""
            SELECT group_concat(record || ':' || quote(raw) || ':' || raw_truncated, char(10))
            FROM (SELECT * FROM rej ORDER BY record)
            """) ?? ""
        // (the refused rows arrive when their batch runs, after later format rejects: sorted)
        return (n, table, got.withLock { $0 }.sorted { Int($0.prefix { $0 != ":" })! < Int($1.prefix { $0 != ":" })! })
    }

    /// The refused and the strict import of `text` from `source` reject the same records with
    /// the same raw text.
    private func expectSameRawText(_ format: Format, _ text: String, from source: Source, chunkSize: Int,
                                   batchSize: Int, records n: Int) throws {
        let refused = try rejects(format, text, from: source, refused: true, chunkSize: chunkSize, batchSize: batchSize)
        let strict = try rejects(format, text, from: source, refused: false, chunkSize: chunkSize, batchSize: batchSize)
        let bad = (0..<n).filter { $0 % 13 == 5 }
        #expect(refused.rows == n - bad.count && strict.rows == refused.rows)
        #expect(refused.reported.count == bad.count)
        #expect(refused.table == strict.table)
        #expect(refused.reported == strict.reported)
        // cut records and whole ones among them, none without its text
        #expect(strict.table.contains(":1\n") && strict.table.contains(":0\n"))
        #expect(refused.table.split(separator: "\n").allSatisfy { !$0.contains(":NULL:") })
    }

    @Test(arguments: Format.allCases, [(997, 1), (8_192, 7), (65_536, 50)])
    func refusedRowsCarryTheRawTextOfAFormatReject(format: Format, sizes: (chunk: Int, batch: Int)) throws {
        let big = Self.text(format, 1_300), small = Self.text(format, 200)
        #expect(big.utf8.count > 2 * Int(SQ_PIPE_MIN_INPUT) && small.utf8.count < Int(SQ_PIPE_MIN_INPUT))
        let name = "\(format)-\(sizes.chunk)"
        // the calling thread: bytes, a small file
        try expectSameRawText(format, big, from: .bytes, chunkSize: sizes.chunk, batchSize: sizes.batch, records: 1_300)
        try expectSameRawText(format, small, from: .file(write(name + "-small", small)), chunkSize: sizes.chunk,
                              batchSize: sizes.batch, records: 200)
        // the worker (when a second CPU is online): a large file, its gzip
        let started = sq_pipe_workers_started()
        try expectSameRawText(format, big, from: .file(write(name + "-big", big)), chunkSize: sizes.chunk,
                              batchSize: sizes.batch, records: 1_300)
        let gz = try write(name + "-gz", big, gzip: true)
        #expect(try FileManager.default.attributesOfItem(atPath: gz)[.size] as! Int >= Int(SQ_PIPE_MIN_INPUT))
        try expectSameRawText(format, big, from: .file(gz), chunkSize: sizes.chunk, batchSize: sizes.batch, records: 1_300)
        #expect(sq_pipe_workers_started() - started == (sq_pipe_worth_it() != 0 ? 4 : 0))
    }
}
