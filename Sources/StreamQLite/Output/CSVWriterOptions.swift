/// Options of a ``CSVRowWriter`` (``Database/writeCSV(_:_:to:options:)``).
///
/// The output is RFC 4180: records end with CRLF (or LF), fields are separated
/// by the delimiter, and a field is quoted only when it must be: when it holds
/// the delimiter, the quote character, CR or LF, when it equals the NULL text
/// or is empty (so that `''` and NULL stay apart: `''` is written `""`, which
/// the reader never takes for NULL), or when it is the very first field of the output and
/// starts with a byte order mark (a reader would drop it). Inside quotes a
/// quote is doubled.
///
/// Values: INTEGER exactly; REAL in the shortest form that reads back to the
/// same `Double` (`0.1`, `3.0`, `1e-05`; ±infinity as `Infinity`/`-Infinity`);
/// TEXT as it is (see ``invalidUTF8``); BLOB as base64 (RFC 4648, padded);
/// NULL as ``nullText``. These are the forms ``Database/importCSV(bytes:into:options:progress:)-4lxlc``
/// and `csv_stream` read back to the same values (an INTEGER/REAL column
/// coerces the text), and that Python's `csv` module reads as the same strings.
public struct CSVWriterOptions: Sendable {
    /// How records end.
    public enum LineEnding: Sendable, Equatable {
        /// `\r\n`, as RFC 4180 says (the default; spreadsheet programs expect it).
        case crlf
        /// `\n`.
        case lf
    }

    /// Write the column names as the first record (default `true`).
    public var header: Bool
    /// The field delimiter, one ASCII character other than CR, LF and the quote (default `,`).
    public var delimiter: Unicode.Scalar
    /// The quote character, ASCII (default `"`).
    public var quote: Unicode.Scalar
    /// What a NULL is written as (default: nothing, an empty unquoted field, which
    /// the library's CSV reader reads back as NULL). A TEXT value equal to it is quoted.
    public var nullText: String
    /// How records end (default ``LineEnding/crlf``).
    public var lineEnding: LineEnding
    /// Start the output with a UTF-8 byte order mark (EF BB BF), which spreadsheet
    /// programs use to recognize UTF-8 (default `false`).
    public var byteOrderMark: Bool
    /// TEXT values that are not valid UTF-8: each maximal invalid subsequence
    /// replaced with U+FFFD (default), or ``CSVWriterError/invalidUTF8(row:column:byteOffset:)``.
    public var invalidUTF8: InvalidUTF8Policy
    /// Bytes collected before they are handed to the sink (default 64 KiB).
    public var chunkSize: Int

    /// Creates options; every parameter has the documented default.
    public init(
        header: Bool = true,
        delimiter: Unicode.Scalar = ",",
        quote: Unicode.Scalar = "\"",
        nullText: String = "",
        lineEnding: LineEnding = .crlf,
        byteOrderMark: Bool = false,
        invalidUTF8: InvalidUTF8Policy = .replace,
        chunkSize: Int = 64 * 1024
    ) {
        self.header = header
        self.delimiter = delimiter
        self.quote = quote
        self.nullText = nullText
        self.lineEnding = lineEnding
        self.byteOrderMark = byteOrderMark
        self.invalidUTF8 = invalidUTF8
        self.chunkSize = chunkSize
    }
}

/// An error producing CSV output.
public enum CSVWriterError: Error, Equatable, CustomStringConvertible {
    /// The delimiter or quote is not usable (not ASCII, a line end, or both the same).
    case badOption(String)
    /// A TEXT value is not valid UTF-8 and the policy is ``InvalidUTF8Policy/reject``.
    /// `row` counts from 0 (the header not counted); `byteOffset` is the offset of
    /// the first bad byte in the value.
    case invalidUTF8(row: Int, column: String, byteOffset: Int)

    /// The error as a sentence.
    public var description: String {
        switch self {
        case .badOption(let why):
            return "CSV output: \(why)"
        case let .invalidUTF8(row, column, offset):
            return "CSV output: row \(row), column '\(column)': invalid UTF-8 at byte \(offset) of the text value"
        }
    }
}
