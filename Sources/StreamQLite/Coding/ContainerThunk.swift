/// Hand out a kept keyed container again: making one costs a box allocation and a generic
/// metadata lookup, calling these closures neither. The row, CSV and insert coders keep the
/// one of the last key type (``LastKeyedContainer``), the JSON coders one per key type in
/// their slot tables, as an `AnyObject`, and hand it out again when the same key type asks
/// (see their `container(keyedBy:)`). One class per direction, generic over the key alone, and
/// the closure made by ``capturing(_:)``.
@usableFromInline final class KeyedDecodingContainerThunk<Key: CodingKey> {
    @usableFromInline let make: () -> KeyedDecodingContainer<Key>
    init(holding container: KeyedDecodingContainer<Key>) { make = capturing(container) }
}

/// See ``KeyedDecodingContainerThunk``.
final class KeyedEncodingContainerThunk<Key: CodingKey> {
    let make: () -> KeyedEncodingContainer<Key>
    init(holding container: KeyedEncodingContainer<Key>) { make = capturing(container) }
}

/// A closure returning `value`. Made in a function generic over the value's type, it captures
/// that type's metadata, so calling it needs no lookup; a closure written in a context generic
/// over the key only looks up the container type's metadata from the key on each call.
func capturing<T>(_ value: T) -> () -> T { { value } }

/// The keyed container a coder handed out last, with its key type: a coder whose values
/// are all of one type (a row, a CSV record, an inserted value) asks for the same key type
/// on every value, and gets the container back without making it again.
///
/// The coder owns it as a stored property. Noncopyable, and holding its thunk through a
/// reference it retains itself: reading it never copies it, so handing the container out
/// costs no retain and release.
@usableFromInline struct LastKeyedContainer: ~Copyable {
    /// The thunk (a ``KeyedDecodingContainerThunk`` or ``KeyedEncodingContainerThunk``), retained.
    @usableFromInline var thunkRef: Unmanaged<AnyObject>?
    @usableFromInline var keyType: ObjectIdentifier?

    init() {}

    /// Inlinable: a coder may hold it as a `@usableFromInline` property (``RowDecoder``), whose
    /// implicit setter destroys the old value; with a non-inlinable deinit, Swift 6.3's
    /// optimizer inlines it there anyway and the compiler fails (an assertion, or "function has
    /// wrong linkage").
    @inlinable deinit { thunkRef?.release() }

    /// Whether the kept container is for `Key` (then ``decoding(_:)`` or ``encoding(_:)``
    /// hands it out). A `Bool`, not an optional container: in the coders' unspecialized
    /// `container(keyedBy:)`, an `Optional<KeyedDecodingContainer<Key>>` would cost a generic
    /// metadata lookup on every call.
    @inlinable @inline(__always)
    func holds<Key: CodingKey>(_ key: Key.Type) -> Bool {
        keyType == ObjectIdentifier(Key.self) && thunkRef != nil
    }

    /// The kept decoding container (``holds(_:)`` said it is for `Key`).
    @inlinable @inline(__always)
    func decoding<Key: CodingKey>(_ key: Key.Type) -> KeyedDecodingContainer<Key> {
        thunkRef.unsafelyUnwrapped._withUnsafeGuaranteedRef { unsafeDowncast($0, to: KeyedDecodingContainerThunk<Key>.self).make() }
    }

    /// The kept encoding container (``holds(_:)`` said it is for `Key`).
    @inline(__always)
    func encoding<Key: CodingKey>(_ key: Key.Type) -> KeyedEncodingContainer<Key> {
        thunkRef.unsafelyUnwrapped._withUnsafeGuaranteedRef { unsafeDowncast($0, to: KeyedEncodingContainerThunk<Key>.self).make() }
    }

    /// Keeps `container`, made for a key type the last one was not for.
    mutating func keep<Key: CodingKey>(_ container: KeyedDecodingContainer<Key>) {
        keep(KeyedDecodingContainerThunk(holding: container), for: Key.self)
    }

    /// Keeps `container`, made for a key type the last one was not for.
    mutating func keep<Key: CodingKey>(_ container: KeyedEncodingContainer<Key>) {
        keep(KeyedEncodingContainerThunk(holding: container), for: Key.self)
    }

    private mutating func keep(_ made: AnyObject, for key: Any.Type) {
        let retained = Unmanaged.passRetained(made)
        thunkRef?.release()
        thunkRef = retained
        keyType = ObjectIdentifier(key)
    }
}
