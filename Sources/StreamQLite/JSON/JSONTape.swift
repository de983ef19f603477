import CStreamQLite
import Foundation

/// One token of a ``JSONTape``: 16 bytes, no references.
///
/// - Strings and keys: `position` is the offset of their first content byte in
///   the document (the text has no escapes), or with ``JSONTape/arenaFlag`` its
///   offset in the tape's arena, where the parser's unescaped text was copied
///   (escaped strings, and tokens the parser had to carry across chunks); the
///   8 bytes before an arena text hold the token's document offset.
///   `length` is the text's byte length.
/// - Numbers: the literal as in the input (`position`/`length`, or in the arena).
/// - `null`, `true`, `false`: `position` is the document offset.
/// - Objects and arrays: `position` is the offset of the bracket, `length` the
///   index of the token after the container's last one (its end tokens are not
///   stored): a whole subtree is skipped in one step. An object's tokens are
///   key, value, key, value …
struct JSONToken {
    var position: UInt64
    var length: UInt32
    var kind: UInt8
    var flags: UInt8
    var reserved: UInt16 = 0
}

/// A flat record of a JSON document's tokens, filled by the C parser's callback.
///
/// No tree, no dictionaries: the decoder walks the tape, finds keys by scanning
/// an object's tokens and skips subtrees by their end index. Memory is the
/// tokens (16 bytes each) plus an arena holding only escaped strings.
final class JSONTape {
    static let arenaFlag: UInt8 = 0x80

    /// Parser state reached from the C callback through a raw pointer (no ARC in the callback).
    struct State {
        var tokens: UnsafeMutablePointer<JSONToken>
        var count = 0
        var capacity: Int
        var arena: UnsafeMutablePointer<UInt8>
        var arenaCount = 0
        var arenaCapacity: Int
        /// Open containers' token indices (depth ≤ SQ_JSON_MAX_DEPTH).
        var stack: UnsafeMutablePointer<UInt32>
        var depth = 0
        /// The bytes being fed to the parser: text pointers inside are stored as offsets.
        var inputStart: UnsafeRawPointer?
        var inputEnd: UnsafeRawPointer?
        /// The input offset of `inputStart` (streaming: the reader's window starts later
        /// in the input). Token positions are input offsets.
        var base: UInt64 = 0
        /// Set when the tape cannot grow (more than 2³² tokens or out of memory): the callback aborts.
        var overflow = false
        /// Streaming: pause the parser after a value at this depth completes (-1: never).
        var pauseDepth: Int32 = -1
        /// Streaming: values completed at `pauseDepth` since the last reset.
        var completed = 0
        /// Streaming: the input offset of the first token on the tape.
        var firstOffset: UInt64 = 0
        /// Streaming: how the values to return are found (see ``JSONElementReader``).
        var stream: StreamState?
        /// Streaming: `stream.phase`, kept apart so the callback reads it without touching `stream`.
        var phase = StreamState.Phase.seeking
    }

    /// Streaming: where the parser is relative to the values to return.
    struct StreamState {
        enum Phase { case seeking, inside, after }
        var phase: Phase
        /// `.arrayAt` path (empty: the top-level array); nil for NDJSON.
        var path: [[UInt8]]?
        /// Per container depth while seeking: whether it is an object, and its current key.
        var isObject: [Bool] = []
        var keys: [[UInt8]] = []
        /// The top-level value is not an array (array layout), or the path leads nowhere.
        var failure: String?
    }

    let state: UnsafeMutablePointer<State>
    let parser: OpaquePointer

    /// A tape for whole documents, or with `streaming` for ``JSONElementReader``
    /// (`multiple`: NDJSON, several top-level values).
    init(streaming: Bool = false, multiple: Bool = false) throws {
        state = .allocate(capacity: 1)
        state.initialize(to: State(
            tokens: .allocate(capacity: 256), capacity: 256,
            arena: .allocate(capacity: 256), arenaCapacity: 256,
            stack: .allocate(capacity: Int(SQ_JSON_MAX_DEPTH) + 2)))
        guard let p = sq_json_new(streaming ? JSONTape.streamCallback : JSONTape.callback, UnsafeMutableRawPointer(state)) else {
            state.pointee.tokens.deallocate(); state.pointee.arena.deallocate(); state.pointee.stack.deallocate()
            state.deinitialize(count: 1)
            state.deallocate()
            throw JSONParseFailure(code: Int32(SQ_JSON_E_NOMEM.rawValue), message: "out of memory", offset: 0, line: 1, column: 1)
        }
        parser = p
        if multiple { sq_json_set_options(p, UInt32(SQ_JSON_OPT_MULTIPLE)) }
    }

    deinit {
        sq_json_free(parser)
        state.pointee.tokens.deallocate()
        state.pointee.arena.deallocate()
        state.pointee.stack.deallocate()
        state.deinitialize(count: 1)
        state.deallocate()
    }

    var tokens: UnsafeMutablePointer<JSONToken> { state.pointee.tokens }
    var count: Int { state.pointee.count }
    var arena: UnsafeMutablePointer<UInt8> { state.pointee.arena }

    /// Parses one whole document (a single JSON value) held in `bytes` onto the tape.
    func parse(_ bytes: UnsafeRawBufferPointer) throws {
        sq_json_reset(parser)
        reset()
        state.pointee.base = 0
        let start = bytes.baseAddress ?? UnsafeRawPointer(bitPattern: 1)!
        state.pointee.inputStart = start
        state.pointee.inputEnd = start + bytes.count
        var rc = sq_json_feed(parser, start, bytes.count)
        if rc != SQ_JSON_ERROR { rc = sq_json_finish(parser) }
        if rc == SQ_JSON_ERROR { throw failure() }
    }

    /// Empties the tape (keeps its memory).
    func reset() {
        state.pointee.count = 0
        state.pointee.arenaCount = 0
        state.pointee.depth = 0
        state.pointee.overflow = false
        state.pointee.completed = 0
    }

    /// Streaming: the values at `depth` are returned one at a time (see ``JSONElementReader``).
    func configureStreaming(_ stream: StreamState, depth: Int32) {
        state.pointee.stream = stream
        state.pointee.phase = stream.phase
        state.pointee.pauseDepth = depth
    }

    /// The parser's error (or the tape's own overflow) as a ``JSONParseFailure``.
    func failure() -> JSONParseFailure {
        let info = sq_json_error_info(parser)!.pointee
        if state.pointee.overflow {
            return JSONParseFailure(code: Int32(SQ_JSON_E_TOO_LONG.rawValue), message: "document too large (more than 4294967295 tokens) or out of memory",
                                    offset: Int(info.offset), line: Int(info.line), column: Int(info.column))
        }
        let message = withUnsafeBytes(of: info.message) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        return JSONParseFailure(code: info.code, message: message, offset: Int(info.offset), line: Int(info.line), column: Int(info.column))
    }

    // MARK: The parser callback

    static let callback: sq_json_callback = { user, token in
        let s = user.unsafelyUnwrapped.assumingMemoryBound(to: State.self)
        return JSONTape.add(s, token.unsafelyUnwrapped)
    }

    @inline(__always)
    static func add(_ s: UnsafeMutablePointer<State>, _ t: UnsafePointer<sq_json_token>) -> Int32 {
        let type = t.pointee.type
        if type == Int32(SQ_JSON_END_OBJECT.rawValue) || type == Int32(SQ_JSON_END_ARRAY.rawValue) {
            let d = s.pointee.depth &- 1
            s.pointee.depth = d
            s.pointee.tokens[Int(s.pointee.stack[d])].length = UInt32(truncatingIfNeeded: s.pointee.count)
            if t.pointee.depth == s.pointee.pauseDepth { s.pointee.completed &+= 1; return SQ_JSON_PAUSE }
            return SQ_JSON_CONTINUE
        }
        var n = s.pointee.count
        if _slowPath(n == s.pointee.capacity) {
            guard grow(s) else { s.pointee.overflow = true; return 2 /* abort */ }
        }
        let offset = t.pointee.offset
        if n == 0 { s.pointee.firstOffset = offset }
        let token = s.pointee.tokens + n
        switch type {
        case Int32(SQ_JSON_BEGIN_OBJECT.rawValue), Int32(SQ_JSON_BEGIN_ARRAY.rawValue):
            token.initialize(to: JSONToken(position: offset, length: 0, kind: UInt8(truncatingIfNeeded: type), flags: 0))
            s.pointee.stack[s.pointee.depth] = UInt32(truncatingIfNeeded: n)
            s.pointee.depth &+= 1
            n &+= 1
            s.pointee.count = n
            return SQ_JSON_CONTINUE
        case Int32(SQ_JSON_STRING.rawValue), Int32(SQ_JSON_KEY.rawValue), Int32(SQ_JSON_NUMBER.rawValue):
            let text = UnsafeRawPointer(t.pointee.text) ?? UnsafeRawPointer(bitPattern: 1)!
            let len = t.pointee.len
            guard len <= Int(UInt32.max) else { s.pointee.overflow = true; return 2 }
            let flags = UInt8(truncatingIfNeeded: t.pointee.flags)
            if let start = s.pointee.inputStart, text >= start && text < s.pointee.inputEnd.unsafelyUnwrapped {
                token.initialize(to: JSONToken(position: UInt64(text - start) &+ s.pointee.base,
                                               length: UInt32(truncatingIfNeeded: len), kind: UInt8(truncatingIfNeeded: type), flags: flags))
            } else {
                // Unescaped by the parser (or carried across chunks): copy after the document offset.
                guard let at = copyToArena(s, text, len, offset) else { s.pointee.overflow = true; return 2 }
                token.initialize(to: JSONToken(position: UInt64(at), length: UInt32(truncatingIfNeeded: len),
                                               kind: UInt8(truncatingIfNeeded: type), flags: flags | arenaFlag))
            }
        default:  // null, true, false
            token.initialize(to: JSONToken(position: offset, length: 0, kind: UInt8(truncatingIfNeeded: type), flags: 0))
        }
        s.pointee.count = n &+ 1
        if type != Int32(SQ_JSON_KEY.rawValue) && Int32(t.pointee.depth) == s.pointee.pauseDepth {
            s.pointee.completed &+= 1
            return SQ_JSON_PAUSE
        }
        return SQ_JSON_CONTINUE
    }

    /// The callback of streamed input: finds the values to return (the elements of the
    /// top-level array, of the array at a path, or each NDJSON value), records their tokens,
    /// and pauses the parser after each one.
    static let streamCallback: sq_json_callback = { user, token in
        let s = user.unsafelyUnwrapped.assumingMemoryBound(to: State.self)
        let t = token.unsafelyUnwrapped
        switch s.pointee.phase {
        case .inside:
            if _slowPath(t.pointee.depth < s.pointee.pauseDepth) {
                // The end of the array holding the values.
                s.pointee.phase = .after
                return SQ_JSON_CONTINUE
            }
            return add(s, t)
        case .after:
            return SQ_JSON_CONTINUE
        case .seeking:
            return seek(s, t)
        }
    }

    /// Follows the document down to the array holding the values.
    static func seek(_ s: UnsafeMutablePointer<State>, _ t: UnsafePointer<sq_json_token>) -> Int32 {
        let type = t.pointee.type
        let depth = Int(t.pointee.depth)
        let path = s.pointee.stream!.path!
        switch type {
        case Int32(SQ_JSON_BEGIN_ARRAY.rawValue), Int32(SQ_JSON_BEGIN_OBJECT.rawValue):
            let isObject = type == Int32(SQ_JSON_BEGIN_OBJECT.rawValue)
            if depth == path.count && !isObject {
                var matches = true
                for d in 0..<depth where !(s.pointee.stream!.isObject[d] && s.pointee.stream!.keys[d] == path[d]) { matches = false }
                if matches {
                    s.pointee.phase = .inside
                    return SQ_JSON_CONTINUE
                }
            }
            if depth == 0 && path.isEmpty {
                s.pointee.stream!.failure = "expected an array at the top level, found an object (use layout .arrayAt([…]) or .ndjson)"
                return 2
            }
            s.pointee.stream!.isObject.removeSubrange(min(depth, s.pointee.stream!.isObject.count)...)
            s.pointee.stream!.keys.removeSubrange(min(depth, s.pointee.stream!.keys.count)...)
            s.pointee.stream!.isObject.append(isObject)
            s.pointee.stream!.keys.append([])
        case Int32(SQ_JSON_KEY.rawValue):
            if depth >= 1 && depth <= s.pointee.stream!.keys.count {
                s.pointee.stream!.keys[depth - 1] = Array(UnsafeRawBufferPointer(start: t.pointee.text, count: t.pointee.len))
            }
        case Int32(SQ_JSON_END_ARRAY.rawValue), Int32(SQ_JSON_END_OBJECT.rawValue):
            break
        default:
            if depth == 0 {
                s.pointee.stream!.failure = path.isEmpty ? "expected an array at the top level, found a single value" : "no array at \(path.map { String(decoding: $0, as: UTF8.self) }.joined(separator: "."))"
                return 2
            }
        }
        return SQ_JSON_CONTINUE
    }

    static func grow(_ s: UnsafeMutablePointer<State>) -> Bool {
        let old = s.pointee.capacity
        guard old < Int(UInt32.max) else { return false }
        let capacity = min(old * 2, Int(UInt32.max))
        let tokens = UnsafeMutablePointer<JSONToken>.allocate(capacity: capacity)
        tokens.moveInitialize(from: s.pointee.tokens, count: s.pointee.count)
        s.pointee.tokens.deallocate()
        s.pointee.tokens = tokens
        s.pointee.capacity = capacity
        return true
    }

    /// Copies `len` bytes into the arena after their 8-byte document offset; returns the text's arena offset.
    static func copyToArena(_ s: UnsafeMutablePointer<State>, _ text: UnsafeRawPointer, _ len: Int, _ offset: UInt64) -> Int? {
        let need = s.pointee.arenaCount + 8 + len
        if need > s.pointee.arenaCapacity {
            var capacity = s.pointee.arenaCapacity * 2
            while capacity < need { capacity *= 2 }
            let arena = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)
            arena.update(from: s.pointee.arena, count: s.pointee.arenaCount)
            s.pointee.arena.deallocate()
            s.pointee.arena = arena
            s.pointee.arenaCapacity = capacity
        }
        let at = s.pointee.arenaCount
        UnsafeMutableRawPointer(s.pointee.arena + at).storeBytes(of: offset, as: UInt64.self)
        (s.pointee.arena + at + 8).update(from: text.assumingMemoryBound(to: UInt8.self), count: len)
        s.pointee.arenaCount = need
        return at + 8
    }
}

/// Decoders (each with its tape: a parser and its buffers) kept for reuse: decoding a
/// small document, such as a JSON column of every row, then allocates nearly nothing,
/// and the per-key-type memory of the last documents (key bytes, containers) is reused.
final class JSONDecoderPool: @unchecked Sendable {
    private let lock = NSLock()
    private var decoders: [JSONTapeDecoder] = []

    /// A decoder with an empty tape.
    func take() throws -> JSONTapeDecoder {
        lock.lock()
        let d = decoders.popLast()
        lock.unlock()
        if let d { return d }
        return JSONTapeDecoder(tape: try JSONTape(), input: UnsafeRawBufferPointer(start: nil, count: 0),
                               options: JSONValueDecoder.Options(JSONValueDecoder()))
    }

    /// Gives a decoder back once nothing refers to it any more (no container kept beyond
    /// its decode); decoders grown large are dropped to bound the memory kept.
    func give(_ decoder: inout JSONTapeDecoder?) {
        defer { decoder = nil }
        guard decoder != nil else { return }
        decoder!.endDocument()
        // Checked before any other reference to it is made here.
        guard isKnownUniquelyReferenced(&decoder) else { return }
        let d = decoder!
        guard d.tape.state.pointee.capacity <= 1 << 16, d.tape.state.pointee.arenaCapacity <= 1 << 20 else { return }
        d.tape.reset()
        lock.lock()
        if decoders.count < 8 { decoders.append(d) }
        lock.unlock()
    }
}

extension JSONTapeDecoder {
    static let pool = JSONDecoderPool()
}

/// A syntax error found by the C parser, with its position in the input.
struct JSONParseFailure: Error {
    var code: Int32
    var message: String
    var offset: Int
    var line: Int
    var column: Int
}
