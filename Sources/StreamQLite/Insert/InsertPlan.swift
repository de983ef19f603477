import Foundation

/// How the bulk insert's encoder maps one `Encodable` type to statement parameters.
///
/// Resolved once per call (type × table × statement shape): `columns[i]` is
/// bound to parameter `base + i + 1` of the row being encoded. Keys arrive
/// in declaration order, so the expected column is checked first
/// (`columns[cursor] == key`) and the dictionary is only a fallback for
/// skipped optionals and reordered keys.
final class InsertPlan {
    let columns: [String]
    let index: [String: Int]  // lowercased column name → position
    let isJSON: [Bool]
    let isDate: [Bool]

    init(columns: [String], table: [TableColumn], jsonColumns: Set<String>) {
        self.columns = columns
        var index: [String: Int] = [:]
        for (i, c) in columns.enumerated() { index[c.lowercased()] = i }
        self.index = index
        let lowerJSON = Set(jsonColumns.map { $0.lowercased() })
        var byName: [String: TableColumn] = [:]
        for c in table { byName[c.name.lowercased()] = c }
        isJSON = columns.map { lowerJSON.contains($0.lowercased()) || (byName[$0.lowercased()]?.isJSON ?? false) }
        isDate = columns.map { byName[$0.lowercased()]?.isDate ?? false }
    }
}
