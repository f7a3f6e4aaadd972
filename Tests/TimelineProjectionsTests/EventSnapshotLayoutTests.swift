import Testing
import TimelineCore
import TimelineTestSupport
@testable import TimelineProjections

/// A snapshot gives back exactly what it was made from, and its comparisons agree with
/// comparing the values it stands for.
@Suite("Event snapshots")
struct EventSnapshotLayoutTests {
    /// Few values, so that seeded pairs are often equal in one part and not another.
    /// `Café` twice: composed and decomposed, the same title to `String` in different bytes.
    static let titles = ["", "Born", "Moved to Zürich", "Holiday — Kraków 🚲", "Trip to São Paulo with Tomás",
                         String(repeating: "long title ", count: 40), "Caf\u{E9}", "Cafe\u{301}"]
    static let dates = ["2019", "2019-01", "2019-01-01", "2019-01-01T00:00Z", "2018-12-31T19:00-05:00",
                        "2019-03-01T10:30:15.123456789+05:30", "2019-03-01T10:30:15.0000001Z", "0001", "9999-12-31", "1969-12-31T23:59:59.5Z"]
        .map(date) + [DateValue(utc: Instant(microsecondsSinceEpoch: 1_546_300_800_000_000)),
                      DateValue(utc: Instant(microsecondsSinceEpoch: 1_546_300_800_000_001, nanosecondsPastMicrosecond: 5))]

    static func randomDates(_ rng: inout SplitMix64) -> EventDates {
        let start = dates[rng.below(dates.count)]
        switch rng.below(3) {
        case 0: return .single(start)
        case 1: return .range(start: start, end: nil)
        default: return .range(start: start, end: dates[rng.below(dates.count)])
        }
    }

    static func randomEvent(_ rng: inout SplitMix64) -> Event {
        Event(id: EventID(["e1", "a-much-longer-event-identifier", "é"][rng.below(3)]),
              timeline: TimelineID(["life", "work"][rng.below(2)]),
              title: titles[rng.below(titles.count)], dates: randomDates(&rng))
    }

    static func snapshot(_ event: Event) -> EventSnapshot {
        EventSnapshot.make(id: event.id, timeline: event.timeline, title: event.title, dates: event.dates)
    }

    @Test func everyPartComesBackAsItWasMade() {
        var rng = SplitMix64(seed: 0x5_0A95)
        for _ in 0..<500 {
            let event = Self.randomEvent(&rng)
            let snapshot = Self.snapshot(event)
            #expect(snapshot.event == event)
            #expect(snapshot.title == event.title)
            #expect(snapshot.dates == event.dates)
            #expect(snapshot.startDate == event.dates.start)
            #expect(snapshot.startInstant == event.dates.start.instant.microsecondsSinceEpoch)
            #expect(snapshot.isOpenRange == event.dates.isOpenRange)
            if case .range(_, let end?) = event.dates {
                #expect(snapshot.endDate == end)
                #expect(snapshot.endInstant == end.instant.microsecondsSinceEpoch)
                #expect(snapshot.secondRowKind == .end)
            } else {
                #expect(snapshot.endDate == nil)
                #expect(snapshot.endInstant == nil)
                #expect(snapshot.secondRowKind == (event.dates.isOpenRange ? .ongoing : nil))
            }
            #expect(snapshot.firstRowKind == (event.dates.isOpenRange || event.dates.isClosedRange ? .start : .single))
        }
    }

    @Test func changingOnePartKeepsTheOthers() {
        var rng = SplitMix64(seed: 0xC4A9_6E)
        for _ in 0..<500 {
            let event = Self.randomEvent(&rng), other = Self.randomEvent(&rng)
            let snapshot = Self.snapshot(event)
            var expected = event
            expected.timeline = other.timeline
            #expect(snapshot.with(timeline: other.timeline).event == expected)
            expected = event
            expected.title = other.title
            #expect(snapshot.with(title: other.title).event == expected)
            expected = event
            expected.dates = other.dates
            #expect(snapshot.with(dates: other.dates).event == expected)
            #expect(snapshot.event == event, "the snapshot changed is left as it was")
        }
    }

    /// The comparisons that read bytes agree with comparing the values they stand for.
    @Test func comparingBytesAgreesWithComparingValues() {
        var rng = SplitMix64(seed: 0xB17E5)
        let events = (0..<80).map { _ in Self.randomEvent(&rng) }
        let snapshots = events.map(Self.snapshot)
        for (a, eventA) in zip(snapshots, events) {
            for (b, eventB) in zip(snapshots, events) {
                #expect(a.hasSameTitle(as: b) == (eventA.title == eventB.title))
                #expect(a.hasSameDates(as: b) == (eventA.dates == eventB.dates))
                for kind in [RowKind.single, .start, .end, .ongoing] {
                    let rowA = RowEntry(event: a, kind: kind, now: 0, placement: .now)
                    let rowB = RowEntry(event: b, kind: kind, now: 0, placement: .now)
                    var sameDate = true
                    switch kind {
                    case .single, .start: sameDate = eventA.dates.start == eventB.dates.start
                    case .end: sameDate = a.endDate == b.endDate
                    case .ongoing: break
                    }
                    #expect(a.hasSameDate(for: kind, as: b) == sameDate)
                    var rowOfB = rowB.row
                    rowOfB.id = rowA.row.id
                    #expect(rowA.hasSameContent(as: rowB) == (rowA.row == rowOfB))
                }
            }
        }
    }
}
