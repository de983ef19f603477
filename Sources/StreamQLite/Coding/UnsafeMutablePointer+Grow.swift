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

    /// Grows the buffer at `self` by doubling its capacity until `n` more elements fit after
    /// its first `count`, which are moved: the growth step of the byte buffers (CSV record
    /// text, ``OutputBuffer``).
    mutating func grow(_ capacity: inout Int, count: Int, toFit n: Int) {
        var c = capacity * 2
        while c - count < n { c *= 2 }
        let bigger = UnsafeMutablePointer<Pointee>.allocate(capacity: c)
        bigger.moveInitialize(from: self, count: count)
        deallocate()
        self = bigger
        capacity = c
    }
}
