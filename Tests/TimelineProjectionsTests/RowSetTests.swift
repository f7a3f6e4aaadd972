import Testing
import TimelineCore
@testable import TimelineProjections

/// Views with the same filter and placement keep their rows once; each still has its own
/// order, sections, position and change sets.
@Suite("Views sharing their rows")
struct RowSetTests {
    static let now = date("2015-06-01T12:00Z").instant
    static let home = ViewDefinition(filter: .timeline("home"))
    static let homeByYearDescending = ViewDefinition(filter: .timeline("home"), order: .descending, sections: .year)
    static let homeLast = ViewDefinition(filter: .timeline("home"), placement: .last)

    static func records(seed: UInt64, _ positions: ClosedRange<Int>) -> [Record] {
        var generator = FactGenerator(seed: seed)
        var records: [Record] = []
        for position in 1...positions.upperBound {
            let facts = generator.nextFacts()
            if positions.contains(position) { records.append(Record(position: Int64(position), facts: facts)) }
        }
        return records
    }

    /// Rows, sections and position of `view` in `projection` are those of a projection
    /// that keeps `view` alone, built from `records`.
    static func expectAsAlone(_ view: ViewDefinition, in projection: TimelineProjection, records: [Record],
                              sourceLocation: SourceLocation = #_sourceLocation) {
        let alone = TimelineProjection(records: records, views: [view], now: now)
        #expect(projection.rows(view).map(Array.init) == Array(alone.rows(view)!), sourceLocation: sourceLocation)
        #expect(projection.sections(view) == alone.sections(view), sourceLocation: sourceLocation)
    }

    @Test func viewsOfOneFilterAndPlacementKeepOneIndex() {
        let projection = TimelineProjection(records: Self.records(seed: 1, 1...40), views: allViews, now: Self.now)
        // 3 filters × 3 placements; each set read in 2 orders × 4 sectionings.
        #expect(projection.rowSets.count == 9)
        #expect(projection.rowSets.allSatisfy { $0.views.count == 8 })
        #expect(Set(projection.viewDefinitions) == Set(allViews))
    }

    @Test(arguments: 0..<4)
    func aViewAddedLaterSharesTheRowsAndGoesOnLikeOneBuiltAlone(seed: UInt64) {
        let first = Self.records(seed: seed, 1...40), more = Self.records(seed: seed, 41...80)
        var projection = TimelineProjection(records: first, views: [Self.home, Self.homeLast], now: Self.now)
        projection.addView(Self.homeByYearDescending)
        #expect(projection.rowSets.count == 2, "joins the set of its filter and placement")
        #expect(projection.viewPosition(Self.homeByYearDescending) == 40)
        Self.expectAsAlone(Self.homeByYearDescending, in: projection, records: first)

        var positions = [Self.home: projection.viewPosition(Self.home)!,
                         Self.homeByYearDescending: Int64(40)]
        for record in more {
            let views = [Self.home, Self.homeByYearDescending]
            let oldRows = views.map { Array(projection.rows($0)!) }, oldSections = views.map { projection.sections($0) }
            let changes = projection.apply(record)
            for (offset, view) in views.enumerated() {
                guard let changeSet = changes.changeSet(for: view) else {
                    #expect(Array(projection.rows(view)!) == oldRows[offset], "no change set: no change")
                    #expect(projection.sections(view) == oldSections[offset])
                    continue
                }
                #expect(changeSet.from == positions[view], "change sets chain")
                positions[view] = changeSet.to
                checkChangeSet(changeSet, old: oldRows[offset], new: Array(projection.rows(view)!),
                               oldSections: oldSections[offset])
            }
        }
        let all = first + more
        for view in [Self.home, Self.homeByYearDescending, Self.homeLast] {
            Self.expectAsAlone(view, in: projection, records: all)
        }
    }

    /// A batch that changes more section counts than a view notes one by one (a large
    /// import, say) still tells which sections came, went and changed.
    @Test(arguments: 0..<3)
    func largeBatchesDescribeTheirSections(seed: UInt64) {
        let views = [Self.homeByYearDescending, ViewDefinition(filter: .timeline("home"), sections: .month)]
        var projection = TimelineProjection(records: Self.records(seed: seed, 1...40), views: views, now: Self.now)
        var sectionChanges = 0
        for start in stride(from: 41, to: 641, by: 150) {
            let oldRows = views.map { Array(projection.rows($0)!) }, oldSections = views.map { projection.sections($0) }
            let changes = projection.apply(Self.records(seed: seed, start...(start + 149)))
            for (offset, view) in views.enumerated() {
                guard let changeSet = changes.changeSet(for: view) else { continue }
                #expect(!changeSet.isReset)
                if changeSet.sectionsChanged { sectionChanges += 1 }
                checkChangeSet(changeSet, old: oldRows[offset], new: Array(projection.rows(view)!),
                               oldSections: oldSections[offset])
            }
        }
        #expect(sectionChanges > 0)
    }

    /// The views of one set are listed together, in the order they were asked for; a
    /// view removed from the middle leaves the others found where they now are.
    @Test func viewsAreListedBySetAndFoundAfterARemoval() {
        let all = ViewDefinition(), allByYear = ViewDefinition(sections: .year)
        let records = Self.records(seed: 11, 1...40)
        var projection = TimelineProjection(records: records, views: [Self.home, all, Self.homeByYearDescending, allByYear],
                                            now: Self.now)
        #expect(projection.viewDefinitions == [Self.home, Self.homeByYearDescending, all, allByYear])
        projection.removeView(Self.home)
        #expect(projection.viewDefinitions == [Self.homeByYearDescending, all, allByYear])
        for view in [Self.homeByYearDescending, all, allByYear] {
            Self.expectAsAlone(view, in: projection, records: records)
            #expect(projection.viewPosition(view) == 40)
        }
        projection.removeView(Self.homeByYearDescending)
        #expect(projection.rowSets.count == 1)
        Self.expectAsAlone(allByYear, in: projection, records: records)
    }

    @Test func removingAViewKeepsTheRowsForTheOthersUntilTheLast() {
        let records = Self.records(seed: 7, 1...60)
        var projection = TimelineProjection(records: Array(records.prefix(30)),
                                            views: [Self.home, Self.homeByYearDescending], now: Self.now)
        projection.removeView(Self.home)
        #expect(projection.rows(Self.home) == nil)
        #expect(projection.viewDefinitions == [Self.homeByYearDescending])
        projection.apply(Array(records.dropFirst(30)))
        Self.expectAsAlone(Self.homeByYearDescending, in: projection, records: records)
        projection.removeView(Self.homeByYearDescending)
        #expect(projection.rowSets.isEmpty)
        #expect(projection.viewDefinitions.isEmpty)
    }

    @Test func aCheckpointSavesEachSetOfRowsOnceAndRefusesRepeatedViews() throws {
        var projection = TimelineProjection(records: Self.records(seed: 3, 1...30),
                                            views: [Self.home, Self.homeByYearDescending], now: Self.now)
        let restored = TimelineProjection(try Checkpoint.load(projection.checkpoint().encoded()))
        #expect(restored.rowSets.count == 1)
        CheckpointTests.expectEqual(restored, projection)

        var repeatedSet = projection
        repeatedSet.rowSets.append(repeatedSet.rowSets[0])
        #expect(throws: Checkpoint.Failure.damaged("two sets of rows of one filter and placement")) {
            try Checkpoint.load(repeatedSet.checkpoint().encoded())
        }
        var viewless = projection
        viewless.rowSets[0].removeView(at: 1)
        viewless.rowSets[0].removeView(at: 0)
        #expect(throws: Checkpoint.Failure.damaged("a set of rows without views")) {
            try Checkpoint.load(viewless.checkpoint().encoded())
        }
        projection.rowSets[0].addView(Self.home, position: 1, now: Self.now.microsecondsSinceEpoch)
        #expect(throws: Checkpoint.Failure.damaged("a view saved twice")) {
            try Checkpoint.load(projection.checkpoint().encoded())
        }
    }
}
