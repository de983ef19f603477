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
///
/// The fields every import shares (renames, strict mode, creating the table, batching,
/// rejects…) are those of ``ImportOptions``, held in ``common`` and read and written here
/// as this type's own.
@dynamicMemberLookup
public struct JSONImportOptions: Sendable {
    /// Where the rows are in the document: ``JSONValueDecoder/Layout``, which the element
    /// streams take too.
    public typealias Layout = JSONValueDecoder.Layout

    /// Where the rows are; default ``JSONValueDecoder/Layout/array``.
    public var layout: JSONImportOptions.Layout
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
    public init(layout: JSONImportOptions.Layout = .array, renames: [String: String] = [:], strict: Bool = false,
                columns: [String]? = nil, createTable: Bool = false, inferRecords: Int = 1000, onConflict: InsertOptions.Conflict = .abort, batchSize: Int = 50,
                chunkSize: Int = 256 * 1024, onError: ImportReject.Policy = .abort, maxErrors: ImportReject.Limit? = nil,
                rejectTable: String? = nil, onReject: (@Sendable (ImportReject) -> Void)? = nil,
                filenameColumn: String? = nil) {
        self.layout = layout
        common = ImportOptions(
            renames: renames, strict: strict, columns: columns, createTable: createTable,
            inferRecords: inferRecords, onConflict: onConflict, batchSize: batchSize,
            chunkSize: chunkSize, onError: onError, maxErrors: maxErrors, rejectTable: rejectTable,
            onReject: onReject, filenameColumn: filenameColumn)
    }

    /// Creates options of this layout and `common`, the fields every import shares.
    public init(layout: JSONImportOptions.Layout = .array, common: ImportOptions) {
        self.layout = layout
        self.common = common
    }
}

extension Database {
    /// A JSON import (``Database/importJSON(bytes:into:options:progress:)-70bm6`` and the other
    /// `importJSON` calls) failed; nothing of it was written.
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
}
