import Foundation
import Testing
@testable import StreamQLite

/// csv-spectrum (`../shared/csv-spectrum`: CSV files with their expected records as JSON)
/// through the Swift paths: `importCSV(createTable:)` (values read back as text) and
/// `CSVRowCursor` (each record's fields by header name). The SQL paths, and RFC 4180 cases
/// of our own: `scripts/check-ext-csv-spectrum.py`. `location_coordinates.csv` is not
/// RFC 4180 (a quote inside an unquoted field): an error naming line, byte and field.
@Suite struct CSVSpectrumTests {
    static let directory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("shared/csv-spectrum")

    /// (file name, bytes, expected records: header name → text).
    static let cases: [(String, [UInt8], [[String: String]])] = {
        let csvs = directory.appendingPathComponent("csvs")
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: csvs.path)) ?? []).sorted()
        return names.compactMap { name in
            guard let bytes = FileManager.default.contents(atPath: csvs.appendingPathComponent(name).path),
                  let json = FileManager.default.contents(
                      atPath: directory.appendingPathComponent("json/\(name.dropLast(4)).json").path),
                  let parsed = try? JSONSerialization.jsonObject(with: json) else { return nil }
            let records = (parsed as? [[String: String]]) ?? (parsed as? [String: String]).map { [$0] } ?? []
            return (name, Array(bytes), records)
        }
    }()

    static let notRFC4180 = ["location_coordinates.csv": "quote character inside an unquoted field"]

    /// Every field of a record by header name (a NULL field: absent).
    struct Fields: RowDecodable {
        var values: [String: String] = [:]
        init(row: Row) throws {
            for (i, name) in row.columnNames.enumerated() {
                if case .text(let t) = row.value(at: i) { values[name] = t }
            }
        }
    }

    @Test func theFilesAreThere() {
        #expect(Self.cases.count == 12)
    }

    @Test func csvRowCursorReadsWhatCSVSpectrumExpects() throws {
        for (name, bytes, want) in Self.cases {
            if let words = Self.notRFC4180[name] {
                #expect { try CSVRowCursor(Fields.self, bytes: bytes).collect() } throws: { "\($0)".contains(words) }
                continue
            }
            let got = try CSVRowCursor(Fields.self, bytes: bytes).collect().map(\.values)
            #expect(got == want, "\(name)")
        }
    }

    @Test func importCSVStoresWhatCSVSpectrumExpects() throws {
        for (name, bytes, want) in Self.cases {
            let db = try Database()
            if let words = Self.notRFC4180[name] {
                #expect { try db.importCSV(bytes: bytes, into: "t", options: .init(createTable: true)) } throws: {
                    "\($0)".contains(words)
                }
                continue
            }
            try db.importCSV(bytes: bytes, into: "t", options: .init(createTable: true))
            let got = try db.rows(Fields.self, "SELECT * FROM t").collect().map(\.values)
            // inferred INTEGER columns read back as numbers: compare their text
            let texts = try db.rows(Fields.self, "SELECT " + (want.first.map { Array($0.keys) } ?? [])
                .map { "CAST(\(sqQuoteIdentifier($0)) AS TEXT) AS \(sqQuoteIdentifier($0))" }
                .joined(separator: ", ") + " FROM t").collect().map(\.values)
            #expect(texts == want || got == want, "\(name): \(texts)")
        }
    }
}
