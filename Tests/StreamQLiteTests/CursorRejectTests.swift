import Foundation
import Synchronization
import Testing
@testable import StreamQLite

/// `onError: .skip` of the CSV cursors: a record with another field count (the C reader's
/// report, as importCSV rejects it) or one that does not decode goes to `onReject` and the
/// iteration goes on, within `maxErrors`; broken quoting still ends it.
@Suite struct CursorRejectTests {
    struct Item: Decodable, Equatable { var id: Int; var n: UInt8 }
    struct RowItem: RowDecodable, Equatable {
        var id: Int, n: UInt8
        init(row: Row) throws { id = try row["id"]; n = try row["n"] }
    }

    let csv = Array("id,n\n1,10\n2,300\n3\n4,40\n5,x\n".utf8)

    @Test func decodableCursorSkipsAndReportsBadRecords() throws {
        let got = Mutex<[ImportReject]>([])
        let cursor = try CSVDecodableCursor(Item.self, bytes: csv,
                                            options: .init(onError: .skip, onReject: { r in got.withLock { $0.append(r) } }))
        #expect(try cursor.collect() == [Item(id: 1, n: 10), Item(id: 4, n: 40)])
        let rejects = got.withLock { $0 }
        #expect(rejects.map(\.record) == [1, 2, 4])
        #expect(rejects.map(\.line) == [3, 4, 6])
        #expect(rejects.map(\.byteOffset) == [10, 16, 23])
        #expect(rejects.map(\.column) == ["n", "n", "n"])
        #expect(rejects[1].reason == "CSVDecodableCursor: line 4, byte 17, field 2 (n): record has 1 field, the first record has 2")
        #expect(rejects[0].reason.hasPrefix("CSVDecodableCursor: CSV line 3, byte 12, record 1, field 2 (n): "))
        #expect(rejects.map { String(decoding: $0.raw, as: UTF8.self) } == ["2,300", "3", "5,x"])
        #expect(rejects.allSatisfy { !$0.rawTruncated && $0.file == nil })
    }

    @Test func rowCursorSkipsAndReportsBadRecords() throws {
        let got = Mutex<[Int]>([])
        let cursor = try CSVRowCursor(RowItem.self, bytes: csv,
                                      options: .init(onError: .skip, onReject: { r in got.withLock { $0.append(r.record) } }))
        #expect(try cursor.collect().map(\.id) == [1, 4])
        #expect(got.withLock { $0 } == [1, 2, 4])
    }

    @Test func abortStillEndsTheIteration() throws {
        let cursor = try CSVDecodableCursor(Item.self, bytes: csv)
        #expect(try cursor.next() == Item(id: 1, n: 10))
        #expect(throws: DecodingError.self) { try cursor.next() }
    }

    @Test func theBudgetStopsTheIteration() throws {
        let cursor = try CSVDecodableCursor(Item.self, bytes: csv,
                                            options: .init(onError: .skip, maxErrors: .count(2), onReject: { _ in }))
        #expect(try cursor.next() == Item(id: 1, n: 10))
        #expect(try cursor.next() == Item(id: 4, n: 40))
        #expect { try cursor.next() } throws: {
            ($0 as? CSVImportError)?.message.hasPrefix("more than 2 records rejected (maxErrors=2); the last: CSVDecodableCursor: CSV line 6") == true
        }
        let fraction = try CSVRowCursor(RowItem.self, bytes: csv,
                                        options: .init(onError: .skip, maxErrors: .fraction(0.5), onReject: { _ in }))
        #expect { try fraction.collect() } throws: {
            ($0 as? CSVImportError)?.message.hasPrefix("3 of 5 records rejected, more than maxErrors=0.5 of them") == true
        }
    }

    @Test func brokenQuotingStillEnds() throws {
        let cursor = try CSVDecodableCursor(Item.self, bytes: Array("id,n\n1,1\n2,\"3\"x\n4,4\n".utf8),
                                            options: .init(onError: .skip, onReject: { _ in }))
        #expect(try cursor.next() == Item(id: 1, n: 1))
        #expect(throws: CSVImportError.self) { try cursor.next() }
    }

    @Test func skipNeedsOnRejectAndNoTable() {
        #expect(throws: CSVImportError.self) { try CSVDecodableCursor(Item.self, bytes: csv, options: .init(onError: .skip)) }
        #expect(throws: CSVImportError.self) {
            try CSVRowCursor(RowItem.self, bytes: csv, options: .init(onError: .skip, rejectTable: "rej", onReject: { _ in }))
        }
    }

    @Test func manyFilesNameTheRejectsFile() throws {
        let dir = NSTemporaryDirectory() + "cursor-rejects-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try "id,n\n1,1\n".write(toFile: dir + "/a.csv", atomically: true, encoding: .utf8)
        try "id,n\n2,bad\n3,3\n".write(toFile: dir + "/b.csv", atomically: true, encoding: .utf8)
        let got = Mutex<[String?]>([])
        let cursor = try CSVDecodableCursor(Item.self, contentsOfFiles: [dir + "/*.csv"],
                                            options: .init(onError: .skip, onReject: { r in got.withLock { $0.append(r.file) } }))
        #expect(try cursor.collect().map(\.id) == [1, 3])
        #expect(got.withLock { $0 } == [dir + "/b.csv"])
    }
}

/// `JSONElementCursor.skippingUndecodable`: values that do not decode are reported and
/// skipped, within `maxErrors`; syntax errors still end the iteration.
@Suite struct JSONCursorRejectTests {
    struct Item: Decodable, Equatable { var id: Int }
    let json = Array("[{\"id\":1},\n{\"id\":\"two\"},\n{\"name\":3},\n{\"id\":4}]".utf8)

    @Test func undecodableValuesAreSkippedAndReported() throws {
        let got = Mutex<[ImportReject]>([])
        let cursor = try JSONValueDecoder().elements(of: Item.self, in: json)
            .skippingUndecodable { r in got.withLock { $0.append(r) } }
        #expect(try cursor.collect() == [Item(id: 1), Item(id: 4)])
        let rejects = got.withLock { $0 }
        #expect(rejects.map(\.record) == [1, 2])
        #expect(rejects.map(\.line) == [2, 3])
        #expect(rejects.map(\.byteOffset) == [11, 25])
        #expect(rejects.map(\.column) == ["id", "id"])
        #expect(rejects[0].reason.hasPrefix("Index 1.id: "))
        #expect(rejects.map { String(decoding: $0.raw, as: UTF8.self) } == [#"{"id":"two"}"#, #"{"name":3}"#])
        #expect(rejects.allSatisfy { !$0.rawTruncated })
    }

    @Test func withoutItTheFirstErrorEnds() throws {
        let cursor = try JSONValueDecoder().elements(of: Item.self, in: json)
        #expect(try cursor.next() == Item(id: 1))
        #expect(throws: DecodingError.self) { try cursor.next() }
    }

    @Test func theBudget() throws {
        let counted = try JSONValueDecoder().elements(of: Item.self, in: json)
            .skippingUndecodable(maxErrors: .count(1)) { _ in }
        #expect(try counted.next() == Item(id: 1))
        #expect { try counted.next() } throws: { "\($0)".contains("more than 1 record rejected (maxErrors=1)") }
        let fraction = try JSONValueDecoder().elements(of: Item.self, in: json)
            .skippingUndecodable(maxErrors: .fraction(0.25)) { _ in }
        #expect { try fraction.collect() } throws: { "\($0)".contains("2 of 4 records rejected") }
    }

    @Test func aSyntaxErrorStillEnds() throws {
        let cursor = try JSONValueDecoder().elements(of: Item.self, in: Array("[{\"id\":1}, {\"id\":}]".utf8))
            .skippingUndecodable { _ in }
        #expect(try cursor.next() == Item(id: 1))
        #expect(throws: DecodingError.self) { try cursor.next() }
    }
}
