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
/// else ignoring ASCII case), or the column ``ImportOptions/renames`` maps it to; a header
/// name without a column is ignored (``ImportOptions/strict``: an error); table columns no
/// header name feeds are left out of the `INSERT` (their DEFAULT, or NULL,
/// applies). Without a header, field i feeds the i-th column. Values are
/// coerced by the column's declared type: INTEGER `'12'` → 12, REAL `'1.5'` →
/// 1.5, a DATE/DATETIME/TIMESTAMP column normalizes dates to the library's one
/// date text, TEXT keeps the text; what does not fit is kept as text
/// (``ImportOptions/strict``: an error).
///
/// The fields every import shares (renames, strict mode, creating the table, batching,
/// rejects…) are those of ``ImportOptions``, held in ``common`` and read and written here
/// as this type's own.
@dynamicMemberLookup
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
    /// The fields every import shares (``ImportOptions``: renames, strict mode, columns,
    /// creating the table, batching, rejects, the file name column), read and written here as
    /// if they were this type's own: `options.strict = true` sets `options.common.strict`.
    public var common: ImportOptions

    /// A field of ``common``, as if it were this type's own (`options.batchSize = 500`).
    public subscript<T>(dynamicMember keyPath: WritableKeyPath<ImportOptions, T>) -> T {
        get { common[keyPath: keyPath] }
        set { common[keyPath: keyPath] = newValue }
    }

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
        common = ImportOptions(
            renames: renames, strict: strict, columns: columns, createTable: createTable,
            inferRecords: inferRecords, columnTypes: columnTypes, onConflict: onConflict,
            batchSize: batchSize, chunkSize: chunkSize, onError: onError, maxErrors: maxErrors,
            rejectTable: rejectTable, onReject: onReject, filenameColumn: filenameColumn)
    }

    /// Creates options of these reading rules and `common`, the fields every import shares;
    /// every other parameter has the documented default.
    public init(
        header: Bool = true,
        delimiter: Unicode.Scalar = ",",
        quote: Unicode.Scalar? = "\"",
        nullText: String? = nil,
        nullTexts: [String] = [],
        emptyIsNull: Bool = true,
        padShortRecords: Bool = false,
        common: ImportOptions
    ) {
        self.header = header
        self.delimiter = delimiter
        self.quote = quote
        self.nullText = nullText
        self.nullTexts = nullTexts
        self.emptyIsNull = emptyIsNull
        self.padShortRecords = padShortRecords
        self.common = common
    }
}
