/// The benchmark's tables, printed as Markdown so that they read the same in a terminal
/// and in a document.
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
            "| " + cells.enumerated().map { index, cell in
                cell + String(repeating: " ", count: widths[index] - cell.count)
            }.joined(separator: " | ") + " |"
        }
        var out = "### " + title + "\n\n" + line(header) + "\n"
        out += "|" + widths.map { String(repeating: "-", count: $0 + 2) }.joined(separator: "|") + "|\n"
        for row in rows { out += line(row) + "\n" }
        return out
    }
}

/// The main table: each figure beside its baseline from the same run, with the ratio.
struct ComparisonTable {
    private(set) var table = ReportTable(title: "Measurements (each beside a baseline from the same run)", header: [
        "#", "measurement", "size", "median", "spread", "n", "baseline", "baseline median", "baseline spread", "n",
        "vs baseline",
    ])

    mutating func add(_ number: String, _ measurement: String, size: String, _ figure: Figure?,
                      baseline name: String, _ baseline: Figure?) {
        table.add([
            number, measurement, size,
            figure?.medianText ?? "n/a", figure?.spreadText ?? "", figure.map { "\($0.samples.count)" } ?? "",
            name,
            baseline?.medianText ?? "n/a", baseline?.spreadText ?? "", baseline.map { "\($0.samples.count)" } ?? "",
            figure.flatMap { figure in baseline.map { figure.comparison(with: $0) } } ?? "n/a",
        ])
    }

    var rendered: String { table.rendered }
}
