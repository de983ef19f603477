// One Swift import, for timing the whole process from outside (Extension/bench/bench-scale.sh):
// a new database with journal_mode=OFF and synchronous=OFF, the given schema, one
// importCSV/importJSON call (one transaction), a check that the table holds what the call
// returned, then exit.
//
//   ImportOnce [--strict] [--reject-table NAME] csv|json|ndjson DB 'CREATE TABLE t(…)' FILE [FILE …]
//
// One FILE without a glob character: importCSV/importJSON(contentsOfFile:); several, or a
// glob: importCSV/importJSON(contentsOfFiles:). The rows go to the first table the schema
// creates. --strict: strict mode; --reject-table NAME: onError .skip, the rejected records
// into that table. Prints "rows N rejects M".
import Foundation
import StreamQLite

var args = Array(CommandLine.arguments.dropFirst())
var strict = false
var rejectTable: String?
while let option = args.first, option.hasPrefix("--") {
    args.removeFirst()
    if option == "--strict" { strict = true }
    else if option == "--reject-table", !args.isEmpty { rejectTable = args.removeFirst() }
    else { args = []; break }
}
guard args.count >= 4, ["csv", "json", "ndjson"].contains(args[0]) else {
    FileHandle.standardError.write(Data(
        "usage: ImportOnce [--strict] [--reject-table NAME] csv|json|ndjson DB 'CREATE TABLE t(…)' FILE [FILE …]\n".utf8))
    exit(2)
}
let format = args[0], path = args[1], schema = args[2]
let files = Array(args[3...])

do {
    try? FileManager.default.removeItem(atPath: path)
    let db = try Database(path: path)
    try db.execute("PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; " + schema)
    guard let table = try db.value(String.self, "SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY rowid LIMIT 1") else {
        throw NSError(domain: "ImportOnce", code: 1, userInfo: [NSLocalizedDescriptionKey: "the schema creates no table"])
    }
    let many = files.count > 1 || files[0].contains(where: { "*?[".contains($0) })
    let policy: ImportReject.Policy = rejectTable == nil ? .abort : .skip
    let n: Int
    if format == "csv" {
        let options = CSVImportOptions(strict: strict, onError: policy, rejectTable: rejectTable)
        n = many ? try db.importCSV(contentsOfFiles: files, into: table, options: options)
                 : try db.importCSV(contentsOfFile: files[0], into: table, options: options)
    } else {
        let options = JSONImportOptions(layout: format == "ndjson" ? .ndjson : .array, strict: strict,
                                        onError: policy, rejectTable: rejectTable)
        n = many ? try db.importJSON(contentsOfFiles: files, into: table, options: options)
                 : try db.importJSON(contentsOfFile: files[0], into: table, options: options)
    }
    let stored = try db.value(Int.self, "SELECT count(*) FROM \"\(table)\"") ?? -1
    guard n > 0, stored == n else {
        throw NSError(domain: "ImportOnce", code: 1, userInfo: [NSLocalizedDescriptionKey: "imported \(n) rows, the table holds \(stored)"])
    }
    let rejects = try rejectTable.map { try db.value(Int.self, "SELECT count(*) FROM \"\($0)\"") ?? 0 } ?? 0
    print("rows \(n) rejects \(rejects)")
} catch {
    FileHandle.standardError.write(Data("ImportOnce: \(error)\n".utf8))
    exit(1)
}
