/// How ``Database/importCSV(bytes:into:options:progress:)-4lxlc`` reads a CSV file and
/// stores its records.
///
/// Reading (RFC 4180, the rules of `csv_stream`, see `sq_csv.h`): quoted fields
/// may hold delimiters, `""` and line ends; LF, CRLF and CR end records; a UTF-8
/// BOM is skipped; invalid UTF-8, a quote inside an unquoted field, text after a
/// closing quote, an unterminated quoted field and a record with another number
/// of fields than the header are errors naming line, byte and field.
///
/// Fields → columns (the ingest core's one rule, `sq_ingest.h`, the same as
/// `csv_stream`'s typed table and ``Database/importJSON(bytes:into:options:progress:)-70bm6``):
/// with a header, each header name feeds the table column of that name (exact,
/// else ignoring ASCII case), or the column ``renames`` maps it to; a header
/// name without a column is ignored (``strict``: an error); table columns no
/// header name feeds are left out of the `INSERT` (their DEFAULT, or NULL,
/// applies). Without a header, field i feeds the i-th column. Values are
/// coerced by the column's declared type: INTEGER `'12'` → 12, REAL `'1.5'` →
/// 1.5, a DATE/DATETIME/TIMESTAMP column normalizes dates to the library's one
/// date text, TEXT keeps the text; what does not fit is kept as text
/// (``strict``: an error).
public struct CSVImportOptions: Sendable {
    /// The first record names the fields (default `true`).
    public var header: Bool
    /// The field delimiter: `,` (default), `\t`, `;`, `|` or another ASCII character.
    public var delimiter: Unicode.Scalar
    /// The quote character (default `"`), or nil for none.
    public var quote: Unicode.Scalar?
    /// An unquoted field equal to this text is NULL (e.g. `"NA"`, `"\\N"`); quoted it stays text.
    public var nullText: String?
    /// More texts an unquoted field equal to is NULL, besides ``nullText`` (`["NA", "-"]`).
    public var nullTexts: [String] = []
    /// An empty unquoted field is NULL (default `true`) or `''`; a quoted `""` is always `''`.
    public var emptyIsNull: Bool
    /// A record with fewer fields than the header is an error (default `false`) or padded with NULLs.
    public var padShortRecords: Bool
    /// Header name → column, for names that differ from the table's columns.
    public var renames: [String: String]
    /// The table columns that may be filled (default: all).
    public var columns: [String]?
    /// Unknown header names and values that do not fit their column are errors (default `false`).
    public var strict: Bool
    /// When the table does not exist, create it from the header with column types
    /// inferred from the first ``inferRecords`` records (the rule of
    /// `sq_csv_ingest.h`: INTEGER when every value is a canonically written 64-bit
    /// integer, REAL when every value is a decimal number a REAL holds (its nearest double,
    /// whatever its number of digits) or an integer a double holds exactly,
    /// DATE or DATETIME when every value is a date or a date-time, else TEXT). A later value that does not fit its inferred column is an error
    /// naming its line — never a silently changed value. Default `false`.
    public var createTable: Bool
    /// Records inference looks at (default 1000; at most the first 16 MiB).
    public var inferRecords: Int
    /// With ``createTable``: column name → the type to declare instead of the inferred one
    /// (`["zip": "TEXT"]` keeps `02134` as written). A declared INTEGER, REAL, DATE or
    /// DATETIME column checks every value as an inferred one does, and a value that does not
    /// fit is an error saying the type was declared; a name the input does not have is an error.
    public var columnTypes: [String: String]
    /// Conflict handling of the `INSERT`; default ``InsertOptions/Conflict/abort``.
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
        header: Bool = true,
        delimiter: Unicode.Scalar = ",",
        quote: Unicode.Scalar? = "\"",
        nullText: String? = nil,
        emptyIsNull: Bool = true,
        padShortRecords: Bool = false,
        renames: [String: String] = [:],
        columns: [String]? = nil,
        strict: Bool = false,
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
        self.header = header
        self.delimiter = delimiter
        self.quote = quote
        self.nullText = nullText
        self.emptyIsNull = emptyIsNull
        self.padShortRecords = padShortRecords
        self.renames = renames
        self.columns = columns
        self.strict = strict
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
