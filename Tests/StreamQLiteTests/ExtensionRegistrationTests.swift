import Testing
@testable import StreamQLite

@Suite struct ExtensionRegistrationTests {
    @Test func everyConnectionHasTheExtensionFunctions() throws {
        let db = try Database(path: ":memory:")
        #expect(try db.scalarText("SELECT streamqlite_version()") == "0.1.0")
    }
}
