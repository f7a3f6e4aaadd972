import Testing
@testable import TimelineCore

/// A log kept in memory, its batches decided by the decider, undone as section 11 says.
struct UndoLog {
    var records: [Record] = []
    var state = DomainState()

    var position: Int64 { records.last?.position ?? 0 }

    /// Decides and appends `commands` as one batch; returns its positions.
    @discardableResult
    mutating func send(_ commands: [Command], commandID: String? = nil) throws -> ClosedRange<Int64> {
        let facts = try Decider.decide(commands, state)
        let batch = Record.batch(of: facts, after: position, options: AppendOptions(commandID: commandID))
        for fact in facts { state.apply(fact) }
        records += batch
        return batch.first!.position...batch.last!.position
    }

    /// The state after the records before `position`.
    func state(before position: Int64) -> DomainState {
        records.prefix { $0.position < position }.flatMap(\.facts).reduce(DomainState(), Decider.evolve)
    }

    /// The undo of the batch at `positions`, checked against the records after it.
    func compensation(_ positions: ClosedRange<Int64>) throws -> Compensation {
        let batch = records.filter { positions.contains($0.position) }
        let compensation = Compensation(records: batch, before: state(before: positions.lowerBound))
        try compensation.checkLater(Array(records.drop { $0.position <= positions.upperBound }))
        return compensation
    }

    /// Appends the undo of the batch at `positions`; returns the undo's positions, or `nil`
    /// when the batch changed nothing.
    @discardableResult
    mutating func undo(_ positions: ClosedRange<Int64>) throws -> ClosedRange<Int64>? {
        let compensation = try compensation(positions)
        guard !compensation.commands.isEmpty else { return nil }
        return try send(compensation.commands, commandID: compensation.commandID)
    }
}

@Suite("Compensating batches")
struct CompensationTests {
    static func date(_ text: String) -> DateValue { DeciderTests.date(text) }

    /// Two timelines: `life` with a single date, an open and a closed range; `work` with one event.
    static func given() throws -> UndoLog {
        var log = UndoLog()
        try log.send([.createTimeline("life", name: "My life"), .createTimeline("work", name: "Work")])
        try log.send([.addEvent("born", timeline: "life", title: "Born", dates: .single(date("1990-04-12"))),
                      .addEvent("berlin", timeline: "life", title: "Berlin", dates: .range(start: date("2019-03"), end: nil)),
                      .addEvent("school", timeline: "life", title: "School",
                                dates: .range(start: date("1996-09"), end: date("2008-06"))),
                      .addEvent("job", timeline: "work", title: "Job", dates: .single(date("2010")))])
        return log
    }

    /// Each kind of batch, undone, gives the state before it back.
    @Test(arguments: [
        [Command.retitleEvent("born", title: "Birth")],
        [.removeEvent("school")],
        [.removeTimeline("life")],
        [.moveEvent("born", to: "work")],
        [.closeRange("berlin", end: date("2024-05"))],
        [.reopenRange("school")],
        [.setDate("berlin", date("2020"))],
        [.setRange("born", start: date("1990"), end: date("1991"))],
        [.addEvent("new", timeline: "work", title: "New", dates: .range(start: date("2001"), end: date("2002")))],
        [.createTimeline("travel", name: "Travel"),
         .addEvent("trip", timeline: "travel", title: "Trip", dates: .single(date("2015"))),
         .moveEvent("job", to: "travel")],
        [.renameTimeline("work", name: "Career"), .removeEvent("job"),
         .addEvent("job", timeline: "life", title: "Other job", dates: .single(date("2011")))],
        [.removeTimeline("work"), .createTimeline("work", name: "Work again"),
         .addEvent("job2", timeline: "work", title: "Second job", dates: .single(date("2012")))],
        [.moveEvent("born", to: "work"), .removeTimeline("work")],
    ])
    func undoingABatchGivesTheStateBeforeIt(commands: [Command]) throws {
        var log = try Self.given()
        let before = log.state
        let batch = try log.send(commands)
        #expect(try log.undo(batch) != nil)
        #expect(log.state == before)
        #expect(log.records.last?.commandID == "undo:\(batch.lowerBound)")
    }

    @Test func aRemovedTimelineComesBackWithItsEventsTheirDatesAndTitles() throws {
        var log = try Self.given()
        let batch = try log.send([.removeTimeline("life")])
        let compensation = try log.compensation(batch)
        #expect(compensation.commands == [
            .createTimeline("life", name: "My life"),
            .addEvent("berlin", timeline: "life", title: "Berlin", dates: .range(start: Self.date("2019-03"), end: nil)),
            .addEvent("born", timeline: "life", title: "Born", dates: .single(Self.date("1990-04-12"))),
            .addEvent("school", timeline: "life", title: "School",
                      dates: .range(start: Self.date("1996-09"), end: Self.date("2008-06"))),
        ])
        #expect(compensation.events == ["berlin", "born", "school"] && compensation.timelines == ["life"])
    }

    @Test func aClosedRangeReopensAndAMovedEventMovesBack() throws {
        var log = try Self.given()
        let closed = try log.send([.closeRange("berlin", end: Self.date("2024"))])
        #expect(try log.compensation(closed).commands == [.reopenRange("berlin")])
        let moved = try log.send([.moveEvent("born", to: "work")])
        #expect(try log.compensation(moved).commands == [.moveEvent("born", to: "life")])
        let created = try log.send([.createTimeline("t", name: "T"),
                                    .addEvent("x", timeline: "t", title: "X", dates: .single(Self.date("2000")))])
        // The event goes with its timeline: one command.
        #expect(try log.compensation(created).commands == [.removeTimeline("t")])
    }

    @Test func aBatchThatChangedNothingGivesNoCommands() throws {
        var log = try Self.given()
        let batch = try log.send([.moveEvent("born", to: "life")])
        #expect(try log.compensation(batch).commands.isEmpty)
        #expect(try log.undo(batch) == nil)
        let renamed = try log.send([.renameTimeline("work", name: "Work")])
        #expect(try log.compensation(renamed).commands.isEmpty)
    }

    @Test func aLaterChangeOfTheSameEventRefusesNamingItsRecord() throws {
        var log = try Self.given()
        let batch = try log.send([.retitleEvent("born", title: "Birth")])
        let later = try log.send([.setDate("born", Self.date("1990"))])
        #expect(throws: UndoRefusal.changedLater(position: later.lowerBound, subject: .event("born"))) {
            try log.compensation(batch)
        }
        #expect(UndoRefusal.changedLater(position: 7, subject: .event("born")).description.hasPrefix(
            "record 7 changed event born after this batch"))
    }

    @Test func aLaterRemovalOfTheEventsTimelineRefuses() throws {
        var log = try Self.given()
        let batch = try log.send([.moveEvent("born", to: "work")])
        try log.send([.renameTimeline("work", name: "Career")])   // touches the timeline, not the event
        #expect(try log.compensation(batch).commands == [.moveEvent("born", to: "life")])
        let removal = try log.send([.removeTimeline("work")])
        #expect(throws: UndoRefusal.changedLater(position: removal.lowerBound, subject: .event("born"))) {
            try log.compensation(batch)
        }
    }

    @Test func laterChangesOfOtherThingsDoNotRefuse() throws {
        var log = try Self.given()
        let batch = try log.send([.retitleEvent("born", title: "Birth"), .renameTimeline("life", name: "Life")])
        try log.send([.retitleEvent("school", title: "Schule")])
        try log.send([.addEvent("kid", timeline: "life", title: "Kid", dates: .single(Self.date("2020")))])
        try log.undo(batch)
        #expect(log.state.event("born")?.title == "Born" && log.state.timeline("life")?.name == "My life")
        #expect(log.state.event("school")?.title == "Schule" && log.state.event("kid") != nil)
    }

    @Test func anEventAddedLaterToACreatedTimelineRefusesItsRemoval() throws {
        var log = try Self.given()
        let batch = try log.send([.createTimeline("t", name: "T")])
        let later = try log.send([.addEvent("x", timeline: "t", title: "X", dates: .single(Self.date("2000")))])
        #expect(throws: UndoRefusal.changedLater(position: later.lowerBound, subject: .timeline("t"))) {
            try log.compensation(batch)
        }
    }

    @Test func aCompensatingBatchTheRulesRefuseIsRefusedWithTheRule() throws {
        var log = try Self.given()
        let batch = try log.send([.moveEvent("job", to: "life")])
        // Removing `work` takes none of the events the batch touched, yet the way back is gone.
        try log.send([.removeTimeline("work")])
        #expect(throws: Rejection.unknownTimeline("work")) { try log.undo(batch) }
    }

    @Test func undoingTheLastBatchesInTurnAndRedoing() throws {
        var log = try Self.given()
        var states = [log.state]
        var batches: [ClosedRange<Int64>] = []
        for commands: [Command] in [[.retitleEvent("born", title: "A")], [.retitleEvent("born", title: "B")],
                                    [.removeTimeline("life")]] {
            batches.append(try log.send(commands))
            states.append(log.state)
        }
        var undos: [ClosedRange<Int64>] = []
        for (index, batch) in batches.enumerated().reversed() {
            undos.append(try #require(try log.undo(batch)))
            #expect(log.state == states[index])
        }
        // The first batch was undone: undoing it again is refused, naming its undo.
        #expect(throws: UndoRefusal.alreadyUndone(by: undos.last!.lowerBound)) { try log.compensation(batches[0]) }
        // Redo is the undo of the undo, in turn.
        var redos: [ClosedRange<Int64>] = []
        for (index, undo) in undos.enumerated().reversed() {
            redos.append(try #require(try log.undo(undo)))
            #expect(log.state == states[batches.count - index])
        }
        // Everything is back. The last batch's marker is taken: its undo is the undo of its redo.
        #expect(throws: UndoRefusal.redone(undo: undos[0].lowerBound, redo: redos.last!.lowerBound)) {
            try log.compensation(batches[2])
        }
        try log.undo(redos.last!)
        #expect(log.state == states[2])
    }

    /// The batch whose revert brings an undone batch back: its undo, then, once that undo
    /// is redone and undone again, the last undo in force; nothing for a batch not undone.
    @Test func theUndoInForceFollowsRedos() throws {
        var log = try Self.given()
        let batch = try log.send([.retitleEvent("born", title: "A")])
        func inForce() -> Int64? { Compensation.undoInForce(of: batch, amongLater: Array(log.records.drop { $0.position <= batch.upperBound })) }
        #expect(inForce() == nil)
        let undo = try #require(try log.undo(batch))
        #expect(inForce() == undo.lowerBound)
        let redo = try #require(try log.undo(undo))
        #expect(inForce() == nil, "redone: it stands")
        let again = try #require(try log.undo(redo))
        #expect(inForce() == again.lowerBound)
        try log.send([.retitleEvent("born", title: "Other")])
        #expect(inForce() == again.lowerBound, "a later change is no redo")
    }

    @Test func theMarkerIsReadBack() {
        #expect(UndoMarker.commandID(undoing: 17) == "undo:17")
        #expect(UndoMarker.undonePosition("undo:17") == 17)
        for other in [nil, "undo:", "undo:0", "undo:07", "undo:x", "redo:1", "undo:1 ", "e1"] {
            #expect(UndoMarker.undonePosition(other) == nil)
        }
    }
}

@Suite("Event history")
struct EventHistoryTests {
    @Test func everyRecordThatTouchedTheEventInBothLives() throws {
        var log = try CompensationTests.given()
        try log.send([.retitleEvent("born", title: "Birth")])
        try log.send([.retitleEvent("school", title: "Schule")])
        try log.send([.removeEvent("born")])
        try log.send([.addEvent("born", timeline: "work", title: "Born again", dates: .single(CompensationTests.date("2000")))])
        try log.send([.moveEvent("job", to: "life")])
        try log.send([.removeTimeline("work")])
        let history = EventHistory.of("born", in: log.records)
        #expect(history.map(\.position) == [3, 9, 11, 12, 14])
        #expect(history.map { $0.facts[0].type } == [.eventAdded, .eventRetitled, .eventRemoved, .eventAdded, .timelineRemoved])
        #expect(EventHistory.of("nobody", in: log.records).isEmpty)
    }
}
