/// A report's weeks as a horizontal bar chart: text for the terminal or a pipe, SVG for a file.
///
/// One row per week: its label, its first day, the bar, the value. Bars are scaled so the
/// largest value fills the room left; a value of 0 or below has no bar.
struct BarChart {
    var title: String
    var weeks: [WeeklyReport.Week]

    private var largest: Double { weeks.map(\.number).max().map { max($0, 0) } ?? 0 }

    /// The chart in `width` columns: with `unicode`, bars of `█` ending in an eighth block
    /// (`▏`…`▉`) for the fraction; without, bars of `#` (plain ASCII for pipes and files).
    func text(width: Int, unicode: Bool) -> String {
        guard !weeks.isEmpty else { return title + "\n(no rows)\n" }
        let labelWidth = weeks.map(\.label.count).max()!
        let valueWidth = weeks.map(\.text.count).max()!
        // label, 2 spaces, start (10), 2 spaces, bar, 1 space, value
        let room = max(1, width - labelWidth - valueWidth - 15)
        var out = title + "\n"
        for week in weeks {
            let bar = Self.bar(week.number, of: largest, room: room, unicode: unicode)
            out += pad(week.label, labelWidth) + "  " + week.start + "  " + bar.padding(room) + " "
            out += String(repeating: " ", count: valueWidth - week.text.count) + week.text + "\n"
        }
        return out
    }

    static func bar(_ value: Double, of largest: Double, room: Int, unicode: Bool) -> String {
        guard largest > 0, value > 0 else { return "" }
        let length = value / largest * Double(room)
        if !unicode { return String(repeating: "#", count: Int(length.rounded())) }
        let eighths = Int((length * 8).rounded())
        let partial = ["", "▏", "▎", "▍", "▌", "▋", "▊", "▉"][eighths % 8]
        return String(repeating: "█", count: eighths / 8) + partial
    }

    private func pad(_ text: String, _ width: Int) -> String {
        text + String(repeating: " ", count: width - text.count)
    }

    // MARK: SVG

    /// The fill of every bar (the test of the SVG counts these pixels in a browser's screenshot).
    static let barColor = "#4e79a7"
    static let rowHeight = 22
    static let barHeight = 16
    static let barRoom = 480
    static let labelRoom = 170
    static let top = 40

    /// The chart as a standalone SVG 1.1 document: a title, then per week its label and first
    /// day, a bar `barColor` filled (`<title>` with week and value: a browser shows it on hover)
    /// and the value.
    func svg() -> String {
        let width = Self.labelRoom + Self.barRoom + 100
        let height = Self.top + weeks.count * Self.rowHeight + 10
        var out = """
            <?xml version="1.0" encoding="UTF-8"?>
            <svg xmlns="http://www.w3.org/2000/svg" version="1.1" width="\(width)" height="\(height)" viewBox="0 0 \(width) \(height)" font-family="sans-serif" font-size="13">
            <title>\(Self.escaped(title))</title>
            <rect x="0" y="0" width="\(width)" height="\(height)" fill="#ffffff"/>
            <text x="10" y="24" font-weight="bold">\(Self.escaped(title))</text>

            """
        for (i, week) in weeks.enumerated() {
            let y = Self.top + i * Self.rowHeight
            let length = largest > 0 && week.number > 0 ? week.number / largest * Double(Self.barRoom) : 0
            let text = Self.escaped(week.text)
            out += "<text x=\"10\" y=\"\(y + 13)\">\(Self.escaped(week.label))  \(week.start)</text>\n"
            out += "<rect class=\"bar\" x=\"\(Self.labelRoom)\" y=\"\(y)\" width=\"\(Self.number(length))\" height=\"\(Self.barHeight)\" fill=\"\(Self.barColor)\"><title>\(Self.escaped(week.label)): \(text)</title></rect>\n"
            out += "<text x=\"\(Self.number(Double(Self.labelRoom) + length + 6))\" y=\"\(y + 13)\">\(text)</text>\n"
        }
        return out + "</svg>\n"
    }

    /// A length with at most two decimals (`12`, `12.5`, `12.34`).
    static func number(_ value: Double) -> String {
        let rounded = (value * 100).rounded() / 100
        return rounded == rounded.rounded() ? String(Int(rounded)) : String(rounded)
    }

    static func escaped(_ text: String) -> String {
        var out = ""
        for c in text {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            default: out.append(c)
            }
        }
        return out
    }
}

private extension String {
    func padding(_ width: Int) -> String { self + String(repeating: " ", count: max(0, width - count)) }
}
