import Foundation
import Testing
import TimelineKit

@Suite("A manual clock, and a view model made synchronously")
struct ClockAndModelTests {
    static func date(_ text: String) -> DateValue { try! DateValue(parsing: text) }

    /// A test moves its manual clock: the clock says the new instant, the store stamps
    /// its records with it, and `advanceClock(to:)` moves the views to it.
    @Test func aManualClockMoves() async throws {
        let clock = ManualClock(Self.date("2026-01-01").instant)
        let store = try TimelineStore(clock: clock)
        try await store.send(.createTimeline("life", name: "Life"))
        clock.set(Self.date("2026-03-01T10:00Z").instant)
        #expect(clock.now() == Self.date("2026-03-01T10:00Z").instant)
        let records = try await store.send(.addEvent("e", timeline: "life", title: "Started",
                                                     dates: .range(start: Self.date("2026-02"), end: nil)))
        #expect(records.first?.recordedAt?.instant == clock.now(), "stamped with the moved clock")
        clock.set(Self.date("2025-01-01").instant)
        #expect(clock.now() == Self.date("2025-01-01").instant, "back too")
    }

    /// The view model is made synchronously from a subscription taken before, on the main
    /// actor, with the rows from the start; it then follows the store.
    @MainActor
    @Test func aViewModelIsMadeSynchronously() async throws {
        let store = try TimelineStore(clock: ManualClock(Self.date("2026-01-01").instant))
        try await store.send([.createTimeline("life", name: "Life"),
                              .addEvent("a", timeline: "life", title: "A", dates: .single(Self.date("2001")))])
        let subscription = await store.subscribe(ViewDefinition(sections: .year))
        var seen: [ChangeSet] = []
        let model = TimelineViewModel(subscription: subscription) { seen.append($0) }
        #expect(model.rows.map(\.title) == ["A"] && model.sections.map(\.title) == ["2001"])
        #expect(model.view == ViewDefinition(sections: .year) && model.position == subscription.snapshot.position)
        try await store.send(.addEvent("b", timeline: "life", title: "B", dates: .single(Self.date("2002"))))
        for _ in 0..<1000 where model.rows.count < 2 { await Task.yield() }
        #expect(model.rows.map(\.title) == ["A", "B"])
        #expect(seen.count == 1 && seen.first?.sectioned?.sectionInsertions == [1])
        model.stop()
    }
}
