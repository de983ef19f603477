/// The encoder of nested values stored in JSON columns by `insert(contentsOf:)`: one
/// per insert, its buffer reused for every value. Keys sorted, `/` not escaped; dates
/// as the insert writes them.
final class JSONColumnEncoder {
    let encoder: JSONStreamEncoder

    init(dateEncoding: InsertOptions.DateEncoding) {
        var e = JSONValueEncoder()
        e.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        switch dateEncoding {
        case .text: e.dateEncodingStrategy = .databaseText
        case .unixSeconds: e.dateEncodingStrategy = .secondsSince1970
        }
        encoder = JSONStreamEncoder(options: .init(e))
    }

    /// The JSON text of `value`, valid until the next call.
    func encode<T: Encodable>(_ value: T) throws -> UnsafeBufferPointer<UInt8> {
        encoder.reset()
        try encoder.encodeTop(value)
        return encoder.out.bytes
    }
}
