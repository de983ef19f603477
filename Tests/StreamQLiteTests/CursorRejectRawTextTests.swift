import Foundation
import Synchronization
import Testing
@testable import StreamQLite

/// The raw text of the cursors' rejects (CSVDecodableCursor, CSVRowCursor, JSON element
/// cursors with `skippingUndecodable`) is what `importCSV` / `importJSON` with
/// `onError: .skip` report for the same records: the record from its first byte to its
/// last (CSV without the line end), at most 4096 bytes, never cut inside a UTF-8
/// character, `rawTruncated` when longer. The imports are the oracle.
@Suite struct CursorRejectRawTextTests {
    /// What is compared of a reject (the reason names the reading function: not compared).
    struct Seen: Equatable, CustomStringConvertible {
        var record: Int, line: Int, offset: Int, raw: [UInt8], truncated: Bool
        init(_ r: ImportReject) {
            record = r.record; line = r.line; offset = r.byteOffset; raw = r.raw; truncated = r.rawTruncated
        }
        var description: String {
            "#\(record) line \(line) @\(offset) \(truncated ? "truncated " : "")\(raw.count) bytes: "
                + String(decoding: raw.prefix(40), as: UTF8.self).debugDescription
        }
    }

    /// The rejects `onReject` was given.
    final class Collected: Sendable {
        private let seen = Mutex<[Seen]>([])
        func add(_ r: ImportReject) { seen.withLock { $0.append(Seen(r)) } }
        var all: [Seen] { seen.withLock { $0 } }
    }

    /// A new directory of its own (the caller removes it).
    static func temporaryDirectory() throws -> String {
        let dir = NSTemporaryDirectory() + "cursor-raw-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }

    /// A record of `4095 + 2 + 50` bytes whose 4096-byte cut falls inside a 2-byte "é"
    /// (starting with `prefix`, which must not contain the line end).
    static func long(_ prefix: String) -> String {
        prefix + String(repeating: "a", count: 4095 - prefix.utf8.count) + "é" + String(repeating: "b", count: 50)
    }

    // MARK: CSV

    struct Item: Decodable, Equatable { var id: Int; var n: Int }
    struct RowItem: RowDecodable, Equatable {
        var id: Int, n: Int
        init(row: Row) throws { id = try row["id"]; n = try row["n"] }
    }

    /// Bad records of every kind the cursors and importCSV both reject: a value that is not
    /// an integer (quoted, with the delimiter inside), another field count, a record longer
    /// than 4096 bytes, and the last record without a line end.
    static func csv(lineEnd: String) -> [UInt8] {
        let lines = ["id,n", "1,10", "2,x", "3", "4,\"5,6\"", long("5,"), "6,60", "7,\"é\"", "8,80", "9,z"]
        return Array(lines.joined(separator: lineEnd).utf8)
    }

    /// What importCSV (strict, `.skip`) reports for `bytes`.
    static func importCSVRejects(_ bytes: [UInt8]) throws -> [Seen] {
        let db = try Database()
        try db.execute("CREATE TABLE t(id INTEGER, n INTEGER)")
        let got = Mutex<[Seen]>([])
        try db.importCSV(bytes: bytes, into: "t",
                         options: .init(strict: true, onError: .skip, onReject: { r in got.withLock { $0.append(Seen(r)) } }))
        return got.withLock { $0 }
    }

    /// The rejects of both CSV cursors reading `bytes` in memory and from a file in chunks of
    /// `chunkSizes` bytes (records crossing chunk boundaries, the long one crossing several).
    static func csvCursorRejects(_ bytes: [UInt8], chunkSizes: [Int]) throws -> [(String, [Seen])] {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/in.csv"
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        var results: [(String, [Seen])] = []
        func options(_ chunkSize: Int, _ got: Collected) -> CSVImportOptions {
            .init(chunkSize: chunkSize, onError: .skip, onReject: { r in got.add(r) })
        }
        for chunkSize in [nil] + chunkSizes.map(Optional.some) {
            let decodable = Collected(), row = Collected()
            let name = chunkSize.map { "file in chunks of \($0)" } ?? "bytes"
            if let chunkSize {
                _ = try CSVDecodableCursor(Item.self, contentsOfFile: path, options: options(chunkSize, decodable)).collect()
                _ = try CSVRowCursor(RowItem.self, contentsOfFile: path, options: options(chunkSize, row)).collect()
            } else {
                _ = try CSVDecodableCursor(Item.self, bytes: bytes, options: options(1, decodable)).collect()
                _ = try CSVRowCursor(RowItem.self, bytes: bytes, options: options(1, row)).collect()
            }
            results.append(("CSVDecodableCursor, " + name, decodable.all))
            results.append(("CSVRowCursor, " + name, row.all))
        }
        return results
    }

    @Test(arguments: ["\n", "\r\n"])
    func csvCursorRejectsCarryTheRawTextImportCSVReports(lineEnd: String) throws {
        let bytes = Self.csv(lineEnd: lineEnd)
        let oracle = try Self.importCSVRejects(bytes)
        #expect(oracle.map(\.record) == [1, 2, 3, 4, 6, 8])
        #expect(oracle[3].truncated && oracle[3].raw.count == 4095)
        for (name, seen) in try Self.csvCursorRejects(bytes, chunkSizes: [1, 3, 7, 64, 4096, 5000, 64 * 1024]) {
            #expect(seen == oracle, "\(name)")
        }
    }

    @Test func csvRawTextIsTheRecordWithoutItsLineEnd() throws {
        let bytes = Self.csv(lineEnd: "\r\n")
        for (name, seen) in try Self.csvCursorRejects(bytes, chunkSizes: [5]) {
            let long = String(decoding: Array(Self.long("5,").utf8.prefix(4095)), as: UTF8.self)
            #expect(seen.map { String(decoding: $0.raw, as: UTF8.self) } == ["2,x", "3", "4,\"5,6\"", long, "7,\"é\"", "9,z"],
                    "\(name)")
            #expect(seen.map(\.truncated) == [false, false, false, true, false, false], "\(name)")
        }
    }

    @Test func csvRawTextAfterAByteOrderMark() throws {
        let bytes = [0xEF, 0xBB, 0xBF] + Self.csv(lineEnd: "\n")
        let oracle = try Self.importCSVRejects(bytes)
        #expect(oracle.count == 6)
        for (name, seen) in try Self.csvCursorRejects(bytes, chunkSizes: [2, 7]) {
            #expect(seen == oracle, "\(name)")
        }
    }

    /// Offsets and chunks are those of the decompressed text.
    @Test func csvRawTextOfAGzipFile() throws {
        let bytes = Self.csv(lineEnd: "\r\n")
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Data(bytes).write(to: URL(fileURLWithPath: dir + "/in.csv"))
        let gzip = Process()
        gzip.executableURL = URL(fileURLWithPath: "/bin/sh")
        gzip.arguments = ["-c", "gzip -c '\(dir)/in.csv' > '\(dir)/in.csv.gz'"]
        try gzip.run()
        gzip.waitUntilExit()
        #expect(gzip.terminationStatus == 0)
        let got = Collected()
        _ = try CSVRowCursor(RowItem.self, contentsOfFile: dir + "/in.csv.gz",
                             options: .init(chunkSize: 7, onError: .skip, onReject: { got.add($0) })).collect()
        #expect(got.all == (try Self.importCSVRejects(bytes)))
    }

    @Test func csvRawTextOfAFileAfterTheFirstRestartsItsOffsets() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try "id,n\n1,1\n2,bad\n".write(toFile: dir + "/a.csv", atomically: true, encoding: .utf8)
        try "id,n\n3,3\n4,worse\n".write(toFile: dir + "/b.csv", atomically: true, encoding: .utf8)
        let got = Mutex<[String]>([])
        let cursor = try CSVDecodableCursor(Item.self, contentsOfFiles: [dir + "/*.csv"],
                                            options: .init(chunkSize: 4, onError: .skip,
                                                           onReject: { r in got.withLock { $0.append(String(decoding: r.raw, as: UTF8.self)) } }))
        #expect(try cursor.collect().map(\.id) == [1, 3])
        #expect(got.withLock { $0 } == ["2,bad", "4,worse"])
    }

    // MARK: JSON

    struct Task: Decodable, Equatable { var id: Int }

    /// Elements both the cursor (`Task`) and importJSON (strict, a column id INTEGER)
    /// reject: a value that does not convert, an unknown key, elements that are not objects
    /// (a string with an escaped quote, an array, a number), and one longer than 4096 bytes
    /// with a 4-byte character across the cut.
    static let badElements = [
        #"{"id":"two"}"#, #"{"name":3}"#, #""a\"b""#, "[1, 2]",
        #"{"id":""# + String(repeating: "c", count: 4086) + "😀" + String(repeating: "d", count: 30) + #""}"#,
        #"{ "id" : [ 1 ] }"#, "12",
    ]

    static func json(ndjson: Bool, lineEnd: String = "\n", padding: Int = 0) -> [UInt8] {
        var elements = (0..<padding).map { #"{"id":\#($0)}"# }
        for (i, bad) in badElements.enumerated() { elements += [bad, #"{"id":\#(1000 + i)}"#] }
        elements.append(#"{"id":"last"}"#)
        if ndjson { return Array(elements.joined(separator: lineEnd).utf8) }
        return Array(("[" + elements.joined(separator: "," + lineEnd) + "]").utf8)
    }

    static func importJSONRejects(_ bytes: [UInt8], layout: JSONImportOptions.Layout) throws -> [Seen] {
        let db = try Database()
        try db.execute("CREATE TABLE t(id INTEGER)")
        let got = Mutex<[Seen]>([])
        try db.importJSON(bytes: bytes, into: "t",
                          options: .init(layout: layout, strict: true, onError: .skip,
                                         onReject: { r in got.withLock { $0.append(Seen(r)) } }))
        return got.withLock { $0 }
    }

    static func jsonCursorRejects(_ bytes: [UInt8], layout: JSONImportOptions.Layout) throws -> [(String, [Seen])] {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/in.json"
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let inMemory = Mutex<[Seen]>([]), fromFile = Mutex<[Seen]>([])
        _ = try JSONValueDecoder().elements(of: Task.self, in: bytes, layout: layout)
            .skippingUndecodable { r in inMemory.withLock { $0.append(Seen(r)) } }.collect()
        _ = try JSONValueDecoder().elements(of: Task.self, contentsOfFile: path, layout: layout)
            .skippingUndecodable { r in fromFile.withLock { $0.append(Seen(r)) } }.collect()
        return [("bytes", inMemory.withLock { $0 }), ("file", fromFile.withLock { $0 })]
    }

    @Test(arguments: [(JSONImportOptions.Layout.array, "\n"), (.array, "\r\n"), (.ndjson, "\n"), (.ndjson, "\r\n")])
    func jsonCursorRejectsCarryTheRawTextImportJSONReports(layout: JSONImportOptions.Layout, lineEnd: String) throws {
        let bytes = Self.json(ndjson: layout == .ndjson, lineEnd: lineEnd)
        let oracle = try Self.importJSONRejects(bytes, layout: layout)
        #expect(oracle.count == Self.badElements.count + 1)
        #expect(oracle.map { String(decoding: $0.raw, as: UTF8.self) }.last == #"{"id":"last"}"#)
        let long = oracle[4]
        #expect(long.truncated && long.raw.count == 4093 && long.raw.last == UInt8(ascii: "c"))
        for (name, seen) in try Self.jsonCursorRejects(bytes, layout: layout) {
            #expect(seen == oracle, "\(name)")
        }
    }

    @Test func jsonRawTextAfterAByteOrderMark() throws {
        let bytes = [0xEF, 0xBB, 0xBF] + Self.json(ndjson: false)
        let oracle = try Self.importJSONRejects(bytes, layout: .array)
        #expect(oracle.count == Self.badElements.count + 1)
        for (name, seen) in try Self.jsonCursorRejects(bytes, layout: .array) {
            #expect(seen == oracle, "\(name)")
        }
    }

    /// A file read in 256 KiB chunks: the long element lies across the first chunk's end.
    @Test func jsonRawTextOfAnElementAcrossAChunkOfTheFile() throws {
        let chunk = 256 * 1024
        let marker = Array(#"{"id":"cccc"#.utf8)
        func longStart(_ b: [UInt8]) -> Int {
            (0...(b.count - marker.count)).first { b[$0..<$0 + marker.count].elementsEqual(marker) }!
        }
        // padding elements before the bad ones until the long one starts 2,000 bytes before the end
        let unpadded = longStart(Self.json(ndjson: true))
        var padding = 0, paddingBytes = 0
        while unpadded + paddingBytes + 2000 < chunk {
            paddingBytes += #"{"id":\#(padding)}"#.utf8.count + 1
            padding += 1
        }
        let bytes = Self.json(ndjson: true, padding: padding)
        #expect(longStart(bytes) < chunk && longStart(bytes) + 4000 > chunk)
        let oracle = try Self.importJSONRejects(bytes, layout: .ndjson)
        #expect(oracle.count == Self.badElements.count + 1)
        for (name, seen) in try Self.jsonCursorRejects(bytes, layout: .ndjson) {
            #expect(seen == oracle, "\(name)")
        }
    }
}
