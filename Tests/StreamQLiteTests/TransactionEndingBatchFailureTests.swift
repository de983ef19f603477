import Foundation
import Testing
@testable import StreamQLite

// A batch whose failure makes SQLite roll back the whole transaction itself (here
// RAISE(ROLLBACK) in a trigger; SQLITE_INTERRUPT and SQLITE_FULL do the same): the write
// path must not replay the batch's rows one by one to find the failing row, since each
// replayed row would then run, and be committed, outside any transaction.

@Suite struct TransactionEndingBatchFailureTests {
    static func database() throws -> Database {
        let db = try Database()
        try db.execute("CREATE TABLE t(id INTEGER PRIMARY KEY, v TEXT)")
        try db.execute("""
            CREATE TRIGGER undo BEFORE INSERT ON t WHEN NEW.id = 40
            BEGIN SELECT RAISE(ROLLBACK, 'row 40 undoes the transaction'); END
            """)
        return db
    }

    static let csv = "id,v\n" + (0..<100).map { "\($0),row \($0)\n" }.joined()

    @Test func importCSVStoresNothingOutsideTheTransaction() throws {
        let db = try Self.database()
        #expect(throws: (any Error).self) {
            try db.transaction {
                try db.execute("INSERT INTO t VALUES (1000, 'before')")
                try db.importCSV(bytes: Array(Self.csv.utf8), into: "t")
            }
        }
        #expect(try db.value(Int.self, "SELECT count(*) FROM t") == 0)
        #expect(db.isAutocommit)
    }

    @Test func insertStoresNothingOutsideTheTransaction() throws {
        struct Row: Codable { var id: Int; var v: String }
        let db = try Self.database()
        #expect(throws: (any Error).self) {
            try db.transaction {
                try db.insert(contentsOf: (0..<100).map { Row(id: $0, v: "row \($0)") }, into: "t")
            }
        }
        #expect(try db.value(Int.self, "SELECT count(*) FROM t") == 0)
    }
}
