import TimelineTestSupport
import Testing
import TimelineCore
@testable import TimelineProjections

/// Checks one change set against the rows before and after it.
func checkChangeSet(_ changeSet: ChangeSet, old: [Row], new: [Row], oldSections: SectionList,
                    sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(Array(changeSet.rows) == new, sourceLocation: sourceLocation)
    #expect(!changeSet.isEmpty, "empty change set", sourceLocation: sourceLocation)
    #expect(changeSet.applied(to: old) == new, "applying the change set", sourceLocation: sourceLocation)
    if changeSet.isReset { return }
    #expect(changeSet.sectionsChanged == (Array(oldSections) != Array(changeSet.sections)),
            "sections changed", sourceLocation: sourceLocation)
    let sources = changeSet.removals + changeSet.moves.map(\.from)
    let destinations = changeSet.insertions + changeSet.moves.map(\.to)
    #expect(Set(sources).count == sources.count, "an old index used twice", sourceLocation: sourceLocation)
    #expect(Set(destinations).count == destinations.count, "a new index used twice", sourceLocation: sourceLocation)
    #expect(sources.allSatisfy { old.indices.contains($0) }, "old index out of range", sourceLocation: sourceLocation)
    #expect(destinations.allSatisfy { new.indices.contains($0) }, "new index out of range", sourceLocation: sourceLocation)
    #expect(changeSet.removals == changeSet.removals.sorted(), sourceLocation: sourceLocation)
    #expect(changeSet.insertions == changeSet.insertions.sorted(), sourceLocation: sourceLocation)
    let oldByID = Dictionary(uniqueKeysWithValues: old.map { ($0.id, $0) })
    let newByID = Dictionary(uniqueKeysWithValues: new.map { ($0.id, $0) })
    for id in changeSet.updates {
        #expect(oldByID[id] != nil && newByID[id] != nil && oldByID[id] != newByID[id],
                "update of \(id) without a change of content", sourceLocation: sourceLocation)
    }
    for (id, row) in newByID where oldByID[id] != nil && oldByID[id] != row {
        #expect(changeSet.updates.contains(id), "changed row \(id) not in updates", sourceLocation: sourceLocation)
    }
    #expect(changeSet.sectionRemovals.allSatisfy { oldSections.indices.contains($0) }, sourceLocation: sourceLocation)
    #expect(changeSet.sectionInsertions.allSatisfy { changeSet.sections.indices.contains($0) }, sourceLocation: sourceLocation)
    let oldNames = oldSections.map(\.title), newNames = changeSet.sections.map(\.title)
    var names = oldNames
    for index in changeSet.sectionRemovals.sorted(by: >) { names.remove(at: index) }
    for index in changeSet.sectionInsertions.sorted() { names.insert(newNames[index], at: index) }
    #expect(names == newNames, "applying section changes", sourceLocation: sourceLocation)
}

@Suite("Projection properties")
struct ProjectionPropertyTests {
    static let now = date("2015-06-01T12:00Z").instant

    @Test(arguments: 0..<40)
    func incrementalEqualsReferenceAndRebuild(seed: UInt64) {
        // Mostly one to three commands' records, sometimes 9 to 14.
        Self.checkBatches(seed: seed, resetThreshold: nil) { rng in
            Int.random(in: 0..<8, using: &rng) == 0 ? Int.random(in: 9...14, using: &rng) : Int.random(in: 1...3, using: &rng)
        }
    }

    /// Batches of more facts than the reset threshold (an import) take another path:
    /// the events first, then each view's rows projected or sorted afresh. Their rows,
    /// sections, summaries and change sets must be the same as fact by fact, with resets
    /// in some views and detailed change sets in others.
    @Test(arguments: 0..<30)
    func largeBatchesEqualReferenceAndRebuild(seed: UInt64) {
        Self.checkBatches(seed: seed, resetThreshold: Int(seed % 6) + 2) { rng in
            Int.random(in: 0..<3, using: &rng) == 0 ? Int.random(in: 1...3, using: &rng) : Int.random(in: 8...40, using: &rng)
        }
    }

    /// Applies 60 random batches of `batchSize` records and checks every view against the
    /// reference model after each, every change set against the rows before and after it,
    /// and the result against a rebuild from all the records.
    static func checkBatches(seed: UInt64, resetThreshold: Int?, batchSize: (inout SplitMix64) -> Int) {
        var generator = FactGenerator(seed: seed)
        var projection = TimelineProjection(views: allViews, now: Self.now)
        if let resetThreshold { projection.resetThreshold = resetThreshold }
        var records: [Record] = []
        var positions = Dictionary(uniqueKeysWithValues: allViews.map { ($0, Int64(0)) })
        var summaryPosition: Int64 = 0
        var rng = SplitMix64(seed: seed &+ 1000)
        for _ in 0..<60 {
            var batch: [Record] = []
            for _ in 0..<batchSize(&rng) {
                batch.append(Record(position: Int64(records.count + batch.count + 1), facts: generator.nextFacts()))
            }
            let oldRows = Dictionary(uniqueKeysWithValues: allViews.map { ($0, Array(projection.rows($0)!)) })
            let oldSections = Dictionary(uniqueKeysWithValues: allViews.map { ($0, projection.sections($0)) })
            let oldSummaries = projection.timelineSummaries
            let changes = projection.apply(batch)
            records += batch
            #expect(projection.position == Int64(records.count))
            for view in allViews {
                let expected = ReferenceModel.rows(generator.state, view, now: Self.now)
                let rows = Array(projection.rows(view)!)
                #expect(rows == expected, "seed \(seed) view \(view)")
                #expect(Array(projection.sections(view)) == ReferenceModel.sections(generator.state, view, now: Self.now))
                if let changeSet = changes.changeSet(for: view) {
                    checkChangeSet(changeSet, old: oldRows[view]!, new: rows, oldSections: oldSections[view]!)
                    #expect(changeSet.from == positions[view]!, "change sets chain")
                    #expect(changeSet.to == Int64(records.count))
                    positions[view] = changeSet.to
                } else {
                    #expect(oldRows[view]! == rows, "a view changed without a change set")
                    #expect(oldSections[view]! == projection.sections(view))
                }
            }
            #expect(changes.rows.count == Set(changes.rows.map(\.view)).count, "one change set per view")
            if let summaryChanges = changes.summaries {
                #expect(summaryChanges.from == summaryPosition)
                summaryPosition = summaryChanges.to
                #expect(summaryChanges.applied(to: oldSummaries) == projection.timelineSummaries)
            } else {
                #expect(oldSummaries == projection.timelineSummaries)
            }
        }
        let rebuilt = TimelineProjection(records: records, views: allViews, now: Self.now)
        for view in allViews {
            #expect(Array(rebuilt.rows(view)!) == Array(projection.rows(view)!))
            #expect(rebuilt.sections(view) == projection.sections(view))
        }
        #expect(rebuilt.timelineSummaries == projection.timelineSummaries)
        #expect(projection.timelineSummaries == ReferenceSummaries.of(generator.state))
    }

    @Test(arguments: 0..<25)
    func advancingTheClockEqualsRebuildingAtTheNewNow(seed: UInt64) {
        var generator = FactGenerator(seed: seed)
        let nowViews = allViews.filter { $0.placement == .now }
        var records: [Record] = []
        for i in 1...60 { records.append(Record(position: Int64(i), facts: generator.nextFacts())) }
        var now = date("1980").instant
        var projection = TimelineProjection(records: records, views: nowViews, now: now)
        let steps = ["1990", "1990-04-12", "1990-04-12", "1999-12-31T23:59:59Z", "2000", "2000-02-29T00:00:00.000001Z",
                     "2010-06-15T10:30Z", "2010-06-15T10:30:00.000001Z", "2019", "2019-03", "2024-02-29", "2030", "2015"].map { date($0).instant }
        for next in steps {
            let oldRows = Dictionary(uniqueKeysWithValues: nowViews.map { ($0, Array(projection.rows($0)!)) })
            let oldSections = Dictionary(uniqueKeysWithValues: nowViews.map { ($0, projection.sections($0)) })
            let changes = projection.advanceClock(to: next)
            now = next
            for view in nowViews {
                let rows = Array(projection.rows(view)!)
                #expect(rows == ReferenceModel.rows(generator.state, view, now: now), "seed \(seed) now \(now) \(view)")
                #expect(Array(projection.sections(view)) == ReferenceModel.sections(generator.state, view, now: now))
                if let changeSet = changes.changeSet(for: view) {
                    checkChangeSet(changeSet, old: oldRows[view]!, new: rows, oldSections: oldSections[view]!)
                } else {
                    #expect(oldRows[view]! == rows)
                    #expect(oldSections[view]! == projection.sections(view))
                }
            }
            let rebuilt = TimelineProjection(records: records, views: nowViews, now: now)
            for view in nowViews { #expect(Array(rebuilt.rows(view)!) == Array(projection.rows(view)!)) }
        }
    }

    /// Moving the clock backwards sends a view a change set only if it changed, going on
    /// from the view's last change set, however long ago that was.
    @Test(arguments: 0..<4)
    func theClockGoingBackChangesOnlyTheViewsItMoves(seed: UInt64) {
        var generator = FactGenerator(seed: seed)
        let views = allViews.filter { $0.placement != .first }
        var projection = TimelineProjection(views: views, now: Self.now)
        var positions = Dictionary(uniqueKeysWithValues: views.map { ($0, Int64(0)) })
        for position in 1...40 {
            let changes = projection.apply(Record(position: Int64(position), facts: generator.nextFacts()))
            for changeSet in changes.rows { positions[changeSet.view] = changeSet.to }
        }
        #expect(positions.values.contains { $0 < projection.position }, "some view's last change is behind")
        let old = Dictionary(uniqueKeysWithValues: views.map { ($0, (Array(projection.rows($0)!), projection.sections($0))) })
        let changes = projection.advanceClock(to: date("2001").instant)
        for view in views {
            let rows = Array(projection.rows(view)!)
            #expect(rows == ReferenceModel.rows(generator.state, view, now: projection.now))
            guard let changeSet = changes.changeSet(for: view) else {
                #expect(rows == old[view]!.0 && projection.sections(view) == old[view]!.1, "\(view) changed unsent")
                continue
            }
            #expect(view.placement == .now)
            checkChangeSet(changeSet, old: old[view]!.0, new: rows, oldSections: old[view]!.1)
            #expect(changeSet.from == positions[changeSet.view], "\(changeSet.view)")
            #expect(changeSet.to == projection.position)
            #expect(projection.viewPosition(changeSet.view) == projection.position)
        }
        #expect(!changes.rows.isEmpty)
    }

    /// A clock moved back sends nothing to a view it does not change: an empty view, or
    /// one whose ongoing rows stay where they are.
    @Test func theClockGoingBackSendsNothingForNothing() {
        let empty = ViewDefinition(filter: .timeline("nothing"), placement: .now)
        let dated = ViewDefinition(filter: .timeline("dated"), placement: .now, sections: .year)
        let ongoing = ViewDefinition(filter: .timeline("ongoing"), placement: .now)
        var projection = TimelineProjection(views: [empty, dated, ongoing], now: date("2030").instant)
        projection.apply(Record(position: 1, facts: [
            .timelineCreated(timeline: "dated", name: "Dated"), .timelineCreated(timeline: "ongoing", name: "Ongoing"),
            .eventAdded(event: "d", timeline: "dated", title: "D", date: date("2001")),
            .eventAdded(event: "o", timeline: "ongoing", title: "O", date: date("2010")),
            .rangeSet(event: "o", start: date("2010"), end: nil),
            .eventAdded(event: "p", timeline: "ongoing", title: "P", date: date("2020")),
            .rangeSet(event: "p", start: date("2020"), end: nil),
        ]))
        // Back to 2025: the rows at now pass no row.
        let changes = projection.advanceClock(to: date("2025").instant)
        #expect(changes.rows.isEmpty, "nothing moved: \(changes.rows.map(\.view))")
        // Back to 2015: P's ongoing row goes back to its start, after O's ongoing row at now.
        let back = projection.advanceClock(to: date("2015").instant)
        #expect(back.rows.map(\.view) == [ongoing])
        #expect(back.rows.first?.isReset == false)
        #expect(Array(projection.rows(ongoing)!).map(\.id.description) == ["o/start", "o/end", "p/start", "p/end"])
    }
}

enum ReferenceSummaries {
    static func of(_ state: DomainState) -> [TimelineSummary] {
        state.timelines.values.map { timeline in
            let events = state.events.values.filter { $0.timeline == timeline.id }
            let dates = events.flatMap { event -> [DateValue] in
                switch event.dates {
                case .single(let d): [d]
                case .range(let s, let e): [s] + (e.map { [$0] } ?? [])
                }
            }.sorted()
            return TimelineSummary(id: timeline.id, name: timeline.name, eventCount: events.count,
                                   earliest: dates.first, latest: dates.last,
                                   ongoingCount: events.filter(\.dates.isOpenRange).count)
        }.sorted { a, b in
            let an = Array(a.name.utf8), bn = Array(b.name.utf8)
            return an != bn ? an.lexicographicallyPrecedes(bn) : Array(a.id.rawValue.utf8).lexicographicallyPrecedes(Array(b.id.rawValue.utf8))
        }
    }
}
