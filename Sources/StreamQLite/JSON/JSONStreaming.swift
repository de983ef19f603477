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
    let layout: JSONImportLayout
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

    init(layout: JSONImportLayout, options: JSONValueDecoder.Options) throws {
        self.layout = layout
        borrowed = false
        tape = try JSONTape(streaming: true, multiple: layout == .ndjson)
        decoder = JSONTapeDecoder(tape: tape, input: UnsafeRawBufferPointer(start: nil, count: 0), options: options)
        configure()
    }

    /// Reads `bytes` as the whole input; they must stay valid while the reader is used.
    init(whole bytes: UnsafeRawBufferPointer, layout: JSONImportLayout, options: JSONValueDecoder.Options) throws {
        self.layout = layout
        borrowed = true
        tape = try JSONTape(streaming: true, multiple: layout == .ndjson)
        decoder = JSONTapeDecoder(tape: tape, input: bytes, options: options)
        window = UnsafeMutablePointer(mutating: bytes.baseAddress?.assumingMemoryBound(to: UInt8.self))
        windowCount = bytes.count
        windowCapacity = bytes.count
        configure()
    }

    deinit {
        decoder.releaseContainers()
        if !borrowed { window?.deallocate() }
    }

    private func configure() {
        switch layout {
        case .ndjson:
            tape.configureStreaming(.init(phase: .inside, path: nil), depth: 0)
        case .array:
            tape.configureStreaming(.init(phase: .seeking, path: []), depth: 1)
        case .arrayAt(let path):
            tape.configureStreaming(.init(phase: .seeking, path: path.map { Array($0.utf8) }), depth: Int32(path.count + 1))
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
        s.pointee.inputStart = UnsafeRawPointer(window)
        s.pointee.inputEnd = UnsafeRawPointer(window + windowCount)
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
        tape.state.pointee.inputStart = nil
        if sq_json_finish(tape.parser) == SQ_JSON_ERROR { throw error() }
        if case .seeking = tape.state.pointee.phase {
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
        let keepFrom = tape.count > 0 ? min(Int(tape.state.pointee.firstOffset), windowStart + fed) : windowStart + fed
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
        try prepareDecoder().decodeTop(T.self)
    }

    /// The decoder, pointed at the value on the tape; the value counts as read.
    func prepareDecoder() -> JSONTapeDecoder {
        consumed = true
        let d = decoder
        d.generation &+= 1
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
        return d
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
        if let failure = tape.state.pointee.stream?.failure {
            return DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "The given data is not what the layout says: \(failure)"))
        }
        let f = tape.failure()
        return DecodingError.dataCorrupted(.init(
            codingPath: [],
            debugDescription: "The given data was not valid JSON: \(f.message) (line \(f.line), column \(f.column), byte offset \(f.offset))",
            underlyingError: f))
    }
}

/// The values of a JSON document, decoded one at a time as they are read (see
/// ``JSONValueDecoder/elements(of:in:layout:)``).
///
/// ```swift
/// let cursor = try JSONValueDecoder().elements(of: Task.self, contentsOfFile: "tasks.json")
/// while let task = try cursor.next() { print(task.title) }
/// ```
public final class JSONElementCursor<T: Decodable>: Cursor {
    private let reader: JSONElementReader
    /// Reads the next chunk (nil at the end of the input).
    private let read: (JSONElementReader) throws -> Bool
    /// What keeps the input alive (an array or Data read whole).
    private let owner: Any?

    init(reader: JSONElementReader, owner: Any?, read: @escaping (JSONElementReader) throws -> Bool) {
        self.reader = reader
        self.owner = owner
        self.read = read
    }

    /// The next value, or nil after the last one. Errors carry the value's index in the
    /// coding path and the line, column and byte offset in the input.
    public func next() throws -> T? {
        while true {
            switch try reader.step() {
            case .value: return try reader.decode(T.self)
            case .end: return nil
            case .needInput:
                if try !read(reader), try reader.finish() == .end { return nil }
            }
        }
    }
}

/// The values of a JSON document arriving as an `AsyncSequence` of byte chunks,
/// decoded one at a time as the chunks arrive (see ``JSONValueDecoder/elements(of:from:layout:)``).
///
/// ```swift
/// let (bytes, _) = try await URLSession.shared.bytes(from: url)
/// for try await task in JSONValueDecoder().elements(of: Task.self, from: chunks) { … }
/// ```
public struct JSONAsyncElements<T: Decodable, Chunks: AsyncSequence>: AsyncSequence where Chunks.Element: ContiguousBytes {
    public typealias Element = T
    public typealias Failure = any Error
    let chunks: Chunks
    let layout: JSONImportLayout
    let options: JSONValueDecoder.Options

    /// Makes the iterator (the parser is created on first use).
    public func makeAsyncIterator() -> Iterator {
        Iterator(chunks: chunks.makeAsyncIterator(), layout: layout, options: options)
    }

    /// Reads chunks until a value is complete, then decodes it.
    public struct Iterator: AsyncIteratorProtocol {
        var chunks: Chunks.AsyncIterator
        let layout: JSONImportLayout
        let options: JSONValueDecoder.Options
        var reader: JSONElementReader?

        public mutating func next() async throws -> T? {
            try await next(isolation: nil)
        }

        /// The next value; cancelling the task throws `CancellationError` (a sequence
        /// that ends on cancellation is not mistaken for the end of the input).
        public mutating func next(isolation actor: isolated (any Actor)?) async throws -> T? {
            if reader == nil { reader = try JSONElementReader(layout: layout, options: options) }
            let reader = reader!
            while true {
                switch try reader.step() {
                case .value: return try reader.decode(T.self)
                case .end: return nil
                case .needInput:
                    try Task.checkCancellation()
                    if let chunk = try await chunks.next(isolation: actor) {
                        chunk.withUnsafeBytes { reader.append($0) }
                    } else {
                        try Task.checkCancellation()
                        if try reader.finish() == .end { return nil }
                    }
                }
            }
        }
    }
}

extension JSONValueDecoder {
    /// The values of `bytes` one at a time: the elements of the top-level array
    /// (`layout: .array`, the default), of the array at a path (`.arrayAt(["data", "items"])`,
    /// the rest of the document is checked and skipped), or each line of NDJSON (`.ndjson`).
    ///
    /// Each value is decoded when ``JSONElementCursor/next()`` reaches it: a syntax error
    /// after the tenth element is only thrown after ten values were returned.
    ///
    /// ```swift
    /// let cursor = JSONValueDecoder().elements(of: Task.self, in: body)
    /// while let task = try cursor.next() { try save(task) }
    /// ```
    public func elements<T: Decodable>(of type: T.Type, in bytes: [UInt8], layout: JSONImportLayout = .array) throws -> JSONElementCursor<T> {
        try bytes.withUnsafeBytes { try elements(of: type, in: $0, layout: layout) }
    }

    /// The values of `bytes` one at a time (the cursor reads a copy); see ``elements(of:in:layout:)-(_,[UInt8],_)``.
    public func elements<T: Decodable>(of type: T.Type, in bytes: UnsafeRawBufferPointer, layout: JSONImportLayout = .array) throws -> JSONElementCursor<T> {
        let copy = JSONOwnedBytes(copying: bytes)
        let reader = try JSONElementReader(whole: copy.buffer, layout: layout, options: Options(self))
        return JSONElementCursor(reader: reader, owner: copy) { _ in false }
    }

    /// The values of `data` one at a time; see ``elements(of:in:layout:)``.
    public func elements<T: Decodable>(of type: T.Type, in data: Data, layout: JSONImportLayout = .array) throws -> JSONElementCursor<T> {
        try data.withUnsafeBytes { try elements(of: type, in: $0, layout: layout) }
    }

    /// The values of the file at `path`, read in 256 KiB chunks and decoded one at a time:
    /// memory does not grow with the file. See ``elements(of:in:layout:)``.
    ///
    /// ```swift
    /// let cursor = try JSONValueDecoder().elements(of: Event.self, contentsOfFile: "events.ndjson", layout: .ndjson)
    /// try cursor.forEach { event in total += event.amount }
    /// ```
    public func elements<T: Decodable>(of type: T.Type, contentsOfFile path: String,
                                       layout: JSONImportLayout = .array) throws -> JSONElementCursor<T> {
        let file = try JSONFileReader(path: path)
        let reader = try JSONElementReader(layout: layout, options: Options(self))
        return JSONElementCursor(reader: reader, owner: file) { reader in try file.read(into: reader) }
    }

    /// The values of a JSON document arriving as chunks (a download, a pipe), decoded one
    /// at a time as they arrive. See ``elements(of:in:layout:)``.
    ///
    /// ```swift
    /// let (bytes, _) = try await URLSession.shared.bytes(from: url)   // or any AsyncSequence of Data / [UInt8]
    /// for try await item in JSONValueDecoder().elements(of: Item.self, from: chunks, layout: .arrayAt(["items"])) { … }
    /// ```
    public func elements<T: Decodable, Chunks: AsyncSequence>(of type: T.Type, from chunks: Chunks,
                                                              layout: JSONImportLayout = .array) -> JSONAsyncElements<T, Chunks>
    where Chunks.Element: ContiguousBytes {
        JSONAsyncElements(chunks: chunks, layout: layout, options: Options(self))
    }
}

/// A file read in chunks into a ``JSONElementReader``.
final class JSONFileReader {
    let fd: Int32
    let path: String
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 256 * 1024, alignment: 1)

    init(path: String) throws {
        self.path = path
        fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            let code = errno
            throw CocoaError(.fileReadNoSuchFile, userInfo: [NSFilePathErrorKey: path,
                             NSLocalizedDescriptionKey: "cannot open \(path): \(String(cString: strerror(code)))"])
        }
    }

    deinit {
        close(fd)
        buffer.deallocate()
    }

    /// Reads the next chunk into `reader`; false at the end of the file.
    func read(into reader: JSONElementReader) throws -> Bool {
        while true {
            let n = Foundation.read(fd, buffer.baseAddress, buffer.count)
            if n > 0 {
                reader.append(UnsafeRawBufferPointer(rebasing: buffer[0..<n]))
                return true
            }
            if n == 0 { return false }
            if errno == EINTR { continue }
            let code = errno
            throw CocoaError(.fileReadUnknown, userInfo: [NSFilePathErrorKey: path,
                             NSLocalizedDescriptionKey: "cannot read \(path): \(String(cString: strerror(code)))"])
        }
    }
}

// MARK: - Top-level arrays, streamed

/// The decoder of a whole document whose top-level value is an array: the array's
/// elements are parsed and decoded one at a time (the tape holds one element), so
/// `decode([T].self, from:)` needs no memory for the tokens of the whole document.
/// Anything but an unkeyed container at the top level (a keyed container, a single
/// value) is answered by a regular whole-document decoder.
final class JSONTopArrayDecoder: Decoder {
    let reader: JSONElementReader
    let bytes: UnsafeRawBufferPointer
    let options: JSONValueDecoder.Options
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { options.userInfo }
    /// The whole-document decoder, when the type asked for something else than the array.
    private var whole: JSONTapeDecoder?
    private var streamed = false
    /// The document's syntax error, once found by the whole-document parse.
    private var failure: (any Error)?

    init(bytes: UnsafeRawBufferPointer, options: JSONValueDecoder.Options) throws {
        self.bytes = bytes
        self.options = options
        reader = try JSONElementReader(whole: bytes, layout: .array, options: options)
    }

    deinit { JSONTapeDecoder.pool.give(&whole) }

    /// Decodes `T`, then checks the rest of the document (values the type did not read included).
    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        if let array = T.self as? any JSONArrayDecodable.Type {
            // `[Element]`: the elements straight from the reader (what `Array.init(from:)`
            // does, without its per-element generic metadata lookup).
            streamed = true
            return try array.decodeElements(reader) as! T
        }
        let value = try T(from: self)
        // Whatever the type read, the whole document is checked (as a whole-document parse would).
        if whole == nil { try reader.drain { false } }
        return value
    }

    /// The whole document on a tape of its own (for containers other than the top-level array).
    func wholeDecoder() throws -> JSONTapeDecoder {
        if let whole { return whole }
        if let failure { throw failure }
        guard !streamed else {
            throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "The top-level array was already read as an unkeyed container"))
        }
        let d = try JSONTapeDecoder.pool.take()
        whole = d
        do { try d.parse(bytes, options: options) } catch {
            failure = error
            throw error
        }
        return d
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        try wholeDecoder().container(keyedBy: type)
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        if let whole { return try whole.unkeyedContainer() }
        if let failure { throw failure }
        streamed = true
        return JSONStreamedUnkeyedContainer(reader: reader)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        try wholeDecoder().singleValueContainer()
    }
}

/// The top-level array's elements, read from a ``JSONElementReader`` as they are decoded.
struct JSONStreamedUnkeyedContainer: UnkeyedDecodingContainer {
    let reader: JSONElementReader
    var codingPath: [any CodingKey] { [] }
    /// Unknown until the end is reached.
    var count: Int? { nil }
    var currentIndex: Int { reader.index }

    /// Reads on to the next element; false at the end of the array.
    func available() throws -> Bool {
        while true {
            switch try reader.step() {
            case .value: return true
            case .end: return false
            case .needInput: if try reader.finish() == .end { return false }
            }
        }
    }

    /// `isAtEnd` has to read on; a syntax error there is thrown by the next decode.
    var isAtEnd: Bool { !((try? available()) ?? true) }

    func element<T>(_ type: T.Type) throws -> JSONTapeDecoder {
        guard try available() else {
            throw DecodingError.valueNotFound(T.self, .init(
                codingPath: [JSONIndexKey(index: reader.index)], debugDescription: "Unkeyed container is at end."))
        }
        return reader.prepareDecoder()
    }

    mutating func decodeNil() throws -> Bool {
        guard try available() else {
            throw DecodingError.valueNotFound((Any?).self, .init(codingPath: [JSONIndexKey(index: reader.index)], debugDescription: "Unkeyed container is at end."))
        }
        if reader.tape.tokens[0].kind == JSONKind.null { _ = reader.prepareDecoder(); return true }
        return false
    }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { try element(T.self).decodeTop(T.self) }
    mutating func decode(_ type: Bool.Type) throws -> Bool { try element(type).decodeTop(type) }
    mutating func decode(_ type: String.Type) throws -> String { try element(type).decodeTop(type) }
    mutating func decode(_ type: Double.Type) throws -> Double { try element(type).decodeTop(type) }
    mutating func decode(_ type: Int.Type) throws -> Int { try element(type).decodeTop(type) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        try element(type).container(keyedBy: type)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try element((any UnkeyedDecodingContainer).self).unkeyedContainer()
    }

    mutating func superDecoder() throws -> any Decoder {
        let d = try element((any Decoder).self)
        return d.decoder(for: 0, path: [JSONIndexKey(index: reader.index)])
    }
}

/// `[Element]` read element by element from a ``JSONElementReader``.
protocol JSONArrayDecodable {
    static func decodeElements(_ reader: JSONElementReader) throws -> Self
}

extension Array: JSONArrayDecodable where Element: Decodable {
    static func decodeElements(_ reader: JSONElementReader) throws -> [Element] {
        var result: [Element] = []
        while true {
            switch try reader.step() {
            case .value: result.append(try reader.decode(Element.self))
            case .end: return result
            case .needInput: if try reader.finish() == .end { return result }
            }
        }
    }
}
