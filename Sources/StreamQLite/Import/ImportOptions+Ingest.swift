import CStreamQLite

/// What `importCSV` and `importJSON` make of the fields they share, in one place: the
/// batched `INSERT`'s options, the columns filled, renames and strictness in the ingest
/// core, declared column types.
extension ImportOptions {
    /// The options of the batched `INSERT` (``IngestBatchWriter``): ``onConflict`` and ``batchSize``.
    var insertOptions: InsertOptions {
        InsertOptions(onConflict: onConflict, batchSize: batchSize)
    }

    /// The columns of `all` (the table's, `name` naming each) the import fills: ``columns``
    /// when given (in its order; a name `all` lacks is an error), else all of them; without
    /// the ``filenameColumn``, which the input does not feed. `checkFileColumn`: a
    /// ``filenameColumn`` that `all` lacks is an error (false: the import made the table,
    /// with that column after `all`). Names are compared as SQLite does, ignoring ASCII case.
    func filledColumns<Column>(of all: [Column], name: (Column) -> String, table: String, checkFileColumn: Bool,
                               error: (String) -> any Error) throws -> [Column] {
        func isFileColumn(_ c: String) -> Bool { filenameColumn.map { sqlite3_stricmp(c, $0) == 0 } ?? false }
        if let fileColumn = filenameColumn, checkFileColumn, !all.contains(where: { isFileColumn(name($0)) }) {
            throw error("filenameColumn: table \(table) has no column \(fileColumn)")
        }
        guard let explicit = columns else { return all.filter { !isFileColumn(name($0)) } }
        return try explicit.filter { !isFileColumn($0) }.map { wanted in
            guard let c = all.first(where: { sqlite3_stricmp(name($0), wanted) == 0 }) else {
                throw error("table \(table) has no column \(wanted)")
            }
            return c
        }
    }

    /// A rename whose column is not among `columns`, or nil.
    func renameWithoutColumn(among columns: [String]) -> (key: String, column: String)? {
        renames.first { _, column in !columns.contains { sqlite3_stricmp($0, column) == 0 } }
            .map { (key: $0.key, column: $0.value) }
    }

    /// Configures `core` with the ``renames`` whose column is among `columns` (in key order)
    /// and the strictness: ``strict`` (or `readStrictly`, for a table made from inferred
    /// columns) makes every misfit an error; ``onError`` `.skip` makes a value its column
    /// cannot hold a reject, not kept as text.
    func configure(_ core: OpaquePointer, columns: [String], readStrictly: Bool = false) {
        for (key, column) in renames.sorted(by: { $0.key < $1.key })
        where columns.contains(where: { sqlite3_stricmp($0, column) == 0 }) {
            _ = sq_ingest_map_key(core, key, -1, column, -1)
        }
        sq_ingest_set_strict(core, strict || readStrictly ? 1 : onError == .skip ? SQ_INGEST_STRICT_VALUES : 0)
    }

    /// ``columnTypes`` by index in `names` (the inferred columns; names compared ignoring
    /// ASCII case); a name of ``columnTypes`` that `names` lacks is the error `missing` makes.
    func declaredTypes(of names: [String], missing: (String) -> any Error) throws -> [Int: String] {
        var out: [Int: String] = [:]
        for (name, type) in columnTypes {
            guard let i = names.firstIndex(where: { sqlite3_stricmp($0, name) == 0 }) else { throw missing(name) }
            out[i] = type
        }
        return out
    }
}
