import TimelineCore
import TimelineProjections

/// The pure pieces of measurement 1: the decider, an in-memory log and the projection with
/// the three views, as a store holds them, fed one command at a time.
struct PurePieces {
    /// When one command's stages ended: decided, appended, projected (nanoseconds of
    /// ``MonotonicClock``), and how many change sets it made.
    struct Timing {
        var start: UInt64
        var decided: UInt64
        var appended: UInt64
        var projected: UInt64
        var changeSets: Int

        var total: UInt64 { projected - start }

        /// Adds each stage's nanoseconds to its samples, in the order of
        /// ``OneCommandBenchmark/stageNames``.
        func record(into stages: inout [Samples]) {
            stages[0].append(nanoseconds: decided - start)
            stages[1].append(nanoseconds: appended - decided)
            stages[2].append(nanoseconds: projected - appended)
        }
    }

    private let eventLog: InMemoryEventLog
    private var projection: TimelineProjection

    /// The pieces holding `records`.
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
