import CStreamQLite

/// Options of ``Database/insert(contentsOf:into:options:)-8cne6``.
public struct InsertOptions: Sendable {
    /// What to do when a row conflicts with a UNIQUE or PRIMARY KEY constraint.
    public enum Conflict: Sendable, Equatable {
        /// Throw an ``InsertError`` and roll back (the default).
        case abort
        /// Skip the row (`ON CONFLICT DO NOTHING`).
        case ignore
        /// Delete the old row, insert the new one (`INSERT OR REPLACE`).
        case replace
        /// Upsert: `ON CONFLICT (target) DO UPDATE SET c = excluded.c` for the
        /// `set` columns, or for every inserted column not in `target` when `set` is nil.
        case update(target: [String], set: [String]? = nil)
    }

    /// How `Date` properties are stored.
    public enum DateEncoding: Sendable, Equatable {
        /// The library's one date text, `2024-05-01 12:00:00.250` (UTC, milliseconds
        /// floored), the same as binding a `Date` with `execute`: SQLite's date functions
        /// and the locale-week functions read it, and text order is time order.
        case text
        /// REAL seconds since 1970-01-01 UTC. Read back (in Swift and SQL alike) by SQLite's
        /// `'auto'` rule, which takes a number from 0 to 5373484.5 for a Julian day: a `Date`
        /// of 1970-01-01 to 1970-03-04 (and one outside the years 0000-9999) would not come
        /// back as the same `Date`, so the insert throws an ``InsertError`` for it, naming the
        /// row and column; store such dates as ``text``.
        case unixSeconds
    }

    /// The columns to insert, in order. Nil (the default): the coding keys of
    /// the first value (plus its nil optional properties, found by name) that
    /// name columns of the table. For ``RowEncodable`` types this is ignored
    /// (``RowEncodable/databaseColumns`` is used).
    public var columns: [String]?
    /// Conflict handling; default ``Conflict/abort``.
    public var onConflict: Conflict
    /// Rows per `INSERT … VALUES (…),(…)` statement, capped by SQLite's
    /// variable limit (`SQLITE_LIMIT_VARIABLE_NUMBER` / column count). Default 50.
    public var batchSize: Int
    /// A property with no column: an error (default, `false`) or skipped (`true`).
    public var ignoreUnknownKeys: Bool
    /// Columns receiving nested values (structs, arrays, dictionaries) as JSON
    /// text, in addition to columns whose declared type contains `JSON`.
    public var jsonColumns: Set<String>
    /// How `Date` values are stored; default ``DateEncoding/text``.
    public var dateEncoding: DateEncoding

    /// Creates options; every parameter has the documented default.
    public init(columns: [String]? = nil, onConflict: Conflict = .abort, batchSize: Int = 50,
                ignoreUnknownKeys: Bool = false, jsonColumns: Set<String> = [], dateEncoding: DateEncoding = .text) {
        self.columns = columns
        self.onConflict = onConflict
        self.batchSize = batchSize
        self.ignoreUnknownKeys = ignoreUnknownKeys
        self.jsonColumns = jsonColumns
        self.dateEncoding = dateEncoding
    }
}
