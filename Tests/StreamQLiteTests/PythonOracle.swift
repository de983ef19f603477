import Foundation
import Testing

/// Runs `python3 -c script args…` (the tests' outside oracle: Python's `json`,
/// `csv`, `sqlite3`, `datetime`) with `input` on standard input and returns its
/// standard output; a non-zero exit status is a test failure at the caller.
func runPython(_ script: String, args: [String] = [], input: [UInt8] = [],
               sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    p.arguments = ["python3", "-c", script] + args
    let out = Pipe(), inp = Pipe()
    p.standardOutput = out
    p.standardInput = inp
    try p.run()
    // Feed standard input from another thread: a large input and a large output
    // would otherwise fill both pipes and wait on each other.
    let writer = Thread { [input] in
        inp.fileHandleForWriting.write(Data(input))
        try? inp.fileHandleForWriting.close()
    }
    writer.start()
    let data = out.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    let text = String(decoding: data, as: UTF8.self)
    #expect(p.terminationStatus == 0, "python3 failed: \(text)", sourceLocation: sourceLocation)
    return text
}
