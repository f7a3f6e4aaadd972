import TimelineCore
import Foundation

/// One run of the benchmark: the sections the options ask for, in order, then the tables.
///
/// Progress goes to standard error; the tables go to standard output.
struct BenchmarkRun {
    let options: BenchOptions
    private let started = MonotonicClock.now()

    init(options: BenchOptions) { self.options = options }

    private var quick: Bool { options.quick }

    private func progress(_ message: String) {
        let seconds = Int(Double(MonotonicClock.now() - started) / 1e9)
        StandardError.write("… \(seconds / 60):" + (seconds % 60 < 10 ? "0" : "") + "\(seconds % 60) " + message)
    }

    /// The time targets' measurements still to repeat later in the run, and the times of
    /// those repeated so far.
    struct LaterRuns {
        var commands: Int
        var rebuilds = 0
        var openings = 0
        var rebuildTimes = Samples()
        var openingTimes = Samples()

        var anyLeft: Bool { commands > 0 || rebuilds > 0 || openings > 0 }
    }

    func run() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let dates = DatePool(seed: options.seed)
        var comparison = ReportTable.comparison()
        var stages = ReportTable(title: "Where one command's time goes (pure pieces, medians)", header:
            ["rows"] + OneCommandBenchmark.stageNames + ["total (median)", "change sets per command"])
        var notes: [String] = []

        // 1. One command.
        var commandResults: [Int: OneCommandBenchmark.Result] = [:]
        if options.sections.contains(.command) {
            let bench = OneCommandBenchmark(seed: options.seed, dates: dates, commands: options.commands, quick: quick,
                                            log: progress)
            for size in options.commandSizes {
                let result = try await bench.run(rows: size)
                commandResults[size] = result
                let label = Formatting.size(size) + " rows"
                comparison.add("1", "one command, pure pieces", size: label, result.pure,
                               baseline: "(a) sorted arrays, binary search", result.sortedArray)
                comparison.add("1", "one command, pure pieces", size: label, result.pure,
                               baseline: "(b) re-sort + difference(from:)", result.resortDiff)
                for (name, figure) in [("from the main actor", result.store), ("from a task", result.storeFromTask),
                                       ("on the main actor, from it", result.storeOnMainActor)] {
                    comparison.add("1", "one command, TimelineStore " + name, size: label, figure,
                                   baseline: "pure pieces (actor overhead)", result.pure)
                }
                stages.add([label] + result.stages.map { $0.medianText + " (" + $0.spreadText + ")" }
                    + [result.pure.medianText, String(format: "%.2f", Double(result.changeSets) / Double(max(result.pure.samples.count, 1)))])
                if result.rejected > 0 { notes.append("\(result.rejected) commands were rejected at \(label) (a workload bug)") }
            }
        }
        // The time targets are measured again later in the run (one command's pure pieces
        // in a fresh process each time), so that one noisy spell does not decide them.
        var repetitions = CommandRepetitions()
        repetitions.add(commandResults.mapValues(\.pure.median))
        var later = LaterRuns(commands: commandResults.isEmpty ? 0 : options.repetitions - 1)
        let storeLog = directory.file("store.jsonl"), handLog = directory.file("hand-written.jsonl")
        func repeatLater(after section: BenchOptions.Section) throws {
            if later.commands > 0 {
                let sizes = options.commandSizes
                progress("one command, pure pieces: repetition \(repetitions.count(of: sizes[0]) + 1) of "
                    + "\(options.repetitions) (fresh process)")
                later.commands -= 1
                do {
                    try repetitions.repeatInChild(sizes: sizes, commands: options.commands, seed: options.seed)
                } catch {
                    // The runs taken so far still decide; the notes say what is missing.
                    notes.append("One command's repetitions stopped: \(error)")
                    later.commands = 0
                }
            }
            // Not straight after the section that measured it: its own runs were just taken.
            if later.rebuilds > 0, section != .replay {
                progress("replay: LogReader + three views, once more")
                later.rebuildTimes.append(nanoseconds: try ReplayBenchmark.rebuildOnce(storePath: storeLog))
                later.rebuilds -= 1
            }
            if later.openings > 0, section != .replay, section != .open {
                progress("open: \(OpenStoreBenchmark.fromCheckpoint.name), once more")
                later.openingTimes.append(nanoseconds: try OpenStoreBenchmark.fromCheckpoint.time(storeLog))
                later.openings -= 1
            }
        }

        // 2. Replay and rebuild.
        var generated: GeneratedLog?
        func generateHistory() -> GeneratedLog {
            if let generated { return generated }
            progress("writing a log of \(Formatting.count(options.records)) records")
            let log = GeneratedLog.history(records: options.records, seed: options.seed, dates: dates,
                                           storePath: storeLog, handWrittenPath: handLog)
            generated = log
            notes.append("Replay log: \(Formatting.count(log.records)) records, \(Formatting.count(log.bytes / 1_000_000)) MB "
                + "in the store's layout, \(Formatting.count(log.events)) events alive at the end; "
                + "mix: \(log.mixDescription).")
            return log
        }
        var jsonDecoderTimes: Figure?
        var replay: ReplayBenchmark.Result?
        let recordsLabel = Formatting.size(options.records) + " records"
        if options.sections.contains(.replay) {
            let log = generateHistory()
            let result = try ReplayBenchmark(
                storePath: storeLog, handWrittenPath: handLog, runs: .runs(3, atLeast: 2, seconds: quick ? 5 : 30),
                baselineRuns: .runs(2, atLeast: 1, seconds: quick ? 3 : 6), log: progress).run()
            for (name, figure, baseline) in [("parse, store layout (LogReader)", result.parse, result.jsonDecoder),
                                             ("parse + 3 views (rebuild)", result.rebuild, result.jsonDecoder),
                                             ("parse, hand-written layout (any order)", result.handWrittenParse,
                                              result.handWrittenJSONDecoder)] {
                comparison.add("2", name, size: recordsLabel, figure, baseline: "JSONDecoder, line by line", baseline)
            }
            jsonDecoderTimes = Figure(.duration, Samples(result.jsonDecoder.samples.values.map { Double(log.records) / $0 * 1e9 }))
            replay = result
            later.rebuilds = options.repetitions - 1
        }
        try repeatLater(after: .replay)

        // 3. Opening a store.
        var withCheckpoints: Figure?
        if options.sections.contains(.open) {
            _ = generateHistory()
            if jsonDecoderTimes == nil {
                progress("open: JSONDecoder baseline")
                let bytes = FileWriter.readAll(storeLog)
                jsonDecoderTimes = Figure(.duration, Samples([Double(MonotonicClock.measure {
                    _ = try? JSONDecoderBaseline.decodeLines(bytes)
                }.nanoseconds)]))
            }
            let openings = try OpenStoreBenchmark(path: storeLog, runs: .runs(3, atLeast: 1, seconds: quick ? 3 : 15),
                                                  log: progress).run()
            comparison.add("3", "open store: full replay", size: recordsLabel, openings[0],
                           baseline: "JSONDecoder parse of the same file", jsonDecoderTimes)
            comparison.add("3", "open store: with checkpoints", size: recordsLabel, openings[1],
                           baseline: "open store: full replay", openings[0])
            withCheckpoints = openings[1]
            later.openings = options.repetitions - 1
        }
        try repeatLater(after: .open)

        // 4. Memory.
        var memory: MemoryBenchmark.Result?
        if options.sections.contains(.memory) {
            progress("writing a store's log of \(Formatting.count(options.events)) events")
            let path = directory.file("events.jsonl")
            let log = GeneratedLog.events(options.events, seed: options.seed &+ 1, dates: dates, storePath: path)
            notes.append("Memory log: \(Formatting.count(log.events)) events in \(Formatting.count(log.records)) records "
                + "(\(Formatting.count(log.bytes / 1_000_000)) MB).")
            let result = try MemoryBenchmark(path: path, runs: .runs(2, atLeast: 1, seconds: quick ? 3 : 20),
                                              log: progress).run()
            memory = result
            let label = Formatting.size(options.events) + " events"
            comparison.add("4", "store + 3 views: peak while opening", size: label, result.storePeak,
                           baseline: "sorted arrays of row structs: peak", result.baselinePeak)
            comparison.add("4", "store + 3 views: resident once open", size: label, result.storeResident,
                           baseline: "sorted arrays of row structs: resident", result.baselineResident)
        }
        try repeatLater(after: .memory)

        // 5. Durable appends.
        if options.sections.contains(.append) {
            let result = try DurableAppendBenchmark(directory: directory, seed: options.seed, dates: dates,
                                                    singles: quick ? 40 : 300, batches: quick ? 4 : 30,
                                                    log: progress).run()
            comparison.add("5", "durable append, one command", size: "—", result.single,
                           baseline: "raw write + fsync, same bytes", result.singleRaw)
            comparison.add("5", "durable append, batches of 1,000 commands", size: "—", result.batch,
                           baseline: "raw write + fsync, same bytes", result.batchRaw)
        }
        try repeatLater(after: .append)

        // 6. Processes on one log.
        var processes: ProcessBenchmark.Result?
        if options.sections.contains(.processes) {
            let result = try await ProcessBenchmark(directory: directory, appends: quick ? 60 : 400,
                                                    burst: quick ? 60 : 500, rounds: quick ? 1 : 3,
                                                    log: progress).run()
            processes = result
            comparison.add("6", "send → change set in another process", size: "—", result.latency,
                           baseline: "re-reading the file every 10 ms", result.pollingLatency)
            comparison.add("6", "send's start → change set in another process", size: "—", result.fromStart,
                           baseline: "re-reading the file every 10 ms", result.pollingFromStart)
            notes.append("Processes: \(result.early) of \(result.latency.samples.count) change sets (polling: "
                + "\(result.pollingEarly) of \(result.pollingLatency.samples.count)) arrived before the writer's send "
                + "returned, counted as 0; the row from the send's start includes the write and the fsync")
            comparison.add("6", "durable send, another process following", size: "—", result.followedSend,
                           baseline: "the same, nobody following", result.unfollowedSend)
            comparison.add("6", "two writer processes, commands/s together", size: "—", result.twoWriters,
                           baseline: "one writer process", result.oneWriter)
        }
        while later.anyLeft { try repeatLater(after: .append) }

        // 8. The timeline tool's commands as whole processes.
        let noTool = "there is no `timeline` executable beside this program; build it first (swift build -c release)."
        var tool: ReportTable?, toolRuns: ToolBenchmark.Measured?
        if options.sections.contains(.tool) {
            _ = generateHistory()
            if let executable = ToolBenchmark.builtTool() {
                toolRuns = try ToolBenchmark(tool: executable, storePath: storeLog, handWrittenPath: handLog,
                                             directory: directory, records: options.records, runs: 3, log: progress).run()
                tool = toolRuns?.table
            } else {
                tool = ToolBenchmark.notMeasured(records: options.records)
                notes.append("The timeline tool was not measured: " + noTool)
            }
        }
        // 9. Replicas of a shared log.
        var sync: SyncBenchmark.Result?
        if options.sections.contains(.sync) {
            // The quick run clones a small log of its own: it measures that it works, not the figure.
            let big = quick ? directory.file("sync-big.jsonl") : storeLog
            let records = quick
                ? GeneratedLog.history(records: 20_000, seed: options.seed, dates: dates, storePath: big,
                                       handWrittenPath: directory.file("sync-big-hand.jsonl")).records
                : generateHistory().records
            let result = try await SyncBenchmark(directory: directory, bigLog: big, bigLogRecords: records,
                                                 sends: quick ? 40 : 300, pending: quick ? 100 : 1_000,
                                                 log: progress).run()
            sync = result
            comparison.add("9", "a send on a replica (saved, not synced)", size: "—", result.replicaSend,
                           baseline: "a send on a plain file log", result.plainSend)
            comparison.add("9", "deciding pending submissions again", size: "\(result.pending)", result.rebase,
                           baseline: "deciding the same commands once", result.rebaseBaseline)
            comparison.add("9", "pushing pending submissions, one sync", size: "\(result.pending)", result.push,
                           baseline: "as many durable appends", result.pushBaseline)
            comparison.add("9", "a sync → change set on a follower", size: "—", result.syncToChange,
                           baseline: "a plain send → change set", result.sendToChange)
            comparison.add("9", "a fresh clone", size: Formatting.size(records) + " records", result.clone,
                           baseline: "reading the log once (open)", result.cloneBaseline)
        }
        // 10. Undo, redo and history.
        var undo: UndoBenchmark.Result?
        if options.sections.contains(.undo) {
            let log = generateHistory()
            let rows = options.commandSizes.max() ?? 10_000
            let result = try await UndoBenchmark(
                seed: options.seed, dates: dates, rows: rows,
                budget: SampleBudget(maximum: options.commands, minimum: 20, seconds: quick ? 1.5 : 6, warmup: 50),
                tool: ToolBenchmark.builtTool(), storePath: storeLog, records: log.records, directory: directory,
                runs: quick ? 2 : 5, log: progress).run()
            undo = result
            let label = Formatting.size(rows) + " rows"
            comparison.add("10", "undo of the command just sent", size: label, result.undo,
                           baseline: "the command itself (send)", result.send)
            comparison.add("10", "redo of that undo", size: label, result.redo,
                           baseline: "the command itself (send)", result.send)
            if case let (history, rowsRuns, fullReplay)? = result.history {
                let name = "timeline history --event \(UndoBenchmark.event) (process)"
                comparison.add("10", name, size: recordsLabel, history.figure,
                               baseline: "timeline rows --timeline life, checkpoint", rowsRuns.figure)
                comparison.add("10", name, size: recordsLabel, history.figure,
                               baseline: "the same rows without the checkpoint", fullReplay.figure)
            } else {
                notes.append("history was not measured: " + noTool)
            }
            if result.rejected > 0 { notes.append("\(result.rejected) commands were rejected in the undo measurement (a workload bug)") }
        }
        // 11. Folder mode.
        var folder: FolderBenchmark.Result?
        if options.sections.contains(.folder) {
            let big = directory.file("folder-read.jsonl")
            let records = GeneratedLog.history(records: quick ? 20_000 : 100_000, seed: options.seed, dates: dates,
                                               storePath: big, handWrittenPath: nil).records
            let result = try await FolderBenchmark(directory: directory, bigLog: big, bigLogRecords: records,
                                                   submissions: quick ? 100 : 1_000, rounds: quick ? 2 : 5,
                                                   log: progress).run()
            folder = result
            comparison.add("11", "the sequencer deciding submissions from the folder", size: "\(result.submissions)",
                           result.sequence, baseline: "a replica pushing them to a file log", result.sequenceBaseline)
            comparison.add("11", "a replica reading published segments (clone)", size: Formatting.size(records) + " records",
                           result.read, baseline: "a clone of the same file log", result.readBaseline)
            comparison.add("11", "a sealed segment arriving → change set on a replica", size: "—", result.arrival,
                           baseline: "a plain send → change set on a follower", result.arrivalBaseline)
        }
        // 12. Beside SQLite.
        var sqlite: SQLiteBenchmark.Result?
        if options.sections.contains(.sqlite) {
            if let executable = SQLiteBenchmark.executable() {
                let records = generateHistory().records
                let result = try await SQLiteBenchmark(sqlite: executable, storePath: storeLog, records: records,
                                                       directory: directory, runs: quick ? 3 : 7, log: progress).run()
                sqlite = result
                SQLiteBenchmark.add(result, to: &comparison, size: Formatting.size(result.rows) + " rows")
            } else {
                notes.append("SQLite was not measured: no sqlite3 on the PATH (apt-get install sqlite3).")
            }
        }
        var targets = Self.commandTargets(commandResults, repetitions)
        targets.append(Self.laterTargets(replay: replay, withCheckpoints: withCheckpoints, later: later,
                                         memory: memory, records: options.records, events: options.events))
        if let processes { targets.append(Self.processTargets(processes)) }
        if let sync { targets.append(SyncBenchmark.targets(sync)) }
        if let undo { targets.append(UndoBenchmark.targets(undo)) }
        if let folder { targets.append(FolderBenchmark.targets(folder)) }
        if options.sections.contains(.sqlite) { targets.append(SQLiteBenchmark.targets(sqlite)) }
        targets.append(InPlaceGoals.targets(InPlaceGoals.Inputs(
            commandAtMillion: repetitions.best(of: 1_000_000), residentPerEvent: memory?.storeResident.median,
            openToFirstRows: sqlite.map { Figure(.duration, $0.openTimeline).median }, tool: toolRuns,
            records: options.records, events: options.events)))

        print(comparison.rendered)
        if !stages.rows.isEmpty { print(stages.rendered) }
        if repetitions.count(of: options.commandSizes[0]) > 1 { print(repetitions.table(sizes: options.commandSizes).rendered) }
        if let tool { print(tool.rendered) }
        if !notes.isEmpty { print("### Notes\n\n" + notes.map { "- " + $0 }.joined(separator: "\n") + "\n") }
        print(targets.rendered)
    }

    /// The targets of measurement 1: the 1M figure from its fastest repetition, the 100k
    /// ratio from the run's own measurement, beside its baseline.
    static func commandTargets(_ results: [Int: OneCommandBenchmark.Result], _ repetitions: CommandRepetitions) -> ReportTable {
        var targets = ReportTable.targets()
        let million = "one command at 1M rows: median < 5 µs", ratio = "one command at 100k rows: ≥ 1,000× re-sort + diff"
        let mainActor = "one command from the main actor at 100k rows: median ≤ 10 µs"
        if let result = results[1_000_000], let best = repetitions.best(of: 1_000_000) {
            let medians = repetitions.medians[1_000_000] ?? []
            let each = medians.map { Formatting.duration(nanoseconds: $0) }.joined(separator: ", ")
            targets.add(million, measured: Formatting.duration(nanoseconds: best)
                + (medians.count > 1 ? " (fastest of \(medians.count) repetitions: \(each); " : " (")
                + "store actor " + result.store.medianText + ")", met: best < 5_000)
        } else {
            targets.add(million, measured: "—", met: nil)
        }
        guard let hundred = results[100_000] else {
            targets.add(ratio, measured: "—", met: nil)
            targets.add(mainActor, measured: "—", met: nil)
            return targets
        }
        let factor = hundred.pure.advantage(over: hundred.resortDiff)
        targets.add(ratio, measured: Formatting.factor(factor) + " (" + hundred.pure.medianText + " vs "
            + hundred.resortDiff.medianText + ")", met: factor >= 1_000)
        // Judged, as the other time targets, on the faster of its runs.
        let runs = [hundred.storeOnMainActor, hundred.storeOnMainActorAgain]
        let best = runs.map(\.median).min() ?? .nan
        targets.add(mainActor, measured: Formatting.duration(nanoseconds: best) + " on the main actor's executor (fastest of 2 runs: "
                        + runs.map(\.medianText).joined(separator: ", ") + "), "
                        + String(format: "%.1f×", best / hundred.pure.median) + " the pure pieces' "
                        + hundred.pure.medianText + " (store on its own executor: " + hundred.store.medianText + ")",
                    met: best.isFinite ? best <= 10_000 : nil)
        return targets
    }

    /// The targets of measurement 6.
    static func processTargets(_ result: ProcessBenchmark.Result) -> ReportTable {
        var targets = ReportTable.targets()
        let latency = result.latency, measured = !latency.samples.isEmpty
        targets.add("send → change set in another process: median ≤ 0.5 ms", measured: latency.medianText,
                    met: measured ? latency.median <= 500_000 : nil)
        targets.add("send → change set in another process: p99 ≤ 5 ms", measured: latency.format(latency.p99),
                    met: measured ? latency.p99 <= 5_000_000 : nil)
        let (factor, text) = result.followedSend.ratio(to: result.unfollowedSend)
        targets.add("durable send, another process following: ≤ 1.2× nobody following", measured: text,
                    met: factor.isFinite ? factor <= 1.2 : nil)
        return targets
    }

    /// The targets of measurements 2–4, each time target judged on its fastest run of
    /// those of its section and those repeated later (``Figure/best``).
    static func laterTargets(replay: ReplayBenchmark.Result?, withCheckpoints: Figure?, later: LaterRuns,
                             memory: MemoryBenchmark.Result?, records: Int, events: Int) -> ReportTable {
        var targets = ReportTable.targets()
        let rebuild = "rebuild of 1M records < 1.5 s (≥ 650k records/s)", factor = "rebuild ≥ 5× JSONDecoder"
        if let replay {
            let isMillion = replay.records >= 1_000_000
            let times = Figure(.duration, Samples(replay.rebuildTimes.samples.values + later.rebuildTimes.values))
            let best = times.best
            targets.add(rebuild, measured: times.format(best) + ", " + Formatting.rate(perSecond: Double(replay.records) / best * 1e9)
                            + fastest(of: times, later: later.rebuildTimes.count) + (isMillion ? "" : " (at \(Formatting.size(records)) records)"),
                        met: Double(replay.records) / best * 1e9 >= 650_000 && (!isMillion || best < 1.5e9))
            let advantage = replay.rebuild.advantage(over: replay.jsonDecoder)
            targets.add(factor, measured: Formatting.factor(advantage) + " (parse alone "
                + Formatting.factor(replay.parse.advantage(over: replay.jsonDecoder)) + ")", met: advantage >= 5)
        } else {
            targets.add(rebuild, measured: "—", met: nil)
            targets.add(factor, measured: "—", met: nil)
        }
        if let withCheckpoints {
            let times = Figure(.duration, Samples(withCheckpoints.samples.values + later.openingTimes.values))
            targets.add("open a store of \(Formatting.size(records)) records with checkpoints < 200 ms",
                        measured: times.format(times.best) + fastest(of: times, later: later.openingTimes.count),
                        met: times.best < 200_000_000)
        }
        targets.add("peak memory < 250 B/event", measured: memory.map {
            $0.storePeak.medianText + " peak at " + Formatting.size(events) + " events (" + $0.storeResident.medianText + " resident)"
        } ?? "—", met: memory.map { $0.storePeak.median < 250 })
        return targets
    }

    /// ` (fastest of 5 runs, 2 of them later in the run; median 1.15 s)` for a figure of
    /// repeated runs, judged on its best run; nothing for one run.
    private static func fastest(of figure: Figure, later: Int) -> String {
        let runs = figure.samples.count
        guard runs > 1 else { return "" }
        return " (fastest of \(runs) runs" + (later > 0 ? ", \(later) of them later in the run" : "")
            + "; median " + figure.medianText + ")"
    }
}
