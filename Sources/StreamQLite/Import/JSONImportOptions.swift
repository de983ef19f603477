import Foundation

/// Options of a JSON import.
///
/// The rows are assembled by the extension's ingest core (`Extension/include/sq_ingest.h`,
/// its JSON driver `sq_json_ingest.h`),
/// the same C code the SQL virtual table `json_stream` uses: the same input is stored
/// the same way through both.
///
/// Keys → columns: every column is fed by its own name, unless a rename names it (then
/// by the renamed keys only). A key matches exactly, else ignoring ASCII case (as SQLite
/// matches column names: `"ID"` fills column `id`); a key that matches two configured
/// keys only ignoring case is ambiguous, an error.
///
/// Coercion to the column's declared type (its SQLite affinity, from `PRAGMA table_info`):
///
/// | JSON | INTEGER column | REAL column | TEXT column | date column¹ | NUMERIC / BLOB / untyped |
/// | --- | --- | --- | --- | --- | --- |
/// | `null` | NULL | NULL | NULL | NULL | NULL |
/// | `true`/`false` | 1/0 | 1.0/0.0 | 1/0 | 1/0 | 1/0 |
/// | integer `12` | 12 | 12.0 | `'12'` (the literal) | 12 | 12 |
/// | number `12.5` | integral values (`12.0`, `1e3`) as INTEGER, else ² | 12.5 | `'12.5'` (the literal) | 12.5 | 12.5 |
/// | string `"12"` | 12 when it is an integer literal, else ² | 12.0 when it is a number, else ² | `'12'` | see ¹ | `'12'` |
/// | object/array | JSON text³ | JSON text³ | JSON text | JSON text | JSON text |
///
/// ¹ A column whose declared type contains `DATE` or `TIME`: strings in any
/// form SQLite's date functions accept (`2024-05-01`, `2024-05-01T14:00:00+02:00`,
/// `2024-05-01 12:00:00.5Z`) are validated and stored as the library's one date
/// text, the same as a bound `Date`: a date alone as `YYYY-MM-DD`, a date and
/// time as `YYYY-MM-DD HH:MM:SS.SSS` in UTC (an offset is applied; none means
/// UTC, as in SQLite). Other strings are ².
///
/// ² Strict mode: an error. Otherwise the value is stored as it is (a REAL, or
/// the string) and SQLite's affinity rules apply.
///
/// ³ Strict mode: an error.
///
/// Integers beyond 64 bits are bound as their literal text (strict: an error);
/// in an INTEGER, REAL or NUMERIC column SQLite's affinity then stores them as REAL.
/// Nested objects and arrays are stored as minified JSON text (strings re-escaped with
/// `\b \f \n \r \t \" \\` and `\u00XX` for other control characters, numbers as
/// written). An element's values may total at most 64 MiB (or SQLite's length limit).
public struct JSONImportOptions: Sendable {
    /// Where the rows are in the document: ``JSONValueDecoder/Layout``, which the element
    /// streams take too.
    public typealias Layout = JSONValueDecoder.Layout

    /// Where the rows are; default ``JSONImportOptions/Layout/array``.
    public var layout: JSONImportOptions.Layout
    /// JSON key → column, for keys whose name differs from the column
    /// (`["id_str": "id", "date_added": "added"]`). A renamed column is fed by
    /// its renamed keys only. Other keys match columns by name, exactly or
    /// ignoring ASCII case.
    public var renames: [String: String]
    /// Strict mode: unknown keys, duplicate keys and values that cannot be
    /// coerced losslessly (see the table above) are errors. Default `false`:
    /// unknown keys are ignored and such values are stored as they are.
    public var strict: Bool
    /// The columns to insert. Nil (the default): every column of the table
    /// without a DEFAULT, plus the columns with a DEFAULT that the first
    /// element has a key for. A column missing from an element gets NULL
    /// (an INTEGER PRIMARY KEY then gets a new rowid).
    public var columns: [String]?
    /// When the table does not exist, create it from the keys of the first ``inferRecords``
    /// elements: a column per key, in the order the keys are first seen (named by
    /// ``renames``), typed by CSV's inference rule (``CSVImportOptions/createTable``) applied
    /// to the values: INTEGER when every value is an integer written canonically within 64
    /// bits (`true`/`false` count as 1/0), REAL when every value is a number of at most 15
    /// significant digits, DATE or DATETIME when every value is a string holding one, else
    /// TEXT (strings, mixed values, nested objects and arrays, stored as JSON text). `null`
    /// types nothing; a missing key is NULL. The rest of the input is then read in strict
    /// mode (``strict``): a key first seen after those elements, a value its inferred
    /// column cannot hold as it is, or a value of a kind those elements never had for its
    /// key (the string `"12"` for a column of numbers, `5` or `true` for one of strings;
    /// a key with only `null` takes strings) is an error naming the element and key (or a
    /// rejected record, with ``ImportReject/Policy/skip``) — never dropped or changed data. ``columns`` cannot be
    /// given with it. An input without an object with a key is an error. Default `false`.
    public var createTable: Bool
    /// Elements inference looks at (default 1000; at most the first 16 MiB).
    public var inferRecords: Int
    /// With ``createTable``: key → the type to declare for its column instead of the inferred
    /// one; the rest of the input is then read in strict mode against that type. A key the
    /// inferred elements do not have is an error.
    public var columnTypes: [String: String] = [:]
    /// Conflict handling, as for bulk inserts; default ``InsertOptions/Conflict/abort``.
    public var onConflict: InsertOptions.Conflict
    /// Rows per `INSERT` statement (capped by SQLite's variable limit); default 50.
    public var batchSize: Int
    /// Bytes read per chunk from a file; default 256 KiB.
    public var chunkSize: Int
    /// What a record that cannot be stored does: stop the import (``ImportReject/Policy/abort``,
    /// the default) or be rejected (``ImportReject/Policy/skip``, see docs/sql/rejects.md).
    /// With `.skip` a value its column cannot hold unchanged (`x50` in an INTEGER column) is a
    /// reject, not stored as text, as ``strict`` would make it an error.
    public var onError: ImportReject.Policy
    /// With ``ImportReject/Policy/skip``: how many records may be rejected; nil: any number.
    public var maxErrors: ImportReject.Limit?
    /// With ``ImportReject/Policy/skip``: the table the rejected records go to (`name` or
    /// `schema.name`; schema `main` when not given), made when missing; an existing one must
    /// have the reject table's columns. Its rows are written in the import's savepoint.
    public var rejectTable: String?
    /// With ``ImportReject/Policy/skip``: called with every rejected record, as it is rejected.
    public var onReject: (@Sendable (ImportReject) -> Void)?

    /// For imports of files: the table column each row's file name goes to (the path as
    /// given, or as a glob matched it: what `csv_stream`'s and `json_stream`'s `filename`
    /// column holds); NULL for bytes and chunk sequences. The column is not fed from the
    /// input (a header name or key of that name is unknown to the import). Default nil.
    public var filenameColumn: String?

    /// Creates options; every parameter has the documented default.
    public init(layout: JSONImportOptions.Layout = .array, renames: [String: String] = [:], strict: Bool = false,
                columns: [String]? = nil, createTable: Bool = false, inferRecords: Int = 1000, onConflict: InsertOptions.Conflict = .abort, batchSize: Int = 50,
                chunkSize: Int = 256 * 1024, onError: ImportReject.Policy = .abort, maxErrors: ImportReject.Limit? = nil,
                rejectTable: String? = nil, onReject: (@Sendable (ImportReject) -> Void)? = nil,
                filenameColumn: String? = nil) {
        self.layout = layout
        self.renames = renames
        self.strict = strict
        self.columns = columns
        self.createTable = createTable
        self.inferRecords = inferRecords
        self.onConflict = onConflict
        self.batchSize = batchSize
        self.chunkSize = chunkSize
        self.onError = onError
        self.maxErrors = maxErrors
        self.rejectTable = rejectTable
        self.onReject = onReject
        self.filenameColumn = filenameColumn
    }
}

/// A JSON import failed; nothing of it was written.
public struct JSONImportError: Error, CustomStringConvertible {
    /// What went wrong.
    public var message: String
    /// 0-based byte offset in the input of the offending token (or of the element for constraint errors).
    public var byteOffset: Int
    /// 1-based line of that position (0 when there is no position, e.g. a path not found).
    public var line: Int
    /// 1-based byte column of that position.
    public var column: Int
    /// 0-based index of the element (row) concerned: the element being read, or the
    /// next one when the error lies between two elements of the array; nil outside it.
    public var element: Int?
    /// The JSON key concerned, if any.
    public var key: String?
    /// The file the position is in, when reading several files.
    public var file: String?

    /// The error as one line: file, position, element, key, message.
    public var description: String {
        var s = "importJSON: " + (file.map { $0 + ": " } ?? "") + "line \(line), column \(column) (byte \(byteOffset))"
        if let element { s += ", element \(element)" }
        if let key { s += ", key '\(key)'" }
        return s + ": " + message
    }
}
