import Foundation

/// Weeks as a locale counts them, from `Date`s, with the same answers as the SQL
/// functions `locale_week`, `locale_week_start`, `locale_week_end`, `locale_week_label`,
/// `locale_week_parse`, `locale_week_of_month` and the `locale_weeks` table (the same C code).
///
/// ```swift
/// let us = try WeekCalendar(locale: "en_US", timeZone: "America/New_York")
/// let week = try us.week(containing: Date(timeIntervalSince1970: 1_294_000_000))
/// // week.key == "2011-01", week.label == "Dec 26, 2010 – Jan 1, 2011"
/// let series = try us.weeks(from: start, through: end)   // every week, empty ones too
/// ```
///
/// A `Date` is an instant: its day is taken in `timeZone` (UTC when nil), by the system's
/// time zone data. Days are proleptic Gregorian `YYYY-MM-DD` strings, as SQLite writes dates.
/// See docs/sql/weeks-reports.md for the rules.
public struct WeekCalendar: Sendable, Hashable {
    /// How a week label is written: ICU's date interval skeletons `yMd`, `yMMMd`, `yMMMMd`.
    public enum LabelStyle: String, Sendable, Hashable {
        /// `1/2/2011 – 1/8/2011` in en_US.
        case short
        /// `Jan 2 – 8, 2011` in en_US.
        case medium
        /// `January 2 – 8, 2011` in en_US.
        case long
    }

    /// One week: its key, first and last day, and label.
    public struct Week: Sendable, Hashable {
        /// `YYYY-WW`, as `locale_week` writes it.
        public var key: String
        /// The first day, `YYYY-MM-DD`.
        public var start: String
        /// The last day, `YYYY-MM-DD`.
        public var end: String
        /// The week as the locale writes a date interval, e.g. `Jan 2 – 8, 2011`.
        public var label: String
    }

    /// The locale (`en_US`, `de-DE`, `en_US@fw=mon`; Gregorian calendars only).
    public let locale: String
    /// The IANA time zone in which a `Date`'s day is taken; nil means UTC.
    public let timeZone: String?
    /// The style of `Week.label`.
    public let labelStyle: LabelStyle

    /// A calendar for `locale`, checked now: an unknown locale or time zone throws the
    /// extension's error (`locale_weeks: unknown locale 'xx_YY'`).
    public init(locale: String, timeZone: String? = nil, labelStyle: LabelStyle = .medium) throws {
        self.locale = locale
        self.timeZone = timeZone
        self.labelStyle = labelStyle
        _ = try weeks(fromDay: "2011-01-02", throughDay: "2011-01-02")
    }

    /// The week holding `date`.
    public func week(containing date: Date) throws -> Week {
        try weeks(from: date, through: date)[0]
    }

    /// Every week from the one holding `start` to the one holding `end`, in order, with
    /// those that have no data too (the `locale_weeks` table).
    public func weeks(from start: Date, through end: Date) throws -> [Week] {
        try weeks(fromDay: start, throughDay: end)
    }

    /// The week whose key is `key` (`2011-02`, or ISO `2011-W02` in a locale with ISO weeks):
    /// `week(key: week(containing: d).key)` is `week(containing: d)` for every day.
    /// Keys the year does not have (week 00, 54, 53 of a 52-week year) throw.
    public func week(key: String) throws -> Week {
        let start = try WeekEngine.shared.run { db in
            try db.value(String.self, "SELECT locale_week_parse(?, ?)", key, locale)
        }
        return try weeks(fromDay: start ?? "", throughDay: start ?? "")[0]
    }

    /// The week of the month holding `date`, in the locale's rules (ICU's `W`): 0 for the
    /// days before the month's first week with the locale's minimal days.
    public func weekOfMonth(_ date: Date) throws -> Int {
        try WeekEngine.shared.run { db in
            try db.value(Int.self, "SELECT locale_week_of_month(?, ?, ?)", date, locale, timeZone ?? "UTC")
        } ?? 0
    }

    private func weeks<A: DatabaseValueConvertible>(fromDay start: A, throughDay end: A) throws -> [Week] {
        try WeekEngine.shared.run { db in
            var out: [Week] = []
            let rows = try db.tuples(String.self, String.self, String.self, String.self,
                                     sql: "SELECT week, week_start, week_end, label FROM locale_weeks(?, ?, ?, ?, ?)",
                                     start, end, locale, timeZone ?? "UTC", labelStyle.rawValue)
            while let (key, first, last, label) = try rows.next() {
                out.append(Week(key: key, start: first, end: last, label: label))
            }
            return out
        }
    }
}
