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
///
/// The row decoder keeps one per JSON column (``Lifetime/row``) and reuses it on
/// every row with its tape decoder, options and coding path: a row's nested value
/// costs the parse and the decode, nothing per row besides (no allocation, no lock,
/// no copy of the text, which is parsed where SQLite holds it). What the type may
/// keep beyond its `init(from:)` stays right: a kept container that holds the tape
/// decoder (an unkeyed or single-value container) gets it, with its own copy of the
/// text, and the next row a new one; a kept keyed container throws when used on a
/// later row (the tape decoder's generation); a kept decoder or single-value
/// container of this type throws once its row is over (``retire()``).
final class JSONColumnDecoder: Decoder {
    /// How long the decoder and what it hands out are used.
    enum Lifetime {
        /// One column on every row of a statement (the row decoder's): the tape decoder is
        /// kept from row to row; ``decodeValue(_:)`` per row.
        case row
        /// One value (``decode(_:statement:column:key:userInfo:)``): the tape decoder comes
        /// from the pool and goes back after it.
        case value
        /// One container that may outlive the row (a row type's `nestedContainer(keyedBy:forKey:)`):
        /// the tape decoder and a copy of the text are its own, its containers retain it.
        case container
    }

    let statement: Statement
    let column: Int32
    /// The property's key (none for a value read from a single-value container).
    private(set) var codingPath: [any CodingKey]
    /// The row decoder's `userInfo` (`rows(T.self, userInfo:)`), handed to nested values too.
    let userInfo: [CodingUserInfoKey: Any]
    let lifetime: Lifetime
    /// The options of the tape decoder: the library's conventions and `userInfo`, made once.
    private let options: JSONValueDecoder.Options
    /// The tape decoder (kept across rows with ``Lifetime/row``).
    @exclusivity(unchecked) private var json: JSONTapeDecoder?
    /// Whether `json` holds this value's JSON (parsed on the first container asked for).
    @exclusivity(unchecked) private var parsed = false
    /// The row is over and this decoder was not reused: reading through it is an error.
    @exclusivity(unchecked) private(set) var retired = false
    /// The key `codingPath` was made from: its type, and its bits when they identify it
    /// (``codingKeyBits(_:)``), else its name.
    private let keyType: ObjectIdentifier?
    private let keyBits: UInt64?
    private let keyName: String?

    /// The decoder of column `column`'s value for the property `key`.
    convenience init<Key: CodingKey>(statement: Statement, column: Int32, key: Key, lifetime: Lifetime,
                                     userInfo: [CodingUserInfoKey: Any] = [:]) {
        let bits = codingKeyBits(key)
        self.init(statement: statement, column: column, codingPath: [key], keyType: ObjectIdentifier(Key.self), keyBits: bits,
                  keyName: bits == nil ? key.stringValue : nil, lifetime: lifetime, userInfo: userInfo)
    }

    /// The decoder of column `column`'s value read as a single value (no property, an empty coding path).
    convenience init(statement: Statement, column: Int32, lifetime: Lifetime) {
        self.init(statement: statement, column: column, codingPath: [], keyType: nil, keyBits: nil, keyName: nil, lifetime: lifetime, userInfo: [:])
    }

    private init(statement: Statement, column: Int32, codingPath: [any CodingKey], keyType: ObjectIdentifier?, keyBits: UInt64?,
                 keyName: String?, lifetime: Lifetime, userInfo: [CodingUserInfoKey: Any]) {
        self.userInfo = userInfo
        self.statement = statement
        self.column = column
        self.lifetime = lifetime
        self.codingPath = codingPath
        self.keyType = keyType
        self.keyBits = keyBits
        self.keyName = keyName
        var options = JSONColumnDecoder.options
        if !userInfo.isEmpty { options.userInfo = userInfo }
        self.options = options
    }

    deinit {
        if lifetime != .container { JSONTapeDecoder.pool.give(&json) }
    }

    /// Whether `key` is the key the coding path was made from (then the decoder serves it).
    @inline(__always)
    func isPath<Key: CodingKey>(of key: Key) -> Bool {
        guard keyType == ObjectIdentifier(Key.self) else { return false }
        if let keyBits { return codingKeyBits(key) == keyBits }
        return key.stringValue == keyName
    }

    /// Decodes a `T` from column `column`, read once as a single value (``Lifetime/value``).
    static func decode<T: Decodable>(_ type: T.Type, statement: Statement, column: Int32) throws -> T {
        try JSONColumnDecoder(statement: statement, column: column, lifetime: .value).decodeValue(T.self)
    }

    /// Decodes the column's value on the current row as a `T`.
    func decodeValue<T: Decodable>(_ type: T.Type) throws -> T {
        defer { endValue() }
        do {
            return try T(from: self)
        } catch let error as DecodingError {
            throw describe(error)
        }
    }

    /// The value is decoded: the tape decoder is kept for the next row (``Lifetime/row``) or
    /// given back (``Lifetime/value``) — unless a container the type kept holds it: then it is
    /// left to that container, reading its own copy of the text (SQLite's is gone at the next step).
    private func endValue() {
        if lifetime == .container { return }
        if lifetime == .value { retired = true }
        guard parsed else {
            if lifetime == .value { JSONTapeDecoder.pool.give(&json) }
            return
        }
        parsed = false
        if !isKnownUniquelyReferenced(&json) {
            json.unsafelyUnwrapped.readOwnCopyOfInput()
            json = nil
        } else if lifetime == .value || !json.unsafelyUnwrapped.isWorthKeeping {
            JSONTapeDecoder.pool.give(&json)
        } else if !json.unsafelyUnwrapped.retiredFrames.isEmpty {
            json.unsafelyUnwrapped.endDocument()
        }
    }

    /// The row decoder reads the column with another decoder from now on (this one is held
    /// by what the type kept): reading through it throws.
    func retire() {
        retired = true
    }

    /// Throws when the decoder is used after its row (kept beyond `init(from:)`).
    func checkCurrent() throws {
        if _slowPath(retired) {
            throw DatabaseError(code: SQLITE_MISUSE, message:
                "a nested value's decoder or single-value container was used after its row was read (kept beyond init(from:)): it would read another row")
        }
    }

    /// A decoding error inside the JSON as a ``DatabaseError`` naming where in the JSON it is.
    func describe(_ error: DecodingError) -> any Error {
        guard let context = error.context else { return error }
        let inner = context.codingPath.dropFirst(codingPath.count)
        guard parsed || !inner.isEmpty else { return error }
        var path = ""
        for k in inner {
            if let i = k.intValue, k is JSONIndexKey { path += "[\(i)]" } else { path += (path.isEmpty ? "" : ".") + k.stringValue }
        }
        let prefix = path.isEmpty ? "in the column's JSON" : "in the column's JSON at \(path)"
        return DatabaseError(code: SQLITE_MISMATCH, message: "\(prefix): \(error.streamQLiteDescription)")
    }

    /// The column's JSON, parsed on first use.
    func jsonDecoder(for type: Any.Type) throws -> JSONTapeDecoder {
        if parsed, let json { return json }
        try checkCurrent()
        let v: OpaquePointer = sqlite3_column_value(statement.handle, column)
        guard sqlite3_value_type(v) == SQLITE_TEXT else {
            throw DatabaseError(code: SQLITE_MISMATCH,
                                message: "a nested \(type) is read from JSON text, found \(DatabaseValue(sqliteValue: v).storageClassAndValue)")
        }
        let n = Int(sqlite3_value_bytes(v))
        let text = UnsafeRawBufferPointer(start: sqlite3_value_text(v), count: n)
        let decoder: JSONTapeDecoder
        if let json {
            decoder = json
        } else if lifetime == .container {
            decoder = JSONTapeDecoder(tape: try JSONTape(), input: UnsafeRawBufferPointer(start: nil, count: 0), options: options)
        } else {
            decoder = try JSONTapeDecoder.pool.take()
        }
        json = decoder
        // Parsed where SQLite holds the text (valid until the statement steps: the value is
        // decoded before that, see endValue); a container that may outlive the row reads a copy.
        let bytes = lifetime == .container ? decoder.copyInput(text) : text
        do {
            try decoder.tape.parse(bytes)
        } catch let failure as JSONParseFailure {
            let text = String(decoding: bytes.prefix(60), as: UTF8.self)
            throw DatabaseError(code: SQLITE_MISMATCH, message:
                "a nested \(type) is read from JSON text, but the column's text is not JSON (\(failure.message) at byte \(failure.offset)): '\(text)\(n > 60 ? "…" : "")'")
        }
        decoder.begin(input: bytes, options: options)
        decoder.basePath = codingPath
        decoder.cachesContainers = lifetime != .container
        parsed = true
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
        ColumnValueContainer(statement: statement, column: column, json: self)
    }
}
