import CStreamQLite

/// One column of a table, from `PRAGMA table_info`.
struct TableColumn {
    var name: String
    var declaredType: String
    var notNull: Bool
    var primaryKey: Int
    var hasDefault: Bool

    /// Declared JSON (`JSON`, `JSONB`, `JSON TEXT`…): nested values are stored as JSON text.
    var isJSON: Bool { declaredType.uppercased().contains("JSON") }
    /// Declared as a date or time (`DATE`, `DATETIME`, `TIMESTAMP`, `TIME`).
    /// The ingest core's rule (`sq_ingest_type_is_date`), so bulk inserts and imports agree.
    var isDate: Bool {
        var t = declaredType
        return t.withUTF8 { buf in
            buf.withMemoryRebound(to: CChar.self) { sq_ingest_type_is_date($0.baseAddress, Int32($0.count)) != 0 }
        }
    }
}

extension Database {
    /// The columns of `table` (`schema.table` allowed), or an error if there is no such table.
    func sqTableColumns(_ table: String, function: String) throws -> [TableColumn] {
        guard let columns = try sqTableColumnsIfExists(table, function: function) else {
            throw DatabaseError(code: SQLITE_ERROR, message: "\(function): no such table: \(table)")
        }
        return columns
    }

    /// The columns of `table`, or nil when there is no such table; an error reading the
    /// schema (I/O, memory) is thrown, never taken for a missing table.
    func sqTableColumnsIfExists(_ table: String, function: String) throws -> [TableColumn]? {
        var stmt: OpaquePointer?
        let (schema, name) = sqSplitQualifiedName(table)
        let sql = "SELECT name, type, \"notnull\", pk, dflt_value IS NOT NULL FROM pragma_table_info(?1, ?2)"
        guard sqlite3_prepare_v2(handle, sql, -1, &stmt, nil) == SQLITE_OK, let stmt else {
            throw DatabaseError(code: sqlite3_errcode(handle), message: String(cString: sqlite3_errmsg(handle)))
        }
        defer { sqlite3_finalize(stmt) }
        sqBindText(stmt, 1, name)
        if let schema { sqBindText(stmt, 2, schema) } else { sqlite3_bind_null(stmt, 2) }
        var columns: [TableColumn] = []
        var rc = sqlite3_step(stmt)
        while rc == SQLITE_ROW {
            guard let columnName = sqlite3_column_text(stmt, 0) else { rc = SQLITE_NOMEM; break }
            columns.append(TableColumn(
                name: String(cString: columnName),
                declaredType: sqlite3_column_text(stmt, 1).map { String(cString: $0) } ?? "",
                notNull: sqlite3_column_int(stmt, 2) != 0,
                primaryKey: Int(sqlite3_column_int(stmt, 3)),
                hasDefault: sqlite3_column_int(stmt, 4) != 0))
            rc = sqlite3_step(stmt)
        }
        // (an I/O error reading the schema is that error, not "no such table")
        if rc != SQLITE_DONE {
            let code = rc == SQLITE_NOMEM ? rc : sqlite3_extended_errcode(handle)
            throw DatabaseError(code: code & 0xff, extendedCode: code,
                                message: "\(function): reading the columns of \(table): \(String(cString: sqlite3_errstr(code)))",
                                sql: sql)
        }
        return columns.isEmpty ? nil : columns
    }
}

func sqSplitQualifiedName(_ table: String) -> (schema: String?, name: String) {
    if let dot = table.firstIndex(of: "."), !table.hasPrefix("\"") {
        return (String(table[..<dot]), String(table[table.index(after: dot)...]))
    }
    return (nil, table)
}

func sqQuoteQualifiedName(_ table: String) -> String {
    let (schema, name) = sqSplitQualifiedName(table)
    if let schema { return sqQuoteIdentifier(schema) + "." + sqQuoteIdentifier(name) }
    return sqQuoteIdentifier(name)
}

/// Quotes an SQL identifier: `tasks` → `"tasks"`, `a"b` → `"a""b"`.
func sqQuoteIdentifier(_ name: String) -> String {
    "\"" + name.replacingAll("\"", with: "\"\"") + "\""
}

extension String {
    func replacingAll(_ target: Character, with replacement: String) -> String {
        var out = ""
        out.reserveCapacity(utf8.count)
        for c in self { if c == target { out += replacement } else { out.append(c) } }
        return out
    }
}
