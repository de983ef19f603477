import Foundation

/// The progress of an `import` on standard error: on a terminal one line redrawn in place
/// (`\r`, erase line), elsewhere a plain line every interval, with `--quiet` nothing.
///
/// A frame reads `file 1/2 orders.csv  12.0 MiB of 48.0 MiB (25%)  80,000 rows  160,000 rows/s  ETA 0:02`:
/// bytes and percent of all files together, rows stored or read so far in all files, the rate since
/// the start, and the time left at that byte rate (left out for a file of unknown size). The first
/// frame comes one interval after the start.
final class ImportProgress {
    enum Mode { case terminal, lines, quiet }

    let mode: Mode
    private let sources: [ImportSource]
    private let totalBytes: Int?
    private let interval: Duration
    private let start = ContinuousClock.now
    private var lastFrame: ContinuousClock.Instant?
    private var width: Int
    private var file = 0
    private var bytesBefore = 0   // bytes of the files done
    private var rowsBefore = 0    // rows of the files done
    private var bytes = 0
    private var rows = 0
    private var drawn = false

    init(sources: [ImportSource], quiet: Bool, interval: Double?) {
        self.sources = sources
        let sizes = sources.map(\.size)
        totalBytes = sizes.contains(where: { $0 == nil }) ? nil : sizes.reduce(0) { $0 + $1! }
        let terminalWidth = Terminal.width(STDERR_FILENO)
        mode = quiet ? .quiet : terminalWidth != nil ? .terminal : .lines
        width = terminalWidth ?? 0
        self.interval = .milliseconds(Int((interval ?? (mode == .terminal ? 0.1 : 1)) * 1000))
    }

    func beginFile(_ index: Int) {
        file = index
        bytes = 0
        rows = 0
    }

    /// The library's report for the current file: its bytes read and rows so far.
    func update(bytes: Int, rows: Int) {
        self.bytes = bytes
        self.rows = rows
        guard mode != .quiet else { return }
        let now = ContinuousClock.now
        if let lastFrame, now - lastFrame < interval { return }
        if lastFrame == nil, now - start < interval { return }
        lastFrame = now
        draw(frame(at: now))
    }

    func endFile(rows stored: Int) {
        bytesBefore += sources[file].size ?? bytes
        rowsBefore += stored
        bytes = 0
        rows = 0
    }

    /// Takes the progress line off the terminal (before an error message or the summary).
    func clear() {
        if mode == .terminal && drawn { Terminal.error("\r\u{1B}[2K") }
        drawn = false
    }

    /// One line per file and the total, unless quiet.
    func summary(stored: [Int]) {
        clear()
        guard mode != .quiet else { return }
        let seconds = (ContinuousClock.now - start).seconds
        var text = ""
        for (source, n) in zip(sources, stored) {
            text += "\(source.path): \(Self.count(n)) rows into \(source.table)\n"
        }
        let total = stored.reduce(0, +)
        text += "imported \(Self.count(total)) rows from \(sources.count) file\(sources.count == 1 ? "" : "s") in \(String(format: "%.1f", seconds)) s\n"
        Terminal.error(text)
    }

    func frame(at now: ContinuousClock.Instant) -> String {
        let seconds = (now - start).seconds
        let done = bytesBefore + bytes
        let allRows = rowsBefore + rows
        var parts = ["file \(file + 1)/\(sources.count) \((sources[file].path as NSString).lastPathComponent)"]
        if let totalBytes, totalBytes > 0 {
            parts.append("\(Self.size(done)) of \(Self.size(totalBytes)) (\(min(100, done * 100 / totalBytes))%)")
        } else {
            parts.append(Self.size(done))
        }
        parts.append("\(Self.count(allRows)) rows")
        if seconds > 0 { parts.append("\(Self.count(Int(Double(allRows) / seconds))) rows/s") }
        if let totalBytes, done > 0 {
            let left = Double(totalBytes - done) / (Double(done) / seconds)
            parts.append("ETA \(Self.clock(left))")
        }
        return parts.joined(separator: "  ")
    }

    private func draw(_ text: String) {
        switch mode {
        case .terminal:
            // Cut to the terminal's width: a wrapped line could not be redrawn in place.
            let line = width > 1 ? String(text.prefix(width - 1)) : text
            Terminal.error("\r\u{1B}[2K" + line)
            drawn = true
        case .lines:
            Terminal.error("streamqlite import: " + text + "\n")
        case .quiet:
            break
        }
    }

    /// `1,234,567`.
    static func count(_ n: Int) -> String {
        let digits = String(n.magnitude)
        var out = ""
        for (i, c) in digits.enumerated() {
            if i > 0 && (digits.count - i) % 3 == 0 { out.append(",") }
            out.append(c)
        }
        return (n < 0 ? "-" : "") + out
    }

    /// `812 B`, `12.0 KiB`, `1.5 MiB`, `3.2 GiB`.
    static func size(_ bytes: Int) -> String {
        if bytes < 1024 { return "\(bytes) B" }
        var value = Double(bytes) / 1024
        for unit in ["KiB", "MiB", "GiB"] {
            if value < 1024 || unit == "GiB" { return String(format: "%.1f %@", value, unit) }
            value /= 1024
        }
        return "\(bytes) B"
    }

    /// `0:07`, `12:34`, `1:02:03`.
    static func clock(_ seconds: Double) -> String {
        let s = Int(seconds.rounded(.up))
        return s >= 3600 ? String(format: "%d:%02d:%02d", s / 3600, s / 60 % 60, s % 60)
                         : String(format: "%d:%02d", s / 60, s % 60)
    }
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
