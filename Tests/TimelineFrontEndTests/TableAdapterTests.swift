import Foundation
import Testing
import TimelineKit

/// A table adapter tested with values only: the rows and the change sets a store would
/// give, made synchronously from commands, with no store.
@Suite("A table adapter, tested with values")
struct TableAdapterTests {
    static let now = Instant(microsecondsSinceEpoch: 1_780_000_000_000_000)  // 2026-05-28

    static func date(_ text: String) -> DateValue { try! DateValue(parsing: text) }

    static let life: [Command] = [
        .createTimeline("life", name: "Life"),
        .createTimeline("work", name: "Work"),
        .addEvent("born", timeline: "life", title: "Born", dates: .single(date("1990-04-12"))),
        .addEvent("school", timeline: "life", title: "School", dates: .range(start: date("1996-09"), end: date("2008-06"))),
        .addEvent("berlin", timeline: "life", title: "Berlin", dates: .range(start: date("2019-03"), end: nil)),
        .addEvent("job", timeline: "work", title: "First job", dates: .single(date("2009-01-05"))),
    ]

    /// The titles a view shows after `commands`, by section (one section without sections).
    static func titles(_ view: ViewDefinition, after commands: [Command]) throws -> [[String]] {
        let snapshot = try ViewSnapshot(view: view, after: commands, now: now)
        let adapter = TimelineTableAdapter(snapshot)
        return (0..<adapter.numberOfSections).map { section in
            (0..<adapter.numberOfRows(inSection: section)).map { adapter.row(at: IndexPath(indexes: [section, $0])).title }
        }
    }

    /// Follows `view` through each batch in turn: every change animates (no reload) under
    /// UIKit's rules, and the table then shows what a fresh snapshot shows.
    func follow(_ view: ViewDefinition, through batches: [[Command]]) throws {
        var sent = Self.life
        let adapter = TimelineTableAdapter(try ViewSnapshot(view: view, after: sent, now: Self.now))
        let table = FakeTable(adapter)
        for batch in batches {
            let change = try #require(try ChangeSet(view: view, sending: batch, after: sent, now: Self.now),
                                      "\(batch) changes \(view)")
            #expect(change.view == view && !change.isEmpty && !change.isReset)
            #expect(change.from == (try ViewSnapshot(view: view, after: sent, now: Self.now)).position)
            adapter.apply(change, to: table)
            sent += batch
            #expect(table.violations.isEmpty, "\(view) after \(batch)")
            #expect(table.reloads == 0, "\(view) animates")
            #expect(table.shown == (try Self.titles(view, after: sent)), "\(view) after \(batch)")
        }
        #expect(table.batches == batches.count)
    }

    static let batches: [[Command]] = [
        [.addEvent("move", timeline: "life", title: "Moved to Berlin", dates: .single(date("2019-03-01")))],
        [.retitleEvent("born", title: "Born in Lyon")],
        [.setDate("job", date("1989-12-01"))],  // into another decade, year and place
        [.closeRange("berlin", end: date("2024-08")), .removeEvent("school")],
        [.setRange("born", start: date("1990-04-12"), end: nil), .moveEvent("job", to: "life")],
    ]

    @Test func aListWithoutSectionsAnimates() throws {
        try follow(ViewDefinition(), through: Self.batches)
        try follow(ViewDefinition(placement: .first, order: .descending), through: Self.batches)
    }

    @Test(arguments: [Sectioning.year, .month, .decade], [OngoingPlacement.now, .first, .last])
    func aListWithSectionsAnimates(sections: Sectioning, placement: OngoingPlacement) throws {
        for order in [ViewOrder.ascending, .descending] {
            try follow(ViewDefinition(placement: placement, order: order, sections: sections), through: Self.batches)
        }
    }

    /// A batch that changes nothing a view shows gives no change set, as a store sends none.
    @Test func aChangeOutsideTheViewGivesNone() throws {
        let work = ViewDefinition(filter: .timeline("work"), sections: .year)
        #expect(try ChangeSet(view: work, sending: [.retitleEvent("born", title: "Born!")], after: Self.life,
                              now: Self.now) == nil)
        #expect(throws: Rejection.self) {
            try ChangeSet(view: work, sending: [.retitleEvent("nobody", title: "?")], after: Self.life, now: Self.now)
        }
    }

    /// The test double refuses what UIKit refuses: a change applied twice inserts a row
    /// the data source does not have ("invalid number of rows").
    @Test(arguments: [Sectioning.none, .year])
    func theFakeTableRefusesACountUIKitRefuses(sections: Sectioning) throws {
        let view = ViewDefinition(sections: sections)
        let adapter = TimelineTableAdapter(try ViewSnapshot(view: view, after: Self.life, now: Self.now))
        let table = FakeTable(adapter)
        let change = try #require(try ChangeSet(view: view, sending: Self.batches[0], after: Self.life, now: Self.now))
        adapter.apply(change, to: table)
        #expect(table.violations.isEmpty)
        adapter.apply(change, to: table)
        #expect(!table.violations.isEmpty, "the same insertion twice")
    }

    /// Empty lists for a placeholder, before the store has any rows.
    @Test func placeholdersAreEmpty() {
        #expect(RowList().isEmpty && SectionList().isEmpty)
        let adapter = TimelineTableAdapter(try! ViewSnapshot(view: ViewDefinition(), after: [], now: Self.now))
        #expect(adapter.numberOfSections == 1 && adapter.numberOfRows(inSection: 0) == 0)
    }
}
