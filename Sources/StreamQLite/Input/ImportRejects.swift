import CStreamQLite
import Foundation

extension ImportReject {
    /// What an import does with a record it cannot store (``ImportOptions/onError``).
    public enum Policy: Sendable, Equatable {
        /// The first bad record stops the import and nothing of it is stored (the default).
        case abort
        /// A bad record is rejected whole and the import goes on with the next one. Every
        /// rejected record goes to the reject table (`rejectTable`) and to `onReject`; at least
        /// one of them must be given, so that nothing is dropped without a trace. `maxErrors`
        /// bounds how many may be rejected.
        case skip
    }

    /// How many records an import with ``ImportReject/Policy/skip`` may reject before it stops
    /// (then nothing of it is stored).
    public enum Limit: Sendable, Equatable {
        /// At most this many: the next rejected record stops the import.
        case count(Int)
        /// At most this fraction (0 < f < 1) of the records read (rows and rejects): checked
        /// when the input has ended.
        case fraction(Double)
    }
}

/// A record an import rejected (``ImportReject/Policy/skip``): the same fields as a row of
/// the reject table (`docs/sql/loading.md`, "Rejected records").
public struct ImportReject: Sendable, Equatable {
    /// The file, for imports of a file; nil for bytes and chunk sequences.
    public var file: String?
    /// 1-based line where the record starts.
    public var line: Int
    /// 0-based byte offset where the record starts.
    public var byteOffset: Int
    /// 0-based index of the record among the input's records, rows and rejects alike
    /// (CSV: the header not counted).
    public var record: Int
    /// The JSON key or CSV header name concerned, when known.
    public var column: String?
    /// The message the same error stops an import with under ``ImportReject/Policy/abort``.
    public var reason: String
    /// The record's bytes from its first to its last (at most 4096; see ``rawTruncated``).
    public var raw: [UInt8]
    /// The record is longer than ``raw``.
    public var rawTruncated: Bool
}

/// The reject side of an import (``JSONImporter``, ``CSVImporter``): the rejects of the
/// ingest core into the reject table (`sq_reject.h`, the C code of `on_error='skip'`) and
/// to `onReject`, within the error budget.
final class IngestRejecter {
    private let sink: OpaquePointer?
    private var budget = sq_reject_budget()
    private let optionName: UnsafeMutablePointer<CChar>
    private let onReject: (@Sendable (ImportReject) -> Void)?
    private let reasonOf: (UnsafePointer<sq_ingest_reject>) -> String
    private let makeError: (String) -> Error
    /// The input's file name, when known.
    var file: String?
    /// What stopped the core from here (the budget spent, the reject table failed).
    private(set) var failure: Error?

    /// `reason`: the reject's message as the import's error would write it; `makeError`:
    /// the import's error for a message. `db` nil: no reject table (the cursors).
    init(db: Database?, rejectTable: String?, maxErrors: ImportReject.Limit?,
         onReject: (@Sendable (ImportReject) -> Void)?, function: String,
         reason: @escaping (UnsafePointer<sq_ingest_reject>) -> String, makeError: @escaping (String) -> Error) throws {
        guard rejectTable != nil || onReject != nil else {
            throw makeError("onError: .skip needs rejectTable or onReject: every rejected record goes somewhere")
        }
        self.onReject = onReject
        self.reasonOf = reason
        self.makeError = makeError
        optionName = strdup("maxErrors")
        var count: Int64 = -1
        var fraction = 0.0
        switch maxErrors {
        case .count(let n)?:
            guard n >= 0 else { free(optionName); throw makeError("maxErrors: a count must not be negative, got \(n)") }
            count = Int64(n)
        case .fraction(let f)?:
            guard f > 0 && f < 1 else {
                free(optionName)
                throw makeError("maxErrors: a fraction must lie between 0 and 1 (exclusive), got \(f)")
            }
            fraction = f
        case nil: break
        }
        sq_reject_budget_init(&budget, count, fraction, optionName)
        if let rejectTable {
            guard let db else {
                free(optionName)
                throw makeError("rejectTable: a cursor has no database; its rejects go to onReject")
            }
            let dot = rejectTable.firstIndex(of: ".")
            let schema = dot.map { String(rejectTable[..<$0]) } ?? "main"
            let name = dot.map { String(rejectTable[rejectTable.index(after: $0)...]) } ?? rejectTable
            var err: UnsafeMutablePointer<CChar>?
            guard let s = sq_reject_sink_open(db.handle, schema, name, &err) else {
                let m = err.map { String(cString: $0) } ?? "out of memory"
                sqlite3_free(err)
                free(optionName)
                throw makeError(m)
            }
            sink = s
        } else {
            sink = nil
        }
    }

    /// The rejecter of an import configured by `options` (its ``ImportOptions/rejectTable``,
    /// ``ImportOptions/maxErrors`` and ``ImportOptions/onReject``), for `importCSV`,
    /// `importJSON` and the CSV cursors alike.
    convenience init(db: Database?, options: ImportOptions, function: String,
                     reason: @escaping (UnsafePointer<sq_ingest_reject>) -> String,
                     makeError: @escaping (String) -> Error) throws {
        try self.init(db: db, rejectTable: options.rejectTable, maxErrors: options.maxErrors, onReject: options.onReject,
                      function: function, reason: reason, makeError: makeError)
    }

    deinit {
        sq_reject_sink_close(sink)
        sq_reject_budget_clear(&budget)
        free(optionName)
    }

    /// The `user` pointer of ``ingestRejectCallback`` for this rejecter.
    var callbackContext: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }

    /// Rejected so far.
    var rejected: Int { Int(budget.rejected) }

    /// One reject of the core: SQ_INGEST_CONTINUE, or 1 to stop (``failure`` says why).
    func take(_ r: UnsafePointer<sq_ingest_reject>) -> Int32 {
        take(r, reason: reasonOf(r))
    }

    /// A record rejected outside the core (a row the table refused, a record a cursor
    /// could not decode). `raw`: its raw text as `sq_ingest_rawtext_get` made it (the
    /// bytes, and whether the record is longer), or nil when there is none (raw NULL in
    /// the reject table; for `onReject` empty, `rawTruncated`).
    func take(record: Int, line: Int, offset: Int, column: String?, reason: String,
              raw: (bytes: UnsafeRawBufferPointer, truncated: Bool)? = nil) throws {
        var r = sq_ingest_reject()
        r.index = Int64(record)
        r.offset = UInt64(offset)
        r.line = UInt64(line)
        if let raw {
            r.raw = raw.bytes.baseAddress?.assumingMemoryBound(to: CChar.self)
            r.nraw = raw.bytes.count
            r.truncated = raw.truncated ? 1 : 0
        } else {
            r.truncated = 1
        }
        let rc = withOptionalCString(column) { name, n in
            r.field = name
            r.nfield = n
            return take(&r, reason: reason)
        }
        if rc != SQ_INGEST_CONTINUE { throw failure ?? makeError("reject failed") }
    }

    private func take(_ r: UnsafePointer<sq_ingest_reject>, reason: String) -> Int32 {
        var message: UnsafeMutablePointer<CChar>?
        var stop = sq_reject_budget_add(&budget, reason, &message) != 0
        if !stop, let sink {
            stop = sq_reject_sink_write(sink, file, r, reason, &message) != SQLITE_OK
        }
        if stop {
            // (no message: the allocation of one failed)
            failure = makeError(message.map { String(cString: $0) } ?? "out of memory")
            sqlite3_free(message)
            return 1
        }
        if let onReject {
            let x = r.pointee
            onReject(ImportReject(
                file: file, line: Int(x.line), byteOffset: Int(x.offset), record: Int(x.index),
                column: x.field.map { String(decoding: UnsafeRawBufferPointer(start: $0, count: x.nfield), as: UTF8.self) },
                reason: reason,
                raw: x.raw.map { Array(UnsafeRawBufferPointer(start: $0, count: x.nraw)) } ?? [],
                rawTruncated: x.truncated != 0))
        }
        return SQ_INGEST_CONTINUE
    }

    /// The input has ended after `records` records: the fraction budget.
    func end(records: Int) throws {
        var m: UnsafeMutablePointer<CChar>?
        if sq_reject_budget_end(&budget, Int64(records), &m) != 0 {
            defer { sqlite3_free(m) }
            throw makeError(m.map { String(cString: $0) } ?? "out of memory")
        }
    }
}

/// `body` with `s` as a C string and its length (nil, 0 when nil).
private func withOptionalCString<R>(_ s: String?, _ body: (UnsafePointer<CChar>?, Int) -> R) -> R {
    guard let s else { return body(nil, 0) }
    return s.withCString { body($0, strlen($0)) }
}

/// The ingest core's reject callback for the imports: `user` is an ``IngestRejecter``,
/// unretained (its importer holds it for as long as the core can call back).
let ingestRejectCallback: sq_ingest_reject_callback = { user, r in
    Unmanaged<IngestRejecter>.fromOpaque(user!).takeUnretainedValue().take(r!)
}
