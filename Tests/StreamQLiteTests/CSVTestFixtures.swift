import Foundation
@testable import StreamQLite

/// The transit-stop CSV fixture shared by the CSV cursor tests (``CSVDecodableCursorTests``,
/// ``CSVRowCursorTests``): one type that reads database rows (`RowDecodable`) and CSV
/// records (`Decodable`), a small file with quoted commas, doubled quotes, a line end
/// in a field, empty and `""` fields, and the values it must give.
enum CSVStopFixture {
    enum Kind: String, Decodable, DatabaseValueConvertible { case bus, tram }

    /// One type for database rows and CSV records; fields by name.
    struct Stop: RowDecodable, Decodable, Equatable {
        var id: Int
        var name: String
        var lat: Double
        var accessible: Bool
        var kind: Kind
        var opened: Date?
        var note: String?
        var level: Int8?
        init(id: Int, name: String, lat: Double, accessible: Bool, kind: Kind, opened: Date?, note: String?, level: Int8?) {
            (self.id, self.name, self.lat, self.accessible, self.kind) = (id, name, lat, accessible, kind)
            (self.opened, self.note, self.level) = (opened, note, level)
        }
        init(row: Row) throws {
            id = try row["id"]; name = try row["name"]; lat = try row["lat"]; accessible = try row["accessible"]
            kind = try row["kind"]; opened = try row["opened"]; note = try row["note"]; level = try row["level"]
        }
    }

    /// The file: header `ID` matches the property `id` case-insensitively.
    static let csv = #"""
        ID,name,lat,accessible,kind,opened,note,level
        1,"Main St, north",47.3769,true,bus,2024-05-01T12:00:00Z,"say ""hi""",-2
        2,Zürich HB,47.378,0,tram,,,
        3,"two
        lines",-1e-3,FALSE,bus,2024-05-02,"",
        """#

    /// The header names as the file spells them.
    static let fieldNames = ["ID", "name", "lat", "accessible", "kind", "opened", "note", "level"]

    /// The values ``csv`` must give (written out by hand, not by any reader).
    static let stops = [
        Stop(id: 1, name: "Main St, north", lat: 47.3769, accessible: true, kind: .bus,
             opened: Date(timeIntervalSince1970: 1_714_564_800), note: "say \"hi\"", level: -2),
        Stop(id: 2, name: "Zürich HB", lat: 47.378, accessible: false, kind: .tram, opened: nil, note: nil, level: nil),
        Stop(id: 3, name: "two\nlines", lat: -0.001, accessible: false, kind: .bus,
             opened: Date(timeIntervalSince1970: 1_714_608_000), note: "", level: nil),
    ]
}
