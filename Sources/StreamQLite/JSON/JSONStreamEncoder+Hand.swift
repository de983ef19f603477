import Foundation

/// How ``JSONStreamEncoder`` writes a value of some type besides the scalars and the
/// special types: by hand (``JSONEncodable``), as an array it walks itself, or through
/// `encode(to:)`.
enum JSONEncodeKind {
    case plain
    /// `Date`, `Data`, `URL`, `Decimal`: written as the options say (``JSONValueEncoder/Options/special(_:path:)``).
    case special
    case hand(any JSONEncodable.Type)
    case array(any JSONArrayEncodable.Type)
    case stringKeyed(any JSONStringKeyedEncodable.Type)
}

/// A type and how it is written (see ``JSONStreamEncoder/kind(of:)``).
struct JSONEncodeKindEntry {
    var type: ObjectIdentifier?
    var kind: JSONEncodeKind
}

/// `[Element]` written element by element by the encoder itself: no unkeyed container,
/// and `encode(json:)` called straight for ``JSONEncodable`` elements.
protocol JSONArrayEncodable {
    func encodeElements(to encoder: JSONStreamEncoder) throws
}

extension Array: JSONArrayEncodable where Element: Encodable {
    func encodeElements(to e: JSONStreamEncoder) throws {
        if case .hand(let hand) = e.kind(of: Element.self) {
            try e.encodeHandArray(hand, self)
            return
        }
        let depth = e.out.frames.count
        let id = e.out.open(object: false)
        if Element.self == String.self {
            for s in unsafeBitCast(self, to: [String].self) { e.out.beforeElement(); e.out.string(s) }
        } else if Element.self == Int.self {
            for v in unsafeBitCast(self, to: [Int].self) { e.out.beforeElement(); e.out.integer(Int64(v)) }
        } else if case .plain = e.kind(of: Element.self), Element.self != Double.self, Element.self != Bool.self {
            // What `encodeValue` would find for each element, found once.
            // (By index: a `for` loop's iterator and `Optional<Element>` cost a metadata lookup per array.)
            try withUnsafeBufferPointer { elements in
                guard let base = elements.baseAddress else { return }
                for i in 0..<elements.count {
                    if _slowPath(e.tree != nil) { return try e.appendInTree(id, elements[i...]) }
                    e.out.beforeElement()
                    try e.encodePlain(base[i], top: false)
                }
            }
        } else {
            try withUnsafeBufferPointer { elements in
                guard let base = elements.baseAddress else { return }
                for i in 0..<elements.count {
                    if _slowPath(e.tree != nil) { return try e.appendInTree(id, elements[i...]) }
                    e.out.beforeElement()
                    try e.encodeValue(base[i])
                }
            }
        }
        e.out.close(downTo: depth)
    }
}

/// `[String: V]` written by the encoder itself: no keyed container or `CodingKey` per
/// member, keys as they are (the key strategy does not apply to them, as in `JSONEncoder`,
/// also when the tree encoder writes it), no search for duplicate keys.
protocol JSONStringKeyedEncodable {
    func encodeMembers(to encoder: JSONStreamEncoder) throws
}

extension Dictionary: JSONStringKeyedEncodable where Key == String, Value: Encodable {
    func encodeMembers(to e: JSONStreamEncoder) throws {
        let depth = e.out.frames.count
        let id = e.out.open(object: true, rawKeys: true)
        // Distinct keys: no duplicates to look for when the object closes (sorted there with `sortedKeys`).
        e.out.frames[depth].distinct = true
        // By index: a `for` loop's iterator and `Optional<(Key, Value)>` cost metadata lookups per dictionary.
        let keys = self.keys, values = self.values
        var i = startIndex
        while i != endIndex {
            if _slowPath(e.tree != nil) {
                var c = e.treeKeyed(JSONStringKey.self, id)
                while i != endIndex { try c.encode(values[i], forKey: JSONStringKey(keys[i])); i = index(after: i) }
                return
            }
            e.out.key(keys[i], byte: -1, type: nil)
            try e.encodeValue(values[i])
            i = index(after: i)
        }
        e.out.close(downTo: depth)
    }
}

/// `encodeMembers` for a type known to be a `[String: V]`.
@inline(__always)
private func encodeOpenedMembers<D: JSONStringKeyedEncodable, T>(_ dictionary: D.Type, _ value: T, _ e: JSONStreamEncoder) throws {
    try unsafeBitCast(value, to: D.self).encodeMembers(to: e)
}

/// `JSONStreamEncoder.encodeHandArray` for an `[T]` whose `T` is known to be `H`.
@inline(__always)
private func encodeOpenedArray<H: JSONEncodable, T>(_ hand: H.Type, _ values: [T], _ e: JSONStreamEncoder) throws {
    try e.encodeHandArray(unsafeBitCast(values, to: [H].self))
}

/// `JSONStreamEncoder.encodeHand` for a `T` known to be `H`.
@inline(__always)
private func encodeOpened<H: JSONEncodable, T>(_ hand: H.Type, _ value: T, _ e: JSONStreamEncoder) throws {
    try e.encodeHand(unsafeBitCast(value, to: H.self))
}

/// `encodeElements` for a type known to be an array.
@inline(__always)
private func encodeOpenedElements<A: JSONArrayEncodable, T>(_ array: A.Type, _ value: T, _ e: JSONStreamEncoder) throws {
    try unsafeBitCast(value, to: A.self).encodeElements(to: e)
}

extension JSONStreamEncoder {
    /// The rest of an array's elements, once the stream gave way to the tree (see ``takeOver()``).
    @inline(never)
    func appendInTree<T: Encodable>(_ id: UInt64, _ elements: Slice<UnsafeBufferPointer<T>>) throws {
        var c = treeUnkeyed(id)
        for v in elements { try c.encode(v) }
    }

    static let kindSlots = 64

    /// How values of `T` are written: asked once per type and encoder (a conformance
    /// lookup costs more than writing a small object), kept in a small table.
    @inline(__always)
    func kind<T>(of type: T.Type) -> JSONEncodeKind {
        let id = ObjectIdentifier(T.self)
        // Metadata addresses, 16-byte aligned: their next bits pick the slot (no hashing).
        let slot = kindTable + (Int(truncatingIfNeeded: UInt(bitPattern: id) >> 4) & (Self.kindSlots - 1))
        if _fastPath(slot.pointee.type == id) { return slot.pointee.kind }
        let kind: JSONEncodeKind
        if T.self == Date.self || T.self == Data.self || T.self == URL.self || T.self == Decimal.self {
            kind = .special
        } else if !(T.self is AnyObject.Type), let hand = T.self as? any JSONEncodable.Type {
            // Structs and enums only: a subclass may override `encode(to:)` (and inherits `encode(json:)`).
            kind = .hand(hand)
        } else if let array = T.self as? any JSONArrayEncodable.Type {
            kind = .array(array)
        } else if let dictionary = T.self as? any JSONStringKeyedEncodable.Type {
            kind = .stringKeyed(dictionary)
        } else {
            kind = .plain
        }
        slot.pointee = JSONEncodeKindEntry(type: id, kind: kind)
        return kind
    }

    /// Writes `value` by hand or as an array when its type allows; false when it must go
    /// through `encode(to:)`.
    @inline(__always)
    func encodeByKind<T: Encodable>(_ value: T) throws -> Bool {
        switch kind(of: T.self) {
        case .plain, .special: return false
        case .hand(let hand): try encodeOpened(hand, value, self)
        case .array(let array): try encodeOpenedElements(array, value, self)
        case .stringKeyed(let dictionary): try encodeOpenedMembers(dictionary, value, self)
        }
        return true
    }

    /// Writes `value` as an object with its `encode(json:)`.
    @inline(__always)
    func encodeHand<H: JSONEncodable>(_ value: H) throws {
        let depth = out.frames.count
        let id = out.openHand(ObjectIdentifier(H.self))
        var writer = JSONObjectWriter(encoder: self, id: id)
        try value.encode(json: &writer)
        if _fastPath(out.frames.count == depth &+ 1 && out.frames[depth].id == id) { out.closeHand() } else { out.close(downTo: depth) }
    }

    /// Writes an array of `H`, each with its `encode(json:)`.
    func encodeHandArray<H: JSONEncodable>(_ values: [H]) throws {
        let depth = out.frames.count
        let id = out.open(object: false)
        try values.withUnsafeBufferPointer { elements in
            guard let base = elements.baseAddress else { return }
            for i in 0..<elements.count {
                if _slowPath(tree != nil) { return try appendInTree(id, elements[i...]) }
                out.beforeElement()
                try encodeHand(base[i])
            }
        }
        out.close(downTo: depth)
    }

    /// ``encodeHandArray(_:)`` for `[T]` whose `T` is the hand-written type `hand`.
    func encodeHandArray<T>(_ hand: any JSONEncodable.Type, _ values: [T]) throws {
        try encodeOpenedArray(hand, values, self)
    }
}
