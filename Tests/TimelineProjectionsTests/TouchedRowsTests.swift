import Testing
import TimelineCore
@testable import TimelineProjections

/// A batch's touched rows are found by id, linearly for a few and through a dictionary
/// for more, and their indices follow the batch's insertions and removals.
@Suite("A batch's touched rows")
struct TouchedRowsTests {
    static func entry(_ id: String) -> RowEntry {
        let snapshot = EventSnapshot.make(id: EventID(id), timeline: "t", title: id, dates: .single(date("2020")))
        return RowEntry(event: snapshot, kind: .single, now: 0, placement: .now)
    }

    @Test(arguments: [1, TouchedRows.linearLimit, TouchedRows.linearLimit + 1, 3 * TouchedRows.linearLimit])
    func everyRowIsFoundByItsID(count: Int) {
        var touched = TouchedRows()
        let entries = (0..<count).map { Self.entry("e\($0)") }
        for (n, entry) in entries.enumerated() {
            #expect(!touched.contains(entry.id))
            touched.append(TouchedRows.Touch(id: entry.id, old: entry, oldIndex: n, new: entry, newIndex: n))
            #expect(touched.contains(entry.id))
        }
        // Each row gets its own new index, and only its own.
        for (n, entry) in entries.enumerated() { touched.setNew(entry, at: 100 + n, for: entry.id) }
        #expect(touched.rows.map(\.newIndex) == (0..<count).map { 100 + $0 })
        #expect(touched.rows.map(\.id) == entries.map(\.id))
        // A removal before them all moves every index down by one.
        touched.shift(for: .remove(at: 0))
        #expect(touched.rows.map(\.newIndex) == (0..<count).map { 99 + $0 })
        touched.removeAll()
        #expect(touched.isEmpty && !touched.contains(entries[0].id))
    }

    /// One record of many facts touches many rows without keeping the old index: the
    /// change set still takes every row from its old place to its new one.
    @Test func aRecordOfManyFactsDescribesEveryRow() throws {
        var projection = TimelineProjection(views: [ViewDefinition(), ViewDefinition(order: .descending)],
                                            now: date("2026-01-01").instant)
        var facts: [Fact] = [.timelineCreated(timeline: "t", name: "T")]
        for n in 0..<30 { facts.append(.eventAdded(event: EventID("e\(n)"), timeline: "t", title: "x", date: date("20\(10 + n % 10)"))) }
        projection.apply(Record(position: 1, facts: facts))
        var changes: [Fact] = []
        for n in stride(from: 0, to: 30, by: 2) {
            changes.append(.dateSet(event: EventID("e\(n)"), date: date("19\(50 + n)")))
            changes.append(.eventRetitled(event: EventID("e\(n + 1)"), title: "y\(n)"))
        }
        let old = projection.viewDefinitions.map { (Array(projection.rows($0)!), projection.sections($0)) }
        let applied = projection.apply(Record(position: 2, facts: changes))
        for (offset, view) in projection.viewDefinitions.enumerated() {
            let changeSet = try #require(applied.changeSet(for: view))
            #expect(!changeSet.isReset)
            #expect(changeSet.updates.count == 15 + 15, "every retitled and redated row is an update")
            checkChangeSet(changeSet, old: old[offset].0, new: Array(projection.rows(view)!), oldSections: old[offset].1)
        }
    }
}
