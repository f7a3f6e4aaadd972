import Testing
import TimelineCore
import TimelineProjections
@testable import TimelineKit

/// A closed store: its streams end and it appends nothing, whatever its log.
@Suite struct StoreLifecycleTests {
    /// A subscription taken after `close()` ends after what it holds, instead of waiting
    /// forever for change sets a closed store never publishes.
    @Test(.timeLimit(.minutes(1))) func aSubscriptionTakenAfterCloseEnds() async throws {
        let store = try TimelineStore(clock: ManualClock(fixedNow))
        try await store.send(.createTimeline("life", name: "Life"))
        try await store.close()
        var updates = 0
        for await _ in await store.changes(ViewDefinition()) { updates += 1 }
        #expect(updates <= 1, "at most the current rows")
        let subscription = await store.subscribe(ViewDefinition())
        for await _ in subscription.changes { Issue.record("a closed store published a change set") }
        var summaries = 0
        for await _ in await store.summaryChanges() { summaries += 1 }
        #expect(summaries == 1, "the current list, then the end")
    }

    /// After `close()`, a store on an in-memory log refuses to send or undo, as one on a
    /// file does: the log stays open for any other store on it.
    @Test func aClosedStoreOnAnInMemoryLogAppendsNothing() async throws {
        let log = InMemoryEventLog()
        let store = try TimelineStore(log: log, clock: ManualClock(fixedNow))
        try await store.send(.createTimeline("life", name: "Life"))
        try await store.close()
        await #expect(throws: StoreError.self) { try await store.send(.createTimeline("work", name: "Work")) }
        await #expect(throws: StoreError.self) { try await store.undo() }
        #expect(log.position == 1)
        let other = try TimelineStore(log: log, clock: ManualClock(fixedNow))
        try await other.send(.createTimeline("work", name: "Work"))
        #expect(log.position == 2)
    }
}
