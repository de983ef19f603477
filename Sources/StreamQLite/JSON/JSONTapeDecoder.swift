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
    let handWrittenTable: UnsafeMutablePointer<JSONTypePlan>
    static let handWrittenSlots = 32

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
        handWrittenTable = .allocate(capacity: Self.handWrittenSlots)
        handWrittenTable.initialize(repeating: JSONTypePlan(), count: Self.handWrittenSlots)
    }

    deinit {
        ownedInput?.deallocate()
        handWrittenTable.deinitialize(count: Self.handWrittenSlots)
        handWrittenTable.deallocate()
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
    /// points the decoder at it. Trailing commas are accepted, as `JSONDecoder` accepts them.
    func parse(_ bytes: UnsafeRawBufferPointer, options: JSONValueDecoder.Options) throws {
        do {
            try tape.parse(bytes, trailingCommas: true)
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
        return "line \(mark.line), column \(o - mark.lineStart + 1), byte offset \(o)"
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
                        result.append(JSONStringKey(rawKeyObjects.contains(i) ? string(at: j) : keyString(at: j, in: result)))
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
