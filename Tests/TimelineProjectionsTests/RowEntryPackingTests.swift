import Testing
import TimelineCore
@testable import TimelineProjections

/// A row entry packs its instant, kind and mark into one word: every date the parser
/// accepts, from the first year to the last, comes back whole with every kind.
@Suite("Row entries packed in two words")
struct RowEntryPackingTests {
    static let extremes = ["0001-01-01T00:00:00+14:00", "0001", "1969-12-31T23:59:59.999999Z", "1970", "2026-11-29",
                           "9999-12-31T23:59:59.999999-14:00", "9999"].map(date)

    @Test(arguments: extremes)
    func instantKindAndMarkComeBackWhole(start: DateValue) {
        #expect(MemoryLayout<RowEntry>.size == 16)
        let end = Self.extremes.last!
        let range = EventSnapshot.make(id: "e", timeline: "t", title: "T", dates: .range(start: start, end: end))
        let open = EventSnapshot.make(id: "o", timeline: "t", title: "O", dates: .range(start: start, end: nil))
        let single = EventSnapshot.make(id: "s", timeline: "t", title: "S", dates: .single(start))
        let now = date("2026-11-29T12:00:00Z").instant.microsecondsSinceEpoch
        let cases: [(EventSnapshot, RowKind, Int64)] = [
            (single, .single, start.instant.microsecondsSinceEpoch),
            (range, .start, start.instant.microsecondsSinceEpoch),
            (range, .end, end.instant.microsecondsSinceEpoch),
            (open, .ongoing, start.instant.microsecondsSinceEpoch),
        ]
        for (snapshot, kind, instant) in cases {
            for placement in OngoingPlacement.allCases {
                let entry = RowEntry(event: snapshot, kind: kind, now: now, placement: placement)
                #expect(entry.instant == instant)
                #expect(entry.kind == kind)
                #expect(entry.isMarked == (kind == .ongoing && placement == .now && instant <= now))
                #expect(entry.event === snapshot)
            }
        }
    }

    /// An instant no parsed date has (a value made from any `Instant`) sorts at the nearest
    /// end of what a row keeps, never wrapping round to another place.
    @Test(arguments: [Int64.min, -(1 << 61), 1 << 61, Int64.max])
    func anInstantBeyondWhatARowKeepsSortsAtTheNearestEnd(microseconds: Int64) {
        let far = DateValue(utc: Instant(microsecondsSinceEpoch: microseconds))
        let snapshot = EventSnapshot.make(id: "far", timeline: "t", title: "Far", dates: .single(far))
        let entry = RowEntry(event: snapshot, kind: .single, now: 0, placement: .now)
        let expected = microseconds < 0 ? RowEntry.instantRange.lowerBound : RowEntry.instantRange.upperBound
        #expect(entry.instant == expected)
        #expect(entry.kind == .single)
        #expect(!entry.isMarked)
    }
}
