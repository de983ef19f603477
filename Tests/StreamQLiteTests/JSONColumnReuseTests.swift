import Foundation
import Testing
import StreamQLite

// The row decoder keeps one JSON column decoder per column and reuses it on every row
// (its tape decoder, options and coding path), parsing the column's text where SQLite
// holds it. These tests check that reuse against Foundation's JSONDecoder reading the
// same texts: rows of different shapes one after another, errors in some rows (named by
// column and path) with the next rows still right, and what a type keeps beyond its
// init(from:) (a kept container never reads another row's value).

private struct ReuseItem: Codable, Equatable { var sku: String; var quantity: Int; var price: Double? }
private struct ReuseOrder: Codable, Equatable {
    var id: Int
    var items: [ReuseItem]
    var tags: [String]
    var attributes: [String: String]
    var note: String?
    var inner: [ReuseOrderInner]?
}
private struct ReuseOrderInner: Codable, Equatable { var level: Int; var children: [[Int]] }

/// A row whose nested value's failure is kept (so the rows after it are still read).
private struct ReuseRow: Decodable {
    var id: Int
    var order: ReuseOrder?
    var error: DatabaseError?
    enum CodingKeys: String, CodingKey { case id, data }
    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        id = try c.decode(Int.self, forKey: .id)
        do { order = try c.decode(ReuseOrder.self, forKey: .data) } catch let e as DatabaseError { error = e }
    }
}

/// What nested values kept beyond their init(from:) (handed in through userInfo).
private final class Kept: @unchecked Sendable {
    var singleValue: (any SingleValueDecodingContainer)?
    var decoder: (any Decoder)?
    var unkeyed: [(row: Int, container: any UnkeyedDecodingContainer)] = []
    var keyed: KeyedDecodingContainer<ReuseKey>?
    /// Per row: what the containers kept from the row before read (or "threw").
    var earlier: [String] = []
    static let key = CodingUserInfoKey(rawValue: "kept")!
    /// Drops what was kept (it refers back to this object through the decoders' userInfo).
    func clear() { singleValue = nil; decoder = nil; unkeyed = []; keyed = nil }
}

private struct ReuseKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(_ s: String) { stringValue = s }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

@Suite struct JSONColumnReuseTests {
    /// Texts of many shapes: keys in other orders, unknown keys, empty and long arrays, escapes,
    /// absent/null optionals, deeper nesting, whitespace, a document over the size a decoder is kept at.
    static func texts() -> [String] {
        var t: [String] = []
        for i in 0..<40 {
            switch i % 8 {
            case 0: t.append(#"{"id":\#(i),"items":[],"tags":[],"attributes":{}}"#)
            case 1: t.append(#"{"attributes":{"k\#(i)":"v"},"tags":["a","b"],"items":[{"quantity":\#(i),"sku":"S\#(i)"}],"id":\#(i),"note":null}"#)
            case 2: t.append(#"  {"id":\#(i),"unknown":{"x":[1,2,{"y":[]}]},"items":[{"sku":"é\"\\\u2028","quantity":-1,"price":1e-3},{"sku":"","quantity":0,"price":null}],"tags":["\ud83d\ude00"],"attributes":{"a":"1","b":"2","c":"3"},"note":"n"}  "#)
            case 3: t.append(#"{"id":\#(i),"items":[\#((0..<(i % 17 + 3)).map { #"{"sku":"s\#($0)","quantity":\#($0),"price":\#(Double($0) / 4)}"# }.joined(separator: ","))],"tags":[\#((0..<i).map { #""t\#($0)""# }.joined(separator: ","))],"attributes":{}}"#)
            case 4: t.append(#"{"id":\#(i),"items":[],"tags":[],"attributes":{},"inner":[{"level":1,"children":[[1,2],[],[3]]},{"children":[[\#(i)]],"level":2}]}"#)
            case 5: t.append("{\n\t\"tags\" : [ \"x\" ] ,\n\"items\" : [ ] , \"id\" : \(i) , \"attributes\" : { \"\\u0041\" : \"\\n\" } }")
            case 6 where i == 30:
                // 70,000 tags: more tokens than a decoder is kept with; the next rows get a new one.
                t.append(#"{"id":\#(i),"items":[],"tags":[\#((0..<70_000).map { #""\#($0)""# }.joined(separator: ","))],"attributes":{}}"#)
            default: t.append(#"{"id":\#(i),"items":[{"sku":"a","quantity":1}],"tags":["\#(String(repeating: "long ", count: i * 20))"],"attributes":{"z":"y"}}"#)
            }
        }
        return t
    }

    @Test func rowsOfDifferentShapesReadAsFoundationReadsEachText() throws {
        let texts = Self.texts()
        let db = try Database()
        try db.execute("CREATE TABLE t(id INTEGER PRIMARY KEY, data JSON)")
        for (i, text) in texts.enumerated() { try db.execute("INSERT INTO t VALUES (?, ?)", i, text) }
        let rows = try db.rows(ReuseRow.self, "SELECT id, data FROM t ORDER BY id").collect()
        #expect(rows.count == texts.count)
        for (row, text) in zip(rows, texts) {
            let expected = try JSONDecoder().decode(ReuseOrder.self, from: Data(text.utf8))
            #expect(row.error == nil, "row \(row.id): \(String(describing: row.error))")
            #expect(row.order == expected, "row \(row.id)")
        }
        // Twice on one statement (its cursors' decoders) and with the rows in the other order.
        let statement = try db.makeStatement("SELECT id, data FROM t ORDER BY id DESC")
        for _ in 0..<2 {
            let back = try statement.rows(ReuseRow.self).collect()
            #expect(back.map(\.order) == rows.reversed().map(\.order))
        }
    }

    @Test func anErrorInOneRowNamesColumnAndPathAndTheNextRowsStillDecode() throws {
        let db = try Database()
        try db.execute("CREATE TABLE t(id INTEGER PRIMARY KEY, data)")
        var texts: [Any] = Self.texts().prefix(12).map { $0 }
        texts[3] = #"{"id":3,"items":[{"sku":"a","quantity":1},{"sku":"b","quantity":"two"}],"tags":[],"attributes":{}}"#
        texts[5] = #"{"id":5,"items":[],"tags":[],"attributes":{"k":7}}"#
        texts[6] = #"{"id":6,"items":[{"sku":"a"}],"tags":[],"attributes":{}}"#
        texts[7] = #"{"id":7,"items":[], not json"#
        texts[8] = "[1]"
        texts[9] = 42
        for (i, v) in texts.enumerated() {
            if let s = v as? String { try db.execute("INSERT INTO t VALUES (?, ?)", i, s) } else { try db.execute("INSERT INTO t VALUES (?, ?)", i, v as! Int) }
        }
        let sql = "SELECT id, data FROM t ORDER BY id"
        let rows = try db.rows(ReuseRow.self, sql).collect()
        #expect(rows.count == 12)
        let failing: [Int: [String]] = [3: ["items[1].quantity"], 5: ["attributes.k"], 6: ["items[0]", "quantity"],
                                         7: ["not JSON"], 8: ["JSON"], 9: ["INTEGER 42"]]
        for row in rows {
            if let words = failing[row.id] {
                let e = try #require(row.error, "row \(row.id) decoded")
                #expect(e.column == "data" && e.sql == sql, "row \(row.id): \(e)")
                for w in words { #expect(e.message.contains(w), "row \(row.id): \(e.message)") }
                // Foundation does not read it either.
                if let s = texts[row.id] as? String { #expect(throws: (any Error).self) { try JSONDecoder().decode(ReuseOrder.self, from: Data(s.utf8)) } }
            } else {
                #expect(row.error == nil, "row \(row.id): \(String(describing: row.error))")
                #expect(row.order == (try JSONDecoder().decode(ReuseOrder.self, from: Data((texts[row.id] as! String).utf8))), "row \(row.id)")
            }
        }
        // Without the catch, the cursor stops at row 3, naming the column and the path.
        struct Plain: Decodable { var id: Int; var data: ReuseOrder }
        let e = try #require(throws: DatabaseError.self) { try db.rows(Plain.self, sql).collect() }
        #expect(e.column == "data" && e.message.contains("items[1].quantity"), "\(e)")
    }

    @Test func twoJSONColumnsAndTheSameColumnUnderTwoKeysEachReadTheirOwnValue() throws {
        struct Two: Decodable, Equatable { var a: ReuseItem; var b: [ReuseItem]; var c: ReuseItem? }
        struct SkuOnly: Decodable, Equatable { var sku: String }
        struct Aliased: Decodable, Equatable {
            var first: ReuseItem, second: SkuOnly
            enum K1: String, CodingKey { case a }
            enum K2: CodingKey { case a }
            init(from decoder: any Decoder) throws {
                first = try decoder.container(keyedBy: K1.self).decode(ReuseItem.self, forKey: .a)
                second = try decoder.container(keyedBy: K2.self).decode(SkuOnly.self, forKey: .a)
            }
        }
        let db = try Database()
        try db.execute("CREATE TABLE t(i INTEGER, a, b, c)")
        for i in 0..<20 {
            try db.execute("INSERT INTO t VALUES (?, ?, ?, ?)", i, #"{"sku":"a\#(i)","quantity":\#(i),"price":\#(i).5}"#,
                           "[" + (0..<(i % 4)).map { #"{"sku":"b\#($0)","quantity":\#($0)}"# }.joined(separator: ",") + "]",
                           i % 3 == 0 ? nil : #"{"quantity":\#(-i),"sku":"c"}"#)
        }
        let rows = try db.rows(Two.self, "SELECT a, b, c FROM t ORDER BY i").collect()
        for (i, r) in rows.enumerated() {
            #expect(r.a == ReuseItem(sku: "a\(i)", quantity: i, price: Double(i) + 0.5))
            #expect(r.b == (0..<(i % 4)).map { ReuseItem(sku: "b\($0)", quantity: $0, price: nil) })
            #expect(r.c == (i % 3 == 0 ? nil : ReuseItem(sku: "c", quantity: -i, price: nil)))
        }
        // One column read under two key types on every row: each read is the row's own value.
        let aliased = try db.rows(Aliased.self, "SELECT a FROM t ORDER BY i").collect()
        #expect(aliased.map(\.first) == rows.map(\.a))
        #expect(aliased.map(\.second.sku) == (0..<20).map { "a\($0)" })
        // An error under the second key names the column (row 7: no sku).
        try db.execute(#"UPDATE t SET a = '{"quantity": 1, "sku": 5}' WHERE i = 7"#)
        let e = try #require(throws: DatabaseError.self) { try db.rows(Aliased.self, "SELECT a FROM t ORDER BY i").collect() }
        #expect(e.column == "a" && e.message.contains("sku"), "\(e)")
    }

    @Test func aKeptSingleValueContainerOrDecoderThrowsOnALaterRowInsteadOfReadingIt() throws {
        // Before: a nested value's single-value container (or decoder) kept beyond its
        // init(from:) read the column of whatever row the statement was on: row 1's kept
        // container read "second" on row 2.
        struct Label: Decodable {
            var text: String
            init(from decoder: any Decoder) throws {
                let kept = decoder.userInfo[Kept.key] as! Kept
                let c = try decoder.singleValueContainer()
                text = try c.decode(String.self)
                kept.singleValue = c
                kept.decoder = decoder
            }
        }
        struct Row: Decodable {
            var label: Label
            enum CodingKeys: CodingKey { case label }
            init(from decoder: any Decoder) throws {
                let kept = decoder.userInfo[Kept.key] as! Kept
                if let c = kept.singleValue, let d = kept.decoder {
                    let viaContainer = (try? c.decode(String.self)) ?? "threw"
                    let viaDecoder = (try? d.singleValueContainer().decode(String.self)) ?? "threw"
                    kept.earlier.append(viaContainer + "/" + viaDecoder)
                }
                label = try decoder.container(keyedBy: CodingKeys.self).decode(Label.self, forKey: .label)
            }
        }
        let db = try Database()
        let kept = Kept()
        defer { kept.clear() }
        let statement = try db.makeStatement("SELECT column1 AS label FROM (VALUES ('first'), ('second'), ('third'))")
        let rows = try statement.rows(Row.self, userInfo: [Kept.key: kept]).collect()
        #expect(rows.map(\.label.text) == ["first", "second", "third"])
        #expect(kept.earlier == ["threw/threw", "threw/threw"])
    }

    @Test func aKeptUnkeyedContainerKeepsReadingItsOwnRowsJSON() throws {
        // A container that holds the tape decoder keeps it, with its own copy of the text: the
        // rows after it (long texts, which SQLite reads into one reused buffer) and the end of
        // the statement do not change what it reads.
        struct Tags: Decodable {
            var first: String
            init(from decoder: any Decoder) throws {
                let kept = decoder.userInfo[Kept.key] as! Kept
                var c = try decoder.unkeyedContainer()
                first = try c.decode(String.self)
                kept.unkeyed.append((Int(first.prefix(while: { $0 != "-" }))!, c))
            }
        }
        struct Row: Decodable { var tags: Tags }
        let db = try Database()
        try db.execute("CREATE TABLE t(i INTEGER PRIMARY KEY, tags JSON)")
        func tags(_ i: Int) -> [String] { (0..<40).map { "\(i)-\($0)-" + String(repeating: "\(i % 10)", count: 200) } }
        for i in 0..<12 { try db.execute("INSERT INTO t VALUES (?, ?)", i, String(decoding: try JSONEncoder().encode(tags(i)), as: UTF8.self)) }
        let kept = Kept()
        defer { kept.clear() }
        let statement = try db.makeStatement("SELECT tags FROM t ORDER BY i")
        let rows = try statement.rows(Row.self, userInfo: [Kept.key: kept]).collect()
        #expect(rows.map(\.tags.first) == (0..<12).map { tags($0)[0] })
        #expect(kept.unkeyed.count == 12)
        for (row, container) in kept.unkeyed {
            var c = container
            var rest: [String] = []
            while !c.isAtEnd { rest.append(try c.decode(String.self)) }
            #expect(rest == Array(tags(row).dropFirst()), "row \(row)")
        }
    }

    @Test func aKeptKeyedContainerNeverReadsALaterRow() throws {
        struct Point: Decodable {
            var x: Int
            init(from decoder: any Decoder) throws {
                let kept = decoder.userInfo[Kept.key] as! Kept
                let c = try decoder.container(keyedBy: ReuseKey.self)
                x = try c.decode(Int.self, forKey: ReuseKey("x"))
                kept.keyed = c
            }
        }
        struct Row: Decodable {
            var p: Point
            enum CodingKeys: CodingKey { case p }
            init(from decoder: any Decoder) throws {
                let kept = decoder.userInfo[Kept.key] as! Kept
                if let c = kept.keyed { kept.earlier.append((try? c.decode(Int.self, forKey: ReuseKey("x"))).map(String.init) ?? "threw") }
                p = try decoder.container(keyedBy: CodingKeys.self).decode(Point.self, forKey: .p)
            }
        }
        let db = try Database()
        let kept = Kept()
        defer { kept.clear() }
        let statement = try db.makeStatement(#"SELECT column1 AS p FROM (VALUES ('{"x": 1}'), ('{"x": 2}'), ('{"x": 3}'))"#)
        let rows = try statement.rows(Row.self, userInfo: [Kept.key: kept]).collect()
        #expect(rows.map(\.p.x) == [1, 2, 3])
        // Rows 2 and 3: the container kept on the row before throws, or reads that row's value.
        #expect(kept.earlier.count == 2)
        for (i, read) in kept.earlier.enumerated() { #expect(read == "threw" || read == "\(i + 1)", "row \(i + 2): \(read)") }
    }
}
