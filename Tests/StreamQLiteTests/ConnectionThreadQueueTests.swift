import Foundation
import Testing
@testable import StreamQLite

/// A connection thread whose queue never empties (a writer always busy) lets go of the jobs
/// it has run, and of what their closures captured.
@Suite struct ConnectionThreadQueueTests {
    /// How many ``Captured`` have been released. Each holds it, so it outlives the last of
    /// them: the jobs still queued when the test returns are released later, on the thread.
    final class ReleaseCount: @unchecked Sendable {
        private let lock = NSLock()
        private var n = 0
        func add() { lock.lock(); n += 1; lock.unlock() }
        var value: Int { lock.lock(); defer { lock.unlock() }; return n }
    }

    final class Captured: @unchecked Sendable {
        let count: ReleaseCount
        init(_ count: ReleaseCount) { self.count = count }
        deinit { count.add() }
    }

    @Test func jobsRunAreReleasedWhileTheQueueStaysBusy() throws {
        let thread = ConnectionThread(database: try Database(path: ":memory:"), name: "queue test")
        defer { thread.stop() }
        let count = ReleaseCount()
        let gate = DispatchSemaphore(value: 0), done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var releasedBeforeLast = -1
        thread.submit { _ in gate.wait() }        // the queue fills behind it
        for _ in 0..<200 {
            let captured = Captured(count)
            thread.submit { _ in _ = captured }
        }
        thread.submit { _ in
            releasedBeforeLast = count.value
            done.signal()
        }
        for _ in 0..<20 { thread.submit { _ in } }    // still queued when the check runs
        gate.signal()
        done.wait()
        // All 200 have run, and jobs were still queued behind the check.
        #expect(releasedBeforeLast >= 200 - 16, "released \(releasedBeforeLast) of the 200 jobs run")
    }
}
