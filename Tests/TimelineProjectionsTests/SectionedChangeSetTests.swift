import TimelineTestSupport
import Testing
import TimelineCore
@testable import TimelineProjections

/// Checks a view's change set with the strict simulator of UIKit's batch updates: flat, as
/// a table of one section, and, for a view with sections, in sections.
func simulate(_ changeSet: ChangeSet, old: [Row], oldSections: [RowSection], new: [Row], newSections: [RowSection],
              sourceLocation: SourceLocation = #_sourceLocation) {
    if changeSet.isReset {
        #expect(changeSet.sectioned == nil, "a reset has no positions", sourceLocation: sourceLocation)
        return
    }
    do {
        #expect(try BatchUpdateSimulator.apply(flat: changeSet, old: old, new: new) == new, sourceLocation: sourceLocation)
    } catch {
        Issue.record("flat, \(changeSet.view): \(error)", sourceLocation: sourceLocation)
    }
    guard changeSet.view.sections != .none else {
        // A list without sections animates too: its positions are all in section 0, the one
        // section of a plain table.
        guard let sectioned = changeSet.sectioned else {
            Issue.record("no index paths for a list without sections", sourceLocation: sourceLocation)
            return
        }
        #expect(sectioned.sectionDeletions.isEmpty && sectioned.sectionInsertions.isEmpty, sourceLocation: sourceLocation)
        do {
            #expect(try BatchUpdateSimulator.apply(sectioned, old: [old], new: [new]) == [new], sourceLocation: sourceLocation)
        } catch {
            Issue.record("one section, \(changeSet.view): \(error)\n\(sectioned)", sourceLocation: sourceLocation)
        }
        return
    }
    guard let sectioned = changeSet.sectioned else {
        Issue.record("no sectioned form for \(changeSet.view)", sourceLocation: sourceLocation)
        return
    }
    #expect(sectioned.sectionDeletions == changeSet.sectionRemovals, sourceLocation: sourceLocation)
    #expect(sectioned.sectionInsertions == changeSet.sectionInsertions, sourceLocation: sourceLocation)
    let oldGroups = BatchUpdateSimulator.grouped(old, oldSections.map(\.count))
    let newGroups = BatchUpdateSimulator.grouped(new, newSections.map(\.count))
    do {
        let result = try BatchUpdateSimulator.apply(sectioned, old: oldGroups, new: newGroups,
                                                    ids: (oldSections.map(\.id), newSections.map(\.id)))
        #expect(result == newGroups, sourceLocation: sourceLocation)
    } catch {
        Issue.record("sectioned, \(changeSet.view): \(error)\n\(sectioned)\nold \(oldSections)\nnew \(newSections)",
                     sourceLocation: sourceLocation)
    }
}

@Suite("Sectioned change sets")
struct SectionedChangeSetTests {
    /// Clock readings around the generator's dates and the boundaries of their years,
    /// months and decades, and after them.
    static let clockReadings = [
        "1985", "1989-12-31T23:00Z", "1990-04-12", "1990-04-12T00:00:00.000001Z", "1999-12-31T23:59:59Z", "2000",
        "2000-02-29", "2010-06-15T11:00Z", "2019-02-28T23:59Z", "2019-03", "2020-12-31T23:59:59.7Z", "2021",
        "2024-02-29", "2025-06", "2025-12-31T23:59Z", "2026-01", "2027-03", "2031",
    ].map { date($0).instant }

    /// Every view (all and one timeline × placement × order × sections), random batches of
    /// every kind of command and clock moves both ways: each change set, flat and in
    /// sections, applies under UIKit's rules and gives the new rows; a view without a
    /// change set did not change.
    @Test(arguments: 0..<6)
    func everyChangeSetAppliesAsUIKitRequires(seed: UInt64) {
        var generator = FactGenerator(seed: seed)
        var rng = SplitMix64(seed: seed &+ 77)
        var projection = TimelineProjection(views: allViews, now: Self.clockReadings[5])
        var position: Int64 = 0
        var nonEmptySectioned = 0
        for _ in 0..<100 {
            let old = Dictionary(uniqueKeysWithValues: allViews.map {
                ($0, (rows: Array(projection.rows($0)!), sections: Array(projection.sections($0))))
            })
            let changes: ProjectionChanges
            if Int.random(in: 0..<4, using: &rng) == 0 {
                changes = projection.advanceClock(to: Self.clockReadings.randomElement(using: &rng)!)
            } else {
                var batch: [Record] = []
                let size = Int.random(in: 0..<8, using: &rng) == 0 ? Int.random(in: 9...14, using: &rng) : Int.random(in: 1...3, using: &rng)
                for _ in 0..<size {
                    position += 1
                    batch.append(Record(position: position, facts: generator.nextFacts()))
                }
                changes = projection.apply(batch)
            }
            for view in allViews {
                let rows = Array(projection.rows(view)!), sections = Array(projection.sections(view))
                guard let changeSet = changes.changeSet(for: view) else {
                    #expect(rows == old[view]!.rows && sections == old[view]!.sections, "\(view) changed without a change set")
                    continue
                }
                #expect(!changeSet.isEmpty)
                simulate(changeSet, old: old[view]!.rows, oldSections: old[view]!.sections, new: rows, newSections: sections)
                if changeSet.sectioned?.isEmpty == false { nonEmptySectioned += 1 }
            }
        }
        #expect(nonEmptySectioned > 100, "the sectioned forms were exercised")
    }

    /// An open range started in 2026, all rows ascending at now by year: when the clock
    /// enters 2027 the ongoing row leaves section 2026 for a new section 2027 at the same
    /// flat index; the change must delete it from 2026 (the new section brings it).
    @Test func anOngoingRowLeavesItsYearWhenTheClockEntersTheNext() throws {
        let view = ViewDefinition(filter: .all, placement: .now, order: .ascending, sections: .year)
        var projection = TimelineProjection(views: [view], now: date("2026-06-01").instant)
        projection.apply(Record(position: 1, facts: [
            .timelineCreated(timeline: "t", name: "T"),
            .eventAdded(event: "e", timeline: "t", title: "Living here", date: date("2026-03")),
            .rangeSet(event: "e", start: date("2026-03"), end: nil),
        ]))
        let oldRows = Array(projection.rows(view)!), oldSections = Array(projection.sections(view))
        let changes = projection.advanceClock(to: date("2027-01-02").instant)
        let changeSet = try #require(changes.changeSet(for: view))
        #expect(changeSet.removals.isEmpty && changeSet.insertions.isEmpty && changeSet.moves.isEmpty)
        #expect(changeSet.sectioned == SectionedChangeSet(sectionInsertions: [1], deletions: [RowPath(section: 0, item: 1)]))
        simulate(changeSet, old: oldRows, oldSections: oldSections, new: Array(projection.rows(view)!),
                 newSections: Array(projection.sections(view)))
    }

    /// An event's start moves from 2029-04 to 2029-03, by month, and keeps its flat index:
    /// it is a move from section 2029-04 (which stays) into 2029-03 (which stays).
    @Test func aRowThatChangesMonthAtTheSameIndexMoves() throws {
        let view = ViewDefinition(filter: .all, placement: .last, order: .ascending, sections: .month)
        var projection = TimelineProjection(views: [view], now: date("2026-06-01").instant)
        projection.apply(Record(position: 1, facts: [
            .timelineCreated(timeline: "t", name: "T"),
            .eventAdded(event: "a", timeline: "t", title: "A", date: date("2029-03-10")),
            .eventAdded(event: "b", timeline: "t", title: "B", date: date("2029-04-20")),
            .eventAdded(event: "c", timeline: "t", title: "C", date: date("2029-04-25")),
        ]))
        let oldRows = Array(projection.rows(view)!), oldSections = Array(projection.sections(view))
        let changes = projection.apply(Record(position: 2, facts: [.dateSet(event: "b", date: date("2029-03-20"))]))
        let changeSet = try #require(changes.changeSet(for: view))
        #expect(changeSet.moves.isEmpty, "the flat index stays 1")
        #expect(changeSet.sectioned == SectionedChangeSet(
            moves: [.init(from: RowPath(section: 1, item: 0), to: RowPath(section: 0, item: 1))],
            updates: [.init(id: RowID(event: "b", role: .start), path: RowPath(section: 0, item: 1))]))
        simulate(changeSet, old: oldRows, oldSections: oldSections, new: Array(projection.rows(view)!),
                 newSections: Array(projection.sections(view)))
    }

    /// The simulator itself refuses what UIKit refuses.
    @Test func theSimulatorRefusesWhatUIKitRefuses() {
        func row(_ id: String) -> Row {
            Row(id: RowID(event: EventID(id), role: .start), kind: .single, timeline: "t", title: id, date: date("2020"))
        }
        let a = row("a"), b = row("b"), c = row("c")
        let old = [[a, b], [c]]
        // The issue's crash: a row changes section with no change listed.
        #expect(throws: BatchUpdateSimulator.Violation.self) {
            try BatchUpdateSimulator.apply(SectionedChangeSet(), old: old, new: [[a], [b, c]])
        }
        #expect(throws: BatchUpdateSimulator.Violation.self) {  // an index out of range
            try BatchUpdateSimulator.apply(SectionedChangeSet(deletions: [RowPath(section: 1, item: 1)]), old: old, new: [[a, b]])
        }
        #expect(throws: BatchUpdateSimulator.Violation.self) {  // a deletion in a deleted section
            try BatchUpdateSimulator.apply(SectionedChangeSet(sectionDeletions: [1], deletions: [RowPath(section: 1, item: 0)]),
                                           old: old, new: [[a, b]])
        }
        #expect(throws: BatchUpdateSimulator.Violation.self) {  // a move whose source is also deleted
            try BatchUpdateSimulator.apply(SectionedChangeSet(
                deletions: [RowPath(section: 0, item: 1)],
                moves: [.init(from: RowPath(section: 0, item: 1), to: RowPath(section: 1, item: 0))]),
                old: old, new: [[a], [b, c]])
        }
        #expect(throws: BatchUpdateSimulator.Violation.self) {  // a changed row not reconfigured
            var changed = b
            changed.title = "B"
            return try BatchUpdateSimulator.apply(SectionedChangeSet(), old: old, new: [[a, changed], [c]])
        }
        let move = SectionedChangeSet(moves: [.init(from: RowPath(section: 0, item: 1), to: RowPath(section: 1, item: 0))])
        #expect((try? BatchUpdateSimulator.apply(move, old: old, new: [[a], [b, c]])) == [[a], [b, c]])
    }

    @Test func sectionIDsNameAndOrderTheirPeriods() {
        #expect(RowSection.ID.year(2019).description == "2019")
        #expect(RowSection.ID.month(year: 2019, month: 3).description == "2019-03")
        #expect(RowSection.ID.decade(startingIn: 2010).description == "2010s")
        #expect(RowSection.ID.ongoing.description == "ongoing")
        #expect(RowSection.ID.year(2019) < .year(2020) && RowSection.ID.year(2020) < .ongoing)
        #expect(RowSection.ID.month(year: 2019, month: 12) < .month(year: 2020, month: 1))
        #expect(RowSection.ID.year(2019) != .decade(startingIn: 2010))
        #expect(RowSection(id: .year(2019), count: 2).title == "2019")
    }

    /// The `rank`-th integer missing from a sorted list, against counting.
    @Test(arguments: 0..<20)
    func missingIntegersAreFoundByRank(seed: UInt64) {
        var rng = SplitMix64(seed: seed)
        let sorted = Array(Set((0..<Int.random(in: 0..<12, using: &rng)).map { _ in Int.random(in: 0..<30, using: &rng) })).sorted()
        let missing = (0..<60).filter { !sorted.contains($0) }
        for rank in 0..<20 { #expect(SectionedChangeSet.missing(rank, from: sorted) == missing[rank]) }
    }
}

@Suite("Change sets as values")
struct ChangeSetValueTests {
    /// An app's test can build the change set it expects and compare it with one a view sent.
    @Test func aChangeSetBuiltByHandEqualsTheOneAViewSends() throws {
        let view = ViewDefinition(placement: .last, sections: .year)
        var projection = TimelineProjection(views: [view], now: date("2026-06-01").instant)
        projection.apply(Record(position: 1, facts: [
            .timelineCreated(timeline: "t", name: "T"),
            .eventAdded(event: "a", timeline: "t", title: "A", date: date("2019-03")),
        ]))
        let changes = projection.apply(Record(position: 2, facts: [
            .eventAdded(event: "b", timeline: "t", title: "B", date: date("2019-05")),
        ]))
        let sent = try #require(changes.changeSet(for: view))
        let expected = ChangeSet(
            view: view, from: 1, to: 2, insertions: [1], sectionsChanged: true,
            rows: projection.rows(view)!, sections: projection.sections(view),
            sectioned: SectionedChangeSet(insertions: [RowPath(section: 0, item: 1)]))
        #expect(sent == expected)
        #expect(sent != ChangeSet(view: view, from: 1, to: 2, insertions: [1], sectionsChanged: true,
                                  rows: projection.rows(view)!, sections: projection.sections(view),
                                  sectioned: SectionedChangeSet(insertions: [RowPath(section: 0, item: 0)])))
        #expect(sent != ChangeSet(view: view, from: 1, to: 2, insertions: [1], sectionsChanged: true,
                                  sections: projection.sections(view),
                                  sectioned: SectionedChangeSet(insertions: [RowPath(section: 0, item: 1)])),
                "other rows")
        #expect(ChangeSet(view: view, from: 0, to: 1, isReset: true).sectioned == nil)
    }

    /// A list without sections gives its change as index paths in section 0: an insertion,
    /// a removal, a move and an update at once, applied as one batch by the strict
    /// simulator of UIKit's rules, give the new rows.
    @Test func aListWithoutSectionsGivesIndexPathsInSectionZero() throws {
        let view = ViewDefinition(placement: .now, order: .ascending, sections: .none)
        var projection = TimelineProjection(views: [view], now: date("2026-06-01").instant)
        projection.apply(Record(position: 1, facts: [
            .timelineCreated(timeline: "t", name: "T"),
            .eventAdded(event: "a", timeline: "t", title: "A", date: date("2001")),
            .eventAdded(event: "b", timeline: "t", title: "B", date: date("2002")),
            .eventAdded(event: "c", timeline: "t", title: "C", date: date("2003")),
            .eventAdded(event: "d", timeline: "t", title: "D", date: date("2004")),
        ]))
        let old = Array(projection.rows(view)!)
        // a goes; c moves after d and is retitled; e comes first; b is retitled in place.
        let changes = projection.apply(Record(position: 2, facts: [
            .eventRemoved(event: "a"),
            .dateSet(event: "c", date: date("2005")),
            .eventRetitled(event: "c", title: "C, later"),
            .eventRetitled(event: "b", title: "B, renamed"),
            .eventAdded(event: "e", timeline: "t", title: "E", date: date("2000")),
        ]))
        let changeSet = try #require(changes.changeSet(for: view))
        let new = Array(projection.rows(view)!)
        #expect(new.map(\.id.event) == ["e", "b", "d", "c"])
        let sectioned = try #require(changeSet.sectioned, "a flat list has index paths")
        func path(_ item: Int) -> RowPath { RowPath(section: 0, item: item) }
        #expect(sectioned.sectionDeletions.isEmpty && sectioned.sectionInsertions.isEmpty)
        #expect(sectioned.deletions == changeSet.removals.map(path))
        #expect(sectioned.insertions == changeSet.insertions.map(path))
        #expect(sectioned.moves == changeSet.moves.map { .init(from: path($0.from), to: path($0.to)) })
        #expect(Set(sectioned.updates.map(\.id)) == Set(changeSet.updates))
        #expect(sectioned.updates.map(\.path) == [path(1), path(3)], "updates at their new positions, in order")
        #expect(try BatchUpdateSimulator.apply(sectioned, old: [old], new: [new]) == [new])
        // The same from a change set made by hand for a view without sections.
        let byHand = ChangeSet(view: view, from: 1, to: 2, removals: changeSet.removals, insertions: changeSet.insertions,
                               moves: changeSet.moves, updates: changeSet.updates, rows: projection.rows(view)!)
        #expect(byHand.sectioned == sectioned)
        #expect(byHand == changeSet)
    }
}
