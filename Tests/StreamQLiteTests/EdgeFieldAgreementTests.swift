import Foundation
import Testing
@testable import StreamQLite

/// The shared table of edge field texts (`Tests/Fixtures/edge-fields.tsv`, also checked through
/// the SQL typed tables by `scripts/check-ext-edge-fields.py`) through the Swift paths:
/// `importCSV` into a declared INTEGER or REAL column (strict and not), `importCSV(createTable:)`
/// (the inferred type), and `CSVDecodableCursor`/`CSVRowCursor` decoding `Int` and `Double`.
/// One rule in C (`sq_number.h`) decides them all: the same value, or the same refusal.
@Suite struct EdgeFieldAgreementTests {
    struct Row {
        var raw: [UInt8]      // the field as written in the file
        var text: String?     // its text (nil: NULL)
        var asInteger: String, asReal: String, inferred: String
    }

    /// Refusals that are errors in every mode (the column would change the number).
    static let changed = ["beyond the range of a REAL", "too close to zero for a REAL", "negative zero"]

    static let rows: [Row] = {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/edge-fields.tsv")
        let lines = (try? String(contentsOf: url, encoding: .utf8)) ?? ""
        return lines.split(separator: "\n", omittingEmptySubsequences: true).compactMap { line in
            if line.hasPrefix("#") { return nil }
            let c = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard c.count == 4 else { return nil }
            let raw = c[0].replacingOccurrences(of: "\\0", with: "\0")
            let text: String? = raw.isEmpty ? nil
                : raw.hasPrefix("\"") ? String(raw.dropFirst().dropLast()).replacingOccurrences(of: "\"\"", with: "\"")
                : raw
            return Row(raw: Array(raw.utf8), text: text, asInteger: c[1], asReal: c[2], inferred: c[3])
        }
    }()

    struct IntField: Decodable, RowDecodable { var v: Int?; init(row: StreamQLite.Row) throws { v = try row["v"] } }
    struct DoubleField: Decodable, RowDecodable { var v: Double?; init(row: StreamQLite.Row) throws { v = try row["v"] } }

    /// typeof(v) and v of the one row of `t`.
    static func stored(_ db: Database) throws -> (String, DatabaseValue) {
        struct TV: RowDecodable { var t: String, v: DatabaseValue
            init(row: StreamQLite.Row) throws { t = try row[0]; v = row.value(at: 1) } }
        let r = try db.rows(TV.self, "SELECT typeof(v), v FROM t").collect()
        return (r[0].t, r[0].v)
    }

    @Test func theTableIsRead() {
        #expect(Self.rows.count >= 45)
    }

    @Test(arguments: ["INTEGER", "REAL"])
    func importCSVIntoADeclaredColumn(_ type: String) throws {
        for row in Self.rows {
            let want = type == "INTEGER" ? row.asInteger : row.asReal
            let file = Array("v\n".utf8) + row.raw + [0x0A]
            for strict in [false, true] {
                let db = try Database()
                try db.execute("CREATE TABLE t(v \(type))")
                let what = "\(String(decoding: row.raw, as: UTF8.self).debugDescription) into \(type), strict \(strict)"
                do {
                    try db.importCSV(bytes: file, into: "t", options: .init(strict: strict))
                    let (t, v) = try Self.stored(db)
                    switch want {
                    case "null": #expect(t == "null", "\(what)")
                    case "i": #expect(v == .integer(Int64(row.text!)!), "\(what): \(v)")
                    case "r":
                        if case .real(let d) = v { #expect(d.bitPattern == Double(row.text!)!.bitPattern, "\(what): \(d)") }
                        else { Issue.record("\(what): \(v), want a REAL") }
                    default:
                        #expect(!strict && !Self.changed.contains(want), "\(what): stored \(v), want an error saying \(want)")
                    }
                } catch let e as CSVImportError {
                    let refused = want != "i" && want != "r" && want != "null"
                    #expect(refused && (strict || Self.changed.contains(want)) && e.message.contains(want),
                            "\(what): \(e)")
                    #expect(try db.scalarText("SELECT count(*) FROM t") == "0", "\(what): nothing is stored")
                }
            }
        }
    }

    @Test func importCSVInfersTheSameTypes() throws {
        for row in Self.rows where row.text != nil {
            let db = try Database()
            try db.importCSV(bytes: Array("v\n".utf8) + row.raw + [0x0A], into: "t", options: .init(createTable: true))
            let type = try db.scalarText("SELECT type FROM pragma_table_info('t')")
            #expect(type == row.inferred, "\(row.raw): inferred \(type ?? "nil"), want \(row.inferred)")
        }
    }

    @Test func cursorsDecodeIntAndDoubleByTheSameRule() throws {
        for row in Self.rows {
            let file = Array("v\n".utf8) + row.raw + [0x0A]
            let name = String(decoding: row.raw, as: UTF8.self).debugDescription
            // Int: the INTEGER column's answer; Double: the REAL column's (the same bits)
            try expectCursors(IntField.self, file, row.asInteger, "Int \(name)") { $0.v.map { Int64($0) } }
                wanted: { Int64(row.text!)! }
            try expectCursors(DoubleField.self, file, row.asReal, "Double \(name)") { $0.v.map { Int64(bitPattern: $0.bitPattern) } }
                wanted: { Int64(bitPattern: Double(row.text!)!.bitPattern) }
        }
    }

    /// Both cursors read `file` into `T`; `value` is the field as comparable bits, `wanted`
    /// those of the expected value (`want` "i"/"r"), nil for "null", else a refusal.
    func expectCursors<T: Decodable & RowDecodable>(_ type: T.Type, _ file: [UInt8], _ want: String, _ what: String,
                                                    _ value: (T) -> Int64?, wanted: () -> Int64) throws {
        let reads: [(String, () throws -> T)] = [
            ("CSVDecodableCursor", { try CSVDecodableCursor(T.self, bytes: file).collect()[0] }),
            ("CSVRowCursor", { try CSVRowCursor(T.self, bytes: file).collect()[0] }),
        ]
        for (cursor, read) in reads {
            switch want {
            case "null": #expect(try value(read()) == nil, "\(cursor) \(what)")
            case "i", "r": #expect(try value(read()) == wanted(), "\(cursor) \(what)")
            default: expectRefusal(want, "\(cursor) \(what)") { _ = try read() }
            }
        }
    }

    /// An error; for a number the column would change, its message says why.
    func expectRefusal(_ words: String, _ what: String, _ body: () throws -> Void) {
        do {
            try body()
            Issue.record("\(what): decoded, want an error (\(words))")
        } catch {
            if Self.changed.contains(words) {
                #expect("\(error)".contains(words), "\(what): \(error)")
            }
        }
    }
}
