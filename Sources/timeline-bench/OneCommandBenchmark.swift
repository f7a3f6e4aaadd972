import TimelineCore
import TimelineProjections
import TimelineKit

/// Measurement 1: the cost of one command with N rows already present, kept live in the
/// three views, through the pure pieces, through the store actor (on an executor of its
/// own and on the main actor's), and through the two baselines — all fed the same random
/// commands.
struct OneCommandBenchmark: Sendable {
    struct Result {
        let pure: Figure
        /// `TimelineStore.send` awaited from the main actor, as a front end would.
        let store: Figure
        /// `TimelineStore.send` awaited from a task off the main actor.
        let storeFromTask: Figure
        /// `TimelineStore.send` awaited from the main actor, on a store opened with
        /// `executor: .mainActor`; then once more on a fresh store after the baselines, so
        /// that a neighbour slowing the first run down decides less.
        let storeOnMainActor: Figure
        let storeOnMainActorAgain: Figure
        let sortedArray: Figure
        let resortDiff: Figure
        /// The pure pieces' stages, in the order of ``stageNames``.
        let stages: [Figure]
        let rejected: Int
        let changeSets: Int
    }

    static let stageNames = ["Decider.decide", "InMemoryEventLog.append", "TimelineProjection.apply"]
    /// The pure pieces' unmeasured commands, before the measured ones.
    static let pureWarmup = 50

    let seed: UInt64
    let dates: DatePool
    let commands: Int
    let quick: Bool
    let log: @Sendable (String) -> Void

    // Slow paths stop on a time budget: re-sorting a million rows gets a few samples only.
    private var seconds: Double { quick ? 1.5 : 6 }
    private var pureBudget: SampleBudget { SampleBudget(maximum: commands, minimum: 20, seconds: quick ? 2 : 8, warmup: Self.pureWarmup) }
    private var storeBudget: SampleBudget { SampleBudget(maximum: commands, minimum: 10, seconds: seconds, warmup: 50) }
    private var storeFromTaskBudget: SampleBudget { SampleBudget(maximum: commands, minimum: 10, seconds: seconds / 2, warmup: 10) }
    private var sortedArrayBudget: SampleBudget { SampleBudget(maximum: commands, minimum: 20, seconds: seconds, warmup: 50) }
    private var resortDiffBudget: SampleBudget { SampleBudget(maximum: quick ? 100 : 300, minimum: 3, seconds: seconds, warmup: 1) }

    func run(rows: Int) async throws -> Result {
        var (model, records) = Self.workload(rows: rows, seed: seed, dates: dates)
        let label = "one command, \(Formatting.size(rows)) rows"
        // The store runs twice: from the main actor, then from a task, on the commands after.
        let count = [pureBudget, storeBudget, storeFromTaskBudget, sortedArrayBudget, resortDiffBudget].map { $0.maximum + $0.warmup }
        let commands = (0..<max(count[1] + count[2], count.max()!)).map { _ in model.next(.interactive) }
        log("\(label) (\(Formatting.count(model.eventCount)) events): pure pieces")
        let (pure, stages, rejected, changeSets) = measurePure(records: records, commands: commands)
        log("\(label): TimelineStore on the main actor")
        let storeOnMainActor = try await measureStoreOnMainActor(records: records, commands: commands)
        log("\(label): TimelineStore actor")
        let (store, storeFromTask) = try await measureStore(records: records, commands: commands)
        log("\(label): baseline (a) sorted arrays")
        let sortedArray = Self.measureBaseline(budget: sortedArrayBudget, commands: commands) {
            SortedArrayBaseline(facts: records.lazy.flatMap(\.facts))
        } apply: { $0.apply($1) }
        log("\(label): baseline (b) re-sort and diff")
        let resortDiff = Self.measureBaseline(budget: resortDiffBudget, commands: commands) {
            ResortDiffBaseline(facts: records.lazy.flatMap(\.facts))
        } apply: { $0.apply($1) }
        log("\(label): TimelineStore on the main actor, once more")
        let storeOnMainActorAgain = try await measureStoreOnMainActor(records: records, commands: commands)
        return Result(pure: pure, store: store, storeFromTask: storeFromTask, storeOnMainActor: storeOnMainActor,
                      storeOnMainActorAgain: storeOnMainActorAgain, sortedArray: sortedArray, resortDiff: resortDiff,
                      stages: stages, rejected: rejected, changeSets: changeSets)
    }

    /// The workload of `rows` rows for `seed`: the model, to draw the commands after, and
    /// the records that made the rows. `--profile` and the repetitions measure the same
    /// commands on the same rows.
    static func workload(rows: Int, seed: UInt64, dates: DatePool) -> (model: WorkloadModel, records: [Record]) {
        var model = WorkloadModel(seed: seed &+ UInt64(rows), dates: dates)
        let setup = model.createPermanentTimelines() + model.populate(rows: rows)
        return (model, CommandFacts.records(of: setup))
    }

    /// Decider + InMemoryEventLog + TimelineProjection.apply, each stage timed.
    private func measurePure(records: [Record], commands: [Command]) -> (Figure, [Figure], rejected: Int, changeSets: Int) {
        var pieces = PurePieces(records: records)
        var session = SamplingSession(pureBudget)
        var stages = Array(repeating: Samples(), count: Self.stageNames.count)
        var rejected = 0, changeSets = 0
        for command in commands {
            let step = session.next()
            if step == .stop { break }
            guard let timing = pieces.send(command) else {
                rejected += 1
                continue
            }
            guard step == .measure else { continue }
            changeSets += timing.changeSets
            session.record(nanoseconds: timing.total)
            timing.record(into: &stages)
        }
        withExtendedLifetime(pieces) {}
        return (Figure(.duration, session.samples), stages.map { Figure(.duration, $0) }, rejected, changeSets)
    }

    /// `TimelineStore.send`, awaited from the main actor as a front end would (every call
    /// hops to the store and back), then from a task off the main actor on the commands after.
    @MainActor
    private func measureStore(records: [Record], commands: [Command]) async throws -> (Figure, Figure) {
        let store = try TimelineStore(log: InMemoryEventLog(records: records), clock: ManualClock(BenchViews.now),
                                      views: BenchViews.definitions)
        let (fromMainActor, used) = try await Self.send(commands[...], to: store, budget: storeBudget)
        let rest = commands[used...]
        let taskBudget = storeFromTaskBudget
        let fromTask = try await Task.detached { try await Self.send(rest, to: store, budget: taskBudget).figure }.value
        return (fromMainActor, fromTask)
    }

    /// `TimelineStore.send` awaited from the main actor, on a store that shares its executor.
    @MainActor
    private func measureStoreOnMainActor(records: [Record], commands: [Command]) async throws -> Figure {
        let store = try TimelineStore(log: InMemoryEventLog(records: records), clock: ManualClock(BenchViews.now),
                                      views: BenchViews.definitions, executor: .mainActor)
        return try await Self.send(commands[...], to: store, budget: storeBudget).figure
    }

    /// Sends commands one at a time from the caller's isolation; returns the timings and
    /// how far into `commands` it got.
    private static func send(
        _ commands: ArraySlice<Command>, to store: TimelineStore, budget: SampleBudget,
        isolation: isolated (any Actor)? = #isolation
    ) async throws -> (figure: Figure, end: Int) {
        var session = SamplingSession(budget)
        var end = commands.startIndex
        for (index, command) in zip(commands.indices, commands) {
            let step = session.next()
            if step == .stop { break }
            let t0 = MonotonicClock.now()
            _ = try await store.send(command)
            let t1 = MonotonicClock.now()
            if step == .measure { session.record(nanoseconds: t1 - t0) }
            end = index + 1
        }
        return (Figure(.duration, session.samples), end)
    }

    private static func measureBaseline<B>(budget: SampleBudget, commands: [Command], build: () -> B,
                                           apply: (inout B, Command) -> Int) -> Figure {
        var baseline = build()
        var session = SamplingSession(budget)
        var sink = 0
        for command in commands {
            let step = session.next()
            if step == .stop { break }
            let t0 = MonotonicClock.now()
            sink &+= apply(&baseline, command)
            let t1 = MonotonicClock.now()
            if step == .measure { session.record(nanoseconds: t1 - t0) }
        }
        withExtendedLifetime((baseline, sink)) {}
        return Figure(.duration, session.samples)
    }
}

/// The pure pieces of measurement 1: the decider, an in-memory log and the projection with
/// the three views, as a store holds them, fed one command at a time.
struct PurePieces {
    /// When one command's stages ended (``MonotonicClock`` readings), and how many change sets it made.
    struct Timing {
        var start, decided, appended, projected: UInt64
        var changeSets: Int

        var total: UInt64 { projected - start }

        /// Adds each stage's nanoseconds to its samples, in the order of ``OneCommandBenchmark/stageNames``.
        func record(into stages: inout [Samples]) {
            stages[0].append(nanoseconds: decided - start)
            stages[1].append(nanoseconds: appended - decided)
            stages[2].append(nanoseconds: projected - appended)
        }
    }

    private let eventLog: InMemoryEventLog
    private var projection: TimelineProjection

    init(records: [Record]) {
        eventLog = InMemoryEventLog(records: records)
        projection = TimelineProjection(records: records, views: BenchViews.definitions, now: BenchViews.now)
        // As in a store that nobody follows the summaries of: the three views are measured.
        projection.tracksSummaryChanges = false
    }

    /// Decides, appends and projects `command`; `nil` if the decider refuses it.
    @inline(__always)
    mutating func send(_ command: Command) -> Timing? {
        let t0 = MonotonicClock.now()
        let facts: [Fact]
        // Decided against the projection, as the store does: it holds the events once.
        do { facts = try Decider.decide(command, projection) } catch { return nil }
        let t1 = MonotonicClock.now()
        let appended: AppendResult
        do {
            appended = try eventLog.append(facts, options: AppendOptions(recordedAt: DateValue(utc: BenchViews.now)))
        } catch {
            fatalError("in-memory append failed: \(error)")
        }
        let t2 = MonotonicClock.now()
        let changes = projection.apply(appended.records)
        let t3 = MonotonicClock.now()
        return Timing(start: t0, decided: t1, appended: t2, projected: t3, changeSets: changes.rows.count)
    }
}

/// `--profile`, and the repetitions of measurement 1 in fresh processes: the pure pieces
/// alone, synchronously, on the commands and rows measurement 1 uses.
///
/// For callgrind (see `--help`), collection is on only in
/// ``profiledCommands(_:through:into:)``, so the count is the measured commands' alone;
/// `SWIFT_DETERMINISTIC_HASHING=1` keeps a dictionary's random seed from moving it.
enum CommandProfile {
    struct Outcome {
        var total = Samples()
        var stages = Array(repeating: Samples(), count: OneCommandBenchmark.stageNames.count)
        var rejected = 0
    }

    /// `--profile`: one line per size, the median command and the median of each stage, after 200 unmeasured.
    static func run(sizes: [Int], commands count: Int, seed: UInt64) -> [String] {
        let dates = DatePool(seed: seed)
        return sizes.map { rows in
            let outcome = measure(rows: rows, commands: count, warmup: 200, seed: seed, dates: dates)
            let stages = zip(OneCommandBenchmark.stageNames, outcome.stages).map { name, samples in
                name + " " + Formatting.duration(nanoseconds: samples.median)
            }
            return "\(Formatting.size(rows)) rows: median \(Formatting.duration(nanoseconds: outcome.total.median))"
                + " over \(outcome.total.count) command\(outcome.total.count == 1 ? "" : "s") ("
                + stages.joined(separator: ", ") + ")"
                + (outcome.rejected > 0 ? "; \(outcome.rejected) rejected (a workload bug)" : "")
        }
    }

    /// In a `--command-child` process: one repetition at each size, `rows=… median=…`.
    static func child(sizes: [Int], commands: Int, seed: UInt64) -> [String] {
        let dates = DatePool(seed: seed)
        return sizes.map { rows in
            let outcome = measure(rows: rows, commands: commands, warmup: OneCommandBenchmark.pureWarmup, seed: seed, dates: dates)
            return "rows=\(rows) median=\(outcome.total.median)"
        }
    }

    /// The pure pieces with `rows` rows present: `count` commands measured after `warmup` unmeasured.
    static func measure(rows: Int, commands count: Int, warmup: Int, seed: UInt64, dates: DatePool) -> Outcome {
        var (model, records) = OneCommandBenchmark.workload(rows: rows, seed: seed, dates: dates)
        var pieces = PurePieces(records: records)
        let commands = (0..<(warmup + count)).map { _ in model.next(.interactive) }
        for command in commands.prefix(warmup) { _ = pieces.send(command) }
        var outcome = Outcome()
        profiledCommands(commands.dropFirst(warmup), through: &pieces, into: &outcome)
        return outcome
    }

    /// Sends the measured commands through `pieces`: a function of its own, for a profiler to count alone.
    @inline(never)
    static func profiledCommands(_ commands: ArraySlice<Command>, through pieces: inout PurePieces,
                                 into outcome: inout Outcome) {
        for command in commands {
            guard let timing = pieces.send(command) else {
                outcome.rejected += 1
                continue
            }
            outcome.total.append(nanoseconds: timing.total)
            timing.record(into: &outcome.stages)
        }
    }
}

/// The pure pieces of measurement 1 measured again later in the run, each time in a fresh
/// process that starts from the same state whatever the run did before. Neighbours can
/// only slow a repetition down, so a target is judged on the fastest repetition's median.
struct CommandRepetitions {
    /// Each size's median command, one per repetition, the run's own first.
    private(set) var medians: [Int: [Double]] = [:]

    mutating func add(_ medians: [Int: Double]) {
        for (size, median) in medians { self.medians[size, default: []].append(median) }
    }

    func count(of size: Int) -> Int { medians[size]?.count ?? 0 }

    func best(of size: Int) -> Double? { medians[size]?.min() }

    /// Each size's medians: the run's own, those of the fresh processes, and the fastest.
    func table(sizes: [Int]) -> ReportTable {
        var table = ReportTable(title: "One command, pure pieces, repeated (medians)",
                                header: ["rows", "with measurement 1", "in fresh processes", "fastest"])
        func text(_ nanoseconds: Double) -> String { Formatting.duration(nanoseconds: nanoseconds) }
        for size in sizes {
            guard let medians = medians[size], let best = best(of: size) else { continue }
            table.add([Formatting.size(size) + " rows", text(medians[0]),
                       medians.dropFirst().map(text).joined(separator: ", "), text(best)])
        }
        return table
    }

    /// Measures every size of `sizes` once more, in a child process.
    mutating func repeatInChild(sizes: [Int], commands: Int, seed: UInt64) throws {
        let text = try ChildProcess.run(["--command-child", "--sizes", sizes.map(String.init).joined(separator: ","),
                                         "--commands", String(commands), "--seed", String(seed)],
                                        for: "a repetition of measurement 1")
        var measured: [Int: Double] = [:]
        for line in text.split(separator: "\n") {
            let fields = ChildProcess.fields(of: line)
            if let rows = fields["rows"], let median = fields["median"], rows > 0, median > 0 { measured[Int(rows)] = median }
        }
        guard Set(measured.keys) == Set(sizes) else {
            throw BenchFailure("a repetition of measurement 1 printed no median for every size: \(text)")
        }
        add(measured)
    }
}
