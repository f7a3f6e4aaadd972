import Testing
import TimelineCore
@testable import TimelineProjections

/// A row entry gives back its instant, kind and mark for every date the parser accepts,
/// from the first year to the last, and rows that tie on their instant are ordered as
/// their whole ids are.
@Suite("Row entries")
struct RowEntryTests {
    static let extremes = ["0001-01-01T00:00:00+14:00", "0001", "1969-12-31T23:59:59.999999Z", "1970", "2026-11-29",
                           "9999-12-31T23:59:59.999999-14:00", "9999"].map(date)

    @Test(arguments: extremes)
    func instantKindAndMarkComeBackWhole(start: DateValue) {
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

    /// Ids that share their first eight bytes, end within them, or hold bytes above
    /// ASCII: rows at one instant are ordered by the ids' UTF-8 bytes, then by role,
    /// whether their prefixes differ or the whole ids must be read.
    @Test(arguments: OngoingPlacement.allCases)
    func rowsTiedOnTheirInstantAreOrderedByTheirWholeIDs(placement: OngoingPlacement) {
        let ids = ["", "a", "a\u{0}", "a\u{0}b", "a\u{1}", "ab", "event-00", "event-000", "event-0001", "event-0002", "event-00010",
                   "event-0001a", "évent", "évent-0001", "évent-0002", "zzzzzzzz", "zzzzzzzzz", "\u{10FFFF}"]
        let now = date("2026-11-29T12:00Z").instant.microsecondsSinceEpoch
        let order = RowOrder(placement: placement, now: now)
        let day = date("2019-03-04")
        var entries: [RowEntry] = []
        for id in ids {
            let snapshot = EventSnapshot.make(id: EventID(id), timeline: "t", title: "T",
                                              dates: .range(start: day, end: day))
            entries.append(RowEntry(event: snapshot, kind: .start, now: now, placement: placement))
            entries.append(RowEntry(event: snapshot, kind: .end, now: now, placement: placement))
        }
        for a in entries {
            for b in entries {
                let bytes = (Array(a.event.id.rawValue.utf8), Array(b.event.id.rawValue.utf8))
                let expected = bytes.0 != bytes.1 ? bytes.0.lexicographicallyPrecedes(bytes.1)
                    : a.kind.role.rawValue < b.kind.role.rawValue
                #expect(order.precedes(a, b) == expected, "\(a.event.id) \(a.kind) before \(b.event.id) \(b.kind)")
            }
        }
    }
}
