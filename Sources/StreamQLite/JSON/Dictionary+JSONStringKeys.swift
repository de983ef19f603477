import Foundation

/// Marks `[String: V]`: with `convertFromSnakeCase` its keys are kept as they are (as `JSONDecoder` does).
protocol JSONStringDictionaryDecodable {
    static func decodeKeepingKeys(from decoder: JSONTapeDecoder, at index: Int) throws -> Self
}

extension Dictionary: JSONStringDictionaryDecodable where Key == String, Value: Decodable {
    static func decodeKeepingKeys(from decoder: JSONTapeDecoder, at index: Int) throws -> Self {
        let t = decoder.tokens[index]
        guard t.kind == JSONKind.object else { throw decoder.mismatch([String: Any].self, at: index) }
        var result: [String: Value] = [:]
        var j = index + 1
        let end = Int(t.length)
        while j < end {
            let key = decoder.string(at: j)
            let value = try decoder.unwrap(Value.self, at: j + 1)
            if result[key] == nil { result[key] = value }
            j = decoder.next(j + 1)
        }
        return result
    }
}
