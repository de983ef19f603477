/// A member of an object written by a ``JSONObjectWriter``: its key's bytes (a
/// `StaticString`'s, so they live as long as the program) and where it starts.
struct JSONHandKey {
    var key: UnsafePointer<UInt8>
    var length: Int
    /// Where the member starts (its indentation), after the separator.
    var start: Int

    /// Whether the keys' UTF-8 bytes are in strictly increasing order (`sortedKeys` order, no duplicate).
    @inline(__always) static func increasing(_ a: JSONHandKey, _ b: JSONHandKey) -> Bool {
        let n = min(a.length, b.length)
        var i = 0
        while i < n {
            if a.key[i] != b.key[i] { return a.key[i] < b.key[i] }
            i &+= 1
        }
        return a.length < b.length
    }

    /// Whether both keys have the same bytes.
    @inline(__always) static func same(_ a: JSONHandKey, _ b: JSONHandKey) -> Bool {
        guard a.length == b.length else { return false }
        if a.key == b.key { return true }
        var i = 0
        while i < a.length {
            if a.key[i] != b.key[i] { return false }
            i &+= 1
        }
        return true
    }
}

/// How the members of a hand-written object come out: for one type and one sequence of
/// key addresses, the order of the members kept (sorted with `sortedKeys`, the last of
/// equal keys), or nil when they stay as written. Worked out once per type and key
/// sequence (by the keys' bytes), then found by comparing addresses.
struct JSONHandPlan {
    var type: ObjectIdentifier
    var keys: [UnsafePointer<UInt8>]
    var order: [Int]?
}

extension JSONOutput {
    /// Opens an object written by a ``JSONObjectWriter`` for a value of type `type`; returns its frame id.
    @inline(__always) mutating func openHand(_ type: ObjectIdentifier) -> UInt64 {
        append(UInt8(ascii: "{"))
        if pretty { append(UInt8(ascii: "\n")) }
        let id = nextID
        nextID &+= 1
        frames.append(Frame(isObject: true, memberBase: handKeys.count, id: id, keyType: type, hand: true))
        return id
    }

    /// Writes the separator and `key` (`length` UTF-8 bytes that outlive the encoder) before the
    /// next value of the innermost object, a hand-written one.
    @inline(__always) mutating func handKey(_ key: UnsafePointer<UInt8>, _ length: Int) {
        let i = frames.count &- 1
        if frames[i].count > 0 {
            if pretty { append(","); append(UInt8(ascii: "\n")) } else { append(UInt8(ascii: ",")) }
        }
        frames[i].count &+= 1
        handKeys.append(JSONHandKey(key: key, length: length, start: count))
        if pretty { indent(frames.count) }
        string(UnsafeBufferPointer(start: key, count: length))
        if pretty { append(" : ") } else { append(UInt8(ascii: ":")) }
    }

    /// Sorts a hand-written object's members (`sortedKeys`) and drops all but the last of equal keys.
    mutating func fixHandMembers(_ f: Frame) {
        let n = f.count
        let base = f.memberBase
        if sortedKeys {
            // Written in order (what a type declaring its keys sorted does): nothing to do.
            var k = base &+ 1
            while k < base &+ n, JSONHandKey.increasing(handKeys[k &- 1], handKeys[k]) { k &+= 1 }
            if k == base &+ n { return }
        }
        let type = f.keyType!
        for p in 0..<handPlans.count where handPlans[p].type == type && handPlans[p].keys.count == n {
            let same = handPlans[p].keys.withUnsafeBufferPointer { keys in
                var k = 0
                while k < n && keys[k] == handKeys[base &+ k].key { k &+= 1 }
                return k == n
            }
            if same {
                if let order = handPlans[p].order { rebuildHand(base: base, count: n, order: order) }
                return
            }
        }
        // A new key sequence: work out its order from the keys' bytes.
        var order: [Int] = []
        for k in 0..<n {
            var later = false
            for j in (k + 1)..<max(n, k + 1) where JSONHandKey.same(handKeys[base + k], handKeys[base + j]) { later = true; break }
            if !later { order.append(k) }
        }
        if sortedKeys {
            order.sort { JSONHandKey.increasing(handKeys[base + $0], handKeys[base + $1]) }
        }
        let plan = JSONHandPlan(type: type, keys: (0..<n).map { handKeys[base + $0].key },
                                order: order == Array(0..<n) ? nil : order)
        if handPlans.count >= 16 { handPlans.removeFirst() }
        handPlans.append(plan)
        if let order = plan.order { rebuildHand(base: base, count: n, order: order) }
    }

    mutating func rebuildHand(base: Int, count n: Int, order: [Int]) {
        let starts = startBuffer(n)
        for k in 0..<n { starts[k] = handKeys[base + k].start }
        rebuild(starts: starts, count: n, order: order)
    }
}
