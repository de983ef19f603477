/// What a coder keeps about one type: found once, on the type's first use, from
/// conformance casts (a cast costs more than coding a small value).
protocol TypePlan {
    /// The plan of no type: what an empty slot holds.
    init()
    /// The plan of `T`.
    init<T>(_ type: T.Type)
}

/// The plans of the types a coder meets, kept per coder in a small open-addressed
/// table keyed by the type's metadata address.
///
/// A type is looked for in its slot (a multiplicative hash of the address: types met
/// together often differ only in a few bits) and the next ``probes`` - 1; the first
/// empty one of these gets a new type's plan, and when all are taken the last is
/// replaced (a type met again is then only planned again).
struct TypeTable<Plan: TypePlan>: ~Copyable {
    struct Entry {
        var type: ObjectIdentifier?
        var plan: Plan
    }

    /// 2^(64 - ``shift``) slots.
    static var slots: Int { 64 }
    /// What of the hash is dropped: the top 6 bits pick one of 64 slots.
    static var shift: UInt64 { 58 }
    /// Slots looked at per type.
    static var probes: Int { 4 }

    private let entries: UnsafeMutablePointer<Entry>

    init() {
        entries = .allocate(capacity: Self.slots)
        entries.initialize(repeating: Entry(type: nil, plan: Plan()), count: Self.slots)
    }

    deinit {
        entries.deinitialize(count: Self.slots)
        entries.deallocate()
    }

    /// The entry of `T`, its plan made on first use: read it before the next lookup
    /// (another type may then take its slot).
    ///
    /// Every probe of a type met before is inline: a type whose first slot another type took
    /// (which depends on where the binary's metadata lie) is found in the next ones without a
    /// call, since the out-of-line call, unspecialized, would look up the entry's generic
    /// metadata every time.
    @inline(__always)
    func entry<T>(for type: T.Type) -> UnsafeMutablePointer<Entry> {
        let id = ObjectIdentifier(T.self)
        let first = Self.slot(id)
        let entry = entries + first
        if _fastPath(entry.pointee.type == id) { return entry }
        for k in 1..<Self.probes {
            let next = entries + ((first + k) & (Self.slots - 1))
            if next.pointee.type == id { return next }
        }
        return insert(T.self, id)
    }

    /// The slot where `id` is looked for first.
    @inline(__always)
    private static func slot(_ id: ObjectIdentifier) -> Int {
        Int(truncatingIfNeeded: (UInt64(UInt(bitPattern: id)) &* 0x9E37_79B9_7F4A_7C15) >> shift)
    }

    @inline(never)
    private func insert<T>(_ type: T.Type, _ id: ObjectIdentifier) -> UnsafeMutablePointer<Entry> {
        let first = Self.slot(id)
        for k in 0..<Self.probes {
            let entry = entries + ((first + k) & (Self.slots - 1))
            if entry.pointee.type == id { return entry }
            if entry.pointee.type == nil || k == Self.probes - 1 {
                entry.pointee = Entry(type: id, plan: Plan(T.self))
                return entry
            }
        }
        fatalError("unreachable")
    }
}
