import CStreamQLite
import Foundation

/// The token kinds of a ``JSONTape`` (the C parser's `sq_json_type`).
enum JSONKind {
    static let null = UInt8(SQ_JSON_NULL.rawValue)
    static let `false` = UInt8(SQ_JSON_FALSE.rawValue)
    static let `true` = UInt8(SQ_JSON_TRUE.rawValue)
    static let number = UInt8(SQ_JSON_NUMBER.rawValue)
    static let string = UInt8(SQ_JSON_STRING.rawValue)
    static let key = UInt8(SQ_JSON_KEY.rawValue)
    static let object = UInt8(SQ_JSON_BEGIN_OBJECT.rawValue)
    static let array = UInt8(SQ_JSON_BEGIN_ARRAY.rawValue)
    static let integerFlag = UInt8(SQ_JSON_F_INTEGER)
    static let negativeFlag = UInt8(SQ_JSON_F_NEGATIVE)

    /// As `JSONDecoder` names them in its messages.
    static func describe(_ kind: UInt8) -> String {
        switch kind {
        case string, key: return "a string"
        case number: return "number"
        case `true`, `false`: return "bool"
        case null: return "null"
        case object: return "a dictionary"
        default: return "an array"
        }
    }
}
