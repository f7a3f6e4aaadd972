import Testing
import TimelineCore
import TimelineProjections
import TimelineTestSupport
@testable import TimelineKit

/// Random commands, mostly accepted, over a few timelines and events (as the projections'
/// property tests make them).
private struct CommandGenerator {
    var rng: SplitMix64
    let timelines: [TimelineID] = ["home", "work", "travel"]
    let events: [EventID] = (0..<12).map { (number: Int) -> EventID in EventID("e\(number)") }
    let dates: [DateValue] = {
        let texts: [String] = ["1990", "1990-04-12", "2000", "2010-06-15T10:30Z", "2019-03", "2020", "2024-02-29", "2025-06"]
        return texts.map { (text: String) -> DateValue in date(text) }
    }()

    init(seed: UInt64) { rng = SplitMix64(seed: seed) }

    mutating func pick<T>(_ values: [T]) -> T { values[Int.random(in: 0..<values.count, using: &rng)] }

    mutating func command() -> Command {
        let title = pick(["Born", "School", "Job", "Trip"])
        let event = pick(events), timeline = pick(timelines), when = pick(dates)
        switch Int.random(in: 0..<100, using: &rng) {
        case 0..<8: return .createTimeline(timeline, name: pick(["Home", "Work", "Travel"]))
        case 8..<11: return .renameTimeline(timeline, name: pick(["Home", "Work", "A"]))
        case 11..<14: return .removeTimeline(timeline)
        case 14..<40:
            let dates: EventDates
            switch Int.random(in: 0..<3, using: &rng) {
            case 0: dates = .single(when)
            case 1: dates = .range(start: when, end: nil)
            default: dates = .range(start: date("1980"), end: when)
            }
            return .addEvent(event, timeline: timeline, title: title, dates: dates)
        case 40..<50: return .retitleEvent(event, title: title)
        case 50..<56: return .setDate(event, when)
        case 56..<62:
            let end: DateValue? = Bool.random(using: &rng) ? nil : when
            return .setRange(event, start: date("1970"), end: end)
        case 62..<70: return .closeRange(event, end: when)
        case 70..<76: return .reopenRange(event)
        case 76..<88: return .moveEvent(event, to: timeline)
        default: return .removeEvent(event)
        }
    }

    /// Sends random batches of one to three commands until one is accepted.
    mutating func sendAccepted(to store: TimelineStore) async {
        while true {
            var commands: [Command] = []
            for _ in 0..<Int.random(in: 1...3, using: &rng) { commands.append(command()) }
            if (try? await store.send(commands)) != nil { return }
        }
    }
}

/// What a front end sees of the store: every view's rows and sections, and the summaries.
private struct Seen: Equatable {
    var rows: [[Row]] = []
    var sections: [SectionList] = []
    var summaries: [TimelineSummary] = []

    static let views: [ViewDefinition] = [
        ViewDefinition(),
        ViewDefinition(filter: .timeline("home"), sections: .year),
        ViewDefinition(placement: .last, order: .descending, sections: .decade),
    ]

    init(_ store: TimelineStore) async {
        for view in Self.views {
            let snapshot = await store.snapshot(view)
            rows.append(Array(snapshot.rows))
            sections.append(snapshot.sections)
        }
        summaries = await store.timelineSummaries
    }
}

@Suite("Undo and redo in the store")
struct StoreUndoTests {
    func makeStore(log: any EventLog = InMemoryEventLog()) throws -> TimelineStore {
        try TimelineStore(log: log, clock: ManualClock(fixedNow), views: Seen.views)
    }

    /// Undoing the last k batches in turn gives exactly what a front end saw before each;
    /// redoing gives them back; each change set chains and applies to the rows before it.
    @Test(arguments: 0..<40)
    func undoingTheLastBatchesInTurnAndRedoingThem(seed: UInt64) async throws {
        var generator = CommandGenerator(seed: seed)
        let store = try makeStore()
        for _ in 0..<Int.random(in: 5...25, using: &generator.rng) { await generator.sendAccepted(to: store) }
        let followed = ViewDefinition(sections: .year)
        let subscription = await store.subscribe(followed)
        var seen = [await Seen(store)]
        for _ in 0..<Int.random(in: 1...8, using: &generator.rng) {
            await generator.sendAccepted(to: store)
            seen.append(await Seen(store))
        }
        let batches = seen.count - 1
        for index in (0..<batches).reversed() {
            #expect(await store.canUndo)
            try await store.undo()
            let now = await Seen(store)
            #expect(now == seen[index], "undoing batch \(index + 1) of \(batches) (seed \(seed))")
        }
        for index in 1...batches {
            #expect(await store.canRedo)
            try await store.redo()
            let now = await Seen(store)
            #expect(now == seen[index], "redoing batch \(index) of \(batches) (seed \(seed))")
        }
        #expect(await !store.canRedo)
        var rows = Array(subscription.snapshot.rows)
        var from = subscription.snapshot.position
        // The view's last change set ends where its snapshot now is (a batch that changed
        // nothing it shows sends it none).
        let end = await store.snapshot(followed).position
        var changes = subscription.changes.makeAsyncIterator()
        while from < end, let changeSet = await changes.next() {
            #expect(changeSet.from == from, "change sets chain")
            #expect(changeSet.removals == changeSet.removals.sorted())
            #expect(changeSet.insertions == changeSet.insertions.sorted())
            rows = changeSet.applied(to: rows)
            #expect(rows == Array(changeSet.rows))
            from = changeSet.to
        }
        let current = Array(await store.rows(followed))
        #expect(rows == current)
    }

    @Test func actionNamesNameWhatIsUndone() async throws {
        let store = try makeStore()
        let none = await store.undoActionName
        #expect(none == nil)
        try await store.send(.createTimeline("life", name: "My life"))
        #expect(await store.undoActionName == #"Create Timeline "My life""#)
        var adding: [Command] = []
        for number in 1...3 {
            adding.append(.addEvent(EventID("e\(number)"), timeline: "life", title: "E", dates: .single(date("2000"))))
        }
        try await store.send(adding)
        #expect(await store.undoActionName == "Add 3 events")
        try await store.send(.retitleEvent("e1", title: "Born"))
        try await store.send(.retitleEvent("e1", title: "Born in Leipzig"))
        #expect(await store.undoActionName == #"Retitle "Born""#)
        let removing: [Command] = [.removeEvent("e1"), .removeEvent("e2"), .removeEvent("e3")]
        try await store.send(removing)
        #expect(await store.undoActionName == "Remove 3 events")
        try await store.undo()
        #expect(await store.redoActionName == "Remove 3 events")
        #expect(await store.undoActionName == #"Retitle "Born""#)
        let mixed: [Command] = [.moveEvent("e1", to: "life"), .retitleEvent("e2", title: "X")]
        try await store.send(mixed)
        #expect(await store.undoActionName == "2 changes")
        #expect(await !store.canRedo, "a new send clears redo")
        await #expect(throws: StoreError.undoRefused(.nothingToRedo)) { try await store.redo() }
    }

    @Test func aSendThatChangedNothingUndoesToNothing() async throws {
        let store = try makeStore()
        let setUp: [Command] = [.createTimeline("life", name: "Life"),
                                .addEvent("e1", timeline: "life", title: "Born", dates: .single(date("1990")))]
        try await store.send(setUp)
        try await store.send(.moveEvent("e1", to: "life"))
        let position = await store.position
        #expect(try await store.undo().isEmpty)
        #expect(await store.position == position)
        #expect(await store.canRedo)
        #expect(try await store.redo().isEmpty)
    }

    @Test func anUndoIsRefusedWhenAnotherStoreChangedTheSameEvent() async throws {
        let log = InMemoryEventLog()
        let mine = try makeStore(log: log)
        let setUp: [Command] = [.createTimeline("life", name: "Life"),
                                .addEvent("e1", timeline: "life", title: "Born", dates: .single(date("1990")))]
        try await mine.send(setUp)
        try await mine.send(.retitleEvent("e1", title: "Birth"))
        let other = try makeStore(log: log)
        let theirs = try await other.send(.setDate("e1", date("1991")))
        let refusal = StoreError.undoRefused(.changedLater(position: theirs[0].position, subject: .event("e1")))
        await #expect(throws: refusal) { try await mine.undo() }
        // Refused: the step stays, and nothing was appended.
        #expect(await mine.canUndo)
        let last = try log.records(after: 0).last
        #expect(last?.position == theirs[0].position)
        // Once the other store undid its change, the undo goes through.
        try await other.undo()
        try await mine.undo()
        #expect(await mine.event("e1")?.title == "Born")
        let undo = try log.records(after: 0).last
        #expect(undo?.commandID == "undo:3")
    }

    /// An undo the rules refuse because it puts an event back in a timeline removed since
    /// names the removal, which, reverted first, brings the timeline back.
    @Test func anUndoTheRulesRefuseNamesTheRemovalToRevertFirst() async throws {
        let store = try makeStore()
        let setUp: [Command] = [.createTimeline("a", name: "A"), .createTimeline("b", name: "B"),
                                .addEvent("e1", timeline: "a", title: "E", dates: .single(date("1990")))]
        try await store.send(setUp)
        let other = try makeStore(log: store.log)
        try await store.send(.moveEvent("e1", to: "b"))
        try await other.send(.removeTimeline("a"))
        await #expect(throws: StoreError.undoRefused(.timelineRemoved("a", position: 5))) { try await store.undo() }
        #expect(UndoRefusal.timelineRemoved("a", position: 5).description == "the undo would put events back in timeline "
            + "a, which record 5 removed after this batch; revert record 5 first (it brings the timeline back), then this batch")
        // What the advice asks for, through the public API.
        try await store.revert(batchContaining: 5)
        try await store.undo()
        #expect(await store.event("e1")?.timeline == "a")
    }

    @Test func revertingAnyBatchOfTheLog() async throws {
        let store = try makeStore()
        let setUp: [Command] = [.createTimeline("life", name: "Life"),
                                .addEvent("e1", timeline: "life", title: "Born", dates: .range(start: date("1990"), end: nil))]
        try await store.send(setUp)
        try await store.send(.closeRange("e1", end: date("2000")))
        try await store.send(.createTimeline("work", name: "Work"))
        let compensation = try await store.compensation(forBatchContaining: 4)
        #expect(compensation.commands == [Command.reopenRange("e1")])
        #expect(compensation.positions == 4...4)
        let records = try await store.revert(compensation)
        #expect(records.map(\.commandID) == ["undo:4"])
        await #expect(throws: StoreError.undoRefused(.alreadyUndone(by: 6))) {
            try await store.compensation(forBatchContaining: 4)
        }
        await #expect(throws: StoreError.undoRefused(.noSuchRecord(position: 9, last: 6))) {
            try await store.compensation(forBatchContaining: 9)
        }
        // Record 2 is inside the first batch: the whole batch is undone. Record 4 changed e1,
        // but it was undone (by record 6), so neither counts.
        let first = try await store.compensation(forBatchContaining: 2)
        #expect(first.commands == [Command.removeTimeline("life")])
        try await store.send(.retitleEvent("e1", title: "Birth"))
        await #expect(throws: StoreError.undoRefused(.changedLater(position: 7, subject: .event("e1")))) {
            try await store.compensation(forBatchContaining: 2)
        }
    }
}
