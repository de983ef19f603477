import Testing
import StreamQLite

/// Records sink events as text.
struct EventRecorder: RowSink {
    var events: [String] = []
    mutating func beginResult(columns: [String]) throws { events.append("begin \(columns)") }
    mutating func beginRow() throws { events.append("row") }
    mutating func null(column: Int) throws { events.append("\(column):null") }
    mutating func integer(_ value: Int64, column: Int) throws { events.append("\(column):int \(value)") }
    mutating func double(_ value: Double, column: Int) throws { events.append("\(column):double \(value)") }
    mutating func text(_ utf8: UnsafeBufferPointer<UInt8>, column: Int) throws {
        events.append("\(column):text \(String(decoding: utf8, as: UTF8.self))")
    }
    mutating func json(_ utf8: UnsafeBufferPointer<UInt8>, column: Int) throws {
        events.append("\(column):json \(String(decoding: utf8, as: UTF8.self))")
    }
    mutating func blob(_ bytes: UnsafeRawBufferPointer, column: Int) throws { events.append("\(column):blob \(Array(bytes))") }
    mutating func endRow() throws { events.append("end row") }
    mutating func endResult() throws { events.append("end") }
}

@Suite struct RowSinkStreamTests {
    @Test func everyStorageClassArrivesAsItsTypedEventInOrder() throws {
        let db = try Database()
        var sink = EventRecorder()
        try db.stream("SELECT 1 AS i, 2.5 AS d, ? AS t, x'0102' AS b, NULL AS n", "hé", into: &sink)
        #expect(sink.events == ["begin [\"i\", \"d\", \"t\", \"b\", \"n\"]", "row", "0:int 1", "1:double 2.5", "2:text hé",
                                "3:blob [1, 2]", "4:null", "end row", "end"])
    }

    @Test func jsonSubtypedTextGoesToTheJSONEvent() throws {
        let db = try Database()
        var sink = EventRecorder()
        try db.stream("SELECT json_object('a', 1) AS j, '{\"a\":1}' AS t", into: &sink)
        #expect(sink.events.contains("0:json {\"a\":1}"))
        #expect(sink.events.contains("1:text {\"a\":1}"))
    }

    @Test func aStatementStreamsWithNamedArgumentsAndEmptyResultsStillBeginAndEnd() throws {
        let db = try Database()
        var sink = EventRecorder()
        try db.stream("SELECT :v AS v WHERE 0", arguments: ["v": 1], into: &sink)
        #expect(sink.events == ["begin [\"v\"]", "end"])
        let statement = try db.makeStatement("SELECT ? AS v")
        try statement.bind(5)
        var again = EventRecorder()
        try statement.stream(into: &again)
        #expect(again.events == ["begin [\"v\"]", "row", "0:int 5", "end row", "end"])
    }

    @Test func anErrorThrownByTheSinkStopsTheQuery() throws {
        struct Stop: Error {}
        struct Stopper: RowSink { var rows = 0; mutating func endRow() throws { rows += 1; if rows == 2 { throw Stop() } } }
        let db = try Database()
        var sink = Stopper()
        #expect(throws: Stop.self) {
            try db.stream("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1000) SELECT i FROM n", into: &sink)
        }
        #expect(sink.rows == 2)
        #expect(db.isAutocommit)
    }
}
