/// `Decodable` values read straight from the records of a CSV file or bytes: the CSV
/// counterpart of ``Database/rows(_:_:_:)-4gb77`` for a `Decodable` type (``CSVRowCursor`` is
/// the one for a hand-written ``RowDecodable`` type, with the same field conversions).
///
/// The C reader (`sq_csv.h`) delivers the fields of one record at a time into one
/// buffer; `CSVRecordDecoder` decodes the value from them with a key → field plan
/// resolved on the first record (see it for the value rules). No dictionaries, no
/// string per field unless the type asks for a `String`; memory does not depend on
/// the file's size.
///
/// ```swift
/// struct Stop: Decodable { var stop_id: String; var stop_lat: Double; var stop_lon: Double }
/// let stops = try CSVDecodableCursor(Stop.self, contentsOfFile: "gtfs/stops.txt")
/// while let stop = try stops.next() { … }
/// ```
///
/// Reading options are those of ``CSVImportOptions`` (header, delimiter, quote, NULL
/// text, empty fields, short records, chunk size); the storing ones are not used.
/// Errors: malformed CSV throws ``CSVImportError`` (line, byte, field); a field that
/// does not convert throws `DecodingError` naming line, byte, record and field.
public final class CSVDecodableCursor<Value: Decodable>: Cursor {
    private let reader: CSVFieldReader
    private let decoder: CSVRecordDecoder
    /// With ``ImportOptions/onError`` `.skip`: where bad records go.
    private let rejects: CSVCursorRejects?

    /// Reads the file at `path` in ``ImportOptions/chunkSize`` chunks.
    public init(_ type: Value.Type, contentsOfFile path: String, options: CSVImportOptions = CSVImportOptions(),
                userInfo: [CodingUserInfoKey: any Sendable] = [:]) throws {
        reader = try CSVFieldReader(path: path, options: options)
        decoder = CSVRecordDecoder(reader: reader)
        decoder.userInfo = userInfo
        rejects = try CSVCursorRejects(options: options, function: "CSVDecodableCursor")
    }

    /// Reads several files one after the other: each entry of `files` a path or a glob
    /// (`"logs/2026-*.csv"`, its matches sorted by name: the expansion of `csv_stream`).
    /// Each file has its own header, and keys are matched to its names.
    public init(_ type: Value.Type, contentsOfFiles files: [String], options: CSVImportOptions = CSVImportOptions(),
                userInfo: [CodingUserInfoKey: any Sendable] = [:]) throws {
        reader = try CSVFieldReader(files: files, options: options, function: "CSVDecodableCursor")
        decoder = CSVRecordDecoder(reader: reader)
        decoder.userInfo = userInfo
        rejects = try CSVCursorRejects(options: options, function: "CSVDecodableCursor")
    }

    /// Reads CSV held in memory.
    public init(_ type: Value.Type, bytes: [UInt8], options: CSVImportOptions = CSVImportOptions(),
                userInfo: [CodingUserInfoKey: any Sendable] = [:]) throws {
        reader = try CSVFieldReader(bytes: bytes, options: options)
        decoder = CSVRecordDecoder(reader: reader)
        decoder.userInfo = userInfo
        rejects = try CSVCursorRejects(options: options, function: "CSVDecodableCursor")
    }

    /// The header names (after the first ``next()``), or c1, c2, … without a header.
    public var fieldNames: [String] { reader.fieldNames }

    /// The next value, or nil after the last record. With ``ImportOptions/onError``
    /// `.skip`, a record with another field count than the header, or one that does not
    /// decode as `Value`, goes to ``ImportOptions/onReject`` and the next one is read.
    public func next() throws -> Value? {
        while true {
            guard try reader.next() else { try rejects?.end(); return nil }
            if decoder.fileIndex != reader.fileIndex { decoder.newHeader() }
            decoder.beginRecord()
            guard let rejects else { return try Value(from: decoder) }
            rejects.records += 1
            if let ragged = reader.raggedError { try rejects.reject(ragged, reader: reader); continue }
            do { return try Value(from: decoder) } catch { try rejects.reject(error, reader: reader) }
        }
    }
}
