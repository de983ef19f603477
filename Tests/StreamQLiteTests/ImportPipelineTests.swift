import Foundation
import Synchronization
import Testing
@testable import StreamQLite
import CStreamQLite

/// File imports read on a second thread (`sq_pipe.h`, ``ChunkFile``): the same rows,
/// rejects, errors and progress as the same bytes imported from memory (read on the
/// caller's thread), for files larger than the pipe's ring, records larger than one of its
/// blocks, CSV inference (read here, then the rest on the worker), gzip, an error at
/// record N (nothing committed), a failed batch, and a budget spent. Their files are over
/// `SQ_PIPE_MIN_INPUT` (smaller ones are read on the calling thread: `sq_pipe_worth_it_for`).
@Suite struct ImportPipelineTests {
    let dir: String

    init() throws {
        dir = NSTemporaryDirectory() + "sq-pipe-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    }

    private func write(_ name: String, _ text: String) throws -> String {
        let path = dir + "/" + name
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// Every row of `table` as text, in rowid order.
    private func dump(_ db: Database, _ table: String) throws -> String {
        try db.scalarText("SELECT group_concat(quote(id) || '|' || quote(name) || '|' || quote(amount) || '|' || quote(note), char(10)) FROM (SELECT * FROM \(table) ORDER BY rowid)") ?? ""
    }

    private func rejects(_ db: Database, _ table: String) throws -> String {
        try db.scalarText("SELECT group_concat(line || '/' || \"offset\" || '/' || record || '/' || quote(\"column\") || '/' || reason || '/' || quote(raw) || '/' || raw_truncated, char(10)) FROM (SELECT * FROM \(table) ORDER BY rowid)") ?? ""
    }

    /// `n` CSV records with texts of varied lengths (one of 300,000 bytes: larger than a
    /// block of the ring) and, where `bad` says so, a record whose amount is not a number.
    private func csv(_ n: Int, bad: (Int) -> Bool = { _ in false }) -> String {
        var s = "id,name,amount,note\n"
        s.reserveCapacity(n * 40)
        for i in 0..<n {
            let note = i == 777 ? String(repeating: "x", count: 300_000) : String(repeating: "n", count: i % 97)
            s += "\(i),\"Name, \(i)\",\(bad(i) ? "oops" : String(Double(i) * 1.25)),\(note)\n"
        }
        return s
    }

    private func json(_ n: Int, badAt: Int? = nil) -> String {
        var s = "["
        for i in 0..<n {
            if i > 0 { s += ",\n" }
            let note = i == 777 ? String(repeating: "y", count: 300_000) : String(repeating: "j", count: i % 89)
            let amount = i == badAt ? "\"oops\"" : String(Double(i) * 0.5)
            s += "{\"id\": \(i), \"name\": \"N\(i)\", \"amount\": \(amount), \"note\": \"\(note)\"}"
        }
        return s + "]"
    }

    private let columns = "CREATE TABLE t(id INTEGER, name TEXT, amount REAL, note TEXT)"

    @Test func csvFromAFileEqualsTheSameBytesFromMemory() throws {
        let text = csv(60_000)
        let path = try write("a.csv", text)
        let file = try Database(path: ":memory:"), memory = try Database(path: ":memory:")
        for db in [file, memory] { try db.execute(columns) }
        let reports = Mutex<[ImportProgress]>([])
        let n = try file.importCSV(contentsOfFile: path, into: "t",
                                   options: .init(chunkSize: 16 * 1024),
                                   progress: { p in reports.withLock { $0.append(p) } })
        let m = try memory.importCSV(bytes: Array(text.utf8), into: "t")
        #expect(n == 60_000 && m == 60_000)
        #expect(try dump(file, "t") == dump(memory, "t"))
        // progress: after every chunk, monotone, to the file's size and every record
        let r = reports.withLock { $0 }
        #expect(r.count > text.utf8.count / (16 * 1024))
        #expect(r.map(\.bytes) == r.map(\.bytes).sorted() && r.map(\.rows) == r.map(\.rows).sorted())
        #expect(r.last == ImportProgress(bytes: text.utf8.count, rows: 60_000))
    }

    @Test func csvInferenceThenTheRestOnTheWorker() throws {
        let text = csv(20_000)
        let path = try write("infer.csv", text)
        let file = try Database(path: ":memory:"), memory = try Database(path: ":memory:")
        let options = CSVImportOptions(createTable: true, inferRecords: 500, chunkSize: 8 * 1024)
        #expect(try file.importCSV(contentsOfFile: path, into: "t", options: options) == 20_000)
        #expect(try memory.importCSV(bytes: Array(text.utf8), into: "t", options: options) == 20_000)
        #expect(try file.scalarText("SELECT sql FROM sqlite_schema WHERE name = 't'")
                == memory.scalarText("SELECT sql FROM sqlite_schema WHERE name = 't'"))
        #expect(try dump(file, "t") == dump(memory, "t"))
    }

    @Test func jsonFromAFileEqualsTheSameBytesFromMemory() throws {
        let text = json(40_000)
        let path = try write("a.json", text)
        let file = try Database(path: ":memory:"), memory = try Database(path: ":memory:")
        for db in [file, memory] { try db.execute(columns) }
        #expect(try file.importJSON(contentsOfFile: path, into: "t", options: .init(chunkSize: 4096)) == 40_000)
        #expect(try memory.importJSON(bytes: Array(text.utf8), into: "t") == 40_000)
        #expect(try dump(file, "t") == dump(memory, "t"))
    }

    @Test func gzipFromAFileEqualsThePlainFile() throws {
        let text = csv(60_000)
        let path = try write("z.csv", text)
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/sh")
        p.arguments = ["-c", "gzip -c '\(path)' > '\(path).gz'"]
        try p.run()
        p.waitUntilExit()
        let gz = try Database(path: ":memory:"), plain = try Database(path: ":memory:")
        for db in [gz, plain] { try db.execute(columns) }
        let last = Mutex<ImportProgress?>(nil)
        // (compressed, over SQ_PIPE_MIN_INPUT: read on the worker)
        let size = try FileManager.default.attributesOfItem(atPath: path + ".gz")[.size] as! Int
        #expect(size >= Int(SQ_PIPE_MIN_INPUT))
        #expect(try gz.importCSV(contentsOfFile: path + ".gz", into: "t",
                                 progress: { p in last.withLock { $0 = p } }) == 60_000)
        #expect(try plain.importCSV(contentsOfFile: path, into: "t") == 60_000)
        #expect(try dump(gz, "t") == dump(plain, "t"))
        #expect(last.withLock { $0 } == ImportProgress(bytes: text.utf8.count, rows: 60_000, compressedBytes: size))
    }

    @Test func anErrorAtRecordNCommitsNothingAndIsTheSameError() throws {
        let text = json(30_000, badAt: 25_000)
        let path = try write("bad.json", text)
        let file = try Database(path: ":memory:"), memory = try Database(path: ":memory:")
        for db in [file, memory] { try db.execute(columns) }
        var errors: [String] = []
        for db in [file, memory] {
            do {
                if db === file {
                    _ = try db.importJSON(contentsOfFile: path, into: "t", options: .init(strict: true, chunkSize: 8192))
                } else {
                    _ = try db.importJSON(bytes: Array(text.utf8), into: "t", options: .init(strict: true))
                }
                Issue.record("no error")
            } catch let e as Database.JSONImportError {
                #expect(e.element == 25_000)
                errors.append("\(e.message) \(e.byteOffset) \(e.line) \(e.column)")
            }
            #expect(try db.scalarText("SELECT count(*) FROM t") == "0")
        }
        #expect(errors.count == 2 && errors[0] == errors[1])
    }

    @Test func aFailedBatchStopsTheWorkerAndCommitsNothing() throws {
        let text = csv(20_000)
        let path = try write("dup.csv", text.replacingOccurrences(of: "\n15000,", with: "\n14999,"))
        let db = try Database(path: ":memory:")
        try db.execute("CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT, amount REAL, note TEXT)")
        do {
            _ = try db.importCSV(contentsOfFile: path, into: "t")
            Issue.record("no error")
        } catch let e as CSVImportError {
            #expect(e.record == 15_000)
            #expect(e.message.contains("UNIQUE"))
        }
        #expect(try db.scalarText("SELECT count(*) FROM t") == "0")
        // the connection goes on
        #expect(try db.importCSV(contentsOfFile: try write("ok.csv", csv(10)), into: "t") == 10)
    }

    @Test func rejectsAreTheSameAsFromMemoryAndInOrder() throws {
        let text = csv(30_000, bad: { $0 % 1000 == 999 })
        let path = try write("rej.csv", text)
        let file = try Database(path: ":memory:"), memory = try Database(path: ":memory:")
        for db in [file, memory] { try db.execute(columns) }
        let order = Mutex<[Int]>([])
        let options = CSVImportOptions(strict: true, chunkSize: 10_000, onError: .skip, rejectTable: "rej",
                                       onReject: { r in order.withLock { $0.append(r.record) } })
        #expect(try file.importCSV(contentsOfFile: path, into: "t", options: options) == 29_970)
        let fromFile = order.withLock { o in defer { o = [] }; return o }
        #expect(try memory.importCSV(bytes: Array(text.utf8), into: "t", options: options) == 29_970)
        #expect(fromFile == Array(stride(from: 999, to: 30_000, by: 1000)))
        #expect(try dump(file, "t") == dump(memory, "t"))
        #expect(try rejects(file, "rej").replacingOccurrences(of: path, with: "") == rejects(memory, "rej"))
        #expect(try file.scalarText("SELECT count(*) FROM rej WHERE file = '\(path)'") == "30")
    }

    /// Rows the table refuses (a UNIQUE id repeated), format rejects and the file-name column
    /// together, from a file read on the worker: the same rows and rejects as the bytes from
    /// memory, each row naming its file. (Rows the table refuses are replayed from the
    /// pipe's items, held until their batch has run.)
    @Test func tableRefusalsFormatRejectsAndTheFileColumnOnTheWorker() throws {
        // every 997th record repeats the id before it; every 1000th has a bad amount
        var text = "id,name,amount,note\n"
        for i in 0..<30_000 {
            let id = i % 997 == 996 ? i - 1 : i
            text += "\(id),n\(i),\(i % 1000 == 999 ? "oops" : String(Double(i) * 0.25)),\(String(repeating: "z", count: i % 53))\n"
        }
        let path = try write("refused.csv", text)
        let file = try Database(path: ":memory:"), memory = try Database(path: ":memory:")
        for db in [file, memory] {
            try db.execute("PRAGMA journal_mode=MEMORY")
            try db.execute("CREATE TABLE t(id INTEGER UNIQUE, name TEXT, amount REAL, note TEXT, src TEXT)")
        }
        let options = CSVImportOptions(strict: true, chunkSize: 8 * 1024, onError: .skip, rejectTable: "rej",
                                       filenameColumn: "src")
        let refused = 30_000 / 997, bad = 30
        let n = try file.importCSV(contentsOfFile: path, into: "t", options: options)
        #expect(try memory.importCSV(bytes: Array(text.utf8), into: "t", options: options) == n)
        #expect(n == 30_000 - refused - bad)
        #expect(try dump(file, "t") == dump(memory, "t"))
        #expect(try file.scalarText("SELECT count(*) FROM t WHERE src IS '\(path)'") == String(n))
        #expect(try memory.scalarText("SELECT count(*) FROM t WHERE src IS NULL") == String(n))
        #expect(try rejects(file, "rej").replacingOccurrences(of: path, with: "") == rejects(memory, "rej"))
        #expect(try file.scalarText("SELECT count(*) FROM rej WHERE reason LIKE '%UNIQUE%'") == String(refused))
    }

    @Test func aSpentBudgetStopsTheWorkerAndCommitsNothing() throws {
        let path = try write("budget.csv", csv(30_000, bad: { $0 % 1000 == 999 }))
        let db = try Database(path: ":memory:")
        try db.execute(columns)
        do {
            _ = try db.importCSV(contentsOfFile: path, into: "t",
                                 options: .init(strict: true, onError: .skip, maxErrors: .count(5), rejectTable: "rej"))
            Issue.record("no error")
        } catch let e as CSVImportError {
            #expect(e.message.contains("more than 5 records rejected"))
        }
        #expect(try db.scalarText("SELECT count(*) FROM t") == "0")
        #expect(try db.scalarText("SELECT count(*) FROM sqlite_schema WHERE name = 'rej'") == "0")
    }

    @Test func manyFilesEachWithItsHeaderOnTheWorker() throws {
        // each file over SQ_PIPE_MIN_INPUT: each read on a worker of its own
        let rows = Int(SQ_PIPE_MIN_INPUT) / 20
        let textA = "id,name,amount,note\n" + (0..<rows).map { "\($0),a,1.5,xxxxxxxx\n" }.joined()
        let textB = "note,id,name,amount\n" + (0..<rows).map { "zzzzzzzz,\($0 + rows),c,3.5\n" }.joined()
        let a = try write("m1.csv", textA), b = try write("m2.csv", textB)
        let db = try Database(path: ":memory:"), memory = try Database(path: ":memory:")
        for d in [db, memory] { try d.execute(columns) }
        let last = Mutex<ImportProgress?>(nil)
        let started = sq_pipe_workers_started()
        #expect(try db.importCSV(contentsOfFiles: [a, b], into: "t", progress: { p in last.withLock { $0 = p } }) == 2 * rows)
        #expect(sq_pipe_workers_started() - started == (sq_pipe_worth_it() != 0 ? 2 : 0))
        #expect(try memory.importCSV(bytes: Array(textA.utf8), into: "t") + memory.importCSV(bytes: Array(textB.utf8), into: "t") == 2 * rows)
        #expect(try dump(db, "t") == dump(memory, "t"))
        #expect(last.withLock { $0 }?.filesDone == 2)
    }

    /// The worker only where it pays (`sq_pipe_worth_it_for`): none for a file under
    /// `SQ_PIPE_MIN_INPUT` nor for many small files (the same rows as the bytes from
    /// memory), one for a file of that size and for a FIFO (whatever it holds). Counted by
    /// `sq_pipe_workers_started`, this thread's (a synchronous test stays on its thread).
    @Test func aWorkerOnlyForFilesWorthIt() throws {
        let two: UInt64 = sq_pipe_worth_it() != 0 ? 1 : 0
        let db = try Database(path: ":memory:"), memory = try Database(path: ":memory:")
        for d in [db, memory] { try d.execute(columns) }
        func imported(_ paths: [String], _ texts: [String]) throws -> UInt64 {
            let started = sq_pipe_workers_started()
            let n = try db.importCSV(contentsOfFiles: paths, into: "t")
            let workers = sq_pipe_workers_started() - started
            var m = 0
            for text in texts { m += try memory.importCSV(bytes: Array(text.utf8), into: "t") }
            #expect(n == m)
            #expect(try dump(db, "t") == dump(memory, "t"))
            return workers
        }
        // a file one byte under the threshold, and one at it (the last note padded)
        var head = "id,name,amount,note\n"
        var i = 0
        while head.utf8.count < Int(SQ_PIPE_MIN_INPUT) - 60 { head += "\(i),n\(i),\(i).5,x\n"; i += 1 }
        head += "\(i),last,0.5,"
        func sized(_ size: Int) -> String { head + String(repeating: "y", count: size - head.utf8.count - 1) + "\n" }
        let under = sized(Int(SQ_PIPE_MIN_INPUT) - 1), at = sized(Int(SQ_PIPE_MIN_INPUT))
        #expect(under.utf8.count == Int(SQ_PIPE_MIN_INPUT) - 1 && at.utf8.count == Int(SQ_PIPE_MIN_INPUT))
        #expect(try imported([write("under.csv", under)], [under]) == 0)
        #expect(try imported([write("at.csv", at)], [at]) == two)
        // 200 small files
        let small = (0..<200).map { "id,name\n\($0),s\($0)\n" }
        let paths = try small.enumerated().map { try write(String(format: "small%03d.csv", $0.offset), $0.element) }
        #expect(try imported(paths, small) == 0)
        // a FIFO with three rows, its writer closing once it is opened
        let fifo = dir + "/rows.fifo"
        #expect(mkfifo(fifo, 0o600) == 0)
        let rows = "id,name\n1,f\n2,g\n3,h\n"
        DispatchQueue.global().async {
            let fd = open(fifo, O_WRONLY)
            _ = rows.withCString { Glibc.write(fd, $0, strlen($0)) }
            close(fd)
        }
        #expect(try imported([fifo], [rows]) == two)
    }

    /// A pool write importing a FIFO whose writer stalls, cancelled: the calling thread,
    /// waiting for the worker, asks the connection's stop check and ends the import.
    @Test func cancellingAFileImportWaitingOnAStalledFIFOStopsIt() async throws {
        guard sq_pipe_worth_it() != 0 else { return }   // on one thread the read itself waits
        let fifo = dir + "/stalled.csv"
        #expect(mkfifo(fifo, 0o600) == 0)
        let writer = open(fifo, O_RDWR)
        let head = "id,name,amount,note\n1,a,1.5,x\n2,b,2.5,y\n"
        _ = head.withCString { Glibc.write(writer, $0, strlen($0)) }
        // the writer's end closed once: by the test, or after 15 s if the import ignored the
        // cancellation (then it reads the end of the input and succeeds: the test fails)
        let open = Mutex(writer)
        let closeWriter: @Sendable () -> Void = { open.withLock { fd in if fd >= 0 { close(fd); fd = -1 } } }
        DispatchQueue.global().asyncAfter(deadline: .now() + 15, execute: closeWriter)
        defer { closeWriter() }
        let pool = try DatabasePool(path: dir + "/p.db", readers: 1)
        let schema = columns
        try await pool.write { db in try db.execute(schema) }
        let task = Task { try await pool.write { db in try db.importCSV(contentsOfFile: fifo, into: "t") } }
        try await Task.sleep(nanoseconds: 400_000_000)
        task.cancel()
        let t0 = Date()
        let result = await task.result
        let elapsed = Date().timeIntervalSince(t0)
        #expect(elapsed < 5, "the cancelled import took \(elapsed) s to stop")
        if case .success = result { Issue.record("the cancelled import succeeded") }
        #expect(try await pool.read { db in try db.value(Int.self, "SELECT count(*) FROM t") } == 0)
    }

    @Test func theWorkerRunsWhenASecondCPUIsOnline() {
        // (the tests above compare the two threads' results with one thread's only then;
        // their files are over SQ_PIPE_MIN_INPUT)
        if ProcessInfo.processInfo.activeProcessorCount > 1 && ProcessInfo.processInfo.environment["STREAMQLITE_THREADS"] != "0" {
            #expect(sq_pipe_worth_it() != 0)
            #expect(sq_pipe_worth_it_for(Int64(SQ_PIPE_MIN_INPUT)) != 0)
        }
    }

    // The rows of a file's worker are bound where they lie in the pipe (`sq_pipe_hold`,
    // ``IngestBatchWriter/hold(in:)``) until their batch has run: whatever the batch size,
    // with batches that start with rows read on this thread (CSV inference) and end with
    // the worker's, batches larger than the whole ring (the worker allocates rather than
    // wait), rows the table refuses (replayed from the held rows), and a last partial batch
    // (copied when the pipe goes away). Test builds overwrite a block given back, so a row
    // bound from a released block shows as wrong bytes.

    /// `n` records; every 199th has a note of `big` bytes (more than a block of the ring), the others short ones.
    private func csvWithBigNotes(_ n: Int, big: Int) -> String {
        var s = "id,name,amount,note\n"
        for i in 0..<n {
            let note = i % 199 == 198 ? String(repeating: Character(UnicodeScalar(UInt8(97 + i % 26))), count: big)
                                    : String(repeating: "é", count: i % 37)
            s += "\(i),\"N, \(i)\",\(Double(i) * 0.75),\(note)\n"
        }
        return s
    }

    @Test(arguments: [1, 7, 50, 333])
    func csvInferredThenHeldEqualsTheBytesFromMemory(batchSize: Int) throws {
        // 517 records read on this thread to infer the table: the batch the worker's rows
        // join starts with copied rows (517 is no multiple of 7, 50 or 333)
        let text = csvWithBigNotes(6_000, big: 100_000)
        let path = try write("infer-\(batchSize).csv", text)
        let options = CSVImportOptions(createTable: true, inferRecords: 517, batchSize: batchSize, chunkSize: 32 * 1024)
        let file = try Database(path: ":memory:"), memory = try Database(path: ":memory:")
        #expect(try file.importCSV(contentsOfFile: path, into: "t", options: options) == 6_000)
        #expect(try memory.importCSV(bytes: Array(text.utf8), into: "t", options: options) == 6_000)
        #expect(try dump(file, "t") == dump(memory, "t"))
    }

    @Test func batchesLargerThanTheRingWithRefusedRowsEqualTheBytesFromMemory() throws {
        // 50 rows of 12 KB a batch: 600 KB held, more than the whole ring; every 97th row
        // breaks the CHECK and is replayed, refused and rejected
        var text = "id,name,amount,note\n"
        for i in 0..<1_000 {
            text += "\(i),n\(i),\(i % 97 == 96 ? -1 : i),\(String(repeating: Character(UnicodeScalar(UInt8(65 + i % 26))), count: 12_000 + i % 11))\n"
        }
        let path = try write("wide.csv", text)
        let file = try Database(path: ":memory:"), memory = try Database(path: ":memory:")
        for db in [file, memory] {
            try db.execute("PRAGMA journal_mode=MEMORY")
            try db.execute("CREATE TABLE t(id INTEGER, name TEXT, amount REAL CHECK (amount >= 0), note TEXT)")
        }
        let options = CSVImportOptions(batchSize: 50, chunkSize: 64 * 1024, onError: .skip, rejectTable: "rej")
        let n = try file.importCSV(contentsOfFile: path, into: "t", options: options)
        #expect(n == 1_000 - 1_000 / 97)
        #expect(try memory.importCSV(bytes: Array(text.utf8), into: "t", options: options) == n)
        #expect(try dump(file, "t") == dump(memory, "t"))
        #expect(try file.scalarText("SELECT count(*) FROM rej WHERE reason LIKE '%CHECK%'") == String(1_000 / 97))
    }

    @Test(arguments: [1, 7, 50])
    func jsonHeldEqualsTheBytesFromMemory(batchSize: Int) throws {
        var text = "["
        for i in 0..<9_000 {
            if i > 0 { text += ",\n" }
            let note = i % 251 == 250 ? String(repeating: "q", count: 80_000) : String(repeating: "ü", count: i % 29)
            text += "{\"id\": \(i), \"name\": \"n\\\"\(i)\", \"amount\": \(i % 5 == 0 ? "null" : String(Double(i) / 8)), \"note\": \"\(note)\"}"
        }
        text += "]"
        let path = try write("held-\(batchSize).json", text)
        let file = try Database(path: ":memory:"), memory = try Database(path: ":memory:")
        for db in [file, memory] { try db.execute("CREATE TABLE t(id INTEGER, name TEXT, amount REAL, note TEXT)") }
        let options = JSONImportOptions(batchSize: batchSize, chunkSize: 16 * 1024)
        #expect(try file.importJSON(contentsOfFile: path, into: "t", options: options) == 9_000)
        #expect(try memory.importJSON(bytes: Array(text.utf8), into: "t", options: options) == 9_000)
        #expect(try dump(file, "t") == dump(memory, "t"))
    }
}
