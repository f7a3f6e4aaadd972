import Testing
import TimelineCore
@testable import TimelineProjections

/// A set of rows keeps a small batch's working storage for the next batch, but not a large one's.
@Suite("A view's batch storage")
struct ViewBatchStorageTests {
    @Test func aLargeBatchsStorageIsNotKept() {
        var projection = TimelineProjection(views: [ViewDefinition()], now: date("2026-01-01T00:00Z").instant)
        var facts: [Fact] = [.timelineCreated(timeline: "t", name: "T"), .timelineCreated(timeline: "u", name: "U")]
        for i in 0..<2_000 {
            facts.append(.eventAdded(event: EventID("e\(i)"), timeline: "t", title: "x", date: date("2019")))
        }
        projection.apply(Record(position: 1, facts: facts))
        projection.apply(Record(position: 2, facts: [.eventAdded(event: "z", timeline: "u", title: "y", date: date("2020"))]))
        let small = projection.rowSets[0].spareCapacity
        #expect(small > 0, "a one-row batch's storage is kept")
        #expect(small <= RowSet.spareRowLimit)
        projection.apply(Record(position: 3, facts: [.timelineRemoved(timeline: "t")]))
        #expect(projection.rowSets[0].spareCapacity <= RowSet.spareRowLimit)
        projection.apply(Record(position: 4, facts: [.eventRetitled(event: "z", title: "again")]))
        #expect(projection.rowSets[0].spareCapacity <= RowSet.spareRowLimit)
    }
}
