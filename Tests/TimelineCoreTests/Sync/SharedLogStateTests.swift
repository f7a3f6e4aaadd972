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
        let change = try #require(state.changeSince(undo)).message
        #expect(change.hasPrefix("event \"e1\" was changed by record 4, after position 3"), "\(change)")
    }

    /// An undo that removes a timeline (the undo of its creation) is refused when an event
    /// was put in the timeline after the undo was made: it would go with the timeline, and
    /// on a plain log the same revert is refused (`Compensation.checkLater`).
    @Test func anUndoRemovingATimelineKeepsAnEventPutInItSince() throws {
        var state = SharedLogState()
        let device = DeviceID("0190f3a0-0000-7000-8000-000000000001")!
        try state.apply([Record(position: 1, fact: .timelineCreated(timeline: "trip", name: "Trip"))])
        let undo = Submission(id: SubmissionID(device: device, number: 1), nonce: "n", commands: [.removeTimeline("trip")],
                              basePosition: 1, condition: UndoCondition(after: 1, events: [], timelines: ["trip"]))
        guard case .append(let facts, _) = state.decide(undo, recordedAt: nil) else { throw Unexpected() }
        #expect(facts == [.timelineRemoved(timeline: "trip")], "nothing since: the undo is accepted")
        try state.apply([Record(position: 2, fact: .eventAdded(event: "flight", timeline: "trip", title: "Flight",
                                                               date: try DateValue(parsing: "2020")))])
        guard case .append(let refused, _) = state.decide(undo, recordedAt: nil),
              case .commandRejected(_, let rule, let message)? = refused.first else { throw Unexpected() }
        #expect(rule == "changedSince")
        #expect(message.hasPrefix("event \"flight\" was put in timeline \"trip\" or changed by record 2, after position 1"),
                "\(message)")
    }

    /// An accepted undo says which batch it undoes (`undo` on its records: its command id is
    /// the device's `D:n`), so that its redo and the undo of the batch before it see it as an
    /// undo; a rejected one says nothing of the kind.
    @Test func anAcceptedUndoNamesTheBatchItUndoes() throws {
        var state = SharedLogState()
        let device = DeviceID("0190f3a0-0000-7000-8000-000000000003")!
        try state.apply([Record(position: 1, fact: .timelineCreated(timeline: "trip", name: "Trip")),
                         Record(position: 2, fact: .timelineRenamed(timeline: "trip", name: "Voyage"))])
        let undo = Submission(id: SubmissionID(device: device, number: 1), nonce: "n",
                              commands: [.renameTimeline("trip", name: "Trip")], basePosition: 2,
                              condition: UndoCondition(after: 2, events: [], timelines: ["trip"], undoes: 2))
        guard case .append(_, let options) = state.decide(undo, recordedAt: nil) else { throw Unexpected() }
        #expect(options.undoes == 2)
        #expect(options.commandID == "\(device):1")
        try state.apply([Record(position: 3, fact: .timelineRenamed(timeline: "trip", name: "Other"))])
        guard case .append(let refused, let rejectedOptions) = state.decide(undo, recordedAt: nil),
              case .commandRejected? = refused.first else { throw Unexpected() }
        #expect(rejectedOptions.undoes == nil)
    }

    /// Two devices undo the same batch: the second is told it was undone already (not to
    /// undo the first undo, which would bring the change back). A condition no device makes
    /// (undoing a record after the position it was made at, or made beyond the shared log
    /// or its own base) is refused, never trusted.
    @Test func theSecondUndoOfABatchIsToldItWasUndoneAlready() throws {
        var state = SharedLogState()
        let phone = DeviceID("0190f3a0-0000-7000-8000-000000000004")!, laptop = DeviceID("0190f3a0-0000-7000-8000-000000000005")!
        try state.apply([Record(position: 1, fact: .timelineCreated(timeline: "trip", name: "Trip")),
                         Record(position: 2, fact: .timelineRenamed(timeline: "trip", name: "Voyage"))])
        func undo(_ device: DeviceID, after: Int64 = 2, base: Int64 = 2, undoes: Int64 = 2) -> Submission {
            Submission(id: SubmissionID(device: device, number: 1), nonce: "n", commands: [.renameTimeline("trip", name: "Trip")],
                       basePosition: base, condition: UndoCondition(after: after, events: [], timelines: ["trip"], undoes: undoes))
        }
        guard case .append(let facts, let options) = state.decide(undo(phone), recordedAt: nil) else { throw Unexpected() }
        try state.apply(Record.batch(of: facts, after: 2, options: options))
        guard case .append(let refused, _) = state.decide(undo(laptop), recordedAt: nil),
              case .commandRejected(_, let rule, let message)? = refused.first else { throw Unexpected() }
        #expect(rule == "changedSince")
        #expect(message == "the batch at record 2 was undone already, by record 3 (another undo reached the shared log first): nothing to undo")
        let beyond = Submission(id: SubmissionID(device: laptop, number: 1), nonce: "n", commands: [.renameTimeline("trip", name: "X")],
                                basePosition: 99)
        guard case .append(let refusedBeyond, _) = state.decide(beyond, recordedAt: nil),
              case .commandRejected(_, "invalidSubmission", let why)? = refusedBeyond.first else { throw Unexpected() }
        #expect(why.hasPrefix("the submission says it was made at position 99, beyond the shared log's 3"), "\(why)")
        for damaged in [undo(laptop, after: 2, undoes: 3), undo(laptop, after: 3, base: 2)] {
            guard case .append(let refused, _) = state.decide(damaged, recordedAt: nil),
                  case .commandRejected(_, let rule, let message)? = refused.first else { throw Unexpected() }
            #expect(rule == "invalidCondition", "\(damaged)")
            #expect(message.hasSuffix("is not one a device makes: the submission was damaged; nothing was changed"))
        }
    }

    /// An undo whose timeline was removed and made again since is refused `changedSince`,
    /// naming the record (the condition is checked before stale references, which said
    /// only "unknown timeline" of a timeline that exists).
    @Test func anUndoOfAnIdMadeAgainSinceSaysItChanged() throws {
        var state = SharedLogState()
        let device = DeviceID("0190f3a0-0000-7000-8000-000000000002")!
        try state.apply([Record(position: 1, fact: .timelineCreated(timeline: "tx", name: "X"))])
        let undo = Submission(id: SubmissionID(device: device, number: 1), nonce: "n", commands: [.removeTimeline("tx")],
                              basePosition: 1, condition: UndoCondition(after: 1, events: [], timelines: ["tx"]))
        try state.apply([Record(position: 2, fact: .timelineRemoved(timeline: "tx")),
                         Record(position: 3, fact: .timelineCreated(timeline: "tx", name: "X2"))])
        guard case .append(let refused, _) = state.decide(undo, recordedAt: nil),
              case .commandRejected(_, let rule, let message)? = refused.first else { throw Unexpected() }
        #expect(rule == "changedSince")
        #expect(message.hasPrefix("timeline \"tx\" was changed by record 3, after position 1"), "\(message)")
    }

    struct Unexpected: Error {}
}
