import Foundation
import StreamQLite

/// The weekly series of a report, computed in one SQL statement with the extension's
/// week functions: the rows grouped by `locale_week_start` of their time, and every week
/// from the first to the last (or from the week of `from` to the week of `to`) listed with
/// its value, 0 for a week without rows. Consecutive weeks start 7 days apart (a week start
/// is a local date, so summer time does not move it).
struct WeeklyReport {
    struct Week: Equatable {
        /// The week as `locale_week` names it: `2011-02`.
        var label: String
        /// Its first day, `YYYY-MM-DD`.
        var start: String
        /// The value as SQLite writes it as text (`12`, `3.5`).
        var text: String
        /// The value as a number, for the bar's length.
        var number: Double
        /// The week's first and last day as the report's locale writes them (`Dec 26, 2010 –
        /// Jan 1, 2011`), or nil without a locale.
        var dates: String? = nil
        /// Days of the week inside the reported range (7 but for a first or last week that
        /// the range, --from/--to or else the first and last day with rows, cuts).
        var days = 7
    }

    var table: String
    var time: String
    var value: String
    var locale: String?
    var timeZone: String?
    var from: String?
    var to: String?

    /// ISO 8601 weeks as a locale (what `locale_week(time)` counts without one).
    static let isoLocale = "und@calendar=iso8601"

    var title: String {
        "\(value) per \(locale.map { "\($0) week" } ?? "ISO week") of \(time), \(table)" + (timeZone.map { " (\($0))" } ?? "")
    }

    /// The SQL; its parameters are ?1 locale, ?2 time zone, ?3 from, ?4 to.
    var sql: String {
        let zone = timeZone == nil ? "" : ", ?2"
        let localDay = timeZone == nil ? "date(\(time))" : "format_date('yyyy-MM-dd', \(time), 'en_US_POSIX', ?2)"
        var filters = ["\(time) IS NOT NULL"]
        if from != nil { filters.append("\(localDay) >= ?3") }
        if to != nil { filters.append("\(localDay) <= ?4") }
        return """
            WITH weeks AS (
              SELECT locale_week_start(\(time), ?1\(zone)) AS starts, \(value) AS value,
                     min(\(localDay)) AS first_day, max(\(localDay)) AS last_day
                FROM \(Self.quoted(table)) WHERE \(filters.joined(separator: " AND ")) GROUP BY starts),
            bounds AS (
              SELECT coalesce(locale_week_start(?3, ?1), min(starts)) AS first,
                     coalesce(locale_week_start(?4, ?1), max(starts)) AS last FROM weeks),
            series(starts) AS (
              SELECT first FROM bounds WHERE first IS NOT NULL
              UNION ALL SELECT date(starts, '+7 days') FROM series, bounds WHERE starts < last)
            SELECT locale_week(series.starts, ?1), series.starts,
                   CAST(coalesce(weeks.value, 0) AS TEXT), CAST(coalesce(weeks.value, 0) AS REAL),
                   weeks.first_day, weeks.last_day, \(locale == nil ? "NULL" : "locale_week_label(series.starts, ?1)")
              FROM series LEFT JOIN weeks USING (starts) ORDER BY series.starts
            """
    }

    func weeks(in db: Database) throws -> [Week] {
        var weeks: [Week] = []
        let arguments = StatementArguments([locale ?? Self.isoLocale, timeZone, from, to])
        let cursor = try db.rows(sql, arguments: arguments)
        var firstDay: String?, lastDay: String?
        while let row = try cursor.next() {
            weeks.append(Week(label: try row.decode(at: 0), start: try row.decode(at: 1),
                              text: try row.decode(at: 2), number: try row.decode(at: 3),
                              dates: try row.decode(String?.self, at: 6)))
            if firstDay == nil { firstDay = try row.decode(String?.self, at: 4) }
            if let last = try row.decode(String?.self, at: 5) { lastDay = last }
        }
        // The days the report covers: --from and --to, else the days that have rows.
        if let first = from ?? firstDay, let start = weeks.first?.start,
           let covered = Self.daysBetween(start, first).map({ 7 - $0 }), covered < 7 {
            weeks[0].days = max(1, covered)
        }
        if let last = to ?? lastDay, let start = weeks.last?.start,
           let covered = Self.daysBetween(start, last).map({ $0 + 1 }), covered < 7 {
            weeks[weeks.count - 1].days = max(1, min(weeks[weeks.count - 1].days, covered))
        }
        return weeks
    }

    /// Days from `a` to `b` (both `YYYY-MM-DD`), or nil when one is not such a date.
    static func daysBetween(_ a: String, _ b: String) -> Int? {
        guard let x = dayNumber(a), let y = dayNumber(b) else { return nil }
        return y - x
    }

    /// Days since 1970-01-01 of a `YYYY-MM-DD` date (the civil calendar's arithmetic).
    static func dayNumber(_ text: String) -> Int? {
        let parts = text.prefix(10).split(separator: "-")
        guard parts.count == 3, var y = Int(parts[0]), let m = Int(parts[1]), let d = Int(parts[2]) else { return nil }
        y -= m <= 2 ? 1 : 0
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// `"name"` with inner quotes doubled: a table name is never read as SQL.
    static func quoted(_ name: String) -> String {
        "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// A day written `YYYY-MM-DD` that exists in the calendar.
    static func isDate(_ text: String) -> Bool {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard text.utf8.count == 10, parts.count == 3, parts.map(\.count) == [4, 2, 2],
              let y = Int(parts[0]), let m = Int(parts[1]), let d = Int(parts[2]), (1...12).contains(m), d >= 1 else { return false }
        let leap = y % 4 == 0 && (y % 100 != 0 || y % 400 == 0)
        let days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][m - 1]
        return d <= days
    }
}
