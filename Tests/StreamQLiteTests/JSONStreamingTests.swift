import Foundation
import Testing
import StreamQLite

// JSONValueDecoder.elements: values decoded one at a time from bytes, a file or an
// AsyncSequence of chunks; the oracle is JSONDecoder on the whole document.

struct StreamItem: Codable, Equatable, Sendable {
    var id: Int
    var name: String
    var tags: [String]
    var child: Child?
    struct Child: Codable, Equatable, Sendable { var x: Double; var note: String }
}

func streamItems(_ n: Int) -> [StreamItem] {
    (0..<n).map { i in
        StreamItem(id: i, name: "item \(i) \"quoted\" \\ é ☃ \u{1}", tags: (0..<(i % 4)).map { "t\($0)/\(i)" },
                   child: i % 3 == 0 ? nil : .init(x: Double(i) / 7, note: String(repeating: "ab\n", count: i % 50)))
    }
}

/// An AsyncSequence of chunks cut at the given sizes (cycled).
struct Chunked: AsyncSequence, Sendable {
    typealias Element = [UInt8]
    let bytes: [UInt8]
    let sizes: [Int]
    func makeAsyncIterator() -> AsyncStream<[UInt8]>.Iterator {
        let (stream, continuation) = AsyncStream<[UInt8]>.makeStream()
        var i = 0, k = 0
        while i < bytes.count {
            let n = Swift.min(sizes[k % sizes.count], bytes.count - i)
            continuation.yield(Array(bytes[i..<(i + n)]))
            i += n
            k += 1
        }
        continuation.finish()
        return stream.makeAsyncIterator()
    }
}

@Suite struct JSONStreamingTests {
    @Test func theElementsOfAnArrayAreTheArraysValues() throws {
        let items = streamItems(500)
        let bytes = Array(try JSONEncoder().encode(items))
        #expect(try JSONValueDecoder().elements(of: StreamItem.self, in: bytes).collect() == items)
        #expect(try JSONValueDecoder().elements(of: StreamItem.self, in: Data(bytes)).collect() == items)
        #expect(try JSONValueDecoder().elements(of: Int.self, in: Array("[]".utf8)).collect() == [])
        #expect(try JSONValueDecoder().elements(of: Int.self, in: Array(" [ 1 , 2 ,3 ] \n".utf8)).collect() == [1, 2, 3])
        #expect(try JSONValueDecoder().elements(of: [Int].self, in: Array("[[1],[],[2,3]]".utf8)).collect() == [[1], [], [2, 3]])
    }

    @Test func ndjsonAndTheArrayAtAPath() throws {
        let ndjson = Array("{\"id\":1}\n\n  {\"id\":2}\r\n{\"id\":3}".utf8)
        struct I: Codable, Equatable { var id: Int }
        #expect(try JSONValueDecoder().elements(of: I.self, in: ndjson, layout: .ndjson).collect() == [I(id: 1), I(id: 2), I(id: 3)])
        #expect(try JSONValueDecoder().elements(of: Int.self, in: Array("1\n2\n-3".utf8), layout: .ndjson).collect() == [1, 2, -3])
        let doc = #"{"meta":{"items":[9]},"items":[8],"data":{"x":[1],"items":[{"id":4},{"id":5}],"after":{"items":[7]}},"tail":[1,2]}"#
        #expect(try JSONValueDecoder().elements(of: I.self, in: Array(doc.utf8), layout: .arrayAt(["data", "items"])).collect()
                == [I(id: 4), I(id: 5)])
        #expect(try JSONValueDecoder().elements(of: Int.self, in: Array(doc.utf8), layout: .arrayAt(["items"])).collect() == [8])
        let missing = #expect(throws: DecodingError.self) {
            try JSONValueDecoder().elements(of: Int.self, in: Array(doc.utf8), layout: .arrayAt(["nope"])).collect()
        }
        #expect("\(String(describing: missing))".contains("no array at nope"))
        #expect(throws: DecodingError.self) { try JSONValueDecoder().elements(of: I.self, in: Array(#"{"id":1}"#.utf8)).collect() }
        #expect(throws: DecodingError.self) { try JSONValueDecoder().elements(of: I.self, in: Array("5".utf8)).collect() }
    }

    @Test func everySplitOfTheInputGivesTheSameValues() async throws {
        let items = streamItems(12)
        let bytes = Array(try JSONEncoder().encode(items))
        for cut in stride(from: 1, to: bytes.count, by: 7) {
            var got: [StreamItem] = []
            for try await v in JSONValueDecoder().elements(of: StreamItem.self, from: Chunked(bytes: bytes, sizes: [cut, bytes.count])) {
                got.append(v)
            }
            #expect(got == items, "cut at \(cut)")
        }
        for sizes in [[1], [2, 3], [17], [4096]] {
            var got: [StreamItem] = []
            for try await v in JSONValueDecoder().elements(of: StreamItem.self, from: Chunked(bytes: bytes, sizes: sizes)) { got.append(v) }
            #expect(got == items, "sizes \(sizes)")
        }
    }

    @Test func aLargeFileIsReadInChunks() throws {
        let items = streamItems(20_000)
        let bytes = try JSONEncoder().encode(items)
        #expect(bytes.count > 1_000_000)  // several 256 KiB chunks
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("stream-\(UUID().uuidString).json").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try bytes.write(to: URL(fileURLWithPath: path))
        let cursor = try JSONValueDecoder().elements(of: StreamItem.self, contentsOfFile: path)
        var n = 0
        while let v = try cursor.next() {
            #expect(v == items[n])
            n += 1
        }
        #expect(n == items.count)
        #expect(throws: (any Error).self) { try JSONValueDecoder().elements(of: Int.self, contentsOfFile: path + ".missing") }
    }

    @Test func errorsComeWhenTheirValueIsReachedWithItsPosition() throws {
        struct I: Codable, Equatable { var id: Int }
        let text = "[{\"id\":1},\n{\"id\":2},\n{\"id\":\"three\"},\n{\"id\":4}]"
        let cursor = try JSONValueDecoder().elements(of: I.self, in: Array(text.utf8))
        #expect(try cursor.next() == I(id: 1))
        #expect(try cursor.next() == I(id: 2))
        let error = try #require(throws: DecodingError.self) { try cursor.next() }
        guard case .typeMismatch(_, let context) = error else { Issue.record("\(error)"); return }
        #expect(context.codingPath.map(\.stringValue) == ["Index 2", "id"])
        #expect(context.debugDescription.contains("line 3, column 7, byte offset 27"), "\(context.debugDescription)")

        let broken = try JSONValueDecoder().elements(of: I.self, in: Array("[{\"id\":1}, {\"id\":2}, {\"id\":3,}]".utf8))
        #expect(try broken.next() == I(id: 1))
        #expect(try broken.next() == I(id: 2))
        let syntax = try #require(throws: DecodingError.self) { try broken.next() }
        #expect("\(syntax)".contains("byte offset 29"), "\(syntax)")
    }

    @Test func positionsStayRightAcrossChunks() async throws {
        // The error is in the 300th line, far past the first chunks.
        var lines = (0..<299).map { "{\"id\":\($0)}" }
        lines.append("{\"id\":true}")
        let bytes = Array(lines.joined(separator: "\n").utf8)
        struct I: Codable { var id: Int }
        var count = 0
        do {
            for try await _ in JSONValueDecoder().elements(of: I.self, from: Chunked(bytes: bytes, sizes: [100, 37]), layout: .ndjson) {
                count += 1
            }
            Issue.record("no error")
        } catch let DecodingError.typeMismatch(_, context) {
            let offset = bytes.count - 5
            #expect(context.debugDescription.contains("line 300, column 7, byte offset \(offset)"), "\(context.debugDescription)")
        }
        #expect(count == 299)
    }

    @Test func cancellingTheTaskStopsTheStream() async throws {
        let (stream, continuation) = AsyncStream<[UInt8]>.makeStream()
        continuation.yield(Array("[1,2,".utf8))
        let task = Task {
            var got: [Int] = []
            for try await v in JSONValueDecoder().elements(of: Int.self, from: stream) { got.append(v) }
            return got
        }
        try await Task.sleep(nanoseconds: 100_000_000)
        task.cancel()
        continuation.finish()  // as AsyncStream does on cancellation: must not pass for the end of the input
        let result = await task.result
        #expect(throws: CancellationError.self) { try result.get() }
    }
}
