import Dispatch
import Synchronization
import TimelineCore
import TimelineProjections
import TimelineKit

/// Measurement 3: how long `TimelineStore(log: FileEventLog(path:))` takes on a large log,
/// once per way of opening a store.
///
/// "full replay" reads and checks every record; "with checkpoints" first writes a
/// checkpoint beside the log (outside the clock), then times opening from it.
struct OpenStoreBenchmark {
    /// A store that is open, and how to release it (and its log's lock) after the clock stops.
    struct OpenedStore: Sendable {
        let store: TimelineStore
        let close: @Sendable () -> Void
    }

    /// One way of opening a store on a log file; `open` is nil while that way does not exist.
    struct Opener: Sendable {
        let name: String
        /// Prepares the files beside the log, once, before the clock starts.
        var prepare: (@Sendable (String) throws -> Void)? = nil
        /// Opens a store with the three views on the log at the path.
        let open: (@Sendable (String) throws -> OpenedStore)?
    }

    static let openers = [
        Opener(name: "full replay", open: openByFullReplay),
        Opener(name: "with checkpoints", prepare: writeCheckpoint, open: openFromCheckpoint),
    ]

    /// Opens the log (reading and checking every line), then the store (replaying every
    /// record through the decider's rules and building the views).
    static func openByFullReplay(_ path: String) throws -> OpenedStore {
        let log = try FileEventLog(path: path)
        let store = try TimelineStore(log: log, clock: ManualClock(BenchViews.now), views: BenchViews.definitions)
        return OpenedStore(store: store, close: { log.close() })
    }

    /// Writes a checkpoint beside the log if there is none (outside the clock: this is a
    /// full replay).
    static func writeCheckpoint(_ path: String) throws {
        let checkpoint = TimelineStore.checkpointPath(forLog: path)
        guard (try? DurableFile.read(checkpoint)) == nil else { return }
        let store = try TimelineStore(path: path, clock: ManualClock(BenchViews.now), views: BenchViews.definitions)
        try blocking { try await store.saveCheckpoint() }
        store.log.close()
    }

    /// Opens the store from the checkpoint beside the log.
    static func openFromCheckpoint(_ path: String) throws -> OpenedStore {
        let store = try TimelineStore(path: path, clock: ManualClock(BenchViews.now), views: BenchViews.definitions)
        precondition(store.openingReport.checkpointPosition != nil, "the checkpoint was not used")
        return OpenedStore(store: store, close: { store.log.close() })
    }

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

    /// Times one opening of the store on the log at `path` with `open` (a way of opening
    /// prepared by ``run()``), and closes it after the clock stops: its nanoseconds.
    static func timeOpening(_ path: String, with open: (String) throws -> OpenedStore) throws -> UInt64 {
        let (nanoseconds, opened) = try MonotonicClock.measure { try open(path) }
        opened.close()
        return nanoseconds
    }

    /// Seconds to open, per opener (nil for one that does not exist yet), in `openers` order.
    func run() throws -> [(name: String, figure: Figure?)] {
        try Self.openers.map { opener in
            guard let open = opener.open else { return (opener.name, nil) }
            log("open: \(opener.name)")
            try opener.prepare?(path)
            var times = Samples()
            let start = MonotonicClock.now()
            while runs.allowsAnother(taken: times.count, since: start) {
                times.append(nanoseconds: try Self.timeOpening(path, with: open))
            }
            return (opener.name, Figure(.duration, times))
        }
    }
}
