import Foundation

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
