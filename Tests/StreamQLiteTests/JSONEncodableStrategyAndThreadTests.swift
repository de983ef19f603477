import Foundation
import Testing
@testable import StreamQLite

// JSONEncodable (hand-written encoding) under date and data strategies, snake_case keys,
// key sets varying within one type, and many threads at once.

struct ReviewHandPoint: Codable, JSONEncodable {
    var createdAt: Int
    var userName: String
    func encode(json: inout JSONObjectWriter) throws {
        try json.encode(createdAt, forKey: "createdAt")
        try json.encode(userName, forKey: "userName")
    }
}

/// A type whose encode(json:) writes different key sets for different values.
private struct ReviewVarying: Codable, JSONEncodable {
    var a: Int?
    var b: Int?
    var c: Int?
    var z: String?
    func encode(json: inout JSONObjectWriter) throws {
        try json.encodeIfPresent(z, forKey: "z")
        try json.encodeIfPresent(c, forKey: "c")
        try json.encodeIfPresent(b, forKey: "b")
        try json.encodeIfPresent(a, forKey: "a")
    }
    enum CodingKeys: String, CodingKey { case z, c, b, a }
}

func encodedByUs<T: Encodable>(_ value: T, _ formatting: JSONValueEncoder.OutputFormatting = [.sortedKeys],
                                snake: Bool = false) throws -> String {
    var e = JSONValueEncoder()
    e.outputFormatting = formatting
    if snake { e.keyEncodingStrategy = .convertToSnakeCase }
    return String(decoding: try e.encode(value), as: UTF8.self)
}

func encodedByFoundation<T: Encodable>(_ value: T, _ formatting: JSONEncoder.OutputFormatting = [.sortedKeys],
                                      snake: Bool = false) throws -> String {
    let e = JSONEncoder()
    e.outputFormatting = formatting
    if snake { e.keyEncodingStrategy = .convertToSnakeCase }
    return String(decoding: try e.encode(value), as: UTF8.self)
}

/// Dates, data, URLs and nested optionals in hand-written members (the generic overload).
private struct ReviewDated: Codable, JSONEncodable {
    var when: Date
    var maybe: Date?
    var blob: Data
    var link: URL
    var leaves: [ReviewHandPoint]?
    var inner: ReviewHandPoint?
    func encode(json: inout JSONObjectWriter) throws {
        try json.encode(when, forKey: "when")
        try json.encodeIfPresent(maybe, forKey: "maybe")
        try json.encode(blob, forKey: "blob")
        try json.encode(link, forKey: "link")
        try json.encodeIfPresent(leaves, forKey: "leaves")
        try json.encodeIfPresent(inner, forKey: "inner")
    }
}

@Suite struct JSONEncodableStrategyAndThreadTests {
    // Every date and data strategy JSONValueEncoder shares with JSONEncoder, custom ones
    // writing containers, in every sorted layout: JSONEncoder's bytes.
    @Test func dateAndDataStrategiesInHandWrittenMembers() throws {
        let point = ReviewHandPoint(createdAt: 1, userName: "u/v")
        let values = [
            ReviewDated(when: Date(timeIntervalSince1970: 1_700_000_000.25), maybe: nil, blob: Data([0, 1, 255]),
                        link: URL(string: "https://example.com/a?b=c")!, leaves: [point, point], inner: nil),
            ReviewDated(when: Date(timeIntervalSince1970: -5), maybe: Date(timeIntervalSince1970: 0), blob: Data(),
                        link: URL(string: "file:///tmp/x")!, leaves: nil, inner: point),
        ]
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd'T'HH:mm:ss.SSS"
        enum DK: String, CodingKey { case t, d }
        let strategies: [(JSONValueEncoder.DateEncodingStrategy, JSONEncoder.DateEncodingStrategy)] = [
            (.deferredToDate, .deferredToDate), (.secondsSince1970, .secondsSince1970),
            (.millisecondsSince1970, .millisecondsSince1970), (.iso8601, .iso8601),
            (.formatted(formatter), .formatted(formatter)),
            (.custom({ d, e in var c = e.container(keyedBy: DK.self); try c.encode(d.timeIntervalSince1970, forKey: .t) }),
             .custom({ d, e in var c = e.container(keyedBy: DK.self); try c.encode(d.timeIntervalSince1970, forKey: .t) })),
            (.custom({ _, _ in }), .custom({ _, _ in })),
        ]
        let dataStrategies: [(JSONValueEncoder.DataEncodingStrategy, JSONEncoder.DataEncodingStrategy)] = [
            (.base64, .base64), (.deferredToData, .deferredToData),
            (.custom({ d, e in var c = e.unkeyedContainer(); try c.encode(d.count) }),
             .custom({ d, e in var c = e.unkeyedContainer(); try c.encode(d.count) })),
        ]
        for f in ourFormattings where f.contains(.sortedKeys) {
            var jf: JSONEncoder.OutputFormatting = [.sortedKeys]
            if f.contains(.prettyPrinted) { jf.insert(.prettyPrinted) }
            if f.contains(.withoutEscapingSlashes) { jf.insert(.withoutEscapingSlashes) }
            for (ds, fds) in strategies {
                for (das, fdas) in dataStrategies {
                    var e = JSONValueEncoder()
                    e.outputFormatting = f
                    e.dateEncodingStrategy = ds
                    e.dataEncodingStrategy = das
                    let j = JSONEncoder()
                    j.outputFormatting = jf
                    j.dateEncodingStrategy = fds
                    j.dataEncodingStrategy = fdas
                    let o = String(decoding: try e.encode(values), as: UTF8.self)
                    let r = String(decoding: try j.encode(values), as: UTF8.self)
                    #expect(o == r)
                }
            }
        }
    }

    // The key strategy applies to hand-written keys: convertToSnakeCase gives JSONEncoder's
    // bytes for a hand-written value, alone, in an array and nested in the Encodable path.
    @Test func snakeCaseAndHandWrittenKeys() throws {
        let point = ReviewHandPoint(createdAt: 5, userName: "x")
        #expect(try encodedByFoundation(point, snake: true) == #"{"created_at":5,"user_name":"x"}"#)
        for f in ourFormattings where f.contains(.sortedKeys) {
            var jf: JSONEncoder.OutputFormatting = [.sortedKeys]
            if f.contains(.prettyPrinted) { jf.insert(.prettyPrinted) }
            if f.contains(.withoutEscapingSlashes) { jf.insert(.withoutEscapingSlashes) }
            #expect(try encodedByUs(point, f, snake: true) == encodedByFoundation(point, jf, snake: true))
            #expect(try encodedByUs([point, point], f, snake: true) == encodedByFoundation([point, point], jf, snake: true))
            let dated = ReviewDated(when: Date(timeIntervalSince1970: 0), maybe: nil, blob: Data([1]),
                                    link: URL(string: "https://example.com")!, leaves: [point], inner: point)
            var e = JSONValueEncoder()
            e.outputFormatting = f
            e.keyEncodingStrategy = .convertToSnakeCase
            e.dateEncodingStrategy = .secondsSince1970
            let j = JSONEncoder()
            j.outputFormatting = jf
            j.keyEncodingStrategy = .convertToSnakeCase
            j.dateEncodingStrategy = .secondsSince1970
            #expect(String(decoding: try e.encode(dated), as: UTF8.self) == String(decoding: try j.encode(dated), as: UTF8.self))
        }
    }

    // One type, key sets that change from value to value (every subset, in every layout),
    // interleaved so each sequence's order plan is reused: JSONEncoder's bytes each time.
    @Test func varyingKeySetsOfOneTypeInEveryLayout() throws {
        var values: [ReviewVarying] = []
        for mask in 0..<16 {
            values.append(ReviewVarying(a: mask & 1 != 0 ? mask : nil, b: mask & 2 != 0 ? -mask : nil,
                                        c: mask & 4 != 0 ? 100 + mask : nil, z: mask & 8 != 0 ? "z\(mask)" : nil))
        }
        // More than the 32 kept plans? No: 16 sequences; repeat them in two orders.
        let all = values + values.reversed() + values
        for f in ourFormattings where f.contains(.sortedKeys) {
            var jf: JSONEncoder.OutputFormatting = [.sortedKeys]
            if f.contains(.prettyPrinted) { jf.insert(.prettyPrinted) }
            if f.contains(.withoutEscapingSlashes) { jf.insert(.withoutEscapingSlashes) }
            #expect(try encodedByUs(all, f) == encodedByFoundation(all, jf))
            for v in all { #expect(try encodedByUs(v, f) == encodedByFoundation(v, jf)) }
        }
    }

    // Hand-written encoding from many threads at once (each encoder's prepared keys and
    // order plans are its own): every result right.
    @Test func concurrentEncodingFromManyThreads() async throws {
        let point = ReviewHandPoint(createdAt: 7, userName: "a/b")
        let expected = try encodedByFoundation([point, point], [.sortedKeys])
        try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    var last = ""
                    for _ in 0..<200 { last = try encodedByUs([point, point]) }
                    return last
                }
            }
            for try await s in group { #expect(s == expected) }
        }
    }
}
