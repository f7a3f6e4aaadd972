import Testing
import TimelineTestSupport
import TimelineCore
@testable import TimelineProjections

/// A timeline's dates are put in order for its summary as two-word entries, with texts
/// compared only where a timestamp shares another date's instant.
@Suite("Summary dates in order")
struct SummaryDateOrderTests {
    /// Texts that share an instant, and often their first eight bytes.
    static let pool = [
        "2019", "2019-01", "2019-01-01", "2019-01-01T00:00Z", "2019-01-01T00:00:00Z", "2019-01-01T01:00+01:00",
        "2019-01-02", "2018-12-31T23:00-01:00", "2019-01-01T00:00:00.000Z", "1999", "2030-06", "2030-06-01",
        "1900", "1900-01", "1900-01-01T00:00Z", "1969-12-31",
    ].map(date)

    @Test(arguments: 0..<20)
    func datesComeOutAsDateValuesSortThem(seed: UInt64) {
        var rng = SplitMix64(seed: seed)
        let dates = (0..<Int.random(in: 0...300, using: &rng)).map { _ in Self.pool.randomElement(using: &rng)! }
        var entries = dates.map { DatedEntry($0) }
        let counted = SummaryState.sorted(&entries)
        #expect(counted.flatMap { repeatElement($0.entry.date, count: $0.count) } == dates.sorted())
        #expect(counted.count == Set(dates).count)

        // A rebuild counts years, months and days apart from timestamps, then merges them.
        let events = dates.enumerated().map { n, date in
            EventSnapshot.make(id: EventID("e\(n)"), timeline: "t", title: "T", dates: .single(date))
        }
        let built = SummaryState(names: ["t": "T"], events: events).timelines["t"]!.dates
        #expect(built.flatMap { repeatElement($0.entry.date, count: $0.count) } == dates.sorted())
        #expect(built.count == Set(dates).count)
    }

    /// A summary's date orders, compares and reads back as the `DateValue` it stands for,
    /// canonical or not.
    @Test func anEntryAgreesWithItsDateValue() {
        for a in Self.pool {
            let entry = DatedEntry(a)
            #expect(entry.date == a)
            if a.hasCanonicalText {
                #expect(DatedEntry(canonical: a.instant.microsecondsSinceEpoch, precision: a.precision) == entry)
            }
            for b in Self.pool {
                #expect((entry < DatedEntry(b)) == (a < b), "\(a) < \(b)")
                #expect((entry == DatedEntry(b)) == (a == b), "\(a) == \(b)")
            }
        }
    }

    /// An event gives its summary the dates it has, without making canonical texts.
    @Test func anEventGivesItsDates() {
        for start in Self.pool {
            for end in [nil] + Self.pool {
                let snapshot = EventSnapshot.make(id: "e", timeline: "t", title: "T",
                                                  dates: .range(start: start, end: end))
                let (first, second) = snapshot.datedEntries
                #expect(first.date == start)
                #expect(second?.date == end)
            }
        }
    }
}
