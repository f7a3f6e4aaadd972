import Foundation
import Testing
import TimelineCore
import TimelineProjections
@testable import TimelineKit

/// One bad command, the rejection it must get, and a value its message must name.
struct BadCommand: Sendable, CustomTestStringConvertible {
    var command: Command
    var rejection: Rejection
    var names: String
    var testDescription: String { String("\(command)".prefix(80)) }
}

let longText = String(repeating: "x", count: Rejection.maximumTextLength + 1)

@Suite("Bad input to the store is rejected by name and appends nothing")
struct BadInputTests {
    static let cases: [BadCommand] = [
        // Timelines.
        BadCommand(command: .createTimeline("life", name: "Again"), rejection: .timelineExists("life"), names: "\"life\""),
        BadCommand(command: .createTimeline("new", name: ""), rejection: .emptyText(field: "timeline name"), names: "name"),
        BadCommand(command: .createTimeline("new", name: " \n\t "), rejection: .emptyText(field: "timeline name"), names: "name"),
        BadCommand(command: .createTimeline("new", name: longText), rejection: .textTooLong(field: "timeline name", length: 1001),
                   names: "1001"),
        BadCommand(command: .renameTimeline("nope", name: "X"), rejection: .unknownTimeline("nope"), names: "\"nope\""),
        BadCommand(command: .renameTimeline("life", name: ""), rejection: .emptyText(field: "timeline name"), names: "name"),
        BadCommand(command: .renameTimeline("life", name: longText), rejection: .textTooLong(field: "timeline name", length: 1001),
                   names: "1001"),
        BadCommand(command: .removeTimeline("nope"), rejection: .unknownTimeline("nope"), names: "\"nope\""),
        // Adding events.
        BadCommand(command: .addEvent("single", timeline: "life", title: "Again", dates: .single(date("2000"))),
                   rejection: .eventExists("single"), names: "\"single\""),
        BadCommand(command: .addEvent("new", timeline: "nope", title: "X", dates: .single(date("2000"))),
                   rejection: .unknownTimeline("nope"), names: "\"nope\""),
        BadCommand(command: .addEvent("new", timeline: "life", title: "", dates: .single(date("2000"))),
                   rejection: .emptyText(field: "title"), names: "title"),
        BadCommand(command: .addEvent("new", timeline: "life", title: longText, dates: .single(date("2000"))),
                   rejection: .textTooLong(field: "title", length: 1001), names: "1001"),
        BadCommand(command: .addEvent("new", timeline: "life", title: "X",
                                      dates: .range(start: date("2000-05"), end: date("2000-04-30"))),
                   rejection: .endBeforeStart(event: "new", start: date("2000-05"), end: date("2000-04-30")),
                   names: "\"2000-04-30\""),
        // Changing events.
        BadCommand(command: .retitleEvent("nope", title: "X"), rejection: .unknownEvent("nope"), names: "\"nope\""),
        BadCommand(command: .retitleEvent("single", title: "   "), rejection: .emptyText(field: "title"), names: "title"),
        BadCommand(command: .retitleEvent("single", title: longText), rejection: .textTooLong(field: "title", length: 1001),
                   names: "1001"),
        BadCommand(command: .setDate("nope", date("2000")), rejection: .unknownEvent("nope"), names: "\"nope\""),
        BadCommand(command: .setRange("nope", start: date("2000"), end: nil), rejection: .unknownEvent("nope"),
                   names: "\"nope\""),
        BadCommand(command: .setRange("single", start: date("2000"), end: date("1999")),
                   rejection: .endBeforeStart(event: "single", start: date("2000"), end: date("1999")), names: "\"1999\""),
        BadCommand(command: .closeRange("nope", end: date("2000")), rejection: .unknownEvent("nope"), names: "\"nope\""),
        BadCommand(command: .closeRange("single", end: date("2000")), rejection: .notOpenRange("single"),
                   names: "\"single\""),
        BadCommand(command: .closeRange("closed", end: date("2030")), rejection: .notOpenRange("closed"),
                   names: "\"closed\""),
        BadCommand(command: .closeRange("open", end: date("2001")),
                   rejection: .endBeforeStart(event: "open", start: date("2010-06"), end: date("2001")), names: "\"2001\""),
        BadCommand(command: .reopenRange("nope"), rejection: .unknownEvent("nope"), names: "\"nope\""),
        BadCommand(command: .reopenRange("single"), rejection: .notClosedRange("single"), names: "\"single\""),
        BadCommand(command: .reopenRange("open"), rejection: .notClosedRange("open"), names: "\"open\""),
        BadCommand(command: .moveEvent("nope", to: "life"), rejection: .unknownEvent("nope"), names: "\"nope\""),
        BadCommand(command: .moveEvent("single", to: "nope"), rejection: .unknownTimeline("nope"), names: "\"nope\""),
        BadCommand(command: .removeEvent("nope"), rejection: .unknownEvent("nope"), names: "\"nope\""),
    ]

    /// A store on a file log with a timeline and one event of each kind of dates.
    static func prepared(_ path: String) async throws -> TimelineStore {
        let store = try TimelineStore(path: path, clock: ManualClock(fixedNow))
        try await store.send([
            .createTimeline("life", name: "Life"),
            .addEvent("single", timeline: "life", title: "Single", dates: .single(date("1990-04-12"))),
            .addEvent("open", timeline: "life", title: "Open", dates: .range(start: date("2010-06"), end: nil)),
            .addEvent("closed", timeline: "life", title: "Closed", dates: .range(start: date("2000"), end: date("2005"))),
        ])
        return store
    }

    @Test(arguments: cases)
    func aBadCommandIsRejectedByNameAndTheLogIsUnchanged(_ bad: BadCommand) async throws {
        let directory = TemporaryDirectory()
        let path = directory.path + "/log.jsonl"
        let store = try await Self.prepared(path)
        defer { (store.log as? FileEventLog)?.close() }
        let before = try #require(FileManager.default.contents(atPath: path))
        let position = await store.position
        do {
            try await store.send(bad.command)
            Issue.record("accepted: \(bad.command)")
        } catch {
            #expect(error == .rejected(bad.rejection))
            #expect(error.description.contains(bad.names), "\(error.description)")
        }
        // The same command at the end of an otherwise good batch sinks the whole batch.
        await #expect(throws: StoreError.rejected(bad.rejection)) {
            try await store.send([.createTimeline("fresh", name: "Fresh"), bad.command])
        }
        #expect(await store.position == position)
        #expect(FileManager.default.contents(atPath: path) == before, "the log changed")
    }

    @Test func textOfExactlyTheLimitIsAccepted() async throws {
        let directory = TemporaryDirectory()
        let store = try await Self.prepared(directory.path + "/log.jsonl")
        defer { (store.log as? FileEventLog)?.close() }
        let limit = String(repeating: "é", count: Rejection.maximumTextLength)
        try await store.send(.retitleEvent("single", title: "  " + limit + "  "))
        #expect(await store.domainState.events["single"]?.title == limit)
    }
}
