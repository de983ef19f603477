import Foundation

/// How the fields of one column of a ``CSVRowCursor`` input convert to the type a record
/// reads them as: resolved the first time a record reads the field as that type
/// (``CSVRecordRow/resolvePlan(_:at:)``), kept with the cursor's record, then followed for
/// every record (``CSVRecordRow/read(_:as:into:)``) — per field one type comparison and a
/// switch, no conformance look-up.
///
/// - The library's types with a rule of their own (``Rule``: the ``CSVText`` conversions,
///   those of ``CSVDecodableCursor``), and optionals of them: a NULL field is nil for an
///   optional and an error otherwise.
/// - A `RawRepresentable` type whose raw value is a ``DatabaseValueConvertible`` (string and
///   integer enums): the raw value's field by the raw type's plan, then `init(rawValue:)`
///   (a ``CSVFieldConversion``).
/// - Any other type (`UUID`, `Decimal`, `URL`, `Substring`, ``DatabaseValue``, the user's
///   types, and optionals of them) through ``DatabaseValueConvertible/fromDatabaseValue(_:)``
///   (``CSVField/decodeThroughDatabaseValue(_:named:)``).
@usableFromInline
struct CSVFieldPlan {
    /// The type the plan is for.
    @usableFromInline let type: ObjectIdentifier
    @usableFromInline let how: How

    @usableFromInline
    enum How {
        /// A ``Rule``; `optional`: the type is an `Optional` of the rule's type.
        case rule(Rule, optional: Bool)
        /// ``CSVField/decodeThroughDatabaseValue(_:named:)``; errors name `named` (for an
        /// optional, the wrapped type).
        case databaseValue(named: Any.Type)
        /// The conversion at this index of ``CSVRecordRow``'s conversions.
        case conversion(Int)
    }

    /// The rules of the library's types that read their field by ``CSVText``.
    @usableFromInline
    enum Rule {
        case int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64
        case bool, double, float, string, date, data, bytes

        /// The rule of `type`; nil for a type without one.
        init?(_ type: Any.Type) {
            switch ObjectIdentifier(type) {
            case ObjectIdentifier(Int.self): self = .int
            case ObjectIdentifier(Int8.self): self = .int8
            case ObjectIdentifier(Int16.self): self = .int16
            case ObjectIdentifier(Int32.self): self = .int32
            case ObjectIdentifier(Int64.self): self = .int64
            case ObjectIdentifier(UInt.self): self = .uint
            case ObjectIdentifier(UInt8.self): self = .uint8
            case ObjectIdentifier(UInt16.self): self = .uint16
            case ObjectIdentifier(UInt32.self): self = .uint32
            case ObjectIdentifier(UInt64.self): self = .uint64
            case ObjectIdentifier(Bool.self): self = .bool
            case ObjectIdentifier(Double.self): self = .double
            case ObjectIdentifier(Float.self): self = .float
            case ObjectIdentifier(String.self): self = .string
            case ObjectIdentifier(Date.self): self = .date
            case ObjectIdentifier(Data.self): self = .data
            case ObjectIdentifier([UInt8].self): self = .bytes
            default: return nil
            }
        }

        /// Converts the field (nil: NULL) into `out`, memory for the rule's type, or for an
        /// `Optional` of it when `optional`.
        @inline(__always)
        func read(_ field: UnsafeBufferPointer<UInt8>?, optional: Bool, into out: UnsafeMutableRawPointer) throws {
            switch self {
            case .int: try put(field, optional, out) { CSVText.integer($0, as: Int.self) }
            case .int8: try put(field, optional, out) { CSVText.integer($0, as: Int8.self) }
            case .int16: try put(field, optional, out) { CSVText.integer($0, as: Int16.self) }
            case .int32: try put(field, optional, out) { CSVText.integer($0, as: Int32.self) }
            case .int64: try put(field, optional, out) { CSVText.integer($0, as: Int64.self) }
            case .uint: try put(field, optional, out) { CSVText.integer($0, as: UInt.self) }
            case .uint8: try put(field, optional, out) { CSVText.integer($0, as: UInt8.self) }
            case .uint16: try put(field, optional, out) { CSVText.integer($0, as: UInt16.self) }
            case .uint32: try put(field, optional, out) { CSVText.integer($0, as: UInt32.self) }
            case .uint64: try put(field, optional, out) { CSVText.integer($0, as: UInt64.self) }
            case .bool: try put(field, optional, out, CSVText.bool)
            case .double: try put(field, optional, out, CSVText.double)
            case .float: try put(field, optional, out, CSVText.float)
            case .string: try put(field, optional, out) { CSVText.string($0) }
            case .date: try put(field, optional, out, CSVText.date)
            case .data: try put(field, optional, out, CSVText.data)
            case .bytes: try put(field, optional, out) { CSVText.data($0).map { [UInt8]($0) } }
            }
        }

        /// `convert`'s value of the field into `out` (a `V`, or a `V?` when `optional`).
        @inline(__always)
        private func put<V>(_ field: UnsafeBufferPointer<UInt8>?, _ optional: Bool, _ out: UnsafeMutableRawPointer,
                            _ convert: (UnsafeBufferPointer<UInt8>) -> V?) throws {
            guard let b = field else {
                guard optional else { throw CSVFieldError(bytes: nil, type: V.self) }
                out.assumingMemoryBound(to: V?.self).initialize(to: nil)
                return
            }
            guard let v = convert(b) else { throw CSVFieldError(bytes: b, type: V.self) }
            if optional {
                out.assumingMemoryBound(to: V?.self).initialize(to: v)
            } else {
                out.assumingMemoryBound(to: V.self).initialize(to: v)
            }
        }
    }
}

/// Converts a field (nil: NULL) into memory for the type it was made for; throws
/// ``CSVFieldError`` when the field does not convert.
typealias CSVFieldConversion = (UnsafeBufferPointer<UInt8>?, UnsafeMutableRawPointer) throws -> Void

extension CSVFieldPlan {
    /// How a `T` reads a field (``How``, with the conversion itself instead of its index).
    enum Way {
        case rule(Rule, optional: Bool)
        case databaseValue(named: Any.Type)
        case conversion(CSVFieldConversion)
    }

    /// The way of `T`: its rule, an optional's (by the wrapped type's way), a raw value's,
    /// else through `fromDatabaseValue`.
    static func way<T: DatabaseValueConvertible>(_ type: T.Type) -> Way {
        if let rule = Rule(T.self) { return .rule(rule, optional: false) }
        if let O = T.self as? any CSVOptionalField.Type { return O.wrappedWay() }
        if let R = T.self as? any RawRepresentable.Type, let c = rawValueConversion(R) { return .conversion(c) }
        return .databaseValue(named: T.self)
    }

    /// The way of `T` as one conversion.
    static func conversion<T: DatabaseValueConvertible>(_ type: T.Type) -> CSVFieldConversion {
        switch way(T.self) {
        case .rule(let rule, let optional):
            return { field, out in try rule.read(field, optional: optional, into: out) }
        case .databaseValue(let named):
            return { field, out in
                out.assumingMemoryBound(to: T.self)
                    .initialize(to: try CSVField(bytes: field).decodeThroughDatabaseValue(T.self, named: named))
            }
        case .conversion(let conversion):
            return conversion
        }
    }

    /// `R` from its raw value's field; nil when `R.RawValue` is not a ``DatabaseValueConvertible``.
    private static func rawValueConversion<R: RawRepresentable>(_ type: R.Type) -> CSVFieldConversion? {
        guard let Raw = R.RawValue.self as? any DatabaseValueConvertible.Type else { return nil }
        let raw = conversion(Raw)   // writes a Raw, which is R.RawValue
        return { field, out in
            let value = try withUnsafeTemporaryAllocation(of: R.RawValue.self, capacity: 1) { buffer in
                let p = buffer.baseAddress.unsafelyUnwrapped
                try raw(field, UnsafeMutableRawPointer(p))
                return R(rawValue: p.move())
            }
            guard let value else { throw CSVFieldError(bytes: field, type: R.self) }
            out.assumingMemoryBound(to: R.self).initialize(to: value)
        }
    }
}

/// `Optional`, for ``CSVFieldPlan/way(_:)``: the way of an optional from its wrapped type's.
protocol CSVOptionalField {
    static func wrappedWay() -> CSVFieldPlan.Way
}

extension Optional: CSVOptionalField where Wrapped: DatabaseValueConvertible {
    /// A NULL field is nil; anything else reads as `Wrapped`.
    static func wrappedWay() -> CSVFieldPlan.Way {
        switch CSVFieldPlan.way(Wrapped.self) {
        case .rule(let rule, optional: false):
            return .rule(rule, optional: true)
        case .databaseValue(let named):
            return .databaseValue(named: named)   // Optional.fromDatabaseValue: NULL is nil
        default:
            let wrapped = CSVFieldPlan.conversion(Wrapped.self)
            return .conversion { field, out in
                let o = out.assumingMemoryBound(to: Wrapped?.self)
                guard field != nil else { o.initialize(to: nil); return }
                try withUnsafeTemporaryAllocation(of: Wrapped.self, capacity: 1) { buffer in
                    let p = buffer.baseAddress.unsafelyUnwrapped
                    try wrapped(field, UnsafeMutableRawPointer(p))
                    o.initialize(to: p.move())
                }
            }
        }
    }
}
