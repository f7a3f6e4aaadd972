import Testing
@testable import TimelineCore

/// What the shared log's state says of undo conditions (section 11).
@Suite("The shared log's state")
struct SharedLogStateTests {
    /// A timeline's removal touches every event in it: an undo made before it, of one of
    /// those events, is refused (`changedSince`), naming the removal's record.
    @Test func aTimelinesRemovalTouchesAllItsEvents() throws {
        var state = SharedLogState()
        let date = try DateValue(parsing: "2000")
        try state.apply([
            Record(position: 1, fact: .timelineCreated(timeline: "life", name: "Life")),
            Record(position: 2, fact: .eventAdded(event: "e1", timeline: "life", title: "Born", date: date)),
            Record(position: 3, fact: .eventAdded(event: "e2", timeline: "life", title: "School", date: date)),
        ])
        let undo = UndoCondition(after: 3, events: ["e1"], timelines: [])
        #expect(state.changeSince(undo) == nil)
        try state.apply([Record(position: 4, fact: .timelineRemoved(timeline: "life"))])
        let change = try #require(state.changeSince(undo))
        #expect(change.hasPrefix("event \"e1\" was changed by record 4, after position 3"), "\(change)")
    }
}
