import TimelineCore
import TimelineProjections
import TimelineKit

/// Measurement 1: the cost of one command with N rows already present, kept live in the
/// three views, through the pure pieces, through the store actor (on an executor of its
/// own and on the main actor's), and through the two baselines — all fed the same random
/// commands.
struct OneCommandBenchmark: Sendable {
    struct Result {
        let rows: Int
        let events: Int
        let pure: Figure
        /// `TimelineStore.send` awaited from the main actor, as a front end would.
        let store: Figure
        /// `TimelineStore.send` awaited from a task off the main actor.
        let storeFromTask: Figure
        /// `TimelineStore.send` awaited from the main actor, on a store opened with
        /// `executor: .mainActor`.
        let storeOnMainActor: Figure
        /// The same once more, on a fresh store, after the baselines: a neighbour that
        /// slowed the first run down for a few seconds decides less.
        let storeOnMainActorAgain: Figure
        let sortedArray: Figure
        let resortDiff: Figure
        /// Medians of the pure path's stages: decide, evolve the state, append, project.
        let stages: [(name: String, figure: Figure)]
        let rejected: Int
        let changeSets: Int
    }

    static let stageNames = ["Decider.decide", "InMemoryEventLog.append", "TimelineProjection.apply"]

    let seed: UInt64
    let dates: DatePool
    let pureBudget: SampleBudget
    let storeBudget: SampleBudget
    let storeFromTaskBudget: SampleBudget
    let storeOnMainActorBudget: SampleBudget
    let sortedArrayBudget: SampleBudget
    let resortDiffBudget: SampleBudget
    let log: @Sendable (String) -> Void

    func run(rows: Int) async throws -> Result {
        var (model, records) = Self.workload(rows: rows, seed: seed, dates: dates)
        let events = model.eventCount
        // The store runs twice: from the main actor, then from a task, on the commands after.
        let commandCount = max(pureBudget.maximum + pureBudget.warmup,
                               storeBudget.maximum + storeBudget.warmup + storeFromTaskBudget.maximum + storeFromTaskBudget.warmup,
                               storeOnMainActorBudget.maximum + storeOnMainActorBudget.warmup,
                               sortedArrayBudget.maximum + sortedArrayBudget.warmup,
                               resortDiffBudget.maximum + resortDiffBudget.warmup)
        let commands = (0..<commandCount).map { _ in model.next(.interactive) }
        log("one command, \(Formatting.size(rows)) rows (\(Formatting.count(events)) events): pure pieces")

        let (pure, stages, rejected, changeSets) = measurePure(records: records, commands: commands)
        log("one command, \(Formatting.size(rows)) rows: TimelineStore on the main actor")
        let storeOnMainActor = try await measureStoreOnMainActor(records: records, commands: commands)
        log("one command, \(Formatting.size(rows)) rows: TimelineStore actor")
        let (store, storeFromTask) = try await measureStore(records: records, commands: commands)
        log("one command, \(Formatting.size(rows)) rows: baseline (a) sorted arrays")
        let sortedArray = measureBaseline(budget: sortedArrayBudget, commands: commands) {
            SortedArrayBaseline(facts: records.lazy.flatMap(\.facts), specs: BenchViews.baselineSpecs, now: BenchViews.now)
        } apply: { $0.apply($1) }
        log("one command, \(Formatting.size(rows)) rows: baseline (b) re-sort and diff")
        let resortDiff = measureBaseline(budget: resortDiffBudget, commands: commands) {
            ResortDiffBaseline(facts: records.lazy.flatMap(\.facts), specs: BenchViews.baselineSpecs, now: BenchViews.now)
        } apply: { $0.apply($1) }
        log("one command, \(Formatting.size(rows)) rows: TimelineStore on the main actor, once more")
        let storeOnMainActorAgain = try await measureStoreOnMainActor(records: records, commands: commands)
        return Result(rows: rows, events: events, pure: pure, store: store, storeFromTask: storeFromTask,
                      storeOnMainActor: storeOnMainActor, storeOnMainActorAgain: storeOnMainActorAgain, sortedArray: sortedArray,
                      resortDiff: resortDiff, stages: stages, rejected: rejected, changeSets: changeSets)
    }

    /// The workload of `rows` rows for `seed`: the model, to draw the commands after, and
    /// the records that made the rows. `--profile` measures the same commands on the same rows.
    static func workload(rows: Int, seed: UInt64, dates: DatePool) -> (model: WorkloadModel, records: [Record]) {
        var model = WorkloadModel(seed: seed &+ UInt64(rows), dates: dates)
        let setup = model.createPermanentTimelines() + model.populate(rows: rows)
        return (model, CommandFacts.records(of: setup))
    }

    /// The pure pieces' unmeasured commands, before the measured ones.
    static let pureWarmup = 50

    /// The budget of the pure pieces: `commands` measured at most, after ``pureWarmup``.
    static func pureBudget(commands: Int, quick: Bool) -> SampleBudget {
        SampleBudget(maximum: commands, minimum: 20, seconds: quick ? 2 : 8, warmup: pureWarmup)
    }

    /// Decider + InMemoryEventLog + TimelineProjection.apply, each stage timed.
    private func measurePure(records: [Record], commands: [Command])
        -> (Figure, [(name: String, figure: Figure)], rejected: Int, changeSets: Int) {
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
        return (Figure(.duration, session.samples), zip(Self.stageNames, stages).map { ($0, Figure(.duration, $1)) },
                rejected, changeSets)
    }

    /// `TimelineStore.send`, awaited from the main actor as a front end would (every call
    /// hops to the store and back), then from a task off the main actor; the second run
    /// goes on with the commands after the first one's.
    @MainActor
    private func measureStore(records: [Record], commands: [Command]) async throws -> (Figure, Figure) {
        let store = try TimelineStore(log: InMemoryEventLog(records: records), clock: ManualClock(BenchViews.now),
                                      views: BenchViews.definitions)
        let (fromMainActor, used) = try await Self.send(commands[...], to: store, budget: storeBudget)
        let rest = commands[used...]
        let taskBudget = storeFromTaskBudget
        let fromTask = try await Task.detached {
            try await Self.send(rest, to: store, budget: taskBudget).figure
        }.value
        return (fromMainActor, fromTask)
    }

    /// `TimelineStore.send` awaited from the main actor, on a store that shares the main
    /// actor's executor: the same commands as the first run of ``measureStore(records:commands:)``, measured before it.
    @MainActor
    private func measureStoreOnMainActor(records: [Record], commands: [Command]) async throws -> Figure {
        let store = try TimelineStore(log: InMemoryEventLog(records: records), clock: ManualClock(BenchViews.now),
                                      views: BenchViews.definitions, executor: .mainActor)
        return try await Self.send(commands[...], to: store, budget: storeOnMainActorBudget).figure
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

    private func measureBaseline<B>(budget: SampleBudget, commands: [Command], build: () -> B,
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
