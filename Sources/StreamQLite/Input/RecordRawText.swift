import CStreamQLite

/// The bytes of the record being read, for its reject's raw text, in a reader that feeds
/// the C readers itself (the CSV and JSON cursors): the core's `sq_ingest_rawtext`
/// (`sq_ingest.h`), the one definition of a reject's raw text — the record from its first
/// byte to its last, at most 4096 bytes, never cut inside a UTF-8 character, and whether it
/// is longer — as the imports report it. A record begun in an earlier chunk is read from
/// its first bytes kept when that chunk ended (``keep(consumed:from:)``; at most 4096).
final class RecordRawText {
    private let state: UnsafeMutablePointer<sq_ingest_rawtext>

    init() {
        state = .allocate(capacity: 1)
        state.initialize(to: sq_ingest_rawtext())
    }

    deinit {
        sq_ingest_rawtext_free(state)
        state.deallocate()
    }

    /// The chunk being read: `count` bytes at `bytes`, the first at input offset `base`;
    /// valid until ``keep(consumed:from:)``, ``forget()`` or the next chunk.
    func chunk(_ bytes: UnsafeRawPointer, count: Int, base: Int) {
        sq_ingest_rawtext_chunk(state, bytes, count, UInt64(base))
    }

    /// The reader leaves the chunk after `consumed` of its bytes, with a record begun at
    /// input offset `start` (UInt64.max: none): that record's first bytes are kept.
    func keep(consumed: Int, from start: UInt64) {
        sq_ingest_rawtext_keep(state, consumed, start)
    }

    /// Forgets the chunk and the kept bytes (another input begins).
    func forget() { sq_ingest_rawtext_forget(state) }

    /// `body` with the raw text of the record at input offsets `start..<end` (valid during
    /// the call) and whether the record is longer than it.
    func text<R>(from start: Int, to end: Int,
                 _ body: ((bytes: UnsafeRawBufferPointer, truncated: Bool)) throws -> R) rethrows -> R {
        var n = 0
        var truncated: Int32 = 0
        let z = sq_ingest_rawtext_get(state, UInt64(max(start, 0)), UInt64(max(end, 0)), &n, &truncated)!
        return try body((UnsafeRawBufferPointer(start: z, count: n), truncated != 0))
    }
}
