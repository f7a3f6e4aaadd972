import Foundation
import TimelineCore
import TimelineProjections
import TimelineKit

/// Measurement 4: resident bytes per event of a store with its three views, opened on a
/// log of N events — the peak while opening and what stays resident once open — beside
/// the same log held as plain sorted arrays of row structs (baseline (a) of measurement 1).
///
/// Each subject is built in a child process (this program with a hidden flag), so that
/// what earlier measurements allocated, and the allocator kept, does not count.
struct MemoryBenchmark {
    /// What to build in the child.
    enum Subject: String {
        case store, baseline
    }

    struct Reading {
        var events: Int
        var before: Int
        var peak: Int
        var after: Int

        var peakPerEvent: Double { Double(peak - before) / Double(max(events, 1)) }
        var residentPerEvent: Double { Double(after - before) / Double(max(events, 1)) }
    }

    struct Result {
        let events: Int
        let storePeak: Figure
        let storeResident: Figure
        let baselinePeak: Figure
        let baselineResident: Figure
    }

    let path: String
    let runs: SampleBudget
    let log: @Sendable (String) -> Void

    func run() throws -> Result {
        var readings: [Subject: [Reading]] = [:]
        for subject in [Subject.store, .baseline] {
            log("memory: \(subject.rawValue) (child process)")
            let start = MonotonicClock.now()
            while runs.allowsAnother(taken: readings[subject]?.count ?? 0, since: start) {
                readings[subject, default: []].append(try Self.spawn(subject, path: path))
            }
        }
        func figure(_ subject: Subject, _ value: (Reading) -> Double) -> Figure {
            Figure(.bytesPerEvent, Samples(readings[subject]!.map(value)))
        }
        return Result(events: readings[.store]![0].events,
                      storePeak: figure(.store, \.peakPerEvent), storeResident: figure(.store, \.residentPerEvent),
                      baselinePeak: figure(.baseline, \.peakPerEvent),
                      baselineResident: figure(.baseline, \.residentPerEvent))
    }

    /// Runs this program again to build `subject` from the log at `path`, and reads its report.
    static func spawn(_ subject: Subject, path: String) throws -> Reading {
        let text = try ChildProcess.run(["--memory-child", subject.rawValue, path], for: "memory of \(subject.rawValue)")
        guard let reading = parse(text) else {
            throw ChildProcess.Failure(description: "the memory child for \(subject.rawValue) printed no reading: \(text)")
        }
        return reading
    }

    private static func parse(_ text: String) -> Reading? {
        let fields = ChildProcess.fields(of: Substring(text.split(separator: "\n").last ?? ""))
        func integer(_ name: String) -> Int? { fields[name].flatMap { Int(exactly: $0) } }
        guard let events = integer("events"), let before = integer("before"), let peak = integer("peak"),
              let after = integer("after") else { return nil }
        return Reading(events: events, before: before, peak: peak, after: after)
    }

    // MARK: In the child

    /// Builds `subject` from the log at `path` and prints `events=… before=… peak=… after=…`.
    static func child(_ subject: Subject, path: String) async throws {
        ResidentMemory.resetPeak()
        guard let before = ResidentMemory.current else { throw ChildProcess.Failure(description: "no /proc/self/status") }
        let events: Int
        let keep: Any
        switch subject {
        case .store:
            let log = try FileEventLog(path: path)
            let store = try TimelineStore(log: log, clock: ManualClock(BenchViews.now), views: BenchViews.definitions)
            events = await store.eventCount
            keep = store
        case .baseline:
            let baseline = try {
                let contents = try LogReader().read(FileWriter.readAll(path))
                return SortedArrayBaseline(facts: contents.records.lazy.flatMap(\.facts), specs: BenchViews.baselineSpecs,
                                           now: BenchViews.now)
            }()
            events = baseline.store.events.count
            keep = baseline
        }
        let peak = ResidentMemory.peak ?? 0
        // Give what the allocator holds but no longer uses back to the system, so that
        // "resident once open" counts what the store keeps.
        ResidentMemory.returnFreeMemory()
        let after = ResidentMemory.current ?? 0
        withExtendedLifetime(keep) {
            print("events=\(events) before=\(before) peak=\(max(peak, after)) after=\(after)")
        }
    }
}
