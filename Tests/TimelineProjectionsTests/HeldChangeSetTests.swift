import Testing
import TimelineCore
@testable import TimelineProjections

/// A change set still held says what it said when it was made, whatever batches come after it.
@Suite("Held change sets")
struct HeldChangeSetTests {
    static func add(_ id: EventID, _ day: String, at position: Int64, to projection: inout TimelineProjection)
        -> ProjectionChanges {
        projection.apply(Record(position: position, facts: [.eventAdded(event: id, timeline: "t", title: "x", date: date(day))]))
    }

    @Test func aHeldChangeSetKeepsItsLists() {
        var projection = TimelineProjection(views: [ViewDefinition(), ViewDefinition(order: .descending)],
                                            now: date("2026-01-01T00:00Z").instant)
        projection.apply(Record(position: 1, facts: [.timelineCreated(timeline: "t", name: "T")]))
        let first = Self.add("a", "2019", at: 2, to: &projection)
        let second = Self.add("b", "2020", at: 3, to: &projection)
        let third = Self.add("c", "2018", at: 4, to: &projection)
        _ = Self.add("d", "2017", at: 5, to: &projection)
        #expect(first.rows.map(\.insertions) == [[0], [0]])
        #expect(second.rows.map(\.insertions) == [[1], [0]])
        #expect(third.rows.map(\.insertions) == [[0], [2]])
    }
}
