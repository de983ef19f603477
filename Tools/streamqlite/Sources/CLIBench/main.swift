import Foundation
import StreamQLite

// The library calls `streamqlite` wraps, alone, for the side-by-side timing in BENCHMARKS.md
// ("Command-line tool"):
//   CLIBench import DB FILE TABLE   importCSV(contentsOfFile:) with createTable, in a transaction
//   CLIBench json DB SQL            writeJSON to standard output (a FileDescriptorSink)
let args = CommandLine.arguments
func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("CLIBench: \(message)\n".utf8))
    exit(1)
}
do {
    switch (args.count > 1 ? args[1] : "", args.count) {
    case ("import", 5):
        let db = try Database(path: args[2])
        let rows = try db.transaction {
            try db.importCSV(contentsOfFile: args[3], into: args[4], options: CSVImportOptions(createTable: true))
        }
        FileHandle.standardError.write(Data("\(rows) rows\n".utf8))
    case ("json", 4):
        let db = try Database(path: args[2], flags: [.readWrite, .noMutex])
        var sink = FileDescriptorSink(descriptor: STDOUT_FILENO)
        try db.writeJSON(args[3], to: &sink)
        try sink.flush()
    default:
        fail("usage: CLIBench import DB FILE TABLE | CLIBench json DB SQL")
    }
} catch {
    fail("\(error)")
}
