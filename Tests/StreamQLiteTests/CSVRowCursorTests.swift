import Foundation
import Testing
@testable import StreamQLite

/// CSV records into hand-written ``RowDecodable`` values (``CSVRowCursor``).
@Suite struct CSVRowCursorTests {
    typealias Kind = CSVStopFixture.Kind
    typealias Stop = CSVStopFixture.Stop
    let csv = CSVStopFixture.csv

    @Test func readsRecordsIntoRowDecodableValuesAsTheDecodablePathDoes() throws {
        let cursor = try CSVRowCursor(Stop.self, bytes: Array(csv.utf8))
        let stops = try cursor.collect()
        #expect(stops == CSVStopFixture.stops)
        #expect(stops == (try CSVDecodableCursor(Stop.self, bytes: Array(csv.utf8)).collect()))
        #expect(cursor.fieldNames == CSVStopFixture.fieldNames)
        // a file in chunks of any size: the same values
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("csv-rows-\(getpid()).csv").path
        try Data(csv.utf8).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        for size in [1, 5, 1 << 16] {
            #expect(try CSVRowCursor(Stop.self, contentsOfFile: path, options: .init(chunkSize: size)).collect() == stops)
        }
        #expect(throws: CSVImportError.self) { try CSVRowCursor(Stop.self, contentsOfFile: "/nonexistent.csv") }
    }

    @Test func theSameTypeReadsDatabaseRows() throws {
        let db = try Database()
        try db.execute("CREATE TABLE stops(id INTEGER, name TEXT, lat REAL, accessible INTEGER, kind TEXT, opened DATETIME, note TEXT, level INTEGER)")
        try db.execute("INSERT INTO stops VALUES (7, 'Depot', 1.25, 1, 'tram', '2024-05-01 12:00:00.000', NULL, 3)")
        let fromDB = try db.rows(Stop.self, "SELECT * FROM stops").collect()
        let fromCSV = try CSVRowCursor(Stop.self, bytes: try db.csvBytes("SELECT * FROM stops")).collect()
        #expect(fromDB == fromCSV)
        #expect(fromCSV.first?.opened == Date(timeIntervalSince1970: 1_714_564_800))
    }

    /// Positional reads, the row's view of a record, and no header (names c1, c2, …).
    @Test func fieldsByIndexAndWithoutHeader() throws {
        struct Pair: RowDecodable, Equatable {
            var a: String, b: Int?, count: Int, names: [String], nulls: [Bool], values: [DatabaseValue]
            init(a: String, b: Int?, count: Int, names: [String], nulls: [Bool], values: [DatabaseValue]) {
                (self.a, self.b, self.count, self.names, self.nulls, self.values) = (a, b, count, names, nulls, values)
            }
            init(row: Row) throws {
                a = try row[0]; b = try row["C2"]; count = row.count; names = row.columnNames
                nulls = (0..<row.count).map { row.isNull($0) }; values = (0..<row.count).map { row.value(at: $0) }
                #expect(row.statement == nil)
            }
        }
        let pairs = try CSVRowCursor(Pair.self, bytes: Array("a;1\nb;NA\n".utf8),
                                     options: .init(header: false, delimiter: ";", nullText: "NA")).collect()
        #expect(pairs == [
            Pair(a: "a", b: 1, count: 2, names: ["c1", "c2"], nulls: [false, false], values: [.text("a"), .text("1")]),
            Pair(a: "b", b: nil, count: 2, names: ["c1", "c2"], nulls: [false, true], values: [.text("b"), .null]),
        ])
    }

    /// Conversion errors are CSVImportErrors naming line, byte, record, field and header name
    /// (the Decodable path's words, checked against it).
    @Test func conversionErrorsNameLineByteAndField() throws {
        struct R: RowDecodable, Decodable { var id: Int; var n: UInt8
            init(row: Row) throws { id = try row["id"]; n = try row["n"] }
        }
        struct ByIndex: RowDecodable { init(row: Row) throws { let _: Int = try row[5] } }
        func message(_ text: String) -> String {
            guard case .failure(let error) = Result(catching: { try CSVRowCursor(R.self, bytes: Array(text.utf8)).collect() })
            else { return "no error" }
            return "\(error)"
        }
        func decodableMessage(_ text: String) -> String {
            guard case .failure(let error) = Result(catching: { try CSVDecodableCursor(R.self, bytes: Array(text.utf8)).collect() })
            else { return "no error" }
            if case let DecodingError.typeMismatch(_, c) = error { return c.debugDescription }
            if case let DecodingError.valueNotFound(_, c) = error { return c.debugDescription }
            return "\(error)"
        }
        #expect(message("id,n\n1,2\n2,300\n") == "CSVRowCursor: line 3, byte 11, field 2 (n): '300' is not a UInt8")
        #expect(decodableMessage("id,n\n1,2\n2,300\n") == "CSV line 3, byte 11, record 1, field 2 (n): '300' is not a UInt8")
        #expect(message("id,n\n1.5,2\n") == "CSVRowCursor: line 2, byte 5, field 1 (id): '1.5' is not a Int")
        #expect(message("id,n\n,2\n") == "CSVRowCursor: line 2, byte 5, field 1 (id): NULL for a non-optional Int")
        #expect(decodableMessage("id,n\n,2\n") == "CSV line 2, byte 5, record 0, field 1 (id): NULL for a non-optional Int")
        #expect(message("id\n1\n") == "CSVRowCursor: line 2, byte 3: no field 'n' in the header (id)")
        #expect(message("id,n\n1,\"2\n") == "CSVRowCursor: line 2, byte 7, field 2 (n): unterminated quoted field (the input ends before its closing quote)")
        #expect(message("Id,ID,n\n1,2,3\n").contains("header name 'ID' repeats field 1 ('Id')"))
        do {
            _ = try CSVRowCursor(R.self, bytes: Array("x,n\n1,2\n\"two\nlines\",\"3\n4\"\n".utf8)).collect()
            Issue.record("no error")
        } catch let e as CSVImportError {
            #expect(e.message == "no field 'id' in the header (x, n)")
            #expect(e.line == 2 && e.byteOffset == 4 && e.record == 0)
        }
        struct S: RowDecodable { var s: String; var n: UInt8
            init(row: Row) throws { s = try row["s"]; n = try row["n"] }
        }
        do {
            _ = try CSVRowCursor(S.self, bytes: Array("s,n\nx,1\n\"two\nlines\",300\n".utf8)).collect()
            Issue.record("no error")
        } catch let e as CSVImportError {
            // the field's own line and byte (record 1 starts on line 3, its field 2 is on line 4)
            #expect(e.description == "CSVRowCursor: line 4, byte 20, field 2 (n): '300' is not a UInt8")
            #expect(e.record == 1 && e.field == 2 && e.fieldName == "n")
        }
        #expect(throws: CSVImportError(message: "no field 6 (the record has 2)", line: 2, byteOffset: 4, record: 0,
                                       field: 6, fieldName: nil, function: "CSVRowCursor")) {
            try CSVRowCursor(ByIndex.self, bytes: Array("a,b\n1,2\n".utf8)).collect()
        }
    }

    /// Types beyond the built-in ones: enums by raw value, Decimal, UUID, URL, a type
    /// storing integers (read through fromDatabaseValue), DatabaseValue.
    @Test func otherDatabaseValueConvertibleTypes() throws {
        struct Cents: DatabaseValueConvertible, Equatable {
            var value: Int64
            var databaseValue: DatabaseValue { .integer(value) }
            static func fromDatabaseValue(_ v: DatabaseValue) -> Cents? { if case .integer(let i) = v { Cents(value: i) } else { nil } }
        }
        struct T: RowDecodable {
            var price: Cents, d: Decimal, u: UUID, url: URL, any: DatabaseValue, data: Data, bytes: [UInt8], f: Float, big: UInt64
            init(row: Row) throws {
                price = try row[0]; d = try row[1]; u = try row[2]; url = try row[3]; any = try row[4]
                data = try row[5]; bytes = try row[6]; f = try row[7]; big = try row[8]
            }
        }
        let text = "price,d,u,url,any,data,bytes,f,big\n250,12345678901234567890.123,E621E1F8-C36C-495A-93FC-0C247A3E6E5F,https://sqlite.org/a?b=1,x y,AAH/,AAH/,0.1,9223372036854775807\n"
        let t = try #require(try CSVRowCursor(T.self, bytes: Array(text.utf8)).next())
        #expect(t.price == Cents(value: 250))
        #expect(t.d == Decimal(string: "12345678901234567890.123"))
        #expect(t.u == UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"))
        #expect(t.url == URL(string: "https://sqlite.org/a?b=1"))
        #expect(t.any == .text("x y"))
        #expect(t.data == Data([0, 1, 255]) && t.bytes == [0, 1, 255])
        #expect(t.f == Float(0.1) && t.big == UInt64(Int64.max))
        struct OnlyCents: RowDecodable { init(row: Row) throws { let _: Cents = try row[0] } }
        #expect(throws: CSVImportError(message: "'12.5x' is not a Cents", line: 2, byteOffset: 2, record: 0,
                                       field: 1, fieldName: "p", function: "CSVRowCursor")) {
            try CSVRowCursor(OnlyCents.self, bytes: Array("p\n12.5x\n".utf8)).collect()
        }
        struct OnlyKind: RowDecodable { init(row: Row) throws { let _: Kind = try row[0] } }
        #expect(throws: CSVImportError(message: "'car' is not a Kind", line: 2, byteOffset: 2, record: 0,
                                       field: 1, fieldName: "k", function: "CSVRowCursor")) {
            try CSVRowCursor(OnlyKind.self, bytes: Array("k\ncar\n".utf8)).collect()
        }
    }

    /// The conversion plan kept for a field is for the type it was made for: a record reading
    /// one field as several types gets each type's value on every record, and the error of the
    /// type that refuses the text.
    @Test func aFieldReadAsSeveralTypesConvertsByEachTypesRuleOnEveryRecord() throws {
        enum Level: Int, DatabaseValueConvertible { case low = 1, high = 2 }
        struct Tag: DatabaseValueConvertible, Equatable {
            var text: String
            var databaseValue: DatabaseValue { .text(text) }
            static func fromDatabaseValue(_ v: DatabaseValue) -> Tag? { if case .text(let t) = v { Tag(text: t) } else { nil } }
        }
        struct Many: RowDecodable {
            var n: Int, s: String, level: Level?, d: Double, tag: Tag, o: Int32?
            init(row: Row) throws {
                n = try row[0]; s = try row[0]; level = try row[0]; d = try row["v"]; tag = try row[0]; o = try row[0]
            }
        }
        let many = try CSVRowCursor(Many.self, bytes: Array("v\n1\n2\n1\n".utf8)).collect()
        #expect(many.map(\.n) == [1, 2, 1])
        #expect(many.map(\.s) == ["1", "2", "1"])
        #expect(many.map(\.level) == [.low, .high, .low])
        #expect(many.map(\.d) == [1, 2, 1])
        #expect(many.map(\.tag) == [Tag(text: "1"), Tag(text: "2"), Tag(text: "1")])
        #expect(many.map(\.o) == [1, 2, 1])
        #expect(throws: CSVImportError.self) { try CSVRowCursor(Many.self, bytes: Array("v\n1\n3\n".utf8)).collect() }
        let refused = Result { try CSVRowCursor(Many.self, bytes: Array("v\n1\nx\n".utf8)).collect() }
        if case .failure(let error) = refused {
            #expect((error as? CSVImportError)?.message == "'x' is not a Int")
        } else {
            Issue.record("'x' read as an Int")
        }
    }

    /// A type of the user's that conforms only to DatabaseValueConvertible: a RawRepresentable
    /// one reads its raw value's field by the raw type's rule (`Bool` from `true`, an `Int`
    /// refusing `2.0`), any other type the field through fromDatabaseValue (text, else a number
    /// as integer, else real); optionals of them read a NULL field as nil.
    @Test func userDatabaseValueConvertibleTypesReadFieldsByTheirRawValueOrFromDatabaseValue() throws {
        struct Cents: DatabaseValueConvertible, Equatable {
            var value: Int64
            var databaseValue: DatabaseValue { .integer(value) }
            static func fromDatabaseValue(_ v: DatabaseValue) -> Cents? { if case .integer(let i) = v { Cents(value: i) } else { nil } }
        }
        struct Ratio: DatabaseValueConvertible, Equatable {
            var value: Double
            var databaseValue: DatabaseValue { .real(value) }
            static func fromDatabaseValue(_ v: DatabaseValue) -> Ratio? { if case .real(let d) = v { Ratio(value: d) } else { nil } }
        }
        struct Tag: DatabaseValueConvertible, Equatable {
            var text: String
            var databaseValue: DatabaseValue { .text(text) }
            static func fromDatabaseValue(_ v: DatabaseValue) -> Tag? { if case .text(let t) = v { Tag(text: t) } else { nil } }
        }
        enum Level: Int, DatabaseValueConvertible { case low = 1, high = 2 }
        struct Flag: RawRepresentable, DatabaseValueConvertible, Equatable { var rawValue: Bool }
        struct One<V: DatabaseValueConvertible>: RowDecodable { var v: V; init(row: Row) throws { v = try row[0] } }
        struct NoRecord: Error {}
        func read<V: DatabaseValueConvertible>(_ text: String, as type: V.Type) throws -> V {
            guard let one = try CSVRowCursor(One<V>.self, bytes: Array("f\n\(text)\n".utf8)).next() else { throw NoRecord() }
            return one.v
        }
        func refusal<V: DatabaseValueConvertible>(_ text: String, as type: V.Type) -> String? {
            if case .failure(let error) = Result(catching: { try read(text, as: V.self) }) {
                return (error as? CSVImportError)?.message
            }
            return nil
        }
        #expect(try read("250", as: Cents.self) == Cents(value: 250))
        #expect(try read("7", as: Cents?.self) == Cents(value: 7))
        #expect(try read("", as: Cents?.self) == nil)
        #expect(refusal("", as: Cents.self) == "NULL for a non-optional Cents")
        #expect(refusal("1.0", as: Cents.self) == "'1.0' is not a Cents")
        #expect(try read("0.5", as: Ratio.self) == Ratio(value: 0.5))
        #expect(try read("2", as: Ratio.self) == Ratio(value: 2))
        #expect(refusal("1e400", as: Ratio.self) == "'1e400' is not a Ratio")
        #expect(try read("007", as: Tag.self) == Tag(text: "007"))
        #expect(try read("2", as: Level.self) == .high)
        #expect(try read("", as: Level?.self) == nil)
        #expect(refusal("2.0", as: Level.self) == "'2.0' is not a Int")
        #expect(refusal("3", as: Level.self) == "'3' is not a Level")
        #expect(try read("TRUE", as: Flag.self) == Flag(rawValue: true))
        #expect(try read("0", as: Flag?.self) == Flag(rawValue: false))
        #expect(refusal("yes", as: Flag.self) == "'yes' is not a Bool")
    }

    /// Python's csv module writes random records; CSVRowCursor reads back exactly what Python
    /// wrote (Python's JSON of the same records as the oracle), and the same values as
    /// CSVDecodableCursor (Decodable) reads.
    @Test func readsWhatPythonsCsvWriterWrote() throws {
        struct Rec: RowDecodable, Decodable, Equatable {
            var id: Int64, name: String, amount: Double?, flag: Bool, note: String?
            init(row: Row) throws {
                id = try row["id"]; name = try row["name"]; amount = try row["amount"]; flag = try row["flag"]; note = try row["note"]
            }
        }
        let texts = csvTrickyTexts.filter { !$0.isEmpty && $0 != "NA" }
        let script = """
            import csv, io, json, random, sys
            texts = json.loads(sys.argv[1])
            rnd = random.Random(12)
            rows = []
            for i in range(3000):
                amount = rnd.choice([None, rnd.uniform(-1e6, 1e6), rnd.random() * 10 ** rnd.randint(-30, 30), float(rnd.randint(-5, 5))])
                rows.append({'id': rnd.randint(-2**63, 2**63 - 1), 'name': rnd.choice(texts),
                             'amount': amount, 'flag': rnd.random() < .5,
                             'note': rnd.choice([None, rnd.choice(texts)])})
            out = io.StringIO(newline='')
            w = csv.writer(out, lineterminator=rnd.choice(['\\r\\n', '\\n']))
            w.writerow(['id', 'name', 'amount', 'flag', 'note'])
            for r in rows:
                w.writerow([r['id'], r['name'], '' if r['amount'] is None else repr(r['amount']),
                            'true' if r['flag'] else 'FALSE', r['note']])
            sys.stdout.write(json.dumps({'csv': out.getvalue(), 'rows': rows}))
            """
        let json = String(decoding: try JSONEncoder().encode(texts), as: UTF8.self)
        struct Out: Decodable { var csv: String; var rows: [Rec] }
        let out = try JSONDecoder().decode(Out.self, from: Data(try runPython(script, args: [json]).utf8))
        #expect(out.rows.count == 3000)
        let viaRows = try CSVRowCursor(Rec.self, bytes: Array(out.csv.utf8)).collect()
        #expect(viaRows == out.rows)
        let viaDecodable = try CSVDecodableCursor(Rec.self, bytes: Array(out.csv.utf8)).collect()
        #expect(viaRows == viaDecodable)
    }
}
