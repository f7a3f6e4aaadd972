import Testing
import TimelineCore
import TimelineProjections
@testable import TimelineKit

func date(_ text: String) -> DateValue {
    do { return try DateValue(parsing: text) } catch { fatalError("\(error)") }
}

let fixedNow = date("2026-11-29T12:00:00Z").instant

/// Follows a change stream the way a front end with its own array does.
func follow(_ stream: ChangeStream, until position: Int64) async -> (rows: [Row], changeSets: [ChangeSet]) {
    var rows: [Row] = []
    var seen: [ChangeSet] = []
    var last: Int64?
    for await changeSet in stream {
        if let last, !changeSet.isReset { #expect(changeSet.from == last, "change sets chain") }
        rows = changeSet.applied(to: rows)
        seen.append(changeSet)
        last = changeSet.to
        if changeSet.to >= position { break }
    }
    return (rows, seen)
}

@Suite("Store")
struct TimelineStoreTests {
    func makeStore() throws -> TimelineStore {
        try TimelineStore(clock: ManualClock(fixedNow))
    }

    @Test func sendReturnsRecordsAndViewsReflectThemAtOnce() async throws {
        let store = try makeStore()
        let created = try await store.send(.createTimeline("life", name: "My life"))
        #expect(created.map(\.position) == [1])
        #expect(created.first?.recordedAt?.text == "2026-11-29T12:00:00Z")
        let records = try await store.send(
            .addEvent("school", timeline: "life", title: "School", dates: .range(start: date("1996-09"), end: nil)))
        #expect(records.map(\.position) == [2, 3])
        let rows = await store.rows()
        #expect(rows.map(\.kind) == [.start, .ongoing])
        #expect(await store.position == 3)
    }

    @Test func rejectedCommandsAppendNothing() async throws {
        let store = try makeStore()
        try await store.send(.createTimeline("life", name: "My life"))
        await #expect(throws: StoreError.rejected(.timelineExists("life"))) {
            try await store.send(.createTimeline("life", name: "Again"))
        }
        // A batch fails whole: the second command's rejection undoes the first.
        await #expect(throws: StoreError.rejected(.unknownTimeline("nope"))) {
            try await store.send([
                .addEvent("a", timeline: "life", title: "A", dates: .single(date("2000"))),
                .addEvent("b", timeline: "nope", title: "B", dates: .single(date("2000"))),
            ])
        }
        #expect(await store.position == 1)
        #expect(await store.rows().isEmpty)
    }

    @Test func aResentCommandIDAppendsOnce() async throws {
        let store = try makeStore()
        let first = try await store.send(.createTimeline("life", name: "My life"), commandID: "cmd-1")
        let again = try await store.send(.createTimeline("life", name: "My life"), commandID: "cmd-1")
        #expect(first == again)
        #expect(await store.position == 1)
    }

    @Test func anExpectedPositionThatIsNotTheLogsIsAConflict() async throws {
        let store = try makeStore()
        try await store.send(.createTimeline("life", name: "My life"), expectedPosition: 0)
        await #expect(throws: StoreError.log(.conflict(expected: 0, actual: 1))) {
            try await store.send(.createTimeline("work", name: "Work"), expectedPosition: 0)
        }
    }

    @Test func aBatchIsOneChangeSetPerView() async throws {
        let store = try makeStore()
        try await store.send(.createTimeline("life", name: "My life"))
        let stream = await store.changes()
        try await store.send([
            .addEvent("a", timeline: "life", title: "A", dates: .single(date("2000"))),
            .addEvent("b", timeline: "life", title: "B", dates: .range(start: date("1990"), end: date("2010"))),
        ])
        let (rows, changeSets) = await follow(stream, until: 4)
        #expect(changeSets.count == 2)  // the initial reset, then the batch
        #expect(changeSets[1].insertions == [0, 1, 2])
        #expect(rows == Array(await store.rows()))
    }

    @Test(arguments: [1, 2, 7])
    func concurrentWritersAndSubscribersSeeTheFinalRows(seed: UInt64) async throws {
        let store = try makeStore()
        try await store.send([.createTimeline("home", name: "Home"), .createTimeline("work", name: "Work")])
        let views = [ViewDefinition(), ViewDefinition(filter: .timeline("work"), order: .descending, sections: .year)]
        let writers = 6, perWriter = 25
        let finalPosition = Int64(2 + writers * perWriter)
        var streams: [(ViewDefinition, ChangeStream)] = []
        for view in views { for _ in 0..<3 { streams.append((view, await store.changes(view))) } }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for writer in 0..<writers {
                group.addTask {
                    for i in 0..<perWriter {
                        let id = EventID("w\(writer)-\(i)")
                        let timeline: TimelineID = (writer + i) % 2 == 0 ? "home" : "work"
                        let year = 1950 + Int((seed &* 31 &+ UInt64(writer * perWriter + i) &* 7) % 70)
                        try await store.send(.addEvent(id, timeline: timeline, title: "Event \(i)",
                                                       dates: .single(date("\(year)"))))
                    }
                }
            }
            try await group.waitForAll()
        }
        for (view, stream) in streams {
            let (rows, _) = await follow(stream, until: finalPosition)
            #expect(rows == Array(await store.rows(view)))
        }
        #expect(await store.rows().count == writers * perWriter)
    }

    @Test func aSlowSubscriberGetsOneResetThenCorrectRows() async throws {
        let store = try makeStore()
        try await store.send(.createTimeline("life", name: "My life"))
        let stream = await store.changes(bufferLimit: 4)
        // Nobody reads while 20 commands arrive: the writer must not block.
        for i in 0..<20 {
            try await store.send(.addEvent(EventID("e\(i)"), timeline: "life", title: "E\(i)", dates: .single(date("20\(10 + i)"))))
        }
        var iterator = stream.makeAsyncIterator()
        let collapsed = await iterator.next()
        #expect(collapsed?.isReset == true)
        #expect(collapsed?.to == 21)
        #expect(collapsed.map { Array($0.rows) } == Array(await store.rows()))
        try await store.send(.retitleEvent("e3", title: "Third"))
        let next = await iterator.next()
        #expect(next?.updates == [RowID(event: "e3", role: .start)])
        #expect(next?.from == 21)
    }

    @Test func cancellingEndsTheSubscription() async throws {
        let store = try makeStore()
        try await store.send(.createTimeline("life", name: "My life"))
        let task = Task {
            var count = 0
            for await _ in await store.changes() { count += 1 }
            return count
        }
        while await store.subscriptionCount == 0 { await Task.yield() }
        task.cancel()
        _ = await task.value
        try await store.send(.createTimeline("work", name: "Work"))  // prunes finished subscribers
        #expect(await store.subscriptionCount == 0)
    }

    @Test func anObserverTokenEndsTheObservation() async throws {
        let store = try makeStore()
        try await store.send(.createTimeline("life", name: "My life"))
        let seen = Counter()
        let token = await store.observe { _ in await seen.increment() }
        try await store.send(.addEvent("a", timeline: "life", title: "A", dates: .single(date("2000"))))
        while await seen.value < 2 { await Task.yield() }
        token.cancel()
        #expect(await store.subscriptionCount == 0)
        try await store.send(.addEvent("b", timeline: "life", title: "B", dates: .single(date("2001"))))
        try await Task.sleep(for: .milliseconds(20))
        #expect(await seen.value == 2)
    }

    @Test func advancingTheClockMovesOngoingRowsAndTellsSubscribers() async throws {
        let clock = ManualClock(date("2020-01-01").instant)
        let store = try TimelineStore(clock: clock)
        try await store.send([
            .createTimeline("life", name: "My life"),
            .addEvent("berlin", timeline: "life", title: "Berlin", dates: .range(start: date("2019"), end: nil)),
            .addEvent("trip", timeline: "life", title: "Trip", dates: .single(date("2021-06"))),
        ])
        #expect(await store.rows().map(\.kind) == [.start, .ongoing, .single])
        let stream = await store.changes()
        await store.advanceClock(to: date("2022").instant)
        #expect(await store.rows().map(\.kind) == [.start, .single, .ongoing])
        let (rows, changeSets) = await follow(stream, until: 4)
        _ = rows
        #expect(changeSets.count == 1)  // only the initial state so far: the clock change has the same position
        var iterator = stream.makeAsyncIterator()
        let moved = await iterator.next()
        #expect(moved?.moves.count == 1)
    }

    @Test func summariesStream() async throws {
        let store = try makeStore()
        var iterator = await store.summaryChanges().makeAsyncIterator()
        #expect(await iterator.next()?.summaries == [])
        try await store.send(.createTimeline("life", name: "My life"))
        let update = await iterator.next()
        #expect(update?.summaries.map(\.name) == ["My life"])
    }

    @Test func aLateSummarySubscriberStartsFromTheSummariesAsTheyAre() async throws {
        // Before anyone follows the summaries, the store does not describe their changes.
        let store = try makeStore()
        try await store.send(.createTimeline("life", name: "My life"))
        try await store.send(.addEvent("e1", timeline: "life", title: "Born", dates: .single(try DateValue(parsing: "1990"))))
        var iterator = await store.summaryChanges().makeAsyncIterator()
        var list = await iterator.next()?.summaries ?? []
        #expect(list.map(\.eventCount) == [1])
        try await store.send(.addEvent("e2", timeline: "life", title: "School", dates: .single(try DateValue(parsing: "1996"))))
        try await store.send(.createTimeline("work", name: "Work"))
        for _ in 0..<2 {
            guard case .changes(let changeSet)? = await iterator.next() else {
                Issue.record("expected a change set")
                return
            }
            list = changeSet.applied(to: list)
        }
        #expect(list == (await store.timelineSummaries))
        #expect(list.map(\.name) == ["My life", "Work"] && list[0].eventCount == 2)
    }
}

actor Counter {
    var value = 0
    func increment() { value += 1 }
}
