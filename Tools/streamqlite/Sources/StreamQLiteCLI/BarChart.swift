import Foundation

/// A report's weeks as a horizontal bar chart: text for the terminal or a pipe, SVG for a file.
///
/// A header names the columns; one row per week: its key, its first day, the bar, the value
/// (rounded to two decimals, written as the report's locale writes numbers); under the bars
/// a value axis with ticks at round numbers. A first or last week that the reported range
/// cuts is marked partial (`*`, a lighter bar in SVG) with how many of its days count, so
/// its smaller value does not read as a drop. Bars are scaled so the largest value fills
/// the room left; a value of 0 or below has no bar.
struct BarChart {
    var title: String
    var weeks: [WeeklyReport.Week]
    /// The column of values' heading (the SQL aggregate).
    var valueName = "value"
    /// The locale numbers are written for (nil: plain `1234.5`).
    var locale: String?

    private var largest: Double { weeks.map(\.number).max().map { max($0, 0) } ?? 0 }
    private var anyPartial: Bool { weeks.contains { $0.days < 7 } }

    /// A value as the chart writes it.
    func formatted(_ value: Double) -> String {
        guard let locale else { return BarChart.number(value) }
        return value.formatted(.number.locale(Locale(identifier: locale)).precision(.fractionLength(0...2)))
    }

    /// The axis: a round step giving about 4 to 8 ticks up to the largest value.
    var ticks: [Double] {
        guard largest > 0 else { return [0] }
        let raw = largest / 5
        let power = pow(10, floor(log10(raw)))
        let step = [1.0, 2, 2.5, 5, 10].map { $0 * power }.first { $0 >= raw } ?? 10 * power
        return stride(from: 0.0, through: largest * (1 + 1e-9), by: step).map { $0 }
    }

    /// The chart in `width` columns: with `unicode`, bars of `█` ending in an eighth block
    /// (`▏`…`▉`) for the fraction; without, bars of `#` (plain ASCII for pipes and files).
    func text(width: Int, unicode: Bool) -> String {
        guard !weeks.isEmpty else { return title + "\n(no rows)\n" }
        let mark = anyPartial ? 1 : 0
        let labelWidth = max(weeks.map(\.label.count).max()! + mark, 4)
        let texts = weeks.map { formatted($0.number) }
        let valueWidth = texts.map(\.count).max()!
        // label, 2 spaces, start (10), 2 spaces, bar, 1 space, value
        let room = max(1, width - labelWidth - valueWidth - 15)
        var out = title + "\n"
        out += pad("week", labelWidth) + "  " + pad("starts", 10) + "  " + valueName + "\n"
        for (week, text) in zip(weeks, texts) {
            let bar = Self.bar(week.number, of: largest, room: room, unicode: unicode)
            let label = week.label + (week.days < 7 ? "*" : "")
            out += pad(label, labelWidth) + "  " + week.start + "  " + bar.padding(room) + " "
            out += String(repeating: " ", count: valueWidth - text.count) + text + "\n"
        }
        out += axis(indent: labelWidth + 14, room: room, unicode: unicode)
        for week in weeks where week.days < 7 {
            out += "* \(week.label): a partial week, \(week.days) of its 7 days reported\n"
        }
        return out
    }

    /// The value axis under the bars: a line with a tick at each round value, the values under.
    private func axis(indent: Int, room: Int, unicode: Bool) -> String {
        guard largest > 0 else { return "" }
        var line = Array(repeating: unicode ? "─" : "-", count: room + 1)
        var labels = Array(repeating: Character(" "), count: room + 12)
        var free = 0
        for tick in ticks {
            let at = Int((tick / largest * Double(room)).rounded())
            line[min(at, room)] = unicode ? "┴" : "+"
            let text = formatted(tick)
            let start = max(0, at - text.count / 2)
            if start >= free && start + text.count <= labels.count {
                for (k, c) in text.enumerated() { labels[start + k] = c }
                free = start + text.count + 1
            }
        }
        let pad = String(repeating: " ", count: indent)
        return pad + line.joined() + "\n" + pad + String(labels).replacingOccurrences(of: "\\s+$", with: "", options: .regularExpression) + "\n"
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

    /// The fill of every bar of a whole week (the test of the SVG counts these pixels in a
    /// browser's screenshot), and of a partial week's.
    static let barColor = "#4e79a7"
    static let partialColor = "#a6bddb"
    static let rowHeight = 22
    static let barHeight = 16
    static let barRoom = 480
    /// Where the bars start: after the longest row label (7.5 px a character at 13 px),
    /// at least 170 px.
    var labelRoom: Int {
        let longest = weeks.map { ($0.dates ?? $0.label + "  " + $0.start).count + 1 }.max() ?? 0
        return max(170, 22 + Int((Double(longest) * 7.5).rounded(.up)))
    }
    static let top = 60

    /// The chart as a standalone SVG 1.1 document: a title, the column headings, then per
    /// week its dates as the report's locale writes them (its key and first day without a
    /// locale; both in the row's tooltip), a bar (`<title>` with week and value: a browser shows it on
    /// hover) and the value; then the value axis with its ticks and light grid lines, and the
    /// partial weeks' note.
    func svg() -> String {
        let width = labelRoom + Self.barRoom + 110
        let axisY = Self.top + weeks.count * Self.rowHeight + 4
        let notes = weeks.filter { $0.days < 7 }
        let height = axisY + 30 + notes.count * 18
        var out = """
            <?xml version="1.0" encoding="UTF-8"?>
            <svg xmlns="http://www.w3.org/2000/svg" version="1.1" width="\(width)" height="\(height)" viewBox="0 0 \(width) \(height)" font-family="sans-serif" font-size="13">
            <title>\(Self.escaped(title))</title>
            <rect x="0" y="0" width="\(width)" height="\(height)" fill="#ffffff"/>
            <text x="10" y="24" font-weight="bold">\(Self.escaped(title))</text>
            <text x="10" y="\(Self.top - 8)" fill="#555555">\(locale == nil ? "week  starts" : "week")</text>
            <text x="\(labelRoom)" y="\(Self.top - 8)" fill="#555555">\(Self.escaped(valueName))</text>

            """
        for tick in ticks where largest > 0 {
            let x = Self.number(Double(labelRoom) + tick / largest * Double(Self.barRoom))
            out += "<line class=\"grid\" x1=\"\(x)\" y1=\"\(Self.top - 4)\" x2=\"\(x)\" y2=\"\(axisY)\" stroke=\"#e4e4e4\" shape-rendering=\"crispEdges\"/>\n"
            out += "<line class=\"tick\" x1=\"\(x)\" y1=\"\(axisY)\" x2=\"\(x)\" y2=\"\(axisY + 5)\" stroke=\"#333333\" shape-rendering=\"crispEdges\"/>\n"
            out += "<text x=\"\(x)\" y=\"\(axisY + 18)\" text-anchor=\"middle\">\(Self.escaped(formatted(tick)))</text>\n"
        }
        out += "<line class=\"axis\" x1=\"\(labelRoom)\" y1=\"\(axisY)\" x2=\"\(labelRoom + Self.barRoom)\" y2=\"\(axisY)\" stroke=\"#333333\" shape-rendering=\"crispEdges\"/>\n"
        for (i, week) in weeks.enumerated() {
            let y = Self.top + i * Self.rowHeight
            let length = largest > 0 && week.number > 0 ? week.number / largest * Double(Self.barRoom) : 0
            let text = Self.escaped(formatted(week.number))
            let partial = week.days < 7
            let mark = partial ? "*" : ""
            out += "<text x=\"10\" y=\"\(y + 13)\"><title>\(Self.escaped(week.label))\(mark) \(week.start)</title>\(Self.escaped(week.dates ?? week.label + mark + "  " + week.start))\(week.dates == nil ? "" : mark)</text>\n"
            out += "<rect class=\"bar\(partial ? " partial" : "")\" x=\"\(labelRoom)\" y=\"\(y)\" width=\"\(Self.number(length))\" height=\"\(Self.barHeight)\" fill=\"\(partial ? Self.partialColor : Self.barColor)\"><title>\(Self.escaped(week.label)): \(text)\(partial ? " (partial week: \(week.days) of 7 days)" : "")</title></rect>\n"
            out += "<text x=\"\(Self.number(Double(labelRoom) + length + 6))\" y=\"\(y + 13)\">\(text)\(partial ? " (\(week.days) of 7 days)" : "")</text>\n"
        }
        for (i, week) in notes.enumerated() {
            out += "<text x=\"10\" y=\"\(axisY + 40 + i * 18)\" fill=\"#555555\">* \(Self.escaped(week.dates ?? week.label)): a partial week, \(week.days) of its 7 days reported</text>\n"
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
