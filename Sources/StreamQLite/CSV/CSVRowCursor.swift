import CStreamQLite
import Foundation

/// ``RowDecodable`` values read straight from the records of a CSV file or bytes: the
/// CSV counterpart of ``Database/rows(_:_:_:)-7hl74`` for a hand-written ``RowDecodable`` type
/// (``CSVDecodableCursor`` is the one for `Decodable`).
///
/// Each record is handed to `init(row:)` as a ``Row``: `row[i]` reads the i-th field,
/// `row["name"]` the field under that header name — the name → field plan is resolved
/// once per input and then followed record after record, as a statement's is. Field text
/// converts as ``CSVDecodableCursor`` converts it: integers `-?[0-9]+` within the type's
/// range, `Double`/`Float` by the C core's number rule (`sq_number.h`), `Bool` from `true`/`false`/`1`/`0`, `Date` by the one date codec, `Data` from base64,
/// a NULL field (an empty unquoted field, or the NULL text) `nil` for optionals and an
/// error otherwise. A ``DatabaseValueConvertible`` type of your own reads its raw value's
/// field when it is `RawRepresentable` (string and integer enums), else the field through
/// ``DatabaseValueConvertible/fromDatabaseValue(_:)``: `.text`, or when the type refuses the
/// text and it is a number, `.integer` or `.real`. The same type reads database rows and CSV records:
///
/// ```swift
/// struct Stop: RowDecodable {
///     var id: String, lat: Double, lon: Double
///     init(row: Row) throws { id = try row["stop_id"]; lat = try row["stop_lat"]; lon = try row["stop_lon"] }
/// }
/// let stops = try CSVRowCursor(Stop.self, contentsOfFile: "gtfs/stops.txt")
/// while let stop = try stops.next() { … }
/// let stored = try db.rows(Stop.self, "SELECT stop_id, stop_lat, stop_lon FROM stops").collect()
/// ```
///
/// Reading options are those of ``CSVImportOptions`` (header, delimiter, quote, NULL text,
/// empty fields, short records, chunk size). Errors are ``CSVImportError``s naming line,
/// byte, record, field and header name: malformed CSV, and a field that does not convert
/// (`CSVRowCursor: line 3, byte 12, field 2 (n): '300' is not a UInt8`).
public final class CSVRowCursor<Value: RowDecodable>: Cursor {
    private let reader: CSVFieldReader
    private let record: CSVRecordRow
    /// With ``ImportOptions/onError`` `.skip`: where bad records go.
    private let rejects: CSVCursorRejects?

    /// Reads the file at `path` in ``ImportOptions/chunkSize`` chunks.
    ///
    /// ```swift
    /// let stops = try CSVRowCursor(Stop.self, contentsOfFile: "gtfs/stops.txt")
    /// while let stop = try stops.next() { print(stop.id) }
    /// ```
    ///
    /// - Parameters:
    ///   - type: The ``RowDecodable`` type of a record.
    ///   - path: The file, a pipe or `/dev/stdin`; plain, gzip or zstd.
    ///   - options: The reading options of ``CSVImportOptions``.
    /// - Throws: ``CSVImportError`` when the file cannot be opened or its header is malformed.
    public init(_ type: Value.Type, contentsOfFile path: String, options: CSVImportOptions = CSVImportOptions()) throws {
        reader = try CSVFieldReader(path: path, options: options, function: "CSVRowCursor")
        record = CSVRecordRow(reader: reader)
        rejects = try CSVCursorRejects(options: options, function: "CSVRowCursor")
    }

    /// Reads CSV held in memory.
    public init(_ type: Value.Type, bytes: [UInt8], options: CSVImportOptions = CSVImportOptions()) throws {
        reader = try CSVFieldReader(bytes: bytes, options: options, function: "CSVRowCursor")
        record = CSVRecordRow(reader: reader)
        rejects = try CSVCursorRejects(options: options, function: "CSVRowCursor")
    }

    /// Reads several files one after the other: each entry of `files` a path or a glob
    /// (`"logs/2026-*.csv"`, its matches sorted by name: the expansion of `csv_stream`).
    /// Each file has its own header, and names are looked up in it; positions in errors
    /// are in the file ``CSVImportError/file`` names.
    public init(_ type: Value.Type, contentsOfFiles files: [String], options: CSVImportOptions = CSVImportOptions()) throws {
        reader = try CSVFieldReader(files: files, options: options, function: "CSVRowCursor")
        record = CSVRecordRow(reader: reader)
        rejects = try CSVCursorRejects(options: options, function: "CSVRowCursor")
    }

    /// The header names (after the first ``next()``), or c1, c2, … without a header.
    public var fieldNames: [String] { reader.fieldNames }

    /// The next value, or nil after the last record. With ``ImportOptions/onError``
    /// `.skip`, a record with another field count than the header, or one `init(row:)`
    /// throws for, goes to ``ImportOptions/onReject`` and the next one is read.
    public func next() throws -> Value? {
        while true {
            guard try reader.next() else { try rejects?.end(); return nil }
            if record.fileIndex != reader.fileIndex { record.newHeader() }
            guard let rejects else { return try Value(row: Row(record: record)) }
            rejects.records += 1
            if let ragged = reader.raggedError { try rejects.reject(ragged, reader: reader); continue }
            do { return try Value(row: Row(record: record)) } catch { try rejects.reject(error, reader: reader) }
        }
    }
}

/// The current record of a ``CSVRowCursor`` as a ``Row`` reads it: fields by index, the
/// name → field plan of the input, and errors with their position.
@usableFromInline
final class CSVRecordRow: InputRecord {
    let reader: CSVFieldReader
    /// The name → field plan (see ``lookUpTrail(_:_:_:)``), kept for the whole input.
    @exclusivity(unchecked) @usableFromInline var lookupTrail: [(String, Int)] = []
    @exclusivity(unchecked) @usableFromInline var lookupHint = 0
    /// The reader's file the plan is for.
    var fileIndex = 0

    init(reader: CSVFieldReader) { self.reader = reader }

    /// Another file, another header: the plan starts again.
    func newHeader() {
        lookupTrail.removeAll()
        lookupHint = 0
        fileIndex = reader.fileIndex
    }

    override var fieldCount: Int { reader.fieldCount }
    override var fieldNames: [String] { reader.fieldNames }

    /// The conversion plan of each field, by index (``CSVFieldPlan``): resolved the first
    /// time a record reads the field as a type, again when a record reads it as another.
    @exclusivity(unchecked) @usableFromInline var plans: [CSVFieldPlan] = []
    /// The conversions of the plans that have one (``CSVFieldPlan/How/conversion(_:)``).
    @exclusivity(unchecked) var conversions: [CSVFieldConversion] = []
    /// The field each of ``conversions`` is for.
    var conversionFields: [Int] = []

    /// The bytes of field `index` of the current record (nil: NULL); a missing field throws.
    @usableFromInline @inline(__always)
    func bytes(_ index: Int) throws -> UnsafeBufferPointer<UInt8>? {
        guard _fastPath(index >= 0 && index < reader.fieldCount) else {
            throw failure(CSVFieldError(message: "no field \(index + 1) (the record has \(reader.fieldCount))"),
                          field: index)
        }
        let f = reader.fields[index]
        return f.isNull ? nil : UnsafeBufferPointer(start: reader.text + f.start, count: f.count)
    }

    /// Field `index` into `out` (memory for the type `type` identifies) when the plan kept for
    /// the field is for that type and has a rule or a conversion; false otherwise (nothing read).
    @usableFromInline
    override func read(_ index: Int, as type: ObjectIdentifier, into out: UnsafeMutableRawPointer) throws -> Bool {
        guard _fastPath(index >= 0 && index < plans.count), _fastPath(plans[index].type == type) else { return false }
        let plan = plans[index]
        if case .databaseValue = plan.how { return false }
        try read(index, plan, into: out)
        return true
    }

    /// Field `index` as a `T` when ``read(_:as:into:)`` did not read it: through
    /// `T.fromDatabaseValue`, or by a plan made now.
    @inlinable @inline(never)
    override func decodeByPlan<T: DatabaseValueConvertible>(_ type: T.Type, at index: Int) throws -> T {
        let plan = index >= 0 && index < plans.count && plans[index].type == ObjectIdentifier(T.self)
            ? plans[index] : resolvePlan(T.self, at: index)
        if case .databaseValue(let named) = plan.how {
            let field = CSVField(bytes: try bytes(index))
            do { return try field.decodeThroughDatabaseValue(T.self, named: named) } catch { throw failure(error, field: index) }
        }
        return try withUnsafeTemporaryAllocation(of: T.self, capacity: 1) { buffer in
            let p = buffer.baseAddress.unsafelyUnwrapped
            try read(index, plan, into: UnsafeMutableRawPointer(p))
            return p.move()
        }
    }

    /// The plan of field `index` for a `T`, kept for the next records (for the first 4,096
    /// fields; a field read as another type gets a plan for that type).
    @usableFromInline
    func resolvePlan<T: DatabaseValueConvertible>(_ type: T.Type, at index: Int) -> CSVFieldPlan {
        let how: CSVFieldPlan.How
        switch CSVFieldPlan.way(T.self) {
        case .rule(let rule, let optional): how = .rule(rule, optional: optional)
        case .databaseValue(let named): how = .databaseValue(named: named)
        case .conversion(let conversion):
            // One slot per field: a field read as two such types in turn replaces its conversion.
            if let i = conversionFields.firstIndex(of: index) {
                conversions[i] = conversion
                how = .conversion(i)
            } else {
                conversions.append(conversion)
                conversionFields.append(index)
                how = .conversion(conversions.count - 1)
            }
        }
        let plan = CSVFieldPlan(type: ObjectIdentifier(T.self), how: how)
        guard index >= 0, index < 4096 else { return plan }
        if index >= plans.count {
            // The fields before it not planned yet: for a type no record reads.
            let unplanned = CSVFieldPlan(type: ObjectIdentifier(CSVFieldPlan.self), how: .databaseValue(named: CSVFieldPlan.self))
            plans.append(contentsOf: repeatElement(unplanned, count: index + 1 - plans.count))
        }
        plans[index] = plan
        return plan
    }

    /// Field `index` by a plan with a rule or a conversion, into `out` (memory for the plan's type).
    @usableFromInline @inline(__always)
    func read(_ index: Int, _ plan: CSVFieldPlan, into out: UnsafeMutableRawPointer) throws {
        let field = try bytes(index)
        do {
            switch plan.how {
            case .rule(let rule, let optional): try rule.read(field, optional: optional, into: out)
            case .conversion(let i): try conversions[i](field, out)
            case .databaseValue: preconditionFailure("CSVRecordRow.read: a plan through fromDatabaseValue")
            }
        } catch {
            throw failure(error, field: index)
        }
    }

    @usableFromInline
    override func isNull(_ index: Int) -> Bool {
        index < 0 || index >= reader.fieldCount || reader.fields[index].isNull
    }

    @usableFromInline
    override func value(at index: Int) -> DatabaseValue {
        guard index >= 0, index < reader.fieldCount, !reader.fields[index].isNull else { return .null }
        let f = reader.fields[index]
        return .text(CSVText.string(UnsafeBufferPointer(start: reader.text + f.start, count: f.count)))
    }

    /// The index of the field `name`: from the plan (``lookUpTrail(_:_:_:)``), else resolved.
    @usableFromInline @inline(__always)
    override func fieldIndex(of name: String, for type: Any.Type) throws -> Int {
        if let i = lookUpTrail(name, lookupTrail, &lookupHint) { return i }
        return try resolveField(name, type: type)
    }

    /// A name not in the plan yet: found by the ingest core's rule and added to the plan.
    @usableFromInline
    func resolveField(_ name: String, type: Any.Type) throws -> Int {
        guard let i = reader.fieldIndex(named: name) else {
            throw CSVImportError(message: "no field '\(name)' in the header (\(reader.fieldNames.joined(separator: ", ")))",
                                 line: reader.line, byteOffset: reader.offset, record: reader.record,
                                 function: "CSVRowCursor", file: reader.errorFile)
        }
        if lookupTrail.count < 64 { lookupTrail.append((name, i)) }
        return i
    }

    /// A conversion error with the field's position.
    @usableFromInline
    func failure(_ error: any Error, field index: Int) -> CSVImportError {
        let message = (error as? CSVFieldError)?.message ?? "\(error)"
        let inRecord = index >= 0 && index < reader.fieldCount
        let f = inRecord ? reader.fields[index] : nil
        return CSVImportError(message: message, line: f?.line ?? reader.line, byteOffset: f?.offset ?? reader.offset,
                              record: reader.record, field: index + 1,
                              fieldName: reader.name(of: index), function: "CSVRowCursor", file: reader.errorFile)
    }
}
