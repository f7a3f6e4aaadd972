import Testing
@testable import timeline_bench

/// A time target is judged on its fastest run, wherever in the run that came.
@Suite("timeline-bench's targets")
struct BenchmarkTargetTests {
    static func durations(_ nanoseconds: [Double]) -> Figure { Figure(.duration, Samples(nanoseconds)) }

    @Test func aLaterRunUnderTheLimitMeetsTheTarget() {
        var later = BenchmarkRun.LaterRuns(commands: 0)
        later.rebuildTimes = Samples([1.2e9])
        later.openingTimes = Samples([150e6])
        let rates = Self.durations([1_000_000 / 1.6 * 1e9, 1_000_000 / 1.7 * 1e9])
        let replay = ReplayBenchmark.Result(records: 1_000_000, parse: Figure(.rate, Samples([2e6])),
                                            rebuild: Figure(.rate, rates.samples), rebuildSeconds: Self.durations([1.6e9, 1.7e9]),
                                            jsonDecoder: Figure(.rate, Samples([1e5])),
                                            handWrittenParse: Figure(.rate, Samples([1e6])),
                                            handWrittenJSONDecoder: Figure(.rate, Samples([1e5])))
        let targets = BenchmarkRun.laterTargets(replay: replay, withCheckpoints: Self.durations([210e6, 220e6]),
                                                later: later, memory: nil, records: 1_000_000, events: 1_000_000)
        let rows = targets.table.rows
        let rebuild = rows.first { $0[0].hasPrefix("rebuild of 1M records") }
        #expect(rebuild?[2] == "PASS")
        #expect(rebuild?[1].hasPrefix("1.20 s, 833 k rec/s (fastest of 3 runs, 1 of them later in the run; median 1.60 s)") == true,
                "\(rebuild ?? [])")
        let open = rows.first { $0[0].hasPrefix("open a store") }
        #expect(open?[2] == "PASS")
        #expect(open?[1] == "150.0 ms (fastest of 3 runs, 1 of them later in the run; median 210.0 ms)")

        // Without the later runs, the section's own runs decide: both miss.
        let alone = BenchmarkRun.laterTargets(replay: replay, withCheckpoints: Self.durations([210e6, 220e6]),
                                              later: BenchmarkRun.LaterRuns(commands: 0), memory: nil,
                                              records: 1_000_000, events: 1_000_000).table.rows
        #expect(alone.first { $0[0].hasPrefix("rebuild of 1M records") }?[2] == "MISS")
        #expect(alone.first { $0[0].hasPrefix("open a store") }?[2] == "MISS")
    }

    @Test func oneCommandIsJudgedOnItsFastestRepetition() {
        var repetitions = CommandRepetitions()
        repetitions.add([1_000_000: 6_100])
        repetitions.add([1_000_000: 4_800])
        repetitions.add([1_000_000: 5_200])
        let figure = Self.durations([6_100])
        let result = OneCommandBenchmark.Result(rows: 1_000_000, events: 800_000, pure: figure, store: Self.durations([9_000]),
                                                storeFromTask: figure, sortedArray: figure, resortDiff: figure, stages: [],
                                                rejected: 0, changeSets: 0)
        let rows = BenchmarkRun.commandTargets([1_000_000: result], repetitions).table.rows
        #expect(rows[0][2] == "PASS")
        #expect(rows[0][1] == "4.80 µs (fastest of 3 repetitions: 6.10 µs, 4.80 µs, 5.20 µs; store actor 9.00 µs)")
    }
}
