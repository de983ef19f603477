import CStreamQLite

/// The columns of a table ``ImportOptions/createTable`` makes, inferred from the first
/// ``ImportOptions/inferRecords`` elements of the input (at most its first 16 MiB,
/// `SQ_CSV_INFER_MAX_BYTES`, as for CSV).
///
/// The elements are selected by the ingest core (whole values: the import's own layout
/// or path rule), and each object's members read by the one JSON parser (`sq_json.h`).
/// A column per key, in first-seen order across the sample (keys equal ignoring ASCII
/// case are one column, as the core matches them), named by the key or by its rename.
/// Its type is CSV's (`sq_csv_ingest.h`, TYPE INFERENCE): the one value rule
/// `sq_csv_value_fits` applied to what the JSON value is stored as —
/// a number: its literal (INTEGER, REAL, or TEXT for `1e400`, a 20-digit integer…);
/// a string: TEXT, or DATE/DATETIME when it is one (a string never becomes a number);
/// `true`/`false`: 1/0, SQLite's booleans; an object or array: TEXT (its JSON text);
/// `null`: nothing (a key with only `null`s is TEXT).
/// Elements that are not objects type nothing (the import reports or rejects them).
/// The bytes read are kept, to be fed again to the import once the table exists.
final class JSONColumnInference {
    /// A column: its name, the element it was first seen in, and what its values fit.
    struct Column {
        var name: String
        var firstElement: Int
        /// Where that element begins: byte offset, line and column (1-based) in the input.
        var offset = 0, line = 0, column = 0
        /// Some value was not null.
        var any = false
        /// The `sq_csv_value_fits` bits every value had.
        var fits = UInt32.max
        /// The JSON kinds its values had (`SQ_INGEST_COL_STRING`, `_NUMBER`, `_BOOL`, `_NESTED`).
        var kinds: UInt32 = 0

        /// The core's column flags for a table made from this sample: the column takes the
        /// kinds its values had (strings alone when all were null: a TEXT column keeps them
        /// as they are), so that a later value of another kind is refused rather than
        /// stored changed (`"12"` as 12, `5` or `true` as text).
        var kindFlags: UInt32 {
            SQ_INGEST_COL_KINDS | (kinds != 0 ? kinds : SQ_INGEST_COL_STRING)
        }

        /// The type CSV's inference gives a column whose values fit `fits` (`sq_csv_type_of_fits`).
        var type: Int32 {
            guard any else { return SQ_CSV_T_TEXT }
            return sq_csv_type_of_fits(fits)
        }
    }

    private(set) var columns: [Column] = []
    /// Objects looked at.
    private(set) var elements = 0
    /// The input read so far, fed again to the import.
    private(set) var sample: [UInt8] = []

    private let maxElements: Int
    private let renames: [String: String]
    private let layout: JSONImportOptions.Layout
    private let core: OpaquePointer
    private var parser: OpaquePointer?
    private var done = false
    /// Column index by name folded to ASCII lowercase.
    private var index: [String: Int] = [:]
    /// The element being read is an object; the column of its member being read.
    private var inObject = false
    private var current = -1
    /// Where the element being read begins.
    private var element = (offset: 0, line: 0, column: 0)

    /// What a string may be (`sq_csv_value_fits` bits): never a number.
    private static let stringFits = UInt32(1 << SQ_CSV_T_TEXT | 1 << SQ_CSV_T_DATE | 1 << SQ_CSV_T_DATETIME)
    /// What `true` and `false` are stored as: 1 and 0.
    private static let booleanFits = sq_csv_value_fits("1", 1)

    init(options: JSONImportOptions, maxRecord: Int64) throws {
        maxElements = max(options.inferRecords, 1)
        renames = options.renames
        layout = options.layout
        guard let core = sq_ingest_new(nil, nil) else { throw Database.JSONImportError(message: "out of memory", byteOffset: 0, line: 1, column: 1) }
        self.core = core
        let me = Unmanaged.passUnretained(self).toOpaque()
        guard let parser = sq_json_new({ me, t in
            Unmanaged<JSONColumnInference>.fromOpaque(me!).takeUnretainedValue().take(t!.pointee)
        }, me) else { throw Database.JSONImportError(message: "out of memory", byteOffset: 0, line: 1, column: 1) }
        self.parser = parser
        sq_ingest_set_row_callback(core, { me, row in
            Unmanaged<JSONColumnInference>.fromOpaque(me!).takeUnretainedValue().take(row!.pointee)
        }, me)
        sq_ingest_set_whole_values(core, 1)
        JSONImporter.configure(core, layout: options.layout, maxRecord: maxRecord)
        // rejecting: a bad record types nothing (the import rejects it when it reads it)
        if options.onError == .skip { sq_ingest_set_reject_callback(core, { _, _ in SQ_INGEST_CONTINUE }, nil) }
        if sq_ingest_error_info(core).pointee.code != SQ_INGEST_E_NONE { throw error() }
    }

    deinit {
        sq_ingest_free(core)
        sq_json_free(parser)
    }

    /// Reads `bytes` (kept): true when the sample is complete (enough elements or bytes).
    func feed(_ bytes: UnsafeRawBufferPointer) throws -> Bool {
        sample.append(contentsOf: bytes)
        if sq_ingest_json_feed(core, bytes.baseAddress, bytes.count) == SQ_INGEST_ERROR { throw error() }
        if sample.count >= Int(SQ_CSV_INFER_MAX_BYTES) { done = true }
        return done
    }

    /// The input ended before the sample was complete.
    func finish() throws {
        if !done && sq_ingest_json_finish(core) == SQ_INGEST_ERROR { throw error() }
        done = true
    }

    /// The error of the core: the one the import reports for the same input.
    private func error() -> Database.JSONImportError {
        JSONImporter.error(sq_ingest_error_info(core).pointee, layout: layout)
    }

    // MARK: Elements and members

    /// An element, as JSON text: its members read (an object) or nothing (another value).
    private func take(_ row: sq_ingest_row) -> Int32 {
        let v = row.values[0]
        element = (Int(row.offset), Int(row.line), Int(row.column))
        inObject = false
        current = -1
        sq_json_reset(parser)
        if sq_json_feed(parser, v.text, v.len) != SQ_JSON_OK || sq_json_finish(parser) != SQ_JSON_OK {
            return 2   // the core's own minified text: not reached
        }
        guard inObject else { return SQ_INGEST_CONTINUE }
        elements += 1
        if elements >= maxElements {
            done = true
            return SQ_INGEST_PAUSE
        }
        return SQ_INGEST_CONTINUE
    }

    /// A token of the element: its members (depth 1) type their columns.
    private func take(_ t: sq_json_token) -> Int32 {
        let type = sq_json_type(UInt32(t.type))
        if t.depth == 0 {
            if type == SQ_JSON_BEGIN_OBJECT { inObject = true }
            return SQ_JSON_CONTINUE
        }
        guard inObject, t.depth == 1 else { return SQ_JSON_CONTINUE }
        switch type {
        case SQ_JSON_KEY:
            current = column(forKey: String(decoding: UnsafeRawBufferPointer(start: t.text, count: t.len), as: UTF8.self))
        case SQ_JSON_NUMBER: note(sq_csv_value_fits(t.text, t.len), kind: SQ_INGEST_COL_NUMBER)
        case SQ_JSON_STRING: note(sq_csv_value_fits(t.text, t.len) & Self.stringFits, kind: SQ_INGEST_COL_STRING)
        case SQ_JSON_TRUE, SQ_JSON_FALSE: note(Self.booleanFits, kind: SQ_INGEST_COL_BOOL)
        case SQ_JSON_BEGIN_OBJECT, SQ_JSON_BEGIN_ARRAY: note(1 << SQ_CSV_T_TEXT, kind: SQ_INGEST_COL_NESTED)
        default: break   // null; the end of a nested value
        }
        return SQ_JSON_CONTINUE
    }

    private func note(_ fits: UInt32, kind: UInt32) {
        columns[current].any = true
        columns[current].fits &= fits
        columns[current].kinds |= kind
    }

    /// The column `key` feeds: its rename's (exactly, else ignoring ASCII case) or its own
    /// name, one column for names equal ignoring ASCII case; new ones appended.
    private func column(forKey key: String) -> Int {
        let folded = Self.folded(key)
        let name = renames[key] ?? renames.first { Self.folded($0.key) == folded }?.value ?? key
        let id = name == key ? folded : Self.folded(name)
        if let i = index[id] { return i }
        columns.append(Column(name: name, firstElement: elements,
                              offset: element.offset, line: element.line, column: element.column))
        index[id] = columns.count - 1
        return columns.count - 1
    }

    /// `s` with A-Z as a-z (SQLite's rule for column names), other bytes as they are.
    static func folded(_ s: String) -> String {
        String(decoding: s.utf8.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }, as: UTF8.self)
    }
}
