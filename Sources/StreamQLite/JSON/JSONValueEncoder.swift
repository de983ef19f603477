import Foundation

/// Encodes `Encodable` values as JSON bytes, written straight into a buffer or a
/// ``ByteSink``: a drop-in for Foundation's `JSONEncoder`.
///
/// Values are written as `encode(to:)` produces them (no intermediate tree),
/// through the library's one string escaper and number formatter, the ones
/// ``JSONRowWriter`` uses. The output is byte for byte `JSONEncoder`'s for the
/// same options (`JSONEncoder` orders unsorted keys at random: compare with
/// ``OutputFormatting/sortedKeys``), except for the default date strategy,
/// which is the library's date text.
///
/// ```swift
/// var encoder = JSONValueEncoder()
/// encoder.outputFormatting = [.sortedKeys]
/// encoder.keyEncodingStrategy = .convertToSnakeCase
/// let body: [UInt8] = try encoder.encode(tasks)
///
/// var file = try FileDescriptorSink(path: "tasks.json")
/// try encoder.encode(tasks, into: &file)
/// ```
public struct JSONValueEncoder: Sendable {
    /// Layout options, as `JSONEncoder.OutputFormatting`.
    public struct OutputFormatting: OptionSet, Sendable {
        public let rawValue: UInt
        /// Creates the options from their bits.
        public init(rawValue: UInt) { self.rawValue = rawValue }
        /// Two spaces per level, one member per line, `"key" : value`.
        public static let prettyPrinted = OutputFormatting(rawValue: 1)
        /// Object keys in the order of their UTF-8 bytes.
        public static let sortedKeys = OutputFormatting(rawValue: 2)
        /// `/` as it is (by default it is written `\/`, as `JSONEncoder` does).
        public static let withoutEscapingSlashes = OutputFormatting(rawValue: 4)
    }

    /// How coding keys become JSON keys.
    public enum KeyEncodingStrategy: Sendable {
        /// Keys as they are.
        case useDefaultKeys
        /// `camelCaseKeys` become `camel_case_keys` (`myURLValue` → `my_url_value`), as
        /// `JSONEncoder.KeyEncodingStrategy.convertToSnakeCase`. Keys of `[String: T]` dictionaries are kept.
        case convertToSnakeCase
    }

    /// How `Date` values are written.
    public enum DateEncodingStrategy: Sendable {
        /// The library's date text, `yyyy-MM-dd HH:mm:ss.SSS` in UTC (the default):
        /// what `Database` binds and stores for dates everywhere.
        case databaseText
        /// `Date`'s own `Encodable` form (seconds since 2001-01-01), `JSONEncoder`'s default.
        case deferredToDate
        /// Seconds since 1970-01-01T00:00:00Z.
        case secondsSince1970
        /// Milliseconds since 1970-01-01T00:00:00Z.
        case millisecondsSince1970
        /// ISO 8601 text (`2024-05-01T12:00:00Z`), as `JSONEncoder`'s `.iso8601`.
        case iso8601
        /// Your function writes the date to the encoder (nothing written: `{}`).
        case custom(@Sendable (Date, any Encoder) throws -> Void)
    }

    /// How `Data` values are written.
    public enum DataEncodingStrategy: Sendable {
        /// A Base64 string (the default).
        case base64
        /// `Data`'s own `Encodable` form (an array of bytes).
        case deferredToData
        /// Your function writes the data to the encoder (nothing written: `{}`).
        case custom(@Sendable (Data, any Encoder) throws -> Void)
    }

    /// What to do with NaN and infinities, which JSON cannot represent.
    public enum NonConformingFloatEncodingStrategy: Sendable {
        /// Throw `EncodingError.invalidValue` (the default).
        case `throw`
        /// Write these strings instead.
        case convertToString(positiveInfinity: String, negativeInfinity: String, nan: String)
    }

    /// Layout; default compact, keys in encoding order, `/` escaped.
    public var outputFormatting: OutputFormatting = []
    /// Key strategy; default ``KeyEncodingStrategy/useDefaultKeys``.
    public var keyEncodingStrategy: KeyEncodingStrategy = .useDefaultKeys
    /// Date strategy; default ``DateEncodingStrategy/databaseText``.
    public var dateEncodingStrategy: DateEncodingStrategy = .databaseText
    /// Data strategy; default ``DataEncodingStrategy/base64``.
    public var dataEncodingStrategy: DataEncodingStrategy = .base64
    /// Non-finite number strategy; default ``NonConformingFloatEncodingStrategy/throw``.
    public var nonConformingFloatEncodingStrategy: NonConformingFloatEncodingStrategy = .throw
    /// Values handed to `encode(to:)` as `encoder.userInfo`.
    public var userInfo: [CodingUserInfoKey: any Sendable] = [:]

    /// Creates an encoder with the default options.
    public init() {}

    /// The JSON text of `value`.
    ///
    /// ```swift
    /// let bytes = try JSONValueEncoder().encode(["id": 1])   // {"id":1}
    /// ```
    public func encode<T: Encodable>(_ value: T) throws -> [UInt8] {
        let encoder = JSONStreamEncoder(options: Options(self))
        try encoder.encodeTop(value)
        return Array(encoder.out.bytes)
    }

    /// Writes the JSON text of `value` to `sink` (then flushes it).
    ///
    /// ```swift
    /// var out = FileDescriptorSink(fileHandle: .standardOutput)
    /// try JSONValueEncoder().encode(report, into: &out)
    /// ```
    public func encode<T: Encodable>(_ value: T, into sink: inout some ByteSink) throws {
        let encoder = JSONStreamEncoder(options: Options(self))
        try encoder.encodeTop(value)
        try sink.write(UnsafeRawBufferPointer(encoder.out.bytes))
        try sink.flush()
    }

    /// The options as the encoders read them.
    struct Options {
        var pretty: Bool
        var sortedKeys: Bool
        var escapeSlashes: Bool
        var snakeCase: Bool
        var date: DateEncodingStrategy
        var data: DataEncodingStrategy
        var nonConforming: NonConformingFloatEncodingStrategy
        var userInfo: [CodingUserInfoKey: Any]

        init(_ e: JSONValueEncoder) {
            pretty = e.outputFormatting.contains(.prettyPrinted)
            sortedKeys = e.outputFormatting.contains(.sortedKeys)
            escapeSlashes = !e.outputFormatting.contains(.withoutEscapingSlashes)
            if case .convertToSnakeCase = e.keyEncodingStrategy { snakeCase = true } else { snakeCase = false }
            date = e.dateEncodingStrategy
            data = e.dataEncodingStrategy
            nonConforming = e.nonConformingFloatEncodingStrategy
            var info: [CodingUserInfoKey: Any] = [:]
            for (k, v) in e.userInfo { info[k] = v }
            userInfo = info
        }

        func output() -> JSONOutput { JSONOutput(pretty: pretty, sortedKeys: sortedKeys, escapeSlashes: escapeSlashes) }

        /// A Double as a scalar: itself, or the non-conforming strategy's string, or an error.
        @inline(__always)
        func number(_ v: Double, path: @autoclosure () -> [any CodingKey]) throws -> JSONScalar {
            if _fastPath(v.isFinite) { return .double(v) }
            return try nonFinite(v, "Double.\(v)", path())
        }

        func number(_ v: Float, path: @autoclosure () -> [any CodingKey]) throws -> JSONScalar {
            if _fastPath(v.isFinite) { return .float(v) }
            return try nonFinite(v, "Float.\(v)", path())
        }

        func nonFinite<F: FloatingPoint>(_ v: F, _ description: String, _ path: [any CodingKey]) throws -> JSONScalar {
            if case .convertToString(let pos, let neg, let nan) = nonConforming {
                return .string(v.isNaN ? nan : v > 0 ? pos : neg)
            }
            throw EncodingError.invalidValue(v, .init(codingPath: path, debugDescription: "Unable to encode \(description) directly in JSON."))
        }

        /// How the values `JSONEncoder` treats specially are written: a scalar, or through
        /// the encoder (a deferred or custom strategy). nil for every other value.
        func special<T: Encodable>(_ value: T, path: @autoclosure () -> [any CodingKey]) throws -> JSONSpecial? {
            if T.self == Date.self {
                let date = value as! Date
                switch self.date {
                case .databaseText: return .scalar(.string(sqliteDateString(date)))
                case .deferredToDate: return .encode { try date.encode(to: $0) }
                case .secondsSince1970: return .scalar(try number(date.timeIntervalSince1970, path: path()))
                case .millisecondsSince1970: return .scalar(try number(1000.0 * date.timeIntervalSince1970, path: path()))
                case .iso8601: return .scalar(.string(date.formatted(.iso8601)))
                case .custom(let body): return .encode { try body(date, $0) }
                }
            }
            if T.self == Data.self {
                let data = value as! Data
                switch self.data {
                case .base64: return .scalar(.string(data.base64EncodedString()))
                case .deferredToData: return .encode { try data.encode(to: $0) }
                case .custom(let body): return .encode { try body(data, $0) }
                }
            }
            if T.self == URL.self { return .scalar(.string((value as! URL).absoluteString)) }
            if T.self == Decimal.self { return .scalar(.number((value as! Decimal).description)) }
            return nil
        }
    }
}

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

/// A nil `Optional` (bound as SQL NULL, not as the JSON text `null`).
protocol JSONOptionalValue { var isNone: Bool { get } }
extension Optional: JSONOptionalValue { var isNone: Bool { self == nil } }

/// See ``JSONValueEncoder/Options/special(_:path:)``.
enum JSONSpecial {
    case scalar(JSONScalar)
    case encode((any Encoder) throws -> Void)
}

/// Marks `[String: V]`: with a key strategy its keys are written as they are (as `JSONEncoder` does).
protocol JSONStringDictionaryEncodable {}
extension Dictionary: JSONStringDictionaryEncodable where Key == String {}

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

/// Thrown inside the streaming encoder when `encode(to:)` uses containers out of
/// order (a container written after a later one, `superEncoder`): the value is then
/// encoded again through ``JSONTreeEncoder``.
struct JSONEncoderRestart: Error {}

/// The byte of a one-byte trivial key (synthesized `CodingKeys`), else -1.
@inline(__always)
func jsonKeyByte<K: CodingKey>(_ key: K) -> Int16 {
    guard _isPOD(K.self) else { return -1 }
    switch MemoryLayout<K>.size {
    case 0: return 0
    case 1: return Int16(unsafeBitCast(key, to: UInt8.self))
    default: return -1
    }
}

// MARK: - The streaming encoder

/// The `Encoder` writing as `encode(to:)` runs. The "slot" is the value being
/// encoded: its first container request opens its object or array; when its
/// `encode(to:)` returns, whatever it opened is closed (and an empty value is `{}`).
final class JSONStreamEncoder: Encoder {
    // Unchecked exclusivity: touched on every value; only the encoding thread uses an encoder.
    @exclusivity(unchecked) var out: JSONOutput
    let options: JSONValueEncoder.Options
    var userInfo: [CodingUserInfoKey: Any] { options.userInfo }
    /// Set when a container was used out of order; the value is encoded again as a tree.
    @exclusivity(unchecked) var restart = false

    enum Slot: Equatable {
        case empty
        case container(id: UInt64, object: Bool)
        case single
    }
    /// The current value: `frames.count` when it began, and what it wrote.
    @exclusivity(unchecked) var slotDepth = 0
    @exclusivity(unchecked) var slot = Slot.empty
    /// The current value is a `[String: V]` under a key strategy.
    @exclusivity(unchecked) var slotRawKeys = false
    /// Converted keys (snake_case).
    @exclusivity(unchecked) var snakeCache: [String: String] = [:]
    /// Written keys of one-byte key types (synthesized `CodingKeys`), by type and byte:
    /// the quoted, escaped key and its separator, ready to copy.
    @exclusivity(unchecked) var keyTables: [(type: ObjectIdentifier, table: UnsafeMutablePointer<JSONWrittenKey>)] = []
    @exclusivity(unchecked) var lastKeyType: ObjectIdentifier?
    @exclusivity(unchecked) var lastKeyTable: UnsafeMutablePointer<JSONWrittenKey>?
    /// Per depth, kept keyed containers (see ``keyedContainer(_:id:rawKeys:)``).
    @exclusivity(unchecked) var containerSlots: [[JSONEncoderContainerSlot]] = []
    /// Id cells of containers that were not kept (freed with the encoder).
    @exclusivity(unchecked) var retiredCells: [UnsafeMutablePointer<UInt64>] = []

    deinit {
        for (_, table) in keyTables {
            for i in 0..<256 where table[i].count >= 0 { table[i].bytes.deallocate() }
            table.deinitialize(count: 256)
            table.deallocate()
        }
        for depth in containerSlots { for slot in depth { slot.release() } }
        for c in retiredCells { c.deallocate() }
        quickSlots.deinitialize(count: quickSlotCount)
        quickSlots.deallocate()
    }

    init(options: JSONValueEncoder.Options) {
        self.options = options
        out = options.output()
    }

    var codingPath: [any CodingKey] {
        var path: [any CodingKey] = []
        for i in 0..<out.frames.count where out.frames[i].count > 0 {
            let f = out.frames[i]
            if f.isObject {
                let end = i + 1 < out.frames.count ? out.frames[i + 1].memberBase : out.members.count
                path.append(JSONStringKey(out.members[end - 1].key))
            } else {
                path.append(JSONIndexKey(index: f.count - 1))
            }
        }
        return path
    }

    /// Ready for another value (the buffer's memory is kept).
    func reset() {
        out.reset()
        restart = false
        slotDepth = 0
        slot = .empty
        slotRawKeys = false
    }

    func encodeTop<T: Encodable>(_ value: T) throws {
        do {
            try encodeValue(value, top: true)
            if restart { throw JSONEncoderRestart() }
        } catch is JSONEncoderRestart {
            out.reset()
            let tree = JSONTreeEncoder(options: options)
            let node = try tree.encodeTop(value)
            node.write(to: &out)
        }
    }

    /// Encodes one value at the current position (after its key or separator).
    @inline(__always)
    func encodeValue<T: Encodable>(_ value: T, top: Bool = false) throws {
        if T.self == String.self { out.string(unsafeBitCast(value, to: String.self)); return }
        if T.self == Int.self { out.integer(Int64(unsafeBitCast(value, to: Int.self))); return }
        if T.self == Double.self { out.scalar(try options.number(unsafeBitCast(value, to: Double.self), path: codingPath)); return }
        if T.self == Bool.self { out.scalar(.bool(unsafeBitCast(value, to: Bool.self))); return }
        try encodeOther(value, top: top)
    }

    func encodeOther<T: Encodable>(_ value: T, top: Bool) throws {
        if let special = try options.special(value, path: codingPath) {
            switch special {
            case .scalar(let s): out.scalar(s)
            case .encode(let body): try inSlot(top: top, rawKeys: false) { try body(self) }
            }
            return
        }
        let rawKeys = options.snakeCase && value is JSONStringDictionaryEncodable
        try inSlot(top: top, rawKeys: rawKeys) { try value.encode(to: self) }
    }

    /// Runs `body` (an `encode(to:)`) as a new slot at the current position.
    @inline(__always)
    func inSlot(top: Bool, rawKeys: Bool, _ body: () throws -> Void) throws {
        let savedDepth = slotDepth, savedSlot = slot, savedRaw = slotRawKeys
        slotDepth = out.frames.count
        slot = .empty
        slotRawKeys = rawKeys
        defer { slotDepth = savedDepth; slot = savedSlot; slotRawKeys = savedRaw }
        try body()
        if restart { throw JSONEncoderRestart() }
        switch slot {
        case .empty:
            if top {
                throw EncodingError.invalidValue(top, .init(codingPath: [], debugDescription: "Top-level value did not encode any values."))
            }
            _ = out.open(object: true)
            out.close()
        case .container:
            out.close(downTo: slotDepth)
        case .single:
            break
        }
    }

    /// Activates object `id` and writes `key`; false when the write must be dropped (restart).
    @inline(__always)
    func beginMember<K: CodingKey>(_ key: K, _ id: UInt64) -> Bool {
        guard activate(id) else { return false }
        writeKey(key)
        return true
    }

    /// A keyed container writing into object `id`.
    ///
    /// Making one costs a `KeyedEncodingContainer` box and a generic metadata lookup, so
    /// the container of each key type at each depth is kept (as a closure that captured
    /// it) and pointed at the next object, but only when no copy of it is alive.
    @inline(__always)
    func keyedContainer<Key: CodingKey>(_ type: Key.Type, id: UInt64) -> KeyedEncodingContainer<Key> {
        let depth = out.frames.count
        let keyType = ObjectIdentifier(Key.self)
        if _fastPath(depth < quickSlotCount), let q = quickSlots[depth], q.keyType == keyType,
           q.box._withUnsafeGuaranteedRef({ _getRetainCount($0) }) == 1 {
            // The last container of this depth (no array traffic).
            q.cell.pointee = id
            return unsafeDowncast(q.thunk.takeUnretainedValue(), to: JSONEncoderContainerThunk<Key>.self).make()
        }
        if depth < containerSlots.count {
            for slot in containerSlots[depth] where slot.keyType == keyType
                && slot.box._withUnsafeGuaranteedRef({ _getRetainCount($0) }) == 1 {
                slot.cell.pointee = id
                remember(slot, depth: depth)
                return unsafeDowncast(slot.thunk, to: JSONEncoderContainerThunk<Key>.self).make()
            }
        }
        let cell = UnsafeMutablePointer<UInt64>.allocate(capacity: 1)
        cell.initialize(to: id)
        let container = KeyedEncodingContainer(JSONStreamKeyedContainer<Key>(unmanaged: Unmanaged.passUnretained(self), cell: cell))
        while containerSlots.count <= depth { containerSlots.append([]) }
        if depth < quickSlotCount { quickSlots[depth] = nil }
        let slot = JSONEncoderContainerSlot(keyType: keyType, thunk: JSONEncoderContainerThunk<Key>(RowDecoder.thunk(container)),
                                            box: Unmanaged.passUnretained(unsafeBitCast(container, to: AnyObject.self)), cell: cell)
        if let k = containerSlots[depth].firstIndex(where: { $0.keyType == keyType }) {
            // The kept one has a copy alive: it keeps its cell.
            retiredCells.append(containerSlots[depth][k].cell)
            containerSlots[depth][k] = slot
        } else if containerSlots[depth].count < 4 {
            containerSlots[depth].append(slot)
        } else {
            let old = containerSlots[depth].removeFirst()
            if old.box._withUnsafeGuaranteedRef({ _getRetainCount($0) }) == 1 { old.release() } else { retiredCells.append(old.cell) }
            containerSlots[depth].append(slot)
        }
        remember(slot, depth: depth)
        return container
    }

    /// The last container used at each depth, in plain memory (a copy of its slot, unretained:
    /// `containerSlots` keeps the thunk).
    struct QuickSlot {
        var keyType: ObjectIdentifier
        var thunk: Unmanaged<AnyObject>
        var box: Unmanaged<AnyObject>
        var cell: UnsafeMutablePointer<UInt64>
    }
    @exclusivity(unchecked) var quickSlots = UnsafeMutablePointer<QuickSlot?>.allocate(capacity: 0)
    @exclusivity(unchecked) var quickSlotCount = 0

    func remember(_ slot: JSONEncoderContainerSlot, depth: Int) {
        if depth >= quickSlotCount {
            let n = max(depth + 1, quickSlotCount * 2, 8)
            let grown = UnsafeMutablePointer<QuickSlot?>.allocate(capacity: n)
            grown.moveInitialize(from: quickSlots, count: quickSlotCount)
            (grown + quickSlotCount).initialize(repeating: nil, count: n - quickSlotCount)
            quickSlots.deallocate()
            quickSlots = grown
            quickSlotCount = n
        }
        quickSlots[depth] = QuickSlot(keyType: slot.keyType, thunk: Unmanaged.passUnretained(slot.thunk), box: slot.box, cell: slot.cell)
    }

    /// Makes frame `id` the innermost open container (closing those opened after it); false when it is closed.
    @inline(__always)
    func activate(_ id: UInt64) -> Bool {
        if _fastPath(out.frames.last?.id == id) { return true }
        guard let d = out.depth(of: id) else { restart = true; return false }
        out.close(downTo: d + 1)
        return true
    }

    /// The JSON key of `key` in the innermost object.
    @inline(__always)
    func writeKey<K: CodingKey>(_ key: K) {
        if _isPOD(K.self) && MemoryLayout<K>.size <= 1 {
            let byte = MemoryLayout<K>.size == 0 ? 0 : Int(unsafeBitCast(key, to: UInt8.self))
            let table = keyTable(ObjectIdentifier(K.self))
            if _slowPath(table[byte].count < 0) { table[byte] = writtenKey(key.stringValue) }
            out.key(written: table[byte], byte: Int16(byte), type: ObjectIdentifier(K.self))
            return
        }
        writeKeySlow(key)
    }

    /// The table of a one-byte key type (the last few types are kept).
    @inline(__always)
    func keyTable(_ type: ObjectIdentifier) -> UnsafeMutablePointer<JSONWrittenKey> {
        if _fastPath(lastKeyType == type), let t = lastKeyTable { return t }
        return keyTableSlow(type)
    }

    func keyTableSlow(_ type: ObjectIdentifier) -> UnsafeMutablePointer<JSONWrittenKey> {
        lastKeyType = type
        for entry in keyTables where entry.type == type { lastKeyTable = entry.table; return entry.table }
        let table = UnsafeMutablePointer<JSONWrittenKey>.allocate(capacity: 256)
        table.initialize(repeating: JSONWrittenKey(), count: 256)
        keyTables.append((type, table))
        lastKeyTable = table
        return table
    }

    /// A key as written: converted (snake_case), quoted, escaped, followed by `:`.
    func writtenKey(_ stringValue: String) -> JSONWrittenKey {
        var name = stringValue
        if options.snakeCase { name = convertToSnakeCase(name) }
        var bytes: [UInt8] = []
        appendJSONQuoted(name, to: &bytes, escapeSlash: options.escapeSlashes, escapeLineSeparators: false)
        bytes.append(contentsOf: options.pretty ? Array(" : ".utf8) : [UInt8(ascii: ":")])
        return JSONWrittenKey(name: name, bytes: bytes)
    }

    func writeKeySlow<K: CodingKey>(_ key: K) {
        var name = key.stringValue
        if options.snakeCase && !out.frames[out.frames.count - 1].rawKeys {
            if let c = snakeCache[name] { name = c } else {
                let c = convertToSnakeCase(name)
                snakeCache[name] = c
                name = c
            }
        }
        out.key(name, byte: jsonKeyByte(key), type: ObjectIdentifier(K.self))
    }

    // MARK: Encoder

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        switch slot {
        case .empty:
            let id = out.open(object: true, rawKeys: slotRawKeys)
            slot = .container(id: id, object: true)
            return keyedContainer(Key.self, id: id)
        case .container(let id, true) where out.depth(of: id) != nil:
            return keyedContainer(Key.self, id: id)
        default:
            restart = true
            return keyedContainer(Key.self, id: 0)
        }
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        switch slot {
        case .empty:
            let id = out.open(object: false)
            slot = .container(id: id, object: false)
            return JSONStreamUnkeyedContainer(encoder: self, id: id)
        case .container(let id, false) where out.depth(of: id) != nil:
            return JSONStreamUnkeyedContainer(encoder: self, id: id)
        default:
            restart = true
            return JSONStreamUnkeyedContainer(encoder: self, id: 0)
        }
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        JSONStreamSingleValueContainer(encoder: self)
    }

    /// Before a single value: the slot takes exactly one.
    @inline(__always)
    func beginSingle() -> Bool {
        guard slot == .empty else { restart = true; return false }
        slot = .single
        return true
    }
}

/// A keyed container of ``JSONStreamEncoder``: plain data (the encoder unretained, the
/// object's frame id in a cell the encoder owns), so it is copied without reference
/// counting and reused for the next object (see ``JSONStreamEncoder/keyedContainer(_:id:)``).
/// Like the encoder, valid while the `encode` call that handed it out runs.
struct JSONStreamKeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let unmanaged: Unmanaged<JSONStreamEncoder>
    let cell: UnsafeMutablePointer<UInt64>

    @inline(__always) func with<R>(_ body: (JSONStreamEncoder) throws -> R) rethrows -> R {
        try unmanaged._withUnsafeGuaranteedRef(body)
    }
    var encoder: JSONStreamEncoder { unmanaged.takeUnretainedValue() }

    var codingPath: [any CodingKey] {
        let e = encoder
        guard let d = e.out.depth(of: cell.pointee) else { return e.codingPath }
        return Array(e.codingPath.prefix(d))
    }

    mutating func encodeNil(forKey key: Key) throws { let id = cell.pointee; with { e in if e.beginMember(key, id) { e.out.append("null") } } }
    mutating func encode(_ value: Bool, forKey key: Key) throws { let id = cell.pointee; with { e in if e.beginMember(key, id) { e.out.scalar(.bool(value)) } } }
    mutating func encode(_ value: String, forKey key: Key) throws { let id = cell.pointee; with { e in if e.beginMember(key, id) { e.out.string(value) } } }
    mutating func encode(_ value: Double, forKey key: Key) throws {
        let id = cell.pointee
        try with { e in if e.beginMember(key, id) { e.out.scalar(try e.options.number(value, path: e.codingPath)) } }
    }
    mutating func encode(_ value: Float, forKey key: Key) throws {
        let id = cell.pointee
        try with { e in if e.beginMember(key, id) { e.out.scalar(try e.options.number(value, path: e.codingPath)) } }
    }
    mutating func encode(_ value: Int, forKey key: Key) throws { let id = cell.pointee; with { e in if e.beginMember(key, id) { e.out.integer(Int64(value)) } } }
    mutating func encode(_ value: Int8, forKey key: Key) throws { let id = cell.pointee; with { e in if e.beginMember(key, id) { e.out.integer(Int64(value)) } } }
    mutating func encode(_ value: Int16, forKey key: Key) throws { let id = cell.pointee; with { e in if e.beginMember(key, id) { e.out.integer(Int64(value)) } } }
    mutating func encode(_ value: Int32, forKey key: Key) throws { let id = cell.pointee; with { e in if e.beginMember(key, id) { e.out.integer(Int64(value)) } } }
    mutating func encode(_ value: Int64, forKey key: Key) throws { let id = cell.pointee; with { e in if e.beginMember(key, id) { e.out.integer(value) } } }
    mutating func encode(_ value: UInt, forKey key: Key) throws { let id = cell.pointee; with { e in if e.beginMember(key, id) { e.out.unsigned(UInt64(value)) } } }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { let id = cell.pointee; with { e in if e.beginMember(key, id) { e.out.unsigned(UInt64(value)) } } }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { let id = cell.pointee; with { e in if e.beginMember(key, id) { e.out.unsigned(UInt64(value)) } } }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { let id = cell.pointee; with { e in if e.beginMember(key, id) { e.out.unsigned(UInt64(value)) } } }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { let id = cell.pointee; with { e in if e.beginMember(key, id) { e.out.unsigned(value) } } }
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        let id = cell.pointee
        try with { e in if e.beginMember(key, id) { try e.encodeValue(value) } }
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        let id = cell.pointee
        return with { e in
            guard e.beginMember(key, id) else { return e.keyedContainer(NestedKey.self, id: 0) }
            return e.keyedContainer(NestedKey.self, id: e.out.open(object: true))
        }
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let id = cell.pointee
        return with { e in
            guard e.beginMember(key, id) else { return JSONStreamUnkeyedContainer(encoder: e, id: 0) }
            return JSONStreamUnkeyedContainer(encoder: e, id: e.out.open(object: false))
        }
    }

    // A super encoder writes whenever its user wants: the tree encoder handles it.
    mutating func superEncoder() -> any Encoder { let e = encoder; e.restart = true; return e }
    mutating func superEncoder(forKey key: Key) -> any Encoder { let e = encoder; e.restart = true; return e }
}

/// A kept keyed container of ``JSONStreamEncoder``.
struct JSONEncoderContainerSlot {
    var keyType: ObjectIdentifier
    /// The thunk handing the container out (a `JSONEncoderContainerThunk<Key>`).
    var thunk: AnyObject
    /// The container's box, unretained: a retain count of 1 (the thunk's) means no copy is alive.
    var box: Unmanaged<AnyObject>
    var cell: UnsafeMutablePointer<UInt64>
    func release() { cell.deallocate() }
}

final class JSONEncoderContainerThunk<Key: CodingKey> {
    let make: () -> KeyedEncodingContainer<Key>
    init(_ make: @escaping () -> KeyedEncodingContainer<Key>) { self.make = make }
}

struct JSONStreamUnkeyedContainer: UnkeyedEncodingContainer {
    let encoder: JSONStreamEncoder
    let id: UInt64

    var codingPath: [any CodingKey] {
        guard let d = encoder.out.depth(of: id) else { return encoder.codingPath }
        return Array(encoder.codingPath.prefix(d))
    }

    var count: Int {
        guard let d = encoder.out.depth(of: id) else { return 0 }
        return encoder.out.frames[d].count
    }

    @inline(__always) func begin() -> Bool {
        guard encoder.activate(id) else { return false }
        encoder.out.beforeElement()
        return true
    }

    mutating func encodeNil() throws { if begin() { encoder.out.append("null") } }
    mutating func encode(_ value: Bool) throws { if begin() { encoder.out.scalar(.bool(value)) } }
    mutating func encode(_ value: String) throws { if begin() { encoder.out.string(value) } }
    mutating func encode(_ value: Double) throws { if begin() { encoder.out.scalar(try encoder.options.number(value, path: encoder.codingPath)) } }
    mutating func encode(_ value: Float) throws { if begin() { encoder.out.scalar(try encoder.options.number(value, path: encoder.codingPath)) } }
    mutating func encode(_ value: Int) throws { if begin() { encoder.out.integer(Int64(value)) } }
    mutating func encode(_ value: Int8) throws { if begin() { encoder.out.integer(Int64(value)) } }
    mutating func encode(_ value: Int16) throws { if begin() { encoder.out.integer(Int64(value)) } }
    mutating func encode(_ value: Int32) throws { if begin() { encoder.out.integer(Int64(value)) } }
    mutating func encode(_ value: Int64) throws { if begin() { encoder.out.integer(value) } }
    mutating func encode(_ value: UInt) throws { if begin() { encoder.out.unsigned(UInt64(value)) } }
    mutating func encode(_ value: UInt8) throws { if begin() { encoder.out.unsigned(UInt64(value)) } }
    mutating func encode(_ value: UInt16) throws { if begin() { encoder.out.unsigned(UInt64(value)) } }
    mutating func encode(_ value: UInt32) throws { if begin() { encoder.out.unsigned(UInt64(value)) } }
    mutating func encode(_ value: UInt64) throws { if begin() { encoder.out.unsigned(value) } }
    mutating func encode<T: Encodable>(_ value: T) throws { if begin() { try encoder.encodeValue(value) } }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        guard begin() else { return encoder.keyedContainer(NestedKey.self, id: 0) }
        return encoder.keyedContainer(NestedKey.self, id: encoder.out.open(object: true))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        guard begin() else { return JSONStreamUnkeyedContainer(encoder: encoder, id: 0) }
        return JSONStreamUnkeyedContainer(encoder: encoder, id: encoder.out.open(object: false))
    }

    mutating func superEncoder() -> any Encoder { encoder.restart = true; return encoder }
}

struct JSONStreamSingleValueContainer: SingleValueEncodingContainer {
    let encoder: JSONStreamEncoder
    var codingPath: [any CodingKey] { encoder.codingPath }

    mutating func encodeNil() throws { if encoder.beginSingle() { encoder.out.append("null") } }
    mutating func encode(_ value: Bool) throws { if encoder.beginSingle() { encoder.out.scalar(.bool(value)) } }
    mutating func encode(_ value: String) throws { if encoder.beginSingle() { encoder.out.string(value) } }
    mutating func encode(_ value: Double) throws {
        if encoder.beginSingle() { encoder.out.scalar(try encoder.options.number(value, path: encoder.codingPath)) }
    }
    mutating func encode(_ value: Float) throws {
        if encoder.beginSingle() { encoder.out.scalar(try encoder.options.number(value, path: encoder.codingPath)) }
    }
    mutating func encode(_ value: Int) throws { if encoder.beginSingle() { encoder.out.integer(Int64(value)) } }
    mutating func encode(_ value: Int8) throws { if encoder.beginSingle() { encoder.out.integer(Int64(value)) } }
    mutating func encode(_ value: Int16) throws { if encoder.beginSingle() { encoder.out.integer(Int64(value)) } }
    mutating func encode(_ value: Int32) throws { if encoder.beginSingle() { encoder.out.integer(Int64(value)) } }
    mutating func encode(_ value: Int64) throws { if encoder.beginSingle() { encoder.out.integer(value) } }
    mutating func encode(_ value: UInt) throws { if encoder.beginSingle() { encoder.out.unsigned(UInt64(value)) } }
    mutating func encode(_ value: UInt8) throws { if encoder.beginSingle() { encoder.out.unsigned(UInt64(value)) } }
    mutating func encode(_ value: UInt16) throws { if encoder.beginSingle() { encoder.out.unsigned(UInt64(value)) } }
    mutating func encode(_ value: UInt32) throws { if encoder.beginSingle() { encoder.out.unsigned(UInt64(value)) } }
    mutating func encode(_ value: UInt64) throws { if encoder.beginSingle() { encoder.out.unsigned(value) } }
    mutating func encode<T: Encodable>(_ value: T) throws { if encoder.beginSingle() { try encoder.encodeValue(value) } }
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
