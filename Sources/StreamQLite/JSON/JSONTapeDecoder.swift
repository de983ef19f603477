import CStreamQLite
import Foundation

/// The `Decoder` walking a ``JSONTape``. One instance decodes a whole document;
/// `init(from:)` calls get it with `current` set to their value's token.
final class JSONTapeDecoder: Decoder {
    let tape: JSONTape
    var tokens: UnsafeMutablePointer<JSONToken>
    /// The input bytes (streaming: the reader's window, which starts at input offset `inputOffset`).
    var input: UnsafePointer<UInt8>
    var inputCount: Int
    var inputOffset = 0
    /// Streaming: the line of `input[0]`'s line and where that line starts (input offset).
    var lineBase = 1
    var lineStartBase = 0
    /// The objects being decoded as `[String: V]` under a key strategy: their keys are not
    /// converted, in coding paths either (see ``path(to:)``).
    var rawKeyObjects: [Int] = []
    /// The objects being decoded as `[Int: V]`: their keys carry their number in coding paths.
    var intKeyObjects: [Int] = []
    /// See ``location(of:)``.
    var lineMark: LineMark?
    /// Input bytes ``location(of:)`` has read for lines, in all (the work its tests count).
    var locationBytesScanned = 0
    var arena: UnsafeMutablePointer<UInt8>
    var options: JSONValueDecoder.Options
    /// The coding path of token `baseIndex` (the root: empty): paths are rebuilt from the
    /// tape when asked for (an error, `codingPath`), so decoding a value costs nothing for them.
    var basePath: [any CodingKey] {
        get { baseElement.map { [JSONIndexKey(index: $0)] } ?? explicitBasePath }
        set { explicitBasePath = newValue; baseElement = nil }
    }
    private var explicitBasePath: [any CodingKey] = []
    /// Streaming: the index of the element being decoded (its coding path, made when asked for).
    var baseElement: Int?
    /// Bumped when the tape is reused for another value (``advanceGeneration()``): a
    /// container of an earlier value then refuses to read (its tokens are gone).
    var generation: UInt64 = 0
    /// The super decoders handed out for the current value: they read this decoder's tape,
    /// so they expire with the value (``advanceGeneration()``).
    private var superDecoders: [JSONTapeDecoder] = []
    /// A super decoder whose value's tokens are gone: it and its containers throw.
    private(set) var expired = false
    var baseIndex = 0
    /// The token `container(keyedBy:)`, `unkeyedContainer()` and `singleValueContainer()` read.
    var current = 0
    /// Per object nesting level: where the next key is expected (see ``JSONKeyedContainer``);
    /// `hintCapacity` levels, grown on demand.
    var hints: UnsafeMutablePointer<KeyHint>
    var hintCapacity = 8
    var depth = 0 {
        didSet { if _slowPath(depth >= hintCapacity) { growHints() } }
    }
    /// Keeps the input bytes alive when the decoder owns them (a column's JSON text).
    var inputOwner: AnyObject?
    /// A buffer of the decoder's own for its input (``copyInput(_:)``), reused.
    private var ownedInput: UnsafeMutableRawPointer?
    private(set) var ownedInputCapacity = 0

    /// `bytes` copied into the decoder's own buffer (valid until the next call; freed
    /// with the decoder): a pooled decoder reading a column per row allocates nothing.
    func copyInput(_ bytes: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
        if bytes.count > ownedInputCapacity {
            ownedInput?.deallocate()
            ownedInputCapacity = max(bytes.count, 2 * ownedInputCapacity, 256)
            ownedInput = .allocate(byteCount: ownedInputCapacity, alignment: 1)
        }
        let p = ownedInput.unsafelyUnwrapped
        if let b = bytes.baseAddress, bytes.count > 0 { p.copyMemory(from: b, byteCount: bytes.count) }
        inputOwner = nil
        return UnsafeRawBufferPointer(start: p, count: bytes.count)
    }
    /// `snake_case` JSON key → converted key.
    var converted: [String: String] = [:]
    /// Per depth, ``slotsPerDepth`` keyed containers kept for reuse (see ``keyedContainer(_:object:end:)``).
    var slots: UnsafeMutablePointer<JSONContainerSlot>
    var slotDepths = 0
    static let slotsPerDepth = 4
    /// Frames of containers that were not kept (a copy was still alive, or no caching):
    /// freed with the decoder.
    var retiredFrames: [UnsafeMutablePointer<JSONObjectFrame>] = []
    /// Off: every keyed container gets a frame of its own (decoders made for one container).
    var cachesContainers = true
    /// Types seen and how they are read (see ``plan(for:)``).
    let plans = TypeTable<JSONTypePlan>()

    struct KeyHint {
        /// The object the hint is about.
        var object: Int = -1
        /// The key token expected next.
        var next: Int = 0
        /// Every key so far was found at `next`, starting at the object's first member:
        /// the members before `next` hold other keys, so a match at `next` is the first one.
        var inOrder = true
    }

    var codingPath: [any CodingKey] { path(to: current) }
    var userInfo: [CodingUserInfoKey: Any] { options.userInfo }

    init(tape: JSONTape, input: UnsafeRawBufferPointer, options: JSONValueDecoder.Options) {
        self.tape = tape
        tokens = tape.tokens
        self.input = (input.baseAddress ?? UnsafeRawPointer(bitPattern: 1)!).assumingMemoryBound(to: UInt8.self)
        inputCount = input.count
        arena = tape.arena
        self.options = options
        hints = .allocate(capacity: hintCapacity)
        hints.initialize(repeating: KeyHint(), count: hintCapacity)
        slots = .allocate(capacity: 1)
    }

    deinit {
        ownedInput?.deallocate()
        hints.deallocate()
        releaseContainers()
        slots.deallocate()
    }

    func growHints() {
        let capacity = max(hintCapacity * 2, depth + 1)
        let h = UnsafeMutablePointer<KeyHint>.allocate(capacity: capacity)
        h.moveInitialize(from: hints, count: hintCapacity)
        (h + hintCapacity).initialize(repeating: KeyHint(), count: capacity - hintCapacity)
        hints.deallocate()
        hints = h
        hintCapacity = capacity
    }

    /// Parses `bytes` (a whole document given to ``JSONValueDecoder``) onto the tape and
    /// points the decoder at it. Trailing commas as the options say (accepted by default, as
    /// `JSONDecoder` accepts them).
    func parse(_ bytes: UnsafeRawBufferPointer, options: JSONValueDecoder.Options) throws {
        do {
            try tape.parse(bytes, trailingCommas: options.trailingCommas)
        } catch let failure as JSONParseFailure {
            throw DecodingError.dataCorrupted(.init(
                codingPath: [],
                debugDescription: "The given data was not valid JSON: \(failure.message) (line \(failure.line), column \(failure.column), byte offset \(failure.offset))",
                underlyingError: failure))
        }
        begin(input: bytes, options: options)
    }

    /// Points the decoder at a new document on its tape.
    func begin(input bytes: UnsafeRawBufferPointer, options: JSONValueDecoder.Options) {
        tokens = tape.tokens
        arena = tape.arena
        input = (bytes.baseAddress ?? UnsafeRawPointer(bitPattern: 1)!).assumingMemoryBound(to: UInt8.self)
        inputCount = bytes.count
        inputOffset = 0
        lineBase = 1
        lineStartBase = 0
        lineMark = nil
        rawKeyObjects.removeAll()
        intKeyObjects.removeAll()
        self.options = options
        basePath = []
        baseIndex = 0
        current = 0
        depth = 0
        advanceGeneration()
        cachesContainers = true
    }

    /// The tape now holds another value: the containers and super decoders handed out for
    /// the last one throw from now on rather than read the new one.
    @inline(__always)
    func advanceGeneration() {
        generation &+= 1
        if _slowPath(!superDecoders.isEmpty) { expireSuperDecoders() }
    }

    private func expireSuperDecoders() {
        for d in superDecoders {
            d.expired = true
            d.advanceGeneration()
        }
        superDecoders.removeAll()
    }

    /// Records a super decoder reading this decoder's tape (see ``advanceGeneration()``).
    func adopt(_ superDecoder: JSONTapeDecoder) { superDecoders.append(superDecoder) }

    /// The error of a container (or super decoder) used after its value's tokens were reused.
    func expiredError() -> DecodingError {
        DecodingError.dataCorrupted(.init(codingPath: [], debugDescription:
            "A decoder or container was used after its value was decoded: with streamed elements (elements(of:), a top-level array) or JSON columns read row by row, the decoder and containers an init(from:) receives are only valid while it runs"))
    }

    /// The document is done: containers kept by its types (against the rules) lose their
    /// memory; the kept containers, key bytes and buffers stay for the next document.
    func endDocument() {
        for f in retiredFrames { f.pointee.freeNames(); f.deallocate() }
        retiredFrames.removeAll()
        inputOwner = nil
    }

    /// Decodes the document's value.
    /// (Where keys were found in an earlier document or streamed element, whose tokens
    /// started at 0 too, is forgotten as each keyed container is pointed at its object.)
    func decodeTop<T: Decodable>(_ type: T.Type) throws -> T {
        try unwrap(type, at: 0)
    }

    /// ``decodeTop(_:)`` for a ``JSONDecodable`` type known as such.
    func decodeTopHandWritten<H: JSONDecodable>(_ type: H.Type) throws -> H {
        try nested { try decodeHandWritten(H.self, at: 0) }
    }

    /// ``decodeTop(_:)`` for a type that ``readsItself(_:)`` said is read by its `init(from:)`.
    @inline(__always)
    func decodeTopPlain<T: Decodable>(_ type: T.Type) throws -> T {
        depth = 1
        return try T(from: self)
    }

    // MARK: Tape access

    /// The index of the token after the value at `i` (skips a container's subtree).
    @inline(__always) func next(_ i: Int) -> Int {
        let t = tokens[i]
        return t.kind >= JSONKind.object ? Int(t.length) : i &+ 1
    }

    /// The text of a string, key or number token.
    @inline(__always) func text(_ t: JSONToken) -> UnsafePointer<UInt8> {
        t.flags & JSONTape.arenaFlag != 0 ? UnsafePointer(arena + Int(t.position)) : input + (Int(t.position) &- inputOffset)
    }

    @inline(__always) func bytes(at i: Int) -> UnsafeBufferPointer<UInt8> {
        let t = tokens[i]
        return UnsafeBufferPointer(start: text(t), count: Int(t.length))
    }

    /// The string or key at `i` (the parser validated its UTF-8).
    func string(at i: Int) -> String {
        let t = tokens[i]
        return JSONValidatedString.make(text(t), Int(t.length))
    }

    /// The document offset of the token at `i`.
    func offset(of i: Int) -> Int {
        let t = tokens[i]
        if t.flags & JSONTape.arenaFlag != 0 {
            return Int(UnsafeRawPointer(arena + Int(t.position) - 8).loadUnaligned(as: UInt64.self))
        }
        if t.kind == JSONKind.string || t.kind == JSONKind.key { return Int(t.position) - 1 }
        return Int(t.position)
    }

    /// "line L, column C, byte offset O" of the token at `i` (columns count bytes from 1).
    ///
    /// Lines are counted from the last location worked out when `i` is at or after it (and
    /// the input is the same), else from the start of the input: locations asked for in
    /// document order, as a caller catching an error per element asks, cost the distance
    /// between them, not the distance from the start each.
    func location(of i: Int) -> String {
        let (line, column, o) = position(of: i)
        return "line \(line), column \(column), byte offset \(o)"
    }

    /// Line, byte column (both 1-based) and document offset of the token at `i`, as
    /// ``location(of:)`` writes them.
    func position(of i: Int) -> (line: Int, column: Int, offset: Int) {
        let o = offset(of: i)
        let end = min(max(o - inputOffset, 0), inputCount)
        var mark = LineMark(input: input, inputOffset: inputOffset, lineBase: lineBase, lineStartBase: lineStartBase,
                            scanned: 0, line: lineBase, lineStart: lineStartBase)
        if let last = lineMark, last.sameInput(as: mark), last.scanned <= end { mark = last }
        var p = mark.scanned
        while p < end {
            if input[p] == 0x0A { mark.line += 1; mark.lineStart = inputOffset + p + 1 }
            p += 1
        }
        locationBytesScanned &+= end - mark.scanned
        mark.scanned = end
        lineMark = mark
        return (mark.line, o - mark.lineStart + 1, o)
    }

    /// Where ``location(of:)`` stopped counting lines, and in which input.
    struct LineMark {
        var input: UnsafePointer<UInt8>
        var inputOffset: Int
        var lineBase: Int
        var lineStartBase: Int
        /// Input bytes counted (from `input[0]`), the line there and where that line starts.
        var scanned: Int
        var line: Int
        var lineStart: Int

        func sameInput(as other: LineMark) -> Bool {
            input == other.input && inputOffset == other.inputOffset && lineBase == other.lineBase
                && lineStartBase == other.lineStartBase
        }
    }

    // MARK: Errors

    /// The coding path of the value at token `target`, rebuilt from the tape: object
    /// members add their key (converted with the snake_case strategy), array
    /// elements their index.
    func path(to target: Int) -> [any CodingKey] {
        var result = basePath
        var i = baseIndex
        guard target >= 0, i >= 0 else { return result }
        while i != target {
            let t = tokens[i]
            let end = Int(t.length)
            guard t.kind >= JSONKind.object, target > i, target < end else { break }
            if t.kind == JSONKind.object {
                var j = i + 1
                while j < end {
                    let after = next(j + 1)
                    if target <= j { return result }  // a key token: its object's path
                    if target < after {
                        if _slowPath(intKeyObjects.contains(i)) {
                            let name = string(at: j)
                            result.append(JSONIntDictionaryKey(name, Int(name)))
                        } else {
                            result.append(JSONStringKey(rawKeyObjects.contains(i) ? string(at: j) : keyString(at: j, in: result)))
                        }
                        i = j + 1
                        break
                    }
                    j = after
                }
            } else {
                var j = i + 1
                var n = 0
                while j < end {
                    let after = next(j)
                    if target < after {
                        result.append(JSONIndexKey(index: n))
                        i = j
                        break
                    }
                    j = after
                    n += 1
                }
            }
        }
        return result
    }

    func mismatch(_ type: Any.Type, at i: Int) -> DecodingError {
        let codingPath = path(to: i)
        let kind = tokens[i].kind
        if kind == JSONKind.null {
            return .valueNotFound(type, .init(codingPath: codingPath,
                                              debugDescription: "Cannot get value of type \(type) -- found null value instead (\(location(of: i)))"))
        }
        return .typeMismatch(type, .init(codingPath: codingPath,
                                         debugDescription: "Expected to decode \(type) but found \(JSONKind.describe(kind)) instead (\(location(of: i)))"))
    }

    func corrupted(_ message: String, at i: Int) -> DecodingError {
        .dataCorrupted(.init(codingPath: path(to: i), debugDescription: "\(message) (\(location(of: i)))"))
    }

    func notRepresentable(_ type: Any.Type, at i: Int) -> DecodingError {
        let literal = String(decoding: bytes(at: i), as: UTF8.self)
        return corrupted("Number \(literal) is not representable in Swift as \(type)", at: i)
    }

}

// MARK: - Containers

extension JSONTapeDecoder {
    // MARK: Decoder

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        if _slowPath(expired) { throw expiredError() }
        let i = current
        guard i >= 0 else { throw missingValue([String: Any].self) }
        let t = tokens[i]
        guard t.kind == JSONKind.object else {
            if t.kind == JSONKind.null {
                throw DecodingError.valueNotFound([String: Any].self, .init(
                    codingPath: path(to: i), debugDescription: "Cannot get keyed decoding container -- found null value instead (\(location(of: i)))"))
            }
            throw mismatch([String: Any].self, at: i)
        }
        return keyedContainer(Key.self, object: i, end: Int(t.length))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        if _slowPath(expired) { throw expiredError() }
        let i = current
        guard i >= 0 else { throw missingValue([Any].self) }
        let t = tokens[i]
        guard t.kind == JSONKind.array else {
            if t.kind == JSONKind.null {
                throw DecodingError.valueNotFound([Any].self, .init(
                    codingPath: path(to: i), debugDescription: "Cannot get unkeyed decoding container -- found null value instead (\(location(of: i)))"))
            }
            throw mismatch([Any].self, at: i)
        }
        return JSONUnkeyedContainer(decoder: self, array: i, end: Int(t.length))
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        if _slowPath(expired) { throw expiredError() }
        return JSONSingleValueContainer(decoder: self, index: current)
    }

    /// A keyed container for the object at `object`.
    ///
    /// Making one costs a `KeyedDecodingContainer` box and a generic metadata lookup
    /// (about a third of decoding a small object), so the containers of the last key
    /// types at each depth are kept (as closures that captured them, which hand them
    /// out without the lookup) and pointed at the next object — but only when no copy
    /// of one is left (its box is held by the closure alone): a container kept beyond
    /// its `init(from:)` keeps reading its own object. Containers refer to the decoder
    /// and their frame unretained (no reference counting per property): like the
    /// decoder itself, they are valid while the decode call that handed them out runs.
    @inline(__always)
    func keyedContainer<Key: CodingKey>(_ type: Key.Type, object: Int, end: Int) -> KeyedDecodingContainer<Key> {
        let id = ObjectIdentifier(Key.self)
        if _fastPath(depth < slotDepths) {
            let base = slots + depth &* Self.slotsPerDepth
            var k = 0
            while k < Self.slotsPerDepth {
                let slot = base + k
                if slot.pointee.keyType == id && slot.pointee.box.isSoleReference {
                    slot.pointee.frame.pointee.object = object
                    slot.pointee.frame.pointee.end = end
                    slot.pointee.frame.pointee.generation = generation
                    hints[depth] = KeyHint(object: object, next: object &+ 1, inOrder: true)
                    return unsafeDowncast(slot.pointee.thunk.takeUnretainedValue(), to: KeyedDecodingContainerThunk<Key>.self).make()
                }
                k &+= 1
            }
        }
        return newKeyedContainer(Key.self, object: object, end: end)
    }

    func newKeyedContainer<Key: CodingKey>(_ type: Key.Type, object: Int, end: Int) -> KeyedDecodingContainer<Key> {
        let frame = UnsafeMutablePointer<JSONObjectFrame>.allocate(capacity: 1)
        frame.initialize(to: JSONObjectFrame(object: object, end: end, depth: depth))
        frame.pointee.generation = generation
        hints[depth] = KeyHint(object: object, next: object + 1, inOrder: true)
        let plain = JSONKeyedContainer<Key>(decoder: Unmanaged.passUnretained(self), frame: frame)
        guard cachesContainers else {
            // A decoder made for one container (a super decoder, a column's nested
            // container): the container may outlive whoever made it, so it keeps it.
            retiredFrames.append(frame)
            return KeyedDecodingContainer(JSONRetainingKeyedContainer(base: plain, owner: self))
        }
        let container = KeyedDecodingContainer(plain)
        if depth >= slotDepths { growSlots() }
        // The slot of this key type, else an empty one, else the first.
        let base = slots + depth * Self.slotsPerDepth
        let id = ObjectIdentifier(Key.self)
        var k = (0..<Self.slotsPerDepth).first { base[$0].keyType == id } ?? (0..<Self.slotsPerDepth).first { base[$0].keyType == nil } ?? 0
        if k < 0 { k = 0 }
        release(base + k)
        (base + k).pointee = JSONContainerSlot(
            keyType: id, thunk: Unmanaged.passRetained(KeyedDecodingContainerThunk(holding: container)),
            box: Unmanaged.passUnretained(unsafeBitCast(container, to: AnyObject.self)), frame: frame)
        return container
    }

    /// Empties a slot; its frame is kept if a copy of its container may still read it.
    func release(_ slot: UnsafeMutablePointer<JSONContainerSlot>) {
        guard slot.pointee.keyType != nil else { return }
        let alone = slot.pointee.box.isSoleReference
        slot.pointee.thunk.release()
        if alone { slot.pointee.frame.pointee.freeNames(); slot.pointee.frame.deallocate() } else { retiredFrames.append(slot.pointee.frame) }
        slot.pointee.keyType = nil
    }

    func growSlots() {
        let depths = max(slotDepths * 2, depth + 1, 4)
        let grown = UnsafeMutablePointer<JSONContainerSlot>.allocate(capacity: depths * Self.slotsPerDepth)
        if slotDepths > 0 { grown.moveInitialize(from: slots, count: slotDepths * Self.slotsPerDepth) }
        (grown + slotDepths * Self.slotsPerDepth).initialize(repeating: JSONContainerSlot(), count: (depths - slotDepths) * Self.slotsPerDepth)
        slots.deallocate()
        slots = grown
        slotDepths = depths
    }

    /// Frees the kept containers' frames (at the end of a decode; the decoder stays usable).
    func releaseContainers() {
        for i in 0..<(slotDepths * Self.slotsPerDepth) { release(slots + i) }
        for f in retiredFrames { f.pointee.freeNames(); f.deallocate() }
        retiredFrames.removeAll()
    }

    /// The error for a value that is not there (a `superDecoder` of a missing key reads as null).
    func missingValue(_ type: Any.Type) -> DecodingError {
        .valueNotFound(type, .init(codingPath: basePath, debugDescription: "Cannot get value of type \(type) -- found null value instead"))
    }

    /// A decoder for the value at `i` (-1: a missing key) whose coding path is `path` (superDecoder).
    func decoder(for i: Int, path: [any CodingKey]) -> JSONTapeDecoder {
        let d = JSONTapeDecoder(tape: tape, input: UnsafeRawBufferPointer(start: input, count: inputCount), options: options)
        d.basePath = path
        d.baseIndex = i
        d.current = i
        d.depth = depth
        d.cachesContainers = false
        adopt(d)
        return d
    }

}

/// A kept keyed container: its key type (nil: an empty slot), its thunk (retained), its
/// box (unretained, to see whether a copy of it is alive) and its frame.
struct JSONContainerSlot {
    var keyType: ObjectIdentifier?
    var thunk: Unmanaged<AnyObject>
    var box: Unmanaged<AnyObject>
    var frame: UnsafeMutablePointer<JSONObjectFrame>
    init() {
        keyType = nil
        thunk = Unmanaged.passUnretained(JSONTape.self as AnyObject)
        box = thunk
        frame = UnsafeMutablePointer(bitPattern: 8)!
    }
    init(keyType: ObjectIdentifier, thunk: Unmanaged<AnyObject>, box: Unmanaged<AnyObject>, frame: UnsafeMutablePointer<JSONObjectFrame>) {
        self.keyType = keyType
        self.thunk = thunk
        self.box = box
        self.frame = frame
    }
}

// MARK: - Keys

extension JSONTapeDecoder {
    // MARK: Keys

    /// The key at `i` as the coding keys see it (converted by the key strategy); `path`: the
    /// coding path of its object, which a custom strategy is given.
    func keyString(at i: Int, in path: @autoclosure () -> [any CodingKey]) -> String {
        let raw = string(at: i)
        guard options.keys.converts else { return raw }
        if options.keys.dependsOnPath { return options.keys.convert(raw, in: path()) }
        if let c = converted[raw] { return c }
        let c = options.keys.convert(raw, in: [])
        converted[raw] = c
        return c
    }

    /// Whether the key at `j` is `name`.
    @inline(__always)
    func keyMatches(_ j: Int, _ name: UnsafeBufferPointer<UInt8>) -> Bool {
        let t = tokens[j]
        let n = name.count
        guard Int(t.length) == n else { return false }
        guard n > 0 else { return true }
        let a = text(t), b = name.baseAddress.unsafelyUnwrapped
        if n <= 16 {
            // Short keys (nearly all): no call.
            var i = 0
            while i < n {
                if a[i] != b[i] { return false }
                i &+= 1
            }
            return true
        }
        return memcmp(a, b, n) == 0
    }

    /// The value token of `key` in the object at `object`, or nil; with `consume`, moves the
    /// object's hint past it.
    @inline(__always)
    func find<Key: CodingKey>(_ key: Key, in frame: UnsafeMutablePointer<JSONObjectFrame>, consume: Bool) -> Int? {
        let object = frame.pointee.object, end = frame.pointee.end
        if options.keys.converts { return findConverted(key.stringValue, object: object, end: end) }
        // Synthesized `CodingKeys` (one byte of plain data): the name's bytes kept per key
        // type and case, no `stringValue` call.
        if isByteCodingKey(Key.self) {
            let byte = codingKeyByte(key)
            let names = frame.pointee.names ?? frame.pointee.makeNames()
            if _slowPath(names[byte].count < 0) { names[byte] = JSONKeyName(key.stringValue) }
            return find(UnsafeBufferPointer(start: names[byte].bytes, count: names[byte].count), object: object, end: end,
                        depth: frame.pointee.depth, consume: consume)
        }
        var name = key.stringValue
        return name.withUTF8 { find($0, object: object, end: end, depth: frame.pointee.depth, consume: consume) }
    }

    @inline(__always)
    func find(_ name: UnsafeBufferPointer<UInt8>, object: Int, end: Int, depth: Int, consume: Bool) -> Int? {
        let h = hints + depth
        if h.pointee.object != object {
            h.pointee = KeyHint(object: object, next: object + 1, inOrder: true)
        }
        let n = h.pointee.next
        if _fastPath(h.pointee.inOrder && n < end && keyMatches(n, name)) {
            if consume { h.pointee.next = next(n + 1) }
            return n + 1
        }
        return findSlow(name, object: object, end: end, hint: h, consume: consume)
    }

    func findSlow(_ name: UnsafeBufferPointer<UInt8>, object: Int, end: Int, hint h: UnsafeMutablePointer<KeyHint>, consume: Bool) -> Int? {
        var j = object + 1
        var sawNonASCII = false
        while j < end {
            if keyMatches(j, name) {
                if sawNonASCII, let earlier = findEquivalent(String(decoding: name, as: UTF8.self), object: object, end: j) {
                    return earlier
                }
                if consume {
                    h.pointee.inOrder = false
                    h.pointee.next = next(j + 1)
                }
                return j + 1
            }
            if !sawNonASCII && bytes(at: j).contains(where: { $0 >= 0x80 }) { sawNonASCII = true }
            j = next(j + 1)
        }
        // No byte-equal key: String equality (canonical equivalence), as JSONDecoder's dictionary.
        if sawNonASCII || name.contains(where: { $0 >= 0x80 }) {
            return findEquivalent(String(decoding: name, as: UTF8.self), object: object, end: end)
        }
        return nil
    }

    /// The first member whose key equals `name` as Strings compare.
    func findEquivalent(_ name: String, object: Int, end: Int) -> Int? {
        var j = object + 1
        while j < end {
            if string(at: j) == name { return j + 1 }
            j = next(j + 1)
        }
        return nil
    }

    /// The first member whose converted key is `name` (as `JSONDecoder`, which keeps the first
    /// of the members whose keys convert to one).
    func findConverted(_ name: String, object: Int, end: Int) -> Int? {
        let objectPath = options.keys.dependsOnPath ? path(to: object) : []
        var j = object + 1
        while j < end {
            if keyString(at: j, in: objectPath) == name { return j + 1 }
            j = next(j + 1)
        }
        return nil
    }
}

// MARK: - Values

extension JSONTapeDecoder {
    // MARK: Scalars

    @inline(__always)
    func readBool(at i: Int) throws -> Bool {
        let k = tokens[i].kind
        if k == JSONKind.true { return true }
        if k == JSONKind.false { return false }
        throw DecodingError.typeMismatch(Bool.self, .init(
            codingPath: path(to: i),
            debugDescription: "Expected to decode Bool but found \(JSONKind.describe(k)) instead (\(location(of: i)))"))
    }

    @inline(__always)
    func readString(at i: Int) throws -> String {
        let t = tokens[i]
        guard t.kind == JSONKind.string else { throw mismatch(String.self, at: i) }
        return JSONValidatedString.make(text(t), Int(t.length))
    }

    @inline(__always)
    func readInteger<T: FixedWidthInteger>(_ type: T.Type, at i: Int) throws -> T {
        let t = tokens[i]
        guard t.kind == JSONKind.number else { throw mismatch(T.self, at: i) }
        if _fastPath(t.flags & JSONKind.integerFlag != 0) {
            // Up to 18 digits cannot overflow an Int64.
            let p = text(t)
            let n = Int(t.length)
            let negative = p[0] == UInt8(ascii: "-")
            var k = negative ? 1 : 0
            if _fastPath(n - k <= 18) {
                var v: Int64 = 0
                while k < n {
                    v = v &* 10 &+ Int64(p[k] &- 0x30)
                    k &+= 1
                }
                if negative { v = -v }
                if let r = T(exactly: v) { return r }
                throw notRepresentable(T.self, at: i)
            }
        }
        return try readIntegerSlow(T.self, at: i)
    }

    /// Long integers, and numbers with a fraction or exponent: `JSONDecoder`'s rules.
    func readIntegerSlow<T: FixedWidthInteger>(_ type: T.Type, at i: Int) throws -> T {
        let b = bytes(at: i)
        if tokens[i].flags & JSONKind.integerFlag != 0 {
            // Exact, with overflow checks.
            let negative = b[0] == UInt8(ascii: "-")
            var v: T = 0
            var ok = true
            for c in b.dropFirst(negative ? 1 : 0) {
                let (m, o1) = v.multipliedReportingOverflow(by: 10)
                let d = T(c &- 0x30)
                let (s, o2) = negative ? m.subtractingReportingOverflow(d) : m.addingReportingOverflow(d)
                if o1 || o2 { ok = false; break }
                v = s
            }
            if ok { return v }
        }
        // As `JSONDecoder`: through Double when that is exact below 2^53, else through Decimal.
        let d = sq_json_number_double(UnsafeRawPointer(b.baseAddress!).assumingMemoryBound(to: CChar.self), b.count)
        guard let value = T(exactly: d) else { throw notRepresentable(T.self, at: i) }
        if d.magnitude < 9_007_199_254_740_992 { return value }
        if let decimal = Decimal(string: String(decoding: b, as: UTF8.self)), let value = T(jsonDecimal: decimal) {
            return value
        }
        throw notRepresentable(T.self, at: i)
    }

    @inline(__always)
    func readDouble(at i: Int) throws -> Double {
        let t = tokens[i]
        guard t.kind == JSONKind.number else { return try nonConforming(Double.self, at: i) }
        let p = text(t)
        let n = Int(t.length)
        if t.flags & JSONKind.integerFlag != 0 && n <= 16 {
            // At most 15 digits: exact in a Double.
            let negative = p[0] == UInt8(ascii: "-")
            var k = negative ? 1 : 0
            var v: Int64 = 0
            while k < n {
                v = v &* 10 &+ Int64(p[k] &- 0x30)
                k &+= 1
            }
            if n - (negative ? 1 : 0) <= 15 {
                // -0 stays -0.0, as strtod gives.
                return negative ? (v == 0 ? -0.0 : -Double(v)) : Double(v)
            }
        }
        if let d = fastDouble(p, n) { return d }
        let d = sq_json_number_double(UnsafeRawPointer(p).assumingMemoryBound(to: CChar.self), n)
        return try checkedFloat(d, at: i)
    }

    /// Clinger's fast path: up to 15 significant digits and a power of ten up to 22 are exact.
    @inline(__always)
    func fastDouble(_ p: UnsafePointer<UInt8>, _ n: Int) -> Double? {
        var k = 0
        let negative = p[0] == UInt8(ascii: "-")
        if negative { k = 1 }
        var mantissa: UInt64 = 0
        var digits = 0
        var scale = 0
        var seenDot = false
        while k < n {
            let c = p[k]
            if c == UInt8(ascii: ".") { seenDot = true; k += 1; continue }
            if c == UInt8(ascii: "e") || c == UInt8(ascii: "E") { break }
            if mantissa != 0 || c != 0x30 { digits += 1 }
            if digits > 15 { return nil }
            mantissa = mantissa * 10 + UInt64(c - 0x30)
            if seenDot { scale -= 1 }
            k += 1
        }
        if k < n {
            k += 1
            var expNegative = false
            if p[k] == UInt8(ascii: "-") { expNegative = true; k += 1 } else if p[k] == UInt8(ascii: "+") { k += 1 }
            var e = 0
            while k < n {
                e = e * 10 + Int(p[k] - 0x30)
                if e > 400 { return nil }
                k += 1
            }
            scale += expNegative ? -e : e
        }
        var d = Double(mantissa)
        if scale < 0 {
            guard scale >= -22 else { return nil }
            d /= powersOfTen[-scale]
        } else if scale > 0 {
            guard scale <= 22 else { return nil }
            d *= powersOfTen[scale]
        }
        return negative ? -d : d
    }

    /// `JSONDecoder` rejects numbers that overflow to ±∞ or underflow to 0.
    func checkedFloat<F: BinaryFloatingPoint>(_ value: F, at i: Int) throws -> F {
        if value.isFinite {
            if value != 0 { return value }
            // A true zero has no non-zero digit before its exponent.
            for c in bytes(at: i) {
                if c == UInt8(ascii: "e") || c == UInt8(ascii: "E") { break }
                if c >= UInt8(ascii: "1") && c <= UInt8(ascii: "9") { throw notRepresentable(F.self, at: i) }
            }
            return value
        }
        throw notRepresentable(F.self, at: i)
    }

    func readFloat(at i: Int) throws -> Float {
        let t = tokens[i]
        guard t.kind == JSONKind.number else { return try nonConforming(Float.self, at: i) }
        // strtof rounds once, straight to Float (as JSONDecoder).
        guard let f = Float(Substring(String(decoding: bytes(at: i), as: UTF8.self))) else {
            throw notRepresentable(Float.self, at: i)
        }
        return try checkedFloat(f, at: i)
    }

    func nonConforming<F: BinaryFloatingPoint>(_ type: F.Type, at i: Int) throws -> F {
        if case .convertFromString(let posInf, let negInf, let nan) = options.nonConforming, tokens[i].kind == JSONKind.string {
            // The string as written is compared, as `JSONDecoder` does: `"Na\u004E"` is not `"NaN"`.
            let b = writtenString(at: i)
            if b.elementsEqual(posInf.utf8) { return F.infinity }
            if b.elementsEqual(negInf.utf8) { return -F.infinity }
            if b.elementsEqual(nan.utf8) { return F.nan }
        }
        throw mismatch(F.self, at: i)
    }

    /// The string at `i` as the document has it (escapes not undone), when it is at hand;
    /// else the string.
    func writtenString(at i: Int) -> UnsafeBufferPointer<UInt8> {
        let t = tokens[i]
        guard t.flags & JSONTape.arenaFlag != 0 else { return bytes(at: i) }
        let start = offset(of: i) + 1 - inputOffset
        guard start >= 1, start <= inputCount else { return bytes(at: i) }
        var end = start
        while end < inputCount && input[end] != UInt8(ascii: "\"") { end += input[end] == UInt8(ascii: "\\") ? 2 : 1 }
        return UnsafeBufferPointer(start: input + start, count: min(end, inputCount) - start)
    }

    // MARK: Any value

    /// Decodes the value at token `i`; `key` is its key in the enclosing container (for the coding path).
    @inline(__always)
    func unwrap<T: Decodable>(_ type: T.Type, at i: Int) throws -> T {
        // The common scalars without going through `init(from:)`.
        if T.self == String.self { return unsafeBitCast(try readString(at: i), to: T.self) }
        if T.self == Int.self { return unsafeBitCast(try readInteger(Int.self, at: i), to: T.self) }
        if T.self == Double.self { return unsafeBitCast(try readDouble(at: i), to: T.self) }
        if T.self == Bool.self { return unsafeBitCast(try readBool(at: i), to: T.self) }
        return try unwrapOther(type, at: i)
    }

    /// Whether `unwrap` reads a `T` other than by calling its `init(from:)` (a scalar, a
    /// type with a strategy, a ``JSONDecodable`` type, a dictionary keeping its keys).
    func readsItself<T: Decodable>(_ type: T.Type) -> Bool {
        T.self == String.self || T.self == Int.self || T.self == Double.self || T.self == Bool.self
            || T.self == Date.self || T.self == Data.self || T.self == URL.self || T.self == Decimal.self
            || plan(for: T.self).readsDirectly
    }

    func unwrapOther<T: Decodable>(_ type: T.Type, at i: Int) throws -> T {
        // `decode(Employee.self as Person.Type, …)`: the runtime type's `init(from:)`, as `JSONDecoder`.
        if _slowPath(type != T.self) {
            let runtime: any Decodable.Type = type
            return try unwrapRuntimeType(runtime, at: i) as! T
        }
        if T.self == Date.self { return try readDate(at: i) as! T }
        if T.self == Data.self { return try readData(at: i) as! T }
        if T.self == URL.self { return try readURL(at: i) as! T }
        if T.self == Decimal.self { return try readDecimal(at: i) as! T }
        // The other scalars, as their single value container reads them (no `init(from:)`).
        if T.self == Int64.self { return unsafeBitCast(try readInteger(Int64.self, at: i), to: T.self) }
        if T.self == Int32.self { return unsafeBitCast(try readInteger(Int32.self, at: i), to: T.self) }
        if T.self == UInt8.self { return unsafeBitCast(try readInteger(UInt8.self, at: i), to: T.self) }
        if T.self == Float.self { return unsafeBitCast(try readFloat(at: i), to: T.self) }
        let plan = plan(for: T.self)
        if plan.readsDirectly {
            if let hand = plan.hand {
                return try nested { try decodeOpened(hand, as: T.self, self, at: i) }
            }
            if let array = plan.array {
                return try nested { try decodeArrayOpened(array, as: T.self, self, at: i) }
            }
            if let dictionary = plan.dictionary {
                return try nested { try decodeDictionaryOpened(dictionary, as: T.self, self, at: i) }
            }
            if let dictionary = plan.intDictionary, !options.keys.converts {
                return try nested { try decodeIntDictionaryOpened(dictionary, as: T.self, self, at: i) }
            }
        }
        return try nested {
            current = i
            return try T(from: self)
        }
    }

    /// Decodes a value of `type` (opened: its own plan and `init(from:)`).
    func unwrapRuntimeType<U: Decodable>(_ type: U.Type, at i: Int) throws -> Any {
        try unwrap(U.self, at: i)
    }

    /// Runs `body` one level deeper (the key only documents the call: paths come from the tape).
    @inline(__always)
    func nested<R>(_ body: () throws -> R) throws -> R {
        let saved = current
        depth += 1
        defer {
            depth -= 1
            current = saved
        }
        return try body()
    }

    func readDate(at i: Int) throws -> Date {
        if tokens[i].kind == JSONKind.null { throw mismatch(Date.self, at: i) }
        switch options.date {
        case .databaseText:
            if tokens[i].kind == JSONKind.number {
                // A number is Unix seconds (as `.secondsSince1970`), whatever its size; not
                // the rule of a stored date column (`dateFromNumber`: 0 to 5373484.5 is a Julian day).
                return Date(timeIntervalSince1970: try readDouble(at: i))
            }
            guard tokens[i].kind == JSONKind.string else { throw mismatch(String.self, at: i) }
            guard let date = parseSQLiteDate(bytes(at: i)) else {
                throw corrupted("Expected a date as text yyyy-MM-dd HH:mm:ss.SSS (UTC), found \"\(string(at: i))\"", at: i)
            }
            return date
        case .deferredToDate:
            return try nested { current = i; return try Date(from: self) }
        case .secondsSince1970:
            return Date(timeIntervalSince1970: try readDouble(at: i))
        case .millisecondsSince1970:
            return Date(timeIntervalSince1970: try readDouble(at: i) / 1000.0)
        case .iso8601:
            let s = try readString(at: i)
            guard let date = try? Date.ISO8601FormatStyle().parse(s) else {
                throw corrupted("Expected date string to be ISO8601-formatted.", at: i)
            }
            return date
        case .formatted(let formatter):
            let s = try readString(at: i)
            guard let date = formatter.date(from: s) else {
                throw corrupted("Date string does not match format expected by formatter.", at: i)
            }
            return date
        case .custom(let body):
            return try nested { current = i; return try body(self) }
        }
    }

    func readData(at i: Int) throws -> Data {
        if tokens[i].kind == JSONKind.null { throw mismatch(Data.self, at: i) }
        switch options.data {
        case .base64:
            guard tokens[i].kind == JSONKind.string else { throw mismatch(String.self, at: i) }
            guard let data = Data(base64Encoded: string(at: i)) else {
                throw corrupted("Encountered Data is not valid Base64.", at: i)
            }
            return data
        case .deferredToData:
            return try nested { current = i; return try Data(from: self) }
        case .custom(let body):
            return try nested { current = i; return try body(self) }
        }
    }

    func readURL(at i: Int) throws -> URL {
        if tokens[i].kind == JSONKind.null { throw mismatch(URL.self, at: i) }
        let s = try readString(at: i)
        guard let url = URL(string: s) else { throw corrupted("Invalid URL string.", at: i) }
        return url
    }

    func readDecimal(at i: Int) throws -> Decimal {
        guard tokens[i].kind == JSONKind.number else { throw mismatch(Decimal.self, at: i) }
        guard let d = Decimal(string: String(decoding: bytes(at: i), as: UTF8.self)) else {
            throw notRepresentable(Decimal.self, at: i)
        }
        return d
    }

}

private let powersOfTen: [Double] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
    1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
]

extension FixedWidthInteger {
    /// `JSONDecoder`'s Decimal → integer conversion: exact, so nil for a number with a
    /// fraction (`9223372036854775807.5`) as for one that does not fit.
    init?(jsonDecimal decimal: Decimal) {
        guard decimal.isFinite else { return nil }
        // The description is plain digits ("-12345678901234567.5", no exponent).
        let text = decimal.description
        let parts = text.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        if parts.count == 2 && parts[1].contains(where: { $0 != "0" }) { return nil }
        let integral = parts[0]
        if integral == "-0" { self = 0; return }
        guard let v = Self(integral) else { return nil }
        self = v
    }
}

// MARK: - Objects being read

/// The object a ``JSONKeyedContainer`` reads (raw memory owned by the decoder).
struct JSONObjectFrame {
    var object: Int
    var end: Int
    let depth: Int
    /// The decoder's ``JSONTapeDecoder/generation`` when the frame was pointed at its object.
    var generation: UInt64 = 0
    /// The names of a one-byte key type's keys, by byte (`count` -1: not seen yet).
    var names: UnsafeMutablePointer<JSONKeyName>?

    init(object: Int, end: Int, depth: Int) {
        self.object = object
        self.end = end
        self.depth = depth
    }

    mutating func makeNames() -> UnsafeMutablePointer<JSONKeyName> {
        let n = UnsafeMutablePointer<JSONKeyName>.allocate(capacity: 256)
        n.initialize(repeating: JSONKeyName(), count: 256)
        names = n
        return n
    }

    /// Frees the names (the frame's memory is the caller's).
    func freeNames() {
        guard let names else { return }
        for i in 0..<256 where names[i].count > 0 { names[i].bytes.deallocate() }
        names.deallocate()
    }
}

/// A key's UTF-8 bytes.
struct JSONKeyName {
    var bytes: UnsafeMutablePointer<UInt8>
    var count: Int
    init() {
        bytes = UnsafeMutablePointer(bitPattern: 1)!
        count = -1
    }
    init(_ s: String) {
        let utf8 = Array(s.utf8)
        count = utf8.count
        bytes = .allocate(capacity: max(count, 1))
        bytes.initialize(from: utf8, count: count)
    }
}

// MARK: - Keyed container

struct JSONKeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    /// Unretained, as the frame: the container is plain data, copied without reference
    /// counting (see ``JSONTapeDecoder/keyedContainer(_:object:end:)``).
    let unmanagedDecoder: Unmanaged<JSONTapeDecoder>
    /// The object read (reused for the next object of the same type at the same depth
    /// once no copy of this container is left).
    let frame: UnsafeMutablePointer<JSONObjectFrame>

    init(decoder: Unmanaged<JSONTapeDecoder>, frame: UnsafeMutablePointer<JSONObjectFrame>) {
        unmanagedDecoder = decoder
        self.frame = frame
    }

    /// The decoder, retained (cold paths).
    var decoder: JSONTapeDecoder { unmanagedDecoder.takeUnretainedValue() }
    /// Runs `body` with the decoder, not retained (the hot paths).
    @inline(__always) func with<R>(_ body: (JSONTapeDecoder) throws -> R) rethrows -> R {
        try unmanagedDecoder._withUnsafeGuaranteedRef(body)
    }
    @inline(__always) var object: Int { frame.pointee.object }
    @inline(__always) var end: Int { frame.pointee.end }
    @inline(__always) var depth: Int { frame.pointee.depth }

    var codingPath: [any CodingKey] { decoder.path(to: object) }

    @inline(__always) func value(_ key: Key) throws -> Int {
        let f = frame
        try checkAlive()
        if let v = with({ $0.find(key, in: f, consume: true) }) { return v }
        throw keyNotFound(key)
    }

    /// Throws when the container outlived its value's tokens (a streamed element).
    @inline(__always) func checkAlive() throws {
        if _slowPath(frame.pointee.generation != with({ $0.generation })) { throw decoder.expiredError() }
    }

    func keyNotFound(_ key: Key) -> DecodingError {
        DecodingError.keyNotFound(key, .init(
            codingPath: codingPath,
            debugDescription: "No value associated with key \(key) (\"\(key.stringValue)\") in the object at \(decoder.location(of: object))"))
    }

    var allKeys: [Key] {
        var seen = Set<String>()
        var keys: [Key] = []
        var j = object + 1
        while j < end {
            let s = decoder.keyString(at: j, in: codingPath)
            if seen.insert(s).inserted, let k = Key(stringValue: s) { keys.append(k) }
            j = decoder.next(j + 1)
        }
        return keys
    }

    func contains(_ key: Key) -> Bool {
        guard (try? checkAlive()) != nil else { return false }
        return decoder.find(key, in: frame, consume: false) != nil
    }

    func decodeNil(forKey key: Key) throws -> Bool {
        try checkAlive()
        guard let v = decoder.find(key, in: frame, consume: false) else { throw keyNotFound(key) }
        return decoder.tokens[v].kind == JSONKind.null
    }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { let v = try value(key); return try with { try $0.readBool(at: v) } }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { let v = try value(key); return try with { try $0.readString(at: v) } }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { let v = try value(key); return try with { try $0.readDouble(at: v) } }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { let v = try value(key); return try with { try $0.readFloat(at: v) } }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { let v = try value(key); return try with { try $0.readInteger(type, at: v) } }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { let v = try value(key); return try with { try $0.readInteger(type, at: v) } }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { let v = try value(key); return try with { try $0.readInteger(type, at: v) } }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { let v = try value(key); return try with { try $0.readInteger(type, at: v) } }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { let v = try value(key); return try with { try $0.readInteger(type, at: v) } }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { let v = try value(key); return try with { try $0.readInteger(type, at: v) } }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { let v = try value(key); return try with { try $0.readInteger(type, at: v) } }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { let v = try value(key); return try with { try $0.readInteger(type, at: v) } }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { let v = try value(key); return try with { try $0.readInteger(type, at: v) } }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { let v = try value(key); return try with { try $0.readInteger(type, at: v) } }
    func decode(_ type: Int128.Type, forKey key: Key) throws -> Int128 { let v = try value(key); return try with { try $0.readInteger(type, at: v) } }
    func decode(_ type: UInt128.Type, forKey key: Key) throws -> UInt128 { let v = try value(key); return try with { try $0.readInteger(type, at: v) } }
    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        let v = try value(key)
        return try with { try $0.unwrap(type, at: v) }
    }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        try optional(key) { try $0.unwrap(type, at: $1) }
    }

    /// The value of `key` read by `read`, nil when the key is missing or its value is null:
    /// one lookup (the protocol's default `decodeIfPresent` makes three: `contains`,
    /// `decodeNil`, `decode`).
    @inline(__always) func optional<T>(_ key: Key, _ read: (JSONTapeDecoder, Int) throws -> T) throws -> T? {
        let f = frame
        try checkAlive()
        guard let v = with({ $0.find(key, in: f, consume: true) }) else { return nil }
        return try with { d in d.tokens[v].kind == JSONKind.null ? nil : try read(d, v) }
    }

    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? { try optional(key) { try $0.readBool(at: $1) } }
    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? { try optional(key) { try $0.readString(at: $1) } }
    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? { try optional(key) { try $0.readDouble(at: $1) } }
    func decodeIfPresent(_ type: Float.Type, forKey key: Key) throws -> Float? { try optional(key) { try $0.readFloat(at: $1) } }
    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? { try optional(key) { try $0.readInteger(type, at: $1) } }
    func decodeIfPresent(_ type: Int8.Type, forKey key: Key) throws -> Int8? { try optional(key) { try $0.readInteger(type, at: $1) } }
    func decodeIfPresent(_ type: Int16.Type, forKey key: Key) throws -> Int16? { try optional(key) { try $0.readInteger(type, at: $1) } }
    func decodeIfPresent(_ type: Int32.Type, forKey key: Key) throws -> Int32? { try optional(key) { try $0.readInteger(type, at: $1) } }
    func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? { try optional(key) { try $0.readInteger(type, at: $1) } }
    func decodeIfPresent(_ type: UInt.Type, forKey key: Key) throws -> UInt? { try optional(key) { try $0.readInteger(type, at: $1) } }
    func decodeIfPresent(_ type: UInt8.Type, forKey key: Key) throws -> UInt8? { try optional(key) { try $0.readInteger(type, at: $1) } }
    func decodeIfPresent(_ type: UInt16.Type, forKey key: Key) throws -> UInt16? { try optional(key) { try $0.readInteger(type, at: $1) } }
    func decodeIfPresent(_ type: UInt32.Type, forKey key: Key) throws -> UInt32? { try optional(key) { try $0.readInteger(type, at: $1) } }
    func decodeIfPresent(_ type: UInt64.Type, forKey key: Key) throws -> UInt64? { try optional(key) { try $0.readInteger(type, at: $1) } }
    func decodeIfPresent(_ type: Int128.Type, forKey key: Key) throws -> Int128? { try optional(key) { try $0.readInteger(type, at: $1) } }
    func decodeIfPresent(_ type: UInt128.Type, forKey key: Key) throws -> UInt128? { try optional(key) { try $0.readInteger(type, at: $1) } }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        let v = try value(key)
        return try decoder.nested { decoder.current = v; return try decoder.container(keyedBy: type) }
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        let v = try value(key)
        return try decoder.nested { decoder.current = v; return try decoder.unkeyedContainer() }
    }

    func superDecoder() throws -> any Decoder { superDecoder(JSONStringKey("super")) }
    func superDecoder(forKey key: Key) throws -> any Decoder { superDecoder(key) }

    /// A decoder for the key's value, or for `null` when the key is missing (as `JSONDecoder`).
    private func superDecoder(_ key: some CodingKey) -> any Decoder {
        let v = decoder.find(key, in: frame, consume: false)
        return decoder.decoder(for: v ?? -1, path: codingPath + [key])
    }
}

// MARK: - Keyed container keeping its decoder

/// A ``JSONKeyedContainer`` that keeps its decoder (and so its frame) alive: for
/// containers handed out by decoders nobody else keeps (see ``JSONTapeDecoder/cachesContainers``).
struct JSONRetainingKeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let base: JSONKeyedContainer<Key>
    let owner: JSONTapeDecoder

    var codingPath: [any CodingKey] { base.codingPath }
    var allKeys: [Key] { base.allKeys }
    func contains(_ key: Key) -> Bool { base.contains(key) }
    func decodeNil(forKey key: Key) throws -> Bool { try base.decodeNil(forKey: key) }
    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try base.decode(type, forKey: key) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try base.decode(type, forKey: key) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try base.decode(type, forKey: key) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try base.decode(type, forKey: key) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try base.decode(type, forKey: key) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try base.decode(type, forKey: key) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try base.decode(type, forKey: key) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try base.decode(type, forKey: key) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try base.decode(type, forKey: key) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try base.decode(type, forKey: key) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try base.decode(type, forKey: key) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try base.decode(type, forKey: key) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try base.decode(type, forKey: key) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try base.decode(type, forKey: key) }
    func decode(_ type: Int128.Type, forKey key: Key) throws -> Int128 { try base.decode(type, forKey: key) }
    func decode(_ type: UInt128.Type, forKey key: Key) throws -> UInt128 { try base.decode(type, forKey: key) }
    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T { try base.decode(type, forKey: key) }
    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? { try base.decodeIfPresent(type, forKey: key) }
    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        try base.nestedContainer(keyedBy: type, forKey: key)
    }
    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer { try base.nestedUnkeyedContainer(forKey: key) }
    func superDecoder() throws -> any Decoder { try base.superDecoder() }
    func superDecoder(forKey key: Key) throws -> any Decoder { try base.superDecoder(forKey: key) }
}

// MARK: - Unkeyed container

struct JSONUnkeyedContainer: UnkeyedDecodingContainer {
    let decoder: JSONTapeDecoder
    let array: Int
    let end: Int
    /// The token of the next element.
    var position: Int
    var currentIndex = 0
    /// The decoder's generation when the container was made (see ``JSONTapeDecoder/advanceGeneration()``).
    let generation: UInt64

    init(decoder: JSONTapeDecoder, array: Int, end: Int) {
        self.decoder = decoder
        self.array = array
        self.end = end
        position = array + 1
        generation = decoder.generation
    }

    /// Whether the array's tokens are still on the tape.
    @inline(__always) var alive: Bool { decoder.generation == generation }

    var codingPath: [any CodingKey] { decoder.path(to: array) }

    var count: Int? {
        guard alive else { return nil }
        var n = 0
        var j = array + 1
        while j < end { n += 1; j = decoder.next(j) }
        return n
    }

    /// False once expired, so that the next read throws rather than a loop ending early.
    var isAtEnd: Bool { alive && position >= end }

    @inline(__always) func element<T>(_ type: T.Type) throws -> Int {
        if _slowPath(!alive) { throw decoder.expiredError() }
        guard position < end else {
            throw DecodingError.valueNotFound(T.self, .init(
                codingPath: codingPath + [JSONIndexKey(index: currentIndex)], debugDescription: "Unkeyed container is at end."))
        }
        return position
    }

    @inline(__always) mutating func advance() {
        position = decoder.next(position)
        currentIndex += 1
    }

    @inline(__always) mutating func read<T>(_ type: T.Type, _ body: (JSONTapeDecoder, Int, JSONIndexKey) throws -> T) throws -> T {
        let i = try element(T.self)
        let value = try body(decoder, i, JSONIndexKey(index: currentIndex))
        advance()
        return value
    }

    mutating func decodeNil() throws -> Bool {
        let i = try element((Any?).self)
        if decoder.tokens[i].kind == JSONKind.null { advance(); return true }
        return false
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool { try read(type) { d, i, k in try d.readBool(at: i) } }
    mutating func decode(_ type: String.Type) throws -> String { try read(type) { d, i, k in try d.readString(at: i) } }
    mutating func decode(_ type: Double.Type) throws -> Double { try read(type) { d, i, k in try d.readDouble(at: i) } }
    mutating func decode(_ type: Float.Type) throws -> Float { try read(type) { d, i, k in try d.readFloat(at: i) } }
    mutating func decode(_ type: Int.Type) throws -> Int { try read(type) { d, i, k in try d.readInteger(type, at: i) } }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try read(type) { d, i, k in try d.readInteger(type, at: i) } }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try read(type) { d, i, k in try d.readInteger(type, at: i) } }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try read(type) { d, i, k in try d.readInteger(type, at: i) } }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try read(type) { d, i, k in try d.readInteger(type, at: i) } }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try read(type) { d, i, k in try d.readInteger(type, at: i) } }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try read(type) { d, i, k in try d.readInteger(type, at: i) } }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try read(type) { d, i, k in try d.readInteger(type, at: i) } }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try read(type) { d, i, k in try d.readInteger(type, at: i) } }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try read(type) { d, i, k in try d.readInteger(type, at: i) } }
    mutating func decode(_ type: Int128.Type) throws -> Int128 { try read(type) { d, i, k in try d.readInteger(type, at: i) } }
    mutating func decode(_ type: UInt128.Type) throws -> UInt128 { try read(type) { d, i, k in try d.readInteger(type, at: i) } }
    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { try read(type) { d, i, k in try d.unwrap(type, at: i) } }

    mutating func decodeIfPresent<T: Decodable>(_ type: T.Type) throws -> T? {
        if _slowPath(!alive) { throw decoder.expiredError() }
        guard position < end else { return nil }
        if decoder.tokens[position].kind == JSONKind.null { advance(); return nil }
        return try decode(T.self)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        try read(KeyedDecodingContainer<NestedKey>.self) { d, i, key in
            try d.nested { d.current = i; return try d.container(keyedBy: type) }
        }
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try read((any UnkeyedDecodingContainer).self) { d, i, key in
            try d.nested { d.current = i; return try d.unkeyedContainer() }
        }
    }

    mutating func superDecoder() throws -> any Decoder {
        let path = codingPath
        return try read((any Decoder).self) { d, i, key in d.decoder(for: i, path: path + [key]) }
    }
}

// MARK: - Single value container

struct JSONSingleValueContainer: SingleValueDecodingContainer {
    let decoder: JSONTapeDecoder
    /// The value's token, -1 for a missing value (a `superDecoder` of a missing key reads as null).
    let index: Int
    /// The decoder's generation when the container was made (see ``JSONTapeDecoder/advanceGeneration()``).
    let generation: UInt64

    init(decoder: JSONTapeDecoder, index: Int) {
        self.decoder = decoder
        self.index = index
        generation = decoder.generation
    }

    var codingPath: [any CodingKey] { index >= 0 ? decoder.path(to: index) : decoder.basePath }

    @inline(__always) func read<T>(_ body: (Int) throws -> T) throws -> T {
        if _slowPath(decoder.generation != generation) { throw decoder.expiredError() }
        guard index >= 0 else { throw decoder.missingValue(T.self) }
        return try body(index)
    }
    private var none: JSONStringKey? { nil }

    /// False once expired, so that the next read throws.
    func decodeNil() -> Bool {
        guard decoder.generation == generation else { return false }
        return index < 0 || decoder.tokens[index].kind == JSONKind.null
    }
    func decode(_ type: Bool.Type) throws -> Bool { try read { try decoder.readBool(at: $0) } }
    func decode(_ type: String.Type) throws -> String { try read { try decoder.readString(at: $0) } }
    func decode(_ type: Double.Type) throws -> Double { try read { try decoder.readDouble(at: $0) } }
    func decode(_ type: Float.Type) throws -> Float { try read { try decoder.readFloat(at: $0) } }
    func decode(_ type: Int.Type) throws -> Int { try read { try decoder.readInteger(type, at: $0) } }
    func decode(_ type: Int8.Type) throws -> Int8 { try read { try decoder.readInteger(type, at: $0) } }
    func decode(_ type: Int16.Type) throws -> Int16 { try read { try decoder.readInteger(type, at: $0) } }
    func decode(_ type: Int32.Type) throws -> Int32 { try read { try decoder.readInteger(type, at: $0) } }
    func decode(_ type: Int64.Type) throws -> Int64 { try read { try decoder.readInteger(type, at: $0) } }
    func decode(_ type: UInt.Type) throws -> UInt { try read { try decoder.readInteger(type, at: $0) } }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try read { try decoder.readInteger(type, at: $0) } }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try read { try decoder.readInteger(type, at: $0) } }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try read { try decoder.readInteger(type, at: $0) } }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try read { try decoder.readInteger(type, at: $0) } }
    func decode(_ type: Int128.Type) throws -> Int128 { try read { try decoder.readInteger(type, at: $0) } }
    func decode(_ type: UInt128.Type) throws -> UInt128 { try read { try decoder.readInteger(type, at: $0) } }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try read { try decoder.unwrap(type, at: $0) } }
}

// MARK: - Per-type plans

/// How the decoder reads values of one type, found once per type and decoder (kept in
/// a ``TypeTable``, see ``JSONTapeDecoder/plan(for:)``).
struct JSONTypePlan: TypePlan {
    /// A ``JSONDecodable`` type: `init(json:)`.
    var hand: (any JSONDecodable.Type)?
    /// `[Element]`: the elements straight from the tape, into an array of the right size.
    var array: (any JSONArrayDecodable.Type)?
    /// `[String: Value]`: the members straight from the tape.
    var dictionary: (any JSONStringDictionaryDecodable.Type)?
    /// `[Int: Value]`: the members straight from the tape (without a key strategy).
    var intDictionary: (any JSONIntDictionaryDecodable.Type)?

    init() {}

    init<T>(_ type: T.Type) {
        hand = T.self as? any JSONDecodable.Type
        array = T.self as? any JSONArrayDecodable.Type
        dictionary = T.self as? any JSONStringDictionaryDecodable.Type
        intDictionary = T.self as? any JSONIntDictionaryDecodable.Type
    }

    /// Whether `init(from:)` is not called for these values (`[Int: V]`: unless a key
    /// strategy applies to its keys).
    var readsDirectly: Bool { hand != nil || array != nil || dictionary != nil || intDictionary != nil }
}

extension JSONTapeDecoder {
    /// The plan of `T` (made on first use).
    @inline(__always)
    func plan<T>(for type: T.Type) -> JSONTypePlan {
        plans.entry(for: T.self).pointee.plan
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

/// `D`'s members from the tape as a `T` known to be `D` (opened from a ``JSONTypePlan``).
func decodeIntDictionaryOpened<D: JSONIntDictionaryDecodable, T>(_ dictionary: D.Type, as type: T.Type, _ decoder: JSONTapeDecoder, at i: Int) throws -> T {
    unsafeBitCast(try D.decodeIntKeyed(from: decoder, at: i), to: T.self)
}

// MARK: - [Int: V]

/// `[Int: V]` read member by member from the tape, as `Dictionary.init(from:)` reads it (a
/// key is `Int(name)`, else a `typeMismatch`), with coding paths inside naming each key
/// with its `intValue`, as `JSONDecoder`'s do. Two members for one number (`"1"` and `"01"`,
/// or `"1"` twice): the first, as for every duplicate key (`JSONDecoder` takes them in its
/// dictionary's hash order: its answer changes from one process to the next).
protocol JSONIntDictionaryDecodable {
    static func decodeIntKeyed(from decoder: JSONTapeDecoder, at index: Int) throws -> Self
}

extension Dictionary: JSONIntDictionaryDecodable where Key == Int, Value: Decodable {
    static func decodeIntKeyed(from decoder: JSONTapeDecoder, at index: Int) throws -> Self {
        try decoder.decodeMembers(Self.self, at: index, marking: \.intKeyObjects) { name in
            guard let key = Int(name) else {
                throw DecodingError.typeMismatch(Int.self, .init(
                    codingPath: decoder.path(to: index) + [JSONIntDictionaryKey(name, nil)],
                    debugDescription: "Expected Int key but found String key instead."))
            }
            return key
        }
    }
}

extension JSONTapeDecoder {
    /// A dictionary read member by member from the object at token `index` (anything else:
    /// `Dictionary.init(from:)`'s own error, null or another kind of value): each member's
    /// key made by `key` from its name, every value decoded, the first of equal keys kept.
    /// `marking`, when given, lists the object while its members are decoded (how coding
    /// paths inside name its keys, see ``path(to:)``).
    @inline(__always)
    func decodeMembers<K: Hashable & Decodable, V: Decodable>(
        _ type: [K: V].Type, at index: Int, marking marks: ReferenceWritableKeyPath<JSONTapeDecoder, [Int]>?,
        key: (String) throws -> K
    ) throws -> [K: V] {
        let t = tokens[index]
        guard t.kind == JSONKind.object else {
            current = index
            return try [K: V](from: self)
        }
        var result: [K: V] = [:]
        var j = index + 1
        let end = Int(t.length)
        if let marks { self[keyPath: marks].append(index) }
        defer { if let marks { self[keyPath: marks].removeLast() } }
        while j < end {
            let k = try key(string(at: j))
            let value = try unwrap(V.self, at: j + 1)
            if result[k] == nil { result[k] = value }
            j = next(j + 1)
        }
        return result
    }
}

// MARK: - [String: V]

/// `[String: V]` read member by member from the tape (what `Dictionary.init(from:)` does
/// through a keyed container, without its `allKeys` array, casts and lookups); its keys
/// are kept as they are under every key strategy (as `JSONDecoder` does).
/// Duplicate keys: the first wins; keys are compared as `String`s. Coding paths inside (of
/// errors, given to a custom key strategy) name the key as written, as `JSONDecoder`'s do.
protocol JSONStringDictionaryDecodable {
    static func decodeKeepingKeys(from decoder: JSONTapeDecoder, at index: Int) throws -> Self
}

extension Dictionary: JSONStringDictionaryDecodable where Key == String, Value: Decodable {
    static func decodeKeepingKeys(from decoder: JSONTapeDecoder, at index: Int) throws -> Self {
        // Coding paths inside name this object's keys as the document has them.
        try decoder.decodeMembers(Self.self, at: index, marking: decoder.options.keys.converts ? \.rawKeyObjects : nil) { $0 }
    }
}

// MARK: - [Element]

/// `[Element]` read by the decoders themselves: element by element from a
/// ``JSONElementReader`` (a top-level array decoded one element at a time), or from the
/// tape: the elements counted first (an array of that size, no growing), then each decoded
/// as `Array.init(from:)` would through an unkeyed container.
protocol JSONArrayDecodable {
    static func decodeElements(_ reader: JSONElementReader) throws -> Self
    static func decodeArray(from decoder: JSONTapeDecoder, at index: Int) throws -> Self
}

extension Array: JSONArrayDecodable where Element: Decodable {
    static func decodeElements(_ reader: JSONElementReader) throws -> [Element] {
        if let hand = Element.self as? any JSONDecodable.Type {
            // `init(json:)` straight from the reader: no `unwrap` dispatch per element.
            return try decodeHandWritten(hand, reader)
        }
        if !reader.decoder.readsItself(Element.self) {
            // A type read by its `init(from:)`: called straight, without `unwrap`'s checks per element.
            return try collectElements(reader) { try reader.decodePlain(Element.self) }
        }
        return try collectElements(reader) { try reader.decode(Element.self) }
    }

    private static func decodeHandWritten<H: JSONDecodable>(_ hand: H.Type, _ reader: JSONElementReader) throws -> [Element] {
        let values: [H] = try collectElements(reader) { try reader.decodeHandWritten(H.self) }
        return unsafeBitCast(values, to: [Element].self)
    }
}

extension Array where Element: Decodable {
    static func decodeArray(from decoder: JSONTapeDecoder, at index: Int) throws -> [Element] {
        let t = decoder.tokens[index]
        guard t.kind == JSONKind.array else {
            // `Array.init(from:)`'s own error (null, another kind of value).
            decoder.current = index
            return try Self(from: decoder)
        }
        let end = Int(t.length)
        var count = 0
        var j = index &+ 1
        while j < end {
            count &+= 1
            j = decoder.next(j)
        }
        // An empty array without `unsafeUninitializedCapacity`: with capacity 0 it writes the
        // count into the standard library's shared empty-array storage (a race under TSan).
        guard count > 0 else { return [] }
        return try [Element](unsafeUninitializedCapacity: count) { buffer, initialized in
            var j = index &+ 1
            while initialized < count {
                (buffer.baseAddress.unsafelyUnwrapped + initialized).initialize(to: try decoder.unwrap(Element.self, at: j))
                initialized &+= 1
                j = decoder.next(j)
            }
        }
    }
}

/// The values of a ``JSONElementReader``, each made by `one`, collected into a buffer
/// of their own and made an array once at the end: this code is not specialized for
/// `E`, and `Array.append` there looked up the array's generic metadata for every
/// element (a third of decoding a small struct).
func collectElements<E>(_ reader: JSONElementReader, _ one: () throws -> E) throws -> [E] {
    var capacity = 16
    var count = 0
    var buffer = UnsafeMutablePointer<E>.allocate(capacity: capacity)
    defer {
        buffer.deinitialize(count: count)
        buffer.deallocate()
    }
    loop: while true {
        switch try reader.step() {
        case .value:
            if count == capacity { buffer.doubleCapacity(&capacity, count: count) }
            (buffer + count).initialize(to: try one())
            count += 1
        case .end: break loop
        case .needInput: if try reader.finish() == .end { break loop }
        }
    }
    let n = count
    guard n > 0 else { return [] }
    let result = [E](unsafeUninitializedCapacity: n) { target, initialized in
        target.baseAddress!.moveInitialize(from: buffer, count: n)
        initialized = n
    }
    count = 0
    return result
}
