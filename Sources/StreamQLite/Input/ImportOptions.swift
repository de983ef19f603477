/// What every import of records into a table shares, whatever its format: how the input's
/// names map to columns, strict mode, creating the table, batching and reading, rejecting
/// bad records, the file name column.
///
/// ``CSVImportOptions`` and ``JSONImportOptions`` hold one as their
/// ``CSVImportOptions/common`` and ``JSONImportOptions/common`` beside their format's own
/// fields, and read and write its fields as their own (`options.strict = true`), so one
/// value configures both formats the same way:
///
/// ```swift
/// var common = ImportOptions(onError: .skip, rejectTable: "rejects", filenameColumn: "source")
/// common.batchSize = 500
/// try db.importCSV(contentsOfFile: "orders.csv", into: "orders", options: CSVImportOptions(common: common))
/// try db.importJSON(contentsOfFile: "orders.ndjson", into: "orders",
///                   options: JSONImportOptions(layout: .ndjson, common: common))
/// ```
///
/// An input name is a CSV header name or a JSON key; a record is a CSV record or a JSON
/// element. Names go to columns by the ingest core's one rule (`sq_ingest.h`, the rule of
/// `csv_stream` and `json_stream` too): a name feeds the table column of that name (exact,
/// else ignoring ASCII case), or the column ``renames`` maps it to.
public struct ImportOptions: Sendable {
    /// Input name → column, for names that differ from the table's columns
    /// (`["id_str": "id", "date_added": "added"]`): a CSV header name or a JSON key. A renamed
    /// column is fed by its renamed names only; other names match columns by name, exactly or
    /// ignoring ASCII case. A column a rename names must exist (CSV: among ``columns``).
    public var renames: [String: String]
    /// Strict mode: an input name without a column (a CSV header name, a JSON key), a
    /// duplicate JSON key and a value its column cannot hold losslessly (the coercion rules
    /// of ``CSVImportOptions`` and ``JSONImportOptions``) are errors. Default `false`: such
    /// names are ignored and such values are stored as they are (SQLite's affinity applies).
    public var strict: Bool
    /// The table columns that may be filled; nil (the default): all of them. CSV: a column
    /// no header name (or, without a header, no field) feeds is left out of the `INSERT`, so
    /// its DEFAULT (or NULL) applies. JSON: nil inserts every column without a DEFAULT, plus
    /// the columns with a DEFAULT that the first element has a key for; a column missing
    /// from an element gets NULL (an INTEGER PRIMARY KEY then gets a new rowid); with
    /// ``createTable`` making the table, columns cannot be given (an error).
    public var columns: [String]?
    /// When the table does not exist, create it from the input with column types inferred
    /// from the first ``inferRecords`` records. Default `false`.
    ///
    /// CSV: a column per header name, typed by the rule of `sq_csv_ingest.h`: INTEGER when
    /// every value is a canonically written 64-bit integer, REAL when every value is a
    /// decimal number a REAL holds (its nearest double, whatever its number of digits) or an
    /// integer a double holds exactly, DATE or DATETIME when every value is a date or a
    /// date-time, else TEXT. A later value that does not fit its inferred column is an error
    /// naming its line (or a rejected record, with ``ImportReject/Policy/skip``).
    ///
    /// JSON: a column per key of those elements, in the order the keys are first seen (named
    /// by ``renames``), typed by the same rule applied to the values: INTEGER when every
    /// value is an integer written canonically within 64 bits (`true`/`false` count as 1/0),
    /// REAL when every value is a number of at most 15 significant digits, DATE or DATETIME
    /// when every value is a string holding one, else TEXT (strings, mixed values, nested
    /// objects and arrays, stored as JSON text). `null` types nothing; a missing key is NULL.
    /// The rest of the input is then read in strict mode (``strict``): a key first seen after
    /// those elements, a value its inferred column cannot hold as it is, or a value of a kind
    /// those elements never had for its key (the string `"12"` for a column of numbers, `5`
    /// or `true` for one of strings; a key with only `null` takes strings) is an error naming
    /// the element and key (or a rejected record, with ``ImportReject/Policy/skip``).
    /// ``columns`` cannot be given with it. An input without an object with a key is an error.
    ///
    /// Either way: never a silently dropped or changed value.
    public var createTable: Bool
    /// Records (CSV records, JSON elements) inference looks at (default 1000; at most the
    /// first 16 MiB of the input).
    public var inferRecords: Int
    /// With ``createTable``: column name (a header name or a key) → the type to declare for
    /// it instead of the inferred one (`["zip": "TEXT"]` keeps `02134` as written). Values are
    /// then checked against the declared type as against an inferred one: CSV: a declared
    /// INTEGER, REAL, DATE or DATETIME column checks every value, and a value that does not
    /// fit is an error saying the type was declared; JSON: the rest of the input is read in
    /// strict mode against that type. A name the input does not have (JSON: that the
    /// inferred elements do not have) is an error. Default empty.
    public var columnTypes: [String: String]
    /// Conflict handling of the `INSERT`, as for bulk inserts; default ``InsertOptions/Conflict/abort``.
    public var onConflict: InsertOptions.Conflict
    /// Rows per `INSERT … VALUES (…),(…)` statement (default 50, capped by SQLite's variable limit).
    public var batchSize: Int
    /// Bytes read per chunk from a file (default 256 KiB).
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
    public init(
        renames: [String: String] = [:],
        strict: Bool = false,
        columns: [String]? = nil,
        createTable: Bool = false,
        inferRecords: Int = 1000,
        columnTypes: [String: String] = [:],
        onConflict: InsertOptions.Conflict = .abort,
        batchSize: Int = 50,
        chunkSize: Int = 256 * 1024,
        onError: ImportReject.Policy = .abort,
        maxErrors: ImportReject.Limit? = nil,
        rejectTable: String? = nil,
        onReject: (@Sendable (ImportReject) -> Void)? = nil,
        filenameColumn: String? = nil
    ) {
        self.renames = renames
        self.strict = strict
        self.columns = columns
        self.createTable = createTable
        self.inferRecords = inferRecords
        self.columnTypes = columnTypes
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
