// refused/main.swift — one importCSV of a file into a new database file, for
// bench-refused.sh (callgrind: one import a process).
//   ImportBench <csv> <mode>
// mode: none (no import) | import (default options) | skip (onError: .skip, rejectTable
// "rej", made by the import) | skip-constraint (the same, the table's CHECK (id % 100 <> 0)
// refusing 1 % of the rows) | skip-constraint-cb (onReject only) | skip-constraint-pre
// (the reject table made before the import). JOURNAL: journal_mode (default OFF).
import Foundation
import StreamQLite
import Synchronization

let args = CommandLine.arguments
let path = args[1], mode = args[2]
let dbPath = NSTemporaryDirectory() + "importbench-\(getpid()).db"
defer { try? FileManager.default.removeItem(atPath: dbPath) }
let db = try Database(path: dbPath)
try db.execute("PRAGMA journal_mode=" + (ProcessInfo.processInfo.environment["JOURNAL"] ?? "OFF"))
try db.execute("PRAGMA synchronous=OFF")
let check = mode.hasPrefix("skip-constraint") ? " CHECK (id % 100 <> 0)" : ""
try db.execute("CREATE TABLE t(id INTEGER PRIMARY KEY\(check), name TEXT, amount REAL, note TEXT, created_at TEXT, qty INTEGER, active INTEGER, city TEXT)")
if mode == "skip-constraint-pre" {
    try db.execute("CREATE TABLE rej(file TEXT, line INTEGER, \"offset\" INTEGER, record INTEGER, \"column\" TEXT, reason TEXT, raw TEXT, raw_truncated INTEGER)")
}
let seen = Mutex(0)
var n = 0
switch mode {
case "none": break
case "import": n = try db.importCSV(contentsOfFile: path, into: "t")
case "skip-constraint-cb":
    n = try db.importCSV(contentsOfFile: path, into: "t", options: .init(onError: .skip, onReject: { _ in seen.withLock { $0 += 1 } }))
default: n = try db.importCSV(contentsOfFile: path, into: "t", options: .init(onError: .skip, rejectTable: "rej"))
}
print(n)
