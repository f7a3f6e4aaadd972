import Foundation
import Testing
import TimelineCore
import TimelineTestSupport
@testable import TimelineKit

/// A command id names one command: the same commands sent again with it append nothing
/// (a retry), ids made again included; other commands with it are refused, never answered
/// "already done" while what they asked for is not done.
@Suite("A command id used again")
struct CommandIDReuseTests {
    @Test func theSameCommandsAreARetryAndOthersAreRefused() async throws {
        let store = try TimelineStore(clock: ManualClock(Instant(microsecondsSinceEpoch: 0)))
        try await store.send(.createTimeline("life", name: "Life"))
        let add = Command.addEvent("e1", timeline: "life", title: "First", dates: .range(start: date("2000"), end: nil))
        let first = try await store.send(add, commandID: "k1")
        #expect(try await store.send(add, commandID: "k1") == first)
        #expect(await store.position == 3)
        await #expect(throws: StoreError.commandIDInUse(commandID: "k1", positions: 2...3, types: [.eventAdded, .rangeSet])) {
            try await store.send(.removeEvent("e1"), commandID: "k1")
        }
        // Another title, another range, another batch: each another command. (Another id
        // for an event it adds is the same command: a retry makes its ids again.)
        for other: [Command] in [[.addEvent("e1", timeline: "life", title: "Second", dates: .range(start: date("2000"), end: nil))],
                                 [.addEvent("e1", timeline: "life", title: "First", dates: .single(date("2000")))],
                                 [add, .retitleEvent("e1", title: "Again")]] {
            await #expect(throws: StoreError.self) { try await store.send(other, commandID: "k1") }
        }
        #expect(await store.position == 3)
        #expect(Array(await store.rows()).map(\.title) == ["First", "First"])
    }

    /// A send that makes its ids, retried with its command id: the ids are made again
    /// (another `e<n>`) and it is still the same command (it trapped: the command was never
    /// made for a duplicate); made for another title, it is refused.
    @Test func aRetryOfASendThatMakesItsIdsIsTheSameCommand() async throws {
        let store = try TimelineStore(clock: ManualClock(Instant(microsecondsSinceEpoch: 0)))
        try await store.send(.createTimeline("life", name: "Life"))
        func add(_ title: String) -> @Sendable (NewIdentifiers) -> Command {
            { ids in .addEvent(ids.eventID(), timeline: "life", title: title, dates: .single(date("2001"))) }
        }
        let first = try await store.send(commandID: "made", making: add("Mine"))
        let again = try await store.send(commandID: "made", making: add("Mine"))
        #expect(again.records == first.records)
        await #expect(throws: StoreError.self) { try await store.send(commandID: "made", making: add("Yours")) }
        let timeline = try await store.sendReporting(commandID: "t") { ids in .createTimeline(ids.timelineID(name: "Work"), name: "Work") }
        let timelineAgain = try await store.sendReporting(commandID: "t") { ids in
            .createTimeline(ids.timelineID(name: "Work"), name: "Work")
        }
        #expect(timelineAgain.result.wasDuplicate && timelineAgain.result.records == timeline.result.records)
        #expect(await store.position == 3)
    }

    @Test func sameCommandsAreJudgedUpToTheIdsTheyMake() throws {
        let start = try DateValue(parsing: "2000"), end = try DateValue(parsing: "2001")
        let recorded: [Fact] = [.timelineCreated(timeline: "work-2", name: "Work"),
                                .eventAdded(event: "e7", timeline: "work-2", title: "Job", date: start),
                                .rangeSet(event: "e7", start: start, end: end)]
        let batch: [Command] = [.createTimeline("work", name: " Work "),
                                .addEvent("e9", timeline: "work", title: "Job", dates: .range(start: start, end: end))]
        #expect(Decider.recordsSameCommands(batch, as: recorded))
        #expect(!Decider.recordsSameCommands([.createTimeline("work", name: "Work")], as: recorded))
        #expect(!Decider.recordsSameCommands([.createTimeline("work", name: "Home"), batch[1]], as: recorded))
        #expect(!Decider.recordsSameCommands([batch[0], .addEvent("e9", timeline: "other", title: "Job",
                                                                  dates: .range(start: start, end: end))], as: recorded))
        #expect(!Decider.recordsSameCommands([batch[0], .addEvent("e9", timeline: "work", title: "Job",
                                                                  dates: .range(start: start, end: nil))], as: recorded))
        #expect(Decider.recordsSameCommands([.removeEvent("e1")], as: [.eventRemoved(event: "e1")]))
        #expect(!Decider.recordsSameCommands([.removeEvent("e2")], as: [.eventRemoved(event: "e1")]))
    }
}
