import Testing
import TimelineTestSupport
import TimelineCore
@testable import TimelineProjections

/// A timeline's dates are put in order for its summary by plain keys (the instant and the
/// text's first eight bytes), with whole texts compared only where those tie.
@Suite("Summary dates in order")
struct SummaryDateOrderTests {
    /// Texts that share an instant, and often their first eight bytes.
    static let pool = [
        "2019", "2019-01", "2019-01-01", "2019-01-01T00:00Z", "2019-01-01T00:00:00Z", "2019-01-01T01:00+01:00",
        "2019-01-02", "2018-12-31T23:00-01:00", "2019-01-01T00:00:00.000Z", "1999", "2030-06", "2030-06-01",
    ].map(date)

    @Test(arguments: 0..<20)
    func datesComeOutAsDateValuesSortThem(seed: UInt64) {
        var rng = SplitMix64(seed: seed)
        let dates = (0..<Int.random(in: 0...300, using: &rng)).map { _ in Self.pool.randomElement(using: &rng)! }
        #expect(SummaryState.sorted(dates).map(\.date) == dates.sorted())
    }
}
