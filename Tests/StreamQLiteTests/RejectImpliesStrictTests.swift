import Testing
@testable import StreamQLite

/// Asking for rejects (`onError: .skip`) makes a value that does not fit its column a reject:
/// `x50` never lands as TEXT in an INTEGER column, in importCSV and importJSON alike; a key no
/// column takes is still ignored, as without rejects.
@Suite struct RejectImpliesStrictTests {
    @Test func importCSVRejectsAValueItsColumnCannotHold() throws {
        let db = try Database()
        try db.execute("CREATE TABLE t(a INTEGER, b TEXT)")
        let n = try db.importCSV(bytes: Array("a,b,extra\n1,x,e\nx50,y,e\n3,z,e\n".utf8), into: "t",
                                 options: .init(onError: .skip, rejectTable: "rej"))
        #expect(n == 2)
        #expect(try db.scalarText("SELECT group_concat(a || ':' || typeof(a), ' ') FROM t") == "1:integer 3:integer")
        #expect(try db.scalarText("SELECT reason FROM rej")?.contains("'x50' is not an integer") == true)
    }

    @Test func importJSONRejectsAValueItsColumnCannotHold() throws {
        let db = try Database()
        try db.execute("CREATE TABLE t(a INTEGER, b TEXT)")
        let n = try db.importJSON(bytes: Array(#"[{"a":1,"b":"x","extra":1},{"a":"x50","b":"y"},{"a":3,"b":"z"}]"#.utf8),
                                  into: "t", options: .init(onError: .skip, rejectTable: "rej"))
        #expect(n == 2)
        #expect(try db.scalarText("SELECT group_concat(a || ':' || typeof(a), ' ') FROM t") == "1:integer 3:integer")
        #expect(try db.scalarText("SELECT count(*) FROM rej") == "1")
    }
}
