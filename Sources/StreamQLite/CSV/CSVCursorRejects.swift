import CStreamQLite

/// The reject side of ``CSVRowCursor`` and ``CSVDecodableCursor`` with
/// ``ImportOptions/onError`` `.skip`: a record with another field count than the
/// header (reported by the C reader, as `importCSV` rejects it) or one whose fields do not
/// decode is given to ``ImportOptions/onReject``, with its raw text as `importCSV` reports
/// it (``CSVFieldReader/withRawText(_:)``), instead of ending the iteration,
/// within ``ImportOptions/maxErrors`` (the C budget of `sq_reject.h`, through
/// ``IngestRejecter``). Broken quoting and invalid UTF-8 still end it, as in `importCSV`.
final class CSVCursorRejects {
    private let rejecter: IngestRejecter
    /// Records read so far (returned and rejected), for a fraction budget.
    var records = 0

    /// Nil without `.skip`. `.skip` needs `onReject` (a cursor has no reject table).
    init?(options: CSVImportOptions, function: String) throws {
        guard options.onError == .skip else { return nil }
        guard options.rejectTable == nil else {
            throw CSVImportError(message: "rejectTable: a cursor has no database; its rejects go to onReject",
                                 function: function)
        }
        rejecter = try IngestRejecter(
            db: nil, options: options.common, function: function,
            reason: { _ in "" }, makeError: { CSVImportError(message: $0, function: function) })
    }

    /// The current record of `reader` is rejected for `error` (its reason: the error's
    /// description, as it would end the iteration under `.abort`); throws when the budget
    /// is spent.
    func reject(_ error: any Error, reader: CSVFieldReader) throws {
        var reason = "\(error)"
        var column: String?
        switch error {
        case let e as CSVImportError:
            column = e.fieldName
        case let e as DecodingError:
            if let context = e.context {
                reason = reader.function + ": " + context.debugDescription
                column = context.codingPath.last?.stringValue
            }
        default: break
        }
        rejecter.file = reader.currentFile
        try reader.withRawText { raw in
            try rejecter.take(record: reader.record, line: reader.line, offset: reader.offset, column: column,
                              reason: reason, raw: raw)
        }
    }

    /// The input has ended: the fraction budget.
    func end() throws { try rejecter.end(records: records) }
}
