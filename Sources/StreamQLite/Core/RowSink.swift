/// Receives a result set as a stream of events while its statement steps.
///
/// A row sink never sees a materialized row: the stepping loop reads each
/// column with `sqlite3_column_*` and hands the value over at once, so JSON,
/// CSV or any other output can be produced without per-row arrays or
/// dictionaries. Text and blob buffers are only valid during the call.
///
/// Event order for one result set:
/// `beginResult(columns:)`, then for each row `beginRow()`, one value event
/// per column in column order, `endRow()`; finally `endResult()`.
///
/// ```swift
/// struct LineCounter: RowSink {
///     var rows = 0
///     mutating func endRow() throws { rows += 1 }
/// }
/// ```
public protocol RowSink {
    /// Called once, before any row, with the result's column names.
    mutating func beginResult(columns: [String]) throws
    /// Called before the values of each row.
    mutating func beginRow() throws
    /// A NULL value in `column`.
    mutating func null(column: Int) throws
    /// An INTEGER value in `column`.
    mutating func integer(_ value: Int64, column: Int) throws
    /// A REAL value in `column`.
    mutating func double(_ value: Double, column: Int) throws
    /// A TEXT value in `column`, as the UTF-8 bytes SQLite holds (not validated).
    mutating func text(_ utf8: UnsafeBufferPointer<UInt8>, column: Int) throws
    /// A TEXT value that already is JSON: it carries SQLite's JSON subtype
    /// (the result of `json(…)`, `json_object(…)`, `json_stream`'s `value`).
    /// The default forwards to ``text(_:column:)``.
    mutating func json(_ utf8: UnsafeBufferPointer<UInt8>, column: Int) throws
    /// A BLOB value in `column`.
    mutating func blob(_ bytes: UnsafeRawBufferPointer, column: Int) throws
    /// Called after the values of each row.
    mutating func endRow() throws
    /// Called once, after the last row.
    mutating func endResult() throws
}

/// Defaults: every event is ignored, except ``RowSink/json(_:column:)``, which forwards to
/// ``RowSink/text(_:column:)``. A sink implements only the events it needs.
extension RowSink {
    /// Ignores the column names.
    public mutating func beginResult(columns: [String]) throws {}
    /// Does nothing.
    public mutating func beginRow() throws {}
    /// Ignores the NULL.
    public mutating func null(column: Int) throws {}
    /// Ignores the value.
    public mutating func integer(_ value: Int64, column: Int) throws {}
    /// Ignores the value.
    public mutating func double(_ value: Double, column: Int) throws {}
    /// Ignores the value.
    public mutating func text(_ utf8: UnsafeBufferPointer<UInt8>, column: Int) throws {}
    /// Hands the JSON text to ``RowSink/text(_:column:)``.
    public mutating func json(_ utf8: UnsafeBufferPointer<UInt8>, column: Int) throws {
        try text(utf8, column: column)
    }
    /// Ignores the value.
    public mutating func blob(_ bytes: UnsafeRawBufferPointer, column: Int) throws {}
    /// Does nothing.
    public mutating func endRow() throws {}
    /// Does nothing.
    public mutating func endResult() throws {}
}
