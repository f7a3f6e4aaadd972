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
    guard hasControlCharacter(text) else { return text }
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

/// Whether `text` has a character of general category Cc: U+0000–U+001F and
/// U+007F–U+009F. Read from the UTF-8 bytes: the C1 controls are 0xC2 0x80–0x9F.
private func hasControlCharacter(_ text: String) -> Bool {
    var afterC2 = false
    for byte in text.utf8 {
        if byte < 0x20 || byte == 0x7F || (afterC2 && byte < 0xA0) { return true }
        afterC2 = byte == 0xC2
    }
    return false
}

/// Lines of text in aligned columns; the last column is not padded. Widths count the
/// cells a terminal shows (``DisplayWidth``), not characters.
struct TextTable {
    var header: [String]
    var rows: [[String]] = []
    /// Whether to show colour: the header bold, and each row's ``colouredColumn`` in its
    /// entry of ``rowColours``.
    var colour = false
    /// An SGR colour (`32`: green) for each row, or `nil` for none; empty: none at all.
    var rowColours: [String?] = []
    /// The column that ``rowColours`` colour.
    var colouredColumn = 0

    init(header: [String]) { self.header = header }

    /// The widest cell of each column, header included.
    /// - Complexity: O(*c*) for *c* bytes of text in the table.
    var widths: [Int] {
        var widths = header.map { DisplayWidth.of($0) }
        for row in rows {
            for column in widths.indices where column < row.count {
                widths[column] = max(widths[column], DisplayWidth.of(row[column]))
            }
        }
        return widths
    }

    func line(_ cells: [String], widths: [Int], indent: String = "", colour code: String? = nil) -> String {
        var bytes: [UInt8] = []
        appendLine(cells, widths: widths, indent: indent, colour: code, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends one line's UTF-8, padded to `widths`, without trailing spaces.
    func appendLine(_ cells: [String], widths: [Int], indent: String = "", colour code: String? = nil,
                    to bytes: inout [UInt8]) {
        let start = bytes.count
        bytes.append(contentsOf: indent.utf8)
        for (column, cell) in cells.enumerated() {
            if let code, column == colouredColumn || code == Self.bold {
                bytes.append(contentsOf: "\u{1B}[\(code)m".utf8)
                bytes.append(contentsOf: cell.utf8)
                bytes.append(contentsOf: "\u{1B}[0m".utf8)
            } else {
                bytes.append(contentsOf: cell.utf8)
            }
            if column < cells.count - 1 {
                bytes.append(contentsOf: repeatElement(0x20, count: max(0, widths[column] - DisplayWidth.of(cell)) + 2))
            }
        }
        while bytes.count > start, bytes.last == 0x20 { bytes.removeLast() }
        bytes.append(0x0A)
    }

    /// The header's line.
    func headerLine(widths: [Int], indent: String = "") -> String {
        line(header, widths: widths, indent: indent, colour: colour ? Self.bold : nil)
    }

    /// The line of row `index`.
    func rowLine(_ index: Int, widths: [Int], indent: String = "") -> String {
        line(rows[index], widths: widths, indent: indent, colour: rowColour(index))
    }

    /// Appends the lines of `rows` (indices into ``rows``).
    func appendRowLines(_ range: Range<Int>, widths: [Int], indent: String = "", to bytes: inout [UInt8]) {
        for index in range {
            appendLine(rows[index], widths: widths, indent: indent, colour: rowColour(index), to: &bytes)
        }
    }

    private func rowColour(_ index: Int) -> String? {
        colour && index < rowColours.count ? rowColours[index] : nil
    }

    static let bold = "1"

    /// The header and every row.
    /// - Complexity: O(*c*) for *c* bytes of text in the table.
    func render() -> String {
        let widths = widths
        var bytes = Array(headerLine(widths: widths).utf8)
        bytes.reserveCapacity(rows.count * (widths.reduce(0, +) + 2 * widths.count))
        appendRowLines(rows.indices, widths: widths, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Cuts the cells of `columns`, in that order, with "…" until the lines (after
    /// `indent` cells) fit in `width` cells; a column is never cut below
    /// ``minimumCutWidth`` cells or its header, so a very narrow terminal still gets lines
    /// longer than it.
    mutating func fit(to width: Int, cutting columns: [Int], indent: Int = 0) {
        var widths = widths
        var excess = indent + widths.reduce(0, +) + 2 * (widths.count - 1) - width
        for column in columns where excess > 0 {
            let floor = max(Self.minimumCutWidth, DisplayWidth.of(header[column]))
            let cut = min(excess, widths[column] - floor)
            guard cut > 0 else { continue }
            widths[column] -= cut
            excess -= cut
            for row in rows.indices {
                rows[row][column] = DisplayWidth.truncate(rows[row][column], to: widths[column])
            }
        }
    }

    static let minimumCutWidth = 10
}

/// The rows of a view as the tool prints them: a table, or JSON Lines.
struct RowPrinter {
    var rows: RowList
    /// The sections, in list order, or empty for a view without sections.
    var sections: [RowSection]

    /// One JSON object per row, the contract's members in the contract's order.
    func json() -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(rows.count * 96)
        let names = sectionNames()
        for (index, row) in rows.enumerated() {
            Self.appendJSONObject(row, section: names?[index], to: &bytes)
            bytes.append(0x0A)
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// A row as one JSON object: `event`, `timeline`, `title`, `kind`, `date`, and
    /// `section` when the view has sections, in that order.
    static func jsonObject(_ row: Row, section: String?) -> String {
        var bytes: [UInt8] = []
        appendJSONObject(row, section: section, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends ``jsonObject(_:section:)``'s text as UTF-8.
    static func appendJSONObject(_ row: Row, section: String?, to bytes: inout [UInt8]) {
        bytes.append(contentsOf: #"{"event":"#.utf8)
        appendJSONString(row.event.rawValue, to: &bytes)
        bytes.append(contentsOf: #","timeline":"#.utf8)
        appendJSONString(row.timeline.rawValue, to: &bytes)
        bytes.append(contentsOf: #","title":"#.utf8)
        appendJSONString(row.title, to: &bytes)
        bytes.append(contentsOf: #","kind":"#.utf8)
        appendJSONString(row.kind.rawValue, to: &bytes)
        bytes.append(contentsOf: #","date":"#.utf8)
        if let date = row.date { appendJSONString(date.text, to: &bytes) } else { bytes.append(contentsOf: "null".utf8) }
        if let section {
            bytes.append(contentsOf: #","section":"#.utf8)
            appendJSONString(section, to: &bytes)
        }
        bytes.append(0x7D)
    }

    /// Appends `text` as a JSON string, escaped as ``JSONText/string(_:)-(String)`` escapes it.
    static func appendJSONString(_ text: String, to bytes: inout [UInt8]) {
        var text = text
        text.withUTF8 { utf8 in
            if utf8.allSatisfy({ $0 >= 0x20 && $0 != 0x22 && $0 != 0x5C }) {
                bytes.append(0x22)
                bytes.append(contentsOf: utf8)
                bytes.append(0x22)
                return
            }
            let maximum = JSONStringWriter.maximumLength(utf8Count: utf8.count)
            let start = bytes.count
            bytes.append(contentsOf: repeatElement(0, count: maximum))
            let written = bytes.withUnsafeMutableBufferPointer { JSONStringWriter.write(utf8, to: $0.baseAddress! + start) }
            bytes.removeLast(maximum - written)
        }
    }

    /// An aligned table with a header line; with sections, a heading before each section.
    /// With a `width`, cut to fit it (titles first, then timeline and event ids); with
    /// `colour`, the kinds in colour.
    func table(width: Int? = nil, colour: Bool = false) -> String {
        guard !rows.isEmpty else { return "(no rows)\n" }
        var table = TextTable(header: ["KIND", "DATE", "TIMELINE", "EVENT", "TITLE"])
        table.colour = colour
        for row in rows {
            table.rows.append([row.kind.rawValue, displayText(row.date?.text ?? "now"),
                               displayText(row.timeline.rawValue), displayText(row.event.rawValue),
                               displayText(row.title)])
            table.rowColours.append(Self.colour(of: row.kind))
        }
        let indent = sections.isEmpty ? 0 : 2
        if let width { table.fit(to: width, cutting: [4, 2, 3], indent: indent) }
        guard !sections.isEmpty else { return table.render() }
        let widths = table.widths
        var bytes = Array(table.headerLine(widths: widths, indent: "  ").utf8)
        var next = 0
        for (number, section) in sections.enumerated() {
            // The counts always cover the rows; should they not, the last section takes the rest.
            let end = number == sections.count - 1 ? table.rows.count : min(table.rows.count, next + section.count)
            guard next < end else { continue }
            let heading = "\(displayText(section.title)) (\(end - next) \(end - next == 1 ? "row" : "rows"))"
            bytes.append(contentsOf: ((colour ? "\u{1B}[1m" + heading + "\u{1B}[0m" : heading) + "\n").utf8)
            table.appendRowLines(next..<end, widths: widths, indent: "  ", to: &bytes)
            next = end
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The SGR colour of a row's kind on a terminal.
    static func colour(of kind: RowKind) -> String {
        switch kind {
        case .single: "36"  // cyan
        case .start: "32"  // green
        case .end: "31"  // red
        case .ongoing: "33"  // yellow
        }
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
