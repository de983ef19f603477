import ArgumentParser
import Foundation
import StreamQLite

/// `streamqlite import DB FILE…`: every file into its table, in one transaction.
struct ImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Import CSV, JSON or NDJSON files into tables: all of them or, on an error or Ctrl-C, nothing.",
        discussion: """
            Each file goes into --table, or into the table named after the file (orders.csv: orders).
            The format comes from the extension (.csv; .json; .ndjson, .jsonl) unless --format says it.
            Columns are matched by name; see docs/cli.md for the coercion rules.

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

    @Flag(help: "Create a missing table from the CSV header or the JSON keys, with column types inferred from the first records.")
    var create = false

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
        let options = ImportSettings(createTable: create, upsertKeys: upsert)
        let existed = FileManager.default.fileExists(atPath: database)
        let db = try Database(path: database)
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
        let ext = (name as NSString).pathExtension.lowercased()
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
        self.table = table ?? (name as NSString).deletingPathExtension
        var info = stat()
        size = stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG ? Int(info.st_size) : nil
    }

    /// Imports the file through the library's own call for its format; returns the rows stored.
    func run(into db: Database, settings: ImportSettings, progress: ImportProgress) throws -> Int {
        switch format {
        case .csv:
            let options = CSVImportOptions(createTable: settings.createTable, onConflict: settings.onConflict)
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
