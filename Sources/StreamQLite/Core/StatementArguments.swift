import CStreamQLite

/// Positional and/or named arguments for a statement, when a variadic list does not fit.
///
/// ```swift
/// try db.execute("INSERT INTO t(a, b) VALUES (?, ?)", arguments: [1, nil])
/// try db.execute("INSERT INTO t(a, b) VALUES (:a, @b)", arguments: ["a": 1, "b": "x"])
/// ```
/// Named keys may be written with or without their prefix (`:a`, `@a`, `$a` or `a`).
public struct StatementArguments: ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral {
    /// Values for `?`/`?NNN` parameters, in order.
    public var positional: [(any DatabaseValueConvertible)?]
    /// Values for `:name`, `@name` and `$name` parameters.
    public var named: [String: (any DatabaseValueConvertible)?]

    /// Arguments from positional values and named values.
    public init(_ positional: [(any DatabaseValueConvertible)?] = [], named: [String: (any DatabaseValueConvertible)?] = [:]) {
        self.positional = positional
        self.named = named
    }
    public init(arrayLiteral elements: (any DatabaseValueConvertible)?...) { self.init(elements) }
    public init(dictionaryLiteral elements: (String, (any DatabaseValueConvertible)?)...) {
        self.init([], named: Dictionary(elements, uniquingKeysWith: { $1 }))
    }

    /// `[1, 'x', NULL]`-style description used in errors (only when arguments are public).
    var sqlDescription: String {
        var parts = positional.map { $0?.databaseValue.description ?? "NULL" }
        parts += named.keys.sorted().map { "\($0): \(named[$0]!?.databaseValue.description ?? "NULL")" }
        return "[" + parts.joined(separator: ", ") + "]"
    }

    /// Binds every argument; the counts must match the statement's parameters.
    func bind(to statement: Statement) throws {
        let stmt = statement.handle
        let count = Int(sqlite3_bind_parameter_count(stmt))
        var positionalSlots = 0
        var boundNamed = 0
        for i in 1...max(count, 1) where i <= count {
            if let cName = sqlite3_bind_parameter_name(stmt, Int32(i)) {
                let full = String(cString: cName)
                if full.hasPrefix("?") { positionalSlots += 1; continue }
                let bare = String(full.dropFirst())
                guard let entry = named[full] ?? named[bare] else {
                    throw statement.error(SQLITE_RANGE, "missing argument for parameter \(full)")
                }
                boundNamed += 1
                try statement.check(entry.map { $0._bind(to: stmt, at: Int32(i)) } ?? sqlite3_bind_null(stmt, Int32(i)))
            } else {
                positionalSlots += 1
            }
        }
        if boundNamed < named.count {
            let unknown = named.keys.filter { key in
                (1...max(count, 1)).allSatisfy { i in
                    guard i <= count, let c = sqlite3_bind_parameter_name(stmt, Int32(i)) else { return true }
                    let n = String(cString: c)
                    return n != key && String(n.dropFirst()) != key
                }
            }
            if !unknown.isEmpty {
                throw statement.error(SQLITE_RANGE, "no parameter named \(unknown.sorted().joined(separator: ", "))")
            }
        }
        guard positional.count == positionalSlots else {
            throw statement.error(SQLITE_RANGE, "the statement has \(positionalSlots) positional parameters, \(positional.count) arguments given")
        }
        var p = 0
        for i in 1...max(count, 1) where i <= count {
            if let c = sqlite3_bind_parameter_name(stmt, Int32(i)), c[0] != CChar(63) { continue }
            let value = positional[p]
            p += 1
            try statement.check(value.map { $0._bind(to: stmt, at: Int32(i)) } ?? sqlite3_bind_null(stmt, Int32(i)))
        }
    }
}
