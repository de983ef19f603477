import Foundation

/// Owns a CSV writer's output buffer and byte-class table.
private final class CSVWriterStorage {
    let buffer: OutputBuffer
    /// Per byte: 1 when a field holding it must be quoted (delimiter, quote, CR, LF),
    /// 2 when it is not ASCII (the field's UTF-8 is checked).
    let classes: UnsafeMutablePointer<UInt8>
    init(capacity: Int) {
        buffer = OutputBuffer(capacity: capacity)
        classes = .allocate(capacity: 256)
        classes.initialize(repeating: 0, count: 256)
    }
    deinit {
        buffer.deallocate()
        classes.deallocate()
    }
}

/// A ``RowSink`` writing a result set as RFC 4180 CSV into a ``ByteSink``.
///
/// No per-row arrays or strings: each value is formatted or copied straight
/// into a 64 KiB output buffer that is handed to the sink when full and at
/// the end of the result. A field is quoted only when it needs it (see
/// ``CSVWriterOptions`` for the rules and the value forms).
///
/// Most code uses ``Database/writeCSV(_:_:to:options:)``. Used directly, feed
/// it to the statement's stepping loop and take the sink back:
///
/// ```swift
/// var writer = try CSVRowWriter(sink: [UInt8](), options: .init(delimiter: ";"))
/// try db.stream("SELECT id, title FROM tasks", into: &writer)
/// let bytes = writer.sink as! [UInt8]
/// ```
///
/// As ``JSONRowWriter``, the writer is not generic over its sink: it is
/// compiled once, optimized, and the sink is called once per chunk. Copies
/// share one output buffer: use a writer in place (`inout`).
public struct CSVRowWriter: RowSink {
    /// The sink the bytes go to. It has received everything once ``endResult()`` returned.
    public var sink: any ByteSink
    /// The writer's options.
    public let options: CSVWriterOptions
    /// Rows written so far in the current result (the header not counted).
    public private(set) var rowCount = 0

    private let storage: CSVWriterStorage
    private var output: OutputBuffer
    private let classes: UnsafeMutablePointer<UInt8>
    private let delimiter: UInt8
    private let quote: UInt8
    private let nullBytes: [UInt8]
    private var columnNames: [String] = []
    /// Nothing written yet: the next field is the output's first (BOM check).
    private var atStart = true

    /// Creates a writer sending its output to `sink`; throws ``CSVWriterError/badOption(_:)``
    /// for a delimiter or quote that is not ASCII, is a line end, or for both being the same.
    public init(sink: some ByteSink, options: CSVWriterOptions = CSVWriterOptions()) throws {
        let d = options.delimiter.value, q = options.quote.value
        guard d > 0, d < 0x80, d != 0x0A, d != 0x0D else {
            throw CSVWriterError.badOption("the delimiter must be one ASCII character other than a line end")
        }
        guard q > 0, q < 0x80, q != 0x0A, q != 0x0D, q != d else {
            throw CSVWriterError.badOption("the quote must be one ASCII character other than a line end and the delimiter")
        }
        self.sink = sink
        self.options = options
        storage = CSVWriterStorage(capacity: max(options.chunkSize, 64))
        output = storage.buffer
        classes = storage.classes
        delimiter = UInt8(d)
        quote = UInt8(q)
        nullBytes = Array(options.nullText.utf8)
        for c in [delimiter, quote, 0x0A, 0x0D] { classes[Int(c)] = 1 }
        for c in 0x80..<256 { classes[c] = 2 }
    }

    // MARK: RowSink

    /// Writes the byte order mark (if asked) and the header (if asked).
    public mutating func beginResult(columns: [String]) throws {
        rowCount = 0
        columnNames = columns
        if options.byteOrderMark && atStart {
            try reserve(3)
            append(0xEF); append(0xBB); append(0xBF)
            atStart = false
        }
        guard options.header else { return }
        for (i, name) in columns.enumerated() {
            if i > 0 { try put(delimiter) }
            var name = name
            try name.withUTF8 { try writeField($0, row: -1, column: i) }
        }
        try endLine()
    }

    /// Ends the record.
    public mutating func endRow() throws {
        try endLine()
        rowCount += 1
    }

    /// Hands every remaining byte to the sink, then flushes it.
    public mutating func endResult() throws {
        try flushBuffer()
        try sink.flush()
    }

    /// Writes ``CSVWriterOptions/nullText``.
    public mutating func null(column: Int) throws {
        try separator(column)
        if !nullBytes.isEmpty { try nullBytes.withUnsafeBufferPointer { try putBytes($0.baseAddress!, $0.count) } }
        atStart = false
    }

    /// Writes the integer exactly.
    public mutating func integer(_ value: Int64, column: Int) throws {
        try separator(column)
        try reserve(24)
        output.count += writeDecimal(value, to: output.end)
        atStart = false
    }

    /// Writes the shortest round-trip form (`Infinity`/`-Infinity` for infinities).
    public mutating func double(_ value: Double, column: Int) throws {
        try separator(column)
        try reserve(40)
        if value.isFinite {
            output.count += writeShortestDouble(value, to: output.end)
        } else {
            output.append(value.isNaN ? "NaN" : value < 0 ? "-Infinity" : "Infinity")
        }
        atStart = false
    }

    /// Writes the text, quoted when it needs it.
    public mutating func text(_ utf8: UnsafeBufferPointer<UInt8>, column: Int) throws {
        try separator(column)
        try writeField(utf8, row: rowCount, column: column)
    }

    /// Writes the bytes as base64 text.
    public mutating func blob(_ bytes: UnsafeRawBufferPointer, column: Int) throws {
        try separator(column)
        let encoded = Data(bytes).base64EncodedData()
        try encoded.withUnsafeBytes { try putBytes($0.baseAddress!.assumingMemoryBound(to: UInt8.self), $0.count) }
        atStart = false
    }

    // MARK: Fields

    @inline(__always)
    private mutating func separator(_ column: Int) throws {
        if column > 0 { try put(delimiter) }
    }

    /// One field: quoted when it holds the delimiter, the quote or a line end, when it
    /// equals the NULL text, or when it opens the output with a BOM.
    private mutating func writeField(_ utf8: UnsafeBufferPointer<UInt8>, row: Int, column: Int) throws {
        let n = utf8.count
        guard n > 0, let p = utf8.baseAddress else {
            // '' is always quoted: the reader takes an empty unquoted field for NULL,
            // whatever the NULL text
            try reserve(2); append(quote); append(quote)
            atStart = false
            return
        }
        var flags: UInt8 = 0
        for i in 0..<n { flags |= classes[Int(p[i])] }
        if flags & 2 != 0 {
            // Not ASCII: check the UTF-8 (the standard library's validation).
            if String(validating: utf8, as: UTF8.self) == nil {
                if options.invalidUTF8 == .reject {
                    throw CSVWriterError.invalidUTF8(row: row, column: columnName(column), byteOffset: firstInvalidByte(utf8))
                }
                let repaired = String(decoding: utf8, as: UTF8.self)
                var copy = repaired
                try copy.withUTF8 { try writeChecked($0, quoted: flags & 1 != 0) }
                return
            }
        }
        let mustQuote = flags & 1 != 0
            || (n == nullBytes.count && nullBytes.withUnsafeBufferPointer { memcmp($0.baseAddress!, p, n) == 0 })
            || (atStart && n >= 3 && p[0] == 0xEF && p[1] == 0xBB && p[2] == 0xBF)
        try writeChecked(utf8, quoted: mustQuote)
    }

    /// Writes valid UTF-8 bytes, quoted (quotes doubled) or as they are.
    private mutating func writeChecked(_ utf8: UnsafeBufferPointer<UInt8>, quoted: Bool) throws {
        atStart = false
        let p = utf8.baseAddress!, n = utf8.count
        guard quoted else { return try putBytes(p, n) }
        try put(quote)
        var start = 0
        for i in 0..<n where p[i] == quote {
            try putBytes(p + start, i + 1 - start)   // through the quote
            try put(quote)                           // doubled
            start = i + 1
        }
        try putBytes(p + start, n - start)
        try put(quote)
    }

    private func columnName(_ column: Int) -> String {
        column >= 0 && column < columnNames.count ? columnNames[column] : "#\(column)"
    }

    /// The offset of the first byte of the first ill-formed sequence.
    private func firstInvalidByte(_ utf8: UnsafeBufferPointer<UInt8>) -> Int {
        var parser = Unicode.UTF8.ForwardParser()
        var iterator = utf8.makeIterator()
        var offset = 0
        while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid(let s): offset += s.count
            case .error: return offset
            case .emptyInput: return offset
            }
        }
    }

    private mutating func endLine() throws {
        try reserve(2)
        if options.lineEnding == .crlf { append(0x0D) }
        append(0x0A)
    }

    // MARK: Output buffer

    @inline(__always)
    private mutating func append(_ byte: UInt8) {
        output.append(byte)
    }

    @inline(__always)
    private mutating func reserve(_ n: Int) throws {
        try output.reserve(n, flushingTo: &sink)
    }

    @inline(__always)
    private mutating func put(_ byte: UInt8) throws {
        try reserve(1)
        append(byte)
    }

    private mutating func flushBuffer() throws {
        try output.flush(to: &sink)
    }

    /// Copies any number of bytes, flushing as often as needed.
    @inline(__always)
    private mutating func putBytes(_ start: UnsafePointer<UInt8>, _ n: Int) throws {
        try output.put(start, count: n, flushingTo: &sink)
    }
}

extension CSVRowWriter: FormatRowWriter {
    static func make<Target: ByteSink>(sink: SinkReference<Target>, options: CSVWriterOptions,
                                       statement: Statement) throws -> CSVRowWriter {
        try CSVRowWriter(sink: sink, options: options)
    }

    func giveBack(to statement: Statement) {}
}
