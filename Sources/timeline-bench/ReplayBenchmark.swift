import Dispatch
import Synchronization
import TimelineCore
import TimelineProjections
import TimelineKit

/// Measurement 2: records per second when replaying a log — parsing alone
/// (`LogReader().read`), and parsing plus the three views
/// (`TimelineProjection(records:views:now:)`) — for the store's layout and for a
/// hand-written style log, beside `JSONDecoder` on the same lines.
struct ReplayBenchmark {
    struct Result {
        let records: Int
        let parse: Figure
        let rebuild: Figure
        /// Nanoseconds to rebuild, for the target on the whole log.
        let rebuildTimes: Figure
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
        let parse = try rate(runs) { () throws(LogReader.Failure) in try LogReader().read(bytes) } records: { $0.records.count }
        log("replay: LogReader + three views")
        let rebuild = try rate(runs) { () throws(LogReader.Failure) in try Self.rebuild(bytes) } records: { $0.contents.records.count }
        log("replay: JSONDecoder baseline")
        let jsonDecoder = try rate(baselineRuns) { try JSONDecoderBaseline.decodeLines(bytes) } records: { $0 }
        let records = try LogReader().read(bytes).records.count
        let handWritten = FileWriter.readAll(handWrittenPath)
        log("replay: LogReader on the hand-written layout")
        let handParse = try rate(runs) { () throws(LogReader.Failure) in try LogReader().read(handWritten) } records: { $0.records.count }
        log("replay: JSONDecoder baseline on the hand-written layout")
        let handJSONDecoder = try rate(baselineRuns) { try JSONDecoderBaseline.decodeLines(handWritten) } records: { $0 }
        return Result(records: records, parse: parse.rate, rebuild: rebuild.rate, rebuildTimes: rebuild.times,
                      jsonDecoder: jsonDecoder.rate, handWrittenParse: handParse.rate, handWrittenJSONDecoder: handJSONDecoder.rate)
    }

    /// What a rebuild makes of a log's bytes: the records read, and the three views.
    static func rebuild(_ bytes: [UInt8]) throws(LogReader.Failure) -> (contents: LogReader.Contents, projection: TimelineProjection) {
        let contents = try LogReader().read(bytes)
        return (contents, TimelineProjection(records: contents.records, views: BenchViews.definitions, now: BenchViews.now))
    }

    /// One more rebuild of the store's log, later in the run: its nanoseconds (reading the
    /// file and freeing what was built are not timed).
    static func rebuildOnce(storePath: String) throws -> UInt64 {
        let bytes = FileWriter.readAll(storePath)
        let (nanoseconds, rebuilt) = try MonotonicClock.measure { () throws(LogReader.Failure) in try rebuild(bytes) }
        withExtendedLifetime(rebuilt) {}
        return nanoseconds
    }

    /// Records per second, and nanoseconds, over the runs `runs` allows of `body`; what it
    /// built is freed after the clock stops (a replay keeps what it builds).
    private func rate<T, E: Error>(_ runs: SampleBudget, _ body: () throws(E) -> T,
                                   records: (T) -> Int) throws(E) -> (rate: Figure, times: Figure) {
        var rates = Samples(), times = Samples()
        let start = MonotonicClock.now()
        while runs.allowsAnother(taken: rates.count, since: start) {
            let (nanoseconds, value) = try MonotonicClock.measure(body)
            times.append(nanoseconds: nanoseconds)
            rates.append(rate: records(value), nanoseconds: nanoseconds)
        }
        return (Figure(.rate, rates), Figure(.duration, times))
    }
}

/// Measurement 3: how long `TimelineStore(log: FileEventLog(path:))` takes on a large log,
/// once per way of opening a store: a full replay (every record read and checked, the
/// views built), and from a checkpoint written beside the log beforehand.
struct OpenStoreBenchmark {
    /// A way of opening a store with the three views on a log file: what to prepare beside
    /// the log, once, off the clock; and the opening, which returns how to close the store
    /// (and release its log's lock) after the clock stops.
    struct Opener: Sendable {
        let name: String
        var prepare: @Sendable (String) throws -> Void = { _ in }
        let open: @Sendable (String) throws -> () -> Void

        /// Times one opening, and closes the store after the clock stops: its nanoseconds.
        func time(_ path: String) throws -> UInt64 {
            let (nanoseconds, close) = try MonotonicClock.measure { try open(path) }
            close()
            return nanoseconds
        }
    }

    static let fullReplay = Opener(name: "full replay", open: { path in
        let log = try FileEventLog(path: path)
        let store = try TimelineStore(log: log, clock: ManualClock(BenchViews.now), views: BenchViews.definitions)
        return { withExtendedLifetime(store) { log.close() } }
    })

    static let fromCheckpoint = Opener(name: "with checkpoints", prepare: { path in
        // A checkpoint is written by a full replay, off the clock.
        guard (try? DurableFile.read(TimelineStore.checkpointPath(forLog: path))) == nil else { return }
        let store = try TimelineStore(path: path, clock: ManualClock(BenchViews.now), views: BenchViews.definitions)
        try blocking { try await store.saveCheckpoint() }
        store.log.close()
    }, open: { path in
        let store = try TimelineStore(path: path, clock: ManualClock(BenchViews.now), views: BenchViews.definitions)
        precondition(store.openingReport.checkpointPosition != nil, "the checkpoint was not used")
        return { store.log.close() }
    })

    static let openers = [fullReplay, fromCheckpoint]

    /// Runs an async operation to completion from synchronous code (outside any timing).
    static func blocking(_ operation: @escaping @Sendable () async throws -> Void) throws {
        let done = DispatchSemaphore(value: 0)
        let failure = Mutex<(any Error)?>(nil)
        Task {
            do { try await operation() } catch { failure.withLock { $0 = error } }
            done.signal()
        }
        done.wait()
        if let error = failure.withLock({ $0 }) { throw error }
    }

    let path: String
    let runs: SampleBudget
    let log: @Sendable (String) -> Void

    /// The times of each way of opening, in ``openers`` order.
    func run() throws -> [Figure] {
        try Self.openers.map { opener in
            log("open: \(opener.name)")
            try opener.prepare(path)
            var times = Samples()
            let start = MonotonicClock.now()
            while runs.allowsAnother(taken: times.count, since: start) { times.append(nanoseconds: try opener.time(path)) }
            return Figure(.duration, times)
        }
    }
}
