import Foundation

extension Database {
    /// The rows of a query as chunks of JSON or CSV text, produced on a thread of their own
    /// (``DatabaseReader/readOnOwnThread(_:)``) and consumed with `for try await` (see
    /// ``DatabaseReader/jsonChunks(_:_:options:chunksAhead:stallTimeout:as:)`` and
    /// ``DatabaseReader/csvChunks(_:_:options:chunksAhead:stallTimeout:as:)``).
    ///
    /// Each iterator runs the statement once. Iterators are `Sendable`: one may be started in a
    /// request handler (to see the first chunk, or an error, before answering) and finished in
    /// the response body writer.
    public struct ResultChunks<Chunk: Sendable>: AsyncSequence, Sendable {
        public typealias Element = Chunk
        let reader: any DatabaseReader
        let sql: String
        let arguments: [DatabaseValue]
        let chunksAhead: Int
        /// How long the producer waits for the consumer to take a chunk; nil: as long as it takes.
        let stallTimeout: TimeInterval?
        let makeChunk: @Sendable (UnsafeRawBufferPointer) -> Chunk
        /// Writes the statement's rows in the format to the sink, and returns their number.
        let writeRows: @Sendable (Database, Statement, inout ClosureSink) throws -> Int

        public func makeAsyncIterator() -> Iterator { Iterator(handle: ConsumerHandle(ChunkStream(self))) }

        /// Runs the statement on the first ``next()``; stops it when the last copy of the iterator is dropped.
        public struct Iterator: AsyncIteratorProtocol, Sendable {
            let handle: ConsumerHandle<Chunk>

            /// The next chunk; nil after the last one; throws the statement's error, or
            /// `CancellationError` when the task is cancelled.
            public mutating func next() async throws -> Chunk? { try await handle.stream.next() }

            /// The number of rows written, once ``next()`` has returned nil.
            public var rowCount: Int? { handle.stream.rowCount }
        }
    }
}

/// Held by the iterator only (the producing job holds the stream): when the last copy of
/// the iterator goes, the stream is cancelled, so the producer never waits for a consumer
/// that is gone.
final class ConsumerHandle<Chunk: Sendable>: Sendable {
    let stream: ChunkStream<Chunk>
    init(_ stream: ChunkStream<Chunk>) { self.stream = stream }
    deinit { stream.cancel() }
}

/// The hand-over between the producing thread and the consuming task: at most
/// `chunksAhead` chunks wait; the producer blocks (its own thread) when they do, for at most
/// `stallTimeout`: then it stops the statement with ``Database/StalledConsumerError`` and gives the
/// connection back (the consumer still gets the chunks that wait, then the error).
///
/// Chunks, the end and errors pass through the guarded state only; a waiting consumer is
/// woken after the producer released `condition`, and takes it before it looks (the
/// hand-over the thread sanitizer can see: see ConnectionThread's `ResultJob`).
final class ChunkStream<Chunk: Sendable>: @unchecked Sendable {
    private let source: Database.ResultChunks<Chunk>
    // Everything below is guarded by `condition`.
    private let condition = NSCondition()
    private var chunks: [Chunk] = []
    private var started = false
    private var finished = false
    private var failure: (any Error)?
    private var rows: Int?
    private var cancelled = false
    /// The task running the statement, once started (cancelled → the statement is interrupted).
    private var producer: Task<Void, Never>?
    private var consumer: UnsafeContinuation<Void, Never>?

    init(_ source: Database.ResultChunks<Chunk>) { self.source = source }

    var rowCount: Int? {
        condition.lock()
        defer { condition.unlock() }
        return rows
    }

    // MARK: Consumer (async)

    func next() async throws -> Chunk? {
        if try await startIfNeeded() { return nil }
        while true {
            if let outcome = condition.withLock({ takeLocked() }) { return try outcome.get() }
            await withTaskCancellationHandler {
                await withUnsafeContinuation { (waiting: UnsafeContinuation<Void, Never>) in
                    condition.lock()
                    let ready = !chunks.isEmpty || finished || cancelled
                    if !ready { consumer = waiting }
                    condition.unlock()
                    if ready { waiting.resume() }
                }
            } onCancel: {
                cancel()
            }
        }
    }

    /// The next chunk, or the end (nil, or the error once), or nil when there is nothing yet.
    /// Called holding `condition`.
    private func takeLocked() -> Result<Chunk?, any Error>? {
        if !chunks.isEmpty {
            condition.broadcast()
            return .success(chunks.removeFirst())
        }
        guard finished || cancelled else { return nil }
        let error = cancelled ? CancellationError() : failure
        failure = nil
        return error.map { .failure($0) } ?? .success(nil)
    }

    /// Releases `condition`, then wakes the consumer if it waits; called holding `condition`.
    private func unlockAndWakeConsumer() {
        let waiting = consumer
        consumer = nil
        condition.unlock()
        waiting?.resume()
    }

    /// Starts the statement on a thread of its own (first call only): the consumer then
    /// waits for its first chunk. True when there is nothing more to read (finished before).
    private func startIfNeeded() async throws -> Bool {
        let (first, done) = markStarted()
        guard first else { return done }
        let source = self.source
        let task = Task { [self] in
            do {
                let rows = try await source.reader.readOnOwnThread { [self] db in
                    let statement = try db.cachedStatement(source.sql)
                    try statement.bind(arguments: StatementArguments(source.arguments))
                    var sink = ClosureSink { [self] chunk in try send(source.makeChunk(chunk)) }
                    return try source.writeRows(db, statement, &sink)
                }
                finish(rows, error: nil)
            } catch {
                finish(nil, error: error)
            }
        }
        if register(task) { task.cancel() }
        return false
    }

    /// Whether this is the first call, and whether everything was already read.
    private func markStarted() -> (first: Bool, done: Bool) {
        condition.lock()
        defer { condition.unlock() }
        let first = !started
        started = true
        return (first, finished && chunks.isEmpty && failure == nil)
    }

    /// Records the producing task for ``cancel()``; true when it was cancelled meanwhile.
    private func register(_ task: Task<Void, Never>) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        if !finished { producer = task }
        return cancelled && !finished
    }

    // MARK: Producer (the connection's thread; may block)

    /// Hands over a chunk; waits while `chunksAhead` chunks are pending, at most
    /// `stallTimeout`; throws once the consumer went away or stalled.
    private func send(_ chunk: Chunk) throws {
        condition.lock()
        let deadline = source.stallTimeout.map { Date(timeIntervalSinceNow: $0) }
        while chunks.count >= source.chunksAhead && !cancelled {
            if let deadline {
                if !condition.wait(until: deadline) && chunks.count >= source.chunksAhead && !cancelled {
                    condition.unlock()
                    throw Database.StalledConsumerError(timeout: source.stallTimeout ?? 0, chunksAhead: source.chunksAhead)
                }
            } else {
                condition.wait()
            }
        }
        if cancelled {
            condition.unlock()
            throw CancellationError()
        }
        chunks.append(chunk)
        unlockAndWakeConsumer()
    }

    /// The producer is done (its connection given back, or about to be by its thread).
    private func finish(_ rows: Int?, error: (any Error)?) {
        condition.lock()
        finished = true
        producer = nil
        self.rows = rows
        if !cancelled { failure = error }
        unlockAndWakeConsumer()
    }

    /// The consumer gives up (dropped the iterator, or its task was cancelled): pending chunks
    /// are dropped, the producer's next hand-over throws, a running statement is interrupted.
    func cancel() {
        condition.lock()
        guard !cancelled else { return condition.unlock() }
        cancelled = true
        chunks.removeAll()
        condition.broadcast()
        let producer = self.producer
        unlockAndWakeConsumer()
        // The connection's thread interrupts only while this statement runs (never the next job).
        producer?.cancel()
    }
}

extension Database {
    /// Thrown by a ``Database/ResultChunks`` iterator whose consumer took no chunk for the stall timeout
    /// while the chunks ahead were full: the statement was stopped and its connection given
    /// back, so a consumer that stops reading (a network client that stalls) cannot keep a
    /// reader, nor the WAL snapshot it holds, for longer than that.
    ///
    /// The consumer first gets the chunks that were waiting, then this error: the result is cut
    /// short, never passed off as complete.
    public struct StalledConsumerError: Error, Sendable, CustomStringConvertible {
        /// The stall timeout that passed, in seconds.
        public var timeout: TimeInterval
        /// How many chunks were waiting for the consumer.
        public var chunksAhead: Int

        public var description: String {
            "the consumer took no chunk for \(timeout) s with \(chunksAhead) chunks waiting; the statement was stopped and its connection given back"
        }
    }
}
