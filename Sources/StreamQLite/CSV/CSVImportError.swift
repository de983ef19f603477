/// Why an import failed (nothing of it was stored), or why a ``CSVDecodableCursor`` could
/// not read its input.
///
/// The description names what and where:
/// `importCSV: line 7, byte 312, field 3 (amount): 'N/A' is not an integer…`.
public struct CSVImportError: Error, Equatable, CustomStringConvertible {
    /// What went wrong, without the position.
    public var message: String
    /// 1-based line of the offending field or record (0: no position).
    public var line: Int
    /// 0-based byte offset in the input.
    public var byteOffset: Int
    /// 0-based data record (the header not counted), when within one.
    public var record: Int?
    /// 1-based field number, when a field is concerned.
    public var field: Int?
    /// The field's header name, when known.
    public var fieldName: String?
    /// What was reading: `importCSV` or `CSVDecodableCursor`.
    public var function: String
    /// The file the position is in, when reading several files.
    public var file: String?

    /// An error with its position; each property above describes its argument.
    public init(message: String, line: Int = 0, byteOffset: Int = 0, record: Int? = nil,
                field: Int? = nil, fieldName: String? = nil, function: String = "importCSV", file: String? = nil) {
        self.function = function
        self.file = file
        self.message = message
        self.line = line
        self.byteOffset = byteOffset
        self.record = record
        self.field = field
        self.fieldName = fieldName
    }

    public var description: String {
        var parts: [String] = []
        if line > 0 { parts.append("line \(line), byte \(byteOffset)") }
        if let field { parts.append("field \(field)" + (fieldName.map { " (\($0))" } ?? "")) }
        return function + ": " + (file.map { $0 + ": " } ?? "") + (parts.isEmpty ? "" : parts.joined(separator: ", ") + ": ") + message
    }
}
