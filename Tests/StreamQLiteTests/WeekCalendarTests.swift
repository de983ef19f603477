import Foundation
import Testing
import StreamQLite

/// WeekCalendar and FiscalCalendar: fixed values (the docs' examples, the published NRF
/// calendar), errors, and agreement with the SQL functions day by day.
@Suite struct WeekCalendarTests {
    /// Noon UTC of a day, `YYYY-MM-DD`.
    static func noon(_ day: String) -> Date {
        let f = ISO8601DateFormatter()
        return f.date(from: day + "T12:00:00Z")!
    }

    @Test func aWeekHasItsKeyDaysAndLabel() throws {
        let us = try WeekCalendar(locale: "en_US")
        let week = try us.week(containing: Self.noon("2011-01-05"))
        #expect(week.key == "2011-02" && week.start == "2011-01-02" && week.end == "2011-01-08")
        #expect(week.label == "Jan 2\u{2009}–\u{2009}8, 2011")
        let de = try WeekCalendar(locale: "de_DE", labelStyle: .long)
        #expect(try de.week(containing: Self.noon("2010-12-30")).label == "27. Dezember 2010\u{2009}–\u{2009}2. Januar 2011")
        #expect(try us.weekOfMonth(Self.noon("2011-01-31")) == 6)
        #expect(try de.weekOfMonth(Self.noon("2011-01-01")) == 0)
    }

    @Test func aDateIsAnInstantWhoseDayIsTakenInTheTimeZone() throws {
        // 2011-01-02T03:00Z is Saturday 2011-01-01 in New York
        let instant = Date(timeIntervalSince1970: 1_293_937_200)
        #expect(try WeekCalendar(locale: "en_US", timeZone: "America/New_York").week(containing: instant).key == "2011-01")
        #expect(try WeekCalendar(locale: "en_US").week(containing: instant).key == "2011-02")
    }

    @Test func theSeriesHasEveryWeekAndKeysLeadBack() throws {
        let us = try WeekCalendar(locale: "en_US")
        let weeks = try us.weeks(from: Self.noon("2011-01-01"), through: Self.noon("2011-01-31"))
        #expect(weeks.map(\.key) == ["2011-01", "2011-02", "2011-03", "2011-04", "2011-05", "2011-06"])
        for w in weeks { #expect(try us.week(key: w.key) == w) }
        #expect(throws: DatabaseError.self) { try us.week(key: "2011-54") }
        #expect(throws: DatabaseError.self) { try us.weeks(from: Self.noon("2011-02-01"), through: Self.noon("2011-01-01")) }
    }

    @Test func badLocalesZonesAndSpecsThrowTheExtensionsErrors() throws {
        #expect { try WeekCalendar(locale: "xx_YY") } throws: { ($0 as? DatabaseError)?.message == "locale_weeks: unknown locale 'xx_YY'" }
        #expect { try WeekCalendar(locale: "en_US", timeZone: "Mars/Olympus") } throws: {
            ($0 as? DatabaseError)?.message == "locale_weeks: unknown time zone 'Mars/Olympus'"
        }
        #expect { try FiscalCalendar("4-5-4, last saturday of janvier") } throws: {
            ($0 as? DatabaseError)?.message == "fiscal_year: invalid calendar '4-5-4, last saturday of janvier': unknown month 'janvier'"
        }
    }

    /// The published NRF 4-5-4 calendar (nrf.com/resources/4-5-4-calendar): fiscal 2023 ran
    /// 2023-01-29 .. 2024-02-03 (53 weeks, January 5 weeks), 2024 from 2024-02-04 to 2025-02-01.
    @Test func theNRFCalendarMatchesThePublishedOne() throws {
        let d = try FiscalCalendar.nrf.day(of: Self.noon("2024-01-15"))
        #expect(d.year == 2023 && d.quarter == 4 && d.period == 12 && d.week == 51 && d.weekOfPeriod == 3)
        #expect(d.weeksInYear == 53 && d.yearStart == "2023-01-29" && d.yearEnd == "2024-02-03")
        #expect(d.periodStart == "2023-12-31" && d.periodEnd == "2024-02-03")
        let next = try FiscalCalendar.nrf.day(of: Self.noon("2024-02-04"))
        #expect(next.year == 2024 && next.week == 1 && next.yearEnd == "2025-02-01" && next.periodEnd == "2024-03-02")
    }

    /// Every day of 2010..2013: the value types give what the SQL functions give.
    @Test func theValueTypesAgreeWithTheSQLFunctions() throws {
        let db = try Database()
        let cal = try WeekCalendar(locale: "de_DE", timeZone: "Europe/Berlin")
        let fiscal = try FiscalCalendar("4-4-5, friday nearest end of june, 53rd week in q2", timeZone: "Europe/Berlin")
        var day = Self.noon("2010-01-01")
        while day < Self.noon("2014-01-01") {
            let w = try cal.week(containing: day)
            let f = try fiscal.day(of: day)
            let sql = try db.tuples(String.self, String.self, String.self, Int.self, Int.self, sql: """
                SELECT locale_week(?1, 'de_DE', 'Europe/Berlin'), locale_week_end(?1, 'de_DE', 'Europe/Berlin'),
                       locale_week_label(?1, 'de_DE', 'Europe/Berlin'),
                       fiscal_week(?1, ?2, 'Europe/Berlin'), fiscal_period(?1, ?2, 'Europe/Berlin')
                """, day, fiscal.spec).next()!
            #expect(w.key == sql.0 && w.end == sql.1 && w.label == sql.2 && f.week == sql.3 && f.period == sql.4)
            day += 86_400
        }
    }
}
