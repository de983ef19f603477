extension JSONWriterOptions {
    /// The shape of the JSON a ``JSONRowWriter`` produces.
    public enum Format: Sendable, Equatable {
        /// `[{"id":1,"title":"a"},{"id":2,"title":"b"}]`: one object per row, keyed by column name.
        case arrayOfObjects
        /// `{"id":1,"title":"a"}` + newline per row (newline-delimited JSON / JSON Lines).
        /// Always compact: ``JSONWriterOptions/prettyPrinted`` is ignored, since a record must be one line.
        case ndjson
        /// `[[1,"a"],[2,"b"]]`: one array per row, values in column order, no names.
        case arrayOfArrays
    }
}

/// What a ``JSONRowWriter`` does with TEXT values that are not valid UTF-8.
///
/// SQLite stores whatever bytes it is given, so a TEXT column may hold
/// malformed UTF-8 that JSON cannot represent.
public enum InvalidUTF8Policy: Sendable, Equatable {
    /// Replace each maximal invalid subsequence with U+FFFD (the Unicode
    /// "substitution of maximal subparts" practice, as `String(decoding:as:)` does).
    case replace
    /// Throw ``JSONWriterError/invalidUTF8(row:column:byteOffset:)``.
    case reject
}

/// Options of a ``JSONRowWriter``.
///
/// The number rules are fixed and documented here:
/// * INTEGER values are written exactly (all 64 bits).
/// * REAL values are written in the shortest form that reads back to the same
///   `Double` (Swift's `description`): `0.1`, `1e-05`, `1.2345678901234568e+17`.
///   Integral values keep their `.0` (`3.0`), so REAL stays REAL when the JSON
///   is read back (`Database.importJSON(bytes:into:options:)` stores a number
///   with a fraction or exponent as REAL). `-0.0` is written as `-0.0`.
/// * NaN, +Infinity and -Infinity have no JSON form and are written as `null`.
/// * BLOB values are written as a base64 string (RFC 4648, with padding).
public struct JSONWriterOptions: Sendable {
    /// The document shape; default ``JSONWriterOptions/Format/arrayOfObjects``.
    public var format: JSONWriterOptions.Format
    /// Indent nested values by two spaces, one key per line, `": "` after keys.
    /// Arrays of arrays put one row per line. Embedded JSON values are copied as they are.
    public var prettyPrinted: Bool
    /// Malformed UTF-8 in TEXT values: replaced with U+FFFD (default) or an error.
    public var invalidUTF8: InvalidUTF8Policy
    /// Write U+2028 and U+2029 as `\u2028` / `\u2029` (default `true`), so the
    /// output can also be pasted into JavaScript source or an HTML `<script>`.
    /// Both forms are valid JSON.
    public var escapeLineSeparators: Bool
    /// Columns whose TEXT values already are JSON and are embedded as they are,
    /// not quoted. Values carrying SQLite's JSON subtype (`json_object(…)` and
    /// friends) are always embedded (SQLite made them). Values of these columns
    /// are checked with the C parser (`sq_json.h`, strict RFC 8259, one value)
    /// before they are embedded: invalid JSON throws
    /// ``JSONWriterError/invalidRawJSON(row:column:byteOffset:message:)``, so the
    /// output stays valid. An empty string is written as `null`.
    public var rawJSONColumns: Set<String>
    /// Columns holding booleans as SQLite stores them (INTEGER 0 and 1), written as
    /// `false` and `true` (NULL stays `null`). Any other value in such a column (2, a
    /// REAL, TEXT, a BLOB) throws ``JSONWriterError/notBoolean(row:column:value:)``
    /// rather than being guessed at. Cheaper than SQL's `iif(done, json('true'), json('false'))`,
    /// which makes a JSON value per row that is then checked before it is embedded.
    public var booleanColumns: Set<String>
    /// Bytes collected before they are handed to the sink (default 64 KiB).
    public var chunkSize: Int

    /// Creates options; every parameter has the documented default.
    public init(
        format: JSONWriterOptions.Format = .arrayOfObjects,
        prettyPrinted: Bool = false,
        invalidUTF8: InvalidUTF8Policy = .replace,
        escapeLineSeparators: Bool = true,
        rawJSONColumns: Set<String> = [],
        booleanColumns: Set<String> = [],
        chunkSize: Int = 64 * 1024
    ) {
        self.format = format
        self.prettyPrinted = prettyPrinted
        self.invalidUTF8 = invalidUTF8
        self.escapeLineSeparators = escapeLineSeparators
        self.rawJSONColumns = rawJSONColumns
        self.booleanColumns = booleanColumns
        self.chunkSize = chunkSize
    }
}

/// An error producing JSON output.
public enum JSONWriterError: Error, Equatable, CustomStringConvertible {
    /// A TEXT value is not valid UTF-8 and the policy is ``InvalidUTF8Policy/reject``.
    /// `row` counts from 0; `byteOffset` is the offset of the first bad byte in the value.
    case invalidUTF8(row: Int, column: String, byteOffset: Int)
    /// A value of a ``JSONWriterOptions/rawJSONColumns`` column is not valid JSON.
    case invalidRawJSON(row: Int, column: String, byteOffset: Int, message: String)
    /// A value of a ``JSONWriterOptions/booleanColumns`` column is neither 0, 1 nor NULL
    /// (`value` is the value as SQL would write it, cut at 50 characters).
    case notBoolean(row: Int, column: String, value: String)

    /// The error as a sentence naming the row, column and offset.
    public var description: String {
        switch self {
        case let .invalidUTF8(row, column, offset):
            return "JSON output: row \(row), column '\(column)': invalid UTF-8 at byte \(offset) of the text value"
        case let .invalidRawJSON(row, column, offset, message):
            return "JSON output: row \(row), column '\(column)' is declared raw JSON but is not valid JSON at byte \(offset): \(message)"
        case let .notBoolean(row, column, value):
            return "JSON output: row \(row), column '\(column)' is declared boolean but holds \(value) (only 0, 1 and NULL are booleans)"
        }
    }
}
