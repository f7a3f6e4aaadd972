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

    func run() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let dates = DatePool(seed: options.seed)
        var comparison = ComparisonTable()
        var stages = ReportTable(title: "Where one command's time goes (pure pieces, medians)", header:
            ["rows"] + OneCommandBenchmark.stageNames + ["total (median)", "change sets per command"])
        var notes: [String] = []

        // 1. One command.
        var commandResults: [Int: OneCommandBenchmark.Result] = [:]
        if options.sections.contains(.command) {
            let commands = options.commands
            // Slow paths stop on a time budget; re-sorting a million rows is slow enough that
            // a few samples are all it gets.
            let seconds: Double = quick ? 1.5 : 6
            let bench = OneCommandBenchmark(
                seed: options.seed, dates: dates,
                pureBudget: OneCommandBenchmark.pureBudget(commands: commands, quick: quick),
                storeBudget: SampleBudget(maximum: commands, minimum: 10, seconds: seconds, warmup: 50),
                storeFromTaskBudget: SampleBudget(maximum: commands, minimum: 10, seconds: seconds / 2, warmup: 10),
                storeOnMainActorBudget: SampleBudget(maximum: commands, minimum: 10, seconds: seconds, warmup: 50),
                sortedArrayBudget: SampleBudget(maximum: commands, minimum: 20, seconds: seconds, warmup: 50),
                resortDiffBudget: SampleBudget(maximum: quick ? 100 : 300, minimum: 3, seconds: seconds, warmup: 1),
                log: progress)
            for size in options.commandSizes {
                let result = try await bench.run(rows: size)
                commandResults[size] = result
                let label = Formatting.size(size) + " rows"
                comparison.add("1", "one command, pure pieces", size: label, result.pure,
                               baseline: "(a) sorted arrays, binary search", result.sortedArray)
                comparison.add("1", "one command, pure pieces", size: label, result.pure,
                               baseline: "(b) re-sort + difference(from:)", result.resortDiff)
                comparison.add("1", "one command, TimelineStore from the main actor", size: label, result.store,
                               baseline: "pure pieces (actor overhead)", result.pure)
                comparison.add("1", "one command, TimelineStore from a task", size: label, result.storeFromTask,
                               baseline: "pure pieces (actor overhead)", result.pure)
                comparison.add("1", "one command, TimelineStore on the main actor, from it", size: label,
                               result.storeOnMainActor, baseline: "pure pieces (actor overhead)", result.pure)
                stages.add([label] + result.stages.map { $0.figure.medianText + " (" + $0.figure.spreadText + ")" }
                    + [result.pure.medianText, Formatting.decimal(Double(result.changeSets) / Double(max(result.pure.samples.count, 1)))])
                if result.rejected > 0 { notes.append("\(result.rejected) commands were rejected at \(label) (a workload bug)") }
            }
        }
        // Measurements of the time targets repeated later in the run (one command's pure
        // pieces in a fresh process each time), so that one noisy spell does not decide them.
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
            if later.openings > 0, section != .replay, section != .open, let opener = later.opener, let open = opener.open {
                progress("open: \(opener.name), once more")
                later.openingTimes.append(nanoseconds: try OpenStoreBenchmark.timeOpening(storeLog, with: open))
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
                storePath: storeLog, handWrittenPath: handLog,
                runs: .runs(3, atLeast: 2, seconds: quick ? 5 : 30),
                baselineRuns: .runs(2, atLeast: 1, seconds: quick ? 3 : 6), log: progress).run()
            comparison.add("2", "parse, store layout (LogReader)", size: recordsLabel, result.parse,
                           baseline: "JSONDecoder, line by line", result.jsonDecoder)
            comparison.add("2", "parse + 3 views (rebuild)", size: recordsLabel, result.rebuild,
                           baseline: "JSONDecoder, line by line", result.jsonDecoder)
            comparison.add("2", "parse, hand-written layout (any order)", size: recordsLabel, result.handWrittenParse,
                           baseline: "JSONDecoder, line by line", result.handWrittenJSONDecoder)
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
            let fullReplay = openings.first?.figure
            for (index, opening) in openings.enumerated() {
                if index == 0 {
                    comparison.add("3", "open store: " + opening.name, size: recordsLabel, opening.figure,
                                   baseline: "JSONDecoder parse of the same file", jsonDecoderTimes)
                } else {
                    comparison.add("3", "open store: " + opening.name, size: recordsLabel, opening.figure,
                                   baseline: "open store: full replay", fullReplay)
                }
            }
            withCheckpoints = openings.count > 1 ? openings.last?.figure : nil
            if withCheckpoints != nil, let opener = OpenStoreBenchmark.openers.last, opener.open != nil {
                later.opener = opener
                later.openings = options.repetitions - 1
            }
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
        var tool: ReportTable?
        if options.sections.contains(.tool) {
            _ = generateHistory()
            if let executable = ToolBenchmark.builtTool() {
                tool = try ToolBenchmark(tool: executable, storePath: storeLog, handWrittenPath: handLog,
                                         directory: directory, records: options.records, runs: 3, log: progress).run()
            } else {
                tool = ToolBenchmark.notMeasured(records: options.records)
                notes.append("The timeline tool was not measured: there is no `timeline` executable beside this "
                    + "program; build it first (swift build -c release).")
            }
        }
        // 9. Replicas of a shared log.
        var sync: SyncBenchmark.Result?
        if options.sections.contains(.sync) {
            let big = quick ? directory.file("sync-big.jsonl") : storeLog
            let records: Int
            if quick {
                // A small log of its own: the quick run measures that it works, not the figure.
                records = GeneratedLog.history(records: 20_000, seed: options.seed, dates: dates, storePath: big,
                                               handWrittenPath: directory.file("sync-big-hand.jsonl")).records
            } else {
                records = generateHistory().records
            }
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
            let tool = ToolBenchmark.builtTool()
            let rows = options.commandSizes.max() ?? 10_000
            let result = try await UndoBenchmark(
                seed: options.seed, dates: dates, rows: rows,
                budget: SampleBudget(maximum: options.commands, minimum: 20, seconds: quick ? 1.5 : 6, warmup: 50),
                tool: tool, storePath: storeLog, records: log.records, directory: directory, runs: quick ? 2 : 5,
                log: progress).run()
            undo = result
            let label = Formatting.size(rows) + " rows"
            comparison.add("10", "undo of the command just sent", size: label, result.undo,
                           baseline: "the command itself (send)", result.send)
            comparison.add("10", "redo of that undo", size: label, result.redo,
                           baseline: "the command itself (send)", result.send)
            if case let (history, rowsRuns, fullReplay)? = result.history {
                comparison.add("10", "timeline history --event \(result.event) (process)", size: recordsLabel,
                               history.figure, baseline: "timeline rows --timeline life, checkpoint", rowsRuns.figure)
                comparison.add("10", "timeline history --event \(result.event) (process)", size: recordsLabel,
                               history.figure, baseline: "the same rows without the checkpoint", fullReplay.figure)
            } else {
                notes.append("history was not measured: there is no `timeline` executable beside this program; "
                    + "build it first (swift build -c release).")
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
        var targets = Self.commandTargets(commandResults, repetitions)
        targets.append(Self.laterTargets(replay: replay, withCheckpoints: withCheckpoints, later: later,
                                         memory: memory, records: options.records, events: options.events))
        if let processes { targets.append(Self.processTargets(processes)) }
        if let sync { targets.append(SyncBenchmark.targets(sync)) }
        if let undo { targets.append(UndoBenchmark.targets(undo)) }
        if let folder { targets.append(FolderBenchmark.targets(folder)) }

        print(comparison.rendered)
        if !stages.rows.isEmpty { print(stages.rendered) }
        if repetitions.count(of: options.commandSizes[0]) > 1 { print(repetitions.table(sizes: options.commandSizes).rendered) }
        if let tool { print(tool.rendered) }
        if !notes.isEmpty { print("### Notes\n\n" + notes.map { "- " + $0 }.joined(separator: "\n") + "\n") }
        print(targets.rendered)
    }

    /// The targets of measurement 1: the 1M figure from its fastest repetition, the 100k
    /// ratio from the run's own measurement, beside its baseline.
    static func commandTargets(_ results: [Int: OneCommandBenchmark.Result],
                                       _ repetitions: CommandRepetitions) -> TargetSummary {
        var targets = TargetSummary()
        if let million = results[1_000_000], let best = repetitions.best(of: 1_000_000) {
            let medians = repetitions.medians[1_000_000] ?? []
            let each = medians.map { Formatting.duration(nanoseconds: $0) }.joined(separator: ", ")
            targets.add("one command at 1M rows: median < 5 µs", measured: Formatting.duration(nanoseconds: best)
                + (medians.count > 1 ? " (fastest of \(medians.count) repetitions: \(each); " : " (")
                + "store actor " + million.store.medianText + ")", met: best < 5_000)
        } else {
            targets.add("one command at 1M rows: median < 5 µs", measured: "—", met: nil)
        }
        if let hundred = results[100_000] {
            let factor = hundred.pure.advantage(over: hundred.resortDiff)
            targets.add("one command at 100k rows: ≥ 1,000× re-sort + diff", measured: Formatting.factor(factor)
                + " (" + hundred.pure.medianText + " vs " + hundred.resortDiff.medianText + ")", met: factor >= 1_000)
            // Judged, as the other time targets, on the faster of its runs.
            let runs = [hundred.storeOnMainActor, hundred.storeOnMainActorAgain]
            let best = runs.map(\.median).min() ?? .nan
            targets.add("one command from the main actor at 100k rows: median ≤ 10 µs",
                        measured: Formatting.duration(nanoseconds: best) + " on the main actor's executor (fastest of 2 runs: "
                            + runs.map(\.medianText).joined(separator: ", ") + "), "
                            + String(format: "%.1f×", best / hundred.pure.median) + " the pure pieces' "
                            + hundred.pure.medianText + " (store on its own executor: " + hundred.store.medianText + ")",
                        met: best.isFinite ? best <= 10_000 : nil)
        } else {
            targets.add("one command at 100k rows: ≥ 1,000× re-sort + diff", measured: "—", met: nil)
            targets.add("one command from the main actor at 100k rows: median ≤ 10 µs", measured: "—", met: nil)
        }
        return targets
    }

    /// The targets of measurement 6.
    static func processTargets(_ result: ProcessBenchmark.Result) -> TargetSummary {
        var targets = TargetSummary()
        let latency = result.latency
        targets.add("send → change set in another process: median ≤ 0.5 ms", measured: latency.medianText,
                    met: latency.samples.isEmpty ? nil : latency.median <= 500_000)
        let p99 = latency.samples.isEmpty ? Double.nan : latency.samples.percentile(99)
        targets.add("send → change set in another process: p99 ≤ 5 ms", measured: latency.format(p99),
                    met: latency.samples.isEmpty ? nil : p99 <= 5_000_000)
        let factor = result.followedSend.median / result.unfollowedSend.median
        targets.add("durable send, another process following: ≤ 1.2× nobody following",
                    measured: String(format: "%.2f×", factor) + " (" + result.followedSend.medianText + " vs "
                        + result.unfollowedSend.medianText + ")", met: factor.isFinite ? factor <= 1.2 : nil)
        return targets
    }

    /// The measurements of the time targets still to repeat later in the run, and the
    /// times of those repeated so far.
    struct LaterRuns {
        var commands: Int
        var rebuilds = 0
        var openings = 0
        /// The way of opening whose target is on time: from a checkpoint.
        var opener: OpenStoreBenchmark.Opener?
        var rebuildTimes = Samples()
        var openingTimes = Samples()

        var anyLeft: Bool { commands > 0 || rebuilds > 0 || openings > 0 }
    }

    /// The targets of measurements 2–4, each time target judged on its fastest run of
    /// those of its section and those repeated later (``Figure/best``).
    static func laterTargets(replay: ReplayBenchmark.Result?, withCheckpoints: Figure?, later: LaterRuns,
                                     memory: MemoryBenchmark.Result?, records: Int, events: Int) -> TargetSummary {
        var targets = TargetSummary()
        if let replay {
            let isMillion = replay.records >= 1_000_000
            let times = Figure(.duration, Samples(replay.rebuildSeconds.samples.values + later.rebuildTimes.values))
            let best = times.best
            targets.add("rebuild of 1M records < 1.5 s (≥ 650k records/s)",
                        measured: times.format(best) + ", " + Formatting.rate(perSecond: Double(replay.records) / best * 1e9)
                            + fastest(of: times, later: later.rebuildTimes.count)
                            + (isMillion ? "" : " (at \(Formatting.size(records)) records)"),
                        met: Double(replay.records) / best * 1e9 >= 650_000 && (!isMillion || best < 1.5e9))
            let factor = replay.rebuild.advantage(over: replay.jsonDecoder)
            targets.add("rebuild ≥ 5× JSONDecoder", measured: Formatting.factor(factor) + " (parse alone "
                + Formatting.factor(replay.parse.advantage(over: replay.jsonDecoder)) + ")", met: factor >= 5)
        } else {
            targets.add("rebuild of 1M records < 1.5 s (≥ 650k records/s)", measured: "—", met: nil)
            targets.add("rebuild ≥ 5× JSONDecoder", measured: "—", met: nil)
        }
        if let withCheckpoints {
            let times = Figure(.duration, Samples(withCheckpoints.samples.values + later.openingTimes.values))
            targets.add("open a store of \(Formatting.size(records)) records with checkpoints < 200 ms",
                        measured: times.format(times.best) + fastest(of: times, later: later.openingTimes.count),
                        met: times.best < 200_000_000)
        }
        if let memory {
            targets.add("peak memory < 250 B/event", measured: memory.storePeak.medianText + " peak at "
                + Formatting.size(events) + " events (" + memory.storeResident.medianText + " resident)",
                met: memory.storePeak.median < 250)
        } else {
            targets.add("peak memory < 250 B/event", measured: "—", met: nil)
        }
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
