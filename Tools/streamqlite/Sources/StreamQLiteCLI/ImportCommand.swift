import ArgumentParser
import Foundation
import StreamQLite

/// `streamqlite import DB FILE…`: every file into its table, in one transaction.
struct ImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Import CSV, JSON or NDJSON files into tables: all of them or, on an error or Ctrl-C, nothing.",
        discussion: """
            Each file goes into --table, or into the table named after the file: its name up to the \
            first dot (orders.csv and orders.2024.csv.gz: orders). A missing table is created from the \
            CSV header or the JSON keys, its column types inferred from the first records, and the \
            statement that made it is printed; an existing table gets the rows appended, and a file \
            naming columns it lacks is refused (--ignore-extra leaves them out). - reads standard \
            input (give --table and --format). \
            The format comes from the extension (.csv; .json; .ndjson, .jsonl; then .gz or .zst for a \
            compressed file) unless --format says it. Columns are matched by name; see docs/cli.md \
            for the coercion rules.

            On a terminal a progress line shows bytes of the total, rows/s, the time left and the file; \
            otherwise a plain line is printed every --progress-interval seconds; --quiet prints neither.

            Examples:
              streamqlite import shop.db orders.csv --create
              streamqlite import shop.db events.ndjson --create
              streamqlite import shop.db day1.ndjson day2.ndjson --table events
              streamqlite import shop.db prices.csv --upsert sku
            """
    )

    @Argument(help: "The database file (created when missing).")
    var database: String

    @Argument(help: "The files to import, in order.")
    var files: [String]

    @Option(help: "The table for every file (default: each file's name without its extension).")
    var table: String?

    @Option(help: "The files' format: auto (from the extension), csv, json (an array of objects) or ndjson.")
    var format: ImportFormat = .auto

    @Flag(help: "Accepted for scripts written before missing tables were always created: a missing table is created either way; with --create, appending to an existing table is said.")
    var create = false

    @Option(help: ArgumentHelp("A CSV field holding exactly TEXT is NULL (for example NA, as R writes a missing value; repeatable).",
                               valueName: "TEXT"))
    var null: [String] = []

    @Option(help: ArgumentHelp("Update the row with the same KEY instead of failing (repeat for a composite key).",
                               valueName: "KEY"))
    var upsert: [String] = []

    @Flag(help: "Leave out the columns of a file that an existing table lacks (they are refused otherwise).")
    var ignoreExtra = false

    @Option(help: ArgumentHelp("Records whose values decide the column types of a created table.",
                               valueName: "N"))
    var inferRecords: Int = 1000

    @Option(name: .customLong("type"),
            help: ArgumentHelp("Declare COLUMN of a created table as TYPE instead of the inferred type (repeatable).",
                               valueName: "COLUMN=TYPE"))
    var types: [String] = []

    @Flag(help: "Print no progress and no summary (errors only).")
    var quiet = false

    @Option(help: ArgumentHelp("Seconds between progress updates (default: 0.1 on a terminal, 1 otherwise).",
                               valueName: "SECONDS"))
    var progressInterval: Double?

    func validate() throws {
        guard !files.isEmpty else { throw ValidationError("Missing expected argument '<files> ...': give at least one file") }
        if let progressInterval, !(progressInterval > 0) {
            throw ValidationError("--progress-interval: '\(progressInterval)' is not a positive number of seconds")
        }
        guard inferRecords >= 1 else { throw ValidationError("--infer-records: '\(inferRecords)' is not a positive count") }
        for t in types {
            let parts = t.split(separator: "=", maxSplits: 1)
            guard parts.count == 2, !parts[0].isEmpty, !parts[1].trimmingCharacters(in: .whitespaces).isEmpty else {
                throw ValidationError("--type: '\(t)' is not COLUMN=TYPE (for example zip=TEXT)")
            }
        }
        if files.contains("-") {
            guard table != nil, format != .auto else {
                throw ValidationError("- (standard input) needs --table and --format: a pipe has no name to tell them by")
            }
            guard files.filter({ $0 == "-" }).count == 1 else { throw ValidationError("- (standard input) can be read once") }
        }
    }

    func run() throws {
        let sources = try files.map { try ImportSource(path: $0, format: format, table: table) }
        let columnTypes = Dictionary(types.map { t -> (String, String) in
            let parts = t.split(separator: "=", maxSplits: 1)
            return (String(parts[0]), String(parts[1]).trimmingCharacters(in: .whitespaces))
        }, uniquingKeysWith: { _, last in last })
        let options = ImportSettings(createTable: true, upsertKeys: upsert, nullTexts: null, inferRecords: inferRecords,
                                     columnTypes: columnTypes)
        let existed = FileManager.default.fileExists(atPath: database)
        let db = try Database(path: database)
        // The tables there before: created ones are shown, existing ones appended to.
        let before = Set(try db.values(String.self, "SELECT lower(name) FROM sqlite_master WHERE type = 'table'").collect().compactMap { $0 })
        // --upsert needs a key SQLite can find the row by.
        if !upsert.isEmpty {
            for source in sources {
                if let why = try upsertProblem(db, table: source.table, exists: before.contains(source.table.lowercased())) {
                    removeIfCreatedEmpty(db, existed: existed)
                    Terminal.error("streamqlite import: --upsert \(upsert.joined(separator: ",")): \(why)\nnothing was stored\n")
                    throw ExitCode.failure
                }
            }
        }
        // A file naming columns its existing table lacks is most likely meant for another table.
        if !ignoreExtra {
            for source in sources where before.contains(source.table.lowercased()) {
                if let refusal = try source.extraColumns(in: db) {
                    removeIfCreatedEmpty(db, existed: existed)
                    Terminal.error("streamqlite import: \(source.path): \(refusal)\nnothing was stored\n")
                    throw ExitCode.failure
                }
            }
        }
        let interruption = ImportInterruption(db)
        defer { interruption.remove() }
        let progress = ImportProgress(sources: sources, quiet: quiet, interval: progressInterval)
        var stored: [Int] = []
        var current = 0
        do {
            try db.transaction {
                for (i, source) in sources.enumerated() {
                    current = i
                    progress.beginFile(i)
                    stored.append(try source.run(into: db, settings: options, progress: progress))
                    progress.endFile(rows: stored[i])
                }
                // A Ctrl-C after the last statement must not commit.
                if interruption.requested { throw CancellationError() }
            }
        } catch {
            progress.clear()
            interruption.remove()
            removeIfCreatedEmpty(db, existed: existed)
            if interruption.requested {
                Terminal.error("streamqlite import: interrupted (Ctrl-C): rolled back, nothing was stored\n")
                throw ExitCode(130)
            }
            Terminal.error("streamqlite import: \(sources[current].path): \(Self.described(error))\nnothing was stored\n")
            throw ExitCode.failure
        }
        progress.summary(stored: stored)
        guard !quiet else { return }
        var seen = Set<String>()
        for source in sources where seen.insert(source.table.lowercased()).inserted {
            if before.contains(source.table.lowercased()) {
                if create { Terminal.error("streamqlite import: table \(source.table) existed: the rows were appended to it\n") }
            } else if let sql = try? db.value(String.self, "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ? COLLATE NOCASE", source.table) {
                Terminal.error("streamqlite import: created \(sql)\n")
            }
        }
    }

    /// Why `table` cannot take `--upsert` (no PRIMARY KEY or UNIQUE index on exactly those
    /// columns: SQLite's ON CONFLICT needs one), or nil.
    private func upsertProblem(_ db: Database, table: String, exists: Bool) throws -> String? {
        let keys = Set(upsert.map { $0.lowercased() })
        let shown = upsert.joined(separator: ", ")
        guard exists else {
            return "table \(table) does not exist, and a table the import creates has no key: create it first with "
                + "PRIMARY KEY or UNIQUE (\(shown))"
        }
        let pk = try db.values(String.self, "SELECT lower(name) FROM pragma_table_info(?) WHERE pk > 0", table).collect()
        if Set(pk.compactMap { $0 }) == keys { return nil }
        let indexes = try db.values(String.self, "SELECT name FROM pragma_index_list(?) WHERE \"unique\" AND partial = 0", table)
            .collect().compactMap { $0 }
        for index in indexes {
            let columns = try db.values(String?.self, "SELECT lower(name) FROM pragma_index_info(?)", index).collect()
            if Set(columns.compactMap { $0 }) == keys && !columns.contains(where: { $0 == nil }) { return nil }
        }
        return "table \(table) has no PRIMARY KEY or UNIQUE constraint on (\(shown)), which an upsert finds its row by "
            + "(CREATE UNIQUE INDEX \(table)_key ON \(table)(\(shown)))"
    }

    /// An import's error for the tool's user: without the library function's name that the
    /// library's own description starts with (`importCSV: `, `importJSON: `).
    static func described(_ error: any Error) -> String {
        var text = "\(error)"
        if let e = error as? CSVImportError, text.hasPrefix(e.function + ": ") {
            text.removeFirst(e.function.count + 2)
        } else if error is Database.JSONImportError, text.hasPrefix("importJSON: ") {
            text.removeFirst("importJSON: ".count)
        }
        // the library's option is the tool's --type
        return text.replacingOccurrences(of: "columnTypes: ", with: "--type: ")
    }

    /// A failed import into a database file it created leaves no empty file behind.
    private func removeIfCreatedEmpty(_ db: Database, existed: Bool) {
        guard !existed, (try? db.value(Int.self, "SELECT count(*) FROM sqlite_master")) == 0 else { return }
        try? db.closeConnection()
        unlink(database)
    }
}

/// A format `import` reads.
enum ImportFormat: String, ExpressibleByArgument, CaseIterable {
    case auto, csv, json, ndjson
}

/// What applies to every file of one `import`.
struct ImportSettings {
    var createTable: Bool
    var upsertKeys: [String]
    var nullTexts: [String]
    var inferRecords: Int
    var columnTypes: [String: String]

    var onConflict: InsertOptions.Conflict { upsertKeys.isEmpty ? .abort : .update(target: upsertKeys) }

}

/// One input of an import: a file, its format and its table.
struct ImportSource {
    let path: String
    let format: ImportFormat
    let table: String
    /// The file's size in bytes, when it can be known before reading (nil for a pipe, or a
    /// file that cannot be opened: the library then reports that when the import reaches it).
    let size: Int?

    init(path: String, format requested: ImportFormat, table: String?) throws {
        self.path = path
        if path == "-" {
            guard let table, requested != .auto else { throw ValidationError("- (standard input) needs --table and --format") }
            format = requested
            self.table = table
            size = nil
            return
        }
        let name = (path as NSString).lastPathComponent
        // the extension that names the format: the one before .gz or .zst for a compressed file
        var formatName = name
        if ["gz", "zst", "zstd"].contains((formatName as NSString).pathExtension.lowercased()) {
            formatName = (formatName as NSString).deletingPathExtension
        }
        let ext = (formatName as NSString).pathExtension.lowercased()
        if requested != .auto {
            format = requested
        } else {
            switch ext {
            case "csv": format = .csv
            case "json": format = .json
            case "ndjson", "jsonl": format = .ndjson
            default:
                throw ValidationError("cannot tell the format of '\(path)' from its extension: give --format csv, json or ndjson")
            }
        }
        // the name up to its first dot (a dot in a table name would read as schema.table)
        self.table = table ?? String(name.prefix { $0 != "." })
        var info = stat()
        size = stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG ? Int(info.st_size) : nil
    }

    /// The path the library reads: `-` is standard input.
    var readPath: String { path == "-" ? "/dev/stdin" : path }

    /// Why the file does not fit its existing table (it names columns the table lacks, or
    /// none it has), or nil. Read from a regular file only: a pipe gives its bytes once.
    func extraColumns(in db: Database) throws -> String? {
        guard size != nil, let names = try? fieldNames() else { return nil }   // (a bad file: the import says why)
        let columns = try db.values(String.self, "SELECT name FROM pragma_table_info(?)", table).collect().compactMap { $0 }
        let known = Set(columns.map { $0.lowercased() })
        let extra = names.filter { !known.contains($0.lowercased()) }
        guard !extra.isEmpty else { return nil }
        func list(_ a: [String]) -> String { a.count <= 12 ? a.joined(separator: ", ") : a.prefix(12).joined(separator: ", ") + ", … (\(a.count))" }
        let shared = names.filter { known.contains($0.lowercased()) }
        return "\(extra.count) of its \(names.count) columns are not in table \(table): \(list(extra)) "
            + "(it shares \(shared.isEmpty ? "none" : list(shared)); \(table) has \(list(columns))). "
            + "Give --table for another table, or --ignore-extra to leave those columns out"
    }

    /// The CSV header's names, or the keys of the first 100 JSON elements.
    private func fieldNames() throws -> [String] {
        switch format {
        case .csv:
            let cursor = try CSVRowCursor(NoFields.self, contentsOfFile: path)
            if cursor.fieldNames.isEmpty { _ = try cursor.next() }
            return cursor.fieldNames
        case .json, .ndjson:
            let cursor = try JSONValueDecoder().elements(of: ElementKeys.self, contentsOfFile: path,
                                                         layout: format == .ndjson ? .ndjson : .array)
            var seen = Set<String>(), ordered: [String] = []
            var n = 0
            while n < 100, let element = try cursor.next() {
                for k in element.keys where seen.insert(k).inserted { ordered.append(k) }
                n += 1
            }
            return ordered
        case .auto:
            return []
        }
    }

    /// Imports the file through the library's own call for its format; returns the rows stored.
    func run(into db: Database, settings: ImportSettings, progress: ImportProgress) throws -> Int {
        switch format {
        case .csv:
            var options = CSVImportOptions(createTable: settings.createTable, onConflict: settings.onConflict)
            options.nullTexts = settings.nullTexts
            options.inferRecords = settings.inferRecords
            options.columnTypes = settings.columnTypes
            return try db.importCSV(contentsOfFile: readPath, into: table, options: options) {
                progress.update(bytes: $0.bytes, rows: $0.rows)
            }
        case .json, .ndjson:
            var options = JSONImportOptions(layout: format == .ndjson ? .ndjson : .array, createTable: settings.createTable,
                                            onConflict: settings.onConflict)
            options.inferRecords = settings.inferRecords
            options.columnTypes = settings.columnTypes
            return try db.importJSON(contentsOfFile: readPath, into: table, options: options) {
                progress.update(bytes: $0.bytes, rows: $0.rows)
            }
        case .auto:
            preconditionFailure("ImportSource.init resolves .auto")
        }
    }
}

/// A CSV record read for its header only.
private struct NoFields: RowDecodable {
    init(row: Row) {}
}

/// The keys of a JSON object element.
private struct ElementKeys: Decodable {
    var keys: [String]
    private struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
    init(from decoder: any Decoder) throws {
        keys = (try? decoder.container(keyedBy: AnyKey.self).allKeys.map(\.stringValue)) ?? []
    }
}
