import Foundation
import Testing
import TimelineKit

@Suite("What a front end reads")
struct HelperTests {
    static func date(_ text: String) -> DateValue { try! DateValue(parsing: text) }
    static let now = Instant(microsecondsSinceEpoch: 1_780_000_000_000_000)

    /// The dates' helpers, the events of a timeline, and which view a change set or a
    /// snapshot is of.
    @Test func helpersAreThere() async throws {
        let single = EventDates.single(Self.date("2001")), open = EventDates.range(start: Self.date("2019-03"), end: nil)
        let closed = EventDates.range(start: Self.date("2019-03"), end: Self.date("2020"))
        #expect(single.start == Self.date("2001") && open.start == Self.date("2019-03"))
        #expect(!single.isOpenRange && !single.isClosedRange && open.isOpenRange && !open.isClosedRange)
        #expect(closed.isClosedRange && !closed.isOpenRange)

        let store = try TimelineStore(clock: ManualClock(Self.now))
        try await store.send([
            .createTimeline("life", name: "Life"), .createTimeline("work", name: "Work"),
            .addEvent("b", timeline: "life", title: "B", dates: single),
            .addEvent("a", timeline: "life", title: "A", dates: open),
            .addEvent("w", timeline: "work", title: "W", dates: closed),
        ])
        #expect(await store.events(in: "life").map(\.id) == ["a", "b"])
        #expect(await store.events().map(\.title) == ["A", "B", "W"])
        #expect(await store.events(in: "nowhere").isEmpty)

        // One handler for two views tells their change sets apart.
        let byYear = ViewDefinition(sections: .year), work = ViewDefinition(filter: .timeline("work"))
        #expect(await store.snapshot(byYear).view == byYear)
        let seen = SeenViews()
        let tokens = [await store.observe(byYear) { await seen.add($0) }, await store.observe(work) { await seen.add($0) }]
        try await store.send(.retitleEvent("w", title: "Work, renamed"))
        for _ in 0..<1000 where await seen.views.count < 4 { await Task.yield() }
        #expect(await Set(seen.views) == [byYear, work])
        #expect(await seen.nonEmpty, "a store sends no empty change set")
        for token in tokens { token.cancel() }
    }

    /// The sections of every view are found by id, whatever their order: ongoing first or
    /// last, ascending or descending.
    @Test(arguments: [Sectioning.year, .month, .decade])
    func sectionsAreFoundByID(sections: Sectioning) throws {
        let commands: [Command] = [
            .createTimeline("life", name: "Life"),
            .addEvent("a", timeline: "life", title: "A", dates: .single(Self.date("1990-04-12"))),
            .addEvent("b", timeline: "life", title: "B", dates: .range(start: Self.date("2003-06"), end: Self.date("2011-02"))),
            .addEvent("c", timeline: "life", title: "C", dates: .range(start: Self.date("2019-03"), end: nil)),
            .addEvent("d", timeline: "life", title: "D", dates: .single(Self.date("2024-12-31"))),
        ]
        for placement in OngoingPlacement.allCases {
            for order in ViewOrder.allCases {
                let view = ViewDefinition(placement: placement, order: order, sections: sections)
                let list = try ViewSnapshot(view: view, after: commands, now: Self.now).sections
                #expect(list.count >= 3)
                for (index, section) in list.enumerated() {
                    #expect(list.index(id: section.id) == index, "\(view): \(section.title)")
                }
                // Ids of other sectionings and of periods without rows are not there.
                let others = try ViewSnapshot(view: ViewDefinition(sections: sections == .year ? .month : .year),
                                              after: commands, now: Self.now).sections
                for section in others { #expect(list.index(id: section.id) == nil, "\(view): \(section.title)") }
                let empty = try ViewSnapshot(view: view, after: commands + [.removeEvent("c")], now: Self.now).sections
                if placement != .now {
                    #expect(list.contains { $0.id.isOngoing } && empty.index(id: list.first { $0.id.isOngoing }!.id) == nil)
                }
            }
        }
        #expect(SectionList().index(id: try ViewSnapshot(view: ViewDefinition(sections: sections), after: commands,
                                                         now: Self.now).sections[0].id) == nil)
    }
}

/// The views a handler saw change sets of.
actor SeenViews {
    var views: [ViewDefinition] = []
    var nonEmpty = true
    func add(_ change: ChangeSet) {
        views.append(change.view)
        if change.isEmpty { nonEmpty = false }
    }
}
