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
    }

    /// How values of each type are written (see ``kind(of:)``).
    let kinds = TypeTable<JSONEncodeKind>()

    init(options: JSONValueEncoder.Options) {
        self.options = options
        out = options.output()
        out.snakeCaseKeys = options.keys.converts
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
            if m.slot >= 0 { return out.originals[Int(m.slot)] }
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
           q.box.isSoleReference {
            // The last container of this depth (no array traffic).
            q.cell.pointee = id
            return unsafeDowncast(q.thunk.takeUnretainedValue(), to: KeyedEncodingContainerThunk<Key>.self).make()
        }
        if depth < containerSlots.count {
            for slot in containerSlots[depth] where slot.keyType == keyType
                && slot.box.isSoleReference {
                slot.cell.pointee = id
                remember(slot, depth: depth)
                return unsafeDowncast(slot.thunk, to: KeyedEncodingContainerThunk<Key>.self).make()
            }
        }
        let cell = UnsafeMutablePointer<UInt64>.allocate(capacity: 1)
        cell.initialize(to: id)
        let container = KeyedEncodingContainer(JSONStreamKeyedContainer<Key>(unmanaged: Unmanaged.passUnretained(self), cell: cell))
        while containerSlots.count <= depth { containerSlots.append([]) }
        if depth < quickSlotCount { quickSlots[depth] = nil }
        let slot = JSONEncoderContainerSlot(keyType: keyType, thunk: KeyedEncodingContainerThunk(holding: container),
                                            box: Unmanaged.passUnretained(unsafeBitCast(container, to: AnyObject.self)), cell: cell)
        if let k = containerSlots[depth].firstIndex(where: { $0.keyType == keyType }) {
            // The kept one has a copy alive: it keeps its cell.
            retiredCells.append(containerSlots[depth][k].cell)
            containerSlots[depth][k] = slot
        } else if containerSlots[depth].count < 4 {
            containerSlots[depth].append(slot)
        } else {
            let old = containerSlots[depth].removeFirst()
            if old.box.isSoleReference { old.release() } else { retiredCells.append(old.cell) }
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
        var converted = false
        if options.keys.converts && !out.frames[out.frames.count - 1].rawKeys {
            let c: String
            if let known = convertedNames[name] { c = known } else {
                c = jsonName(name)
                convertedNames[name] = c
            }
            converted = c != name
            name = c
        }
        if _slowPath(converted || key.intValue != nil) {
            // coding paths name the key itself: its name before conversion, its `intValue`
            out.key(name, byte: jsonKeyByte(key), type: ObjectIdentifier(K.self), original: key)
        } else {
            out.key(name, byte: jsonKeyByte(key), type: ObjectIdentifier(K.self))
        }
    }

}

// MARK: - Containers

extension JSONStreamEncoder {
    // MARK: Encoder

    // Another kind of container than the value's, or one asked for after the stream gave
    // way: the tree's encoder of the value (which reports a misuse).
    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        if _fastPath(tree == nil) {
            switch slot {
            case .empty:
                let id = openObject(Key.self, rawKeys: slotRawKeys)
                slot = .container(id: id, object: true)
                return keyedContainer(Key.self, id: id)
            case .container(let id, true) where out.depth(of: id) != nil:
                return keyedContainer(Key.self, id: id)
            default:
                break
            }
        }
        return treeSlotEncoder().container(keyedBy: type)
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        if _fastPath(tree == nil) {
            switch slot {
            case .empty:
                let id = out.open(object: false)
                slot = .container(id: id, object: false)
                return JSONStreamUnkeyedContainer(encoder: self, id: id)
            case .container(let id, false) where out.depth(of: id) != nil:
                return JSONStreamUnkeyedContainer(encoder: self, id: id)
            default:
                break
            }
        }
        return treeSlotEncoder().unkeyedContainer()
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        JSONStreamSingleValueContainer(encoder: self)
    }

    /// Before a single value: the slot takes exactly one (false: the tree's single value
    /// container takes it, and reports a second value).
    @inline(__always)
    func beginSingle() -> Bool {
        guard slot == .empty && tree == nil else { return false }
        slot = .single
        return true
    }
}

// MARK: - Keyed container

/// A keyed container of ``JSONStreamEncoder``: plain data (the encoder unretained, the
/// object's frame id in a cell the encoder owns), so it is copied without reference
/// counting and reused for the next object (see ``JSONStreamEncoder/keyedContainer(_:id:)``).
/// Like the encoder, valid while the `encode` call that handed it out runs.
struct JSONStreamKeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let unmanaged: Unmanaged<JSONStreamEncoder>
    let cell: UnsafeMutablePointer<UInt64>

    @inline(__always) func with<R>(_ body: (JSONStreamEncoder) throws -> R) rethrows -> R {
        try unmanaged._withUnsafeGuaranteedRef(body)
    }
    var encoder: JSONStreamEncoder { unmanaged.takeUnretainedValue() }

    var codingPath: [any CodingKey] { encoder.containerPath(cell.pointee) }

    /// The same call on the tree's container of this object (see ``JSONStreamEncoder/takeOver()``).
    @inline(never)
    func inTree<R>(_ body: (inout KeyedEncodingContainer<Key>) throws -> R) rethrows -> R {
        try Self.inTree(encoder, cell.pointee, body)
    }

    /// ``inTree(_:)`` for object `id` of `e` (out of line: the writing calls stay small).
    @inline(never)
    static func inTree<R>(_ e: JSONStreamEncoder, _ id: UInt64, _ body: (inout KeyedEncodingContainer<Key>) throws -> R) rethrows -> R {
        var c = e.treeKeyed(Key.self, id)
        return try body(&c)
    }

    mutating func encodeNil(forKey key: Key) throws { let id = cell.pointee; try with { e in if e.beginMember(key, id) { e.out.append("null") } else { try Self.inTree(e, id) { try $0.encodeNil(forKey: key) } } } }
    mutating func encode(_ value: Bool, forKey key: Key) throws { let id = cell.pointee; try with { e in if e.beginMember(key, id) { e.out.scalar(.bool(value)) } else { try Self.inTree(e, id) { try $0.encode(value, forKey: key) } } } }
    mutating func encode(_ value: String, forKey key: Key) throws { let id = cell.pointee; try with { e in if e.beginMember(key, id) { e.out.string(value) } else { try Self.inTree(e, id) { try $0.encode(value, forKey: key) } } } }
    mutating func encode(_ value: Double, forKey key: Key) throws {
        let id = cell.pointee
        try with { e in if e.beginMember(key, id) { e.out.scalar(try e.options.number(value, path: e.memberPath)) } else { try Self.inTree(e, id) { try $0.encode(value, forKey: key) } } }
    }
    mutating func encode(_ value: Float, forKey key: Key) throws {
        let id = cell.pointee
        try with { e in if e.beginMember(key, id) { e.out.scalar(try e.options.number(value, path: e.memberPath)) } else { try Self.inTree(e, id) { try $0.encode(value, forKey: key) } } }
    }
    mutating func encode(_ value: Int, forKey key: Key) throws { let id = cell.pointee; try with { e in if e.beginMember(key, id) { e.out.integer(Int64(value)) } else { try Self.inTree(e, id) { try $0.encode(value, forKey: key) } } } }
    mutating func encode(_ value: Int8, forKey key: Key) throws { let id = cell.pointee; try with { e in if e.beginMember(key, id) { e.out.integer(Int64(value)) } else { try Self.inTree(e, id) { try $0.encode(value, forKey: key) } } } }
    mutating func encode(_ value: Int16, forKey key: Key) throws { let id = cell.pointee; try with { e in if e.beginMember(key, id) { e.out.integer(Int64(value)) } else { try Self.inTree(e, id) { try $0.encode(value, forKey: key) } } } }
    mutating func encode(_ value: Int32, forKey key: Key) throws { let id = cell.pointee; try with { e in if e.beginMember(key, id) { e.out.integer(Int64(value)) } else { try Self.inTree(e, id) { try $0.encode(value, forKey: key) } } } }
    mutating func encode(_ value: Int64, forKey key: Key) throws { let id = cell.pointee; try with { e in if e.beginMember(key, id) { e.out.integer(value) } else { try Self.inTree(e, id) { try $0.encode(value, forKey: key) } } } }
    mutating func encode(_ value: UInt, forKey key: Key) throws { let id = cell.pointee; try with { e in if e.beginMember(key, id) { e.out.unsigned(UInt64(value)) } else { try Self.inTree(e, id) { try $0.encode(value, forKey: key) } } } }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { let id = cell.pointee; try with { e in if e.beginMember(key, id) { e.out.unsigned(UInt64(value)) } else { try Self.inTree(e, id) { try $0.encode(value, forKey: key) } } } }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { let id = cell.pointee; try with { e in if e.beginMember(key, id) { e.out.unsigned(UInt64(value)) } else { try Self.inTree(e, id) { try $0.encode(value, forKey: key) } } } }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { let id = cell.pointee; try with { e in if e.beginMember(key, id) { e.out.unsigned(UInt64(value)) } else { try Self.inTree(e, id) { try $0.encode(value, forKey: key) } } } }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { let id = cell.pointee; try with { e in if e.beginMember(key, id) { e.out.unsigned(value) } else { try Self.inTree(e, id) { try $0.encode(value, forKey: key) } } } }
    mutating func encode(_ value: Int128, forKey key: Key) throws { let id = cell.pointee; try with { e in if e.beginMember(key, id) { e.out.scalar(.number(String(value))) } else { try Self.inTree(e, id) { try $0.encode(value, forKey: key) } } } }
    mutating func encode(_ value: UInt128, forKey key: Key) throws { let id = cell.pointee; try with { e in if e.beginMember(key, id) { e.out.scalar(.number(String(value))) } else { try Self.inTree(e, id) { try $0.encode(value, forKey: key) } } } }
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        let id = cell.pointee
        try with { e in if e.beginMember(key, id) { try e.encodeValue(value) } else { try Self.inTree(e, id) { try $0.encode(value, forKey: key) } } }
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        let id = cell.pointee
        let e = encoder
        guard e.beginNested(key, id) else { return inTree { $0.nestedContainer(keyedBy: NestedKey.self, forKey: key) } }
        return e.keyedContainer(NestedKey.self, id: e.openObject(NestedKey.self))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let id = cell.pointee
        let e = encoder
        guard e.beginNested(key, id) else { return inTree { $0.nestedUnkeyedContainer(forKey: key) } }
        return JSONStreamUnkeyedContainer(encoder: e, id: e.out.open(object: false))
    }

    // A super encoder writes whenever its user wants: the tree takes the document over.
    mutating func superEncoder() -> any Encoder { encoder.takeOver(); return inTree { $0.superEncoder() } }
    mutating func superEncoder(forKey key: Key) -> any Encoder { encoder.takeOver(); return inTree { $0.superEncoder(forKey: key) } }
}

/// A kept keyed container of ``JSONStreamEncoder``.
struct JSONEncoderContainerSlot {
    var keyType: ObjectIdentifier
    /// The thunk handing the container out (a `KeyedEncodingContainerThunk`).
    var thunk: AnyObject
    /// The container's box, unretained: a retain count of 1 (the thunk's) means no copy is alive.
    var box: Unmanaged<AnyObject>
    var cell: UnsafeMutablePointer<UInt64>
    func release() { cell.deallocate() }
}

// MARK: - Unkeyed container

struct JSONStreamUnkeyedContainer: UnkeyedEncodingContainer {
    let encoder: JSONStreamEncoder
    let id: UInt64

    var codingPath: [any CodingKey] { encoder.containerPath(id) }

    var count: Int {
        if encoder.tree != nil { return encoder.treeUnkeyed(id).count }
        guard let d = encoder.out.depth(of: id) else { return 0 }
        return encoder.out.frames[d].count
    }

    /// The same call on the tree's container of this array (see ``JSONStreamEncoder/takeOver()``).
    @inline(never)
    func inTree<R>(_ body: (inout JSONTreeUnkeyedContainer) throws -> R) rethrows -> R {
        var c = encoder.treeUnkeyed(id)
        return try body(&c)
    }

    @inline(__always) func begin() -> Bool {
        guard encoder.activate(id) else { return false }
        encoder.out.beforeElement()
        return true
    }

    mutating func encodeNil() throws { if begin() { encoder.out.append("null") } else { try inTree { try $0.encodeNil() } } }
    mutating func encode(_ value: Bool) throws { if begin() { encoder.out.scalar(.bool(value)) } else { try inTree { try $0.encode(value) } } }
    mutating func encode(_ value: String) throws { if begin() { encoder.out.string(value) } else { try inTree { try $0.encode(value) } } }
    mutating func encode(_ value: Double) throws { if begin() { encoder.out.scalar(try encoder.options.number(value, path: encoder.memberPath)) } else { try inTree { try $0.encode(value) } } }
    mutating func encode(_ value: Float) throws { if begin() { encoder.out.scalar(try encoder.options.number(value, path: encoder.memberPath)) } else { try inTree { try $0.encode(value) } } }
    mutating func encode(_ value: Int) throws { if begin() { encoder.out.integer(Int64(value)) } else { try inTree { try $0.encode(value) } } }
    mutating func encode(_ value: Int8) throws { if begin() { encoder.out.integer(Int64(value)) } else { try inTree { try $0.encode(value) } } }
    mutating func encode(_ value: Int16) throws { if begin() { encoder.out.integer(Int64(value)) } else { try inTree { try $0.encode(value) } } }
    mutating func encode(_ value: Int32) throws { if begin() { encoder.out.integer(Int64(value)) } else { try inTree { try $0.encode(value) } } }
    mutating func encode(_ value: Int64) throws { if begin() { encoder.out.integer(value) } else { try inTree { try $0.encode(value) } } }
    mutating func encode(_ value: UInt) throws { if begin() { encoder.out.unsigned(UInt64(value)) } else { try inTree { try $0.encode(value) } } }
    mutating func encode(_ value: UInt8) throws { if begin() { encoder.out.unsigned(UInt64(value)) } else { try inTree { try $0.encode(value) } } }
    mutating func encode(_ value: UInt16) throws { if begin() { encoder.out.unsigned(UInt64(value)) } else { try inTree { try $0.encode(value) } } }
    mutating func encode(_ value: UInt32) throws { if begin() { encoder.out.unsigned(UInt64(value)) } else { try inTree { try $0.encode(value) } } }
    mutating func encode(_ value: UInt64) throws { if begin() { encoder.out.unsigned(value) } else { try inTree { try $0.encode(value) } } }
    mutating func encode(_ value: Int128) throws { if begin() { encoder.out.scalar(.number(String(value))) } else { try inTree { try $0.encode(value) } } }
    mutating func encode(_ value: UInt128) throws { if begin() { encoder.out.scalar(.number(String(value))) } else { try inTree { try $0.encode(value) } } }
    mutating func encode<T: Encodable>(_ value: T) throws { if begin() { try encoder.encodeValue(value) } else { try inTree { try $0.encode(value) } } }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        guard begin() else { return inTree { $0.nestedContainer(keyedBy: NestedKey.self) } }
        return encoder.keyedContainer(NestedKey.self, id: encoder.openObject(NestedKey.self))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        guard begin() else { return inTree { $0.nestedUnkeyedContainer() } }
        return JSONStreamUnkeyedContainer(encoder: encoder, id: encoder.out.open(object: false))
    }

    mutating func superEncoder() -> any Encoder { encoder.takeOver(); return inTree { $0.superEncoder() } }
}

// MARK: - Single value container

struct JSONStreamSingleValueContainer: SingleValueEncodingContainer {
    let encoder: JSONStreamEncoder
    var codingPath: [any CodingKey] { encoder.codingPath }

    /// The same call on the tree's single value container of this value (see ``JSONStreamEncoder/takeOver()``).
    @inline(never)
    func inTree(_ body: (inout any SingleValueEncodingContainer) throws -> Void) rethrows {
        var c = encoder.treeSlotEncoder().singleValueContainer()
        try body(&c)
    }

    mutating func encodeNil() throws { if encoder.beginSingle() { encoder.out.append("null") } else { try inTree { try $0.encodeNil() } } }
    mutating func encode(_ value: Bool) throws { if encoder.beginSingle() { encoder.out.scalar(.bool(value)) } else { try inTree { try $0.encode(value) } } }
    mutating func encode(_ value: String) throws { if encoder.beginSingle() { encoder.out.string(value) } else { try inTree { try $0.encode(value) } } }
    mutating func encode(_ value: Double) throws {
        if encoder.beginSingle() { encoder.out.scalar(try encoder.options.number(value, path: encoder.codingPath)) } else { try inTree { try $0.encode(value) } }
    }
    mutating func encode(_ value: Float) throws {
        if encoder.beginSingle() { encoder.out.scalar(try encoder.options.number(value, path: encoder.codingPath)) } else { try inTree { try $0.encode(value) } }
    }
    mutating func encode(_ value: Int) throws { if encoder.beginSingle() { encoder.out.integer(Int64(value)) } else { try inTree { try $0.encode(value) } } }
    mutating func encode(_ value: Int8) throws { if encoder.beginSingle() { encoder.out.integer(Int64(value)) } else { try inTree { try $0.encode(value) } } }
    mutating func encode(_ value: Int16) throws { if encoder.beginSingle() { encoder.out.integer(Int64(value)) } else { try inTree { try $0.encode(value) } } }
    mutating func encode(_ value: Int32) throws { if encoder.beginSingle() { encoder.out.integer(Int64(value)) } else { try inTree { try $0.encode(value) } } }
    mutating func encode(_ value: Int64) throws { if encoder.beginSingle() { encoder.out.integer(value) } else { try inTree { try $0.encode(value) } } }
    mutating func encode(_ value: UInt) throws { if encoder.beginSingle() { encoder.out.unsigned(UInt64(value)) } else { try inTree { try $0.encode(value) } } }
    mutating func encode(_ value: UInt8) throws { if encoder.beginSingle() { encoder.out.unsigned(UInt64(value)) } else { try inTree { try $0.encode(value) } } }
    mutating func encode(_ value: UInt16) throws { if encoder.beginSingle() { encoder.out.unsigned(UInt64(value)) } else { try inTree { try $0.encode(value) } } }
    mutating func encode(_ value: UInt32) throws { if encoder.beginSingle() { encoder.out.unsigned(UInt64(value)) } else { try inTree { try $0.encode(value) } } }
    mutating func encode(_ value: UInt64) throws { if encoder.beginSingle() { encoder.out.unsigned(value) } else { try inTree { try $0.encode(value) } } }
    mutating func encode(_ value: Int128) throws { if encoder.beginSingle() { encoder.out.scalar(.number(String(value))) } else { try inTree { try $0.encode(value) } } }
    mutating func encode(_ value: UInt128) throws { if encoder.beginSingle() { encoder.out.scalar(.number(String(value))) } else { try inTree { try $0.encode(value) } } }
    mutating func encode<T: Encodable>(_ value: T) throws {
        if encoder.beginSingle() { try encoder.encodeValue(value) } else { try inTree { try $0.encode(value) } }
    }
}

// MARK: - Per-type kinds: hand-written values, arrays, [String: V]

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

extension JSONEncodeKind: TypePlan {
    init() { self = .plain }

    init<T>(_ type: T.Type) {
        if T.self == Date.self || T.self == Data.self || T.self == URL.self || T.self == Decimal.self {
            self = .special
        } else if !(T.self is AnyObject.Type), let hand = T.self as? any JSONEncodable.Type {
            // Structs and enums only: a subclass may override `encode(to:)` (and inherits `encode(json:)`).
            self = .hand(hand)
        } else if let array = T.self as? any JSONArrayEncodable.Type {
            self = .array(array)
        } else if let dictionary = T.self as? any JSONStringKeyedEncodable.Type {
            self = .stringKeyed(dictionary)
        } else {
            self = .plain
        }
    }
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

    /// How values of `T` are written: found once per type and encoder (kept in a ``TypeTable``).
    @inline(__always)
    func kind<T>(of type: T.Type) -> JSONEncodeKind {
        kinds.entry(for: T.self).pointee.plan
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

// MARK: - Handing the document to a tree

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

/// The byte of a one-byte trivial key (synthesized `CodingKeys`), else -1.
@inline(__always)
func jsonKeyByte<K: CodingKey>(_ key: K) -> Int16 {
    isByteCodingKey(K.self) ? Int16(codingKeyByte(key)) : -1
}
