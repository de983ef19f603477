/// Hands out a kept container (`KeyedDecodingContainer<Key>` or `KeyedEncodingContainer<Key>`)
/// again: making one costs a box allocation and a generic metadata lookup, calling this
/// closure neither (it captured the container, and with it its type's metadata). The row,
/// CSV, insert and JSON coders keep one per key type, as an `AnyObject`, and hand it out
/// again when the same key type asks (see their `container(keyedBy:)`).
final class ContainerThunk<Container> {
    let make: () -> Container
    init(holding container: Container) { make = { container } }
}
