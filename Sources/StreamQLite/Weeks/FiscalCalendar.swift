import Foundation
import CStreamQLite

/// A retail (4-5-4, 4-4-5, 5-4-4) fiscal calendar, with the same answers as the SQL
/// functions `fiscal_year`, `fiscal_period`, `fiscal_week`, … (the same C code).
///
/// ```swift
/// let day = try FiscalCalendar.nrf.day(of: someDate)
/// // day.year == 2023, day.period == 12, day.weeksInYear == 53 for 2024-01-15
/// let custom = try FiscalCalendar("4-4-5, last saturday of december, 53rd week in q1")
/// ```
///
/// The calendar spec is documented in docs/sql/weeks-reports.md. A `Date` is an instant:
/// its day is taken in `timeZone` (UTC when nil).
public struct FiscalCalendar: Sendable, Hashable {
    /// Where a day falls in the calendar.
    public struct Day: Sendable, Hashable {
        /// The fiscal year's name.
        public var year: Int
        /// 1–4.
        public var quarter: Int
        /// 1–12.
        public var period: Int
        /// 1–53, from the year's first day.
        public var week: Int
        /// 1–6, from the period's first day.
        public var weekOfPeriod: Int
        /// 52 or 53.
        public var weeksInYear: Int
        /// The year's first and last day, `YYYY-MM-DD`.
        public var yearStart: String, yearEnd: String
        /// The period's first and last day, `YYYY-MM-DD`.
        public var periodStart: String, periodEnd: String
    }

    /// The NRF retail calendar: 4-5-4, the year ends on the Saturday nearest January 31 and
    /// is named for the calendar year in which it begins; the 53rd week goes to January.
    public static let nrf = FiscalCalendar(checked: "nrf")

    /// The spec, as the SQL functions take it.
    public let spec: String
    /// The IANA time zone in which a `Date`'s day is taken; nil means UTC.
    public let timeZone: String?

    /// A calendar from a spec such as `"4-4-5, last saturday of december"`, checked now:
    /// a bad spec throws the extension's error naming the part.
    public init(_ spec: String, timeZone: String? = nil) throws {
        self.spec = spec
        self.timeZone = timeZone
        _ = try day(ofDay: "2011-01-02")
    }

    private init(checked spec: String) {
        self.spec = spec
        self.timeZone = nil
    }

    /// This calendar with `Date`s taken in another time zone.
    public func inTimeZone(_ timeZone: String?) throws -> FiscalCalendar {
        try FiscalCalendar(spec, timeZone: timeZone)
    }

    /// Where `date` falls.
    public func day(of date: Date) throws -> Day {
        try day(ofDay: date)
    }

    private func day<A: DatabaseValueConvertible>(ofDay t: A) throws -> Day {
        let tz = timeZone ?? "UTC"
        return try WeekEngine.shared.run { db in
            let ints = try db.tuples(Int.self, Int.self, Int.self, Int.self, Int.self, Int.self, sql: """
                SELECT fiscal_year(?1, ?2, ?3), fiscal_quarter(?1, ?2, ?3), fiscal_period(?1, ?2, ?3),
                       fiscal_week(?1, ?2, ?3), fiscal_week_of_period(?1, ?2, ?3), fiscal_weeks_in_year(?1, ?2, ?3)
                """, t, spec, tz)
            let days = try db.tuples(String.self, String.self, String.self, String.self, sql: """
                SELECT fiscal_year_start(?1, ?2, ?3), fiscal_year_end(?1, ?2, ?3),
                       fiscal_period_start(?1, ?2, ?3), fiscal_period_end(?1, ?2, ?3)
                """, t, spec, tz)
            guard let (y, q, p, w, wp, n) = try ints.next(), let (ys, ye, ps, pe) = try days.next() else {
                throw DatabaseError(code: SQLITE_MISUSE, message: "fiscal calendar: no result")
            }
            return Day(year: y, quarter: q, period: p, week: w, weekOfPeriod: wp, weeksInYear: n,
                       yearStart: ys, yearEnd: ye, periodStart: ps, periodEnd: pe)
        }
    }
}
