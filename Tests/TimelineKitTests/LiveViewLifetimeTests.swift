import Synchronization
import Testing
import TimelineCore
import TimelineProjections
@testable import TimelineKit

/// A `Clock` that moves only when told: a sleeper wakes when the clock is advanced past its
/// deadline, and a test can wait until someone sleeps.
final class SteppedClock: Clock {
    struct Instant: InstantProtocol {
        var offset: Duration
        func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        func duration(to other: Instant) -> Duration { other.offset - offset }
        static func < (a: Instant, b: Instant) -> Bool { a.offset < b.offset }
    }

    private struct State {
        var now = Instant(offset: .zero)
        var sleepers: [(deadline: Instant, continuation: CheckedContinuation<Void, Never>)] = []
        var waitingForSleeper: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())
    var now: Instant { state.withLock { $0.now } }
    var minimumResolution: Duration { .zero }

    func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let waiting = state.withLock { state -> [CheckedContinuation<Void, Never>]? in
                if deadline <= state.now { return nil }
                state.sleepers.append((deadline, continuation))
                defer { state.waitingForSleeper = [] }
                return state.waitingForSleeper
            }
            guard let waiting else { return continuation.resume() }
            for waiter in waiting { waiter.resume() }
        }
        try Task.checkCancellation()
    }

    /// Returns once someone sleeps on the clock.
    func untilSomeoneSleeps() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let sleeping = state.withLock { state in
                if state.sleepers.isEmpty { state.waitingForSleeper.append(continuation) }
                return !state.sleepers.isEmpty
            }
            if sleeping { continuation.resume() }
        }
    }

    /// Moves the clock on, waking the sleepers whose deadline it passes.
    func advance(by duration: Duration) {
        let woken = state.withLock { state in
            state.now = state.now.advanced(by: duration)
            let now = state.now
            let woken = state.sleepers.filter { $0.deadline <= now }
            state.sleepers.removeAll { $0.deadline <= now }
            return woken
        }
        for sleeper in woken { sleeper.continuation.resume() }
    }
}

@Suite("Live views: lifetime, snapshots, the view model")
struct LiveViewLifetimeTests {
    static let byYear = ViewDefinition(placement: .now, sections: .year)

    func storeWithALife(clock: ManualClock = ManualClock(fixedNow)) async throws -> TimelineStore {
        let store = try TimelineStore(clock: clock)
        try await store.send([
            .createTimeline("life", name: "Life"),
            .addEvent("born", timeline: "life", title: "Born", dates: .single(date("1990-04-12"))),
            .addEvent("here", timeline: "life", title: "Living here", dates: .range(start: date("2026-03"), end: nil)),
        ])
        return store
    }

    @Test func aOneOffReadDoesNotKeepTheView() async throws {
        let store = try await storeWithALife()
        let opened = await store.liveViews
        let rows = await store.rows(Self.byYear)
        let snapshot = await store.snapshot(ViewDefinition(order: .descending, sections: .month))
        #expect(rows.map(\.kind) == [.single, .start, .ongoing])
        #expect(snapshot.rows.map(\.kind) == [.ongoing, .start, .single])
        #expect(snapshot.sections.map(\.title) == ["2026-11", "2026-03", "1990-04"])
        let position = await store.position
        #expect(snapshot.position == position)
        #expect(await store.location(of: RowID(event: "here", role: .end), in: Self.byYear)
            == RowLocation(index: 2, path: RowPath(section: 1, item: 1), position: position))
        #expect(await store.liveViews == opened, "reading views kept none")
    }

    @Test func theLastCancelledSubscriptionDropsTheView() async throws {
        let store = try await storeWithALife()
        let first = await store.subscribe(Self.byYear)
        let second = await store.changes(Self.byYear)
        #expect(await store.liveViews.contains(Self.byYear))
        first.changes.cancel()
        #expect(await store.liveViews.contains(Self.byYear), "one subscription is left")
        second.cancel()
        #expect(await !store.liveViews.contains(Self.byYear))
        // The views the store was opened with stay.
        let opened = await store.changes()
        opened.cancel()
        #expect(await store.liveViews == [ViewDefinition()])
        // A view subscribed to again starts from the current rows.
        try await store.send(.addEvent("trip", timeline: "life", title: "Trip", dates: .single(date("2001"))))
        let again = await store.subscribe(Self.byYear)
        #expect(again.snapshot.rows.count == 4)
        #expect(again.snapshot.position == (await store.position))
    }

    /// A view kept for a subscriber when the checkpoint was written is not kept for good
    /// by the store that opens from that checkpoint.
    @Test func aReopenedStoreKeepsOnlyTheViewsItIsOpenedWith() async throws {
        let directory = TemporaryDirectory()
        let path = directory.path + "/log.jsonl"
        let store = try TimelineStore(path: path, clock: ManualClock(fixedNow))
        try await store.send(.createTimeline("life", name: "Life"))
        let subscription = await store.subscribe(Self.byYear)
        try await store.close()
        _ = subscription
        let reopened = try TimelineStore(path: path, clock: ManualClock(fixedNow))
        #expect(reopened.openingReport.checkpointPosition == 1)
        #expect(await reopened.liveViews == [ViewDefinition()])
        try await reopened.close()
    }

    @Test func aSubscriptionEndedByItsTaskDropsTheView() async throws {
        let store = try await storeWithALife()
        let subscription = await store.subscribe(Self.byYear)
        let reader = Task { for await _ in subscription.changes {} }
        reader.cancel()
        await reader.value
        #expect(await !store.liveViews.contains(Self.byYear))
    }

    @Test func aSubscriptionsChangesGoOnFromItsSnapshot() async throws {
        let store = try await storeWithALife()
        let subscription = await store.subscribe(Self.byYear)
        #expect(subscription.snapshot.rows.count == 3 && subscription.snapshot.sections.map(\.count) == [1, 2])
        try await store.send(.addEvent("trip", timeline: "life", title: "Trip", dates: .single(date("2026-05"))))
        var iterator = subscription.changes.makeAsyncIterator()
        let change = try #require(await iterator.next())
        #expect(change.from == subscription.snapshot.position && !change.isReset)
        #expect(change.sectioned == SectionedChangeSet(insertions: [RowPath(section: 1, item: 1)]))
    }

    /// A clock moved back sends nothing to a view it leaves as it was: the next change set
    /// the empty view receives is the one of the command that changes it.
    @Test func aClockMovedBackSendsNothingToAViewItDoesNotChange() async throws {
        let store = try await storeWithALife()
        let empty = ViewDefinition(filter: .timeline("work"), placement: .now)
        var changes = await store.changes(empty).makeAsyncIterator()
        #expect(await changes.next()?.rows.isEmpty == true)
        await store.advanceClock(to: date("2026-06").instant)
        await store.advanceClock(to: date("2020").instant)
        try await store.send([.createTimeline("work", name: "Work"),
                              .addEvent("job", timeline: "work", title: "Job", dates: .single(date("2010")))])
        let next = try #require(await changes.next())
        #expect(!next.isReset && next.insertions == [0])
    }

    @Test func startClockTicksOnTheClockItIsGiven() async throws {
        let now = ManualClock(date("2026-12-31T23:00Z").instant)
        let store = try await storeWithALife(clock: now)
        var changes = await store.changes(Self.byYear).makeAsyncIterator()
        _ = await changes.next()
        let ticks = SteppedClock()
        await store.startClock(every: .seconds(60), on: ticks)
        await ticks.untilSomeoneSleeps()
        now.set(date("2027-01-01T00:30Z").instant)
        ticks.advance(by: .seconds(60))
        let change = try #require(await changes.next())
        // The ongoing row leaves 2026 for the new section 2027, at the same flat index.
        #expect(change.sectioned == SectionedChangeSet(sectionInsertions: [2], deletions: [RowPath(section: 1, item: 1)]))
        #expect(await store.now == date("2027-01-01T00:30Z").instant)
        await store.stopClock()
    }

    /// Two tasks waiting on one stream trap, as with `AsyncStream`, instead of one waiting for good.
    @Test func twoReadersOfOneStreamTrap() async {
        await #expect(processExitsWith: .failure) {
            let store = try TimelineStore(clock: ManualClock(fixedNow))
            let stream = await store.changes()
            let readers = (0..<2).map { _ in Task { for await _ in stream {} } }
            for reader in readers { await reader.value }
        }
    }

    @MainActor
    @Test func theViewModelHasItsRowsAtOnceAndHandsOnEveryChangeSet() async throws {
        let store = try await storeWithALife()
        final class Seen { var changes: [ChangeSet] = [] }
        let seen = Seen()
        let model = await TimelineViewModel(store: store, view: Self.byYear, bufferLimit: 1_000) { change in
            seen.changes.append(change)
        }
        #expect(model.rows.map(\.kind) == [.single, .start, .ongoing])
        #expect(model.sections.map(\.title) == ["1990", "2026"])
        let initial = Array(model.rows)
        for year in 2000..<2020 {
            try await store.send(.addEvent(EventID("e\(year)"), timeline: "life", title: "\(year)", dates: .single(date("\(year)"))))
        }
        let position = await store.position
        while model.position < position { await Task.yield() }
        let changes = seen.changes
        #expect(changes.count == 20, "every change set, none coalesced")
        #expect(changes.first?.from == position - 20)
        #expect(zip(changes, changes.dropFirst()).allSatisfy { $0.to == $1.from })
        #expect(changes.reduce(initial) { $1.applied(to: $0) } == Array(model.rows))
        #expect(Array(model.rows) == Array(await store.rows(Self.byYear)))
        model.stop()
    }
}
