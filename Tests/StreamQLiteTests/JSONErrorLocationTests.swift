import Foundation
import Testing
@testable import StreamQLite

/// Error locations ("line L, column C, byte offset O") cost the distance from the last one
/// asked for, not from the start of the document: a type that catches an error per element
/// decodes a large array in time proportional to its size.
@Suite struct JSONErrorLocationTests {
    /// An element whose `name` is missing; its `init(from:)` keeps the error's description.
    struct Item: Decodable {
        var id: Int
        var message: String
        enum CodingKeys: String, CodingKey { case id, name }
        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            id = try c.decode(Int.self, forKey: .id)
            do { message = try c.decode(String.self, forKey: .name) } catch DecodingError.keyNotFound(_, let context) {
                message = context.debugDescription
            }
        }
    }
    struct Holder: Decodable { var items: [Item] }

    @Test func locationsAskedForInDocumentOrderReadEachByteOnce() throws {
        let n = 3_000
        // One element per line, after `{"items":[` on the first line.
        let json = "{\"items\":[\n" + (0..<n).map { "  {\"id\":\($0)}" }.joined(separator: ",\n") + "\n]}"
        let bytes = Array(json.utf8)
        let decoder = try JSONTapeDecoder.pool.take()
        // a pooled decoder counts across documents: this one's reads are the difference
        let scannedBefore = decoder.locationBytesScanned
        let holder: Holder = try bytes.withUnsafeBytes { b in
            try decoder.parse(b, options: JSONValueDecoder.Options(JSONValueDecoder()))
            return try decoder.decodeTop(Holder.self)
        }
        #expect(holder.items.count == n)
        // The locations are right: element k's object is on line k + 2, column 3.
        for k in [0, 1, 1_500, n - 1] {
            #expect(holder.items[k].message.hasSuffix("in the object at line \(k + 2), column 3, byte offset \(Self.offset(of: k, in: json))"),
                    "\(holder.items[k].message)")
        }
        // And the bytes read for them are about the document's once (counting from the start
        // for each would read Σ offsets ≈ n × size / 2, 66 MB here).
        #expect(decoder.locationBytesScanned - scannedBefore <= 2 * bytes.count)
        // A location before the last one asked for is counted from the start again.
        let first = decoder.location(of: 0)
        #expect(first == "line 1, column 1, byte offset 0")
    }

    static func offset(of element: Int, in json: String) -> Int {
        let range = json.range(of: "  {\"id\":\(element)}")!
        return json.utf8.distance(from: json.utf8.startIndex, to: range.lowerBound) + 2
    }
}
