import Foundation
import Testing
@testable import StreamQLite

/// A connection thread whose queue never empties (a writer always busy) lets go of the jobs
/// it has run, and of what their closures captured.
@Suite struct ConnectionThreadQueueTests {
    final class Captured: @unchecked Sendable {
        let released: NSCondition
        let count: UnsafeMutablePointer<Int>
        init(_ released: NSCondition, _ count: UnsafeMutablePointer<Int>) { self.released = released; self.count = count }
        deinit { released.lock(); count.pointee += 1; released.unlock() }
    }

    @Test func jobsRunAreReleasedWhileTheQueueStaysBusy() throws {
        let thread = ConnectionThread(database: try Database(path: ":memory:"), name: "queue test")
        defer { thread.stop() }
        let released = NSCondition()
        let count = UnsafeMutablePointer<Int>.allocate(capacity: 1)
        count.initialize(to: 0)
        defer { count.deallocate() }
        let gate = DispatchSemaphore(value: 0), done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var releasedBeforeLast = -1
        thread.submit { _ in gate.wait() }        // the queue fills behind it
        for _ in 0..<200 {
            let captured = Captured(released, count)
            thread.submit { _ in _ = captured }
        }
        thread.submit { _ in
            released.lock(); releasedBeforeLast = count.pointee; released.unlock()
            done.signal()
        }
        for _ in 0..<20 { thread.submit { _ in } }    // still queued when the check runs
        gate.signal()
        done.wait()
        // All 200 have run, and jobs were still queued behind the check.
        #expect(releasedBeforeLast >= 200 - 16, "released \(releasedBeforeLast) of the 200 jobs run")
    }
}
