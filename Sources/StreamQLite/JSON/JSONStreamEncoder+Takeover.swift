import Foundation

/// The rest of a document once ``JSONStreamEncoder`` handed it to the tree (see
/// ``JSONStreamEncoder/takeOver()``): what was written, read back, and the containers that
/// were open then (by frame id), which the stream's containers now write into.
final class JSONTakeover {
    /// The document (nil until something was written).
    var root: JSONTreeValue?
    /// The containers open or remembered when the stream gave way, and their coding paths.
    var nodes: [UInt64: (value: JSONTreeValue, path: [any CodingKey])] = [:]
    /// Containers closed before (see ``JSONStreamEncoder/closedFrames``): found on first use.
    var closed: [JSONClosedFrame] = []
    /// The encoder of the value being encoded when the stream gave way, if it had written nothing yet.
    var pending: JSONTreeEncoder?
    /// The value being encoded when the stream gave way, if it was written as a single value
    /// (a container asked for then amends it, as `JSONEncoder`'s).
    var single: JSONTreeValue?
    let misuse = JSONTreeMisuse()
    let options: JSONValueEncoder.Options

    init(options: JSONValueEncoder.Options) { self.options = options }

    /// The container of frame `id`, nil when it is not part of the document any more.
    func node(_ id: UInt64) -> (value: JSONTreeValue, path: [any CodingKey])? {
        if let n = nodes[id] { return n }
        guard let c = closed.last(where: { $0.id == id }), let parent = node(c.parent) else { return nil }
        let child: JSONTreeValue
        if let name = c.name {
            guard let o = parent.value.object, let i = o.keys.lastIndex(of: name) else { return nil }
            child = o.values[i]
        } else {
            guard let a = parent.value.array, c.index < a.values.count else { return nil }
            child = a.values[c.index]
        }
        let n = (child, parent.path + [c.key])
        nodes[id] = n
        return n
    }

    func encoder(_ path: [any CodingKey], slot: JSONTreeSlot = JSONTreeSlot()) -> JSONTreeEncoder {
        JSONTreeEncoder(options: options, codingPath: path, slot: slot, misuse: misuse)
    }

    /// The coding path of the value `encoder` is encoding.
    func slotPath(_ encoder: JSONStreamEncoder) -> [any CodingKey] {
        switch encoder.slot {
        case .inTree: return pending?.codingPath ?? []
        case .container(let id, _): return node(id)?.path ?? []
        default: return []
        }
    }
}

/// A nested container closed because its parent was written to again (see
/// ``JSONStreamEncoder/closedFrames``): its frame id, its parent's, and where it is in the
/// parent (its key as written, or its index).
struct JSONClosedFrame {
    var id: UInt64
    var parent: UInt64
    var key: any CodingKey
    var name: String?
    var index: Int
}

extension JSONStreamEncoder {
    /// Hands the rest of the document to a tree: reads back what was written (complete
    /// values as written, the open containers as tree containers), empties the output, and
    /// from then on the stream's containers write into the tree (each call is forwarded:
    /// no `encode(to:)` runs again). The tree is written out when the document is done.
    @inline(never)
    func takeOver() {
        guard tree == nil else { return }
        let t = JSONTakeover(options: options)
        let n = out.frames.count
        var rawKeys: [Bool] = []
        for d in 0..<n { rawKeys.append(out.frames[d].rawKeys) }
        var reader = JSONWrittenReader(out.bytes)
        t.root = reader.value(rawKeys: rawKeys)
        for d in 0..<min(n, reader.open.count) { t.nodes[out.frames[d].id] = (reader.open[d], path(depth: d)) }
        t.closed = closedFrames
        if slot == .empty && slotDepth == n {
            // The value being encoded has not written anything: it is written in the tree, where it begun.
            let s = JSONTreeSlot()
            if n == 0 {
                t.root = .slot(s)
            } else if let key = reader.pendingKey, let o = reader.open.last?.object {
                o.keys.append(key)
                o.values.append(.slot(s))
            } else if let a = reader.open.last?.array, a.values.count < out.frames[n - 1].count {
                a.values.append(.slot(s))
            }
            let e = t.encoder(memberPath, slot: s)
            e.rawKeys = slotRawKeys
            t.pending = e
            slot = .inTree
        }
        if slot == .single {
            if slotDepth == 0 {
                t.single = t.root
            } else if slotDepth - 1 < reader.open.count {
                let enclosing = reader.open[slotDepth - 1]
                t.single = enclosing.object?.values.last ?? enclosing.array?.values.last
            }
        }
        closedFrames.removeAll()
        out.reset()
        tree = t
    }

    /// The tree's keyed container of object `id` (a detached one, and a misuse reported,
    /// when the object is no longer part of the document).
    func treeKeyed<K: CodingKey>(_ type: K.Type, _ id: UInt64) -> KeyedEncodingContainer<K> {
        if tree == nil { takeOver() }
        let t = tree!
        if let n = t.node(id), let o = n.value.object {
            return KeyedEncodingContainer(JSONTreeKeyedContainer<K>(encoder: t.encoder(n.path), object: o, codingPath: n.path, rawKeys: o.rawKeys))
        }
        t.misuse.report("a keyed container was written to after the value that made it was encoded", at: [])
        return KeyedEncodingContainer(JSONTreeKeyedContainer<K>(encoder: t.encoder([]), object: JSONTreeObject(rawKeys: false), codingPath: [], rawKeys: false))
    }

    /// The tree's unkeyed container of array `id` (see ``treeKeyed(_:_:)``).
    func treeUnkeyed(_ id: UInt64) -> JSONTreeUnkeyedContainer {
        if tree == nil { takeOver() }
        let t = tree!
        if let n = t.node(id), let a = n.value.array {
            return JSONTreeUnkeyedContainer(encoder: t.encoder(n.path), array: a, codingPath: n.path)
        }
        t.misuse.report("an unkeyed container was written to after the value that made it was encoded", at: [])
        return JSONTreeUnkeyedContainer(encoder: t.encoder([]), array: JSONTreeArray(), codingPath: [])
    }

    /// The tree's encoder of the value being encoded (its containers and single value).
    func treeSlotEncoder() -> JSONTreeEncoder {
        if tree == nil { takeOver() }
        let t = tree!
        switch slot {
        case .inTree:
            if let pending = t.pending { return pending }
        case .container(let id, _):
            if let n = t.node(id) { return t.encoder(n.path, slot: JSONTreeSlot(n.value)) }
        case .single:
            // Already written: a container of its kind amends it, anything else is reported.
            return t.encoder(codingPath, slot: JSONTreeSlot(t.single ?? .scalar(.null)))
        case .empty:
            break
        }
        t.misuse.report("a value was encoded through an encoder after its value was finished", at: [])
        return t.encoder([])
    }

    /// The coding path of container `id`.
    func containerPath(_ id: UInt64) -> [any CodingKey] {
        if let tree { return tree.node(id)?.path ?? [] }
        guard let d = out.depth(of: id) else { return codingPath }
        return path(depth: d)
    }

    /// ``beginMember(_:_:)`` for a nested container: false (in the tree) when `key` was
    /// written in this object already, whose value the new container then writes into.
    @inline(__always)
    func beginNested<K: CodingKey>(_ key: K, _ id: UInt64) -> Bool {
        guard activate(id) else { return false }
        if _slowPath(out.frames[out.frames.count &- 1].count > 0) && hasMember(key) {
            takeOver()
            return false
        }
        return writeKey(key)
    }

    /// Whether the innermost object has a member `key`.
    func hasMember<K: CodingKey>(_ key: K) -> Bool {
        let f = out.frames[out.frames.count - 1]
        let raw = key.stringValue
        if f.hand {
            for i in f.memberBase..<(f.memberBase + f.count) {
                let k = out.handKeys[i]
                if String(decoding: UnsafeBufferPointer(start: k.key, count: k.length), as: UTF8.self) == raw { return true }
            }
            return false
        }
        let name = f.rawKeys ? raw : jsonName(raw)
        for i in f.memberBase..<(f.memberBase + f.count) where out.members[i].key == name { return true }
        return false
    }

    /// Adds `value` to the tree's object `id` under `key` (a hand-written object's member,
    /// written aside: see ``beginAside()``).
    @inline(never)
    func addToTree(_ id: UInt64, _ key: StaticString, _ value: JSONTreeValue) {
        guard let t = tree else { return }
        guard let o = t.node(id)?.value.object else {
            t.misuse.report("a hand-written object was written to after it was finished", at: [])
            return
        }
        let raw = key.withUTF8Buffer { String(decoding: $0, as: UTF8.self) }
        o.keys.append(jsonName(raw))
        o.values.append(value)
    }

    /// Puts the tree aside and gives the encoder an output of its own, for one value that
    /// code writing bytes (a hand-written object's member) writes; ``endAside(_:)`` returns
    /// it as a tree. (A call that throws leaves the encoder as it is: it is not reused.)
    @inline(never)
    func beginAside() -> JSONAside {
        let aside = JSONAside(out: options.output(), tree: tree!, slotDepth: slotDepth, slot: slot, closedFrames: closedFrames)
        aside.out.snakeCaseKeys = out.snakeCaseKeys
        aside.out.nextID = out.nextID
        swap(&out, &aside.out)
        tree = nil
        slotDepth = 0
        slot = .empty
        closedFrames = []
        return aside
    }

    /// What was written since ``beginAside()``, as a tree; the tree is back.
    @inline(never)
    func endAside(_ aside: JSONAside) -> JSONTreeValue {
        let value: JSONTreeValue
        if let inner = tree {
            if let error = inner.misuse.error { aside.tree.misuse.error = aside.tree.misuse.error ?? error }
            value = inner.root ?? .object(JSONTreeObject(rawKeys: false))
        } else {
            var reader = JSONWrittenReader(out.bytes)
            value = reader.value(rawKeys: []) ?? .object(JSONTreeObject(rawKeys: false))
        }
        aside.out.nextID = out.nextID
        swap(&out, &aside.out)
        tree = aside.tree
        slotDepth = aside.slotDepth
        slot = aside.slot
        closedFrames = aside.closedFrames
        return value
    }
}

/// What ``JSONStreamEncoder/beginAside()`` put aside.
final class JSONAside {
    var out: JSONOutput
    let tree: JSONTakeover
    let slotDepth: Int
    let slot: JSONStreamEncoder.Slot
    let closedFrames: [JSONClosedFrame]

    init(out: consuming JSONOutput, tree: JSONTakeover, slotDepth: Int, slot: JSONStreamEncoder.Slot, closedFrames: [JSONClosedFrame]) {
        self.out = out
        self.tree = tree
        self.slotDepth = slotDepth
        self.slot = slot
        self.closedFrames = closedFrames
    }
}
