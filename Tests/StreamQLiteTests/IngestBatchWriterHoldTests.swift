import Foundation
import Testing
@testable import StreamQLite
import CStreamQLite

/// The rows a file import's worker hands over are bound where they lie in the pipe
/// (`sq_pipe_hold`, ``IngestBatchWriter/hold(in:)``) until their batch has run: the same
/// table as the same bytes imported from memory (rows copied), whatever the batch size,
/// with batches that start with rows read on the calling thread (CSV inference) and end
/// on the worker's, batches larger than the whole ring (the worker allocates rather than
/// wait), rows the table refuses (replayed from the held rows), and a last partial batch
/// (copied when the pipe goes away). Test builds overwrite a block given back, so a row
/// bound from a released block shows as wrong bytes.
@Suite struct IngestBatchWriterHoldTests {
    let dir: String

    init() throws {
        dir = NSTemporaryDirectory() + "sq-hold-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    }

    private func write(_ name: String, _ text: String) throws -> String {
        let path = dir + "/" + name
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    private func dump(_ db: Database) throws -> String {
        try db.scalarText("SELECT group_concat(quote(id) || '|' || quote(name) || '|' || quote(amount) || '|' || quote(note), char(10)) FROM (SELECT * FROM t ORDER BY rowid)") ?? ""
    }

    /// `n` records; every 199th has a note of `big` bytes (more than a block of the ring), the others short ones.
    private func csv(_ n: Int, big: Int) -> String {
        var s = "id,name,amount,note\n"
        for i in 0..<n {
            let note = i % 199 == 198 ? String(repeating: Character(UnicodeScalar(UInt8(97 + i % 26))), count: big)
                                    : String(repeating: "é", count: i % 37)
            s += "\(i),\"N, \(i)\",\(Double(i) * 0.75),\(note)\n"
        }
        return s
    }

    @Test(arguments: [1, 7, 50, 333])
    func csvInferredThenHeldEqualsTheBytesFromMemory(batchSize: Int) throws {
        // 517 records read on this thread to infer the table: the batch the worker's rows
        // join starts with copied rows (517 is no multiple of 7, 50 or 333)
        let text = csv(6_000, big: 100_000)
        let path = try write("infer-\(batchSize).csv", text)
        let options = CSVImportOptions(createTable: true, inferRecords: 517, batchSize: batchSize, chunkSize: 32 * 1024)
        let file = try Database(path: ":memory:"), memory = try Database(path: ":memory:")
        #expect(try file.importCSV(contentsOfFile: path, into: "t", options: options) == 6_000)
        #expect(try memory.importCSV(bytes: Array(text.utf8), into: "t", options: options) == 6_000)
        #expect(try dump(file) == dump(memory))
    }

    @Test func batchesLargerThanTheRingWithRefusedRowsEqualTheBytesFromMemory() throws {
        // 50 rows of 12 KB a batch: 600 KB held, more than the whole ring; every 97th row
        // breaks the CHECK and is replayed, refused and rejected
        var text = "id,name,amount,note\n"
        for i in 0..<1_000 {
            text += "\(i),n\(i),\(i % 97 == 96 ? -1 : i),\(String(repeating: Character(UnicodeScalar(UInt8(65 + i % 26))), count: 12_000 + i % 11))\n"
        }
        let path = try write("wide.csv", text)
        let file = try Database(path: ":memory:"), memory = try Database(path: ":memory:")
        for db in [file, memory] {
            try db.execute("PRAGMA journal_mode=MEMORY")
            try db.execute("CREATE TABLE t(id INTEGER, name TEXT, amount REAL CHECK (amount >= 0), note TEXT)")
        }
        let options = CSVImportOptions(batchSize: 50, chunkSize: 64 * 1024, onError: .skip, rejectTable: "rej")
        let n = try file.importCSV(contentsOfFile: path, into: "t", options: options)
        #expect(n == 1_000 - 1_000 / 97)
        #expect(try memory.importCSV(bytes: Array(text.utf8), into: "t", options: options) == n)
        #expect(try dump(file) == dump(memory))
        #expect(try file.scalarText("SELECT count(*) FROM rej WHERE reason LIKE '%CHECK%'") == String(1_000 / 97))
    }

    @Test(arguments: [1, 7, 50])
    func jsonHeldEqualsTheBytesFromMemory(batchSize: Int) throws {
        var text = "["
        for i in 0..<9_000 {
            if i > 0 { text += ",\n" }
            let note = i % 251 == 250 ? String(repeating: "q", count: 80_000) : String(repeating: "ü", count: i % 29)
            text += "{\"id\": \(i), \"name\": \"n\\\"\(i)\", \"amount\": \(i % 5 == 0 ? "null" : String(Double(i) / 8)), \"note\": \"\(note)\"}"
        }
        text += "]"
        let path = try write("held-\(batchSize).json", text)
        let file = try Database(path: ":memory:"), memory = try Database(path: ":memory:")
        for db in [file, memory] { try db.execute("CREATE TABLE t(id INTEGER, name TEXT, amount REAL, note TEXT)") }
        let options = JSONImportOptions(batchSize: batchSize, chunkSize: 16 * 1024)
        #expect(try file.importJSON(contentsOfFile: path, into: "t", options: options) == 9_000)
        #expect(try memory.importJSON(bytes: Array(text.utf8), into: "t", options: options) == 9_000)
        #expect(try dump(file) == dump(memory))
    }

    /// A row of the test worker below: `id`, and a name long enough to fill the 256-byte
    /// blocks of its pipe in a few rows.
    private static func name(_ i: Int) -> String { "name \(i) " + String(repeating: "é", count: 20 + i % 7) }

    /// Puts rows 0..<25 of (id, name) into its pipe, then the end.
    private static let putRows: @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?) -> Void = { pipe, _ in
        for i in 0..<25 {
            var bytes = Array(name(i).utf8)
            bytes.withUnsafeMutableBufferPointer { b in
                var values = [sq_ingest_value(), sq_ingest_value()]
                values[0].type = SQ_INGEST_V_INTEGER
                values[0].i = Int64(i)
                values[1].type = SQ_INGEST_V_TEXT
                values[1].text = UnsafeRawPointer(b.baseAddress!).assumingMemoryBound(to: CChar.self)
                values[1].len = b.count
                values.withUnsafeBufferPointer { v in
                    var row = sq_ingest_row()
                    row.index = Int64(i)
                    row.ncol = 2
                    row.values = v.baseAddress
                    _ = sq_pipe_put_row(pipe, &row)
                }
            }
        }
        _ = sq_pipe_put_end(pipe)
    }

    @Test func rowsAddedAfterThePipeGoesAwayJoinItsRowsInOneBatch() throws {
        // 25 rows from a pipe in batches of 10: two run, 5 are pending when the pipe goes
        // away (copied, and bound again from the copies); 12 rows added then fill their
        // batch with them: the batch statement must not read the pipe's released blocks
        let db = try Database(path: ":memory:")
        try db.execute("CREATE TABLE t(id INTEGER, name TEXT)")
        let writer = IngestBatchWriter(db: db, table: "t", columns: ["id", "name"],
                                       insertOptions: InsertOptions(batchSize: 10))
        let pipe = try #require(sq_pipe_new(256, 2))
        defer { sq_pipe_free(pipe) }
        writer.hold(in: pipe)
        #expect(sq_pipe_start(pipe, Self.putRows, nil) == 0)
        var item = sq_pipe_item()
        while true {
            #expect(sq_pipe_next(pipe, &item, nil, nil) == SQ_PIPE_OK)
            if item.kind != SQ_PIPE_ROW { break }
            #expect(withUnsafePointer(to: &item.row) { writer.take($0) } == SQ_INGEST_CONTINUE)
        }
        #expect(item.kind == SQ_PIPE_END)
        sq_pipe_stop(pipe)
        writer.hold(in: nil)
        for i in 25..<37 {
            var bytes = Array(Self.name(i).utf8)
            try bytes.withUnsafeMutableBufferPointer { b in
                var values = [sq_ingest_value(), sq_ingest_value()]
                values[0].type = SQ_INGEST_V_INTEGER
                values[0].i = Int64(i)
                values[1].type = SQ_INGEST_V_TEXT
                values[1].text = UnsafeRawPointer(b.baseAddress!).assumingMemoryBound(to: CChar.self)
                values[1].len = b.count
                try values.withUnsafeBufferPointer { v in
                    var row = sq_ingest_row()
                    row.index = Int64(i)
                    row.ncol = 2
                    row.values = v.baseAddress
                    try writer.add(row)
                }
            }
        }
        #expect(try writer.finish() == 37)
        let stored = try db.scalarText("SELECT group_concat(id || ':' || name, '|') FROM (SELECT * FROM t ORDER BY rowid)")
        #expect(stored == (0..<37).map { "\($0):\(Self.name($0))" }.joined(separator: "|"))
    }
}
