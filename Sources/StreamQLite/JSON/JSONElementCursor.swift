import CStreamQLite
import Foundation

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
    /// `T` is read by its own `init(from:)`: called straight (decided once, not per value).
    private let plain: Bool

    init(reader: JSONElementReader, owner: Any?, read: @escaping (JSONElementReader) throws -> Bool) {
        self.reader = reader
        self.owner = owner
        self.read = read
        plain = !reader.decoder.readsItself(T.self)
    }

    /// The next value, or nil after the last one. Errors carry the value's index in the
    /// coding path and the line, column and byte offset in the input.
    public func next() throws -> T? {
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
