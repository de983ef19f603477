import CStreamQLite
import Foundation

/// Reads the values of a JSON document one at a time: the elements of the
/// top-level array, of the array at a path, or each line of NDJSON. Memory is one
/// value's tokens plus the bytes from that value's start to the end of the last
/// chunk read: constant for any document size.
///
/// The input arrives in chunks (``append(_:)``), or whole (``init(whole:)``: no copy).
/// ``step()`` feeds the parser until a value is complete; ``decode(_:)`` then decodes
/// it from the tape and clears the tape.
final class JSONElementReader {
    enum Step { case value, needInput, end }

    let tape: JSONTape
    let decoder: JSONTapeDecoder
    /// The decoder, not retained (per value; `decoder` keeps it).
    private let unmanagedDecoder: Unmanaged<JSONTapeDecoder>
    let layout: JSONValueDecoder.Layout
    /// The bytes not yet discarded: `window[0]` is input offset `windowStart`.
    private var window: UnsafeMutablePointer<UInt8>?
    private var windowCapacity = 0
    private var windowCount = 0
    private var windowStart = 0
    /// Index in the window of the next byte to feed.
    private var fed = 0
    /// The window is the caller's buffer (``init(whole:)``), not ours.
    private let borrowed: Bool
    private var finished = false
    /// Lines before the window, and where the window's first line starts.
    private var lineBase = 1
    private var lineStartBase = 0
    /// Values returned so far.
    private(set) var index = 0
    /// The value on the tape was decoded: the tape is cleared before reading on.
    private var consumed = false
    /// The input's error, thrown again by every later call (the parser cannot go on).
    private var failure: (any Error)?

    init(layout: JSONValueDecoder.Layout, options: JSONValueDecoder.Options) throws {
        self.layout = layout
        borrowed = false
        tape = try JSONTape(streaming: true, multiple: layout == .ndjson)
        decoder = JSONTapeDecoder(tape: tape, input: UnsafeRawBufferPointer(start: nil, count: 0), options: options)
        unmanagedDecoder = .passUnretained(decoder)
        try configure()
    }

    /// Reads `bytes` as the whole input; they must stay valid while the reader is used
    /// (`trailingCommas`: `[1,]` accepted, for ``JSONValueDecoder`` as `JSONDecoder`).
    init(whole bytes: UnsafeRawBufferPointer, layout: JSONValueDecoder.Layout, options: JSONValueDecoder.Options,
         trailingCommas: Bool = false) throws {
        self.layout = layout
        borrowed = true
        tape = try JSONTape(streaming: true, multiple: layout == .ndjson, trailingCommas: trailingCommas)
        decoder = JSONTapeDecoder(tape: tape, input: bytes, options: options)
        unmanagedDecoder = .passUnretained(decoder)
        window = UnsafeMutablePointer(mutating: bytes.baseAddress?.assumingMemoryBound(to: UInt8.self))
        windowCount = bytes.count
        windowCapacity = bytes.count
        try configure()
    }

    deinit {
        decoder.releaseContainers()
        if !borrowed { window?.deallocate() }
    }

    /// The layout: NDJSON values, or the arrays the C path matcher finds (the top-level
    /// array: a path of no steps).
    private func configure() throws {
        if case .ndjson = layout {
            tape.configureStreaming(matcher: nil, depth: 0)
            return
        }
        let nomem = JSONParseFailure(code: Int32(SQ_JSON_E_NOMEM.rawValue), message: "out of memory", offset: 0, line: 1, column: 1)
        guard let matcher = sq_json_path_new() else { throw nomem }
        switch layout {
        case .ndjson, .array:
            tape.configureStreaming(matcher: matcher, depth: 1)
        case .arrayAt(let path):
            tape.configureStreaming(matcher: matcher, depth: Int32(path.count + 1))
            tape.pathText = path.joined(separator: ".")
            for key in path {
                var k = key
                let rc = k.withUTF8 { sq_json_path_add_key(matcher, UnsafeRawPointer($0.baseAddress)?.assumingMemoryBound(to: CChar.self), $0.count) }
                guard rc == 0 else {
                    throw rc == Int32(SQ_JSON_E_DEPTH.rawValue)
                        ? DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "The path has more than \(SQ_JSON_MAX_DEPTH) keys"))
                        : nomem
                }
            }
        }
    }

    /// Feeds what the window holds; `.value` when a value is on the tape.
    func step() throws -> Step {
        if let failure { throw failure }
        do { return try stepOnce() } catch { failure = error; throw error }
    }

    private func stepOnce() throws -> Step {
        let s = tape.state
        if consumed {
            tape.reset()
            index += 1
            consumed = false
        }
        if s.pointee.completed > 0 { return .value }
        if finished { return .end }
        guard fed < windowCount, let window else { return .needInput }
        s.pointee.input_start = UnsafePointer(window)
        s.pointee.input_end = UnsafePointer(window + windowCount)
        s.pointee.base = UInt64(windowStart)
        let rc = sq_json_feed(tape.parser, window + fed, windowCount - fed)
        fed += sq_json_consumed(tape.parser)
        if rc == SQ_JSON_ERROR { throw error() }
        return s.pointee.completed > 0 ? .value : (fed < windowCount ? try stepOnce() : .needInput)
    }

    /// The input has ended: checks that the document is complete.
    func finish() throws -> Step {
        if let failure { throw failure }
        do { return try finishOnce() } catch { failure = error; throw error }
    }

    private func finishOnce() throws -> Step {
        guard !finished else { return tape.state.pointee.completed > 0 ? .value : .end }
        finished = true
        // A value the parser only knows is complete at the end (a top-level number).
        tape.state.pointee.input_start = nil
        if sq_json_finish(tape.parser) == SQ_JSON_ERROR { throw error() }
        if tape.state.pointee.matcher != nil && tape.state.pointee.found == 0 {
            let where_: String
            if case .arrayAt(let path) = layout { where_ = "at \(path.joined(separator: "."))" } else { where_ = "at the top level" }
            throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "The given data has no array \(where_)"))
        }
        return tape.state.pointee.completed > 0 ? .value : .end
    }

    /// Appends a chunk of input, first dropping the bytes no token refers to any more.
    func append(_ chunk: UnsafeRawBufferPointer) {
        precondition(!borrowed)
        guard chunk.count > 0 else { return }
        let keepFrom = tape.count > 0 ? min(Int(tape.state.pointee.first_offset), windowStart + fed) : windowStart + fed
        let drop = keepFrom - windowStart
        if drop > 0, let window {
            for i in 0..<drop where window[i] == 0x0A {
                lineBase += 1
                lineStartBase = windowStart + i + 1
            }
            (window).update(from: window + drop, count: windowCount - drop)
            windowCount -= drop
            fed -= drop
            windowStart += drop
        }
        if windowCount + chunk.count > windowCapacity {
            let capacity = max(windowCapacity * 2, windowCount + chunk.count, 64 * 1024)
            let w = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)
            if let window { w.update(from: window, count: windowCount); window.deallocate() }
            window = w
            windowCapacity = capacity
        }
        (window! + windowCount).update(from: chunk.baseAddress!.assumingMemoryBound(to: UInt8.self), count: chunk.count)
        windowCount += chunk.count
    }

    /// Decodes the value on the tape (cleared on the next ``step()``).
    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try unmanagedDecoder._withUnsafeGuaranteedRef { d in
            prepare(d)
            return try d.decodeTop(T.self)
        }
    }

    /// Decodes the value on the tape with `T.init(from:)`, `T` being a type the decoder
    /// does not read itself (``JSONTapeDecoder/readsItself(_:)`` is false: checked once
    /// per array by the caller).
    func decodePlain<T: Decodable>(_ type: T.Type) throws -> T {
        try unmanagedDecoder._withUnsafeGuaranteedRef { d in
            prepare(d)
            return try d.decodeTopPlain(T.self)
        }
    }

    /// Decodes the value on the tape with `H.init(json:)`.
    func decodeHandWritten<H: JSONDecodable>(_ type: H.Type) throws -> H {
        try unmanagedDecoder._withUnsafeGuaranteedRef { d in
            prepare(d)
            return try d.decodeTopHandWritten(H.self)
        }
    }

    /// The decoder, pointed at the value on the tape; the value counts as read.
    func prepareDecoder() -> JSONTapeDecoder {
        prepare(decoder)
        return decoder
    }

    @inline(__always)
    private func prepare(_ d: JSONTapeDecoder) {
        consumed = true
        d.advanceGeneration()
        d.tokens = tape.tokens
        d.arena = tape.arena
        d.input = UnsafePointer(window ?? UnsafeMutablePointer(bitPattern: 1)!)
        d.inputCount = windowCount
        d.inputOffset = windowStart
        d.lineBase = lineBase
        d.lineStartBase = lineStartBase
        if layout == .ndjson { d.basePath = [] } else { d.baseElement = index }
        d.current = 0
        d.depth = 0
    }

    /// The window the value on the tape lies in: its bytes, how many are fed, the input
    /// offset of its first byte, and the input offset of the value's first byte (nil when
    /// there is no window or no value). The window holds every byte of the value: nothing
    /// before its first token is dropped, and the parser pauses right after its last byte.
    var valueWindow: (bytes: UnsafeMutablePointer<UInt8>, count: Int, base: Int, first: Int)? {
        guard let window, tape.count > 0 else { return nil }
        return (window, fed, windowStart, Int(tape.state.pointee.first_offset))
    }

    /// Reads to the end of the input (checking it), skipping the remaining values.
    func drain(read: () throws -> Bool) throws {
        while true {
            switch try step() {
            case .value: consumed = true
            case .end: return
            case .needInput: if try !read(), try finish() == .end { return }
            }
        }
    }

    private func error() -> any Error {
        if let failure = tape.layoutFailure {
            return DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "The given data is not what the layout says: \(failure)"))
        }
        let f = tape.failure()
        return DecodingError.dataCorrupted(.init(
            codingPath: [],
            debugDescription: "The given data was not valid JSON: \(f.message) (line \(f.line), column \(f.column), byte offset \(f.offset))",
            underlyingError: f))
    }
}
