import CStreamQLite
import Foundation

extension JSONValueDecoder {
    /// The values of a JSON document arriving as an `AsyncSequence` of byte chunks,
    /// decoded one at a time as the chunks arrive (see ``JSONValueDecoder/elements(of:from:layout:)``).
    ///
    /// ```swift
    /// let (bytes, _) = try await URLSession.shared.bytes(from: url)
    /// for try await task in JSONValueDecoder().elements(of: Task.self, from: chunks) { … }
    /// ```
    public struct AsyncElements<T: Decodable, Chunks: AsyncSequence>: AsyncSequence where Chunks.Element: ContiguousBytes {
        public typealias Element = T
        public typealias Failure = any Error
        let chunks: Chunks
        let layout: JSONValueDecoder.Layout
        let options: JSONValueDecoder.Options

        /// Makes the iterator (the parser is created on first use).
        public func makeAsyncIterator() -> Iterator {
            Iterator(chunks: chunks.makeAsyncIterator(), layout: layout, options: options)
        }

        /// Reads chunks until a value is complete, then decodes it.
        public struct Iterator: AsyncIteratorProtocol {
            var chunks: Chunks.AsyncIterator
            let layout: JSONValueDecoder.Layout
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
}
