import TimelineCore
import TimelineKit
import Foundation

/// Measurement 10: `undo()` of the command just sent and `redo()` of it, on a store of N
/// rows on the main actor's executor, beside the send itself (the three alternated); and
/// `timeline history --event` on the replay log, beside `rows` with and without the checkpoint.
struct UndoBenchmark {
    struct Result {
        let rows: Int
        let send: Figure
        let undo: Figure
        let redo: Figure
        /// Commands the rules refused (a workload bug), not measured.
        let rejected: Int
        /// `history`, `rows` from the checkpoint, and `rows` without it (a full replay, as
        /// `history` is); `nil` without the tool.
        let history: (history: ToolBenchmark.Runs, rows: ToolBenchmark.Runs, fullReplay: ToolBenchmark.Runs)?
        let records: Int
    }

    let seed: UInt64
    let dates: DatePool
    let rows: Int
    let budget: SampleBudget
    /// The `timeline` executable, if it was built.
    let tool: String?
    /// The replay log (in the store's layout) of `records` records.
    let storePath: String
    let records: Int
    let directory: TemporaryDirectory
    let runs: Int
    let log: @Sendable (String) -> Void

    /// The event whose history is listed: the first one the workload adds.
    static let event = "e0"

    func run() async throws -> Result {
        log("undo: a store of \(Formatting.size(rows)) rows")
        let (send, undo, redo, rejected) = try await Self.measureUndo(rows: rows, seed: seed, dates: dates,
                                                                       budget: budget, log: log)
        return Result(rows: rows, send: send, undo: undo, redo: redo, rejected: rejected,
                      history: try tool.map(measureHistory), records: records)
    }

    /// Sends, undoes and redoes each command in turn, each timed on its own.
    @MainActor
    private static func measureUndo(rows: Int, seed: UInt64, dates: DatePool, budget: SampleBudget,
                                    log: @Sendable (String) -> Void) async throws
        -> (send: Figure, undo: Figure, redo: Figure, rejected: Int) {
        var (model, records) = OneCommandBenchmark.workload(rows: rows, seed: seed, dates: dates)
        let store = try TimelineStore(log: InMemoryEventLog(records: records), clock: ManualClock(BenchViews.now),
                                      views: BenchViews.definitions, executor: .mainActor)
        records = []
        log("undo: a command, its undo and its redo, \(Formatting.size(rows)) rows")
        var session = SamplingSession(budget)
        var undo = Samples(), redo = Samples(), rejected = 0
        while case let step = session.next(), step != .stop {
            let command = model.next(.interactive)
            let t0 = MonotonicClock.now()
            do { try await store.send(command) } catch .rejected {
                rejected += 1
                continue
            }
            let t1 = MonotonicClock.now()
            try await store.undo()
            let t2 = MonotonicClock.now()
            try await store.redo()
            let t3 = MonotonicClock.now()
            guard step == .measure else { continue }
            session.record(nanoseconds: t1 - t0)
            undo.append(nanoseconds: t2 - t1)
            redo.append(nanoseconds: t3 - t2)
        }
        return (Figure(.duration, session.samples), Figure(.duration, undo), Figure(.duration, redo), rejected)
    }

    /// `history --event` and `rows --timeline life` on a copy of the replay log, each from
    /// its checkpoint with a record after it (as any command that writes leaves it), and
    /// `rows` without it, the runs alternated.
    private func measureHistory(_ tool: String) throws
        -> (history: ToolBenchmark.Runs, rows: ToolBenchmark.Runs, fullReplay: ToolBenchmark.Runs) {
        let copy = try ToolBenchmark.LogCopy(of: storePath, at: directory.file("undo-store.jsonl"), tool: tool, log: log,
                                             section: "undo")
        _ = try ToolBenchmark.measure(tool, ["add-event", "--log", copy.path, "--timeline", "life",
                                             "--title", "After the checkpoint", "--date", "2026-12-01"])
        let historyArguments = ["history", "--event", Self.event, "--log", copy.path]
        var history = ToolBenchmark.Runs(), rows = ToolBenchmark.Runs(), fullReplay = ToolBenchmark.Runs()
        for index in 0..<runs {
            log("undo: history --event \(Self.event), run \(index + 1) of \(runs), and rows with and without the checkpoint")
            if index % 2 == 0 { history.add(try ToolBenchmark.measure(tool, historyArguments)) }
            rows.add(try ToolBenchmark.measure(tool, copy.rowsArguments))
            if index % 2 == 1 { history.add(try ToolBenchmark.measure(tool, historyArguments)) }
            copy.removeCheckpoint()
            fullReplay.add(try ToolBenchmark.measure(tool, copy.rowsArguments))
            try copy.restoreCheckpoint()
        }
        return (history, rows, fullReplay)
    }

    /// The targets of measurement 10: undo within 2× the command, history within 100 ms.
    static func targets(_ result: Result) -> ReportTable {
        var targets = ReportTable.targets()
        let at = result.rows >= 1_000_000 ? "" : " (at \(Formatting.size(result.rows)) rows)"
        let (factor, text) = result.undo.ratio(to: result.send)
        targets.add("undo of one command at 1M rows: ≤ 2× the command",
                    measured: String(text.dropLast()) + "; redo " + result.redo.medianText
                        + String(format: ", %.2f×)", result.redo.median / result.send.median) + at,
                    met: factor.isFinite ? factor <= 2 : nil)
        let name = "history --event of one event, 1M records, checkpoint beside: ≤ 100 ms"
        if case let (history, rows, fullReplay)? = result.history {
            let median = history.figure.median
            targets.add(name, measured: history.figure.medianText + ", peak " + history.peakText
                + String(format: " (%.2f×", median / rows.figure.median) + " rows --timeline life from the checkpoint, "
                + rows.figure.medianText + String(format: "; %.2f×", median / fullReplay.figure.median)
                + " rows without it, " + fullReplay.figure.medianText + ")"
                + (result.records >= 1_000_000 ? "" : " (at \(Formatting.size(result.records)) records)"),
                met: median <= 100_000_000)
        } else {
            targets.add(name, measured: "not measured (no timeline executable)", met: nil)
        }
        return targets
    }
}
