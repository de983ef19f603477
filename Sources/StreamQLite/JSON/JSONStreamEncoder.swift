import CStreamQLite
import Foundation

/// The `Encoder` writing as `encode(to:)` runs. The "slot" is the value being
/// encoded: its first container request opens its object or array; when its
/// `encode(to:)` returns, whatever it opened is closed (and an empty value is `{}`).
///
/// When an `encode(to:)` uses its containers in a way bytes written in order cannot follow
/// (a `superEncoder`, a second nested container for one key, a container written after a
/// later one closed it), the document so far is read back into a tree and the rest is
/// built there (``takeOver()``): every `encode(to:)` still runs once.
final class JSONStreamEncoder: Encoder {
    // Unchecked exclusivity: touched on every value; only the encoding thread uses an encoder.
    @exclusivity(unchecked) var out: JSONOutput
    /// Set for each call (a pooled encoder serves options of the same layout, see ``take(_:)``).
    @exclusivity(unchecked) private(set) var options: JSONValueEncoder.Options
    var userInfo: [CodingUserInfoKey: Any] { options.userInfo }
    /// The document once the stream gave way to a tree (see ``takeOver()``).
    @exclusivity(unchecked) var tree: JSONTakeover?

    enum Slot: Equatable {
        case empty
        case container(id: UInt64, object: Bool)
        case single
        /// The value is built in the tree, by ``JSONTakeover/pending``.
        case inTree
    }
    /// Nested containers closed because their parent was written to again, while the value
    /// that made them is encoded: where each is, in case it is written to again (see ``takeOver()``).
    @exclusivity(unchecked) var closedFrames: [JSONClosedFrame] = []
    /// The current value: `frames.count` when it began, and what it wrote.
    @exclusivity(unchecked) var slotDepth = 0
    @exclusivity(unchecked) var slot = Slot.empty
    /// The current value is a `[String: V]` under a key strategy.
    @exclusivity(unchecked) var slotRawKeys = false
    /// Key names as written under the key strategy, by coding key name.
    @exclusivity(unchecked) var convertedNames: [String: String] = [:]
    /// Written keys of one-byte key types (synthesized `CodingKeys`), by type and byte:
    /// the quoted, escaped key and its separator, ready to copy.
    @exclusivity(unchecked) var keyTables: [(type: ObjectIdentifier, table: UnsafeMutablePointer<JSONWrittenKey>)] = []
    @exclusivity(unchecked) var lastKeyType: ObjectIdentifier?
    @exclusivity(unchecked) var lastKeyTable: UnsafeMutablePointer<JSONWrittenKey>?
    /// Per depth, kept keyed containers (see ``keyedContainer(_:id:rawKeys:)``).
    @exclusivity(unchecked) var containerSlots: [[JSONEncoderContainerSlot]] = []
    /// Id cells of containers that were not kept (freed with the encoder).
    @exclusivity(unchecked) var retiredCells: [UnsafeMutablePointer<UInt64>] = []

    deinit {
        for (_, table) in keyTables {
            for i in 0..<256 { table[i].free() }
            table.deinitialize(count: 256)
            table.deallocate()
        }
        for depth in containerSlots { for slot in depth { slot.release() } }
        for c in retiredCells { c.deallocate() }
        quickSlots.deinitialize(count: quickSlotCount)
        quickSlots.deallocate()
        kindTable.deinitialize(count: Self.kindSlots)
        kindTable.deallocate()
    }

    /// How values of each type are written (see ``kind(of:)``).
    let kindTable: UnsafeMutablePointer<JSONEncodeKindEntry>

    init(options: JSONValueEncoder.Options) {
        self.options = options
        out = options.output()
        out.snakeCaseKeys = options.keys.converts
        kindTable = .allocate(capacity: Self.kindSlots)
        kindTable.initialize(repeating: JSONEncodeKindEntry(type: nil, kind: .plain), count: Self.kindSlots)
    }

    // MARK: Reuse

    /// Encoders kept between calls: made for each call, an encoder's tables and buffers
    /// cost more than encoding a small value.
    static let pool = ReusePool<JSONStreamEncoder>()

    /// An encoder for `options`: a kept one of the same layout, or a new one.
    static func take(_ options: JSONValueEncoder.Options) -> JSONStreamEncoder {
        guard let e = pool.take(where: { $0.serves(options) }) else {
            return JSONStreamEncoder(options: options)
        }
        e.options = options
        return e
    }

    /// Whether this encoder can serve `options`: its written keys, key orders and output
    /// layout depend on these four (fixed when it was made), nothing else it keeps does.
    func serves(_ options: JSONValueEncoder.Options) -> Bool {
        out.pretty == options.pretty && out.sortedKeys == options.sortedKeys
            && out.escapeSlashes == options.escapeSlashes && out.snakeCaseKeys == options.keys.converts
    }

    /// Keeps `encoder` for the next call when its encode finished and nothing else holds it
    /// (an encoder whose call threw is not given back); one grown large is dropped.
    static func give(_ encoder: inout JSONStreamEncoder?) {
        pool.give(&encoder) { e in
            guard e.out.capacity <= 1 << 20, e.retiredCells.count <= 64 else { return false }
            e.reset()
            // Not the caller's userInfo or closures (the layout stays: see serves(_:)).
            e.options.userInfo = [:]
            e.options.date = .databaseText
            e.options.data = .base64
            return true
        }
    }

    /// The path of the value being encoded (not of the members its containers write).
    var codingPath: [any CodingKey] {
        if _slowPath(tree != nil) { return tree!.slotPath(self) }
        return path(depth: min(slotDepth, out.frames.count))
    }

    /// The path of the member being written in the innermost container.
    var memberPath: [any CodingKey] { path(depth: out.frames.count) }

    /// The key of the last member of each open container above `depth`.
    func path(depth: Int) -> [any CodingKey] {
        var path: [any CodingKey] = []
        for i in 0..<depth where out.frames[i].count > 0 { path.append(lastKey(ofFrame: i)) }
        return path
    }

    /// The key of the last member of open container `i`: the coding key itself when its
    /// type is a one-byte key type, else a key by the name written (an index in an array).
    func lastKey(ofFrame i: Int) -> any CodingKey {
        let f = out.frames[i]
        if f.hand {
            let k = out.handKeys[f.memberBase + f.count - 1]
            if let type = f.keyType, let table = keyTables.first(where: { $0.type == type })?.table {
                for b in 0..<256 where table[b].count >= 0 && UnsafePointer(table[b].raw) == k.key {
                    if let key = table[b].key { return key }
                }
            }
            return JSONStringKey(String(decoding: UnsafeBufferPointer(start: k.key, count: k.length), as: UTF8.self))
        } else if f.isObject {
            let m = out.members[f.memberBase + f.count - 1]
            if m.keyByte >= 0, f.byteKeys, let type = f.keyType, let table = keyTables.first(where: { $0.type == type })?.table,
               let key = table[Int(m.keyByte)].key {
                return key
            }
            return JSONStringKey(m.key)
        }
        return JSONIndexKey(index: f.count - 1)
    }

    /// The JSON key of the last member of open object `i` as written (nil in an array).
    func lastName(ofFrame i: Int) -> String? {
        let f = out.frames[i]
        if f.hand {
            let k = out.handKeys[f.memberBase + f.count - 1]
            let raw = String(decoding: UnsafeBufferPointer(start: k.key, count: k.length), as: UTF8.self)
            return jsonName(raw)
        }
        return f.isObject ? out.members[f.memberBase + f.count - 1].key : nil
    }

    /// Ready for another value (the buffer's memory is kept).
    func reset() {
        out.reset()
        tree = nil
        closedFrames.removeAll()
        slotDepth = 0
        slot = .empty
        slotRawKeys = false
    }

    func encodeTop<T: Encodable>(_ value: T) throws {
        try encodeValue(value, top: true)
        if let tree {
            self.tree = nil
            out.reset()
            try tree.misuse.check()
            (tree.root ?? .object(JSONTreeObject(rawKeys: false))).write(to: &out)
        }
    }

    /// Encodes one value at the current position (after its key or separator).
    @inline(__always)
    func encodeValue<T: Encodable>(_ value: T, top: Bool = false) throws {
        if T.self == String.self { out.string(unsafeBitCast(value, to: String.self)); return }
        if T.self == Int.self { out.integer(Int64(unsafeBitCast(value, to: Int.self))); return }
        if T.self == Double.self { out.scalar(try options.number(unsafeBitCast(value, to: Double.self), path: memberPath)); return }
        if T.self == Bool.self { out.scalar(.bool(unsafeBitCast(value, to: Bool.self))); return }
        try encodeOther(value, top: top)
    }

    func encodeOther<T: Encodable>(_ value: T, top: Bool) throws {
        // The kind, kept per type, says whether `T` is one of the types `options.special` knows.
        if case .special = kind(of: T.self), let special = try options.special(value, path: memberPath) {
            switch special {
            case .scalar(let s): out.scalar(s)
            // A custom strategy that writes nothing writes `{}`, at the top too (as `JSONEncoder`).
            case .encode(let body): try inSlot(top: false, rawKeys: false) { try body(self) }
            }
            return
        }
        if try encodeByKind(value) { return }
        try encodePlain(value, top: top)
    }

    /// Encodes a value of a ``JSONEncodeKind/plain`` type: through its `encode(to:)`.
    @inline(__always)
    func encodePlain<T: Encodable>(_ value: T, top: Bool) throws {
        let rawKeys = options.keys.converts && value is JSONStringKeyedEncodable
        try inSlot(top: top, rawKeys: rawKeys) { try value.encode(to: self) }
    }

    /// Runs `body` (an `encode(to:)`) as a new slot at the current position.
    @inline(__always)
    func inSlot(top: Bool, rawKeys: Bool, _ body: () throws -> Void) throws {
        let savedDepth = slotDepth, savedSlot = slot, savedRaw = slotRawKeys
        let firstID = out.nextID
        slotDepth = out.frames.count
        slot = .empty
        slotRawKeys = rawKeys
        defer { slotDepth = savedDepth; slot = savedSlot; slotRawKeys = savedRaw }
        try body()
        if _slowPath(!closedFrames.isEmpty) { forgetClosedFrames(from: firstID) }
        if _slowPath(tree != nil) { return }
        switch slot {
        case .empty:
            if top {
                throw EncodingError.invalidValue(top, .init(codingPath: [], debugDescription: "Top-level value did not encode any values."))
            }
            _ = out.open(object: true)
            out.close()
        case .container:
            if _fastPath(out.frames.count == slotDepth &+ 1 && out.frames[slotDepth].hand) {
                out.closeHand()
            } else {
                out.close(downTo: slotDepth)
            }
        case .single, .inTree:
            break
        }
    }

    /// Forgets the closed containers of a value whose `encode(to:)` returned (their
    /// containers are not to be used after it).
    func forgetClosedFrames(from firstID: UInt64) {
        while let last = closedFrames.last, last.id >= firstID { closedFrames.removeLast() }
    }

    /// Activates object `id` and writes `key`; false when the tree takes the member (see ``takeOver()``).
    @inline(__always)
    func beginMember<K: CodingKey>(_ key: K, _ id: UInt64) -> Bool {
        guard activate(id) else { return false }
        return writeKey(key)
    }

    /// Opens an object for a keyed container of `Key` (after its key or separator): for a
    /// one-byte key type (and keys written as converted) an object whose members are kept as
    /// a hand-written object's, by the addresses of their names: sorted and rid of duplicate
    /// keys by the same plans per type and key sequence (``JSONOutput/fixHandMembers(_:)``).
    @inline(__always)
    func openObject<Key: CodingKey>(_ type: Key.Type, rawKeys: Bool = false) -> UInt64 {
        if isByteCodingKey(Key.self) && !rawKeys { return out.openHand(ObjectIdentifier(Key.self)) }
        return out.open(object: true, rawKeys: rawKeys)
    }

    /// A keyed container writing into object `id`.
    ///
    /// Making one costs a `KeyedEncodingContainer` box and a generic metadata lookup, so
    /// the container of each key type at each depth is kept (as a closure that captured
    /// it) and pointed at the next object, but only when no copy of it is alive.
    @inline(__always)
    func keyedContainer<Key: CodingKey>(_ type: Key.Type, id: UInt64) -> KeyedEncodingContainer<Key> {
        let depth = out.frames.count
        let keyType = ObjectIdentifier(Key.self)
        if _fastPath(depth < quickSlotCount), let q = quickSlots[depth], q.keyType == keyType,
           q.box._withUnsafeGuaranteedRef({ _getRetainCount($0) }) == 1 {
            // The last container of this depth (no array traffic).
            q.cell.pointee = id
            return unsafeDowncast(q.thunk.takeUnretainedValue(), to: ContainerThunk<KeyedEncodingContainer<Key>>.self).make()
        }
        if depth < containerSlots.count {
            for slot in containerSlots[depth] where slot.keyType == keyType
                && slot.box._withUnsafeGuaranteedRef({ _getRetainCount($0) }) == 1 {
                slot.cell.pointee = id
                remember(slot, depth: depth)
                return unsafeDowncast(slot.thunk, to: ContainerThunk<KeyedEncodingContainer<Key>>.self).make()
            }
        }
        let cell = UnsafeMutablePointer<UInt64>.allocate(capacity: 1)
        cell.initialize(to: id)
        let container = KeyedEncodingContainer(JSONStreamKeyedContainer<Key>(unmanaged: Unmanaged.passUnretained(self), cell: cell))
        while containerSlots.count <= depth { containerSlots.append([]) }
        if depth < quickSlotCount { quickSlots[depth] = nil }
        let slot = JSONEncoderContainerSlot(keyType: keyType, thunk: ContainerThunk(holding: container),
                                            box: Unmanaged.passUnretained(unsafeBitCast(container, to: AnyObject.self)), cell: cell)
        if let k = containerSlots[depth].firstIndex(where: { $0.keyType == keyType }) {
            // The kept one has a copy alive: it keeps its cell.
            retiredCells.append(containerSlots[depth][k].cell)
            containerSlots[depth][k] = slot
        } else if containerSlots[depth].count < 4 {
            containerSlots[depth].append(slot)
        } else {
            let old = containerSlots[depth].removeFirst()
            if old.box._withUnsafeGuaranteedRef({ _getRetainCount($0) }) == 1 { old.release() } else { retiredCells.append(old.cell) }
            containerSlots[depth].append(slot)
        }
        remember(slot, depth: depth)
        return container
    }

    /// The last container used at each depth, in plain memory (a copy of its slot, unretained:
    /// `containerSlots` keeps the thunk).
    struct QuickSlot {
        var keyType: ObjectIdentifier
        var thunk: Unmanaged<AnyObject>
        var box: Unmanaged<AnyObject>
        var cell: UnsafeMutablePointer<UInt64>
    }
    @exclusivity(unchecked) var quickSlots = UnsafeMutablePointer<QuickSlot?>.allocate(capacity: 0)
    @exclusivity(unchecked) var quickSlotCount = 0

    func remember(_ slot: JSONEncoderContainerSlot, depth: Int) {
        if depth >= quickSlotCount {
            let n = max(depth + 1, quickSlotCount * 2, 8)
            let grown = UnsafeMutablePointer<QuickSlot?>.allocate(capacity: n)
            grown.moveInitialize(from: quickSlots, count: quickSlotCount)
            (grown + quickSlotCount).initialize(repeating: nil, count: n - quickSlotCount)
            quickSlots.deallocate()
            quickSlots = grown
            quickSlotCount = n
        }
        quickSlots[depth] = QuickSlot(keyType: slot.keyType, thunk: Unmanaged.passUnretained(slot.thunk), box: slot.box, cell: slot.cell)
    }

    /// Makes frame `id` the innermost open container (closing those opened after it); false when it is closed.
    @inline(__always)
    func activate(_ id: UInt64) -> Bool {
        if _fastPath(out.frames.last?.id == id) { return true }
        return activateSlow(id)
    }

    /// ``activate(_:)`` when `id` is not the innermost: the containers after it are closed
    /// (and remembered, see ``closedFrames``); false (in the tree) when it is closed.
    func activateSlow(_ id: UInt64) -> Bool {
        guard tree == nil, let d = out.depth(of: id) else {
            takeOver()
            return false
        }
        for i in stride(from: out.frames.count - 1, to: d, by: -1) {
            let p = out.frames[i - 1]
            closedFrames.append(JSONClosedFrame(id: out.frames[i].id, parent: p.id, key: lastKey(ofFrame: i - 1),
                                                name: lastName(ofFrame: i - 1), index: p.count - 1))
        }
        out.close(downTo: d + 1)
        return true
    }

    /// Writes the JSON key of `key` in the innermost object; false when the member must be
    /// written in the tree (a key that is not one byte in an object opened for one-byte keys).
    @inline(__always)
    func writeKey<K: CodingKey>(_ key: K) -> Bool {
        let hand = out.frames[out.frames.count &- 1].hand
        if isByteCodingKey(K.self) {
            let byte = codingKeyByte(key)
            let table = keyTable(ObjectIdentifier(K.self))
            if _slowPath(table[byte].count < 0) { table[byte] = writtenKey(key) }
            if _fastPath(hand) {
                out.handKey(table[byte].raw, table[byte].rawCount)
            } else {
                out.key(written: table[byte], byte: Int16(byte), type: ObjectIdentifier(K.self))
            }
            return true
        }
        // Rare (two containers of different key types writing one object): the tree writes it.
        if hand { takeOver(); return false }
        writeKeySlow(key)
        return true
    }

    /// The table of a one-byte key type (the last few types are kept).
    @inline(__always)
    func keyTable(_ type: ObjectIdentifier) -> UnsafeMutablePointer<JSONWrittenKey> {
        if _fastPath(lastKeyType == type), let t = lastKeyTable { return t }
        return keyTableSlow(type)
    }

    func keyTableSlow(_ type: ObjectIdentifier) -> UnsafeMutablePointer<JSONWrittenKey> {
        lastKeyType = type
        for entry in keyTables where entry.type == type { lastKeyTable = entry.table; return entry.table }
        let table = UnsafeMutablePointer<JSONWrittenKey>.allocate(capacity: 256)
        table.initialize(repeating: JSONWrittenKey(), count: 256)
        keyTables.append((type, table))
        lastKeyTable = table
        return table
    }

    /// The JSON key of a coding key named `raw`. The stream serves only strategies that
    /// convert a key by its name (one written form per key type and case, kept in
    /// ``keyTables``); one that depends on the coding path is encoded by
    /// ``JSONTreeEncoder`` (see ``JSONValueEncoder/encodeInTree(_:_:)``).
    func jsonName(_ raw: String) -> String {
        assert(!options.keys.dependsOnPath)
        return options.keys.convert(raw, in: [])
    }

    /// A key as written: converted by the key strategy, quoted, escaped, followed by `:`.
    func writtenKey(_ key: some CodingKey) -> JSONWrittenKey {
        let stringValue = key.stringValue
        let name = jsonName(stringValue)
        var bytes: [UInt8] = []
        appendJSONQuoted(name, to: &bytes, escapeSlash: options.escapeSlashes, escapeLineSeparators: false)
        bytes.append(contentsOf: options.pretty ? Array(" : ".utf8) : [UInt8(ascii: ":")])
        return JSONWrittenKey(name: name, bytes: bytes, raw: stringValue, key: key)
    }

    func writeKeySlow<K: CodingKey>(_ key: K) {
        var name = key.stringValue
        if options.keys.converts && !out.frames[out.frames.count - 1].rawKeys {
            if let c = convertedNames[name] { name = c } else {
                let c = jsonName(name)
                convertedNames[name] = c
                name = c
            }
        }
        out.key(name, byte: jsonKeyByte(key), type: ObjectIdentifier(K.self))
    }

}
