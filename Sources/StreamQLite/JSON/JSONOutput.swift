/// The byte-level JSON writer behind ``JSONValueEncoder``: a growing ``OutputBuffer``,
/// the open containers, separators, pretty printing, key sorting and the
/// removal of duplicate keys. Strings and numbers go through the library's one
/// escaper and formatter (JSONEscaping.swift).
///
/// The layout is `JSONEncoder`'s: compact, or with `pretty` two spaces per level,
/// `"key" : value`, one element per line, empty containers as `[\n\n]`; keys
/// sorted by their UTF-8 bytes with `sortedKeys`; `/` escaped unless
/// `escapeSlashes` is off; when a key is written twice in one object the later
/// value wins.
struct JSONOutput: ~Copyable {
    struct Frame {
        var isObject: Bool
        /// Members or elements written so far.
        var count = 0
        /// Index of this object's first entry in `members`.
        var memberBase: Int
        /// Identifies the frame to the containers that write into it.
        var id: UInt64
        /// `[String: V]` with a key strategy: keys are written as they are.
        var rawKeys = false
        /// Every key so far came from the same one-byte trivial key type (synthesized `CodingKeys`):
        /// equal keys have equal bytes.
        var byteKeys = true
        var keyType: ObjectIdentifier?
        /// Written by a ``JSONObjectWriter`` (a ``JSONEncodable`` type, `keyType`): its keys are in
        /// `handKeys` from `memberBase` on, not in `members`.
        var hand = false
        /// The keys are distinct (a `[String: V]`'s).
        var distinct = false
    }

    /// An object's member, for sorting and duplicate removal when the object closes.
    struct Member {
        var key: String
        /// The key's byte when its type is a one-byte trivial type, else -1.
        var keyByte: Int16
        /// Where the member starts (its indentation), after the separator.
        var start: Int
        /// The member's coding key in ``originals`` when the name written does not say it
        /// all (a key strategy converted it, or it has an `intValue`), else -1.
        var slot: Int32 = -1
    }

    /// The document's bytes (it grows: the writer reads back what it wrote).
    var output: OutputBuffer
    /// The output's first byte, its length and its room (the writes below use them).
    var buffer: UnsafeMutablePointer<UInt8> { @inline(__always) get { output.start } }
    var count: Int {
        @inline(__always) get { output.count }
        @inline(__always) set { output.count = newValue }
    }
    var capacity: Int { @inline(__always) get { output.capacity } }
    var frames = JSONStack<Frame>()
    var members = JSONStack<Member>()
    /// Coding keys of open objects' members that their written name does not give back
    /// (``Member/slot``), for coding paths; dropped as their objects close.
    var originals: [any CodingKey] = []
    /// The members of objects written by hand (see ``Frame/hand``).
    var handKeys = JSONStack<JSONHandKey>()
    /// The encoder converts keys to snake_case (hand-written keys too; see ``handKey(_:_:)``).
    var snakeCaseKeys = false
    /// Hand-written keys as written (quoted, escaped, with the colon), by the address of their bytes.
    var preparedKeys: UnsafeMutablePointer<JSONPreparedKey>
    var nextID: UInt64 = 1
    let pretty: Bool
    let sortedKeys: Bool
    let escapeSlashes: Bool

    init(pretty: Bool, sortedKeys: Bool, escapeSlashes: Bool) {
        self.pretty = pretty
        self.sortedKeys = sortedKeys
        self.escapeSlashes = escapeSlashes
        output = OutputBuffer(capacity: 256)
        preparedKeys = .allocate(capacity: JSONPreparedKey.slots)
        preparedKeys.initialize(repeating: JSONPreparedKey(), count: JSONPreparedKey.slots)
    }

    deinit {
        output.deallocate()
        scratch.deallocate()
        startScratch.deallocate()
        for i in 0..<JSONPreparedKey.slots where preparedKeys[i].key != nil { preparedKeys[i].bytes.deallocate() }
        preparedKeys.deallocate()
        for i in 0..<handPlans.count { handPlans[i].free() }
    }

    var bytes: UnsafeBufferPointer<UInt8> { output.bytes }

    /// Forgets everything written.
    mutating func reset() {
        count = 0
        frames.removeAll()
        members.removeAll()
        originals.removeAll()
        handKeys.removeAll()
    }

    // MARK: Buffer

    @inline(__always) mutating func reserve(_ n: Int) {
        output.reserve(n)
    }

    @inline(__always) mutating func append(_ byte: UInt8) {
        output.reserve(1)
        output.append(byte)
    }

    @inline(__always) mutating func append(_ s: StaticString) {
        output.reserve(s.utf8CodeUnitCount)
        output.append(s)
    }

    mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        output.reserve(bytes.count)
        if let b = bytes.baseAddress { output.append(b, count: bytes.count) }
    }

    mutating func indent(_ level: Int) {
        reserve(2 * level)
        (buffer + count).initialize(repeating: 0x20, count: 2 * level)
        count &+= 2 * level
    }

    // MARK: Scalars

    /// Writes `s` as a quoted, escaped JSON string.
    mutating func string(_ s: String) {
        // A native string's bytes where they are (no copy of the string: no retain and release).
        if s.utf8.withContiguousStorageIfAvailable({ string($0) }) != nil { return }
        var s = s
        s.withUTF8 { string($0) }
    }

    mutating func string(_ utf8: UnsafeBufferPointer<UInt8>) {
        // Strings with nothing to escape (most values): copied a word at a time.
        let n = utf8.count
        reserve(n &+ 10)
        if let p = utf8.baseAddress {
            if jsonCopyIfClean(p, n, to: buffer + (count &+ 1), escapeSlash: escapeSlashes) {
                buffer[count] = UInt8(ascii: "\"")
                buffer[count &+ n &+ 1] = UInt8(ascii: "\"")
                count &+= n &+ 2
                return
            }
        } else {
            append("\"\"")
            return
        }
        stringEscaped(utf8)
    }

    mutating func stringEscaped(_ utf8: UnsafeBufferPointer<UInt8>) {
        // At most 6 output bytes per input byte, plus the quotes.
        reserve(utf8.count &* 6 &+ 18)
        buffer[count] = UInt8(ascii: "\"")
        count &+= 1
        if let p = utf8.baseAddress {
            var i = 0
            while i < utf8.count {
                let progress = jsonEscape(p, utf8.count, &i, into: buffer + count, room: capacity - count,
                                          escapeSlash: escapeSlashes, escapeLineSeparators: false, rejectInvalidUTF8: false)
                count &+= progress.written
            }
        }
        buffer[count] = UInt8(ascii: "\"")
        count &+= 1
    }

    @inline(__always) mutating func integer(_ v: Int64) {
        reserve(24)
        count &+= writeDecimal(v, to: buffer + count)
    }

    @inline(__always) mutating func unsigned(_ v: UInt64) {
        reserve(24)
        count &+= writeDecimal(magnitude: v, negative: false, to: buffer + count)
    }

    /// A finite Double as `JSONEncoder` writes it: the shortest round-trip form without a trailing `.0`.
    @inline(__always) mutating func double(_ v: Double) {
        reserve(40)
        var n = writeShortestDouble(v, to: buffer + count)
        if n >= 2 && buffer[count + n - 2] == UInt8(ascii: ".") && buffer[count + n - 1] == UInt8(ascii: "0") { n -= 2 }
        count &+= n
    }

    /// A finite Float, as ``double(_:)``.
    mutating func float(_ v: Float) {
        reserve(40)
        var n = writeShortestFloat(v, to: buffer + count)
        if n >= 2 && buffer[count + n - 2] == UInt8(ascii: ".") && buffer[count + n - 1] == UInt8(ascii: "0") { n -= 2 }
        count &+= n
    }

    /// Writes a scalar.
    mutating func scalar(_ s: JSONScalar) {
        switch s {
        case .null: append("null")
        case .bool(let b): if b { append("true") } else { append("false") }
        case .int(let v): integer(v)
        case .uint(let v): unsigned(v)
        case .double(let v): double(v)
        case .float(let v): float(v)
        case .string(let v): string(v)
        case .number(let v): var v = v; v.withUTF8 { append($0) }
        }
    }

    // MARK: Structure

    /// Writes what goes before the next element of the innermost array (or the top-level value).
    @inline(__always) mutating func beforeElement() {
        guard !frames.isEmpty else { return }
        let i = frames.count &- 1
        if frames[i].count > 0 {
            if pretty { append(","); append(UInt8(ascii: "\n")) } else { append(UInt8(ascii: ",")) }
        }
        frames[i].count &+= 1
        if pretty { indent(frames.count) }
    }

    /// Writes the separator and `key` before the next value of the innermost object.
    @inline(__always) mutating func key(_ key: String, byte: Int16, type: ObjectIdentifier?) {
        let i = frames.count &- 1
        if frames[i].count > 0 {
            if pretty { append(","); append(UInt8(ascii: "\n")) } else { append(UInt8(ascii: ",")) }
            if byte < 0 || type != frames[i].keyType { frames[i].byteKeys = false }
        } else {
            frames[i].keyType = type
            if byte < 0 { frames[i].byteKeys = false }
        }
        frames[i].count &+= 1
        members.append(Member(key: key, keyByte: byte, start: count))
        if pretty { indent(frames.count) }
        string(key)
        if pretty { append(" : ") } else { append(UInt8(ascii: ":")) }
    }

    /// ``key(_:byte:type:)`` for a key whose name as written does not give it back.
    mutating func key(_ key: String, byte: Int16, type: ObjectIdentifier?, original: any CodingKey) {
        self.key(key, byte: byte, type: type)
        members[members.count &- 1].slot = Int32(truncatingIfNeeded: originals.count)
        originals.append(original)
    }

    /// Drops the ``originals`` of members from `base` on (their object closes): the newest,
    /// as members are written in order.
    mutating func dropOriginals(from base: Int) {
        var low = originals.count
        for k in base..<members.count where members[k].slot >= 0 { low = min(low, Int(members[k].slot)) }
        originals.removeSubrange(low...)
    }

    /// Writes the separator and a prepared key (see ``JSONWrittenKey``).
    @inline(__always) mutating func key(written: JSONWrittenKey, byte: Int16, type: ObjectIdentifier) {
        let i = frames.count &- 1
        if frames[i].count > 0 {
            if pretty { append(","); append(UInt8(ascii: "\n")) } else { append(UInt8(ascii: ",")) }
            if type != frames[i].keyType { frames[i].byteKeys = false }
        } else {
            frames[i].keyType = type
        }
        frames[i].count &+= 1
        members.append(Member(key: written.name, keyByte: byte, start: count))
        if pretty { indent(frames.count) }
        let n = written.count
        reserve(n)
        if n <= 16 { smallCopy(buffer + count, written.bytes, n) } else { (buffer + count).update(from: written.bytes, count: n) }
        count &+= n
    }

    /// Opens an object or array (after `beforeElement`/`key`); returns its frame id.
    @inline(__always) mutating func open(object: Bool, rawKeys: Bool = false) -> UInt64 {
        append(object ? UInt8(ascii: "{") : UInt8(ascii: "["))
        if pretty { append(UInt8(ascii: "\n")) }
        let id = nextID
        nextID &+= 1
        frames.append(Frame(isObject: object, memberBase: members.count, id: id, rawKeys: rawKeys))
        return id
    }

    /// Closes the innermost container.
    mutating func close() {
        let f = frames.removeLast()
        if f.hand {
            if f.count > 1 { fixHandMembers(f) }
            handKeys.removeSuffix(from: f.memberBase)
        } else if f.isObject {
            if f.count > 1 && (sortedKeys || !f.distinct) { fixMembers(f) }
            if _slowPath(!originals.isEmpty) { dropOriginals(from: f.memberBase) }
            members.removeSuffix(from: f.memberBase)
        }
        if pretty {
            append(UInt8(ascii: "\n"))
            indent(frames.count)
        }
        append(f.isObject ? UInt8(ascii: "}") : UInt8(ascii: "]"))
    }

    /// Closes containers until `frames.count == depth`.
    mutating func close(downTo depth: Int) {
        while frames.count > depth { close() }
    }

    /// The position of frame `id` in `frames`, or nil when it is closed.
    @inline(__always) func depth(of id: UInt64) -> Int? {
        var i = frames.count &- 1
        while i >= 0 {
            if frames[i].id == id { return i }
            if frames[i].id < id { return nil }
            i &-= 1
        }
        return nil
    }

    /// Sorts an object's members (`sortedKeys`) and drops all but the last of equal keys.
    mutating func fixMembers(_ f: Frame) {
        let n = f.count
        let base = f.memberBase
        // Duplicates?
        var duplicates = false
        if f.distinct {
            // A dictionary's keys: none.
        } else if f.byteKeys {
            var seen: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
            withUnsafeMutableBytes(of: &seen) { bits in
                let words = bits.bindMemory(to: UInt64.self)
                for m in base..<(base + n) {
                    let b = Int(members[m].keyByte)
                    let mask: UInt64 = 1 << UInt64(b & 63)
                    if words[b >> 6] & mask != 0 { duplicates = true; break }
                    words[b >> 6] |= mask
                }
            }
        } else if n <= 16 {
            outer: for a in base..<(base + n) {
                for b in (a + 1)..<(base + n) where members[a].key == members[b].key { duplicates = true; break outer }
            }
        } else {
            var seen = Set<String>()
            for m in base..<(base + n) where !seen.insert(members[m].key).inserted { duplicates = true; break }
        }
        guard sortedKeys || duplicates else { return }
        if !duplicates && !f.byteKeys {
            // Sorted distinct keys (a dictionary's): an insertion sort of the positions in memory
            // on the stack (no arrays per object).
            withUnsafeTemporaryAllocation(of: Int.self, capacity: n) { order in
                var identity = true
                for k in 0..<n {
                    var j = k
                    while j > 0 && jsonKeyPrecedes(members[base &+ k].key, members[base &+ order[j &- 1]].key) {
                        order[j] = order[j &- 1]
                        j &-= 1
                    }
                    order[j] = k
                    if j != k { identity = false }
                }
                guard !identity else { return }
                let starts = startBuffer(n)
                for k in 0..<n { starts[k] = members[base &+ k].start }
                rebuild(starts: starts, count: n, order: UnsafeBufferPointer(order))
            }
            return
        }
        if !duplicates && f.byteKeys, let order = cachedOrder(f) {
            // The same keys in the same order as the last object of this key type: its order.
            rebuildMembers(base: base, count: n, order: order)
            return
        }
        var order = Array(base..<(base + n))
        if duplicates {
            // Keep the last occurrence of each key.
            var kept: [Int] = []
            var seen = Set<String>()
            for m in order.reversed() where seen.insert(members[m].key).inserted { kept.append(m) }
            order = kept.reversed()
        }
        if sortedKeys {
            order.sort { jsonKeyPrecedes(members[$0].key, members[$1].key) }
        }
        let relative = order.map { $0 - base }
        if !duplicates && f.byteKeys { rememberOrder(f, relative) }
        if !duplicates && relative == Array(0..<n) { return }
        rebuildMembers(base: base, count: n, order: relative)
    }

    /// The last key sequences seen (one-byte key types) and their sorted order: several per
    /// type (members that come and go, optionals, give each type a few sequences).
    var orderCache: [(type: ObjectIdentifier, keys: [Int16], order: [Int])] = []
    /// Memory for reordering an object's members.
    var scratch = UnsafeMutablePointer<UInt8>.allocate(capacity: 0)
    var scratchCapacity = 0
    /// Memory for the members' starts while reordering.
    var startScratch = UnsafeMutablePointer<Int>.allocate(capacity: 0)
    var startScratchCapacity = 0
    /// The members' orders of objects written by hand, by type and key sequence (see ``JSONHandPlan``).
    var handPlans = JSONStack<JSONHandPlan>()
    var lastHandPlan = 0

    /// The sorted order of `f`'s members when the same key type wrote the same keys before.
    func cachedOrder(_ f: Frame) -> [Int]? {
        guard let type = f.keyType else { return nil }
        for entry in orderCache where entry.type == type && entry.keys.count == f.count {
            var same = true
            for k in 0..<f.count where members[f.memberBase + k].keyByte != entry.keys[k] { same = false; break }
            if same { return entry.order }
        }
        return nil
    }

    mutating func rememberOrder(_ f: Frame, _ order: [Int]) {
        guard let type = f.keyType else { return }
        let keys = (0..<f.count).map { members[f.memberBase + $0].keyByte }
        // Called when `cachedOrder` found nothing: a sequence not yet kept.
        if orderCache.count >= 32 { orderCache.removeFirst() }
        orderCache.append((type, keys, order))
    }

    /// Rewrites the object's members in `order` (positions relative to `base`).
    mutating func rebuildMembers(base: Int, count n: Int, order: [Int]) {
        let starts = startBuffer(n)
        for k in 0..<n { starts[k] = members[base + k].start }
        order.withUnsafeBufferPointer { rebuild(starts: starts, count: n, order: $0) }
    }

    /// Room for `n` member starts (see ``rebuild(starts:count:order:)``).
    mutating func startBuffer(_ n: Int) -> UnsafeMutablePointer<Int> {
        if startScratchCapacity < n {
            startScratch.deallocate()
            startScratchCapacity = max(n, startScratchCapacity * 2)
            startScratch = .allocate(capacity: startScratchCapacity)
        }
        return startScratch
    }

    /// Rewrites the last object's `n` members, which begin at `starts[0..<n]` (after their
    /// separators), in `order` (a permutation of `0..<n`, or a part of one: duplicates dropped).
    mutating func rebuild(starts: UnsafePointer<Int>, count n: Int, order: UnsafeBufferPointer<Int>) {
        // Each member's bytes run from its start to the separator of the next (or the end).
        let separator = pretty ? 2 : 1
        let first = starts[0]
        let end = count
        let length = end - first
        // Members are copied a word at a time: 8 bytes of slack after the copy and after the output.
        if scratchCapacity < length &+ 8 {
            scratch.deallocate()
            scratchCapacity = max(length &+ 8, scratchCapacity * 2)
            scratch = .allocate(capacity: scratchCapacity)
        }
        scratch.update(from: buffer + first, count: length)
        reserve(8)
        count = first
        var k = 0
        for r in order {
            if k > 0 {
                buffer[count] = UInt8(ascii: ",")
                if pretty { buffer[count &+ 1] = UInt8(ascii: "\n") }
                count &+= separator
            }
            k &+= 1
            let s = starts[r]
            let e = r &+ 1 < n ? starts[r &+ 1] &- separator : end
            let m = e &- s
            // The output is never longer than before: the room of the old bytes and the slack suffice.
            let src = UnsafeRawPointer(scratch + (s &- first)), dst = UnsafeMutableRawPointer(buffer + count)
            var i = 0
            while i < m {
                dst.storeBytes(of: src.loadUnaligned(fromByteOffset: i, as: UInt64.self), toByteOffset: i, as: UInt64.self)
                i &+= 8
            }
            count &+= m
        }
    }
}

/// A JSON scalar about to be written.
enum JSONScalar {
    case null
    case bool(Bool)
    case int(Int64)
    case uint(UInt64)
    /// Finite.
    case double(Double)
    /// Finite.
    case float(Float)
    case string(String)
    /// A literal written as it is (a `Decimal`'s or a 128-bit integer's description; what
    /// ``JSONWrittenReader`` read back).
    case number(String)
}

/// A key ready to be written: its name (for sorting) and its bytes (`"name":`), and the
/// coding key's own name (`stringValue`, before any key strategy) in memory that lives as long
/// as the encoder: in an object opened for a one-byte key type it is written as a hand-written
/// key is (``JSONOutput/handKey(_:_:)``, found by its address).
struct JSONWrittenKey {
    var name: String
    var bytes: UnsafeMutablePointer<UInt8>
    /// -1: not made yet.
    var count: Int
    var raw: UnsafeMutablePointer<UInt8>
    var rawCount: Int
    /// The coding key itself (coding paths show it, as `JSONEncoder`'s do).
    var key: (any CodingKey)?
    init() {
        name = ""
        bytes = UnsafeMutablePointer(bitPattern: 1)!
        count = -1
        raw = UnsafeMutablePointer(bitPattern: 1)!
        rawCount = 0
    }
    init(name: String, bytes: [UInt8], raw: String, key: any CodingKey) {
        self.name = name
        self.key = key
        count = bytes.count
        self.bytes = .allocate(capacity: max(count, 1))
        self.bytes.initialize(from: bytes, count: count)
        let utf8 = Array(raw.utf8)
        rawCount = utf8.count
        self.raw = .allocate(capacity: max(rawCount, 1))
        self.raw.initialize(from: utf8, count: rawCount)
    }

    /// Frees the bytes (made ones only).
    func free() {
        guard count >= 0 else { return }
        bytes.deallocate()
        raw.deallocate()
    }
}

/// A stack in memory of its own: no copy-on-write checks or reference counting per
/// access (the writer touches its containers and members on every value).
struct JSONStack<Element>: ~Copyable {
    private(set) var base: UnsafeMutablePointer<Element>
    private(set) var count = 0
    private var capacity = 16

    init() { base = .allocate(capacity: 16) }

    deinit {
        base.deinitialize(count: count)
        base.deallocate()
    }

    var isEmpty: Bool { count == 0 }

    @inline(__always) subscript(i: Int) -> Element {
        get { base[i] }
        nonmutating _modify { yield &base[i] }
    }

    var last: Element? { count > 0 ? base[count - 1] : nil }

    @inline(__always) mutating func append(_ e: Element) {
        if _slowPath(count == capacity) {
            let grown = UnsafeMutablePointer<Element>.allocate(capacity: capacity * 2)
            grown.moveInitialize(from: base, count: count)
            base.deallocate()
            base = grown
            capacity *= 2
        }
        (base + count).initialize(to: e)
        count &+= 1
    }

    @inline(__always) mutating func removeLast() -> Element {
        count &-= 1
        return (base + count).move()
    }

    /// Removes the elements from `index` on.
    mutating func removeSuffix(from index: Int) {
        guard index < count else { return }
        (base + index).deinitialize(count: count - index)
        count = index
    }

    mutating func removeAll() { removeSuffix(from: 0) }
}
