import Foundation

/// How the row and JSON-column coders word an `EncodingError` in their own errors.
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
