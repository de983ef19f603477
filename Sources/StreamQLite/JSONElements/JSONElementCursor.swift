import CStreamQLite
import Foundation

/// The values of a JSON document, decoded one at a time as they are read (see
/// ``JSONValueDecoder/elements(of:in:layout:)-(_,UnsafeRawBufferPointer,_)``), or of several documents one after the
/// other (``JSONValueDecoder/elements(of:contentsOfFiles:layout:)``).
///
/// ```swift
/// let cursor = try JSONValueDecoder().elements(of: Task.self, contentsOfFile: "tasks.json")
/// while let task = try cursor.next() { print(task.title) }
/// ```
public final class JSONElementCursor<T: Decodable>: Cursor {
    private var reader: JSONElementReader
    /// Reads the next chunk (nil at the end of the input).
    private var read: (JSONElementReader) throws -> Bool
    /// What keeps the input alive (an array or Data read whole, the file being read).
    private var owner: Any?
    /// `T` is read by its own `init(from:)`: called straight (decided once, not per value).
    private let plain: Bool
    /// Several files: the ones not begun yet, and the one being read (for errors).
    private var files: [String]?
    private var file: String?
    private let options: JSONValueDecoder.Options?
    /// ``skippingUndecodable(maxErrors:onReject:)``: where the values that do not decode go,
    /// and the values read so far (returned and rejected).
    private var rejecter: IngestRejecter?
    private var valuesRead = 0
    /// The rejected value's raw text.
    private var rawText: RecordRawText?

    init(reader: JSONElementReader, owner: Any?, read: @escaping (JSONElementReader) throws -> Bool) {
        self.reader = reader
        self.owner = owner
        self.read = read
        plain = !reader.decoder.readsItself(T.self)
        options = nil
    }

    /// Reads `paths` one after the other (each a document of `layout`).
    init(paths: [String], layout: JSONValueDecoder.Layout, options: JSONValueDecoder.Options) throws {
        self.options = options
        files = paths
        file = paths[0]
        let (reader, input) = try Self.open(paths[0], layout: layout, options: options)
        self.reader = reader
        owner = input
        read = { reader in try input.read(into: reader) }
        plain = !reader.decoder.readsItself(T.self)
        files!.removeFirst()
    }

    private static func open(_ path: String, layout: JSONValueDecoder.Layout,
                             options: JSONValueDecoder.Options) throws -> (JSONElementReader, JSONFileReader) {
        do {
            let input = try JSONFileReader(path: path)
            return (try JSONElementReader(layout: layout, options: options), input)
        } catch {
            throw JSONValueDecoder.FileError(file: path, underlying: error)
        }
    }

    /// The next value, or nil after the last one. Errors carry the value's index in the
    /// coding path and the line, column and byte offset in the input; reading several
    /// files, they are ``JSONValueDecoder/FileError``s naming the file.
    public func next() throws -> T? {
        guard let file else {
            if let value = try nextInFile() { return value }
            try endOfInput()
            return nil
        }
        do {
            while true {
                if let value = try nextInFile() { return value }
                guard let options, var rest = files, !rest.isEmpty else { try endOfInput(); return nil }
                let path = rest.removeFirst()
                files = rest
                self.file = path
                let (reader, input) = try Self.open(path, layout: reader.layout, options: options)
                self.reader = reader
                owner = input
                read = { reader in try input.read(into: reader) }
            }
        } catch let error as JSONValueDecoder.FileError {
            throw error
        } catch {
            throw JSONValueDecoder.FileError(file: self.file ?? file, underlying: error)
        }
    }

    /// Values that do not decode as `T` (a `DecodingError` of `init(from:)`: a missing key, a
    /// type mismatch) are skipped and given to `onReject` instead of ending the iteration,
    /// within `maxErrors` (counted as the imports count them; a spent budget is a
    /// `DecodingError` naming the count and the last reject). The reject's position is the
    /// value's start, `record` its index in its file, `column` the last key of the error's
    /// coding path; `raw` the value's bytes from its first to its last (at most 4096, never
    /// cut inside a UTF-8 character; `rawTruncated` when the value is longer), as `importJSON`
    /// reports a rejected element. A syntax error still ends the iteration.
    /// Returns this cursor; call it before the first ``next()``.
    ///
    /// ```swift
    /// let tasks = try JSONValueDecoder().elements(of: Task.self, contentsOfFile: "tasks.json")
    ///     .skippingUndecodable(maxErrors: .count(100)) { reject in log(reject.reason) }
    /// ```
    @discardableResult
    public func skippingUndecodable(maxErrors: ImportReject.Limit? = nil,
                                    onReject: @escaping @Sendable (ImportReject) -> Void) throws -> JSONElementCursor<T> {
        rejecter = try IngestRejecter(
            db: nil, rejectTable: nil, maxErrors: maxErrors, onReject: onReject, function: "elements",
            reason: { _ in "" },
            makeError: { DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: $0)) })
        rawText = RecordRawText()
        return self
    }

    /// The value on the reader's tape did not decode: a reject (throws when the budget is spent).
    private func reject(_ error: DecodingError) throws {
        guard let rejecter else { throw error }
        let context = error.context
        var key = context?.codingPath.last
        if case .keyNotFound(let k, _) = error { key = k }
        let start = reader.decoder.position(of: 0)
        let path = context.map { $0.codingPath.map(\.stringValue).joined(separator: ".") } ?? ""
        rejecter.file = file
        let reason = (path.isEmpty ? "" : path + ": ") + (context?.debugDescription ?? "\(error)")
        try reader.withRawText(rawText!) { raw in
            try rejecter.take(record: reader.index, line: start.line, offset: start.offset,
                              column: key.flatMap { $0.intValue == nil ? $0.stringValue : nil }, reason: reason, raw: raw)
        }
    }

    /// The next value of the input being read, or nil at its end.
    private func nextInFile() throws -> T? {
        while true {
            switch try reader.step() {
            case .value:
                guard rejecter != nil else { return plain ? try reader.decodePlain(T.self) : try reader.decode(T.self) }
                valuesRead += 1
                do { return plain ? try reader.decodePlain(T.self) : try reader.decode(T.self) } catch let e as DecodingError {
                    try reject(e)
                }
            case .end: return nil
            case .needInput:
                if try !read(reader), try reader.finish() == .end { return nil }
            }
        }
    }

    /// The input has ended: the fraction budget of ``skippingUndecodable(maxErrors:onReject:)``.
    private func endOfInput() throws {
        try rejecter?.end(records: valuesRead)
    }
}

extension JSONValueDecoder {
    /// An error reading one of several JSON files (``JSONValueDecoder/elements(of:contentsOfFiles:layout:)``):
    /// the file, and the error as reading that file alone throws it (a `DecodingError` with
    /// the position in that file, a file that cannot be read).
    public struct FileError: Error, CustomStringConvertible {
        /// The file the error is in (as given, or as a glob matched it).
        public var file: String
        /// The error.
        public var underlying: any Error

        /// The file, then the error.
        public var description: String { "\(file): \(underlying)" }
    }
}

extension JSONElementReader {
    /// `body` with the raw text of the value on the tape, from its first byte to its last,
    /// as ``RecordRawText`` cuts it (nil: no value).
    func withRawText<R>(_ raw: RecordRawText,
                        _ body: ((bytes: UnsafeRawBufferPointer, truncated: Bool)?) throws -> R) rethrows -> R {
        guard let w = valueWindow else { return try body(nil) }
        raw.chunk(w.bytes, count: w.count, base: w.base)
        defer { raw.forget() }
        return try raw.text(from: w.first, to: w.base + w.count, body)
    }
}
