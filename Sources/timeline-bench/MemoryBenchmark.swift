import TimelineCore
import TimelineProjections
import TimelineKit

/// Measurement 4: bytes per event of a store with its three views opened on a log of N
/// events (peak while opening, resident once open), beside sorted arrays of row structs,
/// each built in a child process so that earlier measurements' memory does not count.
struct MemoryBenchmark {
    /// What to build in the child.
    enum Subject: String {
        case store, baseline
    }

    struct Result {
        let storePeak: Figure
        let storeResident: Figure
        let baselinePeak: Figure
        let baselineResident: Figure
    }

    let path: String
    let runs: SampleBudget
    let log: @Sendable (String) -> Void

    func run() throws -> Result {
        // Per subject, each run's bytes per event: peak, and resident once open.
        var readings: [Subject: (peak: Samples, resident: Samples)] = [:]
        for subject in [Subject.store, .baseline] {
            log("memory: \(subject.rawValue) (child process)")
            var peak = Samples(), resident = Samples()
            let start = MonotonicClock.now()
            while runs.allowsAnother(taken: peak.count, since: start) {
                let text = try ChildProcess.run(["--memory-child", subject.rawValue, path], for: "memory of \(subject.rawValue)")
                let fields = ChildProcess.lastFields(of: text)
                guard let events = fields["events"], let before = fields["before"], let top = fields["peak"],
                      let after = fields["after"] else {
                    throw BenchFailure("the memory child for \(subject.rawValue) printed no reading: \(text)")
                }
                peak.append((top - before) / max(events, 1))
                resident.append((after - before) / max(events, 1))
            }
            readings[subject] = (peak, resident)
        }
        return Result(storePeak: Figure(.bytesPerEvent, readings[.store]!.peak),
                      storeResident: Figure(.bytesPerEvent, readings[.store]!.resident),
                      baselinePeak: Figure(.bytesPerEvent, readings[.baseline]!.peak),
                      baselineResident: Figure(.bytesPerEvent, readings[.baseline]!.resident))
    }

    /// In the child: builds `subject` from the log at `path` and prints `events=… before=… peak=… after=…`.
    static func child(_ subject: Subject, path: String) async throws {
        ResidentMemory.resetPeak()
        guard let before = ResidentMemory.current else { throw BenchFailure("no /proc/self/status") }
        let events: Int
        let keep: Any
        switch subject {
        case .store:
            let store = try TimelineStore(log: FileEventLog(path: path), clock: ManualClock(BenchViews.now),
                                          views: BenchViews.definitions)
            events = await store.eventCount
            keep = store
        case .baseline:
            let baseline = try SortedArrayBaseline(facts: LogReader().read(FileWriter.readAll(path)).records.lazy.flatMap(\.facts))
            events = baseline.store.events.count
            keep = baseline
        }
        let peak = ResidentMemory.peak ?? 0
        // What the allocator holds but no longer uses goes back to the system, so that
        // "resident once open" counts what the store keeps.
        ResidentMemory.returnFreeMemory()
        let after = ResidentMemory.current ?? 0
        withExtendedLifetime(keep) {
            print("events=\(events) before=\(before) peak=\(max(peak, after)) after=\(after)")
        }
    }
}
