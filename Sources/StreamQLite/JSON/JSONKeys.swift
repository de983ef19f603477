import Foundation

/// How a coder turns coding keys into JSON keys (encoding) or JSON keys into the names
/// coding keys are matched against (decoding): its key strategy, resolved once per coder.
struct JSONKeyConversion {
    enum Kind {
        /// Keys as they are (the default).
        case none
        /// `JSONEncoder`'s `convertToSnakeCase` (``convertToSnakeCase(_:)``).
        case toSnakeCase
        /// `JSONDecoder`'s `convertFromSnakeCase` (``convertFromSnakeCase(_:)``).
        case fromSnakeCase
        /// The caller's function of the coding path that ends with the key (the key as the
        /// types name it when encoding, as the document has it when decoding).
        case custom(@Sendable ([any CodingKey]) -> any CodingKey)
    }

    let kind: Kind
    /// Whether keys are converted at all: a stored flag, since it is tested for each key.
    let converts: Bool

    init(_ kind: Kind) {
        self.kind = kind
        if case .none = kind { converts = false } else { converts = true }
    }

    /// Whether the conversion depends on where the key is (a custom function), not only on
    /// its name: the result cannot be kept per name.
    var dependsOnPath: Bool {
        if case .custom = kind { return true }
        return false
    }

    /// `name` converted; `path` is the coding path of the key's container (used by a custom function).
    func convert(_ name: String, in path: @autoclosure () -> [any CodingKey]) -> String {
        switch kind {
        case .none: return name
        case .toSnakeCase: return convertToSnakeCase(name)
        case .fromSnakeCase: return convertFromSnakeCase(name)
        case .custom(let f): return f(path() + [JSONStringKey(name)]).stringValue
        }
    }

    /// `key` converted, for encoding: a custom function is given the key itself at the end of
    /// `path` (as `JSONEncoder` gives it, with its `intValue`).
    func convert(_ key: some CodingKey, in path: @autoclosure () -> [any CodingKey]) -> String {
        if case .custom(let f) = kind { return f(path() + [key]).stringValue }
        return convert(key.stringValue, in: path())
    }
}

/// `JSONEncoder`'s `convertToSnakeCase` conversion.
func convertToSnakeCase(_ stringKey: String) -> String {
    guard !stringKey.isEmpty else { return stringKey }
    func isUpper(_ c: Character) -> Bool {
        c.unicodeScalars.first.map { [.uppercaseLetter, .titlecaseLetter].contains($0.properties.generalCategory) } ?? false
    }
    func isLower(_ c: Character) -> Bool {
        c.unicodeScalars.first.map { $0.properties.generalCategory == .lowercaseLetter } ?? false
    }
    var words: [Range<String.Index>] = []
    var wordStart = stringKey.startIndex
    var searchRange = stringKey.index(after: wordStart)..<stringKey.endIndex
    while let upper = stringKey[searchRange].firstIndex(where: isUpper) {
        words.append(wordStart..<upper)
        searchRange = upper..<searchRange.upperBound
        guard let lower = stringKey[searchRange].firstIndex(where: isLower) else {
            wordStart = searchRange.lowerBound
            break
        }
        let afterUpper = stringKey.index(after: upper)
        if lower == afterUpper {
            wordStart = upper
        } else {
            let beforeLower = stringKey.index(before: lower)
            words.append(upper..<beforeLower)
            wordStart = beforeLower
        }
        searchRange = stringKey.index(after: lower)..<searchRange.upperBound
    }
    words.append(wordStart..<searchRange.upperBound)
    return words.map { stringKey[$0].lowercased() }.joined(separator: "_")
}

/// `JSONDecoder`'s `convertFromSnakeCase` conversion.
func convertFromSnakeCase(_ stringKey: String) -> String {
    guard !stringKey.isEmpty else { return stringKey }
    guard let firstNonUnderscore = stringKey.firstIndex(where: { $0 != "_" }) else { return stringKey }
    var lastNonUnderscore = stringKey.index(before: stringKey.endIndex)
    while lastNonUnderscore > firstNonUnderscore && stringKey[lastNonUnderscore] == "_" {
        stringKey.formIndex(before: &lastNonUnderscore)
    }
    let keyRange = firstNonUnderscore...lastNonUnderscore
    let leading = stringKey[stringKey.startIndex..<firstNonUnderscore]
    let trailing = stringKey[stringKey.index(after: lastNonUnderscore)..<stringKey.endIndex]
    let components = stringKey[keyRange].split(separator: "_")
    let joined: String
    if components.count == 1 {
        joined = String(stringKey[keyRange])
    } else {
        joined = ([components[0].lowercased()] + components[1...].map { $0.capitalized }).joined()
    }
    return String(leading) + joined + String(trailing)
}

// MARK: - Keys of coding paths

/// An index in an unkeyed container's coding path (`Index 3`, as `JSONDecoder` prints it).
struct JSONIndexKey: CodingKey {
    var intValue: Int?
    var stringValue: String { "Index \(intValue!)" }
    init(index: Int) { intValue = index }
    init?(stringValue: String) { return nil }
    init?(intValue: Int) { self.intValue = intValue }
}

/// An `[Int: V]` key in a coding path: its name and its number, as the standard
/// library's dictionary key has them (`[42]` in an error's path, as `JSONDecoder` prints it).
struct JSONIntDictionaryKey: CodingKey {
    var stringValue: String
    var intValue: Int?
    init(_ s: String, _ n: Int?) { stringValue = s; intValue = n }
    init?(stringValue: String) { self.stringValue = stringValue; intValue = Int(stringValue) }
    init?(intValue: Int) { stringValue = String(intValue); self.intValue = intValue }
}

/// A key by name (dictionary keys, `super`).
struct JSONStringKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(_ s: String) { stringValue = s }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { return nil }
}
