import TimelineCore
import TimelineProjections

/// JSON text for the tool's output: strings escaped as in the log format.
enum JSONText {
    /// `text` as a JSON string, escaped as the log escapes it (``JSONStringWriter``).
    static func string(_ text: String) -> String {
        JSONStringWriter.quoted(text)
    }

    /// A string, or `null`.
    static func string(_ text: String?) -> String {
        text.map { string($0) } ?? "null"
    }

    /// An object with members in the given order; values are JSON already.
    static func object(_ members: KeyValuePairs<String, String>) -> String {
        "{" + members.map { string($0.key) + ":" + $0.value }.joined(separator: ",") + "}"
    }
}

/// Text for a table cell: control characters (a newline in a title) shown as escapes,
/// so that one row stays one line; so are the line and paragraph separators, and the
/// bidirectional embeddings, overrides and isolates, which would reorder the rest of the
/// line on a terminal.
func displayText(_ text: String) -> String {
    guard hasControlCharacter(text) else { return text }
    var result = ""
    for scalar in text.unicodeScalars {
        switch scalar {
        case "\n": result += "\\n"
        case "\r": result += "\\r"
        case "\t": result += "\\t"
        case let scalar where scalar.properties.generalCategory == .control || isLayoutControl(scalar.value):
            result += "\\u{" + String(scalar.value, radix: 16) + "}"
        default: result.unicodeScalars.append(scalar)
        }
    }
    return result
}

/// Text in double quotes for a message line (what a command did): `"` and `\` escaped,
/// and the rest as ``displayText(_:)`` shows it in a table, so that a name reads the
/// same in both and cannot reorder or break the line.
func quotedDisplayText(_ text: String) -> String {
    "\"" + displayText(text.replacing("\\", with: "\\\\").replacing("\"", with: "\\\"")) + "\""
}

/// U+2028–U+202E (line and paragraph separators, bidirectional embeddings and overrides),
/// U+2066–U+2069 (bidirectional isolates), and the bidirectional marks U+061C, U+200E and
/// U+200F.
func isLayoutControl(_ value: UInt32) -> Bool {
    (0x2028...0x202E).contains(value) || (0x2066...0x2069).contains(value)
        || value == 0x061C || value == 0x200E || value == 0x200F
}

/// Whether `text` has a character of general category Cc (``hasControlCharacter(_:)-(UnsafeBufferPointer<UInt8>)``).
func hasControlCharacter(_ text: String) -> Bool {
    var text = text
    return text.withUTF8 { hasControlCharacter($0) }
}

/// Whether UTF-8 `bytes` have a character that ``displayText(_:)`` escapes: of general
/// category Cc (U+0000–U+001F, U+007F–U+009F: the C1 controls are 0xC2 0x80–0x9F), or
/// ``isLayoutControl(_:)``: U+061C (0xD8 0x9C), U+200E–U+200F (0xE2 0x80 0x8E–0x8F),
/// U+2028–U+202E (0xE2 0x80 0xA8–0xAE) or U+2066–U+2069 (0xE2 0x81 0xA6–0xA9).
private func hasControlCharacter(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
    for index in bytes.indices {
        let byte = bytes[index]
        if byte < 0x20 || byte == 0x7F { return true }
        if byte == 0xC2, index + 1 < bytes.count, bytes[index + 1] >= 0x80, bytes[index + 1] < 0xA0 { return true }
        if byte == 0xD8, index + 1 < bytes.count, bytes[index + 1] == 0x9C { return true }
        if byte == 0xE2, index + 2 < bytes.count {
            let second = bytes[index + 1], third = bytes[index + 2]
            if second == 0x80, third == 0x8E || third == 0x8F || (third >= 0xA8 && third <= 0xAE) { return true }
            if second == 0x81, third >= 0xA6, third <= 0xA9 { return true }
        }
    }
    return false
}

/// Lines of text in aligned columns; the last column is not padded. Widths count the
/// cells a terminal shows (``DisplayWidth``), not characters.
///
/// The cells are kept as one run of UTF-8 with each cell's end and width, measured once
/// as it is added: a table of a large view prints without a string per cell.
struct TextTable: Sendable {
    var header: [String]
    /// Every cell's UTF-8, row after row.
    private var text: [UInt8] = []
    /// Where each cell ends in ``text``; the cells of row `r` are `r * columns ..< (r + 1) * columns`.
    private var ends: [Int] = []
    /// The cells each cell takes on a terminal.
    private var cellWidths: [Int] = []
    /// Whether to show colour: the header bold, and each row's ``colouredColumn`` in its
    /// entry of ``rowColours``.
    var colour = false
    /// An SGR colour (`32`: green) for each row, or `nil` for none; empty: none at all.
    var rowColours: [String?] = []
    /// The column that ``rowColours`` colour.
    var colouredColumn = 0

    init(header: [String]) { self.header = header }

    private var columns: Int { header.count }

    /// How many rows the table has.
    /// - Complexity: O(1).
    var rowCount: Int { ends.count / max(1, columns) }

    /// Appends a cell to the row being added: `text` with control characters escaped
    /// (``displayText(_:)``). A row is complete after as many cells as the header has.
    /// - Complexity: O(*m*) for *m* bytes.
    mutating func appendCell(_ text: String) {
        var cell = text
        cell.withUTF8 { appendCell(utf8: $0) }
    }

    /// ``appendCell(_:)`` for text given as its UTF-8 bytes.
    mutating func appendCell(utf8 bytes: UnsafeBufferPointer<UInt8>) {
        if hasControlCharacter(bytes) {
            appendCell(displayed: displayText(String(decoding: bytes, as: UTF8.self)))
        } else {
            appendCell(displayedBytes: bytes)
        }
    }

    /// Appends a cell whose text has no control characters.
    private mutating func appendCell(displayed text: String) {
        var text = text
        text.withUTF8 { appendCell(displayedBytes: $0) }
    }

    private mutating func appendCell(displayedBytes bytes: UnsafeBufferPointer<UInt8>) {
        text.append(contentsOf: bytes)
        // The last column is not padded: its width is measured only to fit the table to a
        // width (``widths``), not for every row printed.
        let last = columns > 0 && ends.count % columns == columns - 1
        ends.append(text.count)
        cellWidths.append(last ? Self.unmeasured : DisplayWidth.of(utf8: bytes))
    }

    private static let unmeasured = -1

    /// The width of cell `index`.
    private func width(ofCell index: Int) -> Int {
        let width = cellWidths[index]
        return width == Self.unmeasured ? DisplayWidth.of(cell(index)) : width
    }

    /// Appends a row of `cells`, one for each column (``appendCell(_:)``).
    mutating func appendRow(_ cells: [String]) {
        precondition(cells.count == columns, "a row has a cell for each column")
        for cell in cells { appendCell(cell) }
    }

    /// The rows' cells, as shown (control characters escaped).
    /// - Complexity: O(*c*) for *c* bytes of text in the table.
    var rows: [[String]] {
        get {
            (0..<rowCount).map { row in (0..<columns).map { cell(row * columns + $0) } }
        }
        set {
            text = []
            ends = []
            cellWidths = []
            for row in newValue { appendRow(row) }
        }
    }

    private func cell(_ index: Int) -> String {
        String(decoding: text[(index == 0 ? 0 : ends[index - 1])..<ends[index]], as: UTF8.self)
    }

    /// The widest cell of each column, header included.
    /// - Complexity: O(*r*) for *r* cells.
    var widths: [Int] { widths(measuringLast: true) }

    /// ``widths``, but 0 for the last column, which is not padded and so not measured.
    var paddingWidths: [Int] { widths(measuringLast: false) }

    private func widths(measuringLast: Bool) -> [Int] {
        var widths = header.map { DisplayWidth.of($0) }
        guard columns > 0 else { return widths }
        if !measuringLast { widths[columns - 1] = 0 }
        for index in cellWidths.indices where measuringLast || index % columns != columns - 1 {
            let width = width(ofCell: index)
            if width > widths[index % columns] { widths[index % columns] = width }
        }
        return widths
    }

    /// Appends one line's UTF-8, padded to `widths`, without padding after its last
    /// non-empty cell (a cell's own spaces are kept).
    private func appendLine(cells: Int, text cellText: (Int) -> ArraySlice<UInt8>, width: (Int) -> Int,
                            widths: [Int], indent: String, colour code: String?, to bytes: inout [UInt8]) {
        var end = bytes.count
        bytes.append(contentsOf: indent.utf8)
        for column in 0..<cells {
            let text = cellText(column)
            if let code, column == colouredColumn || code == Self.bold {
                bytes.append(contentsOf: "\u{1B}[\(code)m".utf8)
                bytes.append(contentsOf: text)
                bytes.append(contentsOf: "\u{1B}[0m".utf8)
            } else {
                bytes.append(contentsOf: text)
            }
            if !text.isEmpty { end = bytes.count }
            if column < cells - 1 {
                bytes.append(contentsOf: repeatElement(0x20, count: max(0, widths[column] - width(column)) + 2))
            }
        }
        bytes.removeSubrange(end...)
        bytes.append(0x0A)
    }

    /// The header's line.
    func headerLine(widths: [Int], indent: String = "") -> String {
        let cells = header.map { Array($0.utf8)[...] }
        var bytes: [UInt8] = []
        appendLine(cells: cells.count, text: { cells[$0] }, width: { DisplayWidth.of(header[$0]) }, widths: widths,
                   indent: indent, colour: colour ? Self.bold : nil, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends the lines of rows `range`.
    func appendRowLines(_ range: Range<Int>, widths: [Int], indent: String = "", to bytes: inout [UInt8]) {
        for row in range {
            let first = row * columns
            appendLine(cells: columns, text: { text[(first + $0 == 0 ? 0 : ends[first + $0 - 1])..<ends[first + $0]] },
                       width: { cellWidths[first + $0] }, widths: widths, indent: indent, colour: rowColour(row),
                       to: &bytes)
        }
    }

    private func rowColour(_ index: Int) -> String? {
        colour && index < rowColours.count ? rowColours[index] : nil
    }

    static let bold = "1"

    /// The lines of every row (no header), padded to `widths`.
    /// - Complexity: O(*c*) for *c* bytes of text in the table.
    func renderedRows(widths: [Int]) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.count + rowCount * (2 * columns + 1))
        appendRowLines(0..<rowCount, widths: widths, to: &bytes)
        return bytes
    }

    /// The header and every row.
    /// - Complexity: O(*c*) for *c* bytes of text in the table.
    func render() -> String {
        let widths = paddingWidths
        var bytes = Array(headerLine(widths: widths).utf8)
        bytes.reserveCapacity(bytes.count + text.count + rowCount * (2 * columns + 1))
        appendRowLines(0..<rowCount, widths: widths, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Cuts the cells of `columns`, in that order, with "…" until the lines (after
    /// `indent` cells) fit in `width` cells; a column is never cut below
    /// ``minimumCutWidth`` cells or its header, so a very narrow terminal still gets lines
    /// longer than it.
    mutating func fit(to width: Int, cutting cutColumns: [Int], indent: Int = 0) {
        var widths = widths
        var excess = indent + widths.reduce(0, +) + 2 * (widths.count - 1) - width
        var limits = [Int?](repeating: nil, count: columns)
        for column in cutColumns where excess > 0 {
            let floor = max(Self.minimumCutWidth, DisplayWidth.of(header[column]))
            let cut = min(excess, widths[column] - floor)
            guard cut > 0 else { continue }
            widths[column] -= cut
            excess -= cut
            limits[column] = widths[column]
        }
        guard limits.contains(where: { $0 != nil }) else { return }
        var cut = TextTable(header: header)
        for index in ends.indices {
            if let limit = limits[index % columns], self.width(ofCell: index) > limit {
                cut.appendCell(displayed: DisplayWidth.truncate(cell(index), to: limit))
            } else {
                cut.appendCell(displayedBytes: text[(index == 0 ? 0 : ends[index - 1])..<ends[index]])
            }
        }
        (text, ends, cellWidths) = (cut.text, cut.ends, cut.cellWidths)
    }

    private mutating func appendCell(displayedBytes bytes: ArraySlice<UInt8>) {
        bytes.withUnsafeBufferPointer { appendCell(displayedBytes: $0) }
    }

    static let minimumCutWidth = 10
}

/// The rows of a view as the tool prints them: a table, or JSON Lines.
struct RowPrinter {
    var rows: RowList
    /// The sections, in list order, or empty for a view without sections.
    var sections: [RowSection]
    /// On a replica, the events whose shown value rests on a pending submission: each row
    /// then says whether it is one (`"pending"` in JSON, `*` after the kind in a table).
    var pending: Set<EventID>? = nil

    /// One JSON object per row, the contract's members in the contract's order.
    ///
    /// A long list is written in parts at the same time, one per processor.
    func json() -> String {
        let names = sectionNames()
        let rows = rows, parts = partRanges, pending = pending
        return Self.joined(concurrentMap(parts.count) { part in
            var bytes: [UInt8] = []
            bytes.reserveCapacity(parts[part].count * 112)
            var index = parts[part].lowerBound
            rows.forEachRowText(in: parts[part]) { row in
                row.withTitleBytes { title in
                    Self.appendJSONObject(event: row.event.rawValue, timeline: row.timeline.rawValue, title: title,
                                          kind: row.kind, date: row.date, section: names?[index],
                                          pending: pending.map { $0.contains(row.event) }, to: &bytes)
                }
                bytes.append(0x0A)
                index += 1
            }
            return bytes
        })
    }

    /// The parts' UTF-8 as one string, copied once (the parts hold valid UTF-8: they are
    /// made of strings and of titles' bytes, which are checked where they come from).
    static func joined(_ parts: [[UInt8]]) -> String {
        String(unsafeUninitializedCapacity: parts.reduce(0) { $0 + $1.count }) { buffer in
            var at = 0
            for part in parts {
                _ = UnsafeMutableBufferPointer(rebasing: buffer[at..<(at + part.count)]).initialize(from: part)
                at += part.count
            }
            return at
        }
    }

    /// A row as one JSON object: `event`, `timeline`, `title`, `kind`, `date`, and
    /// `section` when the view has sections, in that order.
    static func jsonObject(_ row: Row, section: String?) -> String {
        var bytes: [UInt8] = []
        appendJSONObject(row, section: section, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends ``jsonObject(_:section:)``'s text as UTF-8.
    static func appendJSONObject(_ row: Row, section: String?, pending: Bool? = nil, to bytes: inout [UInt8]) {
        var title = row.title
        title.withUTF8 { title in
            appendJSONObject(event: row.event.rawValue, timeline: row.timeline.rawValue, title: title, kind: row.kind,
                             date: row.date, section: section, pending: pending, to: &bytes)
        }
    }

    /// Appends the JSON object of a row with these parts, the title as its UTF-8 bytes.
    private static func appendJSONObject(event: String, timeline: String, title: UnsafeBufferPointer<UInt8>,
                                         kind: RowKind, date: DateValue?, section: String?, pending: Bool? = nil,
                                         to bytes: inout [UInt8]) {
        bytes.append(contentsOf: #"{"event":"#.utf8)
        appendJSONString(event, to: &bytes)
        bytes.append(contentsOf: #","timeline":"#.utf8)
        appendJSONString(timeline, to: &bytes)
        bytes.append(contentsOf: #","title":"#.utf8)
        appendJSONString(utf8: title, to: &bytes)
        bytes.append(contentsOf: #","kind":"#.utf8)
        appendJSONString(kind.rawValue, to: &bytes)
        bytes.append(contentsOf: #","date":"#.utf8)
        if let date { appendJSONString(date.text, to: &bytes) } else { bytes.append(contentsOf: "null".utf8) }
        if let section {
            bytes.append(contentsOf: #","section":"#.utf8)
            appendJSONString(section, to: &bytes)
        }
        if let pending { bytes.append(contentsOf: (pending ? #","pending":true"# : #","pending":false"#).utf8) }
        bytes.append(0x7D)
    }

    /// Appends `text` as a JSON string, escaped as ``JSONText/string(_:)-(String)`` escapes it.
    static func appendJSONString(_ text: String, to bytes: inout [UInt8]) {
        var text = text
        text.withUTF8 { appendJSONString(utf8: $0, to: &bytes) }
    }

    /// ``appendJSONString(_:to:)`` for text given as its UTF-8 bytes.
    static func appendJSONString(utf8: UnsafeBufferPointer<UInt8>, to bytes: inout [UInt8]) {
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

    /// An aligned table with a header line; with sections, a heading before each section.
    /// With a `width`, cut to fit it (titles first, then timeline and event ids); with
    /// `colour`, the kinds in colour.
    func table(width: Int? = nil, colour: Bool = false) -> String {
        guard !rows.isEmpty else { return "(no rows)\n" }
        if width == nil, sections.isEmpty, pending == nil { return tableInParts(colour: colour) }
        var table = Self.table(of: rows, colour: colour, pending: pending)
        let indent = sections.isEmpty ? 0 : 2
        if let width { table.fit(to: width, cutting: [4, 2, 3], indent: indent) }
        guard !sections.isEmpty else { return table.render() }
        let widths = table.paddingWidths
        var bytes = Array(table.headerLine(widths: widths, indent: "  ").utf8)
        var next = 0
        for (number, section) in sections.enumerated() {
            // The counts always cover the rows; should they not, the last section takes the rest.
            let end = number == sections.count - 1 ? table.rowCount : min(table.rowCount, next + section.count)
            guard next < end else { continue }
            let heading = "\(displayText(section.title)) (\(end - next) \(end - next == 1 ? "row" : "rows"))"
            bytes.append(contentsOf: ((colour ? "\u{1B}[1m" + heading + "\u{1B}[0m" : heading) + "\n").utf8)
            table.appendRowLines(next..<end, widths: widths, indent: "  ", to: &bytes)
            next = end
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static let header = ["KIND", "DATE", "TIMELINE", "EVENT", "TITLE"]

    /// The table of the rows at `positions` (all by default), not yet fitted to a width.
    private static func table(of rows: RowList, in positions: Range<Int>? = nil, colour: Bool,
                              pending: Set<EventID>? = nil) -> TextTable {
        var table = TextTable(header: header)
        table.colour = colour
        rows.forEachRowText(in: positions) { row in
            table.appendCell(row.kind.rawValue + (pending?.contains(row.event) == true ? "*" : ""))
            table.appendCell(row.date?.text ?? "now")
            table.appendCell(row.timeline.rawValue)
            table.appendCell(row.event.rawValue)
            row.withTitleBytes { table.appendCell(utf8: $0) }
            if colour { table.rowColours.append(Self.colour(of: row.kind)) }
        }
        return table
    }

    /// How many rows a part of a long list has at least (``partRanges``).
    static let rowsPerPart = 16_384

    /// The rows' positions in parts made at the same time, one per processor: a list of
    /// fewer than two parts' rows is one part.
    private var partRanges: [Range<Int>] {
        let parts = max(1, min(ProcessInfoCount.active, rows.count / Self.rowsPerPart))
        return (0..<parts).map { rows.count * $0 / parts ..< rows.count * ($0 + 1) / parts }
    }

    /// ``table(width:colour:)`` of a list without sections or a width to fit: its parts
    /// are made and then written at the same time, with the widest cells of all of them.
    private func tableInParts(colour: Bool) -> String {
        let rows = rows, parts = partRanges
        var lines: [[UInt8]]
        do {
            // The parts' cells go once their lines are written, before the lines are joined.
            let made = concurrentMap(parts.count) { Self.table(of: rows, in: parts[$0], colour: colour) }
            var widths = made[0].paddingWidths
            for table in made.dropFirst() {
                for (column, width) in table.paddingWidths.enumerated() { widths[column] = max(widths[column], width) }
            }
            lines = [Array(made[0].headerLine(widths: widths).utf8)]
            lines += concurrentMap(parts.count) { [widths] in made[$0].renderedRows(widths: widths) }
        }
        return Self.joined(lines)
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
