import CStreamQLite
import Foundation

/// The `Decoder` of one column's value when a row property is not a
/// ``DatabaseValueConvertible``: a nested struct, array, dictionary, set (read
/// from the column's JSON text with ``JSONValueDecoder``'s machinery), or a
/// single-value wrapper (an enum with a raw value, a wrapper struct: read from the
/// column itself).
///
/// The JSON is only parsed when the type asks for a keyed or unkeyed container,
/// so a single-value type costs nothing more. The column must then hold TEXT that
/// is one JSON value; anything else (an INTEGER, text that is not JSON) is an
/// error naming the column and the SQL (added by the row decoder).
final class JSONColumnDecoder: Decoder {
    let statement: Statement
    let column: Int32
    let codingPath: [any CodingKey]
    /// The row decoder's `userInfo` (`rows(T.self, userInfo:)`), handed to nested values too.
    let userInfo: [CodingUserInfoKey: Any]
    /// The parsed JSON, once a container was asked for.
    private var json: JSONTapeDecoder?

    /// Whether the owner calls ``recycle()`` when done (then containers are reused).
    private let recycles: Bool

    init(statement: Statement, column: Int32, codingPath: [any CodingKey], recycles: Bool = false,
         userInfo: [CodingUserInfoKey: Any] = [:]) {
        self.userInfo = userInfo
        self.statement = statement
        self.column = column
        self.codingPath = codingPath
        self.recycles = recycles
    }

    /// Decodes a `T` from column `column`, `key` being the property (the coding path's first element).
    static func decode<T: Decodable>(_ type: T.Type, statement: Statement, column: Int32, key: (any CodingKey)?,
                                     userInfo: [CodingUserInfoKey: Any] = [:]) throws -> T {
        let decoder = JSONColumnDecoder(statement: statement, column: column, codingPath: key.map { [$0] } ?? [], recycles: true,
                                        userInfo: userInfo)
        defer { decoder.recycle() }
        do {
            return try T(from: decoder)
        } catch let error as DecodingError {
            throw decoder.describe(error)
        }
    }

    /// Gives the tape back for the next row (once no container refers to it).
    func recycle() {
        JSONTapeDecoder.pool.give(&json)
    }

    /// A decoding error inside the JSON as a ``DatabaseError`` naming where in the JSON it is.
    func describe(_ error: DecodingError) -> any Error {
        let context: DecodingError.Context
        switch error {
        case .typeMismatch(_, let c), .valueNotFound(_, let c), .keyNotFound(_, let c), .dataCorrupted(let c): context = c
        @unknown default: return error
        }
        let inner = context.codingPath.dropFirst(codingPath.count)
        guard json != nil || !inner.isEmpty else { return error }
        var path = ""
        for k in inner {
            if let i = k.intValue, k is JSONIndexKey { path += "[\(i)]" } else { path += (path.isEmpty ? "" : ".") + k.stringValue }
        }
        let prefix = path.isEmpty ? "in the column's JSON" : "in the column's JSON at \(path)"
        return DatabaseError(code: SQLITE_MISMATCH, message: "\(prefix): \(error.streamQLiteDescription)")
    }

    /// The column's JSON, parsed on first use.
    func jsonDecoder(for type: Any.Type) throws -> JSONTapeDecoder {
        if let json { return json }
        let v: OpaquePointer = sqlite3_column_value(statement.handle, column)
        guard sqlite3_value_type(v) == SQLITE_TEXT else {
            throw DatabaseError(code: SQLITE_MISMATCH,
                                message: "a nested \(type) is read from JSON text, found \(DatabaseValue(sqliteValue: v).storageClassAndValue)")
        }
        let n = Int(sqlite3_value_bytes(v))
        let text = UnsafeRawBufferPointer(start: sqlite3_value_text(v), count: n)
        // Recycled decoders come from the pool; one that hands out a container to keep is its own.
        let decoder = recycles ? try JSONTapeDecoder.pool.take()
            : JSONTapeDecoder(tape: try JSONTape(), input: UnsafeRawBufferPointer(start: nil, count: 0), options: JSONColumnDecoder.options)
        if recycles { json = decoder }
        // The decoder reads a copy: containers may outlive this column read. A recycled
        // decoder copies into its own buffer, reused from row to row (no allocation per
        // row); it only goes back to the pool when no container holds it.
        let bytes: UnsafeRawBufferPointer
        if recycles {
            bytes = decoder.copyInput(text)
        } else {
            let owned = JSONOwnedBytes(copying: text)
            decoder.inputOwner = owned
            bytes = owned.buffer
        }
        do {
            try decoder.tape.parse(bytes)
        } catch let failure as JSONParseFailure {
            let text = String(decoding: bytes.prefix(60), as: UTF8.self)
            throw DatabaseError(code: SQLITE_MISMATCH, message:
                "a nested \(type) is read from JSON text, but the column's text is not JSON (\(failure.message) at byte \(failure.offset)): '\(text)\(n > 60 ? "…" : "")'")
        }
        var options = JSONColumnDecoder.options
        if !userInfo.isEmpty { options.userInfo = userInfo }
        decoder.begin(input: bytes, options: options)
        decoder.basePath = codingPath
        decoder.cachesContainers = recycles
        json = decoder
        return decoder
    }

    /// Nested values are read with the library's conventions (its date text, Base64 data).
    static let options = JSONValueDecoder.Options(JSONValueDecoder())

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        try jsonDecoder(for: [String: Any].self).container(keyedBy: type)
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try jsonDecoder(for: [Any].self).unkeyedContainer()
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        JSONColumnValueContainer(decoder: self)
    }
}

/// Bytes a decoder owns (a copy of a column's text).
final class JSONOwnedBytes {
    let buffer: UnsafeRawBufferPointer
    init(copying bytes: UnsafeRawBufferPointer) {
        let p = UnsafeMutableRawPointer.allocate(byteCount: max(bytes.count, 1), alignment: 1)
        if let b = bytes.baseAddress, bytes.count > 0 { p.copyMemory(from: b, byteCount: bytes.count) }
        buffer = UnsafeRawBufferPointer(start: p, count: bytes.count)
    }
    deinit { buffer.baseAddress.map { UnsafeMutableRawPointer(mutating: $0).deallocate() } }
}

/// A column read as one value: scalars through ``DatabaseValueConvertible``, anything else
/// (a wrapped nested value) through the column's JSON.
struct JSONColumnValueContainer: SingleValueDecodingContainer {
    let decoder: JSONColumnDecoder
    var codingPath: [any CodingKey] { decoder.codingPath }
    var stmt: OpaquePointer { decoder.statement.handle }

    /// SQL NULL, or JSON text `null`.
    func decodeNil() -> Bool {
        let v: OpaquePointer = sqlite3_column_value(stmt, decoder.column)
        switch sqlite3_value_type(v) {
        case SQLITE_NULL: return true
        case SQLITE_TEXT:
            guard sqlite3_value_bytes(v) < 64, let p = sqlite3_value_text(v) else { return false }
            let text = UnsafeBufferPointer(start: p, count: Int(sqlite3_value_bytes(v)))
            let isSpace: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }
            guard let first = text.firstIndex(where: { !isSpace($0) }), let last = text.lastIndex(where: { !isSpace($0) }) else { return false }
            return text[first...last].elementsEqual("null".utf8)
        default: return false
        }
    }

    func read<T: DatabaseValueConvertible>(_ type: T.Type) throws -> T { try T.decode(statement: stmt, column: decoder.column) }
    func decode(_ type: Bool.Type) throws -> Bool { try read(type) }
    func decode(_ type: String.Type) throws -> String { try read(type) }
    func decode(_ type: Double.Type) throws -> Double { try read(type) }
    func decode(_ type: Float.Type) throws -> Float { try read(type) }
    func decode(_ type: Int.Type) throws -> Int { try read(type) }
    func decode(_ type: Int8.Type) throws -> Int8 { try read(type) }
    func decode(_ type: Int16.Type) throws -> Int16 { try read(type) }
    func decode(_ type: Int32.Type) throws -> Int32 { try read(type) }
    func decode(_ type: Int64.Type) throws -> Int64 { try read(type) }
    func decode(_ type: UInt.Type) throws -> UInt { try read(type) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try read(type) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try read(type) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try read(type) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try read(type) }
    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        if let convertible = T.self as? any DatabaseValueConvertible.Type {
            return try convertible.decode(statement: stmt, column: decoder.column) as! T
        }
        return try T(from: decoder)
    }
}
