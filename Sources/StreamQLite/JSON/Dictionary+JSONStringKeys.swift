import Foundation

/// `[String: V]` read member by member from the tape (what `Dictionary.init(from:)` does
/// through a keyed container, without its `allKeys` array, casts and lookups); its keys
/// are kept as they are, also with `convertFromSnakeCase` (as `JSONDecoder` does).
/// Duplicate keys: the first wins; keys are compared as `String`s.
protocol JSONStringDictionaryDecodable {
    static func decodeKeepingKeys(from decoder: JSONTapeDecoder, at index: Int) throws -> Self
}

extension Dictionary: JSONStringDictionaryDecodable where Key == String, Value: Decodable {
    static func decodeKeepingKeys(from decoder: JSONTapeDecoder, at index: Int) throws -> Self {
        let t = decoder.tokens[index]
        guard t.kind == JSONKind.object else {
            // `Dictionary.init(from:)`'s own error (null, another kind of value).
            decoder.current = index
            return try Self(from: decoder)
        }
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
