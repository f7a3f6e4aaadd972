import Foundation

/// How figures are printed: durations with a unit that fits, rates, bytes, counts.
enum Formatting {
    /// `850 ns`, `3.42 µs`, `41.7 µs`, `12.3 ms`, `1.52 s`.
    static func duration(nanoseconds value: Double) -> String {
        guard value.isFinite else { return "—" }
        switch value {
        case ..<1_000: return String(format: "%.0f ns", value)
        case ..<10_000: return String(format: "%.2f µs", value / 1_000)
        case ..<1_000_000: return String(format: "%.1f µs", value / 1_000)
        case ..<1_000_000_000: return String(format: "%.1f ms", value / 1_000_000)
        default: return String(format: "%.2f s", value / 1_000_000_000)
        }
    }

    /// `1.23 M rec/s`, `412 k rec/s`.
    static func rate(perSecond value: Double) -> String {
        guard value.isFinite else { return "—" }
        if value >= 1_000_000 { return String(format: "%.2f M rec/s", value / 1_000_000) }
        if value >= 1_000 { return String(format: "%.0f k rec/s", value / 1_000) }
        return String(format: "%.0f rec/s", value)
    }

    /// `231 B/event`.
    static func bytesPerEvent(_ value: Double) -> String {
        value.isFinite ? String(format: "%.0f B/event", value) : "—"
    }

    /// `1,234×`, `5.2×`, `0.31×`.
    static func factor(_ value: Double) -> String {
        guard value.isFinite, value > 0 else { return "—" }
        if value >= 100 { return count(Int(value.rounded())) + "×" }
        return String(format: value >= 10 ? "%.0f×" : "%.1f×", value)
    }

    /// `1,000,000`.
    static func count(_ value: Int) -> String {
        let digits = String(value.magnitude)
        var out = value < 0 ? "-" : ""
        for (offset, character) in digits.enumerated() {
            if offset > 0, (digits.count - offset) % 3 == 0 { out.append(",") }
            out.append(character)
        }
        return out
    }

    /// `10k`, `100k`, `1M`, `20,000`.
    static func size(_ value: Int) -> String {
        if value >= 1_000_000, value % 1_000_000 == 0 { return "\(value / 1_000_000)M" }
        if value >= 1_000, value % 1_000 == 0 { return "\(value / 1_000)k" }
        return count(value)
    }
}

/// A table of the report, printed as Markdown so that it reads the same in a terminal and
/// in a document.
struct ReportTable {
    let title: String
    let header: [String]
    private(set) var rows: [[String]] = []

    init(title: String, header: [String]) {
        self.title = title
        self.header = header
    }

    mutating func add(_ row: [String]) {
        precondition(row.count == header.count, "a row of \(row.count) cells in a table of \(header.count) columns")
        rows.append(row)
    }

    var rendered: String {
        var widths = header.map(\.count)
        for row in rows { for (index, cell) in row.enumerated() { widths[index] = max(widths[index], cell.count) } }
        func line(_ cells: [String]) -> String {
            "| " + zip(cells, widths).map { $0 + String(repeating: " ", count: $1 - $0.count) }.joined(separator: " | ") + " |"
        }
        return "### " + title + "\n\n" + line(header) + "\n"
            + "|" + widths.map { String(repeating: "-", count: $0 + 2) }.joined(separator: "|") + "|\n"
            + rows.map { line($0) + "\n" }.joined()
    }

    /// The main table: each figure beside its baseline from the same run, with the ratio.
    static func comparison() -> ReportTable {
        ReportTable(title: "Measurements (each beside a baseline from the same run)", header: [
            "#", "measurement", "size", "median", "spread", "n", "baseline", "baseline median", "baseline spread", "n",
            "vs baseline",
        ])
    }

    /// A row of ``comparison()``.
    mutating func add(_ number: String, _ measurement: String, size: String, _ figure: Figure?,
                      baseline name: String, _ baseline: Figure?) {
        func cells(_ figure: Figure?) -> [String] {
            [figure?.medianText ?? "n/a", figure?.spreadText ?? "", figure.map { "\($0.samples.count)" } ?? ""]
        }
        add([number, measurement, size] + cells(figure) + [name] + cells(baseline)
            + [figure.flatMap { figure in baseline.map { figure.comparison(with: $0) } } ?? "n/a"])
    }

    /// The final table: each performance target, the figure measured for it, its result.
    static func targets() -> ReportTable { ReportTable(title: "Targets", header: ["target", "measured", "result"]) }

    /// A row of ``targets()``: PASS, MISS, or "not run" when `met` is nil.
    mutating func add(_ target: String, measured: String, met: Bool?) {
        add([target, measured, met.map { $0 ? "PASS" : "MISS" } ?? "not run"])
    }

    mutating func append(_ other: ReportTable) { rows += other.rows }
}

/// Progress messages, kept off standard output so that it holds only the tables.
enum StandardError {
    static func write(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }
}
