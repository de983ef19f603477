/// Hand out a kept keyed container again: making one costs a box allocation and a generic
/// metadata lookup, calling these closures neither. The row, CSV, insert and JSON coders keep
/// one per key type, as an `AnyObject`, and hand it out again when the same key type asks
/// (see their `container(keyedBy:)`). One class per direction, generic over the key alone, and
/// the closure made by ``capturing(_:)``.
final class KeyedDecodingContainerThunk<Key: CodingKey> {
    let make: () -> KeyedDecodingContainer<Key>
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
