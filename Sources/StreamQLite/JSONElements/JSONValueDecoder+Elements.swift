import CStreamQLite
import Foundation

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
    public func elements<T: Decodable>(of type: T.Type, in bytes: [UInt8], layout: JSONValueDecoder.Layout = .array) throws -> JSONElementCursor<T> {
        try bytes.withUnsafeBytes { try elements(of: type, in: $0, layout: layout) }
    }

    /// The values of `bytes` one at a time (the cursor reads a copy); see ``elements(of:in:layout:)-(_,[UInt8],_)``.
    public func elements<T: Decodable>(of type: T.Type, in bytes: UnsafeRawBufferPointer, layout: JSONValueDecoder.Layout = .array) throws -> JSONElementCursor<T> {
        let copy = JSONOwnedBytes(copying: bytes)
        let reader = try JSONElementReader(whole: copy.buffer, layout: layout, options: Options(self))
        return JSONElementCursor(reader: reader, owner: copy) { _ in false }
    }

    /// The values of `data` one at a time; see ``elements(of:in:layout:)-(_,UnsafeRawBufferPointer,_)``.
    public func elements<T: Decodable>(of type: T.Type, in data: Data, layout: JSONValueDecoder.Layout = .array) throws -> JSONElementCursor<T> {
        try data.withUnsafeBytes { try elements(of: type, in: $0, layout: layout) }
    }

    /// The values of the file at `path`, read in 256 KiB chunks and decoded one at a time:
    /// memory does not grow with the file. See ``elements(of:in:layout:)-(_,UnsafeRawBufferPointer,_)``.
    ///
    /// ```swift
    /// let cursor = try JSONValueDecoder().elements(of: Event.self, contentsOfFile: "events.ndjson", layout: .ndjson)
    /// try cursor.forEach { event in total += event.amount }
    /// ```
    ///
    /// - Parameters:
    ///   - type: The type of one element.
    ///   - path: The file, a pipe or `/dev/stdin`; plain, gzip or zstd.
    ///   - layout: An array of values, NDJSON, or the array at a path inside a document.
    /// - Returns: A cursor decoding one element per ``JSONElementCursor/next()``.
    /// - Throws: ``JSONValueDecoder/FileError`` when the file cannot be opened; reading and decoding
    ///   errors come from `next()`, with the file and the position.
    public func elements<T: Decodable>(of type: T.Type, contentsOfFile path: String,
                                       layout: JSONValueDecoder.Layout = .array) throws -> JSONElementCursor<T> {
        let file = try JSONFileReader(path: path)
        let reader = try JSONElementReader(layout: layout, options: Options(self))
        return JSONElementCursor(reader: reader, owner: file) { reader in try file.read(into: reader) }
    }

    /// The values of several files, one file after the other, each read as
    /// ``elements(of:contentsOfFile:layout:)`` reads one (each file a document of `layout`).
    ///
    /// Each entry of `files` is a path, or a glob when it contains `*`, `?` or `[`
    /// (`"logs/2026-*.ndjson"`: its matches sorted by name; `\` makes such a character
    /// literal) — the expansion of `json_stream` and of the CSV cursors (`sq_files.h`). A glob
    /// matching nothing is an error here; a file that cannot be read is one when the cursor
    /// reaches it. Errors while reading are ``JSONValueDecoder/FileError``s naming the file, the
    /// position inside it.
    ///
    /// ```swift
    /// let events = try JSONValueDecoder().elements(of: Event.self, contentsOfFiles: ["logs/*.ndjson"], layout: .ndjson)
    /// ```
    public func elements<T: Decodable>(of type: T.Type, contentsOfFiles files: [String],
                                       layout: JSONValueDecoder.Layout = .array) throws -> JSONElementCursor<T> {
        let paths = try sqExpandFiles(files) { message in
            JSONValueDecoder.FileError(file: files.joined(separator: ", "),
                          underlying: CocoaError(.fileReadNoSuchFile, userInfo: [NSLocalizedDescriptionKey: message]))
        }
        return try JSONElementCursor(paths: paths, layout: layout, options: Options(self))
    }

    /// The values of a JSON document arriving as chunks (a download, a pipe), decoded one
    /// at a time as they arrive. See ``elements(of:in:layout:)-(_,UnsafeRawBufferPointer,_)``.
    ///
    /// ```swift
    /// let (bytes, _) = try await URLSession.shared.bytes(from: url)   // or any AsyncSequence of Data / [UInt8]
    /// for try await item in JSONValueDecoder().elements(of: Item.self, from: chunks, layout: .arrayAt(["items"])) { … }
    /// ```
    public func elements<T: Decodable, Chunks: AsyncSequence>(of type: T.Type, from chunks: Chunks,
                                                              layout: JSONValueDecoder.Layout = .array) -> JSONValueDecoder.AsyncElements<T, Chunks>
    where Chunks.Element: ContiguousBytes {
        JSONValueDecoder.AsyncElements(chunks: chunks, layout: layout, options: Options(self))
    }
}
