import CStreamQLite

extension Database {
    /// Properties of a custom SQL function, passed to SQLite as flags.
    public struct FunctionFlags: OptionSet, Sendable {
        public let rawValue: Int32
        public init(rawValue: Int32) { self.rawValue = rawValue }
        /// Same arguments, same result: usable in indexes and constant-folded.
        public static let deterministic = Database.FunctionFlags(rawValue: SQLITE_DETERMINISTIC)
        /// No side effects: usable in views, triggers and schema (SQLITE_INNOCUOUS).
        public static let innocuous = Database.FunctionFlags(rawValue: SQLITE_INNOCUOUS)
        /// Only callable from top-level SQL, never from views, triggers or schema (SQLITE_DIRECTONLY).
        public static let directOnly = Database.FunctionFlags(rawValue: SQLITE_DIRECTONLY)
        /// ``deterministic`` and ``innocuous``: a pure function.
        public static let pure: Database.FunctionFlags = [.deterministic, .innocuous]
    }

    /// The arguments of one call of a custom SQL function, read straight from `sqlite3_value`.
    ///
    /// ```swift
    /// try db.createFunction("double_it", argumentCount: 1, flags: .pure) { args in
    ///     try args[0] as Int * 2
    /// }
    /// ```
    public struct FunctionArguments {
        /// The number of arguments.
        public let count: Int
        @usableFromInline let argv: UnsafeMutablePointer<OpaquePointer?>?
        @usableFromInline let functionName: String

        /// The argument at `index` as `T`; throws `name: argument N: expected …` when it does not convert.
        @inlinable public subscript<T: DatabaseValueConvertible>(_ index: Int) -> T {
            get throws { try decode(T.self, at: index) }
        }

        /// The argument at `index` as `T`.
        @inlinable public func decode<T: DatabaseValueConvertible>(_ type: T.Type = T.self, at index: Int) throws -> T {
            precondition(index >= 0 && index < count, "\(functionName): argument index \(index) out of range")
            do { return try T._decode(sqliteValue: argv![index]!) } catch let e as DatabaseError {
                throw DatabaseError(code: e.code, message: "argument \(index + 1): \(e.message)")
            }
        }

        /// Whether the argument at `index` is NULL.
        public func isNull(_ index: Int) -> Bool { sqlite3_value_type(argv![index]) == SQLITE_NULL }

        /// The argument at `index` as a ``DatabaseValue``.
        public func value(at index: Int) -> DatabaseValue { DatabaseValue(sqliteValue: argv![index]!) }
    }
}

extension Database {
    /// A custom aggregate: one instance per group, fed each row, asked for the result at the end.
    ///
    /// ```swift
    /// struct Product: Database.Aggregate {
    ///     var value = 1
    ///     mutating func step(_ args: Database.FunctionArguments) throws { value *= try args[0] as Int }
    ///     func finalize() throws -> Int { value }
    /// }
    /// try db.createAggregate("product", argumentCount: 1, flags: .pure, Product.self)
    /// ```
    public protocol Aggregate {
        /// The type of the group's result: what ``finalize()`` returns, stored as the SQL value.
        associatedtype Result: DatabaseValueConvertible
        /// A new, empty group: one value per group of rows, made at the group's first row.
        init()
        /// Adds one row: `arguments` are the SQL arguments of that row. A thrown error ends the
        /// statement with an SQL error naming the function.
        mutating func step(_ arguments: Database.FunctionArguments) throws
        /// The result for the group, after its last row. A group with no rows (an aggregate
        /// over an empty table) gets `init()` then `finalize()`.
        func finalize() throws -> Result
    }
}

final class ScalarFunctionBox {
    let name: String
    let body: (Database.FunctionArguments, OpaquePointer) throws -> Void
    init(name: String, body: @escaping (Database.FunctionArguments, OpaquePointer) throws -> Void) { self.name = name; self.body = body }
}

final class AggregateBox {
    let name: String
    let make: () -> AnyAggregateState
    init(name: String, make: @escaping () -> AnyAggregateState) { self.name = name; self.make = make }
}

class AnyAggregateState {
    func step(_ args: Database.FunctionArguments) throws {}
    func finalize(_ context: OpaquePointer) throws {}
}

final class AggregateState<A: Database.Aggregate>: AnyAggregateState {
    var aggregate = A()
    override func step(_ args: Database.FunctionArguments) throws { try aggregate.step(args) }
    override func finalize(_ context: OpaquePointer) throws { try aggregate.finalize()._setResult(of: context) }
}

func reportFunctionError(_ context: OpaquePointer?, _ name: String, _ error: any Error) {
    let message: String
    if let e = error as? DatabaseError { message = "\(name): \(e.message)" } else { message = "\(name): \(error)" }
    sqlite3_result_error(context, message, -1)
}

extension Database {
    /// Registers a scalar SQL function written in Swift; `argumentCount` -1 accepts any number.
    ///
    /// Errors thrown by `body` become SQL errors prefixed with the function's name.
    public func createFunction<R: DatabaseValueConvertible>(
        _ name: String, argumentCount: Int32, flags: Database.FunctionFlags = [],
        _ body: @escaping (Database.FunctionArguments) throws -> R
    ) throws {
        try checkOpen()
        let box = ScalarFunctionBox(name: name) { args, context in try body(args)._setResult(of: context) }
        let rc = sqlite3_create_function_v2(
            handle, name, argumentCount, SQLITE_UTF8 | flags.rawValue, Unmanaged.passRetained(box).toOpaque(),
            { context, argc, argv in
                let box = Unmanaged<ScalarFunctionBox>.fromOpaque(sqlite3_user_data(context)!).takeUnretainedValue()
                do {
                    try box.body(Database.FunctionArguments(count: Int(argc), argv: argv, functionName: box.name), context!)
                } catch {
                    reportFunctionError(context, box.name, error)
                }
            }, nil, nil,
            { p in Unmanaged<ScalarFunctionBox>.fromOpaque(p!).release() })
        if rc != SQLITE_OK { throw DatabaseError.last(connection, code: rc, sql: nil) }
    }

    /// Registers an aggregate SQL function written in Swift (one `A()` per group).
    public func createAggregate<A: Database.Aggregate>(
        _ name: String, argumentCount: Int32, flags: Database.FunctionFlags = [], _ type: A.Type
    ) throws {
        try checkOpen()
        let box = AggregateBox(name: name) { AggregateState<A>() }
        let rc = sqlite3_create_function_v2(
            handle, name, argumentCount, SQLITE_UTF8 | flags.rawValue, Unmanaged.passRetained(box).toOpaque(), nil,
            { context, argc, argv in
                let box = Unmanaged<AggregateBox>.fromOpaque(sqlite3_user_data(context)!).takeUnretainedValue()
                let size = Int32(MemoryLayout<UnsafeMutableRawPointer?>.size)
                guard let slot = sqlite3_aggregate_context(context, size)?.assumingMemoryBound(to: UnsafeMutableRawPointer?.self) else {
                    sqlite3_result_error_nomem(context)
                    return
                }
                let s: AnyAggregateState
                if let existing = slot.pointee {
                    s = Unmanaged<AnyAggregateState>.fromOpaque(existing).takeUnretainedValue()
                } else {
                    s = box.make()
                    slot.pointee = Unmanaged.passRetained(s).toOpaque()
                }
                do { try s.step(Database.FunctionArguments(count: Int(argc), argv: argv, functionName: box.name)) } catch {
                    reportFunctionError(context, box.name, error)
                }
            },
            { context in
                let box = Unmanaged<AggregateBox>.fromOpaque(sqlite3_user_data(context)!).takeUnretainedValue()
                let slot = sqlite3_aggregate_context(context, 0)?.assumingMemoryBound(to: UnsafeMutableRawPointer?.self)
                let s: AnyAggregateState
                if let slot, let existing = slot.pointee {
                    s = Unmanaged<AnyAggregateState>.fromOpaque(existing).takeRetainedValue()
                    slot.pointee = nil
                } else {
                    s = box.make()  // no rows: the result of an empty group
                }
                do { try s.finalize(context!) } catch { reportFunctionError(context, box.name, error) }
            },
            { p in Unmanaged<AggregateBox>.fromOpaque(p!).release() })
        if rc != SQLITE_OK { throw DatabaseError.last(connection, code: rc, sql: nil) }
    }
}
