import TimelineCore
import TimelineProjections

/// JSON text for the tool's output: strings escaped as in the log format.
enum JSONText {
    /// `text` as a JSON string: `"`, `\` and control characters escaped, everything
    /// else (non-ASCII included) as raw UTF-8.
    static func string(_ text: String) -> String {
        var result = "\""
        result.unicodeScalars.reserveCapacity(text.unicodeScalars.count + 2)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case "\u{08}": result += "\\b"
            case "\u{0C}": result += "\\f"
            case let scalar where scalar.value < 0x20:
                result += "\\u00" + hexDigit(scalar.value >> 4) + hexDigit(scalar.value & 0xF)
            default:
                result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }

    /// A string, or `null`.
    static func string(_ text: String?) -> String {
        text.map { string($0) } ?? "null"
    }

    /// An object with members in the given order; values are JSON already.
    static func object(_ members: KeyValuePairs<String, String>) -> String {
        "{" + members.map { string($0.key) + ":" + $0.value }.joined(separator: ",") + "}"
    }

    private static func hexDigit(_ value: UInt32) -> String {
        String(UnicodeScalar(UInt8(value < 10 ? 0x30 + value : 0x61 + value - 10)))
    }
}

/// Text for a table cell: control characters (a newline in a title) shown as escapes,
/// so that one row stays one line.
func displayText(_ text: String) -> String {
    guard text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else { return text }
    var result = ""
    for scalar in text.unicodeScalars {
        switch scalar {
        case "\n": result += "\\n"
        case "\r": result += "\\r"
        case "\t": result += "\\t"
        case let scalar where scalar.properties.generalCategory == .control:
            result += "\\u{" + String(scalar.value, radix: 16) + "}"
        default: result.unicodeScalars.append(scalar)
        }
    }
    return result
}

/// Lines of text in aligned columns; the last column is not padded.
struct TextTable {
    var header: [String]
    var rows: [[String]] = []

    init(header: [String]) { self.header = header }

    var widths: [Int] {
        header.indices.map { column in
            ([header] + rows).map { $0[column].count }.max() ?? 0
        }
    }

    func line(_ cells: [String], widths: [Int], indent: String = "") -> String {
        var line = indent
        for (column, cell) in cells.enumerated() {
            if column == cells.count - 1 {
                line += cell
            } else {
                line += cell + String(repeating: " ", count: widths[column] - cell.count + 2)
            }
        }
        while line.last == " " { line.removeLast() }
        return line + "\n"
    }

    func render() -> String {
        let widths = widths
        return ([header] + rows).map { line($0, widths: widths) }.joined()
    }
}

/// The rows of a view as the tool prints them: a table, or JSON Lines.
struct RowPrinter {
    var rows: RowList
    /// The sections, in list order, or empty for a view without sections.
    var sections: [RowSection]

    /// One JSON object per row, the contract's members in the contract's order.
    func json() -> String {
        var text = ""
        let names = sectionNames()
        for (index, row) in rows.enumerated() {
            text += Self.jsonObject(row, section: names?[index]) + "\n"
        }
        return text
    }

    /// A row as one JSON object: `event`, `timeline`, `title`, `kind`, `date`, and
    /// `section` when the view has sections, in that order.
    static func jsonObject(_ row: Row, section: String?) -> String {
        var text = "{\"event\":" + JSONText.string(row.event.rawValue)
        text += ",\"timeline\":" + JSONText.string(row.timeline.rawValue)
        text += ",\"title\":" + JSONText.string(row.title)
        text += ",\"kind\":" + JSONText.string(row.kind.rawValue)
        text += ",\"date\":" + JSONText.string(row.date?.text)
        if let section { text += ",\"section\":" + JSONText.string(section) }
        return text + "}"
    }

    /// An aligned table with a header line; with sections, a heading before each section.
    func table() -> String {
        guard !rows.isEmpty else { return "(no rows)\n" }
        var table = TextTable(header: ["KIND", "DATE", "TITLE", "TIMELINE"])
        for row in rows {
            table.rows.append([row.kind.rawValue, displayText(row.date?.text ?? "now"), displayText(row.title),
                               displayText(row.timeline.rawValue)])
        }
        guard !sections.isEmpty else { return table.render() }
        let widths = table.widths
        var text = table.line(table.header, widths: widths, indent: "  ")
        var next = 0
        for (number, section) in sections.enumerated() {
            // The counts always cover the rows; should they not, the last section takes the rest.
            let end = number == sections.count - 1 ? table.rows.count : min(table.rows.count, next + section.count)
            guard next < end else { continue }
            text += "\(section.title) (\(end - next) \(end - next == 1 ? "row" : "rows"))\n"
            for cells in table.rows[next..<end] { text += table.line(cells, widths: widths, indent: "  ") }
            next = end
        }
        return text
    }

    /// The section name of each row, in list order, or `nil` without sections.
    private func sectionNames() -> [String]? {
        guard !sections.isEmpty else { return nil }
        var names: [String] = []
        names.reserveCapacity(rows.count)
        for section in sections {
            names += repeatElement(section.title, count: section.count)
        }
        // The counts always cover the rows; should they not, the last section takes the rest.
        while names.count < rows.count { names.append(sections.last?.title ?? "") }
        return Array(names.prefix(rows.count))
    }
}
