import Testing
import TimelineCore
@testable import TimelineProjections

/// Instants exact to the nanosecond: rows whose dates differ below the microsecond
/// order by them, however the view is made, and a checkpoint keeps them.
@Suite("Rows ordered to the nanosecond")
struct NanosecondOrderTests {
    static let now = date("2026-11-29T12:00Z").instant

    /// "a" at .0000002, "b" at .0000001, "c" at .0000001 written with an offset, "d" at
    /// the microsecond itself, and "e" an open range starting at .0000003: by instant,
    /// d, b, c, a, e; by id, the other way round for most.
    static let records: [Record] = {
        let facts: [Fact] = [
            .timelineCreated(timeline: "t", name: "T"),
            .eventAdded(event: "a", timeline: "t", title: "A", date: date("2019-03-01T10:30:00.0000002Z")),
            .eventAdded(event: "b", timeline: "t", title: "B", date: date("2019-03-01T10:30:00.0000001Z")),
            .eventAdded(event: "c", timeline: "t", title: "C", date: date("2019-03-01T11:30:00.000000100+01:00")),
            .eventAdded(event: "d", timeline: "t", title: "D", date: date("2019-03-01T10:30:00Z")),
            .eventAdded(event: "e", timeline: "t", title: "E", date: date("2019-03-01T10:30:00.0000003Z")),
            .rangeSet(event: "e", start: date("2019-03-01T10:30:00.0000003Z"), end: nil),
        ]
        return facts.enumerated().map { Record(position: Int64($0.offset + 1), facts: [$0.element]) }
    }()

    static let expected: [EventID] = ["d", "b", "c", "a", "e", "e"]

    static func events(_ projection: TimelineProjection, _ view: ViewDefinition = ViewDefinition()) -> [EventID] {
        Array(projection.rows(view) ?? RowList()).map(\.id.event)
    }

    @Test(arguments: OngoingPlacement.allCases)
    func rowsOrderByNanosecondsWhetherBuiltOrApplied(placement: OngoingPlacement) {
        let view = ViewDefinition(placement: placement)
        let built = TimelineProjection(records: Self.records, views: [view], now: Self.now)
        var applied = TimelineProjection(views: [view], now: Self.now)
        for record in Self.records { applied.apply(record) }
        let expected: [EventID] = switch placement {
        case .now: ["d", "b", "c", "a", "e", "e"]
        case .last: ["d", "b", "c", "a", "e", "e"]
        case .first: ["e", "d", "b", "c", "a", "e"]
        }
        #expect(Self.events(built, view) == expected)
        #expect(Self.events(applied, view) == expected)
        #expect(Array(built.rows(view) ?? RowList()) == Array(applied.rows(view) ?? RowList()))
    }

    @Test func anOngoingRowStartingANanosecondAfterNowIsNotAtNow() {
        // Now is the microsecond the range starts in; the start is 300 ns after it.
        let now = date("2019-03-01T10:30:00Z").instant
        let view = ViewDefinition(placement: .now)
        let projection = TimelineProjection(records: Self.records, views: [view], now: now)
        let rows = Array(projection.rows(view) ?? RowList())
        #expect(rows.map(\.id.event) == Self.expected)
        var later = projection
        later.advanceClock(to: date("2019-03-01T10:30:00.000001Z").instant)
        #expect(Self.events(later, view) == Self.expected)
        #expect(Array(later.rows(view) ?? RowList()) == Array(TimelineProjection(
            records: Self.records, views: [view], now: date("2019-03-01T10:30:00.000001Z").instant).rows(view) ?? RowList()))
    }

    @Test func movingADateByNanosecondsMovesItsRow() {
        var projection = TimelineProjection(records: Self.records, views: [ViewDefinition()], now: Self.now)
        projection.apply(Record(position: 8, facts: [.dateSet(event: "d", date: date("2019-03-01T10:30:00.00000025Z"))]))
        #expect(Self.events(projection) == ["b", "c", "a", "d", "e", "e"])
        #expect(Array(projection.rows(ViewDefinition()) ?? RowList()) == Array(TimelineProjection(
            records: Self.records + [Record(position: 8, facts: [.dateSet(event: "d", date: date("2019-03-01T10:30:00.00000025Z"))])],
            views: [ViewDefinition()], now: Self.now).rows(ViewDefinition()) ?? RowList()))
    }

    @Test func aCheckpointKeepsNanosecondInstantsAndNow() throws {
        let now = Instant(microsecondsSinceEpoch: Self.now.microsecondsSinceEpoch, nanosecondsPastMicrosecond: 7)
        let projection = TimelineProjection(records: Self.records, views: [ViewDefinition()], now: now)
        let restored = TimelineProjection(try Checkpoint.load(projection.checkpoint().encoded()))
        #expect(restored.now == now)
        #expect(Self.events(restored) == Self.expected)
        let rows = Array(restored.rows(ViewDefinition()) ?? RowList())
        #expect(rows == Array(projection.rows(ViewDefinition()) ?? RowList()))
        #expect(rows[3].date?.text == "2019-03-01T10:30:00.0000002Z")
        #expect(rows[3].date?.instant.nanosecondsPastMicrosecond == 200)
        #expect(restored.domainState == projection.domainState)
    }

    @Test func rowEntriesOfOneMicrosecondOrderByTheirNanoseconds() {
        let order = RowOrder(placement: .now, now: Self.now.microsecondsSinceEpoch)
        func entry(_ id: EventID, _ text: String) -> RowEntry {
            RowEntry(event: EventSnapshot.make(id: id, timeline: "t", title: "T", dates: .single(date(text))),
                     kind: .single, now: Self.now.microsecondsSinceEpoch, placement: .now)
        }
        let later = entry("a", "2019-03-01T10:30:00.0000002Z"), earlier = entry("b", "2019-03-01T10:30:00.0000001Z")
        let whole = entry("c", "2019-03-01T10:30:00Z")
        #expect(later.instant == earlier.instant)
        #expect(order.precedes(earlier, later))
        #expect(!order.precedes(later, earlier))
        #expect(order.precedes(whole, earlier))
        #expect(!order.precedes(earlier, whole))
        #expect(later.nanoseconds == 200 && whole.nanoseconds == 0)
    }
}
