import Foundation
import NIOConcurrencyHelpers
import NIOCore

/// Measures how late the NIO event loops run a timer: a repeated task on every loop
/// every `interval`; the lag is how much later than `interval` after the previous run it
/// fires. An event loop blocked by slow work (say, SQLite called on it) shows as lag.
public final class EventLoopProbe: Sendable {
    public struct Stats: Encodable, Sendable {
        public var samples = 0
        public var maxLagMicros = 0
        public var over1ms = 0
        public var over10ms = 0
    }

    private let stats = NIOLockedValueBox(Stats())
    private let interval: TimeAmount

    public init(group: any EventLoopGroup, interval: TimeAmount = .milliseconds(5)) {
        self.interval = interval
        for loop in group.makeIterator() {
            let last = NIOLockedValueBox(NIODeadline.now())
            loop.scheduleRepeatedTask(initialDelay: interval, delay: interval) { [stats] _ in
                let now = NIODeadline.now()
                let lag = last.withLockedValue { previous -> Int64 in
                    defer { previous = now }
                    return (now - previous - interval).nanoseconds
                }
                let micros = Int(max(0, lag) / 1000)
                stats.withLockedValue { s in
                    s.samples += 1
                    s.maxLagMicros = max(s.maxLagMicros, micros)
                    if micros > 1000 { s.over1ms += 1 }
                    if micros > 10_000 { s.over10ms += 1 }
                }
            }
        }
    }

    /// The figures since the last reset; `reset` starts counting afresh.
    public func snapshot(reset: Bool) -> Stats {
        stats.withLockedValue { s in
            defer { if reset { s = Stats() } }
            return s
        }
    }
}

/// The peak resident set size of this process (`VmHWM`), in KiB, on Linux.
public func peakRSSKiB() -> Int? {
    guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
    for line in text.split(separator: "\n") where line.hasPrefix("VmHWM:") {
        return Int(line.split(separator: " ").dropFirst().first ?? "")
    }
    return nil
}
