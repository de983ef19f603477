// CodableBenchmarks: JSON straight into Swift values and back.
// JSONValueDecoder / JSONValueEncoder vs Foundation's JSONDecoder / JSONEncoder,
// decoding into the same structs, with "just create the structs in a loop" as
// the ceiling. Prints medians (MB/s of JSON) and ratios.
//
//   swift run -c release --package-path Benchmarks CodableBenchmarks [N] [REPS]
//   swift run -c release --package-path Benchmarks CodableBenchmarks profile decode|decode-small|hand|encode[-sorted][-hand|-orders|-small]|orders|stream|rows|column-texts|texts|none [N]
//     (rows, column-texts, texts: N/10 orders in a JSON column read by rows(T.self), or each row's text by
//     JSONValueDecoder, or each row's text as String; the measured part is `profiled`, see there)
//   swift run -c release --package-path Benchmarks CodableBenchmarks stream-memory FILE_MB [keep]
//     (with keep, a second run reads the existing file: peak RSS without the generator)
//
// Files (generated in memory, N = 1,000,000 by default):
//   reference: N × {"hi": i, "there": i, "comment": "comment"}       (≈ 44 MB)
//   tasks:     N × {"id":i,"title":"task i","done":…}                 (the JSON issues' tasks file)
//   nested:    N/10 × a larger object: nested struct, array of structs, tags, dictionary, optional
import Foundation
import StreamQLite

struct Hi: Codable, Equatable { var hi: Int; var there: Int; var comment: String }
struct BenchTask: Codable, Equatable { var id: Int64; var title: String; var done: Bool }

// The same structs, read by hand (`JSONDecodable`: the decoder calls `init(json:)`).
struct HiHand: Codable, Equatable, JSONDecodable {
    var hi: Int; var there: Int; var comment: String
    init(hi: Int, there: Int, comment: String) { self.hi = hi; self.there = there; self.comment = comment }
    init(json: inout JSONObjectReader) throws {
        hi = try json.decode("hi")
        there = try json.decode("there")
        comment = try json.decode("comment")
    }
}
struct BenchTaskHand: Codable, Equatable, JSONDecodable {
    var id: Int64; var title: String; var done: Bool
    init(json: inout JSONObjectReader) throws {
        id = try json.decode("id")
        title = try json.decode("title")
        done = try json.decode("done")
    }
}
struct OwnerHand: Codable, Equatable, JSONDecodable {
    var name: String; var email: String; var since: Int
    init(json: inout JSONObjectReader) throws {
        name = try json.decode("name"); email = try json.decode("email"); since = try json.decode("since")
    }
}
struct ItemHand: Codable, Equatable, JSONDecodable {
    var sku: String; var quantity: Int; var price: Double
    init(json: inout JSONObjectReader) throws {
        sku = try json.decode("sku"); quantity = try json.decode("quantity"); price = try json.decode("price")
    }
}
struct OrderHand: Codable, Equatable, JSONDecodable {
    var id: Int; var owner: OwnerHand; var items: [ItemHand]; var tags: [String]
    var attributes: [String: String]; var note: String?; var paid: Bool
    init(json: inout JSONObjectReader) throws {
        id = try json.decode("id")
        owner = try json.decode("owner")
        items = try json.decode("items")
        tags = try json.decode("tags")
        attributes = try json.decode("attributes")
        note = try json.decodeIfPresent("note")
        paid = try json.decode("paid")
    }
}
struct Owner: Codable, Equatable { var name: String; var email: String; var since: Int }
struct Item: Codable, Equatable { var sku: String; var quantity: Int; var price: Double }
struct Order: Codable, Equatable {
    var id: Int
    var owner: Owner
    var items: [Item]
    var tags: [String]
    var attributes: [String: String]
    var note: String?
    var paid: Bool
}

let args = CommandLine.arguments

func referenceFile(_ n: Int) -> [UInt8] {
    var s = "["
    s.reserveCapacity(n * 48)
    for i in 0..<n {
        if i > 0 { s += ",\n" }
        s += "{\"hi\": \(i), \"there\": \(i), \"comment\": \"comment\"}"
    }
    s += "]"
    return Array(s.utf8)
}

func tasksFile(_ n: Int) -> [UInt8] {
    var s = "["
    s.reserveCapacity(n * 46)
    for i in 0..<n {
        if i > 0 { s += ",\n" }
        s += "{\"id\":\(i),\"title\":\"task \(i)\",\"done\":\(i % 3 == 0)}"
    }
    s += "]"
    return Array(s.utf8)
}

func order(_ i: Int) -> Order {
    Order(id: i, owner: Owner(name: "Owner \(i % 1000)", email: "owner\(i % 1000)@example.com", since: 2000 + i % 25),
          items: (0..<(1 + i % 4)).map { Item(sku: "SKU-\(i)-\($0)", quantity: 1 + $0, price: Double(i % 1000) / 4 + Double($0)) },
          tags: ["new", "priority \(i % 3)", "region-\(i % 7)"], attributes: ["color": "blue", "size": "\(i % 5)"],
          note: i % 2 == 0 ? nil : "leave at the \"front\" door / ring twice", paid: i % 3 != 0)
}

func nestedFile(_ n: Int) throws -> [UInt8] {
    Array(try JSONEncoder().encode((0..<n).map(order)))
}

/// Seconds of CPU time (user + system) of this process.
func cpuSeconds() -> Double {
    var u = rusage()
    getrusage(RUSAGE_SELF.rawValue, &u)
    return Double(u.ru_utime.tv_sec + u.ru_stime.tv_sec) + Double(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6
}

/// Median CPU seconds of `reps` runs of `body`.
func measure(_ reps: Int, _ body: () throws -> Void) rethrows -> Double {
    var times: [Double] = []
    for _ in 0..<reps {
        let t0 = cpuSeconds()
        try body()
        times.append(cpuSeconds() - t0)
    }
    return times.sorted()[times.count / 2]
}

@inline(never) func blackHole<T>(_ x: T) { withExtendedLifetime(x) {} }

/// The measured part of a profile run: `valgrind --tool=callgrind --toggle-collect='*8profiled*'`
/// counts only what runs inside (no set-up to subtract).
@inline(never) func profiled(_ body: () throws -> Void) rethrows { try body() }

struct OrderRow: Codable, Equatable { var id: Int; var data: Order }

/// A table of `count` orders in a JSON column, its JSON's total size and each row's JSON text.
func ordersDatabase(_ count: Int) throws -> (Database, Int, [[UInt8]]) {
    let db = try Database()
    try db.execute("CREATE TABLE orders(id INTEGER PRIMARY KEY, data JSON)")
    try db.insert(contentsOf: (0..<count).map { OrderRow(id: $0, data: order($0)) }, into: "orders")
    let bytes = try db.value(Int.self, "SELECT sum(length(data)) FROM orders") ?? 0
    let texts = try db.values(String.self, "SELECT data FROM orders ORDER BY id").collect().map { Array($0.utf8) }
    return (db, bytes, texts)
}

// MARK: Profile mode (one variant, for perf / callgrind)

if args.count > 2 && args[1] == "profile" {
    let n = args.count > 3 ? Int(args[3])! : 1_000_000
    let file = referenceFile(n)
    switch args[2] {
    case "decode":
        let t = try measure(5) { blackHole(try JSONValueDecoder().decode([Hi].self, from: file)) }
        print(String(format: "decode: %.3f s, %.0f MB/s", t, Double(file.count) / 1e6 / t))
    case "decode-small":
        // One small document per call (an HTTP body, a message): the per-call set-up counts.
        let texts = (0..<(n / 10)).map { Array("{\"hi\": \($0), \"there\": \($0), \"comment\": \"comment\"}".utf8) }
        let ours = try measure(5) { let d = JSONValueDecoder(); for t in texts { blackHole(try d.decode(Hi.self, from: t)) } }
        let theirs = try measure(5) { let d = JSONDecoder(); for t in texts { blackHole(try d.decode(Hi.self, from: Data(t))) } }
        print(String(format: "decode-small: %d calls, ours %.3f µs a call, JSONDecoder %.3f µs a call: %.2f×", texts.count,
                     ours / Double(texts.count) * 1e6, theirs / Double(texts.count) * 1e6, theirs / ours))
    case "hand":
        let t = try measure(5) { blackHole(try JSONValueDecoder().decode([HiHand].self, from: file)) }
        print(String(format: "hand: %.3f s, %.0f MB/s", t, Double(file.count) / 1e6 / t))
    case let variant where variant.hasPrefix("encode"):
        // encode[-sorted][-hand][-orders]: see profileEncode (Encoding.swift).
        try profileEncode(variant, n)
    case "stream":
        for _ in 0..<5 {
            let cursor = try JSONValueDecoder().elements(of: Hi.self, in: file)
            while let v = try cursor.next() { blackHole(v) }
        }
    case "orders":
        // Small documents one at a time (as JSON columns are read).
        let texts = try (0..<(n / 10)).map { Array(try JSONEncoder().encode(order($0))) }
        let t = try measure(5) { let d = JSONValueDecoder(); blackHole(try texts.map { try d.decode(Order.self, from: $0) }) }
        print(String(format: "orders: %.3f s, %.0f MB/s", t, Double(texts.reduce(0) { $0 + $1.count }) / 1e6 / t))
    case "rows", "column-texts", "texts":
        // N/10 orders in a JSON column: read by rows(T.self), or each row's text by the decoder, or
        // (texts) SQLite reading the same rows' text as String: the target is rows <= column-texts + texts.
        let (db, bytes, texts) = try ordersDatabase(n / 10)
        let variant = args[2]
        let t = try measure(5) {
            try profiled {
                switch variant {
                case "rows":
                    blackHole(try db.rows(OrderRow.self, "SELECT id, data FROM orders ORDER BY id").collect())
                case "texts":
                    blackHole(try db.values(String.self, "SELECT data FROM orders ORDER BY id").collect())
                default:
                    let d = JSONValueDecoder()
                    blackHole(try texts.map { try d.decode(Order.self, from: $0) })
                }
            }
        }
        print(String(format: "%@: %.3f s, %.0f MB/s", args[2], t, Double(bytes) / 1e6 / t))
    case "none":
        blackHole(file)
    default:
        print("profile decode|hand|encode|orders|stream|rows|column-texts|texts|none [N]")
    }
    exit(0)
}

// MARK: Streaming memory: decode the elements of a file over 1 GB one at a time

if args.count > 2 && args[1] == "stream-memory" {
    let megabytes = Int(args[2])!
    let path = NSTemporaryDirectory() + "streamqlite-codable-\(megabytes).json"
    if !FileManager.default.fileExists(atPath: path) {
        let sink = try FileDescriptorSink(path: path)
        var written = 1
        try [UInt8(ascii: "[")].withUnsafeBytes { try sink.write($0) }
        var i = 0
        while written < megabytes * 1_000_000 {
            let line = Array(((i > 0 ? ",\n" : "") + "{\"hi\": \(i), \"there\": \(i), \"comment\": \"comment\"}").utf8)
            try line.withUnsafeBytes { try sink.write($0) }
            written += line.count
            i += 1
        }
        try [UInt8(ascii: "]")].withUnsafeBytes { try sink.write($0) }
        try sink.close()
    }
    let size = (try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
    var before = rusage(), after = rusage()
    getrusage(RUSAGE_SELF.rawValue, &before)
    let t0 = cpuSeconds()
    var count = 0
    var sum = 0
    let cursor = try JSONValueDecoder().elements(of: Hi.self, contentsOfFile: path)
    while let value = try cursor.next() {
        count += 1
        sum &+= value.hi
    }
    let seconds = cpuSeconds() - t0
    getrusage(RUSAGE_SELF.rawValue, &after)
    print(String(format: "stream-memory: %d values, file %.1f MB, %.2f s CPU (%.0f MB/s), peak RSS %.1f MB (before %.1f MB)",
                 count, Double(size) / 1e6, seconds, Double(size) / 1e6 / seconds,
                 Double(after.ru_maxrss) / 1024, Double(before.ru_maxrss) / 1024))
    blackHole(sum)
    if args.count < 4 || args[3] != "keep" { try? FileManager.default.removeItem(atPath: path) }
    exit(0)
}

// MARK: The comparison

let n = args.count > 1 ? Int(args[1])! : 1_000_000
let reps = args.count > 2 ? Int(args[2])! : 3

func row(_ name: String, _ seconds: Double, bytes: Int, base: Double) {
    let mbps = Double(bytes) / 1e6 / seconds
    print(String(format: "| %@ | %.3f | %.0f | %.2f× |", name, seconds, mbps, base / seconds))
}

func decodeTable<T: Codable & Equatable, H: JSONDecodable & Equatable>(_ title: String, _ type: T.Type, hand: H.Type, _ file: [UInt8], ceiling: () -> [T]) throws {
    print("\n### Decoding: \(title) (\(String(format: "%.1f", Double(file.count) / 1e6)) MB, \(reps) runs, median CPU time)\n")
    print("| variant | s | MB/s | vs JSONDecoder |")
    print("|---|---|---|---|")
    let data = Data(file)
    let ours = try JSONValueDecoder().decode([T].self, from: file)
    let theirs = try JSONDecoder().decode([T].self, from: data)
    precondition(ours == theirs, "the decoders disagree")
    let oursHand = try JSONValueDecoder().decode([H].self, from: file)
    let theirsHand = try JSONDecoder().decode([H].self, from: data)
    precondition(oursHand == theirsHand && oursHand.count == ours.count, "the hand-written path disagrees")
    let foundation = try measure(reps) { blackHole(try JSONDecoder().decode([T].self, from: data)) }
    let decoder = try measure(reps) { blackHole(try JSONValueDecoder().decode([T].self, from: file)) }
    let stream = try measure(reps) {
        var values: [T] = []
        let cursor = try JSONValueDecoder().elements(of: T.self, in: file)
        while let v = try cursor.next() { values.append(v) }
        blackHole(values)
    }
    let handWritten = try measure(reps) { blackHole(try JSONValueDecoder().decode([H].self, from: file)) }
    let loop = measure(reps) { blackHole(ceiling()) }
    let parseOnly = try measure(reps) { blackHole(try JSONValueDecoder().decode(SkipAll.self, from: file)) }
    row("Foundation `JSONDecoder`", foundation, bytes: file.count, base: foundation)
    row("**`JSONValueDecoder`** (whole array)", decoder, bytes: file.count, base: foundation)
    row("`JSONValueDecoder.elements` (streamed, collected)", stream, bytes: file.count, base: foundation)
    row("**hand-written** (`JSONDecodable`, `init(json:)`)", handWritten, bytes: file.count, base: foundation)
    row("ceiling: create the same structs in a loop, no JSON", loop, bytes: file.count, base: foundation)
    row("floor of ours: the C parser filling the tape, no values", parseOnly, bytes: file.count, base: foundation)
}

/// Decodes nothing: decoding it only parses (and checks) the document.
struct SkipAll: Decodable { init(from decoder: any Decoder) throws {} }

func encodeTable<T: Codable & Equatable>(_ title: String, _ values: [T]) throws {
    let theirsEncoder = JSONEncoder()
    theirsEncoder.outputFormatting = [.sortedKeys]
    var oursEncoder = JSONValueEncoder()
    oursEncoder.outputFormatting = [.sortedKeys]
    let expected = try oursEncoder.encode(values)
    let size = expected.count
    let theirs = Array(try theirsEncoder.encode(values))
    precondition(expected == theirs, "the encoders disagree")
    print("\n### Encoding: \(title) (\(String(format: "%.1f", Double(size) / 1e6)) MB of output, sorted keys, \(reps) runs)\n")
    print("| variant | s | MB/s | vs JSONEncoder |")
    print("|---|---|---|---|")
    let foundation = try measure(reps) { blackHole(try theirsEncoder.encode(values)) }
    let ours = try measure(reps) { blackHole(try oursEncoder.encode(values)) }
    var unsorted = JSONValueEncoder()
    unsorted.outputFormatting = []
    let oursUnsorted = try measure(reps) { blackHole(try unsorted.encode(values)) }
    // The same values as their JSONEncodable twin (Encoding.swift): the same bytes, checked.
    let hand = try measureHandEncoding(values, reps: reps, sorted: oursEncoder, unsorted: unsorted,
                                       expected: expected, expectedUnsorted: try unsorted.encode(values))
    row("Foundation `JSONEncoder`", foundation, bytes: size, base: foundation)
    row("**`JSONValueEncoder`** (`Encodable`)", ours, bytes: size, base: foundation)
    row("`JSONValueEncoder` (`Encodable`), keys in declaration order", oursUnsorted, bytes: size, base: foundation)
    if let hand {
        row("**hand-written** (`JSONEncodable`, `encode(json:)`)", hand.sorted, bytes: size, base: foundation)
        row("hand-written, keys in declaration order", hand.unsorted, bytes: size, base: foundation)
    }
}

print("CodableBenchmarks: N = \(n), \(reps) runs per variant")
let reference = referenceFile(n)
try decodeTable("reference file, {\"hi\", \"there\", \"comment\"}", Hi.self, hand: HiHand.self, reference) {
    var a: [Hi] = []
    for i in 0..<n { a.append(Hi(hi: i, there: i, comment: "comment")) }
    return a
}
let tasks = tasksFile(n)
try decodeTable("tasks file, {\"id\", \"title\", \"done\"}", BenchTask.self, hand: BenchTaskHand.self, tasks) {
    var a: [BenchTask] = []
    for i in 0..<n { a.append(BenchTask(id: Int64(i), title: "task \(i)", done: i % 3 == 0)) }
    return a
}
let nested = try nestedFile(n / 10)
try decodeTable("nested orders (owner, items, tags, attributes, optional note)", Order.self, hand: OrderHand.self, nested) {
    (0..<(n / 10)).map(order)
}
try encodeTable("reference file", try JSONValueDecoder().decode([Hi].self, from: reference))
try encodeTable("tasks file", try JSONValueDecoder().decode([BenchTask].self, from: tasks))
try encodeTable("nested orders", (0..<(n / 10)).map(order))

// MARK: Nested values in JSON columns: rows(T.self, …) vs the decoder on the same JSON

do {
    let count = n / 10
    let (db, bytes, texts) = try ordersDatabase(count)
    let same = try db.rows(OrderRow.self, "SELECT id, data FROM orders ORDER BY id").collect().map(\.data) == (0..<count).map(order)
    precondition(same, "rows(T.self) read back other values")
    print("\n### Nested values in a JSON column: \(count) orders, \(String(format: "%.1f", Double(bytes) / 1e6)) MB of JSON text, \(reps) runs\n")
    print("| variant | s | MB/s of JSON | vs JSONDecoder per value |")
    print("|---|---|---|---|")
    let foundation = try measure(reps) {
        let d = JSONDecoder()
        blackHole(try texts.map { try d.decode(Order.self, from: Data($0)) })
    }
    let perValue = try measure(reps) {
        let d = JSONValueDecoder()
        blackHole(try texts.map { try d.decode(Order.self, from: $0) })
    }
    let viaRows = try measure(reps) { blackHole(try db.rows(OrderRow.self, "SELECT id, data FROM orders ORDER BY id").collect()) }
    let textsOnly = try measure(reps) { blackHole(try db.values(String.self, "SELECT data FROM orders ORDER BY id").collect()) }
    row("Foundation `JSONDecoder`, each column's text", foundation, bytes: bytes, base: foundation)
    row("`JSONValueDecoder`, each column's text", perValue, bytes: bytes, base: foundation)
    row("**`rows(OrderRow.self, …)`** (the column read by the row decoder)", viaRows, bytes: bytes, base: foundation)
    row("floor: the same rows' text as `String`, no JSON", textsOnly, bytes: bytes, base: foundation)
}
