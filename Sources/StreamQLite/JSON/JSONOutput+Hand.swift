import Foundation

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

    /// Whether both keys are the same key as `JSONEncoder` sees them: equal `String`s
    /// (canonically equivalent Unicode is equal; ASCII only when the bytes are).
    static func same(_ a: JSONHandKey, _ b: JSONHandKey) -> Bool {
        if a.length == b.length && (a.key == b.key || memcmp(a.key, b.key, a.length) == 0) { return true }
        let ascii = { (k: JSONHandKey) in (0..<k.length).allSatisfy { k.key[$0] < 0x80 } }
        if ascii(a) && ascii(b) { return false }
        return String(decoding: UnsafeBufferPointer(start: a.key, count: a.length), as: UTF8.self)
            == String(decoding: UnsafeBufferPointer(start: b.key, count: b.length), as: UTF8.self)
    }
}

/// A hand-written key as written (see ``JSONOutput/handKey(_:_:)``).
struct JSONPreparedKey {
    static let slots = 128
    /// The key's bytes (a `StaticString`'s, compared by address), nil for an empty slot.
    var key: UnsafePointer<UInt8>?
    var length = 0
    /// `"key":` (`"key" : ` pretty printed), with room for at least 16 bytes.
    var bytes = UnsafeMutablePointer<UInt8>(bitPattern: 16)!
    var count = 0

    /// The slot of the key at `address`.
    @inline(__always) static func slot(_ address: UnsafePointer<UInt8>) -> Int {
        let a = UInt(bitPattern: address)
        return Int(truncatingIfNeeded: (a ^ (a >> 7) ^ (a >> 14)) & UInt(slots - 1))
    }
}

/// How the members of a hand-written object come out: for one type and one sequence of
/// key addresses, the order of the members kept (sorted with `sortedKeys`, the last of
/// equal keys), or nil when they stay as written. Worked out once per type and key
/// sequence (by the keys' bytes), then found by comparing addresses. Plain memory (no
/// reference counting when it is looked up for every object); freed by ``JSONOutput``.
struct JSONHandPlan {
    var type: ObjectIdentifier
    var count: Int
    var keys: UnsafeMutablePointer<UnsafePointer<UInt8>>
    var order: UnsafeMutablePointer<Int>?
    var orderCount: Int

    func free() {
        keys.deallocate()
        order?.deallocate()
    }
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
        let slot = preparedKeys + JSONPreparedKey.slot(key)
        if _slowPath(slot.pointee.key != key || slot.pointee.length != length) { prepareKey(slot, key, length) }
        let n = slot.pointee.count
        reserve(n &+ 16)
        if n <= 16 {
            // The prepared bytes have room for 16: two words, whatever the length.
            let src = UnsafeRawPointer(slot.pointee.bytes), dst = UnsafeMutableRawPointer(buffer + count)
            dst.storeBytes(of: src.loadUnaligned(as: UInt64.self), as: UInt64.self)
            dst.storeBytes(of: src.loadUnaligned(fromByteOffset: 8, as: UInt64.self), toByteOffset: 8, as: UInt64.self)
        } else {
            (buffer + count).update(from: slot.pointee.bytes, count: n)
        }
        count &+= n
    }

    /// Writes `key` as ``handKey(_:_:)`` does into `slot` (replacing what it held).
    mutating func prepareKey(_ slot: UnsafeMutablePointer<JSONPreparedKey>, _ key: UnsafePointer<UInt8>, _ length: Int) {
        let saved = count
        if snakeCaseKeys {
            var name = convertToSnakeCase(String(decoding: UnsafeBufferPointer(start: key, count: length), as: UTF8.self))
            name.withUTF8 { string($0) }
        } else {
            string(UnsafeBufferPointer(start: key, count: length))
        }
        if pretty { append(" : ") } else { append(UInt8(ascii: ":")) }
        let n = count - saved
        count = saved
        if slot.pointee.key != nil { slot.pointee.bytes.deallocate() }
        let bytes = UnsafeMutablePointer<UInt8>.allocate(capacity: max(n, 16))
        bytes.initialize(repeating: 0, count: max(n, 16))
        bytes.update(from: buffer + saved, count: n)
        slot.pointee = JSONPreparedKey(key: key, length: length, bytes: bytes, count: n)
    }

    /// Sorts a hand-written object's members (`sortedKeys`) and drops all but the last of equal keys.
    mutating func fixHandMembers(_ f: Frame) {
        let n = f.count
        let base = f.memberBase
        let type = f.keyType!
        var p = lastHandPlan
        for _ in 0..<handPlans.count {
            if p >= handPlans.count { p = 0 }
            let plan = handPlans[p]
            if plan.type == type && plan.count == n {
                var k = 0
                while k < n && plan.keys[k] == handKeys[base &+ k].key { k &+= 1 }
                if k == n {
                    lastHandPlan = p
                    if let order = plan.order { rebuildHand(base: base, count: n, order: order, orderCount: plan.orderCount) }
                    return
                }
            }
            p &+= 1
        }
        // A new key sequence: work out its order from the keys' bytes (converted to snake_case
        // with that strategy, as written).
        var order: [Int] = []
        let names: [String]? = snakeCaseKeys ? (0..<n).map { k in
            convertToSnakeCase(String(decoding: UnsafeBufferPointer(start: handKeys[base + k].key, count: handKeys[base + k].length), as: UTF8.self))
        } : nil
        for k in 0..<n {
            var later = false
            for j in (k + 1)..<max(n, k + 1) {
                if let names { later = names[k] == names[j] } else { later = JSONHandKey.same(handKeys[base + k], handKeys[base + j]) }
                if later { break }
            }
            if !later { order.append(k) }
        }
        if sortedKeys {
            if let names {
                order.sort { jsonKeyPrecedes(names[$0], names[$1]) }
            } else {
                order.sort { JSONHandKey.increasing(handKeys[base + $0], handKeys[base + $1]) }
            }
        }
        let keys = UnsafeMutablePointer<UnsafePointer<UInt8>>.allocate(capacity: n)
        for k in 0..<n { keys[k] = handKeys[base + k].key }
        var plan = JSONHandPlan(type: type, count: n, keys: keys, order: nil, orderCount: order.count)
        if order != Array(0..<n) {
            plan.order = .allocate(capacity: order.count)
            plan.order!.initialize(from: order, count: order.count)
        }
        if handPlans.count < 32 {
            handPlans.append(plan)
            lastHandPlan = handPlans.count - 1
        } else {
            // Full: replace the one after the last used.
            let victim = (lastHandPlan + 1) % handPlans.count
            handPlans[victim].free()
            handPlans[victim] = plan
            lastHandPlan = victim
        }
        if let o = plan.order { rebuildHand(base: base, count: n, order: o, orderCount: plan.orderCount) }
    }

    mutating func rebuildHand(base: Int, count n: Int, order: UnsafePointer<Int>, orderCount: Int) {
        let starts = startBuffer(n)
        for k in 0..<n { starts[k] = handKeys[base + k].start }
        rebuild(starts: starts, count: n, order: UnsafeBufferPointer(start: order, count: orderCount))
    }

    /// Closes the innermost container, a hand-written object (as ``close()``).
    @inline(__always) mutating func closeHand() {
        let f = frames.removeLast()
        if f.count > 1 { fixHandMembers(f) }
        handKeys.removeSuffix(from: f.memberBase)
        if pretty {
            append(UInt8(ascii: "\n"))
            indent(frames.count)
        }
        append(UInt8(ascii: "}"))
    }
}
