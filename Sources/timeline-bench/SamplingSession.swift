/// A loop of warm-up runs, then measured runs, within a ``SampleBudget``.
///
///     var session = SamplingSession(budget)
///     while case let step = session.next(), step != .stop {
///         let time = … run once …
///         if step == .measure { session.record(nanoseconds: time) }
///     }
struct SamplingSession {
    enum Step {
        case warmup, measure, stop
    }

    let budget: SampleBudget
    private let created = MonotonicClock.now()
    private var warmups = 0
    private var measuringSince: UInt64?
    private(set) var samples = Samples()

    init(_ budget: SampleBudget) { self.budget = budget }

    /// What the next run is for, or `.stop` when the budget is spent.
    mutating func next() -> Step {
        if measuringSince == nil {
            let warming = Double(MonotonicClock.now() - created) / 1e9
            if warmups < budget.warmup, warmups == 0 || warming < budget.warmupSeconds {
                warmups += 1
                return .warmup
            }
            measuringSince = MonotonicClock.now()
        }
        return budget.allowsAnother(taken: samples.count, since: measuringSince!) ? .measure : .stop
    }

    mutating func record(nanoseconds: UInt64) { samples.append(nanoseconds: nanoseconds) }
}
