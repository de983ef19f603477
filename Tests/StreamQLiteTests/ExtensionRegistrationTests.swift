import Testing
import StreamQLite

@Suite struct ExtensionRegistrationTests {
    @Test func everyConnectionHasTheExtensionFunctions() throws {
        let db = try Database()
        #expect(try db.scalarText("SELECT streamqlite_version()") == "0.1.0")
        #expect(try db.value(String.self, "SELECT streamqlite_version()") == "0.1.0")
    }

    @Test func registrationCanBeTurnedOff() throws {
        var config = Database.Configuration()
        config.registersExtension = false
        let db = try Database(configuration: config)
        let error = try #require(throws: DatabaseError.self) { try db.scalarText("SELECT streamqlite_version()") }
        #expect(error.message.contains("no such function: streamqlite_version"))
    }

    @Test func everyExtensionFunctionIsRegistered() throws {
        let db = try Database()
        for name in ["locale_week", "locale_week_start", "locale_week_number", "locale_week_year", "locale_weekday",
                     "locale_week_rules", "format_date", "streamqlite_version"] {
            let count = try db.value(Int.self, "SELECT count(*) FROM pragma_function_list WHERE name = ?", name) ?? 0
            #expect(count >= 1, "\(name) is not registered")
        }
        // the table-valued functions answer (eponymous virtual tables are not in pragma_function_list)
        #expect(try db.value(Int.self, "SELECT count(*) FROM pragma_module_list WHERE name IN ('json_stream', 'csv_stream')") == 2)
    }

    /// The Swift library compiles the extension's C sources: the week functions take a zone's
    /// offsets from the system's tzdata there too, not from ICU 72's 2022 copy (expected values
    /// from Python's zoneinfo: Mexico City has no DST since October 2022, Cairo has DST again since 2023).
    @Test func weekFunctionsUseTheSystemsTimeZoneRules() throws {
        let db = try Database()
        let mexico = try db.scalarText("""
            SELECT format_date('yyyy-MM-dd HH:mm', '2023-07-02T05:30Z', 'en_US', 'America/Mexico_City') || ' ' ||
                   locale_week('2023-07-02T05:30Z', 'en_US', 'America/Mexico_City') || ' ' ||
                   locale_week_start('2023-07-02T05:30Z', 'en_US', 'America/Mexico_City')
            """)
        #expect(mexico == "2023-07-01 23:30 2023-26 2023-06-25")
        let cairo = try db.scalarText("""
            SELECT format_date('yyyy-MM-dd HH:mm', '2023-06-03T21:30Z', 'de_DE', 'Africa/Cairo') || ' ' ||
                   locale_week('2023-06-03T21:30Z', 'de_DE', 'Africa/Cairo') || ' ' ||
                   locale_weekday('2023-06-03T21:30Z', 'de_DE', 'Africa/Cairo')
            """)
        #expect(cairo == "2023-06-04 00:30 2023-22 7")
    }
}
