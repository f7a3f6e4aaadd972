import Foundation
import SystemShim
import TimelineCore

/// Nanoseconds from `clock_gettime(CLOCK_MONOTONIC)`: immune to wall-clock changes, shared
/// by processes, and cheap enough to read around every single command.
enum MonotonicClock {
    @inline(__always)
    static func now() -> UInt64 {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return UInt64(spec.tv_sec) &* 1_000_000_000 &+ UInt64(spec.tv_nsec)
    }

    /// How long `body` took, in nanoseconds, and its result (freed by the caller, off the clock).
    @inline(__always)
    static func measure<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> (nanoseconds: UInt64, value: T) {
        let start = now()
        let value = try body()
        return (now() - start, value)
    }

    /// How long `body` took, in nanoseconds.
    static func measureAsync(_ body: () async throws -> Void) async rethrows -> UInt64 {
        let start = now()
        try await body()
        return now() - start
    }
}

/// Repeated measurements of one quantity (nanoseconds, or any other unit).
struct Samples {
    private(set) var values: [Double] = []

    init(_ values: [Double] = []) { self.values = values }

    var count: Int { values.count }
    var isEmpty: Bool { values.isEmpty }
    var median: Double { percentile(50) }
    var minimum: Double { values.min() ?? .nan }
    var maximum: Double { values.max() ?? .nan }

    mutating func append(_ value: Double) { values.append(value) }
    mutating func append(nanoseconds: UInt64) { values.append(Double(nanoseconds)) }
    /// Appends `count` items over `nanoseconds` as items per second.
    mutating func append(rate count: Int, nanoseconds: UInt64) { values.append(Double(count) / (Double(nanoseconds) / 1e9)) }

    /// The value below which `p` percent of the samples fall (nearest rank, interpolated); NaN without samples.
    func percentile(_ p: Double) -> Double {
        let s = values.sorted()
        guard !s.isEmpty else { return .nan }
        let rank = p / 100 * Double(s.count - 1)
        let low = Int(rank.rounded(.down)), high = Int(rank.rounded(.up))
        return s[low] + (s[high] - s[low]) * (rank - Double(low))
    }
}

/// A measured quantity ready for the tables: its samples and how to print them.
struct Figure {
    enum Kind {
        /// Nanoseconds, records per second, bytes per event; only a rate is better higher.
        case duration, rate, bytesPerEvent
    }

    let kind: Kind
    let samples: Samples

    init(_ kind: Kind, _ samples: Samples) {
        self.kind = kind
        self.samples = samples
    }

    var median: Double { samples.median }
    var medianText: String { format(median) }
    var p99: Double { samples.percentile(99) }

    func format(_ value: Double) -> String {
        switch kind {
        case .duration: Formatting.duration(nanoseconds: value)
        case .rate: Formatting.rate(perSecond: value)
        case .bytesPerEvent: Formatting.bytesPerEvent(value)
        }
    }

    /// The best sample. Neighbours on a shared machine can only make a run worse, so a
    /// target on time is judged on the best of its repeated runs.
    var best: Double { kind == .rate ? samples.maximum : samples.minimum }

    /// The p99 with 100 samples or more, otherwise min–max, or "1 run".
    var spreadText: String {
        if samples.count >= 100 { return "p99 " + format(p99) }
        if samples.count >= 2 { return format(samples.minimum) + " – " + format(samples.maximum) }
        return "1 run"
    }

    /// How many times better this figure is than `baseline` (above 1: better).
    func advantage(over baseline: Figure) -> Double {
        kind == .rate ? median / baseline.median : baseline.median / median
    }

    /// `1,234× faster`, `3.2× slower`, `2.0× smaller`.
    func comparison(with baseline: Figure) -> String {
        let factor = advantage(over: baseline)
        guard factor.isFinite, factor > 0 else { return "—" }
        let (better, worse) = kind == .bytesPerEvent ? ("smaller", "larger") : ("faster", "slower")
        return factor >= 1 ? Formatting.factor(factor) + " " + better : Formatting.factor(1 / factor) + " " + worse
    }

    /// `1.15× (2.1 µs vs 1.8 µs)`: this figure's median over `other`'s.
    func ratio(to other: Figure) -> (factor: Double, text: String) {
        let factor = median / other.median
        return (factor, String(format: "%.2f×", factor) + " (" + medianText + " vs " + other.medianText + ")")
    }
}

/// How many samples to take: up to `maximum`, at least `minimum`, and no new one once
/// `seconds` have passed (slow paths get fewer samples instead of a longer run). First up
/// to `warmup` unmeasured runs, to fill caches and pay one-off costs, none begun after a second.
struct SampleBudget {
    var maximum: Int
    var minimum: Int
    var seconds: Double
    var warmup: Int

    /// Whether to take another sample, after `taken` samples since `start` (a monotonic reading).
    func allowsAnother(taken: Int, since start: UInt64) -> Bool {
        if taken >= maximum { return false }
        return taken < minimum || Double(MonotonicClock.now() - start) / 1e9 < seconds
    }

    /// Whole runs of a slow measurement, without warm-up.
    static func runs(_ maximum: Int, atLeast minimum: Int, seconds: Double) -> SampleBudget {
        SampleBudget(maximum: maximum, minimum: minimum, seconds: seconds, warmup: 0)
    }
}

/// Warm-up runs, then measured runs, within a ``SampleBudget``:
/// `while case let step = session.next(), step != .stop { … if step == .measure { session.record(…) } }`.
struct SamplingSession {
    enum Step { case warmup, measure, stop }

    let budget: SampleBudget
    private let created = MonotonicClock.now()
    private var warmups = 0
    private var measuringSince: UInt64?
    private(set) var samples = Samples()

    init(_ budget: SampleBudget) { self.budget = budget }

    mutating func next() -> Step {
        if measuringSince == nil {
            if warmups < budget.warmup, warmups == 0 || Double(MonotonicClock.now() - created) / 1e9 < 1 {
                warmups += 1
                return .warmup
            }
            measuringSince = MonotonicClock.now()
        }
        return budget.allowsAnother(taken: samples.count, since: measuringSince!) ? .measure : .stop
    }

    mutating func record(nanoseconds: UInt64) { samples.append(nanoseconds: nanoseconds) }
}

/// Runs `a` and `b`, `a` first for an even `index`: alternated sample by sample, so that a
/// slow spell of the machine or the disk hits both.
func alternately<E: Error>(_ index: Int, _ a: () throws(E) -> Void, _ b: () throws(E) -> Void) throws(E) {
    if index % 2 == 0 { try a(); try b() } else { try b(); try a() }
}

extension EventLog {
    /// Nanoseconds to append `facts` as one batch recorded at `at`.
    func timedAppend(_ facts: [Fact], at: DateValue) throws(EventLogError) -> UInt64 {
        try MonotonicClock.measure { () throws(EventLogError) in try append(facts, options: AppendOptions(recordedAt: at)) }
            .nanoseconds
    }
}
