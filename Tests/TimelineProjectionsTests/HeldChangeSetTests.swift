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

/// A row set builds each batch's index lists into the storage of the last batch's, once
/// nobody holds the change sets made from them; a change set that is still held keeps its own.
@Suite("The index lists of a view's change sets")
struct ChangeSetListStorageTests {
    static func projection() -> TimelineProjection {
        var projection = TimelineProjection(views: [ViewDefinition(), ViewDefinition(order: .descending)],
                                            now: date("2026-01-01T00:00Z").instant)
        projection.apply(Record(position: 1, facts: [.timelineCreated(timeline: "t", name: "T")]))
        return projection
    }

    static func add(_ id: EventID, _ day: String, at position: Int64, to projection: inout TimelineProjection)
        -> ProjectionChanges {
        projection.apply(Record(position: position, facts: [.eventAdded(event: id, timeline: "t", title: "x", date: date(day))]))
    }

    /// Where the storage of each view's insertions starts, view by view.
    static func storage(_ changes: ProjectionChanges) -> [UnsafeRawPointer?] {
        changes.rows.map { $0.insertions.withUnsafeBufferPointer { UnsafeRawPointer($0.baseAddress) } }
    }

    @Test func theListsOfDroppedChangeSetsAreBuiltInto() {
        var projection = Self.projection()
        let first = Self.storage(Self.add("a", "2019", at: 2, to: &projection))
        // Lists of the same size, alive across the next batch: without reuse, the
        // allocator would hand it the blocks the first batch's lists freed.
        let decoys = (0..<8).map { [$0] }
        let second = Self.add("b", "2020", at: 3, to: &projection)
        withExtendedLifetime(decoys) {}
        #expect(second.rows.map(\.insertions) == [[1], [0]])
        #expect(Self.storage(second) == first, "each order's insertions in the storage of the batch before")
        #expect(first.allSatisfy { $0 != nil })
    }

    @Test func aHeldChangeSetKeepsItsLists() {
        var projection = Self.projection()
        let first = Self.add("a", "2019", at: 2, to: &projection)
        let second = Self.add("b", "2020", at: 3, to: &projection)
        let third = Self.add("c", "2018", at: 4, to: &projection)
        #expect(first.rows.map(\.insertions) == [[0], [0]])
        #expect(second.rows.map(\.insertions) == [[1], [0]])
        #expect(third.rows.map(\.insertions) == [[0], [2]])
        #expect(Set(Self.storage(first) + Self.storage(second) + Self.storage(third)).count == 6,
                "no two held change sets share a list")
    }
}
