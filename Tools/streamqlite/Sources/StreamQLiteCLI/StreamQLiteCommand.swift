import ArgumentParser

/// `streamqlite`: the command-line tool of StreamQLite (docs/cli.md).
@main
struct StreamQLiteCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "streamqlite",
        abstract: "Import CSV and JSON into SQLite, query it, and chart it by locale week.",
        discussion: """
            Examples:
              streamqlite import shop.db orders.csv --create
              streamqlite query shop.db "SELECT * FROM orders WHERE total > ?" --param 100
              streamqlite report shop.db --table orders --time placed --value "sum(total)" --locale de_DE

            Shell completion: streamqlite --generate-completion-script bash|zsh|fish
            """,
        version: "streamqlite 0.1.0",
        subcommands: [ImportCommand.self, QueryCommand.self, ReportCommand.self]
    )
}
