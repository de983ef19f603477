extension UnsafeMutablePointer {
    /// Doubles the capacity of the buffer at `self`, moving its first `count` elements:
    /// the growth step of the library's small hand-managed tables (decoding plans, key caches).
    mutating func doubleCapacity(_ capacity: inout Int, count: Int) {
        let bigger = UnsafeMutablePointer<Pointee>.allocate(capacity: capacity * 2)
        bigger.moveInitialize(from: self, count: count)
        deallocate()
        self = bigger
        capacity *= 2
    }
}
