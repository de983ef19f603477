import CStreamQLite
import Foundation

private let csvFieldCallback: sq_csv_callback = { user, event in
    Unmanaged<CSVFieldReader>.fromOpaque(user!)._withUnsafeGuaranteedRef { $0.take(event!) }
}

/// Reads a CSV input one record at a time with the C reader (`sq_csv.h`): the fields of
/// the current record are kept in one byte buffer until the next record is read.
///
/// Used by ``CSVDecodableCursor`` and ``CSVRowCursor``. The input is a file (read in chunks,
/// never whole; decompressed when gzip or zstd: ``InputFile``), several files one after the other (each with its own header: the C
/// reader restarts, ``fileIndex`` counts up, and the cursors drop their name → field
/// plans), or bytes.
final class CSVFieldReader {
    /// A field of the current record: its bytes in ``text`` (or NULL), and where it starts
    /// in the input (1-based line, 0-based byte offset).
    struct Field { var start: Int; var count: Int; var isNull: Bool; var line: Int; var offset: Int }

    private let parser: OpaquePointer
    private let names: OpaquePointer
    private let header: Bool
    private var file: InputFile?
    /// The file being read (nil: bytes).
    private var path: String?
    /// The files after it.
    private var rest: [String] = []
    /// Several files: errors name the file.
    private var several = false
    /// Counts the files begun (0: the first): a new header when it changes.
    private(set) var fileIndex = 0
    private var fileFinished = false
    private var input: [UInt8]
    private var inputPosition = 0
    private let chunk: UnsafeMutableRawPointer
    private let chunkSize: Int
    private var chunkCount = 0, chunkPosition = 0
    /// The file offset of `chunk[0]`.
    private var chunkBase = 0
    private var inputEnded = false, finished = false

    // The current record.
    // Unchecked exclusivity: touched for every field; only the cursor's thread uses a reader.
    @exclusivity(unchecked) private(set) var text: UnsafeMutablePointer<UInt8>
    @exclusivity(unchecked) private var textCapacity = 4096
    @exclusivity(unchecked) private var textCount = 0
    /// The fields of the current record (`fieldCount` of them; room for `fieldCapacity`).
    @exclusivity(unchecked) private(set) var fields = UnsafeMutablePointer<Field>.allocate(capacity: 64)
    @exclusivity(unchecked) private(set) var fieldCount = 0
    @exclusivity(unchecked) private var fieldCapacity = 64
    @exclusivity(unchecked) private var ready = false
    /// Line and byte where the current record starts; its 0-based index (the header not counted).
    @exclusivity(unchecked) private(set) var line = 0
    @exclusivity(unchecked) private(set) var offset = 0
    @exclusivity(unchecked) private(set) var record = -1
    private var failure: Error?
    /// Records with another field count are reported, not errors (``ImportOptions/onError``
    /// `.skip`: the C reader's `SQ_CSV_OPT_REPORT_RAGGED`, as `importCSV` rejects them).
    private var reportsRagged = false
    /// The current record has another field count than the header: the error it would be.
    @exclusivity(unchecked) private(set) var raggedError: CSVImportError?
    /// With `.skip`: the bytes of the records, for a reject's raw text (``withRawText(_:)``),
    /// and where the current record ends (its line end, or the end of the input).
    private var rawText: RecordRawText?
    @exclusivity(unchecked) private var recordEnd = 0
    /// The reading cursor's name, for errors.
    let function: String

    /// Reads the file at `path`.
    convenience init(path: String, options: CSVImportOptions, function: String = "CSVDecodableCursor") throws {
        try self.init(paths: [path], several: false, options: options, function: function)
    }

    /// Reads the files `entries` name (paths or globs: ``sqExpandFiles(_:error:)``), in order.
    convenience init(files entries: [String], options: CSVImportOptions, function: String) throws {
        let paths = try sqExpandFiles(entries) { CSVImportError(message: $0, function: function) }
        try self.init(paths: paths, several: true, options: options, function: function)
    }

    private init(paths: [String], several: Bool, options: CSVImportOptions, function: String) throws {
        self.function = function
        self.path = paths[0]
        self.rest = Array(paths.dropFirst())
        self.several = several
        input = []
        header = options.header
        chunkSize = max(options.chunkSize, 1)
        chunk = .allocate(byteCount: chunkSize, alignment: 16)
        text = .allocate(capacity: textCapacity)
        guard let p = sq_csv_new(csvFieldCallback, nil), let n = sq_csv_names_new() else {
            chunk.deallocate(); text.deallocate(); fields.deallocate()
            throw CSVImportError(message: "out of memory", function: function)
        }
        parser = p
        names = n
        try configure(options)
        try openFile()
    }

    private func openFile() throws {
        do { file = try InputFile(path: path!) } catch {
            throw CSVImportError(message: error.message, function: function)
        }
    }

    /// The next file: the reader and the header start again.
    private func openNextFile() throws {
        file = nil
        path = rest.removeFirst()
        sq_csv_reset(parser)
        sq_csv_names_clear(names)
        chunkCount = 0
        chunkPosition = 0
        chunkBase = 0
        rawText?.forget()
        inputEnded = false
        fileFinished = false
        record = -1
        fileIndex += 1
        try openFile()
    }

    /// The file errors name: the one being read, when there are several.
    var errorFile: String? { several ? path : nil }

    /// Reads `bytes`.
    init(bytes: [UInt8], options: CSVImportOptions, function: String = "CSVDecodableCursor") throws {
        self.function = function
        path = nil
        input = bytes
        header = options.header
        chunkSize = 1
        chunk = .allocate(byteCount: 1, alignment: 16)
        text = .allocate(capacity: textCapacity)
        guard let p = sq_csv_new(csvFieldCallback, nil), let n = sq_csv_names_new() else {
            chunk.deallocate(); text.deallocate(); fields.deallocate()
            throw CSVImportError(message: "out of memory", function: function)
        }
        parser = p
        names = n
        try configure(options)
    }

    private func configure(_ options: CSVImportOptions) throws {
        var why: UnsafePointer<CChar>?
        let rc = options.withCOptions { o in sq_csv_options_apply(parser, &o, &why) }
        if rc != 0 {
            throw CSVImportError(message: why.map { String(cString: $0) } ?? "out of memory", function: function)
        }
        if options.onError == .skip {
            reportsRagged = true
            rawText = RecordRawText()
            sq_csv_set_options(parser, sq_csv_options_get(parser) | UInt32(SQ_CSV_OPT_REPORT_RAGGED))
        }
        // the reader calls back into this object (which owns it: no retain)
        sq_csv_set_callback(parser, csvFieldCallback, Unmanaged.passUnretained(self).toOpaque())
    }

    deinit {
        sq_csv_free(parser)
        sq_csv_names_free(names)
        chunk.deallocate()
        text.deallocate()
        fields.deallocate()
    }

    /// The header names (after the first record), or c1, c2, … without a header.
    func name(of field: Int) -> String? {
        if header {
            guard let z = sq_csv_names_get(names, Int32(field), nil) else { return nil }
            return String(cString: z)
        }
        return field < fieldCount ? "c\(field + 1)" : nil
    }

    /// The field a name selects, by the ingest core's rule: the header name equal to it,
    /// else the one equal ignoring ASCII case (header names differ ignoring case: the
    /// reader refuses a repeated one, so there is at most one); without a header, cN.
    func fieldIndex(named name: String) -> Int? {
        let names = fieldNames
        if let i = names.firstIndex(of: name) { return i }
        return names.firstIndex { sqlite3_stricmp($0, name) == 0 }
    }

    var fieldNames: [String] {
        if header { return (0..<Int(sq_csv_names_count(names))).map { name(of: $0)! } }
        return (0..<fieldCount).map { "c\($0 + 1)" }
    }

    // MARK: Reading

    /// Reads the next record; false at the end of the input.
    func next() throws -> Bool {
        ready = false
        while true {
            if let failure { throw failure }
            if finished { return false }
            if chunkPosition < chunkCount || (path == nil && inputPosition < input.count) {
                let rc: Int32
                if path == nil {
                    rc = input.withUnsafeBytes { b in
                        sq_csv_feed(parser, b.baseAddress! + inputPosition, input.count - inputPosition)
                    }
                    inputPosition = rc == SQ_CSV_PAUSED ? inputPosition + sq_csv_consumed(parser) : input.count
                } else {
                    rc = sq_csv_feed(parser, chunk + chunkPosition, chunkCount - chunkPosition)
                    chunkPosition = rc == SQ_CSV_PAUSED ? chunkPosition + sq_csv_consumed(parser) : chunkCount
                }
                if rc == SQ_CSV_ERROR { throw readerError() }
                if ready { return true }
                continue
            }
            if inputEnded || path == nil {
                if !fileFinished {
                    if sq_csv_finish(parser) == SQ_CSV_ERROR { throw readerError() }
                    fileFinished = true
                    if ready { return true }
                }
                if !rest.isEmpty {
                    try openNextFile()
                    continue
                }
                finished = true
                return false
            }
            // (the chunk is overwritten: a record begun in it keeps its first bytes)
            rawText?.keep(consumed: chunkCount, from: sq_csv_record_start(parser))
            let n: Int
            do { n = try file!.read(into: chunk, count: chunkSize) } catch {
                throw CSVImportError(message: error.message, byteOffset: Int(sq_csv_offset(parser)), function: function,
                                     file: errorFile)
            }
            if n == 0 { inputEnded = true }
            chunkBase += chunkCount
            chunkCount = n
            chunkPosition = 0
            rawText?.chunk(chunk, count: n, base: chunkBase)
        }
    }

    /// One reader event (valid during the call).
    fileprivate func take(_ e: UnsafePointer<sq_csv_event>) -> Int32 {
        let ev = e.pointee
        if ev.type == SQ_CSV_FIELD {
            if ev.flags & UInt32(SQ_CSV_F_HEADER) != 0 {
                var dup: Int64 = -1
                let rc = sq_csv_names_add(names, e, &dup)
                if rc == 1 {
                    var err = sq_csv_ingest_error()
                    var buf = [CChar](repeating: 0, count: 512)
                    sq_csv_names_error(names, e, dup, &err, &buf, buf.count)
                    failure = CSVImportError(message: String(decoding: buf.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self), line: Int(ev.line), byteOffset: Int(ev.offset),
                                             field: Int(ev.field) + 1, function: function, file: errorFile)
                    return 2
                }
                return rc == 0 ? SQ_CSV_CONTINUE : 2
            }
            if ev.field == 0 {
                textCount = 0
                fieldCount = 0
                line = Int(ev.line)
                offset = Int(ev.offset)
            }
            let n = ev.len
            if textCapacity - textCount < n { text.grow(&textCapacity, count: textCount, toFit: n) }
            if n > 0 { UnsafeMutableRawPointer(text + textCount).copyMemory(from: ev.text, byteCount: n) }
            if fieldCount == fieldCapacity { fields.doubleCapacity(&fieldCapacity, count: fieldCount) }
            (fields + fieldCount).initialize(to: Field(start: textCount, count: n, isNull: ev.flags & UInt32(SQ_CSV_F_NULL) != 0,
                                                       line: Int(ev.line), offset: Int(ev.offset)))
            fieldCount += 1
            textCount += n
            return SQ_CSV_CONTINUE
        }
        if header && ev.record == 0 { return SQ_CSV_CONTINUE }
        if ev.field == 0 { fieldCount = 0; line = Int(ev.line); offset = Int(ev.offset) }
        record = Int(ev.record) - (header ? 1 : 0)
        if reportsRagged {
            raggedError = ev.flags & UInt32(SQ_CSV_F_RAGGED) != 0 ? csvError() : nil
            recordEnd = Int(ev.end_offset)
        }
        ready = true
        return SQ_CSV_PAUSE
    }

    /// The file being read (nil: bytes).
    var currentFile: String? { path }

    /// `body` with the current record's raw text (from its first byte to its last, without
    /// the line end; ``RecordRawText``), or nil without `.skip`.
    func withRawText<R>(_ body: ((bytes: UnsafeRawBufferPointer, truncated: Bool)?) throws -> R) rethrows -> R {
        guard let rawText else { return try body(nil) }
        guard path == nil else { return try rawText.text(from: offset, to: recordEnd, body) }
        return try input.withUnsafeBytes { b in
            guard let base = b.baseAddress else { return try body(nil) }
            rawText.chunk(base, count: b.count, base: 0)
            defer { rawText.forget() }
            return try rawText.text(from: offset, to: recordEnd, body)
        }
    }

    private func readerError() -> Error {
        if let failure { return failure }
        return csvError()
    }

    /// The reader's error (or, for a ragged record it reports, the error it would be).
    private func csvError() -> CSVImportError {
        let e = sq_csv_error_info(parser)!.pointee
        let message = withUnsafeBytes(of: e.message) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        let recordIndex = Int(e.record) - (header ? 1 : 0)
        return CSVImportError(message: message, line: Int(e.line), byteOffset: Int(e.offset),
                              record: recordIndex >= 0 ? recordIndex : nil, field: Int(e.field) + 1,
                              fieldName: header && e.record > 0 ? name(of: Int(e.field)) : nil, function: function,
                              file: errorFile)
    }
}
