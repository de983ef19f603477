import ArgumentParser
import Foundation
import StreamQLite

/// `streamqlite report DB --table T --time COL`: one value per locale week, as a bar chart.
struct ReportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: "A weekly report: one value per locale week, every week shown (0 when it has no rows), as a bar chart.",
        discussion: """
            Weeks are counted as --locale counts them (first day, minimal days of week 1; default \
            ISO 8601: Monday, 4 days) in the time zone --tz (default UTC). --value is an SQL aggregate \
            over the week's rows (default count(*)). --from and --to (YYYY-MM-DD, local dates in --tz, \
            both included) keep the rows of those days and make the chart run from the week of \
            --from to the week of --to.

            On a terminal the bars fill its width; piped, the chart is plain ASCII, --width columns wide. \
            Values are written as --locale writes numbers, rounded to two decimals, under a value axis; \
            a first or last week the range cuts is marked partial (*), with how many of its days count.

            Examples:
              streamqlite report usage.db --table Usage --time Date --value "sum(Visits)" --locale en_US
              streamqlite report usage.db --table Usage --time Date --from 2010-12-20 --to 2011-01-16 --svg weeks.svg
            """
    )

    @Argument(help: "The database file.")
    var database: String

    @Option(help: "The table (or view) of the rows.")
    var table: String

    @Option(help: "The column (or SQL expression) with each row's time.")
    var time: String

    @Option(help: "The SQL aggregate reported per week.")
    var value = "count(*)"

    @Option(help: "The locale whose weeks are counted: en_US (Sunday), de_DE (Monday, 4 days), en-US-u-fw-mon… (default: ISO 8601 weeks).")
    var locale: String?

    @Option(help: "The time zone of the times' wall clock, as America/New_York (default: UTC).")
    var tz: String?

    @Option(help: ArgumentHelp("The first day reported (YYYY-MM-DD).", valueName: "DATE"))
    var from: String?

    @Option(help: ArgumentHelp("The last day reported (YYYY-MM-DD).", valueName: "DATE"))
    var to: String?

    @Option(help: ArgumentHelp("Also write the chart as a standalone SVG file.", valueName: "FILE"))
    var svg: String?

    @Option(help: ArgumentHelp("The chart's title (default: what is reported, per which week, of what).", valueName: "TEXT"))
    var title: String?

    @Option(help: "The chart's width in columns when not on a terminal.")
    var width = 80

    func validate() throws {
        for (name, day) in [("--from", from), ("--to", to)] {
            if let day, !WeeklyReport.isDate(day) {
                throw ValidationError("\(name): '\(day)' is not a date (YYYY-MM-DD)")
            }
        }
        if let from, let to, from > to { throw ValidationError("--from \(from) is after --to \(to)") }
        guard width >= 20 else { throw ValidationError("--width: \(width) is too narrow (at least 20)") }
    }

    func run() throws {
        let db = try openExisting(database, command: "report")
        let report = WeeklyReport(table: table, time: time, value: value, locale: locale, timeZone: tz, from: from, to: to)
        let weeks: [WeeklyReport.Week]
        do {
            weeks = try report.weeks(in: db)
        } catch let error as DatabaseError {
            // The statement is the tool's: a mistake in --table, --time or --value shows where they went.
            Terminal.error("streamqlite report: \(error.message)\nthe query --table, --time and --value were placed in:\n\(report.sql)\n")
            throw ExitCode.failure
        }
        let terminalWidth = Terminal.width(STDOUT_FILENO)
        let chart = BarChart(title: title ?? report.title, weeks: weeks, valueName: value, locale: locale)
        print(chart.text(width: terminalWidth ?? width, unicode: terminalWidth != nil), terminator: "")
        if let svg {
            do {
                try Data(chart.svg().utf8).write(to: URL(fileURLWithPath: svg))
            } catch {
                Terminal.error("streamqlite report: --svg: cannot write '\(svg)': \(error.localizedDescription)\n")
                throw ExitCode.failure
            }
        }
    }
}
