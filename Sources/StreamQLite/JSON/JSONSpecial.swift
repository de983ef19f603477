import CStreamQLite
import Foundation

/// See ``JSONValueEncoder/Options/special(_:path:)``.
enum JSONSpecial {
    case scalar(JSONScalar)
    case encode((any Encoder) throws -> Void)
}

/// A nil `Optional` (bound as SQL NULL, not as the JSON text `null`).
protocol JSONOptionalValue { var isNone: Bool { get } }
extension Optional: JSONOptionalValue { var isNone: Bool { self == nil } }

/// The byte of a one-byte trivial key (synthesized `CodingKeys`), else -1.
@inline(__always)
func jsonKeyByte<K: CodingKey>(_ key: K) -> Int16 {
    isByteCodingKey(K.self) ? Int16(codingKeyByte(key)) : -1
}

extension EncodingError {
    /// The failure in one sentence, with where in the value it happened.
    var streamQLiteDescription: String {
        switch self {
        case .invalidValue(_, let context):
            let path = context.codingPath.map { k in k.intValue.map { "[\($0)]" } ?? k.stringValue }.joined(separator: ".")
            return path.isEmpty ? context.debugDescription : "at \(path): \(context.debugDescription)"
        @unknown default:
            return "\(self)"
        }
    }
}
