import Foundation
import Testing
@testable import StreamQLite

/// Whatever the database holds, `writeJSON` writes valid JSON or throws: checked by
/// Python's `json` as an outside parser.
@Suite struct JSONOutputValidityTests {
    let db: Database
    init() throws { db = try Database() }

    func json(_ sql: String, options: JSONWriterOptions = JSONWriterOptions()) throws -> String {
        var out: [UInt8] = []
        try db.writeJSON(sql, to: &out, options: options)
        return String(decoding: out, as: UTF8.self)
    }

    @Test func infiniteNumbersInsideSQLiteJSONAreWrittenAsNull() throws {
        let out = try json("SELECT json_object('n', 9e999, 'm', -9e999, 's', 'Inf', 'k', json_array(9e999, 1)) AS j")
        #expect(out == #"[{"j":{"n":null,"m":null,"s":"Inf","k":[null,1]}}]"#)
        let parsed = try runPython("import json, sys; print(json.loads(sys.argv[1]))", args: [out])
        #expect(parsed.contains("'n': None"))
    }

    @Test func anInfiniteRealColumnIsNullToo() throws {
        #expect(try json("SELECT 9e999 AS r, -9e999 AS s") == #"[{"r":null,"s":null}]"#)
    }

    @Test func anEmptyRawJSONColumnIsNullNotAMissingValue() throws {
        let out = try json("SELECT '' AS j", options: JSONWriterOptions(rawJSONColumns: ["j"]))
        #expect(out == #"[{"j":null}]"#)
    }

    @Test func invalidRawJSONTextIsAnErrorWithItsPosition() throws {
        let error = #expect(throws: JSONWriterError.self) {
            _ = try json("SELECT '[1, 2' AS j", options: JSONWriterOptions(rawJSONColumns: ["j"]))
        }
        guard case let .invalidRawJSON(row, column, _, _)? = error else { Issue.record("no error"); return }
        #expect(row == 0 && column == "j")
    }

    @Test func aStepErrorWhileWritingJSONCarriesTheSQL() throws {
        let sql = "SELECT json(x) FROM (SELECT '[1]' AS x UNION ALL SELECT 'not json')"
        let error = #expect(throws: DatabaseError.self) { _ = try json(sql) }
        #expect(error?.sql == sql)
    }
}
