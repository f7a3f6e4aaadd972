/// The final table: each performance target, the figure measured for it, PASS or MISS.
struct TargetSummary {
    enum Status: String {
        case pass = "PASS"
        case miss = "MISS"
        case notRun = "not run"
    }

    private(set) var table = ReportTable(title: "Targets", header: ["target", "measured", "result"])

    mutating func add(_ target: String, measured: String, met: Bool?) {
        let status: Status = switch met {
        case true?: .pass
        case false?: .miss
        case nil: .notRun
        }
        table.add([target, measured, status.rawValue])
    }

    /// Adds the targets of `other` after these.
    mutating func append(_ other: TargetSummary) {
        for row in other.table.rows { table.add(row) }
    }

    var rendered: String { table.rendered }
}
