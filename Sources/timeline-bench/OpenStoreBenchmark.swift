import TimelineCore
import TimelineProjections
import TimelineKit

/// Measurement 3: how long `TimelineStore(log: FileEventLog(path:))` takes on a large log,
/// once per way of opening a store.
///
/// Opening today replays the whole log. When checkpoints exist, give the "with
/// checkpoints" opener a function (save a checkpoint first, outside the clock, then open
/// with it) and its row fills in; until then it prints n/a.
struct OpenStoreBenchmark {
    /// A store that is open, and how to release it (and its log's lock) after the clock stops.
    struct OpenedStore: Sendable {
        let store: TimelineStore
        let close: @Sendable () -> Void
    }

    /// One way of opening a store on a log file; `open` is nil while that way does not exist.
    struct Opener: Sendable {
        let name: String
        /// Opens a store with the three views on the log at the path.
        let open: (@Sendable (String) throws -> OpenedStore)?
    }

    static let openers = [
        Opener(name: "full replay", open: openByFullReplay),
        Opener(name: "with checkpoints", open: nil),
    ]

    /// Opens the log (reading and checking every line), then the store (replaying every
    /// record through the decider's rules and building the views).
    static func openByFullReplay(_ path: String) throws -> OpenedStore {
        let log = try FileEventLog(path: path)
        let store = try TimelineStore(log: log, clock: ManualClock(BenchViews.now), views: BenchViews.definitions)
        return OpenedStore(store: store, close: { log.close() })
    }

    let path: String
    let runs: SampleBudget
    let log: @Sendable (String) -> Void

    /// Seconds to open, per opener (nil for one that does not exist yet), in `openers` order.
    func run() throws -> [(name: String, figure: Figure?)] {
        try Self.openers.map { opener in
            guard let open = opener.open else { return (opener.name, nil) }
            log("open: \(opener.name)")
            var times = Samples()
            let start = MonotonicClock.now()
            while runs.allowsAnother(taken: times.count, since: start) {
                let (nanoseconds, opened) = try MonotonicClock.measure { try open(path) }
                times.append(nanoseconds: nanoseconds)
                opened.close()
            }
            return (opener.name, Figure(.duration, times))
        }
    }
}
