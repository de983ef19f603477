import StreamQLite

/// The rows of a query as a box table (`┌─┬─┐`), streamed: a ``RowSink`` that keeps the first
/// ``sampleRows`` rows to size the columns, then writes every later row as it comes with the
/// same widths. Memory holds at most that sample, whatever the number of rows.
///
/// Cells are one line: a line end or tab shows as `\n`, `\r`, `\t`; a cell wider than its
/// column (a column narrowed to fit the terminal, or a later row wider than the sample) is cut
/// and ends with `…`. Numbers are right-aligned; NULL is an empty cell; a BLOB shows its size.
/// Widths count characters (grapheme clusters): wide East Asian characters take two columns
/// on most terminals and then push their row's borders out.
struct BoxTableWriter: RowSink {
    static let sampleRows = 100
    /// The narrowest a column is made to fit the terminal.
    static let minimumWidth = 6

    private let sink: FileDescriptorSink
    private let terminalWidth: Int?
    private var columns: [String] = []
    private var numeric: [Bool] = []
    private var row: [String] = []
    private var sample: [[String]] = []
    private var widths: [Int]?

    init(sink: FileDescriptorSink, width: Int?) {
        self.sink = sink
        terminalWidth = width
    }

    mutating func beginResult(columns: [String]) throws {
        self.columns = columns.map(Self.oneLine)
        numeric = Array(repeating: true, count: columns.count)
    }

    mutating func beginRow() throws {
        row.removeAll(keepingCapacity: true)
    }

    mutating func null(column: Int) throws { cell("", isNumber: true) }
    mutating func integer(_ value: Int64, column: Int) throws { cell(String(value), isNumber: true) }
    mutating func double(_ value: Double, column: Int) throws { cell(String(value), isNumber: true) }
    mutating func text(_ utf8: UnsafeBufferPointer<UInt8>, column: Int) throws {
        cell(Self.oneLine(String(decoding: utf8, as: UTF8.self)), isNumber: false)
    }
    mutating func blob(_ bytes: UnsafeRawBufferPointer, column: Int) throws {
        cell("<BLOB \(bytes.count) bytes>", isNumber: false)
    }

    private mutating func cell(_ text: String, isNumber: Bool) {
        // A column of the sample holding text is left-aligned throughout.
        if widths == nil && !isNumber { numeric[row.count] = false }
        row.append(text)
    }

    mutating func endRow() throws {
        if let widths {
            try write(line(row, widths))
        } else {
            sample.append(row)
            if sample.count == Self.sampleRows { try startStreaming() }
        }
    }

    mutating func endResult() throws {
        if widths == nil { try startStreaming() }
        try write(border("└", "┴", "┘", widths!))
    }

    /// Sizes the columns from the header and the sample, writes both; later rows go straight out.
    private mutating func startStreaming() throws {
        var widths = columns.map(\.count)
        for row in sample {
            for (i, cell) in row.enumerated() { widths[i] = max(widths[i], cell.count) }
        }
        widths = widths.map { max($0, 1) }
        if let terminalWidth {
            // 3 columns per cell ("│ " and " ") plus the last "│".
            while widths.reduce(0, +) + 3 * widths.count + 1 > terminalWidth,
                  let widest = widths.indices.max(by: { widths[$0] < widths[$1] }),
                  widths[widest] > Self.minimumWidth {
                widths[widest] -= 1
            }
        }
        self.widths = widths
        var text = border("┌", "┬", "┐", widths)
        text += line(columns, widths, header: true)
        text += border("├", "┼", "┤", widths)
        for row in sample { text += line(row, widths) }
        sample = []
        try write(text)
    }

    private func border(_ left: String, _ middle: String, _ right: String, _ widths: [Int]) -> String {
        left + widths.map { String(repeating: "─", count: $0 + 2) }.joined(separator: middle) + right + "\n"
    }

    private func line(_ cells: [String], _ widths: [Int], header: Bool = false) -> String {
        var text = "│"
        for (i, cell) in cells.enumerated() {
            let width = widths[i]
            let shown = cell.count > width ? cell.prefix(width - 1) + "…" : Substring(cell)
            let pad = String(repeating: " ", count: width - shown.count)
            text += " " + (!header && numeric[i] ? pad + shown : shown + pad) + " │"
        }
        return text + "\n"
    }

    private func write(_ text: String) throws {
        var text = text
        try text.withUTF8 { try sink.write(UnsafeRawBufferPointer($0)) }
    }

    /// The text on one line: line ends and tabs as escapes, other control characters as `?`.
    static func oneLine(_ text: String) -> String {
        guard text.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F }) else { return text }
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F: out += "?"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
