/// How the row, CSV, insert and JSON coders recognise a coding key without asking for its
/// `stringValue`: keys of a trivial (no references) key type are the same key when their
/// bits are the same, so whatever was worked out for one (a column, a written name, a
/// member's position) holds for the next one with those bits.

/// Whether keys of `K` are told apart by one byte: a trivial type of at most one byte, as the
/// synthesized `CodingKeys` of a type with up to 256 properties (see ``codingKeyByte(_:)``).
@inline(__always)
func isByteCodingKey<K: CodingKey>(_ type: K.Type) -> Bool {
    _isPOD(K.self) && MemoryLayout<K>.size <= 1
}

/// The byte of a key of a one-byte key type (``isByteCodingKey(_:)``; 0 for a type of no size).
@inline(__always)
func codingKeyByte<K: CodingKey>(_ key: K) -> Int {
    MemoryLayout<K>.size == 0 ? 0 : Int(unsafeBitCast(key, to: UInt8.self))
}

/// The bits of `key` when its type is trivial and 1, 2, 4 or 8 bytes, else nil.
@inlinable @inline(__always)
func codingKeyBits<Key: CodingKey>(_ key: Key) -> UInt64? {
    guard _isPOD(Key.self) else { return nil }
    switch MemoryLayout<Key>.size {
    case 1: return UInt64(unsafeBitCast(key, to: UInt8.self))
    case 2: return UInt64(unsafeBitCast(key, to: UInt16.self))
    case 4: return UInt64(unsafeBitCast(key, to: UInt32.self))
    case 8: return unsafeBitCast(key, to: UInt64.self)
    default: return nil
    }
}
