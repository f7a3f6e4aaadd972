/// How many samples to take: up to `maximum`, at least `minimum`, and no more once
/// `seconds` have passed (so slow paths get fewer samples instead of a longer run).
struct SampleBudget {
    var maximum: Int
    var minimum: Int
    var seconds: Double
    /// Unmeasured runs first, to fill caches and pay one-off costs (the first append to a
    /// shared array copies it): up to `warmup` of them, but no new one after
    /// `warmupSeconds`, so a slow path does not spend its time warming up.
    var warmup: Int
    var warmupSeconds: Double = 1

    /// Whether to take another sample, after `taken` samples since `start` (a monotonic reading).
    func allowsAnother(taken: Int, since start: UInt64) -> Bool {
        if taken >= maximum { return false }
        if taken < minimum { return true }
        return Double(MonotonicClock.now() - start) / 1e9 < seconds
    }

    /// Whole runs of a slow measurement: up to `maximum`, at least `minimum`, and no new one
    /// once `seconds` have passed.
    static func runs(_ maximum: Int, atLeast minimum: Int, seconds: Double) -> SampleBudget {
        SampleBudget(maximum: maximum, minimum: minimum, seconds: seconds, warmup: 0)
    }
}
