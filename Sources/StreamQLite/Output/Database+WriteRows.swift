/// A row writer of one text format (``JSONRowWriter``, ``CSVRowWriter``) as the
/// `write…` calls of ``Database`` drive it: made for a bound statement, fed its rows by
/// the one stepping loop (``Statement/stream(into:)``), then given back what it borrowed.
protocol FormatRowWriter: RowSink {
    associatedtype Options
    /// A writer for `statement`'s rows sending its output to `sink`; it may borrow what the
    /// connection or the statement keeps for the format (a buffer, a column layout).
    static func make<Target: ByteSink>(sink: SinkReference<Target>, options: Options, statement: Statement) throws -> Self
    /// The rows written.
    var rowCount: Int { get }
    /// Gives back what ``make(sink:options:statement:)`` borrowed (the writer is done).
    func giveBack(to statement: Statement)
}

extension Database {
    /// Writes the rows of an already bound statement with a `Writer`; resets it afterwards.
    /// The one path under `writeJSON`, `writeCSV` and their conveniences.
    func writeRows<Writer: FormatRowWriter, Sink: ByteSink>(
        _ statement: Statement, as writer: Writer.Type, to sink: inout Sink, options: Writer.Options
    ) throws -> Int {
        // The writer reaches the caller's sink through a pointer: no copy of it (whose buffer
        // would then be shared, and copied on the first write) and no cast back at the end.
        try withUnsafeMutablePointer(to: &sink) { target in
            var writer = try Writer.make(sink: SinkReference(target: target), options: options, statement: statement)
            defer { writer.giveBack(to: statement) }
            try statement.stream(into: &writer)
            return writer.rowCount
        }
    }
}

/// A ``ByteSink`` forwarding to the caller's sink in place.
struct SinkReference<Target: ByteSink>: ByteSink {
    let target: UnsafeMutablePointer<Target>
    func write(_ bytes: UnsafeRawBufferPointer) throws { try target.pointee.write(bytes) }
    func flush() throws { try target.pointee.flush() }
}
