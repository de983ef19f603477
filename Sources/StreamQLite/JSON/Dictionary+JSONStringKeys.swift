import Foundation

/// `[String: V]` read member by member from the tape (what `Dictionary.init(from:)` does
/// through a keyed container, without its `allKeys` array, casts and lookups); its keys
/// are kept as they are, also with `convertFromSnakeCase` (as `JSONDecoder` does).
/// Duplicate keys: the first wins; keys are compared as `String`s. Errors inside name the
/// key as written, also with `convertFromSnakeCase` (as `JSONDecoder`'s do).
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
            let value: Value
            do {
                value = try decoder.unwrap(Value.self, at: j + 1)
            } catch let error as DecodingError where decoder.options.snakeCase {
                // The path names the key as the document has it (the tape's paths convert keys).
                throw error.replacingPathKey(at: decoder.path(to: index).count, with: JSONStringKey(key))
            }
            if result[key] == nil { result[key] = value }
            j = decoder.next(j + 1)
        }
        return result
    }
}

extension DecodingError {
    /// The same error with the coding path's key at `position` replaced by `key`.
    func replacingPathKey(at position: Int, with key: any CodingKey) -> DecodingError {
        func fixed(_ c: Context) -> Context {
            guard position < c.codingPath.count else { return c }
            var path = c.codingPath
            path[position] = key
            return Context(codingPath: path, debugDescription: c.debugDescription, underlyingError: c.underlyingError)
        }
        switch self {
        case .typeMismatch(let t, let c): return .typeMismatch(t, fixed(c))
        case .valueNotFound(let t, let c): return .valueNotFound(t, fixed(c))
        case .keyNotFound(let k, let c): return .keyNotFound(k, fixed(c))
        case .dataCorrupted(let c): return .dataCorrupted(fixed(c))
        @unknown default: return self
        }
    }
}
