import TimelineCore

/// `--profile`: the pure pieces of measurement 1 alone, synchronously, at each size, for a
/// profiler or for comparing two builds.
///
/// On a shared machine, the reliable comparison of two builds is alternating runs of each,
/// pinned to one core (`taskset -c 1 timeline-bench --profile --sizes 1M`), a few pairs.
/// callgrind counts instructions repeatably (with `SWIFT_DETERMINISTIC_HASHING=1`: a
/// dictionary's random seed otherwise moves the count by up to 1 %); with collection on
/// only in ``profiledCommands(_:through:into:)``, the count is the measured commands' alone:
/// `SWIFT_DETERMINISTIC_HASHING=1 valgrind --tool=callgrind --collect-atstart=no
/// --toggle-collect='*profiledCommands*' timeline-bench --profile --sizes 100k --commands 500`.
enum CommandProfile {
    /// Commands sent before the measured ones, unmeasured.
    static let warmup = 200

    /// One line per size: the median command and the median of each stage.
    static func run(sizes: [Int], commands count: Int, seed: UInt64) -> [String] {
        let dates = DatePool(seed: seed)
        return sizes.map { rows in
            let outcome = measure(rows: rows, commands: count, warmup: warmup, seed: seed, dates: dates)
            let stages = zip(OneCommandBenchmark.stageNames, outcome.stages).map { name, samples in
                name + " " + Formatting.duration(nanoseconds: samples.median)
            }
            return "\(Formatting.size(rows)) rows: median \(Formatting.duration(nanoseconds: outcome.total.median))"
                + " over \(outcome.total.count) command\(outcome.total.count == 1 ? "" : "s") ("
                + stages.joined(separator: ", ") + ")"
                + (outcome.rejected > 0 ? "; \(outcome.rejected) rejected (a workload bug)" : "")
        }
    }

    /// The pure pieces alone with `rows` rows present: the commands measurement 1 sends
    /// them, `count` measured after `warmup` unmeasured.
    static func measure(rows: Int, commands count: Int, warmup: Int, seed: UInt64, dates: DatePool) -> Outcome {
        var (model, records) = OneCommandBenchmark.workload(rows: rows, seed: seed, dates: dates)
        var pieces = PurePieces(records: records)
        let commands = (0..<(warmup + count)).map { _ in model.next(.interactive) }
        for command in commands.prefix(warmup) { _ = pieces.send(command) }
        var outcome = Outcome()
        profiledCommands(commands.dropFirst(warmup), through: &pieces, into: &outcome)
        return outcome
    }

    /// The measured commands' timings.
    struct Outcome {
        var total = Samples()
        var stages = Array(repeating: Samples(), count: OneCommandBenchmark.stageNames.count)
        var rejected = 0
    }

    /// Sends `commands`, the measured ones, through `pieces`: a function of its own, so that
    /// a profiler can count it alone.
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
