// CSV benchmarks: the same CSV file through
//   1. importCSV(contentsOfFile:) vs the sqlite3 shell's `.import --csv` into the same typed table;
//   2. CSVDecodableCursor (Decodable) and CSVRowCursor (hand-written RowDecodable) vs SwiftCSV 0.10.0 and
//      CSV.swift 2.5.2 producing the same structs;
//   3. writeCSV vs the shell's `.mode csv` output of the same query.
//
//   bash Extension/bench/bench-csv.sh build/streamqlite.so     # writes build/bench/mixed.csv
//   swift run -c release --package-path Benchmarks CSVBenchmarks build/bench/mixed.csv 3
//
// Times are CPU seconds (user + system: getrusage of this process, or of the shell child
// process), medians of the rounds: the machine is shared, and waiting for a core is no
// variant's cost. Each variant checks its result (row count and a digest of every field).
import CSV
import Foundation
import StreamQLite
import SwiftCSV

let arguments = CommandLine.arguments
let path = arguments.count > 1 ? arguments[1] : "build/bench/mixed.csv"
let rounds = arguments.count > 2 ? Int(arguments[2]) ?? 3 : 3
let sqlite3 = ProcessInfo.processInfo.environment["SQLITE3"] ?? "sqlite3"
/// CSVBENCH_ONLY=import|typed|write runs one section (e.g. under valgrind); CSVBENCH_OURS=1 only our variants.
let only = ProcessInfo.processInfo.environment["CSVBENCH_ONLY"]
let oursOnly = ProcessInfo.processInfo.environment["CSVBENCH_OURS"] == "1"
func section(_ name: String) -> Bool { only == nil || only == name }
let work = FileManager.default.temporaryDirectory.appendingPathComponent("csvbench-\(getpid())").path
try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(atPath: work) }

let fileMB = Double((try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0) / 1e6

// MARK: timing

let rusageSelf: Int32 = 0, rusageChildren: Int32 = -1   // RUSAGE_SELF, RUSAGE_CHILDREN (Linux)

func cpuSeconds(_ who: Int32) -> Double {
    var u = rusage()
    getrusage(who, &u)
    return Double(u.ru_utime.tv_sec) + Double(u.ru_utime.tv_usec) / 1e6
         + Double(u.ru_stime.tv_sec) + Double(u.ru_stime.tv_usec) / 1e6
}

/// CPU seconds of `body` in this process.
func timed(_ body: () throws -> Void) rethrows -> Double {
    let t0 = cpuSeconds(rusageSelf)
    try body()
    return cpuSeconds(rusageSelf) - t0
}

/// CPU seconds of a sqlite3 shell process running `script` on `db`.
func shell(_ db: String, _ script: String) throws -> Double {
    let t0 = cpuSeconds(rusageChildren)
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    p.arguments = [sqlite3, db]
    let input = Pipe()
    p.standardInput = input
    p.standardOutput = FileHandle.nullDevice
    try p.run()
    input.fileHandleForWriting.write(Data(script.utf8))
    try input.fileHandleForWriting.close()
    p.waitUntilExit()
    guard p.terminationStatus == 0 else { fatalError("sqlite3 failed: \(script)") }
    return cpuSeconds(rusageChildren) - t0
}

func median(_ xs: [Double]) -> Double { xs.sorted()[xs.count / 2] }

struct Result { var name: String; var seconds: Double }
func report(_ title: String, _ results: [Result], baseline: Int) {
    print("== \(title) (\(String(format: "%.1f", fileMB)) MB, median of \(rounds))")
    func pad(_ s: String, _ n: Int) -> String { s.padding(toLength: max(n, s.count), withPad: " ", startingAt: 0) }
    print(pad("variant", 44) + "     CPU s      MB/s      ratio")
    for r in results {
        print(pad(r.name, 44) + String(format: " %9.3f %9.1f %9.2fx", r.seconds, fileMB / r.seconds,
                                       results[baseline].seconds / r.seconds))
    }
    print("(ratio = \(results[baseline].name) time / this time)\n")
}

// MARK: the rows

struct Row: Decodable {
    var id: Int
    var name: String
    var amount: Double?
    var note: String?
    var created_at: String
    var qty: Int
    var active: Int?
    var city: String
}

/// The hand-written decoding (fields by header name: the plan is resolved once per file).
extension Row: RowDecodable {
    init(row: StreamQLite.Row) throws {
        id = try row["id"]; name = try row["name"]; amount = try row["amount"]; note = try row["note"]
        created_at = try row["created_at"]; qty = try row["qty"]; active = try row["active"]; city = try row["city"]
    }
}

/// A digest of every field, so that every reader is seen to produce the same structs.
struct Digest: Equatable {
    var rows = 0, ids = 0, qty = 0, actives = 0, text = 0, amounts = 0.0, nils = 0
    mutating func add(_ r: Row) {
        rows += 1; ids &+= r.id; qty &+= r.qty; actives &+= r.active ?? 0
        text &+= r.name.utf8.count &+ (r.note?.utf8.count ?? 0) &+ r.created_at.utf8.count &+ r.city.utf8.count
        amounts += r.amount ?? 0
        nils += (r.amount == nil ? 1 : 0) + (r.note == nil ? 1 : 0) + (r.active == nil ? 1 : 0)
    }
}

let schema = """
    PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;
    CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT, amount REAL, note TEXT, created_at TEXT,
                   qty INTEGER, active INTEGER, city TEXT);
    """

// MARK: 0. one import for bench-csv.sh (CSVBENCH_IMPORT_DB=<new db>: prints the CPU seconds of importCSV alone)

if let target = ProcessInfo.processInfo.environment["CSVBENCH_IMPORT_DB"] {
    let db = try Database(path: target)
    for s in schema.split(separator: ";") where !s.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty { try db.execute(String(s)) }
    var n = 0
    let t = try timed { n = try db.importCSV(contentsOfFile: path, into: "t") }
    let stored = try db.value(Int.self, "SELECT count(*) FROM t")
    precondition(n > 0 && stored == n)
    print(String(format: "%.3f", t))
    exit(0)
}

// MARK: 1. import

if section("import") {
var importTimes: [[Double]] = [[], []]
for round in 0..<rounds {
    let a = work + "/import-\(round).db", b = work + "/shell-\(round).db"
    let db = try Database(path: a)
    for s in schema.split(separator: ";") where !s.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty { try db.execute(String(s)) }
    var n = 0
    importTimes[0].append(try timed { n = try db.importCSV(contentsOfFile: path, into: "t") })
    let stored = try db.value(Int.self, "SELECT count(*) FROM t")
    precondition(n > 0 && stored == n)
    importTimes[1].append(try shell(b, schema + "\n.import --csv --skip 1 \(path) t\n"))
    try? FileManager.default.removeItem(atPath: b)
    if round > 0 { try? FileManager.default.removeItem(atPath: a) }
}
report("INSERT the CSV into a typed table", [
    Result(name: "sqlite3 shell .import --csv", seconds: median(importTimes[1])),
    Result(name: "StreamQLite importCSV(contentsOfFile:)", seconds: median(importTimes[0])),
], baseline: 0)
}

// MARK: 2. typed rows

if section("typed") {
var typedTimes: [[Double]] = [[], [], [], []]
var digests: [Digest] = [Digest(), Digest(), Digest(), Digest()]
for _ in 0..<rounds {
    var d = Digest()
    typedTimes[0].append(try timed {
        let cursor = try CSVDecodableCursor(Row.self, contentsOfFile: path)
        while let r = try cursor.next() { d.add(r) }
    })
    digests[0] = d
    d = Digest()
    typedTimes[3].append(try timed {
        let cursor = try CSVRowCursor(Row.self, contentsOfFile: path)
        while let r = try cursor.next() { d.add(r) }
    })
    digests[3] = d
    if oursOnly { typedTimes[1].append(1); typedTimes[2].append(1); digests[1] = d; digests[2] = d; continue }
    d = Digest()
    typedTimes[1].append(try timed {
        let csv = try SwiftCSV.CSV<Named>(url: URL(fileURLWithPath: path), delimiter: .comma, loadColumns: false)
        try csv.enumerateAsDict { f in
            d.add(Row(id: Int(f["id"]!)!, name: f["name"]!, amount: f["amount"]!.isEmpty ? nil : Double(f["amount"]!)!,
                      note: f["note"]!.isEmpty ? nil : f["note"]!, created_at: f["created_at"]!, qty: Int(f["qty"]!)!,
                      active: f["active"]!.isEmpty ? nil : Int(f["active"]!)!, city: f["city"]!))
        }
    })
    digests[1] = d
    d = Digest()
    typedTimes[2].append(try timed {
        let reader = try CSVReader(stream: InputStream(fileAtPath: path)!, hasHeaderRow: true)
        let decoder = CSVRowDecoder()
        while reader.next() != nil { d.add(try decoder.decode(Row.self, from: reader)) }
    })
    digests[2] = d
}
// The same structs: CSVDecodableCursor reads "" as '' (quoted empty) and empty as nil; the
// others read both as "" — compare what they agree on.
func agree(_ a: Digest, _ b: Digest) -> Bool {
    a.rows == b.rows && a.ids == b.ids && a.qty == b.qty && a.actives == b.actives && a.text == b.text && a.amounts == b.amounts
}
precondition(digests[0] == digests[3], "CSVDecodableCursor and CSVRowCursor disagree: \(digests)")
precondition(agree(digests[0], digests[1]) && agree(digests[0], digests[2]), "readers disagree: \(digests)")
report("typed rows (Decodable struct of 8 fields) from the CSV file", [
    Result(name: "SwiftCSV 0.10.0 (Named rows → struct)", seconds: median(typedTimes[1])),
    Result(name: "CSV.swift 2.5.2 (CSVRowDecoder)", seconds: median(typedTimes[2])),
    Result(name: "StreamQLite CSVDecodableCursor (Decodable)", seconds: median(typedTimes[0])),
    Result(name: "StreamQLite CSVRowCursor (RowDecodable)", seconds: median(typedTimes[3])),
], baseline: 1)
print(String(format: "CSVDecodableCursor vs CSV.swift: %.2fx, vs SwiftCSV: %.2fx\n",
             median(typedTimes[2]) / median(typedTimes[0]), median(typedTimes[1]) / median(typedTimes[0])))
print(String(format: "CSVRowCursor vs CSV.swift: %.2fx, vs SwiftCSV: %.2fx\n",
             median(typedTimes[2]) / median(typedTimes[3]), median(typedTimes[1]) / median(typedTimes[3])))
}

// MARK: 3. output

if section("write") {
let dbPath = work + "/import-0.db"
let fresh = !FileManager.default.fileExists(atPath: dbPath)
let db = try Database(path: dbPath)
if fresh {
    for s in schema.split(separator: ";") where !s.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty { try db.execute(String(s)) }
    try db.importCSV(contentsOfFile: path, into: "t")
}
var writeTimes: [[Double]] = [[], []]
for _ in 0..<rounds {
    let out = work + "/out.csv", shellOut = work + "/shell.csv"
    writeTimes[0].append(try timed {
        var sink = try FileDescriptorSink(path: out)
        try db.writeCSV("SELECT * FROM t", to: &sink)
        try sink.close()
    })
    writeTimes[1].append(try shell(dbPath, ".mode csv\n.headers on\n.output \(shellOut)\nSELECT * FROM t;\n"))
}
report("SELECT * FROM t as CSV into a file", [
    Result(name: "sqlite3 shell .mode csv", seconds: median(writeTimes[1])),
    Result(name: "StreamQLite writeCSV", seconds: median(writeTimes[0])),
], baseline: 0)
}
var peak = rusage()
getrusage(rusageSelf, &peak)
print("peak RSS of this process: \(peak.ru_maxrss / 1024) MB (SwiftCSV loads the whole file)")
