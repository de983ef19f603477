import CStreamQLite
import Foundation

/// One token of a ``JSONTape``: 16 bytes, no references (`sq_json_tape_token`, see
/// TAPE in `sq_json.h`).
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
typealias JSONToken = sq_json_tape_token

/// A flat record of a JSON document's tokens, filled by the C parser's callback
/// (`sq_json_tape_event`, in C: no Swift call per token).
///
/// No tree, no dictionaries: the decoder walks the tape, finds keys by scanning
/// an object's tokens and skips subtrees by their end index. Memory is the
/// tokens (16 bytes each) plus an arena holding only escaped strings.
///
/// Streaming (``JSONElementReader``): the tape records only the values to return
/// — the elements of the top-level array or of every array the C path matcher
/// (`sq_json_path`, the ingest core's rule too) selects, or each NDJSON value —
/// and pauses the parser after each one.
final class JSONTape {
    static let arenaFlag = UInt8(SQ_JSON_TAPE_ARENA)

    let state: UnsafeMutablePointer<sq_json_tape>
    let parser: OpaquePointer
    /// Streaming `.arrayAt`: the path as given (messages).
    var pathText = ""

    /// A tape for whole documents, or with `streaming` for ``JSONElementReader``
    /// (`multiple`: NDJSON, several top-level values; `trailingCommas`: `[1,]` and
    /// `{"a":1,}` accepted, as `JSONDecoder` accepts them).
    init(streaming: Bool = false, multiple: Bool = false, trailingCommas: Bool = false) throws {
        state = .allocate(capacity: 1)
        let nomem = JSONParseFailure(code: Int32(SQ_JSON_E_NOMEM.rawValue), message: "out of memory", offset: 0, line: 1, column: 1)
        guard sq_json_tape_init(state) == 0 else {
            state.deallocate()
            throw nomem
        }
        guard let p = sq_json_new(sq_json_tape_event, UnsafeMutableRawPointer(state)) else {
            sq_json_tape_release(state)
            state.deallocate()
            throw nomem
        }
        parser = p
        // `JSONDecoder`'s limit: 512 nested arrays and objects.
        sq_json_set_max_depth(p, 512)
        state.pointee.streaming = streaming ? 1 : 0
        sq_json_set_options(p, (multiple ? UInt32(SQ_JSON_OPT_MULTIPLE) : 0)
                               | (trailingCommas ? UInt32(SQ_JSON_OPT_TRAILING_COMMAS) : 0))
    }

    deinit {
        if let m = state.pointee.matcher { sq_json_path_free(m) }
        sq_json_free(parser)
        sq_json_tape_release(state)
        state.deallocate()
    }

    var tokens: UnsafeMutablePointer<JSONToken> { state.pointee.tokens }
    var count: Int { state.pointee.count }
    var arena: UnsafeMutablePointer<UInt8> { state.pointee.arena }

    /// Parses one whole document (a single JSON value) held in `bytes` onto the tape;
    /// `trailingCommas`: `[1,]` and `{"a":1,}` accepted (``JSONValueDecoder``, as
    /// `JSONDecoder`), else strict RFC 8259 (JSON columns, as the SQL functions).
    func parse(_ bytes: UnsafeRawBufferPointer, trailingCommas: Bool = false) throws {
        sq_json_reset(parser)
        sq_json_set_options(parser, trailingCommas ? UInt32(SQ_JSON_OPT_TRAILING_COMMAS) : 0)
        reset()
        state.pointee.base = 0
        let start = bytes.baseAddress ?? UnsafeRawPointer(bitPattern: 1)!
        state.pointee.input_start = start.assumingMemoryBound(to: UInt8.self)
        state.pointee.input_end = (start + bytes.count).assumingMemoryBound(to: UInt8.self)
        var rc = sq_json_feed(parser, start, bytes.count)
        if rc != SQ_JSON_ERROR { rc = sq_json_finish(parser) }
        if rc == SQ_JSON_ERROR { throw failure() }
    }

    /// Empties the tape (keeps its memory).
    func reset() {
        sq_json_tape_clear(state)
    }

    /// Streaming: the values at `depth` are returned one at a time (see ``JSONElementReader``):
    /// inside the arrays `matcher` selects (it becomes the tape's), or each NDJSON value (nil).
    func configureStreaming(matcher: OpaquePointer?, depth: Int32) {
        state.pointee.matcher = matcher
        state.pointee.inside = matcher == nil ? 1 : 0
        state.pointee.pause_depth = depth
    }

    /// The parser's error (or the tape's own overflow) as a ``JSONParseFailure``.
    func failure() -> JSONParseFailure {
        let info = sq_json_error_info(parser)!.pointee
        if state.pointee.overflow != 0 {
            return JSONParseFailure(code: Int32(SQ_JSON_E_TOO_LONG.rawValue), message: "document too large (more than 4294967295 tokens) or out of memory",
                                    offset: Int(info.offset), line: Int(info.line), column: Int(info.column))
        }
        let message = withUnsafeBytes(of: info.message) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        return JSONParseFailure(code: info.code, message: message, offset: Int(info.offset), line: Int(info.line), column: Int(info.column))
    }

    /// Streaming: why the layout does not fit (an object or a scalar where an array was
    /// expected), or nil.
    var layoutFailure: String? {
        let type = state.pointee.failure_type
        guard type != 0 else { return nil }
        let found = type == Int32(SQ_JSON_BEGIN_OBJECT.rawValue) ? "an object" : "a single value"
        if pathText.isEmpty {
            return "expected an array at the top level, found \(found)\(found == "an object" ? " (use layout .arrayAt([…]) or .ndjson)" : "")"
        }
        return "the value at \(pathText) is \(found), not an array"
    }
}

/// Decoders (each with its tape: a parser and its buffers) kept for reuse: decoding a
/// small document, such as a JSON column of every row, then allocates nearly nothing,
/// and the per-key-type memory of the last documents (key bytes, containers) is reused.
final class JSONDecoderPool: Sendable {
    private let pool = ReusePool<JSONTapeDecoder>()

    /// A decoder with an empty tape.
    func take() throws -> JSONTapeDecoder {
        if let d = pool.take() { return d }
        return JSONTapeDecoder(tape: try JSONTape(), input: UnsafeRawBufferPointer(start: nil, count: 0),
                               options: JSONValueDecoder.Options(JSONValueDecoder()))
    }

    /// Gives a decoder back once nothing refers to it any more (no container kept beyond
    /// its decode); decoders grown large are dropped to bound the memory kept.
    func give(_ decoder: inout JSONTapeDecoder?) {
        decoder?.endDocument()
        pool.give(&decoder) { d in
            guard d.isWorthKeeping else { return false }
            d.tape.reset()
            return true
        }
    }
}

extension JSONTapeDecoder {
    static let pool = JSONDecoderPool()

    /// Whether the decoder's memory is small enough to keep it for more documents (a decoder
    /// grown by one large document is dropped, to bound the memory kept).
    var isWorthKeeping: Bool {
        tape.state.pointee.capacity <= 1 << 16 && tape.state.pointee.arena_capacity <= 1 << 20 && ownedInputCapacity <= 1 << 20
    }
}

/// A syntax error found by the C parser, with its position in the input.
struct JSONParseFailure: Error {
    var code: Int32
    var message: String
    var offset: Int
    var line: Int
    var column: Int
}

// MARK: - Token kinds

/// The token kinds of a ``JSONTape`` (the C parser's `sq_json_type`).
enum JSONKind {
    static let null = UInt8(SQ_JSON_NULL.rawValue)
    static let `false` = UInt8(SQ_JSON_FALSE.rawValue)
    static let `true` = UInt8(SQ_JSON_TRUE.rawValue)
    static let number = UInt8(SQ_JSON_NUMBER.rawValue)
    static let string = UInt8(SQ_JSON_STRING.rawValue)
    static let key = UInt8(SQ_JSON_KEY.rawValue)
    static let object = UInt8(SQ_JSON_BEGIN_OBJECT.rawValue)
    static let array = UInt8(SQ_JSON_BEGIN_ARRAY.rawValue)
    static let integerFlag = UInt8(SQ_JSON_F_INTEGER)
    static let negativeFlag = UInt8(SQ_JSON_F_NEGATIVE)

    /// As `JSONDecoder` names them in its messages.
    static func describe(_ kind: UInt8) -> String {
        switch kind {
        case string, key: return "a string"
        case number: return "number"
        case `true`, `false`: return "bool"
        case null: return "null"
        case object: return "a dictionary"
        default: return "an array"
        }
    }
}

// MARK: - Strings from validated bytes

/// `String`s from UTF-8 the JSON parser already validated, without validating it again.
///
/// `String(decoding:as:)` checks every byte and then copies; for the short strings
/// that make up most JSON values and keys (up to 15 bytes: Swift's small-string
/// form, held in the `String` itself) that is most of the cost of making one. An
/// ASCII string of up to 15 bytes is made here straight in that form: the bytes in
/// the two words of the `String`, the count and the small-ASCII flags in the top
/// byte — the layout `String` uses on 64-bit platforms (`_StringObject`, fixed by
/// the standard library's ABI). ``JSONValidatedString/smallFormWorks`` checks that
/// layout once against strings the standard library made; if it ever differs, every
/// string goes through `String(decoding:as:)`. Longer or non-ASCII text also does.
enum JSONValidatedString {
    /// Whether strings built in the small form equal the standard library's (checked once).
    static let smallFormWorks: Bool = {
        #if _pointerBitWidth(_64) && _endian(little)
        guard MemoryLayout<String>.size == 16 else { return false }
        for sample in ["", "a", "comment", "123456789012345", "abcdefgh", "key_with\"x"] {
            var s = sample
            let built = s.withUTF8 { small($0.baseAddress ?? UnsafePointer(bitPattern: 1)!, $0.count) }
            guard let built, built == sample, built.utf8.count == sample.utf8.count,
                  built.hashValue == sample.hashValue, Array(built.utf8) == Array(sample.utf8) else { return false }
        }
        var wide = "é"
        if wide.withUTF8({ small($0.baseAddress!, $0.count) }) != nil { return false }
        return true
        #else
        return false
        #endif
    }()

    /// The `String` of `count` bytes of valid UTF-8 at `p`.
    @inline(__always)
    static func make(_ p: UnsafePointer<UInt8>, _ count: Int) -> String {
        if count <= 15 && smallFormWorks, let s = small(p, count) { return s }
        return String(decoding: UnsafeBufferPointer(start: p, count: count), as: UTF8.self)
    }

    /// The small-form `String` of up to 15 ASCII bytes, nil for other bytes.
    @inline(__always)
    static func small(_ p: UnsafePointer<UInt8>, _ count: Int) -> String? {
        #if _pointerBitWidth(_64) && _endian(little)
        var low: UInt64 = 0, high: UInt64 = 0
        var i = 0
        while i < count && i < 8 {
            low |= UInt64(p[i]) &<< UInt64(i &* 8)
            i &+= 1
        }
        while i < count {
            high |= UInt64(p[i]) &<< UInt64((i &- 8) &* 8)
            i &+= 1
        }
        guard (low | high) & 0x8080_8080_8080_8080 == 0 else { return nil }
        // Immortal (0x80), ASCII (0x40), small (0x20), then the count.
        high |= (0xE0 | UInt64(count)) &<< 56
        return unsafeBitCast((low, high), to: String.self)
        #else
        return nil
        #endif
    }
}
