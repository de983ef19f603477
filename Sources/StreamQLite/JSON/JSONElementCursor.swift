import CStreamQLite
import Foundation

/// The values of a JSON document, decoded one at a time as they are read (see
/// ``JSONValueDecoder/elements(of:in:layout:)``), or of several documents one after the
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

    init(reader: JSONElementReader, owner: Any?, read: @escaping (JSONElementReader) throws -> Bool) {
        self.reader = reader
        self.owner = owner
        self.read = read
        plain = !reader.decoder.readsItself(T.self)
        options = nil
    }

    /// Reads `paths` one after the other (each a document of `layout`).
    init(paths: [String], layout: JSONImportLayout, options: JSONValueDecoder.Options) throws {
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

    private static func open(_ path: String, layout: JSONImportLayout,
                             options: JSONValueDecoder.Options) throws -> (JSONElementReader, JSONFileReader) {
        do {
            let input = try JSONFileReader(path: path)
            return (try JSONElementReader(layout: layout, options: options), input)
        } catch {
            throw JSONFileError(file: path, underlying: error)
        }
    }

    /// The next value, or nil after the last one. Errors carry the value's index in the
    /// coding path and the line, column and byte offset in the input; reading several
    /// files, they are ``JSONFileError``s naming the file.
    public func next() throws -> T? {
        guard let file else { return try nextInFile() }
        do {
            while true {
                if let value = try nextInFile() { return value }
                guard let options, var rest = files, !rest.isEmpty else { return nil }
                let path = rest.removeFirst()
                files = rest
                self.file = path
                let (reader, input) = try Self.open(path, layout: reader.layout, options: options)
                self.reader = reader
                owner = input
                read = { reader in try input.read(into: reader) }
            }
        } catch let error as JSONFileError {
            throw error
        } catch {
            throw JSONFileError(file: self.file ?? file, underlying: error)
        }
    }

    /// The next value of the input being read, or nil at its end.
    private func nextInFile() throws -> T? {
        while true {
            switch try reader.step() {
            case .value: return plain ? try reader.decodePlain(T.self) : try reader.decode(T.self)
            case .end: return nil
            case .needInput:
                if try !read(reader), try reader.finish() == .end { return nil }
            }
        }
    }
}

/// An error reading one of several JSON files (``JSONValueDecoder/elements(of:contentsOfFiles:layout:)``):
/// the file, and the error as reading that file alone throws it (a `DecodingError` with
/// the position in that file, a file that cannot be read).
public struct JSONFileError: Error, CustomStringConvertible {
    /// The file the error is in (as given, or as a glob matched it).
    public var file: String
    /// The error.
    public var underlying: any Error

    /// The file, then the error.
    public var description: String { "\(file): \(underlying)" }
}
