import Foundation

/// An index in an unkeyed container's coding path (`Index 3`, as `JSONDecoder` prints it).
struct JSONIndexKey: CodingKey {
    var intValue: Int?
    var stringValue: String { "Index \(intValue!)" }
    init(index: Int) { intValue = index }
    init?(stringValue: String) { return nil }
    init?(intValue: Int) { self.intValue = intValue }
}

/// A key by name (dictionary keys, `super`).
struct JSONStringKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(_ s: String) { stringValue = s }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { return nil }
}
