import Testing
@testable import StreamQLite
import CStreamQLite

/// ``IngestBatchWriter`` fed from a pipe in hold mode (`sq_pipe_hold`): the rows it binds
/// where they lie, then more rows after the pipe goes away. (The file imports that use it
/// are compared with the same bytes from memory in ``ImportPipelineTests``.)
@Suite struct IngestBatchWriterHoldTests {
    /// A row of the test worker below: `id`, and a name long enough to fill the 256-byte
    /// blocks of its pipe in a few rows.
    private static func name(_ i: Int) -> String { "name \(i) " + String(repeating: "é", count: 20 + i % 7) }

    /// Row `i` (id, name) as the ingest core gives it, valid during `body`.
    private static func withRow<R>(_ i: Int, _ body: (sq_ingest_row) throws -> R) rethrows -> R {
        var bytes = Array(name(i).utf8)
        return try bytes.withUnsafeMutableBufferPointer { b in
            var values = [sq_ingest_value(), sq_ingest_value()]
            values[0].type = SQ_INGEST_V_INTEGER
            values[0].i = Int64(i)
            values[1].type = SQ_INGEST_V_TEXT
            values[1].text = UnsafeRawPointer(b.baseAddress!).assumingMemoryBound(to: CChar.self)
            values[1].len = b.count
            return try values.withUnsafeBufferPointer { v in
                var row = sq_ingest_row()
                row.index = Int64(i)
                row.ncol = 2
                row.values = v.baseAddress
                return try body(row)
            }
        }
    }

    /// Puts rows 0..<25 into its pipe, then the end.
    private static let putRows: @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?) -> Void = { pipe, _ in
        for i in 0..<25 {
            _ = withRow(i) { row in withUnsafePointer(to: row) { sq_pipe_put_row(pipe, $0) } }
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
            try Self.withRow(i) { try writer.add($0) }
        }
        #expect(try writer.finish() == 37)
        let stored = try db.scalarText("SELECT group_concat(id || ':' || name, '|') FROM (SELECT * FROM t ORDER BY rowid)")
        #expect(stored == (0..<37).map { "\($0):\(Self.name($0))" }.joined(separator: "|"))
    }
}
