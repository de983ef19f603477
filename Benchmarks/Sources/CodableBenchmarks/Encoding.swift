// The encoding side of CodableBenchmarks: the benchmark structs' hand-written
// encoding (`JSONEncodable`, written as the synthesized `encode(to:)` writes: the same
// keys in declaration order, `encodeIfPresent` for the optional), the hand-written
// rows of the encoding tables and the `profile encode…` variants.
import Foundation
import StreamQLite

extension HiHand: JSONEncodable {
    func encode(json: inout JSONObjectWriter) throws {
        try json.encode(hi, forKey: "hi")
        try json.encode(there, forKey: "there")
        try json.encode(comment, forKey: "comment")
    }
}

extension BenchTaskHand: JSONEncodable {
    func encode(json: inout JSONObjectWriter) throws {
        try json.encode(id, forKey: "id")
        try json.encode(title, forKey: "title")
        try json.encode(done, forKey: "done")
    }
}

extension OwnerHand: JSONEncodable {
    func encode(json: inout JSONObjectWriter) throws {
        try json.encode(name, forKey: "name")
        try json.encode(email, forKey: "email")
        try json.encode(since, forKey: "since")
    }
}

extension ItemHand: JSONEncodable {
    func encode(json: inout JSONObjectWriter) throws {
        try json.encode(sku, forKey: "sku")
        try json.encode(quantity, forKey: "quantity")
        try json.encode(price, forKey: "price")
    }
}

extension OrderHand: JSONEncodable {
    func encode(json: inout JSONObjectWriter) throws {
        try json.encode(id, forKey: "id")
        try json.encode(owner, forKey: "owner")
        try json.encode(items, forKey: "items")
        try json.encode(tags, forKey: "tags")
        try json.encode(attributes, forKey: "attributes")
        try json.encodeIfPresent(note, forKey: "note")
        try json.encode(paid, forKey: "paid")
    }
}

/// `values` as their hand-written twin type (same JSON), or nil for a type without one.
func handTwin<T: Encodable, H: JSONEncodable & Decodable>(_ values: [T], _ hand: H.Type) throws -> [H] {
    try JSONValueDecoder().decode([H].self, from: try JSONValueEncoder().encode(values))
}

/// Median seconds of the hand-written twin of `values` with `sorted` and `unsorted`, after
/// checking that it writes the same bytes as the `Encodable` path (`expected`, `expectedUnsorted`).
func measureHandEncoding<T: Encodable>(_ values: [T], reps: Int, sorted: JSONValueEncoder, unsorted: JSONValueEncoder,
                                       expected: [UInt8], expectedUnsorted: [UInt8]) throws -> (sorted: Double, unsorted: Double)? {
    func run<H: JSONEncodable & Decodable>(_ hand: H.Type) throws -> (sorted: Double, unsorted: Double) {
        let twin = try handTwin(values, H.self)
        let handSorted = try sorted.encode(twin), handUnsorted = try unsorted.encode(twin)
        precondition(handSorted == expected, "the hand-written encoding disagrees (sorted keys)")
        // (Unsorted, a dictionary's order is that of its own table: the twin's may differ.)
        precondition(T.self == Order.self || handUnsorted == expectedUnsorted, "the hand-written encoding disagrees (declaration order)")
        return (try measure(reps) { blackHole(try sorted.encode(twin)) }, try measure(reps) { blackHole(try unsorted.encode(twin)) })
    }
    if T.self == Hi.self { return try run(HiHand.self) }
    if T.self == BenchTask.self { return try run(BenchTaskHand.self) }
    if T.self == Order.self { return try run(OrderHand.self) }
    return nil
}

/// The measured part of an encoding profile run: `valgrind --tool=callgrind --toggle-collect='*15encodeProfiled*'`
/// counts only what runs inside.
@inline(never) func encodeProfiled(_ body: () throws -> Void) rethrows { try body() }

/// `profile encode[-sorted][-hand][-orders] N`: the reference file's values (or N/10 orders)
/// encoded 5 times, through `Encodable` or the hand-written twin, keys in declaration order or sorted.
func profileEncode(_ variant: String, _ n: Int) throws {
    var encoder = JSONValueEncoder()
    if variant.contains("-sorted") { encoder.outputFormatting = [.sortedKeys] }
    let hand = variant.contains("-hand")
    func run<T: Encodable>(_ values: [T]) throws {
        var size = 0
        let t = try measure(5) { try encodeProfiled { let b = try encoder.encode(values); size = b.count; blackHole(b) } }
        print(String(format: "%@: %.3f s, %.0f MB/s", variant, t, Double(size) / 1e6 / t))
    }
    if variant.contains("-small") {
        // One small value per call (an HTTP body, a message): the per-call set-up counts.
        let values = (0..<(n / 10)).map { Hi(hi: $0, there: $0, comment: "comment") }
        let foundation = JSONEncoder()
        if variant.contains("-sorted") { foundation.outputFormatting = [.sortedKeys] }
        let ours = try measure(5) { try encodeProfiled { for v in values { blackHole(try encoder.encode(v)) } } }
        let theirs = variant.contains("-profile") ? .nan : try measure(5) { for v in values { blackHole(try foundation.encode(v)) } }
        print(String(format: "%@: %d calls, ours %.3f µs a call, JSONEncoder %.3f µs a call: %.2f×", variant, values.count,
                     ours / Double(values.count) * 1e6, theirs / Double(values.count) * 1e6, theirs / ours))
        return
    }
    if variant.contains("-orders") {
        let orders = (0..<(n / 10)).map(order)
        if hand { try run(try handTwin(orders, OrderHand.self)) } else { try run(orders) }
    } else {
        let values = (0..<n).map { Hi(hi: $0, there: $0, comment: "comment") }
        if hand { try run(values.map { HiHand(hi: $0.hi, there: $0.there, comment: $0.comment) }) } else { try run(values) }
    }
}
