import Foundation
import Testing
import TimelineCore
import TimelineProjections
@testable import TimelineKit

/// Importing facts from elsewhere: checked against the store's state, appended as one
/// atomic batch or not at all, projected and published like a batch of commands.
@Suite("Store: importing facts")
struct StoreImportTests {
    static let views = [
        ViewDefinition(),
        ViewDefinition(filter: .timeline("work"), order: .descending, sections: .year),
        ViewDefinition(placement: .last, sections: .decade),
    ]

    /// Facts from another log: they depend on each other and on the `life` timeline the
    /// store already has.
    static let foreign: [Fact] = [
        .eventAdded(event: "berlin", timeline: "life", title: "Living in Berlin", date: date("2019-03")),
        .rangeSet(event: "berlin", start: date("2019-03"), end: nil),
        .timelineCreated(timeline: "work", name: "Work"),
        .eventAdded(event: "job", timeline: "work", title: "First job", date: date("2008-09-01")),
        .rangeSet(event: "job", start: date("2008-09-01"), end: nil),
        .rangeClosed(event: "job", end: date("2012")),
        .eventMoved(event: "born", timeline: "work"),
        .eventRetitled(event: "born", title: "Birth"),
        .eventAdded(event: "school", timeline: "life", title: "School", date: date("1996-09")),
        .dateSet(event: "school", date: date("1996-09-02")),
    ]

    /// A store on a file log in `directory`, with the `life` timeline and one event.
    func makeStore(in directory: TemporaryDirectory) async throws -> (TimelineStore, String) {
        let path = directory.path + "/store.jsonl"
        let store = try TimelineStore(path: path, clock: ManualClock(fixedNow), views: Self.views)
        try await store.send(.createTimeline("life", name: "My life"))
        try await store.send(.addEvent("born", timeline: "life", title: "Born", dates: .single(date("1990-04-12"))))
        return (store, path)
    }

    @Test func anAcceptedImportIsOneAtomicBatchAndIsPublished() async throws {
        let directory = TemporaryDirectory()
        let (store, path) = try await makeStore(in: directory)
        let stream = await store.changes()
        let importedAt = date("2027-01-02T03:04:05Z")
        (store.clock as? ManualClock)?.set(importedAt.instant)

        let records = try await store.importFacts(Self.foreign).records
        let count = Self.foreign.count
        #expect(records.map(\.position) == Array(3...Int64(2 + count)))
        #expect(records.map(\.facts) == Self.foreign.map { [$0] })
        #expect(records.map(\.batchRemainder) == Array((0..<count).reversed()), "one batch, chained by `more`")
        #expect(records.allSatisfy { $0.recordedAt?.text == importedAt.text }, "recorded at the import")
        #expect(await store.position == Int64(2 + count))

        // The log on disk holds the same batch.
        let onDisk = try FileEventLog.read(path: path).records
        #expect(Array(onDisk.suffix(count)) == records)

        // One change set for the whole import, chained to the initial rows.
        let (rows, changeSets) = await follow(stream, until: Int64(2 + count))
        #expect(changeSets.count == 2)
        #expect(changeSets.last?.from == 2)
        #expect(changeSets.last?.isReset == false)
        #expect(rows == Array(await store.rows()))
        #expect(rows.map(\.id.event) == ["born", "school", "job", "job", "berlin", "berlin"])

        // The state knows the imported facts: later commands are decided after them.
        try await store.send(.closeRange("berlin", end: date("2024-06")))
        await #expect(throws: StoreError.rejected(.eventExists("job"))) {
            try await store.send(.addEvent("job", timeline: "life", title: "Again", dates: .single(date("2000"))))
        }
        try await store.close()
    }

    @Test func aRefusedImportThrowsTheExactErrorAndLeavesTheLogByteForByte() async throws {
        let directory = TemporaryDirectory()
        let (store, path) = try await makeStore(in: directory)
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let rowsBefore = Array(await store.rows())

        // Fact 3 is refused after the store's facts and the import's facts before it.
        var facts = Self.foreign
        facts.insert(.rangeClosed(event: "berlin", end: date("2018")), at: 3)
        let lines = Array(101...(100 + facts.count))
        await #expect(throws: StoreError.importRefused(
            index: 3, line: 104, type: .rangeClosed,
            rejection: .endBeforeStart(event: "berlin", start: date("2019-03"), end: date("2018")))) {
            try await store.importFacts(facts, lines: lines)
        }
        // A fact fine on its own but not after the store's records.
        let again: [Fact] = [.timelineCreated(timeline: "travel", name: "Travel"),
                             .timelineCreated(timeline: "life", name: "Life")]
        let error = await #expect(throws: StoreError.self) { try await store.importFacts(again) }
        #expect(error == .importRefused(index: 1, line: nil, type: .timelineCreated, rejection: .timelineExists("life")))
        #expect(error?.description
                    == #"import refused at fact index 1: timelineCreated: timeline "life" already exists; nothing imported"#)

        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
        #expect(await store.position == 2)
        #expect(Array(await store.rows()) == rowsBefore)
        // The state is as it was: the refused import's timeline was not kept.
        await #expect(throws: StoreError.rejected(.unknownTimeline("travel"))) {
            try await store.send(.renameTimeline("travel", name: "Trips"))
        }
        try await store.close()
    }

    @Test func subscribersRowsAfterAnImportEqualARebuild() async throws {
        let directory = TemporaryDirectory()
        let (store, _) = try await makeStore(in: directory)
        var streams: [(ViewDefinition, ChangeStream)] = []
        for view in Self.views { streams.append((view, await store.changes(view))) }
        try await store.importFacts(Self.foreign)
        // A second import that removes a timeline and reuses an id it freed.
        try await store.importFacts([
            .timelineRemoved(timeline: "life"),
            .timelineCreated(timeline: "life", name: "Life again"),
            .eventAdded(event: "berlin", timeline: "life", title: "Berlin again", date: date("2020")),
            .rangeReopened(event: "job"),
        ])
        let position = await store.position
        let rebuilt = TimelineProjection(records: try store.log.records(after: 0), views: Self.views, now: fixedNow)
        for (view, stream) in streams {
            let (rows, changeSets) = await follow(stream, until: position)
            #expect(changeSets.count == 3, "the initial rows, then one change set per import")
            #expect(rows == Array(rebuilt.rows(view) ?? RowList()), "\(view)")
            #expect(!rows.isEmpty)
        }
        try await store.close()
    }

    @Test func aLargeImportReachesSubscribersAsOneReset() async throws {
        let store = try TimelineStore(clock: ManualClock(fixedNow))
        try await store.send(.createTimeline("life", name: "My life"))
        let stream = await store.changes(bufferLimit: 100_000)
        let count = 10_001  // more rows than the projection animates
        let facts = [Fact.timelineCreated(timeline: "many", name: "Many")] + (0..<count).map { i in
            Fact.eventAdded(event: EventID("e\(i)"), timeline: "many", title: "Event \(i)",
                            date: date("\(1000 + i % 9000)"))
        }
        try await store.importFacts(facts)
        let (rows, changeSets) = await follow(stream, until: Int64(1 + facts.count))
        #expect(changeSets.count == 2)
        #expect(changeSets.last?.isReset == true)
        #expect(changeSets.last?.from == changeSets.first?.to, "chained to the initial rows")
        #expect(changeSets.last?.to == Int64(1 + facts.count))
        #expect(rows.count == count)
        #expect(rows == Array(await store.rows()))
    }

    @Test func anEmptyImportAppendsNothing() async throws {
        let directory = TemporaryDirectory()
        // A file log refuses an empty batch: the store must not ask it to append one.
        let store = try TimelineStore(log: FileEventLog(path: directory.path + "/empty.jsonl"),
                                      clock: ManualClock(fixedNow))
        #expect(try await store.importFacts([]).records.isEmpty)
        #expect(try await store.importFacts([], lines: []).records.isEmpty)
        #expect(await store.position == 0)
        try await store.close()
    }

    @Test func anImportIsDecidedAgainstWhatOthersAppended() async throws {
        let store = try TimelineStore(clock: ManualClock(fixedNow))
        try await store.send(.createTimeline("life", name: "My life"))
        // Someone else appends to the log: the import is checked after that record, which
        // the store applies first, so it is refused for the timeline that is gone.
        _ = try store.log.append([.timelineRemoved(timeline: "life")], options: AppendOptions())
        await #expect(throws: StoreError.importRefused(index: 0, line: nil, type: .eventAdded,
                                                       rejection: .unknownTimeline("life"))) {
            try await store.importFacts([.eventAdded(event: "e1", timeline: "life", title: "Born", date: date("1990"))])
        }
        #expect(await store.position == 2)
        #expect(await store.timeline("life") == nil)
    }

    /// An import big enough that a file log writes it in parts, from its facts: applied
    /// to a store with records (its records made from the facts), or taken folded into a
    /// new one; the same rows either way, and the records read back from the log.
    @Test func aBigImportIntoAFileLogIsAppliedOrTakenWhole() async throws {
        let directory = TemporaryDirectory()
        let count = FileEventLog.recordsPerEncodedPart + 100
        let added = (0..<count).map { Fact.eventAdded(event: EventID("e\($0)"), timeline: "life",
                                                      title: "Event \($0)", date: date("\(1900 + $0 % 120)")) }
        let (store, path) = try await makeStore(in: directory)
        let stream = await store.changes()
        let applied = try await store.importFacts(added)
        #expect(applied.count == count && applied.positions == 3...Int64(2 + count))
        let onDisk = try FileEventLog.read(path: path).records
        #expect(Array(onDisk.dropFirst(2)) == applied.records)
        let (rows, changeSets) = await follow(stream, until: Int64(2 + count))
        #expect(changeSets.last?.from == 2)
        #expect(rows.count == count + 1)
        #expect(rows == Array(await store.rows()))

        let facts = [Fact.timelineCreated(timeline: "life", name: "My life")] + added
        let fresh = try TimelineStore(path: directory.path + "/fresh.jsonl", clock: ManualClock(fixedNow))
        let taken = try await fresh.importFacts(facts, foldedOnAnEmptyLog: Self.folded(facts, views: [ViewDefinition()]))
        #expect(taken.positions == 1...Int64(count + 1))
        #expect(await fresh.position == Int64(count + 1))
        #expect(Array(await fresh.rows(ViewDefinition())).map(\.title)
            == Array(await store.rows(ViewDefinition())).filter { $0.title != "Born" }.map(\.title))
        try await store.close()
        try await fresh.close()
    }

    /// The facts folded, checked, from an empty state, as the tool folds a log it imports.
    static func folded(_ facts: [Fact], views: [ViewDefinition] = []) -> TimelineProjection {
        var loader = TimelineProjection.Loader(views: views, now: fixedNow, validating: true)
        let records = facts.enumerated().map { Record(position: Int64($0.offset + 1), facts: [$0.element]) }
        #expect(loader.add(records) == nil)
        return loader.finish()
    }

    /// Facts folded on an empty log are not checked or applied again while the log is
    /// empty: the store takes the folded projection. Once another writer has appended,
    /// they are checked, in the state after its records.
    @Test func factsFoldedOnAnEmptyLogAreTakenAndCheckedWhenTheLogIsNoLongerEmpty() async throws {
        let facts: [Fact] = [.timelineCreated(timeline: "life", name: "Life"),
                             .eventAdded(event: "e1", timeline: "life", title: "Born", date: date("1990")),
                             .eventAdded(event: "e2", timeline: "life", title: "School", date: date("1996"))]
        let fresh = try TimelineStore(clock: ManualClock(fixedNow))
        let subscription = await fresh.subscribe(ViewDefinition(order: .descending))
        let views = Set(await fresh.liveViews)
        // Folded with the list of everything, which the store does not keep: it takes the
        // state, at its own positions, with its own views.
        #expect(try await fresh.importFacts(facts, foldedOnAnEmptyLog: Self.folded(facts, views: [ViewDefinition()]))
            .records.map(\.position) == [1, 2, 3])
        #expect(await fresh.position == 3)
        #expect(Set(await fresh.liveViews) == views)
        let reference = try TimelineStore(clock: ManualClock(fixedNow))
        try await reference.importFacts(facts)
        #expect(Array(await fresh.rows(ViewDefinition(order: .descending))) == Array(await reference.rows(ViewDefinition(order: .descending))))
        #expect(await fresh.timelineSummaries == reference.timelineSummaries)
        var changes = subscription.changes.makeAsyncIterator()
        let reset = try #require(await changes.next())
        #expect(reset.isReset && reset.from == 0 && reset.to == 3)
        // The store goes on from the state it took.
        try await fresh.send(.retitleEvent("e1", title: "Born here"))
        #expect(await fresh.position == 4)
        #expect(await fresh.rows(ViewDefinition()).map(\.title) == ["Born here", "School"])

        // On an empty log the folded state is taken as it is, not made again from the facts
        // (seen here with a state the facts do not make, which a caller never gives).
        let trusting = try TimelineStore(clock: ManualClock(fixedNow))
        let unchecked: [Fact] = [.eventRetitled(event: "nobody", title: "X")]
        #expect(try await trusting.importFacts(unchecked, foldedOnAnEmptyLog: Self.folded(facts)).count == 1)
        #expect(await trusting.eventCount == 2)
        await #expect(throws: StoreError.self) {
            try await TimelineStore(clock: ManualClock(fixedNow)).importFacts(unchecked)
        }

        let store = try TimelineStore(clock: ManualClock(fixedNow))
        // Another writer created the timeline after the facts were folded on the empty log.
        _ = try store.log.append([.timelineCreated(timeline: "life", name: "Theirs")], options: AppendOptions())
        await #expect(throws: StoreError.importRefused(index: 0, line: 7, type: .timelineCreated,
                                                       rejection: .timelineExists("life"))) {
            try await store.importFacts(facts, lines: [7, 8, 9], foldedOnAnEmptyLog: Self.folded(facts))
        }
        #expect(await store.position == 1)
        #expect(await store.timelineSummaries.map(\.name) == ["Theirs"])
    }

    // Not an exit test: a child process that the tool's tests' own processes may reap
    // left the whole test run waiting.
    @Test func givingOtherThanOneLinePerFactIsRefused() async throws {
        let store = try TimelineStore(clock: ManualClock(fixedNow))
        await #expect(throws: StoreError.linesDoNotMatchFacts(lines: 2, facts: 1)) {
            try await store.importFacts([.timelineCreated(timeline: "life", name: "Life")], lines: [1, 2])
        }
        #expect(await store.position == 0)
        #expect(StoreError.linesDoNotMatchFacts(lines: 2, facts: 1).description
            == "import given 2 lines for 1 facts; give one line per fact; nothing imported")
    }
}
