import Foundation
import Testing
import TimelineCore
import TimelineProjections
@testable import TimelineKit

@Suite("Opening a store from its checkpoint's resume point")
struct OpeningFromCheckpointTests {
    static let views = [
        ViewDefinition(),
        ViewDefinition(filter: .timeline("work"), order: .descending, sections: .year),
    ]

    /// Sends `count` commands, every third with a command id `"\(prefix)-i"`.
    static func send(_ store: TimelineStore, _ range: Range<Int>, prefix: String = "c") async throws {
        for i in range {
            let id = EventID("e\(i)")
            let commandID: String? = i % 3 == 0 ? "\(prefix)-\(i)" : nil
            switch i % 4 {
            case 0: try await store.send(.addEvent(id, timeline: "home", title: "Home \(i)", dates: .single(date("\(1980 + i % 40)"))),
                                         commandID: commandID)
            case 1: try await store.send(.addEvent(id, timeline: "work", title: "Job \(i)",
                                                   dates: .range(start: date("\(1990 + i % 30)-03"), end: nil)), commandID: commandID)
            case 2: try await store.send([.addEvent(id, timeline: "work", title: "Trip \(i)", dates: .single(date("2001-02-03"))),
                                          .retitleEvent(id, title: "Trip \(i) ✈︎")], commandID: commandID)
            default: try await store.send(.closeRange(EventID("e\(i - 2)"), end: date("2024-0\(1 + i % 9)")), commandID: commandID)
            }
        }
    }

    /// A store's log with a checkpoint at the end of `first` commands and `more` commands
    /// after it; returns the positions of the checkpoint and of the end.
    @discardableResult
    static func populate(_ path: String, first: Int = 24, more: Int = 0) async throws -> (checkpoint: Int64, end: Int64) {
        let store = try TimelineStore(path: path, clock: ManualClock(fixedNow), views: views)
        try await store.send([.createTimeline("home", name: "Home"), .createTimeline("work", name: "Work")])
        try await send(store, 0..<first)
        let checkpoint = await store.position
        try await store.saveCheckpoint()
        try await send(store, first..<(first + more))
        (store.log as? FileEventLog)?.close()
        return (checkpoint, await store.position)
    }

    static func open(_ path: String) throws -> TimelineStore {
        try TimelineStore(path: path, clock: ManualClock(fixedNow), views: views)
    }

    /// The rows and the decider's state of a store, beside those of a full replay of its log.
    static func expectSameAsFullReplay(_ store: TimelineStore, _ path: String,
                                       sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let records = try FileEventLog.read(path: path).records
        let fresh = TimelineProjection(records: records, views: views, now: fixedNow)
        for view in views {
            #expect(Array(await store.rows(view)) == Array(fresh.rows(view) ?? RowList()), sourceLocation: sourceLocation)
        }
        #expect(await store.timelineSummaries == fresh.timelineSummaries, sourceLocation: sourceLocation)
        let state = records.flatMap(\.facts).reduce(into: DomainState()) { $0.apply($1) }
        #expect(await store.domainState == state, sourceLocation: sourceLocation)
    }

    @Test func aCheckpointAtPositionZeroReplaysEverythingAfterIt() async throws {
        // Saved on an empty log, then two commands, then a stop without close().
        let directory = TemporaryDirectory()
        let path = directory.path + "/log.jsonl"
        let store = try Self.open(path)
        try await store.saveCheckpoint()
        try await store.send(.createTimeline("home", name: "Home"))
        try await store.send(.addEvent("e1", timeline: "home", title: "Born", dates: .single(date("1990"))))
        (store.log as? FileEventLog)?.close()

        let reopened = try Self.open(path)
        defer { (reopened.log as? FileEventLog)?.close() }
        #expect(reopened.openingReport.checkpointPosition == 0)
        #expect(reopened.openingReport.replayedRecords == 2)
        #expect(await reopened.position == 2)
        #expect(await reopened.eventCount == 1)
        #expect(await reopened.eventIDs == ["e1"])
        await #expect(throws: StoreError.rejected(.timelineExists("home"))) {
            try await reopened.send(.createTimeline("home", name: "Again"))
        }
        try await Self.expectSameAsFullReplay(reopened, path)
    }

    @Test func aStoreResumesAtTheCheckpointAndEqualsAFullReplay() async throws {
        let directory = TemporaryDirectory()
        let path = directory.path + "/log.jsonl"
        let (checkpoint, end) = try await Self.populate(path, first: 24, more: 5)
        #expect(checkpoint < end)
        let store = try Self.open(path)
        defer { (store.log as? FileEventLog)?.close() }
        #expect(store.openingReport.checkpointProblem == nil)
        #expect(store.openingReport.checkpointPosition == checkpoint)
        #expect(store.openingReport.replayedRecords == Int(end - checkpoint))
        try await Self.expectSameAsFullReplay(store, path)
        // Reading from before the checkpoint still works (the prefix is read on demand).
        #expect(try store.log.records(after: 0) == FileEventLog.read(path: path).records)
    }

    @Test func commandIDsRecordedBeforeTheCheckpointStayIdempotent() async throws {
        let directory = TemporaryDirectory()
        let path = directory.path + "/log.jsonl"
        try await Self.populate(path, first: 24, more: 3)
        let store = try Self.open(path)
        defer { (store.log as? FileEventLog)?.close() }
        #expect(store.openingReport.checkpointPosition != nil)
        let before = await store.position
        let all = try FileEventLog.read(path: path).records
        for i in [0, 3, 6, 21, 24] {
            let id = "c-\(i)"
            // The id is known: another command given it is refused, naming what it recorded.
            let first = all.filter { $0.commandID == id }
            #expect(!first.isEmpty)
            await #expect(throws: StoreError.commandIDInUse(commandID: id, positions: first[0].position...first.last!.position,
                                                            types: first.flatMap(\.facts).map(\.type))) {
                try await store.send(.createTimeline("other", name: "Other"), commandID: id)
            }
        }
        #expect(await store.position == before)
        // After a later checkpoint (the table carried over) the ids still answer.
        try await store.send(.createTimeline("later", name: "Later"), commandID: "late")
        try await store.close()
        let reopened = try Self.open(path)
        defer { (reopened.log as? FileEventLog)?.close() }
        #expect(reopened.openingReport.replayedRecords == 0)
        for id in ["c-0", "c-24"] {
            await #expect(throws: StoreError.self) { try await reopened.send(.createTimeline("x", name: "X"), commandID: id) }
        }
        // The same command again answers what it recorded.
        #expect(try await reopened.send(.createTimeline("later", name: "Later"), commandID: "late").first?.commandID == "late")
        #expect(await reopened.position == before + 1)
    }

    @Test func aLogChangedBehindTheCheckpointMeansAFullReplayWithTheReason() async throws {
        let directory = TemporaryDirectory()
        let path = directory.path + "/log.jsonl"
        try await Self.populate(path, first: 24, more: 0)
        let bytes = Array(try #require(FileManager.default.contents(atPath: path)))
        // The last record rewritten in place (same file, same length): another end date.
        let contents = try FileEventLog.read(path: path)
        let last = try #require(contents.records.last)
        guard case .rangeClosed(let event, _) = last.facts[0] else {
            Issue.record("the last record is \(last.facts)")
            return
        }
        let edited = Record(position: last.position, fact: .rangeClosed(event: event, end: date("2023-06")),
                            recordedAt: last.recordedAt, commandID: last.commandID)
        var line: [UInt8] = []
        RecordEncoder().encode(edited, into: &line)
        let start = try #require(contents.offsets.last)
        #expect(line.count == bytes.count - start)
        #expect(line != Array(bytes[start...]))
        let changed = Array(bytes[..<start]) + line
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.truncate(atOffset: 0)
        try handle.write(contentsOf: Data(changed))
        try handle.close()
        let store = try Self.open(path)
        defer { (store.log as? FileEventLog)?.close() }
        #expect(store.openingReport.checkpointPosition == nil)
        #expect(store.openingReport.checkpointProblem?.contains("does not match the log") == true,
                "\(store.openingReport.checkpointProblem ?? "nil")")
        try await Self.expectSameAsFullReplay(store, path)
    }

    @Test func aTornTailAfterTheCheckpointIsCutAndReported() async throws {
        let directory = TemporaryDirectory()
        let path = directory.path + "/log.jsonl"
        let (checkpoint, end) = try await Self.populate(path, first: 24, more: 4)
        let valid = try #require(FileManager.default.contents(atPath: path)).count
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(#"{"seq":40,"type":"eventAdded","data":{"event":"#.utf8))
        try handle.close()
        let store = try Self.open(path)
        defer { (store.log as? FileEventLog)?.close() }
        #expect(store.openingReport.checkpointPosition == checkpoint)
        #expect(store.openingReport.replayedRecords == Int(end - checkpoint))
        let log = try #require(store.log as? FileEventLog)
        #expect(log.tornTail?.offset == valid)
        #expect(try #require(FileManager.default.contents(atPath: path)).count == valid)
        try await Self.expectSameAsFullReplay(store, path)
    }
}
