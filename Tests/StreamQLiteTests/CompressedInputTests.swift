import Foundation
import Testing
@testable import StreamQLite

/// gzip and zstd input (the C decoder, `sq_decompress.h`) through every Swift path that
/// reads input: `importCSV`/`importJSON` from a file, from bytes and from async chunks,
/// `CSVRowCursor`, `CSVDecodableCursor` and `JSONValueDecoder.elements`. The files are
/// compressed by the `gzip` and `zstd` tools; each path gives exactly the rows of the
/// plain file, a truncated file is an error naming the file and the format, and nothing
/// of it is stored.
@Suite struct CompressedInputTests {
    struct Item: Codable, Equatable, RowDecodable {
        var id: Int
        var name: String
        var score: Double
        init(id: Int, name: String, score: Double) { self.id = id; self.name = name; self.score = score }
        init(row: Row) throws { id = try row["id"]; name = try row["name"]; score = try row["score"] }
    }

    /// Enough rows to span several chunks of input and of decompressed output.
    static let items = (0..<20_000).map { Item(id: $0, name: "n\($0 % 97) \"q\", é", score: Double($0) / 8) }
    static let csv = "id,name,score\n" + items.map { "\($0.id),\"\($0.name.replacingOccurrences(of: "\"", with: "\"\""))\",\($0.score)\n" }.joined()
    static let ndjson = items.map { String(decoding: try! JSONEncoder().encode($0), as: UTF8.self) + "\n" }.joined()

    let dir: String

    init() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("compressed-\(getpid())-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        try Self.csv.write(toFile: "\(dir)/items.csv", atomically: true, encoding: .utf8)
        try Self.ndjson.write(toFile: "\(dir)/items.ndjson", atomically: true, encoding: .utf8)
        for name in ["items.csv", "items.ndjson"] {
            try shell("gzip -c \(name) > \(name).gz && zstd -q -c \(name) > \(name).zst && cat \(name).gz \(name).gz > twice.\(name).gz")
        }
    }

    func shell(_ command: String) throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/sh")
        p.arguments = ["-c", "cd '\(dir)' && \(command)"]
        try p.run()
        p.waitUntilExit()
        #expect(p.terminationStatus == 0, "\(command) failed")
    }

    func table(_ db: Database) throws -> String {
        try db.jsonString("SELECT * FROM t ORDER BY rowid")
    }

    func freshDatabase() throws -> Database {
        let db = try Database(path: ":memory:")
        try db.execute("CREATE TABLE t(id INTEGER, name TEXT, score REAL)")
        return db
    }

    @Test func importsFromCompressedFilesGiveThePlainFilesRows() throws {
        let plain = try freshDatabase()
        try plain.importCSV(contentsOfFile: "\(dir)/items.csv", into: "t")
        let want = try table(plain)
        for suffix in [".gz", ".zst"] {
            let db = try freshDatabase()
            var last: ImportProgress?
            let n = try db.importCSV(contentsOfFile: "\(dir)/items.csv\(suffix)", into: "t") { last = $0 }
            #expect(n == Self.items.count)
            #expect(try table(db) == want)
            #expect(last?.bytes == Self.csv.utf8.count)
            #expect(last?.compressedBytes == (try FileManager.default.attributesOfItem(atPath: "\(dir)/items.csv\(suffix)")[.size] as? Int))
            let jdb = try freshDatabase()
            #expect(try jdb.importJSON(contentsOfFile: "\(dir)/items.ndjson\(suffix)", into: "t", options: .init(layout: .ndjson)) == Self.items.count)
            #expect(try table(jdb) == want)
        }
    }

    @Test func concatenatedMembersAreOneStream() throws {
        let db = try freshDatabase()
        #expect(try db.importJSON(contentsOfFile: "\(dir)/twice.items.ndjson.gz", into: "t", options: .init(layout: .ndjson))
                == 2 * Self.items.count)
        // the CSV's second header is a record of the first member's columns (as zcat would show it)
        struct Texts: Decodable { var id: String; var name: String; var score: String }
        let csv = try CSVDecodableCursor(Texts.self, contentsOfFile: "\(dir)/twice.items.csv.gz").collect()
        #expect(csv.count == 2 * Self.items.count + 1)
        #expect(csv[Self.items.count].id == "id" && csv.last?.id == "\(Self.items.count - 1)")
    }

    @Test func bytesAndAsyncChunksAreDecompressedToo() async throws {
        let plain = try freshDatabase()
        try plain.importCSV(contentsOfFile: "\(dir)/items.csv", into: "t")
        let want = try table(plain)
        for suffix in [".gz", ".zst"] {
            let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: "\(dir)/items.csv\(suffix)")))
            let db = try freshDatabase()
            try db.importCSV(bytes: bytes, into: "t")
            #expect(try table(db) == want)
            // chunks cut anywhere, the magic number itself among the cuts
            let adb = try freshDatabase()
            let parts = [Array(bytes[0..<1]), Array(bytes[1..<3])] + stride(from: 3, to: bytes.count, by: 777).map {
                Array(bytes[$0..<min($0 + 777, bytes.count)])
            }
            let stream = AsyncStream<[UInt8]> { c in for p in parts { c.yield(p) }; c.finish() }
            var last: ImportProgress?
            try await adb.importCSV(from: stream, into: "t") { last = $0 }
            #expect(try table(adb) == want)
            #expect(last?.compressedBytes == bytes.count)
            #expect(last?.bytes == Self.csv.utf8.count)
        }
    }

    @Test func cursorsReadCompressedFiles() throws {
        for suffix in [".gz", ".zst"] {
            #expect(try CSVRowCursor(Item.self, contentsOfFile: "\(dir)/items.csv\(suffix)").collect() == Self.items)
            #expect(try CSVDecodableCursor(Item.self, contentsOfFile: "\(dir)/items.csv\(suffix)", options: .init(chunkSize: 1000)).collect()
                    == Self.items)
            let cursor = try JSONValueDecoder().elements(of: Item.self, contentsOfFile: "\(dir)/items.ndjson\(suffix)", layout: .ndjson)
            #expect(try cursor.collect() == Self.items)
        }
    }

    @Test func aCompressedFIFOWrittenInPiecesIsReadWhole() throws {
        let fifo = "\(dir)/in.fifo"
        #expect(mkfifo(fifo, 0o600) == 0)
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: "\(dir)/items.ndjson.zst")))
        let writer = Thread {
            let fd = open(fifo, O_WRONLY)
            var position = 0
            for size in [1, 2, 5, 997] + Array(repeating: 4096, count: bytes.count / 4096 + 1) where position < bytes.count {
                let n = min(size, bytes.count - position)
                _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + position, n) }
                position += n
            }
            close(fd)
        }
        writer.start()
        let db = try freshDatabase()
        #expect(try db.importJSON(contentsOfFile: fifo, into: "t", options: .init(layout: .ndjson)) == Self.items.count)
        #expect(try db.scalarText("SELECT sum(id) FROM t") == "\((Self.items.count - 1) * Self.items.count / 2)")
    }

    @Test func truncatedInputIsAnErrorNamingTheFileAndNothingIsStored() async throws {
        try shell("head -c 5000 items.csv.gz > cut.csv.gz && head -c 5000 items.ndjson.zst > cut.ndjson.zst")
        let db = try freshDatabase()
        #expect { try db.importCSV(contentsOfFile: "\(dir)/cut.csv.gz", into: "t") } throws: { error in
            "\(error)".contains("cannot read \(dir)/cut.csv.gz: gzip: truncated: the input ends inside a member after 5000 compressed bytes")
        }
        #expect { try db.importJSON(contentsOfFile: "\(dir)/cut.ndjson.zst", into: "t", options: .init(layout: .ndjson)) } throws: { error in
            "\(error)".contains("cannot read \(dir)/cut.ndjson.zst: zstd: truncated")
        }
        let cut = Array(try Data(contentsOf: URL(fileURLWithPath: "\(dir)/cut.csv.gz")))
        #expect { try db.importCSV(bytes: cut, into: "t") } throws: { error in
            "\(error)".contains("gzip: truncated: the input ends inside a member after 5000 compressed bytes")
        }
        #expect(try db.scalarText("SELECT count(*) FROM t") == "0")
        #expect { try CSVRowCursor(Item.self, contentsOfFile: "\(dir)/cut.csv.gz").collect() } throws: { error in
            "\(error)".contains("cannot read \(dir)/cut.csv.gz: gzip: truncated")
        }
        #expect { try JSONValueDecoder().elements(of: Item.self, contentsOfFile: "\(dir)/cut.ndjson.zst", layout: .ndjson).collect() }
            throws: { error in "\(error)".contains("zstd: truncated") }
    }
}
