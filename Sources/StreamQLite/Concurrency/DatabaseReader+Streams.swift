import Foundation

extension DatabaseReader {
    /// The rows of `sql` as JSON, in chunks, as an `AsyncSequence`: the statement steps on a
    /// thread of its own (``readOnOwnThread(_:)``) and stays at most `chunksAhead` chunks
    /// ahead of the consumer, so memory stays bounded whatever the size of the result and a
    /// slow consumer holds back SQLite, not the other way round.
    ///
    /// Each chunk holds up to ``JSONWriterOptions/chunkSize`` bytes (64 KiB by default),
    /// made by `makeChunk` on the producing thread from bytes valid only during that call
    /// (copy them: `[UInt8](chunk)`, a NIO `ByteBuffer(bytes: chunk)`…). The whole result is
    /// one statement, so one snapshot. Nothing runs until the first `next()`, which waits for
    /// a connection (a free reader of a ``DatabasePool``; a ``DatabaseActor`` once its other
    /// work is done). An error (SQL, binding, ``JSONWriterError``) is thrown by `next()`; the
    /// chunks before it were already delivered. Dropping the iterator or cancelling the task
    /// stops the statement and gives the connection back.
    ///
    /// A consumer that stops taking chunks cannot hold the connection: when `chunksAhead`
    /// chunks have waited `stallTimeout` seconds (30 by default; nil: no limit) for the
    /// consumer, the statement stops, the connection is given back, and `next()` throws
    /// ``Database/StalledConsumerError`` after the waiting chunks. A deadline rather than a larger
    /// buffer: a buffer lets the connection go only for results that fit in it (and costs
    /// that memory per consumer), while the statement, its connection and the WAL snapshot
    /// that keeps checkpoints from finishing stay held as long as the consumer stalls; the
    /// deadline bounds that for any result size. A slow consumer that keeps taking chunks is
    /// not stopped: the timeout counts from the last chunk it took.
    ///
    /// On a ``DatabaseActor`` (one connection) the actor's other calls wait while a stream
    /// runs: writes on the connection of a running statement may or may not show in its
    /// later rows (SQLite's rule), so the result stays one snapshot.
    ///
    /// ```swift
    /// var chunks = pool.jsonChunks("SELECT * FROM tasks WHERE done = ?", false,
    ///                              as: { ByteBuffer(bytes: $0) }).makeAsyncIterator()
    /// while let chunk = try await chunks.next() { try await writer.write(chunk) }
    /// ```
    ///
    /// - Parameters:
    ///   - sql: One SQL statement.
    ///   - arguments: Values bound to its `?` parameters, in order.
    ///   - options: The JSON's shape (array or NDJSON, chunk size…).
    ///   - chunksAhead: Chunks the statement may make before the consumer takes them.
    ///   - stallTimeout: Seconds a full buffer may wait for the consumer; nil: no limit.
    ///   - makeChunk: Copies the bytes of a chunk into the type the consumer wants.
    /// - Returns: The chunks as an `AsyncSequence`; errors are thrown by its `next()`.
    public func jsonChunks<Chunk: Sendable, each A: DatabaseValueConvertible>(
        _ sql: String, _ arguments: repeat each A, options: JSONWriterOptions = JSONWriterOptions(),
        chunksAhead: Int = 4, stallTimeout: TimeInterval? = 30,
        as makeChunk: @escaping @Sendable (UnsafeRawBufferPointer) -> Chunk
    ) -> Database.ResultChunks<Chunk> {
        chunks(sql, repeat each arguments, chunksAhead: chunksAhead, stallTimeout: stallTimeout, as: makeChunk) { db, statement, sink in
            try db.writeJSON(statement, to: &sink, options: options)
        }
    }

    /// The rows of `sql` as JSON chunks of `[UInt8]`; see ``jsonChunks(_:_:options:chunksAhead:stallTimeout:as:)``.
    public func jsonChunks<each A: DatabaseValueConvertible>(
        _ sql: String, _ arguments: repeat each A, options: JSONWriterOptions = JSONWriterOptions(),
        chunksAhead: Int = 4, stallTimeout: TimeInterval? = 30
    ) -> Database.ResultChunks<[UInt8]> {
        jsonChunks(sql, repeat each arguments, options: options, chunksAhead: chunksAhead,
                   stallTimeout: stallTimeout, as: { [UInt8]($0) })
    }

    /// Streams the rows of `sql` as JSON to `consumer`, one chunk at a time, and returns the
    /// number of rows: ``Database/writeJSON(_:_:to:options:)`` for async code.
    ///
    /// The statement runs on a thread of its own, at most `chunksAhead` chunks ahead of
    /// `consumer`, which runs in the calling task and may suspend (a network write): that is
    /// the backpressure. The chunk is valid only during the call. An error thrown by
    /// `consumer` stops the statement and is rethrown; so is cancelling the calling task, and
    /// ``Database/StalledConsumerError`` when `consumer` keeps the chunks ahead full for `stallTimeout`
    /// seconds (see ``jsonChunks(_:_:options:chunksAhead:stallTimeout:as:)``).
    ///
    /// ```swift
    /// let n = try await pool.writeJSON("SELECT * FROM tasks") { bytes in try await socket.write(bytes) }
    /// ```
    ///
    /// - Parameters:
    ///   - sql: One SQL statement.
    ///   - arguments: Values bound to its `?` parameters, in order.
    ///   - options: The JSON's shape.
    ///   - chunksAhead: Chunks made before `consumer` takes them.
    ///   - stallTimeout: Seconds a full buffer may wait for `consumer`; nil: no limit.
    ///   - consumer: Takes each chunk (valid during the call only).
    /// - Returns: The number of rows written.
    /// - Throws: ``DatabaseError``, ``JSONWriterError``, what `consumer` threw,
    ///   ``Database/StalledConsumerError``, or `CancellationError`.
    @discardableResult
    public func writeJSON<each A: DatabaseValueConvertible>(
        _ sql: String, _ arguments: repeat each A, options: JSONWriterOptions = JSONWriterOptions(),
        chunksAhead: Int = 2, stallTimeout: TimeInterval? = 30,
        to consumer: (UnsafeRawBufferPointer) async throws -> Void
    ) async throws -> Int {
        try await consume(jsonChunks(sql, repeat each arguments, options: options, chunksAhead: chunksAhead,
                                     stallTimeout: stallTimeout, as: { OwnedChunk($0) }), consumer)
    }

    /// The rows of `sql` as CSV, in chunks of up to ``CSVWriterOptions/chunkSize`` bytes, as
    /// an `AsyncSequence`: the header first, then one record per row, as
    /// ``Database/writeCSV(_:_:to:options:)`` writes them. The statement runs, waits for the
    /// consumer and stops as for ``jsonChunks(_:_:options:chunksAhead:stallTimeout:as:)``.
    ///
    /// ```swift
    /// for try await chunk in pool.csvChunks("SELECT id, title FROM tasks") { try await out.write(chunk) }
    /// ```
    ///
    /// - Parameters:
    ///   - sql: One SQL statement.
    ///   - arguments: Values bound to its `?` parameters, in order.
    ///   - options: Delimiter, header, line ends, byte-order mark, chunk size.
    ///   - chunksAhead: Chunks the statement may make before the consumer takes them.
    ///   - stallTimeout: Seconds a full buffer may wait for the consumer; nil: no limit.
    ///   - makeChunk: Copies the bytes of a chunk into the type the consumer wants.
    /// - Returns: The chunks as an `AsyncSequence`; errors are thrown by its `next()`.
    public func csvChunks<Chunk: Sendable, each A: DatabaseValueConvertible>(
        _ sql: String, _ arguments: repeat each A, options: CSVWriterOptions = CSVWriterOptions(),
        chunksAhead: Int = 4, stallTimeout: TimeInterval? = 30,
        as makeChunk: @escaping @Sendable (UnsafeRawBufferPointer) -> Chunk
    ) -> Database.ResultChunks<Chunk> {
        chunks(sql, repeat each arguments, chunksAhead: chunksAhead, stallTimeout: stallTimeout, as: makeChunk) { db, statement, sink in
            try db.writeCSV(statement, to: &sink, options: options)
        }
    }

    /// The rows of `sql` as CSV chunks of `[UInt8]`; see ``csvChunks(_:_:options:chunksAhead:stallTimeout:as:)``.
    public func csvChunks<each A: DatabaseValueConvertible>(
        _ sql: String, _ arguments: repeat each A, options: CSVWriterOptions = CSVWriterOptions(),
        chunksAhead: Int = 4, stallTimeout: TimeInterval? = 30
    ) -> Database.ResultChunks<[UInt8]> {
        csvChunks(sql, repeat each arguments, options: options, chunksAhead: chunksAhead,
                  stallTimeout: stallTimeout, as: { [UInt8]($0) })
    }

    /// Streams the rows of `sql` as CSV to `consumer`, one chunk at a time, and returns the
    /// number of rows (the header not counted): ``Database/writeCSV(_:_:to:options:)`` for
    /// async code, with the backpressure and errors of ``writeJSON(_:_:options:chunksAhead:stallTimeout:to:)``.
    ///
    /// ```swift
    /// let n = try await pool.writeCSV("SELECT * FROM tasks") { bytes in try await socket.write(bytes) }
    /// ```
    ///
    /// - Parameters:
    ///   - sql: One SQL statement.
    ///   - arguments: Values bound to its `?` parameters, in order.
    ///   - options: Delimiter, header, line ends, byte-order mark, chunk size.
    ///   - chunksAhead: Chunks made before `consumer` takes them.
    ///   - stallTimeout: Seconds a full buffer may wait for `consumer`; nil: no limit.
    ///   - consumer: Takes each chunk (valid during the call only).
    /// - Returns: The number of rows written.
    /// - Throws: ``DatabaseError``, ``CSVWriterError``, what `consumer` threw,
    ///   ``Database/StalledConsumerError``, or `CancellationError`.
    @discardableResult
    public func writeCSV<each A: DatabaseValueConvertible>(
        _ sql: String, _ arguments: repeat each A, options: CSVWriterOptions = CSVWriterOptions(),
        chunksAhead: Int = 2, stallTimeout: TimeInterval? = 30,
        to consumer: (UnsafeRawBufferPointer) async throws -> Void
    ) async throws -> Int {
        try await consume(csvChunks(sql, repeat each arguments, options: options, chunksAhead: chunksAhead,
                                    stallTimeout: stallTimeout, as: { OwnedChunk($0) }), consumer)
    }

    /// The chunks of any format: `writeRows` writes the bound statement's rows to the sink.
    private func chunks<Chunk: Sendable, each A: DatabaseValueConvertible>(
        _ sql: String, _ arguments: repeat each A, chunksAhead: Int, stallTimeout: TimeInterval?,
        as makeChunk: @escaping @Sendable (UnsafeRawBufferPointer) -> Chunk,
        writeRows: @escaping @Sendable (Database, Statement, inout ClosureSink) throws -> Int
    ) -> Database.ResultChunks<Chunk> {
        var values: [DatabaseValue] = []
        for argument in repeat each arguments { values.append(argument.databaseValue) }
        return Database.ResultChunks(reader: self, sql: sql, arguments: values, chunksAhead: max(chunksAhead, 1),
                            stallTimeout: stallTimeout.map { max($0, 0) }, makeChunk: makeChunk, writeRows: writeRows)
    }

    /// Hands each chunk to `consumer` in the calling task; returns the number of rows.
    private func consume(_ chunks: Database.ResultChunks<OwnedChunk>,
                         _ consumer: (UnsafeRawBufferPointer) async throws -> Void) async throws -> Int {
        var iterator = chunks.makeAsyncIterator()
        while let chunk = try await iterator.next() {
            try await consumer(chunk.bytes)
            withExtendedLifetime(chunk) {}
        }
        return iterator.rowCount ?? 0
    }
}
