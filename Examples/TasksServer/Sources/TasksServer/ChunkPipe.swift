import Foundation
import NIOCore
import StreamQLite

/// Carries the chunks a synchronous producer makes on a thread of its own (`writeJSON`
/// into a ``ClosureSink``) to the async response writer, holding at most `capacity`
/// chunks: when the client reads slowly the producer thread waits in ``send(_:)``, so
/// SQLite steps no further ahead than the network takes, and memory stays at
/// `capacity` chunks whatever the size of the result.
final class ChunkPipe: @unchecked Sendable {
    // Everything below is guarded by `condition`.
    private let condition = NSCondition()
    private var chunks: [ByteBuffer] = []
    private var finished = false
    private var failure: (any Error)?
    private var cancelled = false
    private var producing = true
    private var consumer: CheckedContinuation<ByteBuffer?, any Error>?
    private let capacity: Int
    private let interrupt: InterruptHandle

    init(capacity: Int = 4, interrupt: InterruptHandle) {
        self.capacity = capacity
        self.interrupt = interrupt
    }

    // MARK: Producer side (a pool thread; may block)

    /// Hands over a chunk; waits while `capacity` chunks are pending; throws once the consumer went away.
    func send(_ chunk: ByteBuffer) throws {
        condition.lock()
        while chunks.count >= capacity && !cancelled { condition.wait() }
        if cancelled {
            condition.unlock()
            throw CancellationError()
        }
        if let waiting = consumer {
            consumer = nil
            condition.unlock()
            waiting.resume(returning: chunk)
            return
        }
        chunks.append(chunk)
        condition.unlock()
    }

    /// The producer is done (with `error` if it failed); after this it never touches the
    /// connection again, so ``cancel()`` no longer interrupts it.
    func finish(_ error: (any Error)?) {
        condition.lock()
        finished = true
        producing = false
        failure = error
        let waiting = consumer
        consumer = nil
        condition.unlock()
        if let waiting {
            if let error { waiting.resume(throwing: error) } else { waiting.resume(returning: nil) }
        }
    }

    // MARK: Consumer side (async)

    /// The next chunk; nil at the end; rethrows the producer's error.
    func next() async throws -> ByteBuffer? {
        try await withCheckedThrowingContinuation { waiting in
            condition.lock()
            if !chunks.isEmpty {
                let chunk = chunks.removeFirst()
                condition.signal()
                condition.unlock()
                waiting.resume(returning: chunk)
            } else if finished {
                let error = failure
                condition.unlock()
                if let error { waiting.resume(throwing: error) } else { waiting.resume(returning: nil) }
            } else {
                consumer = waiting
                condition.unlock()
            }
        }
    }

    /// The consumer gives up (the client went away, the response was dropped): the
    /// producer's next ``send(_:)`` throws, and a statement still stepping is interrupted.
    func cancel() {
        condition.lock()
        defer { condition.unlock() }
        guard !cancelled else { return }
        cancelled = true
        chunks.removeAll()
        condition.broadcast()
        // Under the lock: `producing` cannot turn false (and the connection go back to the
        // pool and on to another request) between this check and the interrupt.
        if producing { interrupt.interrupt() }
    }
}

/// Cancels its pipe when released: whatever way the response body is dropped (written,
/// failed, never started), the producer thread is not left waiting.
final class PipeConsumer: Sendable {
    let pipe: ChunkPipe
    init(_ pipe: ChunkPipe) { self.pipe = pipe }
    deinit { pipe.cancel() }
}
