import Foundation
import Testing
import StreamQLite

// Cancelling a read that waits in json_stream on a stalled FIFO stops it, however the read
// runs. The wait runs no VM instruction (no progress handler call) and SQLite clears an
// interrupt when a statement starts on an idle connection: both failed before the C core
// asked the pool's stopper (sq_set_host_stop_check) between its waits.

// reviewCancelStalledFIFORead is in DatabasePoolInlineReadTests.swift.

@Suite struct PoolCancelledFileWaitTests {
    @Test func cancellingAnInlineReadBlockedOnAFIFOStopsIt() async throws {
        let elapsed = try await reviewCancelStalledFIFORead(executorThreads: 1, limit: 20)
        #expect(elapsed != nil, "the cancelled inline read was still blocked after 20 s")
    }
}

// A read on a reader thread cancelled before its first statement, which then waits on a
// stalled FIFO: the interrupt given at cancellation was cleared when the statement started.
@Suite struct PoolCancelledBeforeFileWaitTests {
    @Test func aHopReadCancelledBeforeItsFirstStepStopsOnAFIFO() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("review-fifo-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let pool = try DatabasePool(path: dir.appendingPathComponent("t.db").path, readers: 1)
        let fifo = dir.appendingPathComponent("f.json").path
        #expect(mkfifo(fifo, 0o600) == 0)
        let writer = open(fifo, O_RDWR)
        _ = "[1, 2, ".withCString { write(writer, $0, 7) }
        let started = DispatchSemaphore(value: 0)
        let task = Task {
            try await pool.read { db -> Int? in
                started.signal()
                usleep(300_000)  // Swift work before the first statement; the task is cancelled meanwhile
                return try db.value(Int.self, "SELECT count(*) FROM json_stream(?)", fifo)
            }
        }
        while started.wait(timeout: .now()) != .success { try await Task.sleep(nanoseconds: 1_000_000) }
        task.cancel()
        let t0 = Date()
        let done = DispatchSemaphore(value: 0)
        Task { _ = try? await task.value; done.signal() }
        var stopped = false
        while Date().timeIntervalSince(t0) < 20 {
            if done.wait(timeout: .now()) == .success { stopped = true; break }
            try await Task.sleep(nanoseconds: 10_000_000)
        }
        close(writer)
        _ = try? await task.value
        #expect(stopped, "the read cancelled before its first step was still blocked on the FIFO after 20 s")
    }
}
