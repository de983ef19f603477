import Foundation

/// `[String: V]` read member by member from the tape (what `Dictionary.init(from:)` does
/// through a keyed container, without its `allKeys` array, casts and lookups); its keys
/// are kept as they are under every key strategy (as `JSONDecoder` does).
/// Duplicate keys: the first wins; keys are compared as `String`s. Coding paths inside (of
/// errors, given to a custom key strategy) name the key as written, as `JSONDecoder`'s do.
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
        // Coding paths inside name this object's keys as the document has them.
        let converts = decoder.options.keys.converts
        if converts { decoder.rawKeyObjects.append(index) }
        defer { if converts { decoder.rawKeyObjects.removeLast() } }
        while j < end {
            let key = decoder.string(at: j)
            let value = try decoder.unwrap(Value.self, at: j + 1)
            if result[key] == nil { result[key] = value }
            j = decoder.next(j + 1)
        }
        return result
    }
}
