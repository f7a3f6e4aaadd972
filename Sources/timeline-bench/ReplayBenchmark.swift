import TimelineCore
import TimelineProjections

/// Measurement 2: records per second when replaying a log — parsing alone
/// (`LogReader().read`), and parsing plus the three views
/// (`TimelineProjection(records:views:now:)`) — for the store's layout and for a
/// hand-written style log, beside `JSONDecoder` on the store's log.
struct ReplayBenchmark {
    struct Result {
        let records: Int
        let parse: Figure
        let rebuild: Figure
        /// Seconds to rebuild, for the target on the whole log.
        let rebuildSeconds: Figure
        let jsonDecoder: Figure
        let handWrittenParse: Figure
        let handWrittenJSONDecoder: Figure
    }

    let storePath: String
    let handWrittenPath: String
    /// Runs of the record reader and of rebuilding (each run reads the whole log).
    let runs: SampleBudget
    /// Runs of the JSONDecoder baseline, which is much slower.
    let baselineRuns: SampleBudget
    let log: @Sendable (String) -> Void

    func run() throws -> Result {
        let bytes = FileWriter.readAll(storePath)
        log("replay: LogReader on the store's layout")
        let parse = try rate(runs: runs) { () throws(LogReader.Failure) in try LogReader().read(bytes) }
        log("replay: LogReader + three views")
        var rebuildTimes = Samples()
        let rebuild = try rate(runs: runs, times: &rebuildTimes) { () throws(LogReader.Failure) in try Self.rebuild(bytes) }
        log("replay: JSONDecoder baseline")
        let jsonDecoder = try rate(runs: baselineRuns) { () throws in try JSONDecoderBaseline.decodeLines(bytes) }
        let records = try LogReader().read(bytes).records.count

        let handWritten = FileWriter.readAll(handWrittenPath)
        log("replay: LogReader on the hand-written layout")
        let handParse = try rate(runs: runs) { () throws(LogReader.Failure) in try LogReader().read(handWritten) }
        log("replay: JSONDecoder baseline on the hand-written layout")
        let handJSONDecoder = try rate(runs: baselineRuns) { () throws in try JSONDecoderBaseline.decodeLines(handWritten) }
        return Result(records: records, parse: parse, rebuild: rebuild, rebuildSeconds: Figure(.duration, rebuildTimes),
                      jsonDecoder: jsonDecoder, handWrittenParse: handParse, handWrittenJSONDecoder: handJSONDecoder)
    }

    /// What a rebuild makes of a log's bytes: the records read, and the three views.
    static func rebuild(_ bytes: [UInt8]) throws(LogReader.Failure) -> Rebuilt {
        let contents = try LogReader().read(bytes)
        return Rebuilt(contents: contents,
                       projection: TimelineProjection(records: contents.records, views: BenchViews.definitions,
                                                      now: BenchViews.now))
    }

    /// One more rebuild of the store's log, for a run later in the benchmark: its
    /// nanoseconds (reading the file and freeing what was built are not timed).
    static func rebuildOnce(storePath: String) throws -> UInt64 {
        let bytes = FileWriter.readAll(storePath)
        let (nanoseconds, rebuilt) = try MonotonicClock.measure { () throws(LogReader.Failure) in try rebuild(bytes) }
        withExtendedLifetime(rebuilt) {}
        return nanoseconds
    }

    /// Records per second over the runs `runs` allows of `body`, which returns what it
    /// read; the result is freed after the clock stops (a replay keeps what it builds).
    private func rate<T: RecordCount, E: Error>(runs: SampleBudget, _ body: () throws(E) -> T) throws(E) -> Figure {
        var times = Samples()
        return try rate(runs: runs, times: &times, body)
    }

    private func rate<T: RecordCount, E: Error>(
        runs: SampleBudget, times: inout Samples, _ body: () throws(E) -> T
    ) throws(E) -> Figure {
        var rates = Samples()
        let start = MonotonicClock.now()
        while runs.allowsAnother(taken: rates.count, since: start) {
            let (nanoseconds, value) = try MonotonicClock.measure(body)
            times.append(nanoseconds: nanoseconds)
            rates.append(Double(value.recordCount) / (Double(nanoseconds) / 1e9))
        }
        return Figure(.rate, rates)
    }
}
