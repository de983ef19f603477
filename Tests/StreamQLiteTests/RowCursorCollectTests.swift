import Testing
@testable import StreamQLite

/// ``RowCursor/collect()``: every row's values, copied before the statement steps on.
@Suite struct RowCursorCollectTests {
    @Test func collectsEveryRowsValuesInColumnOrder() throws {
        let db = try Database()
        try db.execute("""
            CREATE TABLE t(id INTEGER PRIMARY KEY, title TEXT, score REAL, data BLOB, note TEXT);
            INSERT INTO t VALUES (1, 'milk', 1.5, x'0001', NULL), (2, 'eggs', -2.0, x'', 'n');
            """)
        let cursor = try db.rows("SELECT id, title, score, data, note FROM t ORDER BY id")
        #expect(try cursor.collect() == [
            [.integer(1), .text("milk"), .real(1.5), .blob([0, 1]), .null],
            [.integer(2), .text("eggs"), .real(-2.0), .blob([]), .text("n")],
        ])
        #expect(try cursor.collect() == [])   // exhausted
        #expect(try db.rows("SELECT id FROM t WHERE id > ?", 5).collect() == [])
        // arguments by name, and the statement is back in the cache in a clean state
        #expect(try db.rows("SELECT title FROM t WHERE id = :id", arguments: [":id": 2]).collect() == [[.text("eggs")]])
        #expect(try db.value(Int.self, "SELECT count(*) FROM t") == 2)
    }

    @Test func aFailingStepThrows() throws {
        let db = try Database()
        #expect(throws: DatabaseError.self) {
            try db.rows("SELECT locale_week('2011-02-30', 'en_US')").collect()
        }
    }
}
