import Foundation
import Synchronization
import Testing
@testable import StreamQLite
import CStreamQLite

/// How a refused batch is taken back with `onError: .skip` (``InsertBatcher``): where no
/// FAIL conflict resolution can apply (`sq_reject_refusal_undone`), SQLite's own
/// statement rollback (ABORT) undoes it, with no savepoint per batch and no `ROLLBACK TO`
/// (which, once the import has created its reject table, makes SQLite prepare every
/// statement again); where FAIL can apply, the batch savepoint does. Either way the rows,
/// rejects and side effects are what storing the good rows alone gives: conflict clauses
/// IGNORE, REPLACE, FAIL and ROLLBACK on the table, triggers that write elsewhere, an
/// outer transaction; and an import that stops leaves nothing, its reject table included.
@Suite struct ImportRefusedRowUndoTests {
    let db: Database

    init() throws {
        db = try Database(path: ":memory:")
    }

    private func text(_ sql: String) throws -> String { try db.scalarText(sql) ?? "NULL" }

    /// The statements SQLite runs on `db` during `body` whose SQL starts with `prefix`.
    private func counting(_ prefix: String, _ body: () throws -> Void) rethrows -> Int {
        final class Count { var n = 0; let prefix: String; init(_ p: String) { prefix = p } }
        let count = Count(prefix)
        let trace: @convention(c) (UInt32, UnsafeMutableRawPointer?, UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> Int32 = { _, ctx, _, sql in
            let c = Unmanaged<Count>.fromOpaque(ctx!).takeUnretainedValue()
            if let sql, String(cString: sql.assumingMemoryBound(to: CChar.self)).hasPrefix(c.prefix) { c.n += 1 }
            return 0
        }
        sqlite3_trace_v2(db.handle, UInt32(SQLITE_TRACE_STMT), trace, Unmanaged.passUnretained(count).toOpaque())
        defer { sqlite3_trace_v2(db.handle, 0, nil, nil) }
        try body()
        return count.n
    }

    /// `id,v` records 0..<n, `v` = "v<id>"; ids in `repeated` are written twice (the second
    /// time with "w<id>").
    private func csv(_ n: Int, repeated: Set<Int> = []) -> [UInt8] {
        var s = "id,v\n"
        for i in 0..<n {
            s += "\(i),v\(i)\n"
            if repeated.contains(i) { s += "\(i),w\(i)\n" }
        }
        return Array(s.utf8)
    }

    private func rows(_ table: String) throws -> String {
        try text("SELECT group_concat(id || v, ' ') FROM (SELECT * FROM \(table) ORDER BY rowid)")
    }

    @Test func aRefusedRowIsUndoneByItsStatementWhereNoFailCanApply() throws {
        try db.execute("CREATE TABLE t(id INTEGER CHECK (id % 10 <> 7), v TEXT)")
        let rollbacks = try counting("ROLLBACK TO") { () throws -> Void in
            #expect(try db.importCSV(bytes: csv(40), into: "t",
                                     options: .init(batchSize: 6, onError: .skip, rejectTable: "rej")) == 36)
        }
        #expect(rollbacks == 0)
        #expect(try text("SELECT group_concat(record, ' ') FROM rej") == "7 17 27 37")
        #expect(try text("SELECT count(*) || '/' || sum(id) FROM t") == "36/\((0..<40).filter { $0 % 10 != 7 }.reduce(0, +))")
    }

    @Test func aFailClauseKeepsTheBatchSavepoint() throws {
        try db.execute("CREATE TABLE f(id INTEGER UNIQUE ON CONFLICT FAIL, v TEXT)")
        #expect(sq_reject_refusal_undone(db.handle) == 0)
        let rollbacks = try counting("ROLLBACK TO") { () throws -> Void in
            #expect(try db.importCSV(bytes: csv(20, repeated: [3, 11]), into: "f",
                                     options: .init(batchSize: 4, onError: .skip, rejectTable: "rej")) == 20)
        }
        #expect(rollbacks > 0)
        #expect(try rows("f") == (0..<20).map { "\($0)v\($0)" }.joined(separator: " "))
        #expect(try text("SELECT group_concat(raw, ' ') FROM rej") == "3,w3 11,w11")
    }

    @Test func theFailRuleReadsEveryTableAndTriggerOfEverySchemaForTheWord() throws {
        #expect(sq_reject_refusal_undone(db.handle) == 1)
        try db.execute("CREATE TABLE failures(fail_count INTEGER, note TEXT DEFAULT 'no FAILURE', \"failed\" INTEGER)")
        #expect(sq_reject_refusal_undone(db.handle) == 1)
        try db.execute("CREATE TEMP TABLE x(a INTEGER NOT NULL ON CONFLICT fail)")
        #expect(sq_reject_refusal_undone(db.handle) == 0)
        try db.execute("DROP TABLE x")
        try db.execute("""
            CREATE TEMP TRIGGER tr AFTER INSERT ON failures BEGIN SELECT raise(Fail, 'x') WHERE NEW.fail_count < 0; END
            """)
        #expect(sq_reject_refusal_undone(db.handle) == 0)
    }

    @Test func ignoreAndReplaceClausesStoreWhatTheyStoredBefore() throws {
        try db.execute("""
            CREATE TABLE i(id INTEGER UNIQUE ON CONFLICT IGNORE, v TEXT);
            CREATE TABLE r(id INTEGER UNIQUE ON CONFLICT REPLACE, v TEXT CHECK (v <> 'v5'));
            """)
        let input = csv(12, repeated: [2, 9])
        // IGNORE: SQLite drops the repeated ids silently (no reject; counted as stored)
        #expect(try db.importCSV(bytes: input, into: "i", options: .init(batchSize: 5, onError: .skip, rejectTable: "rej")) == 14)
        #expect(try rows("i") == (0..<12).map { "\($0)v\($0)" }.joined(separator: " "))
        // REPLACE: the second of each repeated id replaces the first; the CHECK refuses v5
        #expect(try db.importCSV(bytes: input, into: "r", options: .init(batchSize: 5, onError: .skip, rejectTable: "rej")) == 13)
        #expect(try rows("r") == "0v0 1v1 2w2 3v3 4v4 6v6 7v7 8v8 9w9 10v10 11v11")
        #expect(try text("SELECT group_concat(record || ':' || raw, ' ') FROM rej") == "6:5,v5")
    }

    @Test func triggersWritingElsewhereAreUndoneWithTheirRow() throws {
        try db.execute("""
            CREATE TABLE log(x INTEGER CHECK (x <> 7));
            CREATE TABLE before_log(x INTEGER);
            CREATE TABLE g(id INTEGER CHECK (id <> 13), v TEXT);
            CREATE TRIGGER g_before BEFORE INSERT ON g BEGIN INSERT INTO before_log VALUES (NEW.id); END;
            CREATE TRIGGER g_after AFTER INSERT ON g BEGIN INSERT INTO log VALUES (NEW.id); END;
            """)
        let rollbacks = try counting("ROLLBACK TO") { () throws -> Void in
            // 7: refused by the AFTER trigger's insert; 13: by g's CHECK after the BEFORE trigger ran
            #expect(try db.importCSV(bytes: csv(20), into: "g", options: .init(batchSize: 6, onError: .skip, rejectTable: "rej")) == 18)
        }
        #expect(rollbacks == 0)
        let kept = (0..<20).filter { $0 != 7 && $0 != 13 }
        #expect(try rows("g") == kept.map { "\($0)v\($0)" }.joined(separator: " "))
        #expect(try text("SELECT group_concat(x, ' ') FROM (SELECT x FROM log ORDER BY rowid)") == kept.map(String.init).joined(separator: " "))
        #expect(try text("SELECT group_concat(x, ' ') FROM (SELECT x FROM before_log ORDER BY rowid)") == kept.map(String.init).joined(separator: " "))
        #expect(try text("SELECT group_concat(record || ':' || raw, ' ') FROM rej") == "7:7,v7 13:13,v13")
    }

    @Test func aRollbackClauseStillStopsAndLeavesNoRejectTable() throws {
        try db.execute("CREATE TABLE rb(id INTEGER, v TEXT NOT NULL ON CONFLICT ROLLBACK)")
        #expect(throws: CSVImportError.self) {
            try db.importCSV(bytes: Array("id,v\n1,a\n2,\n3,c\n".utf8), into: "rb",
                             options: .init(onError: .skip, rejectTable: "rej"))
        }
        #expect(try text("SELECT count(*) FROM rb") == "0")
        #expect(try text("SELECT count(*) FROM sqlite_schema WHERE name = 'rej'") == "0")
        #expect(db.isAutocommit)
    }

    @Test func aSpentBudgetOfRefusedRowsLeavesNoRowsAndNoRejectTable() throws {
        try db.execute("CREATE TABLE t(id INTEGER CHECK (id % 10 <> 7), v TEXT)")
        #expect {
            try db.importCSV(bytes: csv(100), into: "t",
                             options: .init(batchSize: 8, onError: .skip, maxErrors: .count(5), rejectTable: "rej"))
        } throws: { ($0 as? CSVImportError)?.message.hasPrefix("more than 5 records rejected (maxErrors=5)") == true }
        #expect(try text("SELECT count(*) FROM t") == "0")
        #expect(try text("SELECT count(*) FROM sqlite_schema WHERE name = 'rej'") == "0")
    }

    @Test func insideAnOuterTransactionTheRefusedRowsAreUndoneAlone() throws {
        try db.execute("CREATE TABLE t(id INTEGER CHECK (id % 10 <> 7), v TEXT)")
        try db.execute("BEGIN")
        try db.execute("INSERT INTO t VALUES (-1, 'before')")
        #expect(try db.importCSV(bytes: csv(30), into: "t", options: .init(batchSize: 4, onError: .skip, rejectTable: "rej")) == 27)
        try db.execute("INSERT INTO t VALUES (-2, 'after')")
        try db.execute("COMMIT")
        #expect(try text("SELECT count(*) || '/' || min(id) || '/' || (SELECT count(*) FROM rej) FROM t") == "29/-2/3")
    }
}
