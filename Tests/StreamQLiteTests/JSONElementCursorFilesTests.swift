import Foundation
import Testing
@testable import StreamQLite

/// `JSONValueDecoder.elements(of:contentsOfFiles:layout:)`: several files read one after
/// the other, with the file list and glob rules of `json_stream` (`sq_files.h`), and errors
/// naming their file.
@Suite struct JSONElementCursorFilesTests {
    struct Item: Decodable, Equatable { var id: Int }
    let dir: String

    init() throws {
        dir = NSTemporaryDirectory() + "json-cursor-files-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        try "{\"id\":1}\n{\"id\":2}\n".write(toFile: dir + "/2026-01.ndjson", atomically: true, encoding: .utf8)
        try "{\"id\":3}\n".write(toFile: dir + "/2026-02.ndjson", atomically: true, encoding: .utf8)
        try "[{\"id\":4},{\"id\":5}]".write(toFile: dir + "/a.json", atomically: true, encoding: .utf8)
        try "[{\"id\":6},{\"id\":\"x\"}]".write(toFile: dir + "/b.json", atomically: true, encoding: .utf8)
    }

    private func ids(_ cursor: JSONElementCursor<Item>) throws -> [Int] {
        var out: [Int] = []
        while let item = try cursor.next() { out.append(item.id) }
        return out
    }

    @Test func aGlobReadsItsMatchesInNameOrder() throws {
        let cursor = try JSONValueDecoder().elements(of: Item.self, contentsOfFiles: [dir + "/2026-*.ndjson"], layout: .ndjson)
        #expect(try ids(cursor) == [1, 2, 3])
    }

    @Test func aListInItsOrderEachFileADocument() throws {
        let cursor = try JSONValueDecoder().elements(of: Item.self, contentsOfFiles: [dir + "/a.json", dir + "/a.json"])
        #expect(try ids(cursor) == [4, 5, 4, 5])
    }

    @Test func anErrorNamesItsFileAndThePositionInIt() throws {
        let cursor = try JSONValueDecoder().elements(of: Item.self, contentsOfFiles: [dir + "/a.json", dir + "/b.json"])
        var got: [Int] = []
        do {
            while let item = try cursor.next() { got.append(item.id) }
            Issue.record("no error")
        } catch let e as JSONValueDecoder.FileError {
            #expect(e.file == dir + "/b.json")
            guard case DecodingError.typeMismatch(_, let context)? = e.underlying as? DecodingError else {
                Issue.record("not a type mismatch: \(e.underlying)"); return
            }
            #expect(context.codingPath.map(\.stringValue) == ["Index 1", "id"])
        }
        #expect(got == [4, 5, 6])
    }

    @Test func aGlobMatchingNothingIsAnError() throws {
        #expect(throws: JSONValueDecoder.FileError.self) {
            try JSONValueDecoder().elements(of: Item.self, contentsOfFiles: [dir + "/none-*.json"])
        }
    }

    @Test func anUnreadableFileIsAnErrorNamingItWhenReached() throws {
        let cursor = try JSONValueDecoder().elements(of: Item.self, contentsOfFiles: [dir + "/a.json", dir + "/missing.json"])
        #expect(try cursor.next() == Item(id: 4))
        #expect(try cursor.next() == Item(id: 5))
        #expect { try cursor.next() } throws: { ($0 as? JSONValueDecoder.FileError)?.file == dir + "/missing.json" }
    }
}
