import TimelineTestSupport
import Testing
import TimelineCore
@testable import TimelineProjections

@Suite("Rows by id, and snapshots of views")
struct RowLocationTests {
    /// Every row of every view is found by its id at its index and (section, item); an id
    /// the view does not show is not found.
    @Test(arguments: 0..<4)
    func everyRowIsFoundWhereTheListHasIt(seed: UInt64) {
        var generator = FactGenerator(seed: seed)
        var projection = TimelineProjection(views: allViews, now: date("2015-06-01").instant)
        for step in 1...50 {
            projection.apply(Record(position: Int64(step), facts: generator.nextFacts()))
            if step % 10 == 0 { projection.advanceClock(to: date(["1990-04-12", "2021", "2000-02-29", "2031"][step / 10 % 4]).instant) }
            guard step % 5 == 0 else { continue }
            for view in allViews {
                let rows = Array(projection.rows(view)!), sections = Array(projection.sections(view))
                var paths: [RowPath] = []
                for (section, content) in sections.enumerated() {
                    paths += (0..<content.count).map { RowPath(section: section, item: $0) }
                }
                for (index, row) in rows.enumerated() {
                    let location = projection.location(of: row.id, in: view)
                    #expect(location == RowLocation(index: index, path: view.sections == .none ? nil : paths[index],
                                                    position: projection.viewPosition(view)!), "\(view) \(row)")
                }
                let shown = Set(rows.map(\.id))
                for event in generator.eventIDs {
                    for role in [RowRole.start, .end] where !shown.contains(RowID(event: event, role: role)) {
                        #expect(projection.location(of: RowID(event: event, role: role), in: view) == nil)
                    }
                }
            }
        }
    }

    /// Reading a view the projection does not maintain builds it for the call only.
    @Test func aSnapshotOfAViewNotMaintainedDoesNotAddIt() {
        var generator = FactGenerator(seed: 3)
        let kept = ViewDefinition()
        var projection = TimelineProjection(views: [kept], now: date("2015-06-01").instant)
        for step in 1...30 { projection.apply(Record(position: Int64(step), facts: generator.nextFacts())) }
        for view in allViews where view != kept {
            let snapshot = projection.snapshot(view)
            #expect(projection.viewDefinitions == [kept])
            #expect(Array(snapshot.rows) == ReferenceModel.rows(generator.state, view, now: projection.now))
            #expect(Array(snapshot.sections) == ReferenceModel.sections(generator.state, view, now: projection.now))
            #expect(snapshot.position == projection.position)
            if let row = snapshot.rows.last {
                #expect(projection.location(of: row.id, in: view)?.index == snapshot.rows.count - 1)
            }
            #expect(projection.viewDefinitions == [kept])
        }
    }
}
