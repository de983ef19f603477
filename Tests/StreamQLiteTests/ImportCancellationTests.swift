import Foundation
import Testing
@testable import StreamQLite

/// Cancelling an async import is never a successful import of part of the input.
@Suite struct ImportCancellationTests {
    /// A stream of NDJSON lines, one every few milliseconds, that ends (without an
    /// error) when the consuming task is cancelled, as `AsyncStream` does.
    func slowLines(count: Int, everyMilliseconds ms: Int) -> AsyncStream<[UInt8]> {
        AsyncStream { continuation in
            let producer = Task {
                for i in 0..<count {
                    if Task.isCancelled { break }
                    continuation.yield(Array("{\"id\": \(i), \"title\": \"t\(i)\"}\n".utf8))
                    try? await Task.sleep(for: .milliseconds(ms))
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in producer.cancel() }
        }
    }

    func run(layout: JSONImportOptions.Layout) async throws -> (Result<Int, any Error>, Int) {
        let path = FileManager.default.temporaryDirectory
            .appendingPathComponent("sq-cancel-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).sqlite").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Database(path: path).execute("CREATE TABLE c(id INTEGER PRIMARY KEY, title TEXT)")
        let lines = slowLines(count: 50, everyMilliseconds: 20)
        let stream: AsyncStream<[UInt8]>
        if layout == .ndjson {
            stream = lines
        } else {
            // The same rows as one array: "[", elements separated by commas (never closed before cancellation).
            stream = AsyncStream { continuation in
                let t = Task {
                    continuation.yield(Array("[".utf8))
                    var first = true
                    for await line in lines {
                        continuation.yield((first ? [] : Array(",".utf8)) + line)
                        first = false
                    }
                    continuation.yield(Array("]".utf8))
                    continuation.finish()
                }
                continuation.onTermination = { _ in t.cancel() }
            }
        }
        let task = Task { () -> Int in
            let db = try Database(path: path)
            return try await db.importJSON(from: stream, into: "c", options: .init(layout: layout))
        }
        try await Task.sleep(for: .milliseconds(200))
        task.cancel()
        let result = await task.result
        let stored = try Database(path: path).value(Int.self, "SELECT count(*) FROM c") ?? -1
        return (result, stored)
    }

    @Test func cancellingAnNDJSONImportRollsBackAndThrowsCancellation() async throws {
        let (result, stored) = try await run(layout: .ndjson)
        #expect(throws: CancellationError.self) { try result.get() }
        #expect(stored == 0)
    }

    @Test func cancellingAnArrayImportThrowsCancellationNotASyntaxError() async throws {
        let (result, stored) = try await run(layout: .array)
        #expect(throws: CancellationError.self) { try result.get() }
        #expect(stored == 0)
    }
}
