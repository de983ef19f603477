import ArgumentParser
import Foundation
import StreamQLite

/// `streamqlite query DB SQL`: the rows streamed to standard output as they are stepped.
struct QueryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "query",
        abstract: "Run one SQL statement and stream its rows as a table, CSV, JSON or NDJSON.",
        discussion: """
            The rows are written while the statement steps: memory use does not grow with the result. \
            The extension's functions (locale_week, format_date, json_stream, csv_stream, …) are available.

            --param VALUE binds the next ? (or ?NNN) parameter; --param :name=VALUE (or @name=, $name=) \
            binds a named one. Values are bound as TEXT (SQLite converts them where a column or an \
            operator asks for a number; CAST(? AS INTEGER) elsewhere).

            Examples:
              streamqlite query shop.db "SELECT count(*) FROM orders"
              streamqlite query shop.db "SELECT * FROM orders WHERE placed >= :since" --param :since=2024-05-01 --format json
              streamqlite query shop.db "SELECT locale_week(placed, 'de_DE') AS week, count(*) FROM orders GROUP BY week" --format csv
            """
    )

    @Argument(help: "The database file.")
    var database: String

    @Argument(help: "One SQL statement.")
    var sql: String

    @Option(help: "table (boxes), csv, json (an array of objects) or ndjson (default: table on a terminal, else csv).")
    var format: QueryFormat?

    @Option(name: .customLong("param"), help: ArgumentHelp("A parameter's value: VALUE for the next ?, :name=VALUE for a named one.",
                                                           valueName: "VALUE"))
    var params: [String] = []

    func run() throws {
        let db = try openExisting(database, command: "query")
        let arguments = Self.arguments(params)
        let stdout = FileDescriptorSink(descriptor: STDOUT_FILENO)
        let format = format ?? (Terminal.isTerminal(STDOUT_FILENO) ? .table : .csv)
        do {
            switch format {
            case .json, .ndjson:
                var sink = stdout
                try db.writeJSON(sql, arguments: arguments, to: &sink,
                                 options: JSONWriterOptions(format: format == .json ? .arrayOfObjects : .ndjson))
                if format == .json { try [UInt8(ascii: "\n")].withUnsafeBytes { try stdout.write($0) } }
            case .csv:
                var sink = stdout
                try db.writeCSV(sql, arguments: arguments, to: &sink)
            case .table:
                var table = BoxTableWriter(sink: stdout, width: Terminal.width(STDOUT_FILENO))
                try db.stream(sql, arguments: arguments, into: &table)
            }
            try stdout.flush()
        } catch {
            try? stdout.flush()
            Terminal.error("streamqlite query: \(error)\n")
            throw ExitCode.failure
        }
    }

    /// `--param` values: `:name=VALUE`, `@name=VALUE`, `$name=VALUE` are named, anything else positional.
    static func arguments(_ params: [String]) -> StatementArguments {
        var arguments = StatementArguments([], named: [:])
        for param in params {
            if let first = param.first, ":@$".contains(first), let eq = param.firstIndex(of: "=") {
                arguments.named[String(param[..<eq])] = String(param[param.index(after: eq)...])
            } else {
                arguments.positional.append(param)
            }
        }
        return arguments
    }
}

/// An output format of `query`.
enum QueryFormat: String, ExpressibleByArgument, CaseIterable {
    case table, csv, json, ndjson
}

/// Opens a database file that must exist (a typo must not leave an empty new file behind),
/// or an in-memory database (`:memory:`).
func openExisting(_ path: String, command: String) throws -> Database {
    guard path == ":memory:" || FileManager.default.fileExists(atPath: path) else {
        Terminal.error("streamqlite \(command): no database file '\(path)'\n")
        throw ExitCode.failure
    }
    do {
        return try Database(path: path, flags: [.readWrite, .noMutex])
    } catch {
        Terminal.error("streamqlite \(command): \(error)\n")
        throw ExitCode.failure
    }
}
