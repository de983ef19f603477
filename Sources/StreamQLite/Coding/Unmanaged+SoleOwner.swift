/// Whether the reference an `Unmanaged` stands for is the object's only one.
///
/// The coders keep the boxes of the containers they hand out in `Unmanaged` slots (retained
/// once, by `passRetained`), so that reading a slot on every row or element costs no retain
/// and release. A slot may be reused, or its memory freed, only when no copy of the
/// container is still alive somewhere: when that one retain is the object's only reference.
/// `isKnownUniquelyReferenced` needs a strong `inout` reference, which the slot is not; the
/// object's strong retain count says the same thing without making one.
extension Unmanaged {
    @inline(__always)
    var isSoleReference: Bool { _withUnsafeGuaranteedRef { _getRetainCount($0) } == 1 }
}
