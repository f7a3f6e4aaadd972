import Foundation
import Testing
import TimelineCore
import TimelineProjections
@testable import TimelineKit

/// `é` as U+00E9 and as `e` + U+0301 are two ids in the store: its decider, rows,
/// checkpoints and replay agree.
@Suite("Canonically equivalent ids in a store")
struct IdentifierBytesStoreTests {
    static let composed = EventID("\u{E9}")
    static let decomposed = EventID("e\u{301}")

    static func populate(_ path: String) async throws {
        let store = try OpeningFromCheckpointTests.open(path)
        try await store.send(.createTimeline("work", name: "Work"))
        try await store.send(.addEvent(composed, timeline: "work", title: "Composed", dates: .single(date("2019"))))
        try await store.send(.addEvent(decomposed, timeline: "work", title: "Decomposed", dates: .single(date("2019"))))
        try await store.saveCheckpoint()
        try await store.send(.retitleEvent(decomposed, title: "Decomposed, retitled"))
        (store.log as? FileEventLog)?.close()
    }

    static func expectBothEvents(_ store: TimelineStore) async {
        #expect(await store.eventCount == 2)
        let rows = Array(await store.rows(ViewDefinition()))
        // Equal instants: ordered by the ids' bytes, 0x65 ("e") before 0xC3.
        #expect(rows.map(\.id.event) == [decomposed, composed])
        #expect(rows.map(\.title) == ["Decomposed, retitled", "Composed"])
    }

    @Test func aStoreWithBothReopensFromItsCheckpointAndByReplay() async throws {
        let directory = TemporaryDirectory()
        let path = directory.path + "/log.jsonl"
        try await Self.populate(path)

        let reopened = try OpeningFromCheckpointTests.open(path)
        #expect(reopened.openingReport.checkpointPosition == 3)
        await Self.expectBothEvents(reopened)
        try await OpeningFromCheckpointTests.expectSameAsFullReplay(reopened, path)
        (reopened.log as? FileEventLog)?.close()

        // Without any checkpoint: the whole log replays.
        for name in try FileManager.default.contentsOfDirectory(atPath: directory.path) where name != "log.jsonl" {
            try FileManager.default.removeItem(atPath: directory.path + "/" + name)
        }
        let replayed = try OpeningFromCheckpointTests.open(path)
        defer { (replayed.log as? FileEventLog)?.close() }
        #expect(replayed.openingReport.checkpointPosition == nil)
        await Self.expectBothEvents(replayed)
        try await replayed.send(.removeEvent(Self.composed))
        #expect(await replayed.eventIDs == [Self.decomposed])
    }
}
