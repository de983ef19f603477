import ArgumentParser
import Foundation
import StreamQLite

/// `streamqlite import DB FILE…`: every file into its table, in one transaction.
struct ImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Import CSV, JSON or NDJSON files into tables: all of them or, on an error or Ctrl-C, nothing.",
        discussion: """
            Each file goes into --table, or into the table named after the file: its name up to the
            first dot (orders.csv and orders.2024.csv.gz: orders). A missing table is created from the
            CSV header or the JSON keys, its column types inferred from the first records, and the
            statement that made it is printed; an existing table gets the rows appended.
            The format comes from the extension (.csv; .json; .ndjson, .jsonl; then .gz or .zst for a
            compressed file) unless --format says it. Columns are matched by name; see docs/cli.md
            for the coercion rules.

            On a terminal a progress line shows bytes of the total, rows/s, the time left and the file;
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

    @Option(help: ArgumentHelp("A CSV field holding exactly TEXT is NULL (for example NA, as R writes a missing value).",
                               valueName: "TEXT"))
    var null: String?

    @Option(help: ArgumentHelp("Update the row with the same KEY instead of failing (repeat for a composite key).",
                               valueName: "KEY"))
    var upsert: [String] = []

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
    }

    func run() throws {
        let sources = try files.map { try ImportSource(path: $0, format: format, table: table) }
        let options = ImportSettings(createTable: true, upsertKeys: upsert, nullText: null)
        let existed = FileManager.default.fileExists(atPath: database)
        let db = try Database(path: database)
        // The tables there before: created ones are shown, existing ones appended to.
        let before = Set(try db.values(String.self, "SELECT lower(name) FROM sqlite_master WHERE type = 'table'").collect().compactMap { $0 })
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
            Terminal.error("streamqlite import: \(sources[current].path): \(error)\nnothing was stored\n")
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
    var nullText: String?

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

    /// Imports the file through the library's own call for its format; returns the rows stored.
    func run(into db: Database, settings: ImportSettings, progress: ImportProgress) throws -> Int {
        switch format {
        case .csv:
            let options = CSVImportOptions(nullText: settings.nullText, createTable: settings.createTable,
                                           onConflict: settings.onConflict)
            return try db.importCSV(contentsOfFile: path, into: table, options: options) {
                progress.update(bytes: $0.bytes, rows: $0.rows)
            }
        case .json, .ndjson:
            let options = JSONImportOptions(layout: format == .ndjson ? .ndjson : .array, createTable: settings.createTable,
                                            onConflict: settings.onConflict)
            return try db.importJSON(contentsOfFile: path, into: table, options: options) {
                progress.update(bytes: $0.bytes, rows: $0.rows)
            }
        case .auto:
            preconditionFailure("ImportSource.init resolves .auto")
        }
    }
}
