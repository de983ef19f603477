import CStreamQLite

/// Memory for the TEXT values of one batch of a bulk insert, bound with
/// `SQLITE_STATIC`: SQLite reads them in place when the batch statement steps.
///
/// `SQLITE_TRANSIENT` makes SQLite free the parameter's previous buffer and
/// `malloc` a new one for every bound string (about 600 instructions per
/// value, most of a 3-column row's binding cost); here a string costs a
/// bump-pointer copy. The batch loop calls ``reset()`` once the statement has
/// run; before a statement steps again every one of its parameters is bound
/// anew, so no parameter ever points at recycled memory when SQLite reads it.
@usableFromInline
final class BindArena {
    // Unchecked: touched twice per bound string; only the batch loop's thread uses an arena.
    @exclusivity(unchecked) @usableFromInline var cursor: UnsafeMutablePointer<UInt8>
    @exclusivity(unchecked) @usableFromInline var end: UnsafeMutablePointer<UInt8>
    /// Standard blocks (`blockSize` bytes); `blocks[current]` is being filled. Kept across resets.
    private var blocks: [UnsafeMutablePointer<UInt8>]
    private var current = 0
    /// Values too large for a block, freed on reset.
    private var large: [UnsafeMutablePointer<UInt8>] = []
    private static let blockSize = 64 * 1024

    @usableFromInline
    init() {
        let first = UnsafeMutablePointer<UInt8>.allocate(capacity: Self.blockSize)
        blocks = [first]
        cursor = first
        end = first + Self.blockSize
    }

    deinit {
        for b in blocks { b.deallocate() }
        for b in large { b.deallocate() }
    }

    /// Copies `n` bytes and returns their stable address (valid until ``reset()``); never nil, even for `n == 0`.
    @inlinable @inline(__always)
    func copy(_ source: UnsafeRawPointer, _ n: Int) -> UnsafePointer<UInt8> {
        if end - cursor >= n {
            let p = cursor
            UnsafeMutableRawPointer(p).copyMemory(from: source, byteCount: n)
            cursor = p + n
            return UnsafePointer(p)
        }
        return copySlow(source, n)
    }

    @usableFromInline
    func copySlow(_ source: UnsafeRawPointer, _ n: Int) -> UnsafePointer<UInt8> {
        if n > Self.blockSize / 4 {
            let p = UnsafeMutablePointer<UInt8>.allocate(capacity: n)
            UnsafeMutableRawPointer(p).copyMemory(from: source, byteCount: n)
            large.append(p)
            return UnsafePointer(p)
        }
        current += 1
        if current == blocks.count { blocks.append(.allocate(capacity: Self.blockSize)) }
        cursor = blocks[current]
        end = cursor + Self.blockSize
        UnsafeMutableRawPointer(cursor).copyMemory(from: source, byteCount: n)
        let p = cursor
        cursor += n
        return UnsafePointer(p)
    }

    /// Recycles every byte handed out (call once the statements bound to them have run).
    @usableFromInline
    func reset() {
        current = 0
        cursor = blocks[0]
        end = cursor + Self.blockSize
        if !large.isEmpty {
            for b in large { b.deallocate() }
            large.removeAll(keepingCapacity: true)
        }
    }
}

/// Binds a Swift string as TEXT: copied into `arena` and bound `SQLITE_STATIC`, or,
/// without an arena, bound `SQLITE_TRANSIENT` (SQLite copies it).
@inlinable @inline(__always)
func sqBindText(_ stmt: OpaquePointer, _ index: Int32, _ value: String, arena: BindArena?) {
    guard let arena else { sqBindText(stmt, index, value); return }
    let done: Void? = value.utf8.withContiguousStorageIfAvailable { p in
        let bytes = arena.copy(UnsafeRawPointer(p.baseAddress ?? UnsafePointer(bitPattern: 1)!), p.count)
        _ = sqlite3_bind_text64(stmt, index, UnsafeRawPointer(bytes).assumingMemoryBound(to: CChar.self),
                                sqlite3_uint64(p.count), nil /* SQLITE_STATIC */, UInt8(SQLITE_UTF8))
    }
    if done == nil { sqBindText(stmt, index, value) }  // not contiguous UTF-8: SQLite copies
}

/// Binds bytes as a BLOB (SQLite copies them).
@usableFromInline
func sqBindBlob(_ stmt: OpaquePointer, _ index: Int32, _ value: [UInt8]) {
    value.withUnsafeBytes {
        _ = sqlite3_bind_blob64(stmt, index, $0.baseAddress ?? UnsafeRawPointer(bitPattern: 1), sqlite3_uint64($0.count),
                                streamTransientDestructor)
    }
}

/// Binds a Swift string as TEXT without an intermediate copy when the string is native UTF-8.
@usableFromInline
func sqBindText(_ stmt: OpaquePointer, _ index: Int32, _ value: String) {
    let done: Void? = value.utf8.withContiguousStorageIfAvailable { p in
        _ = sqlite3_bind_text64(stmt, index, UnsafeRawPointer(p.baseAddress ?? UnsafePointer(bitPattern: 1)!)
                                    .assumingMemoryBound(to: CChar.self),
                                sqlite3_uint64(p.count), streamTransientDestructor, UInt8(SQLITE_UTF8))
    }
    if done == nil {
        let bytes = Array(value.utf8)
        bytes.withUnsafeBufferPointer { p in
            _ = sqlite3_bind_text64(stmt, index, UnsafeRawPointer(p.baseAddress ?? UnsafePointer(bitPattern: 1)!)
                                        .assumingMemoryBound(to: CChar.self),
                                    sqlite3_uint64(p.count), streamTransientDestructor, UInt8(SQLITE_UTF8))
        }
    }
}
