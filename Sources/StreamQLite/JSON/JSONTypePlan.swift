/// How the decoder reads values of one type, found once per type and decoder (a
/// conformance lookup costs more than decoding a small object) and kept in a small
/// table (``JSONTapeDecoder/plan(for:)``).
struct JSONTypePlan {
    var type: ObjectIdentifier?
    /// A ``JSONDecodable`` type: `init(json:)`.
    var hand: (any JSONDecodable.Type)?
    /// `[Element]`: the elements straight from the tape, into an array of the right size.
    var array: (any JSONArrayDecodable.Type)?
    /// `[String: Value]`: the members straight from the tape.
    var dictionary: (any JSONStringDictionaryDecodable.Type)?

    init() {}

    init<T>(_ type: T.Type) {
        self.type = ObjectIdentifier(T.self)
        hand = T.self as? any JSONDecodable.Type
        array = T.self as? any JSONArrayDecodable.Type
        dictionary = T.self as? any JSONStringDictionaryDecodable.Type
    }

    /// Whether `init(from:)` is not called for these values.
    var readsDirectly: Bool { hand != nil || array != nil || dictionary != nil }
}

extension JSONTapeDecoder {
    /// The plan of `T` (made on first use).
    @inline(__always)
    func plan<T>(for type: T.Type) -> UnsafeMutablePointer<JSONTypePlan> {
        let id = ObjectIdentifier(T.self)
        let slot = handWrittenTable + Self.planSlot(id)
        if _fastPath(slot.pointee.type == id) { return slot }
        return planSlow(T.self, id)
    }

    /// The table slot where `id`'s plan is looked for first (a multiplicative hash of
    /// the metadata address: types met together often differ only in a few bits).
    @inline(__always)
    static func planSlot(_ id: ObjectIdentifier) -> Int {
        Int(truncatingIfNeeded: (UInt64(UInt(bitPattern: id)) &* 0x9E37_79B9_7F4A_7C15) >> 59) & (handWrittenSlots - 1)
    }

    /// That slot and the next 3 (open addressing): the first empty one gets the new plan;
    /// when all 4 are taken, the last is replaced (a type met again is only looked up again).
    func planSlow<T>(_ type: T.Type, _ id: ObjectIdentifier) -> UnsafeMutablePointer<JSONTypePlan> {
        let first = Self.planSlot(id)
        var k = 0
        while k < 4 {
            let slot = handWrittenTable + ((first + k) & (Self.handWrittenSlots - 1))
            if slot.pointee.type == id { return slot }
            if slot.pointee.type == nil || k == 3 {
                slot.pointee = JSONTypePlan(T.self)
                return slot
            }
            k += 1
        }
        fatalError("unreachable")
    }
}

/// `A`'s elements from the tape as a `T` known to be `A` (opened from a ``JSONTypePlan``).
func decodeArrayOpened<A: JSONArrayDecodable, T>(_ array: A.Type, as type: T.Type, _ decoder: JSONTapeDecoder, at i: Int) throws -> T {
    unsafeBitCast(try A.decodeArray(from: decoder, at: i), to: T.self)
}

/// `D`'s members from the tape as a `T` known to be `D` (opened from a ``JSONTypePlan``).
func decodeDictionaryOpened<D: JSONStringDictionaryDecodable, T>(_ dictionary: D.Type, as type: T.Type, _ decoder: JSONTapeDecoder, at i: Int) throws -> T {
    unsafeBitCast(try D.decodeKeepingKeys(from: decoder, at: i), to: T.self)
}
