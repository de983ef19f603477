extension Database {
    /// Creates the table an import inferred (``ImportOptions/createTable``, for CSV and
    /// JSON alike): its columns with their declared types, in order,
    /// then the `filenameColumn` as TEXT.
    func createInferredTable(_ table: String, columns: [(name: String, type: String)], filenameColumn: String?) throws {
        try sqExecute("CREATE TABLE " + sqQuoteQualifiedName(table) + " ("
            + columns.map { sqQuoteIdentifier($0.name) + " " + $0.type }.joined(separator: ", ")
            + (filenameColumn.map { ", " + sqQuoteIdentifier($0) + " TEXT" } ?? "") + ")")
    }
}
