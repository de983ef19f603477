/// The byte buffer under every writer: the row writers (``JSONRowWriter``, ``CSVRowWriter``)
/// and ``JSONValueEncoder``'s document writer (`JSONOutput`).
///
/// Raw memory with no ARC, bounds checks or exclusivity checks in the per-value paths: a
/// writer makes room once (``reserve(_:flushingTo:)`` or ``reserve(_:)``), then writes at
/// ``end`` or appends without checks. Room is made in one of two ways:
///
/// * a row writer's buffer has a fixed capacity and hands its bytes to a ``ByteSink`` when
///   full (``flush(to:)``): the output streams in chunks of that size;
/// * a document's buffer grows (``grow(_:)``, doubling), since the encoder reads back what it
///   wrote (sorted keys, duplicate members) before the document is done.
///
/// A plain value that does not own its memory: its owner (a writer's storage, `JSONOutput`)
/// allocates it with ``init(capacity:)`` and calls ``deallocate()`` once.
struct OutputBuffer {
    /// The first byte.
    private(set) var start: UnsafeMutablePointer<UInt8>
    /// Bytes written.
    var count = 0
    /// Bytes allocated.
    private(set) var capacity: Int

    /// Allocates `capacity` bytes (at least 1).
    init(capacity: Int) {
        self.capacity = max(capacity, 1)
        start = .allocate(capacity: self.capacity)
    }

    /// Frees the memory; the buffer must not be used afterwards.
    func deallocate() { start.deallocate() }

    /// Bytes that can be written before the buffer is full.
    @inline(__always) var room: Int { capacity &- count }
    /// Where the next byte goes.
    @inline(__always) var end: UnsafeMutablePointer<UInt8> { start + count }
    /// The bytes written.
    var bytes: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: start, count: count) }

    // MARK: Writing into reserved room (no checks)

    @inline(__always) mutating func append(_ byte: UInt8) {
        start[count] = byte
        count &+= 1
    }

    @inline(__always) mutating func append(_ s: StaticString) {
        let n = s.utf8CodeUnitCount
        end.update(from: s.utf8Start, count: n)
        count &+= n
    }

    @inline(__always) mutating func append(_ p: UnsafePointer<UInt8>, count n: Int) {
        end.update(from: p, count: n)
        count &+= n
    }

    // MARK: A growing buffer (a document)

    /// Makes room for `n` more bytes by growing.
    @inline(__always) mutating func reserve(_ n: Int) {
        if _slowPath(room < n) { grow(n) }
    }

    /// Doubles the capacity until `n` more bytes fit, keeping the bytes written.
    mutating func grow(_ n: Int) {
        start.grow(&capacity, count: count, toFit: n)
    }

    // MARK: A flushing buffer (a row writer)

    /// Makes room for `n` more bytes (at most the capacity) by handing the bytes to `sink`.
    @inline(__always) mutating func reserve(_ n: Int, flushingTo sink: inout any ByteSink) throws {
        if room < n { try flush(to: &sink) }
    }

    /// Hands the bytes written to `sink` and empties the buffer.
    mutating func flush(to sink: inout any ByteSink) throws {
        guard count > 0 else { return }
        let n = count
        count = 0
        try sink.write(UnsafeRawBufferPointer(start: start, count: n))
    }

    /// Copies any number of bytes, handing full buffers to `sink` as often as needed.
    @inline(__always) mutating func put(_ p: UnsafePointer<UInt8>, count n: Int, flushingTo sink: inout any ByteSink) throws {
        if _fastPath(n <= room) {
            append(p, count: n)
        } else {
            try putSlow(p, count: n, flushingTo: &sink)
        }
    }

    private mutating func putSlow(_ p: UnsafePointer<UInt8>, count n: Int, flushingTo sink: inout any ByteSink) throws {
        var p = p
        var left = n
        while left > 0 {
            if count == capacity { try flush(to: &sink) }
            let k = min(left, room)
            append(p, count: k)
            p += k
            left -= k
        }
    }
}
