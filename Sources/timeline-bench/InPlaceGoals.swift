import Foundation

/// The goals of a store whose checkpoint is read in place (opening reads only what its
/// first answer needs), judged on the figures the other sections measure, so that the gap
/// shows in every full run until that checkpoint exists.
enum InPlaceGoals {
    /// What the goals are judged on; `nil` where its section did not run.
    struct Inputs {
        /// The fastest repetition's median of one command at 1M rows (ns).
        var commandAtMillion: Double?
        /// Bytes per event resident once a 1M-event store is loaded.
        var residentPerEvent: Double?
        /// Opening a 1M-record store from its checkpoint to the first rows of a view (ns).
        var openToFirstRows: Double?
        /// The tool's processes: add-event and rows --timeline from the checkpoint, import into a new log.
        var tool: ToolBenchmark.Measured?
        /// Records in the logs the figures were measured on.
        var records: Int
        /// Events in the store whose memory was measured.
        var events: Int
    }

    /// The goals' rows; each is judged only at a million records (or events): a smaller
    /// log (`--quick`) says its figure, not judged.
    static func targets(_ inputs: Inputs) -> ReportTable {
        var targets = ReportTable.targets()
        let million = inputs.records >= 1_000_000
        let at = million ? "" : " (at \(Formatting.size(inputs.records)) records)"
        func judge(_ name: String, _ measured: String, met: Bool, judged: Bool = million) {
            if judged { targets.add(name, measured: measured, met: met) } else { targets.add([name, measured, "not judged"]) }
        }
        func time(_ name: String, _ nanoseconds: Double?, bound: Double) {
            guard let nanoseconds, nanoseconds.isFinite else { return targets.add(name, measured: "—", met: nil) }
            judge(name, Formatting.duration(nanoseconds: nanoseconds) + at, met: nanoseconds <= bound)
        }
        time("in place: opening a 1M-record store to the first rows of a view ≤ 10 ms", inputs.openToFirstRows, bound: 10e6)
        time("in place: add-event on a 1M-record store, the whole process ≤ 30 ms",
             inputs.tool?.addEvent.figure.median, bound: 30e6)
        time("in place: rows --timeline, the whole process with its printing ≤ 50 ms",
             inputs.tool?.rows.figure.median, bound: 50e6)
        time("in place: one command at 1M rows ≤ 3 µs", inputs.commandAtMillion, bound: 3_000)
        let resident = "in place: ≤ 150 B per event resident once everything is loaded"
        if let bytes = inputs.residentPerEvent, bytes.isFinite {
            let judged = inputs.events >= 1_000_000
            judge(resident, String(format: "%.0f B/event", bytes) + (judged ? "" : " (at \(Formatting.size(inputs.events)) events)"),
                  met: bytes <= 150, judged: judged)
        } else {
            targets.add(resident, measured: "—", met: nil)
        }
        let streamed = "a streamed import of 1M records: ≤ 200 MB peak, ≤ 1.5 s"
        if let imports = inputs.tool?.imports, !imports.times.isEmpty {
            let seconds = imports.figure.median
            judge(streamed, imports.figure.medianText + ", peak " + imports.peakText + at,
                  met: seconds <= 1.5e9 && imports.peakBytes <= 200_000_000)
        } else {
            targets.add(streamed, measured: "—", met: nil)
        }
        return targets
    }
}
