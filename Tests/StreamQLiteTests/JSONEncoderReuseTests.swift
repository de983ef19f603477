import Foundation
import Testing
import StreamQLite

// JSONValueEncoder keeps its encoders between calls (their key tables and buffers): a call
// gets one made for the same layout (pretty, sorted keys, escaped slashes, snake_case), with
// the call's own strategies and userInfo. Every call must write what Foundation writes.

private struct Stamped: Codable, Equatable {
    var someName: String
    var at: Date
    var blob: Data
    var ratio: Double
    var tags: [String: Int]
}

/// Writes what userInfo says (a value that depends on the call's userInfo).
private struct Tagged: Encodable {
    static let key = CodingUserInfoKey(rawValue: "tag")!
    func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(encoder.userInfo[Self.key] as? String ?? "none")
    }
}

@Suite struct JSONEncoderReuseTests {
    @Test func callsWithChangingOptionsEachWriteWhatJSONEncoderWrites() throws {
        let values = (0..<5).map { i in
            Stamped(someName: "n/\(i)", at: Date(timeIntervalSince1970: 1_700_000_000.5 + Double(i)),
                    blob: Data([UInt8(i), 0xFF]), ratio: Double(i) / 3, tags: ["b\(i)": i, "a": -i, "some_key": 1])
        }
        let formattings: [(JSONValueEncoder.OutputFormatting, JSONEncoder.OutputFormatting)] = [
            ([], []), ([.sortedKeys], [.sortedKeys]), ([.prettyPrinted, .sortedKeys], [.prettyPrinted, .sortedKeys]),
            ([.withoutEscapingSlashes, .sortedKeys], [.withoutEscapingSlashes, .sortedKeys]),
        ]
        var calls = 0
        for round in 0..<3 {
            for (ours, theirs) in (round == 1 ? formattings.reversed() : formattings) {
                for snake in [false, true] {
                    for dates in 0..<3 {
                        var e = JSONValueEncoder()
                        e.outputFormatting = ours
                        let f = JSONEncoder()
                        f.outputFormatting = theirs
                        if snake { e.keyEncodingStrategy = .convertToSnakeCase; f.keyEncodingStrategy = .convertToSnakeCase }
                        switch dates {
                        case 0: e.dateEncodingStrategy = .secondsSince1970; f.dateEncodingStrategy = .secondsSince1970
                        case 1: e.dateEncodingStrategy = .millisecondsSince1970; f.dateEncodingStrategy = .millisecondsSince1970
                        default: e.dateEncodingStrategy = .deferredToDate; f.dateEncodingStrategy = .deferredToDate
                        }
                        let expected = try f.encode(values)
                        let got = try e.encode(values)
                        calls += 1
                        if theirs.contains(.sortedKeys) {
                            #expect(Data(got) == expected, "\(ours) snake \(snake) dates \(dates): \(String(decoding: got, as: UTF8.self).prefix(120))")
                        } else {
                            // Foundation orders unsorted keys at random: the same JSON values.
                            let a = try JSONSerialization.jsonObject(with: Data(got)) as! NSArray
                            let b = try JSONSerialization.jsonObject(with: expected) as! NSArray
                            #expect(a == b, "\(ours) snake \(snake) dates \(dates)")
                            // Ours: declaration order (never the sorted order of an encoder made for sorted keys).
                            #expect(String(decoding: got, as: UTF8.self).hasPrefix(snake ? #"[{"some_name""# : #"[{"someName""#))
                        }
                    }
                }
            }
        }
        #expect(calls > 40)
    }

    @Test func eachCallSeesItsOwnUserInfoAndAFailedCallLeavesNothingBehind() throws {
        for tag in ["one", "two", "three"] {
            var e = JSONValueEncoder()
            e.userInfo = [Tagged.key: tag]
            #expect(String(decoding: try e.encode([Tagged()]), as: UTF8.self) == "[\"\(tag)\"]")
        }
        #expect(String(decoding: try JSONValueEncoder().encode([Tagged()]), as: UTF8.self) == "[\"none\"]")
        // A call that throws half way (a non-finite number), then the next call is whole.
        #expect(throws: EncodingError.self) { try JSONValueEncoder().encode(["a": [1, .infinity, 3.0]]) }
        #expect(String(decoding: try JSONValueEncoder().encode(["b": [1.5]]), as: UTF8.self) == #"{"b":[1.5]}"#)
    }
}
